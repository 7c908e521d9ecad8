"""Official and corrected, side by side: apply current labels to an item table, compare reports.

:func:`apply_corrections` never changes the table it is given. It returns a copy in which
``gold`` is the corrected gold (what every ``score`` function reads), ``official_gold`` and
``official_correct`` keep the published values, ``gold_corrected`` marks the rows a label
changed, and ``flags`` / ``note`` carry the current flag set and note. The model's answer is the
same column, untouched. Verdicts are recomputed by :mod:`analysis.benchmarks.rescore`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import ScoreReport
from analysis.benchmarks.rescore import rescore_with_gold
from analysis.benchmarks.shared.corrected import table_spelling

__all__ = [
    "CORRECTION_COLUMNS",
    "Run",
    "apply_corrections",
    "corrected_runs",
    "count_corrections",
    "flatten",
    "metric_changes",
    "table_spelling",
]

CORRECTION_COLUMNS = ("official_gold", "official_correct", "gold_corrected", "flags", "note")
"""Columns :func:`apply_corrections` adds to an item table."""


def _label_map(labels: pd.DataFrame, field: str) -> dict[str, str]:
    rows = labels[(labels["field"] == field) & labels["value"].notna()]
    return dict(zip(rows["item_id"].astype(str), rows["value"].astype(str), strict=True))


def apply_corrections(
    table: pd.DataFrame, labels: pd.DataFrame, *, exclude_flags: Iterable[str] = ()
) -> pd.DataFrame:
    """A copy of ``table`` scored against corrected gold (see the module docstring).

    ``labels`` is :func:`analysis.store.labels.current_labels` (columns ``item_id``, ``field``,
    ``value``...). Rows whose item carries one of ``exclude_flags`` (e.g. ``invalid-question``)
    are marked not scored, with the flag as the reason.
    """
    gold_map = _label_map(labels, "gold")
    ids = table["item_id"]
    new_gold = table["gold"].copy()
    hit = _positions(ids, gold_map)
    if hit.size:
        originals = [None if g is pd.NA else str(g) for g in table["gold"].iloc[hit].tolist()]
        values = [table_spelling(gold_map[str(i)], o) for i, o in zip(ids.iloc[hit], originals, strict=True)]
        new_gold.iloc[hit] = values
    out = rescore_with_gold(table, new_gold, gold_labels=gold_map)
    out["official_gold"] = table["gold"]
    out["official_correct"] = table["correct"]
    # from the label's value, not the table's: a label that only names a span's type (the table
    # keeps official tags, the type goes to the label entries) still corrects the item's gold
    changed = new_gold.astype("string") != table["gold"].astype("string")
    out["gold_corrected"] = changed.fillna(False).to_numpy(dtype=bool)
    for field, column in (("flag", "flags"), ("note", "note")):
        found = _label_map(labels, field)
        values_col = pd.Series(pd.NA, index=table.index, dtype="string")
        where = _positions(ids, found)
        if where.size:
            values_col.iloc[where] = [found[str(i)] for i in ids.iloc[where]]
        out[column] = values_col
    if exclude_flags:
        _exclude(out, set(exclude_flags))
    return out


def _positions(ids: pd.Series, labels: Mapping[str, str]) -> npt.NDArray[np.intp]:
    """Row positions whose item id has a label (a hash lookup over the column, no Python loop)."""
    if not labels:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(ids.isin(list(labels)).to_numpy(dtype=bool))


def _exclude(out: pd.DataFrame, excluded: set[str]) -> None:
    flags = out["flags"].fillna("").astype(str)
    hit = flags.map(lambda f: bool(excluded & set(f.split(",")))).to_numpy(dtype=bool)
    if not hit.any():
        return
    scored = out["scored"].to_numpy(dtype=bool).copy()
    reasons = out["skip_reason"].astype("string").array.copy()
    newly = hit & scored
    scored[newly] = False
    reasons[newly] = pd.array([f"flagged by a reviewer: {f}" for f in flags[newly]], dtype="string")
    out["scored"], out["skip_reason"] = scored, reasons


def flatten(report: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every number of a score report with its path: ``overall.accuracy``, ``groups.task.qa.cfad``."""
    for key, value in report.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from flatten(value, path + ".")
        elif (isinstance(value, (int, float)) or value is None) and (key != "task" or prefix):
            yield path, value


def metric_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], *, only_changed: bool = True
) -> list[tuple[str, Any, Any]]:
    """``(metric path, before, after)`` for every metric of two reports (only those that differ).

    A metric present in one report only appears with None on the other side.
    """
    left, right = dict(flatten(before)), dict(flatten(after))
    paths = list(left) + [p for p in right if p not in left]
    changes = [(p, left.get(p), right.get(p)) for p in paths]
    if only_changed:
        changes = [c for c in changes if not _same(c[1], c[2])]
    return changes


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def count_corrections(corrected: pd.DataFrame) -> int:
    """How many items a table's corrections change: the one counting rule of the app and the CLI.

    ``corrected`` is :func:`apply_corrections`'s output; an item counts once (however many models
    answer it) when its current gold differs from the official one. A label equal to the official
    gold, a cleared label and a label on an item outside the table do not count.
    """
    return int(corrected.loc[corrected["gold_corrected"], "item_id"].nunique())


@dataclass(frozen=True)
class Run:
    """One model's (and, where the benchmark scores one task at a time, one task's) two reports."""

    model: str
    task: str | None
    official: ScoreReport
    corrected: ScoreReport
    corrections: int
    """The items of this run whose gold the corrections change (:func:`count_corrections`)."""


def corrected_runs(table: pd.DataFrame, corrected: pd.DataFrame, *, parser: str | None = None) -> list[Run]:
    """Official and corrected reports of every model (and task, where required) of one benchmark.

    ``table`` holds one benchmark's rows, ``corrected`` is :func:`apply_corrections` of it. The
    app's corrected view and ``halluscope score --corrected`` both read these numbers.
    """
    runs: list[Run] = []
    if not len(table):
        return runs
    bench = benchmarks.get(str(table["benchmark"].iloc[0]))
    models = table["model"].astype(str).to_numpy()
    tasks = table["task"].astype(str).to_numpy()
    for model in sorted(set(models) - {""}):
        mine = models == model
        wanted: list[str | None] = sorted(set(tasks[mine])) if bench.TASK_REQUIRED else [None]
        for task in wanted:
            rows = mine if task is None else mine & (tasks == task)
            runs.append(
                Run(
                    model,
                    task,
                    bench.score(table[rows], task=task, parser=parser),
                    bench.score(corrected[rows], task=task, parser=parser),
                    count_corrections(corrected[rows]),
                )
            )
    return runs
