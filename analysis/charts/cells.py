"""Pre-grouped counts for the charts, so a filter change costs a count, not a copy of its rows.

Every chart reads a handful of columns with few values each (benchmark, model, task, category,
side, the verdict, the yes/no readings...). At load time each row gets the code of its
combination of those values, its *cell*; a view of any size is then one ``bincount`` of its
rows' cells, and the charts draw from one row per cell present, weighted by its count ``_n``
(and ``_f1_sum``, the sum of its rows' DetailVerifyBench token F1). The data functions of
:mod:`analysis.charts.common` read such weighted rows exactly as they read item rows.

Rows carrying DetailVerifyBench gold labels (``_labels``) are kept as themselves, weight 1: the
label-type recall reads their text. They are few (only runs loaded with their gold file).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.charts.common import CHART_COLUMNS

KEYS = (
    "benchmark",
    "model",
    "task",
    "category",
    "side",
    "scored",
    "correct",
    "_binary",
    "_pred_code",
    "_gold_yes",
    "_cs_error",
)
"""The columns whose values make a cell: every column a chart groups or counts by."""
SIDES = ("counterfactual", "commonsense")
"""The only side values a chart reads (CDH-Bench); other sides (VidHalluc clip ids) count as ""."""


class ChartCells:
    """The cells of one table and the weighted rows of any view of it."""

    def __init__(self, table: pd.DataFrame) -> None:
        present = [c for c in KEYS if c in table]
        n = len(table)
        self._labelled = (
            table["_labels"].notna().to_numpy(dtype=bool) if "_labels" in table else np.zeros(n, dtype=bool)
        )
        keys = table[present].copy(deep=False)
        if "side" in keys:
            side = keys["side"].astype("string").fillna("")
            keys["side"] = side.where(side.isin(SIDES), "")
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
        # A cell stands for many rows: the per-row columns (texts, labels, F1) are empty on it.
        for name in CHART_COLUMNS:
            if name in table and name not in cells:
                cells[name] = pd.Series([None] * len(cells), dtype=table[name].dtype)
        self._cells = cells
        self._f1 = (
            np.nan_to_num(table["_token_f1"].to_numpy(dtype=float), nan=0.0)
            if "_token_f1" in table
            else np.zeros(n)
        )
        self._rows = table[[c for c in CHART_COLUMNS if c in table]]

    @property
    def size(self) -> int:
        """Number of cells (distinct combinations of :data:`KEYS` among unlabelled rows)."""
        return self._size

    def view(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """One weighted row per cell present in ``rows`` (plus each labelled row, weight 1)."""
        cell = self._cell[rows]
        keep = cell >= 0
        counts = np.bincount(cell[keep], minlength=self._size)
        f1 = np.bincount(cell[keep], weights=self._f1[rows][keep], minlength=self._size)
        present = np.flatnonzero(counts)
        frame = self._cells.iloc[present].reset_index(drop=True)
        frame = frame.assign(_n=counts[present].astype(np.int64), _f1_sum=f1[present])
        labelled = rows[self._labelled[rows]]
        if labelled.size:
            extra = self._rows.iloc[labelled].reset_index(drop=True)
            extra = extra.assign(_n=np.ones(labelled.size, dtype=np.int64), _f1_sum=self._f1[labelled])
            frame = pd.concat([frame, extra], ignore_index=True)
        return frame
