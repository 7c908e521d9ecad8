"""The corrected view: the official gold with the store's current labels applied, verdicts recomputed.

One function builds it, :func:`corrected_view`, and one writes it back into a benchmark's own
files, :func:`write_native`; the app (table, inspector, charts, metrics), the
command line (``score --corrected``, ``items --db``), the report and the exports all call it, so
a corrected number is the same wherever it is shown. What a correction does to a row is
:func:`analysis.store.apply.apply_corrections` (each benchmark's own ``rescore``); which labels
are current is :func:`analysis.store.current_labels`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.official import official_value
from analysis.errors import InputError
from analysis.store import Store, apply_corrections, count_corrections, current_labels


def corrected_view(table: pd.DataFrame, store: Store | None) -> pd.DataFrame:
    """``table`` (rows of any benchmarks) against the current labels of ``store``.

    The rows keep their index and order; ``gold`` and the verdicts are the corrected ones, and the
    columns of :data:`analysis.store.apply.CORRECTION_COLUMNS` are added (``official_gold``,
    ``gold_corrected``...). Without a store nothing is corrected and the official values fill them.
    """
    if store is None or not len(table):
        return uncorrected(table)
    names = [str(n) for n in table["benchmark"].astype(str).unique()]
    if len(names) == 1:  # the usual case: one benchmark, no regrouping
        return apply_corrections(table, current_labels(store, names[0]))
    parts = [
        apply_corrections(sub, current_labels(store, str(name)))
        for name, sub in table.groupby("benchmark", sort=False, observed=True)
    ]
    return pd.concat(parts).loc[table.index]


def uncorrected(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the correction columns holding the official values (no label applies)."""
    return table.assign(
        official_gold=table["gold"],
        official_correct=table["correct"],
        gold_corrected=False,
        flags=pd.Series(pd.NA, index=table.index, dtype="string"),
        note=pd.Series(pd.NA, index=table.index, dtype="string"),
    )


def official_gold(table: pd.DataFrame, benchmark: str) -> Mapping[str, str | None]:
    """Item id -> the published gold of ``benchmark``'s items, spelled as in their files (votes meet it).

    :func:`~analysis.benchmarks.official.official_value`: a gold the table keeps in two parts (a
    scene change and its locations, say) is the whole published value, as a vote or a correction
    records it, not the table's part (a vote equal to the published gold was queued as a
    disagreement). Worked out for the items asked for only (a queue asks for a few of them).
    """
    rows = table[(table["benchmark"] == benchmark).to_numpy(dtype=bool)].drop_duplicates("item_id")
    return _Official(rows)


class _Official(Mapping[str, "str | None"]):
    """Item id -> its official value, each computed once, when first asked for."""

    def __init__(self, rows: pd.DataFrame) -> None:
        self._rows = rows
        self._at = {str(i): n for n, i in enumerate(rows["item_id"])}
        self._known: dict[str, str | None] = {}

    def __getitem__(self, key: str) -> str | None:
        if key not in self._known:
            self._known[key] = official_value(self._rows.iloc[self._at[key]])
        return self._known[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def has_gold_corrections(store: Store, benchmark: str) -> bool:
    """Whether any current label of ``benchmark`` sets a gold."""
    labels = current_labels(store, benchmark)
    return bool((labels["field"] == "gold").any())


def corrected_benchmark(table: pd.DataFrame, store: Store, benchmark: str) -> pd.DataFrame | None:
    """The rows of ``benchmark`` in :func:`corrected_view`; None while no label corrects its gold."""
    if not has_gold_corrections(store, benchmark):
        return None
    return corrected_view(table[(table["benchmark"] == benchmark).to_numpy(dtype=bool)], store)


def gold_map(labels: pd.DataFrame) -> dict[str, str]:
    """Item id -> corrected gold, from :func:`analysis.store.current_labels` rows."""
    rows = labels[(labels["field"] == "gold") & labels["value"].notna()]
    return dict(zip(rows["item_id"].astype(str), rows["value"].astype(str), strict=True))


def corrected_gold(store: Store, benchmark: str) -> dict[str, str]:
    """Item id -> current corrected gold of ``benchmark`` (the labels as the store spells them)."""
    return gold_map(current_labels(store, benchmark))


def gold_basis(store: Store | None, benchmark: str) -> str:
    """A short digest of ``benchmark``'s current corrected gold: equal digests, equal corrected views.

    What a view counted against gold was computed from; a tab that remembers it computes again
    only when it changed (another reviewer's save, an adjudication, an undo).
    """
    if store is None:
        return ""
    gold = sorted(corrected_gold(store, benchmark).items())
    return hashlib.blake2b(repr(gold).encode(), digest_size=12).hexdigest()


def common_folder(paths: Sequence[Path]) -> Path:
    """The deepest folder holding every path (a single file: its folder)."""
    folders = [str(Path(p).resolve().parent) for p in paths]
    return Path(os.path.commonpath(folders)) if folders else Path()


def write_native(benchmark: str, paths: Sequence[Path], gold: Mapping[str, str], out_dir: Path) -> list[Path]:
    """Corrected copies of the files of ``paths`` that carry gold, in their own format; the files written.

    Under ``out_dir``, each at its path relative to the given files' common folder, with the
    corrected gold in place and every other field kept: what a copy changes is the benchmark's
    own ``write_corrected`` (see each package's ``native`` module). An input is never overwritten.
    ``gold``: item id -> corrected gold (:func:`corrected_gold`).
    """
    bench = benchmarks.get(benchmark)
    base = common_folder(paths)
    planned: list[tuple[Path, Path]] = []
    for path in paths:
        target = out_dir / Path(path).resolve().relative_to(base)
        if target.resolve() == Path(path).resolve():
            raise InputError(path, "the output folder holds the input file; choose another --out")
        planned.append((Path(path), target))
    written = []
    for path, target in planned:
        text = bench.write_corrected(path, gold)
        if text is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


__all__ = [
    "common_folder",
    "corrected_benchmark",
    "corrected_gold",
    "corrected_view",
    "count_corrections",
    "gold_map",
    "has_gold_corrections",
    "official_gold",
    "uncorrected",
    "write_native",
]
