"""Pre-grouped counts for the charts, so a filter change costs a count, not a copy of its rows.

Every chart reads a handful of columns with few values each (benchmark, model, task, category,
the verdict, the yes/no readings, each benchmark's ``key`` derived columns...). At load time each
row gets the code of its combination of those values, its *cell*; a view of any size is then one
``bincount`` of its rows' cells, and the charts draw from one row per cell present, weighted by
its count ``_n`` and carrying, for each ``sum`` derived column, the sum of its rows' values
(``<name>_sum``). The data functions of the charts read such weighted rows exactly as they read
item rows.

Rows holding a value of a ``row`` derived column (a list per row) are kept as themselves, weight
1: a chart reads that value itself. They are few (in the bundled benchmarks, only runs loaded
with their gold labels).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.charts.common import chart_columns, derived_columns

COMMON_KEYS = (
    "benchmark",
    "model",
    "task",
    "category",
    "scored",
    "correct",
    "_binary",
    "_pred_code",
    "_gold_yes",
)
"""The common columns whose values make a cell: every column a common chart groups or counts by."""


class ChartCells:
    """The cells of one table and the weighted rows of any view of it."""

    def __init__(self, table: pd.DataFrame) -> None:
        derived = derived_columns()
        keys_wanted = [*COMMON_KEYS, *(c for c, d in derived.items() if d.cell == "key")]
        present = [c for c in keys_wanted if c in table]
        n = len(table)
        self._labelled = np.zeros(n, dtype=bool)
        for name, spec in derived.items():
            if spec.cell == "row" and name in table:
                self._labelled |= table[name].notna().to_numpy(dtype=bool)
        keys = table[present].copy(deep=False)
        codes = np.zeros(n, dtype=np.int64)
        for name in present:
            column_codes, uniques = pd.factorize(keys[name], use_na_sentinel=False)
            codes = codes * (len(uniques) + 1) + column_codes
            # Keep the key small: refactorize whenever it could overflow an int64.
            if len(uniques) and np.abs(codes).max(initial=0) > 2**40:
                codes = pd.factorize(codes)[0].astype(np.int64)
        cell = np.full(n, -1, dtype=np.intp)
        unlabelled = np.flatnonzero(~self._labelled)
        cell[unlabelled] = pd.factorize(codes[unlabelled])[0]
        self._size = int(cell.max(initial=-1)) + 1
        first = np.full(self._size, -1, dtype=np.intp)
        first[cell[unlabelled][::-1]] = unlabelled[::-1]  # the first row of each cell wins
        self._cell = cell
        cells = keys.iloc[first].reset_index(drop=True) if self._size else keys.iloc[:0]
        columns = [c for c in chart_columns() if c in table]
        # A cell stands for many rows: the per-row columns (texts, labels, summed values) are empty on it.
        for name in columns:
            if name not in cells:
                cells[name] = pd.Series([None] * len(cells), dtype=table[name].dtype)
        self._cells = cells
        self._sums = {
            f"{name}_sum": np.nan_to_num(table[name].to_numpy(dtype=float), nan=0.0)
            for name, spec in derived.items()
            if spec.cell == "sum" and name in table
        }
        self._rows = table[columns]

    @property
    def size(self) -> int:
        """Number of cells (distinct combinations of the key columns among unlabelled rows)."""
        return self._size

    def view(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """One weighted row per cell present in ``rows`` (plus each labelled row, weight 1)."""
        cell = self._cell[rows]
        keep = cell >= 0
        counts = np.bincount(cell[keep], minlength=self._size)
        present = np.flatnonzero(counts)
        sums = {
            name: np.bincount(cell[keep], weights=values[rows][keep], minlength=self._size)[present]
            for name, values in self._sums.items()
        }
        frame = self._cells.iloc[present].reset_index(drop=True)
        frame = frame.assign(_n=counts[present].astype(np.int64), **sums)
        labelled = rows[self._labelled[rows]]
        if labelled.size:
            extra = self._rows.iloc[labelled].reset_index(drop=True)
            own = {name: values[labelled] for name, values in self._sums.items()}
            extra = extra.assign(_n=np.ones(labelled.size, dtype=np.int64), **own)
            frame = pd.concat([frame, extra], ignore_index=True)
        return frame
