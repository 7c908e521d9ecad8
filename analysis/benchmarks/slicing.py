"""The columns a failure slice may use, for any benchmark's item table (``docs/failures.md``).

The columns every item table has (task, category, sub-category, gold, whether an answer was
read), then the benchmark's own attributes and its clusters (its package's ``slicing``). Here,
below the query layer, so that a filter of the Items tab and the slice finder cut rows alike.
"""

from __future__ import annotations

import re
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
    gold = _one_spelling(table["gold"].astype("string").str.strip().fillna(""))
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


def _one_spelling(gold: pd.Series) -> pd.Series:
    """Each gold as one spelling of its letters' case: "Yes" and "yes" are one slice.

    The spelling is the one the files use most (ties: the first in sorted order), so a slice names
    its gold as the benchmark writes it ("Yes", "B"), whatever order the files came in.
    """
    key = gold.str.lower()
    counts = pd.DataFrame({"k": key, "s": gold}).value_counts().reset_index(name="n")
    counts = counts.sort_values(["k", "n", "s"], ascending=[True, False, True]).drop_duplicates("k")
    return key.map(dict(zip(counts["k"], counts["s"], strict=True))).fillna("")


def condition_mask(
    columns: Mapping[str, npt.NDArray[np.object_]], conditions: Sequence[Condition]
) -> npt.NDArray[np.bool_]:
    """Rows meeting every condition (a condition on a column the table lacks meets none)."""
    n = len(next(iter(columns.values()))) if columns else 0
    mask = np.ones(n, dtype=bool)
    for column, value in conditions:
        values = columns.get(column)
        if values is None:
            mask &= np.zeros(n, dtype=bool)
        elif column == "gold":  # one value whatever its case ("gold = no" of a "No" gold)
            mask &= (pd.Series(values, dtype=object).str.lower() == value.lower()).to_numpy(dtype=bool)
        else:
            mask &= values == value
    return mask


AND = " & "
IS = " = "


def describe(conditions: Sequence[Condition]) -> str:
    """A slice as reviewers read and type it: ``modality = audio & gold = no``."""
    return AND.join(f"{column}{IS}{value}" for column, value in conditions)


def parse(text: str) -> tuple[Condition, ...]:
    """The conditions of :func:`describe`'s text (a column name is a word, dots allowed).

    A part that does not start with a column name and ``" = "`` belongs to the value before it
    (a value may hold ``" & "``). Raises ValueError saying what it could not read.
    """
    conditions: list[list[str]] = []
    for part in text.split(AND) if text.strip() else []:
        column, is_, value = part.strip().partition(IS)
        if is_ and _COLUMN.fullmatch(column):
            conditions.append([column, value])
        elif conditions:
            conditions[-1][1] += AND + part
        else:
            raise ValueError(f"not a slice: {part.strip()!r} (write column = value, joined by &)")
    return tuple((c, v.strip()) for c, v in conditions)


_COLUMN = re.compile(r"[A-Za-z_][\w.-]*")


def _text(series: pd.Series) -> npt.NDArray[np.object_]:
    return series.astype("string").fillna("").to_numpy(dtype=object)
