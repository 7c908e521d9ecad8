"""What a reviewer restricts the view to, and the rows that pass: one boolean mask over whole columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.slicing import Condition, condition_mask, slice_columns
from analysis.query.flips import Flip, in_cell

ALL = "(all)"
"""Selector value meaning no restriction."""


@dataclass(frozen=True)
class Filters:
    """What the reviewer restricted the view to; empty values mean no restriction."""

    benchmark: str | None = None
    models: tuple[str, ...] = ()
    task: str | None = None
    category: str | None = None
    wrong_only: bool = False
    """Only rows the default parser scored wrong."""
    parser_dependent: bool = False
    """Only rows whose verdict changes with the parser (``correct != alt_correct``)."""
    flagged_only: bool = False
    """Only items an audit finding names."""
    search: str = ""
    """Case-insensitive text to find in question, answer, item id, pair or side."""
    flip: Flip | tuple[()] = ()
    """Only rows of items in one cell of the flip table of two models (:mod:`analysis.query.flips`);
    ignored without a benchmark."""
    slice: tuple[Condition, ...] = ()
    """Only rows of the benchmark meeting every condition (a slice of "Where it fails",
    :mod:`analysis.benchmarks.slicing`); ignored without a benchmark."""


def _given(value: str | None) -> bool:
    return bool(value) and value != ALL


def filter_mask(table: pd.DataFrame, filters: Filters) -> npt.NDArray[np.bool_]:
    """Which rows pass ``filters``, as one boolean array."""
    mask = np.ones(len(table), dtype=bool)
    if _given(filters.benchmark):
        mask &= (table["benchmark"] == filters.benchmark).to_numpy(dtype=bool)
    if filters.models:
        mask &= table["model"].isin(list(filters.models)).to_numpy(dtype=bool)
    for column, value in (("task", filters.task), ("category", filters.category)):
        if _given(value):
            mask &= (table[column] == value).to_numpy(dtype=bool)
    if filters.wrong_only:
        mask &= table["correct"].eq(False).fillna(False).to_numpy(dtype=bool)
    if filters.parser_dependent:
        mask &= table["_differs"].to_numpy(dtype=bool)
    if filters.flagged_only:
        mask &= table["_flagged"].to_numpy(dtype=bool)
    if filters.slice and _given(filters.benchmark) and mask.any():
        # cut over all the benchmark's rows, as the slice finder does (an attribute may look at
        # a row's neighbours), then kept where the other filters pass
        rows = np.flatnonzero((table["benchmark"] == filters.benchmark).to_numpy(dtype=bool))
        _, columns = slice_columns(str(filters.benchmark), table.iloc[rows])
        mask[rows] &= condition_mask(columns, filters.slice)
    if filters.flip and _given(filters.benchmark) and mask.any():
        rows = np.flatnonzero((table["benchmark"] == filters.benchmark).to_numpy(dtype=bool))
        a, b, cell = filters.flip
        mask[rows] &= in_cell(table.iloc[rows], a, b, cell)
    needle = filters.search.strip().lower()
    if needle:
        # Only the rows left are searched, in Arrow (no Python string per row).
        rows = np.flatnonzero(mask)
        hits = table["_text"].iloc[rows].str.contains(needle, regex=False)
        mask[rows] = hits.fillna(False).to_numpy(dtype=bool)
    return mask


def filter_rows(table: pd.DataFrame, filters: Filters) -> npt.NDArray[np.intp]:
    """Positions of the rows passing ``filters``, in table order."""
    return np.flatnonzero(filter_mask(table, filters))


def choices(table: pd.DataFrame, benchmark: str | None) -> dict[str, list[str]]:
    """Values the model, task and category selectors offer for one benchmark."""
    names = ["model", "task", "category"]
    columns = table[names]  # the three columns only: masking every column copied the whole table
    sub = columns[(table["benchmark"] == benchmark).to_numpy(dtype=bool)] if _given(benchmark) else columns
    # distinct values first, then their text: astype(str) of a million categorical rows took 50 ms a column
    return {c: sorted({v for v in map(str, sub[c].unique()) if v}) for c in names}
