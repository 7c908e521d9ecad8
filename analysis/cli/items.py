"""``halluscope items``: the item table as JSON Lines, one object per (item, model).

Each object has ``item_id`` (the same for every model's answer to one benchmark item, and the
same in the app), ``benchmark``, ``model``, ``task``, ``gold`` in the form a correction takes
(the native value: ``"Yes"``, ``"no"``, ``"B"``, ``"AB"``, a tagged caption; a two-part gold
joined as its kind spells it, :attr:`~analysis.benchmarks.base.GoldKind.native`), ``parsed``,
``correct``, ``scored``, the fields that find the native record (``source``, ``pair_id``,
``side``, ``question``), then the record's native key fields the keys before do not already
give (``Benchmark.native_keys``, named as the native files name them); with ``--db``, also
``corrected_gold``. See ``docs/cli.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.base import Benchmark
from analysis.benchmarks.official import official_value
from analysis.errors import InputError
from analysis.files.harness import sniff
from analysis.load.detect import detect, expect
from analysis.table.columns import concat_tables

FIELDS = (
    "item_id",
    "benchmark",
    "model",
    "task",
    "category",
    "gold",
    "raw_answer",
    "parsed",
    "correct",
    "scored",
    "skip_reason",
    "source",
    "pair_id",
    "side",
    "question",
)
"""The keys every printed object starts with, in order (the native key fields follow)."""
CORRECTED_KEY = "corrected_gold"
"""The key ``items --db`` adds after them."""


def load_files(
    bench: Benchmark,
    files: Sequence[Path],
    *,
    gold: Path | None = None,
    task: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every file as the app reads it: a gold file as gold, a prediction file as one model's run.

    A general harness's file (``fmt``, or told by content: :mod:`analysis.files.harness`) and a file
    read through ``mapping`` are one model's run of ``bench``: their content names no benchmark.
    """
    if gold is not None and bench.TAKES_GOLD:  # another benchmark's file: said as such, before reading it
        expect(gold, bench, "gold", task)
    # a run of several tasks' files with one task's gold: that task, told once (None: not asked)
    gold_task = _task_of(gold) if gold is not None and task is None else None
    tables = []
    for path in files:
        if mapping or (fmt or sniff(path)) != "native":
            tables.append(bench.load(path, gold=gold, task=task, fmt=fmt, mapping=mapping))
            continue
        found = detect(path)
        if found.benchmark != bench.NAME:
            raise InputError(path, f"this is a {found.benchmark or found.role} file, not {bench.NAME}")
        if gold is not None and gold_task is not None and path != gold and found.role == "predictions":
            _same_task(bench, gold, gold_task, path, found.task)
        if found.role == "gold" and path != gold:
            tables.append(bench.load_gold([path]))
        else:
            tables.append(bench.load(path, gold=gold, task=task if task is not None else found.task))
    return concat_tables(tables)


def _task_of(gold: Path) -> str | None:
    """The task a gold file holds, from its content; None when it cannot tell (the reader then says why)."""
    try:
        return detect(gold).task
    except InputError:
        return None


def _same_task(bench: Benchmark, gold: Path, gold_task: str, path: Path, file_task: str | None) -> None:
    """Refuse one ``--gold`` of one task for a prediction file of another (files of several tasks)."""
    if file_task is not None and gold_task != file_task:
        raise InputError(
            gold,
            f"this is {bench.NAME} {gold_task} gold, but {path.name} is a {file_task} file: "
            f"--gold is one file, so give each task's files in a run of their own (or --task)",
        )


def model_rows(
    bench: Benchmark, files: Sequence[Path], *, gold: Path | None, task: str | None
) -> tuple[pd.DataFrame, list[str]]:
    """(every model's rows of ``files``, of ``task`` when given; the models, sorted).

    Gold files alone carry no answers: their rows are left out. Used by the commands that compare
    models (``slices``, ``suspects``).
    """
    table = load_files(bench, files, gold=gold, task=task)
    table = table[table["model"].astype(str) != ""]
    if task is not None:
        table = table[table["task"].astype(str) == task]
    return table, sorted(set(table["model"].astype(str)))


def item_lines(bench: Benchmark, table: pd.DataFrame, corrected: pd.DataFrame | None = None) -> Iterator[str]:
    """One JSON line per row of ``table``.

    With ``corrected`` (``table`` with the store's labels applied, row for row: ``items --db``),
    each object ends with ``corrected_gold``, the gold ``score --corrected`` scores against, in the
    form a correction takes; every other key stays the official one.
    """
    fixed = corrected.iterrows() if corrected is not None else None
    keys = bench.native_keys(table)
    for (_, row), key in zip(table.iterrows(), keys, strict=True):
        record: dict[str, Any] = {k: _plain(row[k]) for k in FIELDS}
        record["gold"] = official_value(row)  # as the files spell it
        record.update((name, value) for name, value in key.items() if name not in record)
        if fixed is not None:
            _, other = next(fixed)
            record[CORRECTED_KEY] = official_value(other)
        yield json.dumps(record, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value
