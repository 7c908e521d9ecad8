"""The columns a failure slice may use, for any benchmark's item table (``docs/failures.md``).

The columns every item table has (task, category, sub-category, gold, whether an answer was
read), then the benchmark's own attributes and its clusters (its package's ``slicing``). Here,
below the query layer, so that a filter of the Items tab and the slice finder cut rows alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks import get

ANSWER = "answer"
"""The column saying whether the official parser read an answer (``read`` / ``unread``)."""
GENERIC = ("task", "category", "subcategory", "gold", ANSWER)
"""The columns every benchmark's slices may use, before the benchmark's own attributes."""

Condition = tuple[str, str]
"""``(column, value)``: one condition of a slice."""


def slice_columns(
    benchmark: str, table: pd.DataFrame
) -> tuple[npt.NDArray[np.object_], dict[str, npt.NDArray[np.object_]]]:
    """(clusters, columns a slice may use) of ``table``'s rows, one benchmark's, in its order."""
    cut = get(benchmark).slicing(table)
    gold = table["gold"].astype("string").str.strip().str.lower().fillna("")
    parsed = table["parsed"].astype("string").fillna("").str.strip()
    columns: dict[str, npt.NDArray[np.object_]] = {
        "task": _text(table["task"]),
        "category": _text(table["category"]),
        "subcategory": _text(table["subcategory"]),
        "gold": gold.to_numpy(dtype=object),
        ANSWER: np.where(parsed.to_numpy(dtype=object) == "", "unread", "read").astype(object),
    }
    for name, values in cut.attributes.items():
        columns[name if name not in columns else f"{benchmark}.{name}"] = values
    return cut.clusters, columns


def condition_mask(
    columns: Mapping[str, npt.NDArray[np.object_]], conditions: Sequence[Condition]
) -> npt.NDArray[np.bool_]:
    """Rows meeting every condition (a condition on a column the table lacks meets none)."""
    n = len(next(iter(columns.values()))) if columns else 0
    mask = np.ones(n, dtype=bool)
    for column, value in conditions:
        values = columns.get(column)
        mask &= np.zeros(n, dtype=bool) if values is None else values == value
    return mask


def _text(series: pd.Series) -> npt.NDArray[np.object_]:
    return series.astype("string").fillna("").to_numpy(dtype=object)
