"""Pages of the filtered rows and the table a page shows: positions, neighbours, short texts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks

PAGE_SIZE = 50
"""Rows per page of the item table (the browser table is slow with thousands of rows)."""

DISPLAY_COLUMNS = (
    "row",
    "item_id",
    "model",
    "task",
    "category",
    "question",
    "answer",
    "parsed",
    "gold",
    "verdict",
    "flag",
)
"""Columns of the item table as shown; ``row`` and ``item_id`` identify the selected row."""

_TRUNCATE = {"question": 90, "answer": 60, "gold": 40, "parsed": 30}


def page_count(n_rows: int, size: int = PAGE_SIZE) -> int:
    """Number of pages (at least 1, so an empty view still has page 1)."""
    return max(1, -(-n_rows // size))


def page_slice(rows: npt.NDArray[np.intp], page: int, size: int = PAGE_SIZE) -> npt.NDArray[np.intp]:
    """The rows of page ``page`` (1-based, clamped to the pages there are)."""
    page = min(max(1, page), page_count(len(rows), size))
    return rows[(page - 1) * size : page * size]


def position(rows: npt.NDArray[np.intp], row: int | None) -> int | None:
    """Index of ``row`` in the view ``rows`` (ascending, as :func:`filter_rows` gives them); None if absent.

    A binary search: the cost does not grow with the view.
    """
    if row is None or rows.size == 0:
        return None
    at = int(np.searchsorted(rows, row))
    return at if at < rows.size and int(rows[at]) == row else None


def page_of(rows: npt.NDArray[np.intp], row: int, size: int = PAGE_SIZE) -> int:
    """The page showing ``row`` (1 when it is not in the view)."""
    at = position(rows, row)
    return at // size + 1 if at is not None else 1


def display_frame(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
    """The shown table for ``rows``: short texts, a verdict mark, and the ids to read back."""
    # The shown columns only: taking rows of every column costs far more than a page needs.
    sub = table[
        [
            "benchmark",
            "item_id",
            "model",
            "task",
            "category",
            "question",
            "raw_answer",
            "parsed",
            "gold",
            "correct",
            "_flagged",
        ]
    ].iloc[rows]
    frame = pd.DataFrame(
        {
            "row": rows.astype(np.int64),
            "item_id": sub["item_id"].to_numpy(dtype=object),
            "model": sub["model"].astype(str).to_numpy(),
            "task": sub["task"].astype(str).to_numpy(),
            "category": sub["category"].astype(str).to_numpy(),
            "question": sub["question"].fillna("").to_numpy(dtype=object),
            "answer": sub["raw_answer"].fillna("").to_numpy(dtype=object),
            "parsed": reading_labels(sub["benchmark"], sub["task"], sub["parsed"].to_numpy(dtype=object)),
            "gold": sub["gold"].fillna("").to_numpy(dtype=object),
            "verdict": [verdict_mark(v) for v in sub["correct"].to_numpy(dtype=object)],
            "flag": np.where(sub["_flagged"].to_numpy(dtype=bool), "⚑", ""),
        }
    )
    for column, width in _TRUNCATE.items():
        frame[column] = [_short(str(t), width) for t in frame[column]]
    return frame


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def reading_labels(benchmark: Iterable[Any], task: Iterable[Any], parsed: Iterable[Any]) -> list[str]:
    """Parsers' readings as shown in lists: each in its gold kind's words (``reading``), else as is.

    A tagged kind's reading is a flag per token, shown as "k of n tokens flagged".
    """
    found: dict[tuple[str, str], Callable[[str], str] | None] = {}
    out = []
    for bench, one_task, value in zip(benchmark, task, parsed, strict=True):
        if value is None or value is pd.NA or value == "":
            out.append("")
            continue
        key = (str(bench), "" if one_task is None or one_task is pd.NA else str(one_task))
        if key not in found:
            found[key] = benchmarks.get(key[0]).gold_kind(key[1], None).reading
        show = found[key]
        out.append(show(str(value)) if show is not None else str(value))
    return out


def verdict_mark(correct: Any) -> str:
    """✓ for correct, ✗ for wrong, – for rows not scored."""
    if correct is None or correct is pd.NA:
        return "–"
    return "✓" if bool(correct) else "✗"


def neighbour(rows: npt.NDArray[np.intp], current: int | None, step: int) -> int | None:
    """The row ``step`` places after ``current`` in the view (clamped); the first when none."""
    if rows.size == 0:
        return None
    at = position(rows, current)
    if at is None:
        return int(rows[0])
    return int(rows[min(max(at + step, 0), rows.size - 1)])
