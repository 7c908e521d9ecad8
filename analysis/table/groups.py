"""Grouping rows of an item table (or of pre-grouped counts) without copying them."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd


def group_indices(frame: pd.DataFrame, columns: list[str]) -> dict[tuple[str, ...], npt.NDArray[np.intp]]:
    """Positions (0-based, in ``frame``) of each combination of ``columns``' values, keys as strings."""
    if frame.empty:
        return {}
    # Category columns group fast as they are; keys become strings afterwards.
    indices: dict[Any, Any] = frame.groupby(columns, sort=True, observed=True).indices
    out: dict[tuple[str, ...], npt.NDArray[np.intp]] = {}
    for key, positions in indices.items():
        parts = key if isinstance(key, tuple) else (key,)
        out[tuple(str(p) for p in parts)] = np.asarray(positions, dtype=np.intp)
    return out


def row_weights(table: pd.DataFrame) -> npt.NDArray[np.int64]:
    """How many item rows each row of ``table`` stands for: its ``_n`` when pre-grouped, else 1.

    A chart's numbers come either from item rows or from the catalog's pre-grouped counts
    (:class:`analysis.charts.cells.ChartCells`: one row per distinct combination of what the
    charts read, with ``_n`` rows and the per-group sums of summed columns).
    """
    if "_n" in table:
        return table["_n"].to_numpy(dtype=np.int64)
    return np.ones(len(table), dtype=np.int64)
