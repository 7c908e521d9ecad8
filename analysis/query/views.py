"""What the reviewer app shows, computed without Gradio: filters, pages of rows, one item's detail.

Everything works on the catalog's item table with whole-column operations; only the one item being
inspected becomes a Python object (:class:`ItemDetail`). :func:`prepare` adds, once at load time,
the derived columns the filters and charts read (their names start with ``_``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.stats.metrics import NO, UNPARSED, YES
from analysis.table.columns import single_chunks

__all__ = [
    "ALL",
    "DISPLAY_COLUMNS",
    "PAGE_SIZE",
    "Filters",
    "ItemDetail",
    "MediaRef",
    "OtherAnswer",
    "choices",
    "display_frame",
    "filter_mask",
    "filter_rows",
    "item_detail",
    "neighbour",
    "page_count",
    "page_of",
    "page_slice",
    "parsed_spans",
    "position",
    "prepare",
    "split_spans",
    "verdict_mark",
    "verdict_word",
]

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

ALL = "(all)"
"""Selector value meaning no restriction."""

_TRUNCATE = {"question": 90, "answer": 60, "gold": 40, "parsed": 30}


def prepare(
    table: pd.DataFrame, flagged: Collection[str] = (), *, text: pd.arrays.ArrowStringArray | None = None
) -> pd.DataFrame:
    """Add the derived columns filters and charts read; ``flagged`` are item ids the audit named.

    Every text column is made one contiguous Arrow array: taking a page of rows from an array of
    many chunks (one per file, per block read) first joins the chunks, a cost that grows with the
    table; from one chunk it costs what the page holds. ``text``: the table's :func:`search_text`
    if already made (in another thread while the rest is derived).
    """
    out = single_chunks(table.reset_index(drop=True))
    out["_text"] = search_text(out) if text is None else text
    out["_flagged"] = out["item_id"].isin(list(flagged)).to_numpy(dtype=bool)
    parsed = out["parsed"].fillna("").str.strip().str.lower()
    out["_pred_code"] = np.select([parsed == "yes", parsed == "no"], [YES, NO], UNPARSED).astype(np.int8)
    gold = out["gold"].fillna("").str.strip().str.lower()
    out["_gold_yes"] = (gold == "yes").to_numpy(dtype=bool)
    out["_binary"] = gold.isin(["yes", "no"]).to_numpy(dtype=bool)
    both = out["correct"].notna() & out["alt_correct"].notna()
    out["_differs"] = (both & (out["correct"] != out["alt_correct"])).fillna(False).to_numpy(dtype=bool)
    return out


def search_text(table: pd.DataFrame) -> pd.arrays.ArrowStringArray:
    """Lower-cased question, answer, item id, pair and side, one line each (what search reads).

    One Arrow join and one lower-casing over whole columns (pandas' ``+`` on text columns makes
    a new array per operator).
    """
    text = pa.large_string()
    parts = [pc.cast(pa.chunked_array(table[c].array._pa_array), text)
             for c in ("question", "raw_answer", "item_id", "pair_id", "side")]
    joined = pc.binary_join_element_wise(*[pc.fill_null(p, "") for p in parts], pa.scalar("\n", text))
    return pd.arrays.ArrowStringArray(pc.utf8_lower(joined))


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
    sub = table[table["benchmark"] == benchmark] if _given(benchmark) else table
    return {c: sorted(v for v in sub[c].astype(str).unique() if v) for c in ("model", "task", "category")}


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
    sub = table[["item_id", "model", "task", "category", "question", "raw_answer", "parsed", "gold",
                 "correct", "_flagged"]].iloc[rows]
    frame = pd.DataFrame(
        {
            "row": rows.astype(np.int64),
            "item_id": sub["item_id"].to_numpy(dtype=object),
            "model": sub["model"].astype(str).to_numpy(),
            "task": sub["task"].astype(str).to_numpy(),
            "category": sub["category"].astype(str).to_numpy(),
            "question": sub["question"].fillna("").to_numpy(dtype=object),
            "answer": sub["raw_answer"].fillna("").to_numpy(dtype=object),
            "parsed": [parsed_label(p) for p in sub["parsed"].fillna("").to_numpy(dtype=object)],
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


_FLAGS = re.compile(r"[01]{12,}")
"""A DetailVerifyBench reading (a flag per compared token); 12+ digits, so no count answer ("10") matches."""


def parsed_label(parsed: str | None) -> str:
    """A reading as shown in lists: a DetailVerifyBench token-flag string becomes "k of n flagged"."""
    if parsed is None:
        return ""
    if _FLAGS.fullmatch(parsed):
        return f"{parsed.count('1')} of {len(parsed)} tokens flagged"
    return parsed


def verdict_mark(correct: Any) -> str:
    """✓ for correct, ✗ for wrong, – for rows not scored."""
    if correct is None or correct is pd.NA:
        return "–"
    return "✓" if bool(correct) else "✗"


def verdict_word(correct: Any, scored: bool = True, reason: str = "") -> str:
    """The verdict as words, with the reason a row is not scored."""
    if not scored:
        return f"not scored ({reason})" if reason else "not scored"
    if correct is None or correct is pd.NA:
        return "no verdict"
    return "correct" if bool(correct) else "wrong"


def neighbour(rows: npt.NDArray[np.intp], current: int | None, step: int) -> int | None:
    """The row ``step`` places after ``current`` in the view (clamped); the first when none."""
    if rows.size == 0:
        return None
    at = position(rows, current)
    if at is None:
        return int(rows[0])
    return int(rows[min(max(at + step, 0), rows.size - 1)])


_LETTERS = re.compile(r"^[A-D](?:[\s,;/]*[A-D])*$")


def parsed_spans(raw: str | None, parsed: str | None) -> list[tuple[int, int]]:
    """Character spans of ``raw`` where the parser's reading ``parsed`` was (most likely) found.

    The parsers do not return offsets, so this finds the reading in the answer: the first
    occurrence of the whole reading as a word (case-insensitive, except a single letter, which the
    MCQ rules read case-sensitively: "a" is an article), else each letter of a letter set
    (``"A, C"``). An empty list means the reading is not literally in the answer (a TSH order).
    """
    if not raw or not parsed or not parsed.strip():
        return []
    word = parsed.strip()
    found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", raw, 0 if len(word) == 1 else re.IGNORECASE)
    if found:
        return [found.span()]
    if _LETTERS.match(word):
        spans = [
            m.span()
            for letter in dict.fromkeys(re.findall("[A-D]", word))
            if (m := re.search(rf"\b{letter}\b", raw))
        ]
        return sorted(spans)
    return []


def split_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut into pieces, each marked True when inside one of ``spans``."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(spans):
        start = max(start, at)
        if start >= end:
            continue
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


@dataclass(frozen=True)
class MediaRef:
    """One media file to show for an item."""

    kind: str
    """``video``, ``audio`` or ``image``."""
    reference: str
    """The path as the benchmark file gives it."""
    role: str
    """What it is (``clip``, ``counterfactual``, ``audio track``...)."""
    side: str = ""
    """Pair side it belongs to, when the item is one side of a pair."""


@dataclass(frozen=True)
class OtherAnswer:
    """Another model's (or run's) answer to the same item."""

    row: int
    model: str
    raw_answer: str
    parsed: str
    verdict: str
    alt_verdict: str


@dataclass(frozen=True)
class ItemDetail:
    """Everything the inspector shows about one row."""

    row: int
    fields: dict[str, Any]
    """The row's item-table columns (nulls as None)."""
    options: list[str]
    extra: dict[str, Any]
    answer_pieces: list[tuple[str, bool]]
    """The raw answer cut into pieces, True where the parsed reading was found."""
    verdict: str
    alt_verdict: str
    media: list[MediaRef]
    others: list[OtherAnswer]
    pair: list[dict[str, Any]] = field(default_factory=list)
    """The other sides of the pair, same model: side, answer, parsed, gold, verdict."""


def item_detail(
    table: pd.DataFrame, row: int, same_item: npt.NDArray[np.intp], same_pair: npt.NDArray[np.intp]
) -> ItemDetail:
    """Assemble the inspector's view of ``row``.

    ``same_item`` are the rows of every model answering this item, ``same_pair`` the rows of its
    pair (both from the catalog's indexes, so nothing here scans the whole table).
    """
    fields = {str(k): _plain(v) for k, v in table.iloc[row].items() if not str(k).startswith("_")}
    pair_rows = [int(r) for r in same_pair if r != row and _same_run(table, int(r), fields)]
    media = _media(fields, str(fields.get("side") or ""))
    pair = []
    for r in pair_rows:
        other = {
            str(k): _plain(v)
            for k, v in table.iloc[r][["side", "raw_answer", "parsed", "gold", "correct", "media"]].items()
        }
        pair.append({**other, "row": r, "verdict": verdict_word(other["correct"])})
        media.extend(
            m for m in _media(other, str(other["side"])) if m.reference not in {x.reference for x in media}
        )
    return ItemDetail(
        row=row,
        fields=fields,
        options=_json_list(fields["options"]),
        extra=_json_dict(fields["extra"]),
        answer_pieces=split_spans(
            fields["raw_answer"] or "", parsed_spans(fields["raw_answer"], fields["parsed"])
        ),
        verdict=verdict_word(fields["correct"], bool(fields["scored"]), fields["skip_reason"] or ""),
        alt_verdict=verdict_word(fields["alt_correct"]),
        media=media,
        others=_others(table, same_item, row),
        pair=pair,
    )


def _same_run(table: pd.DataFrame, other: int, fields: dict[str, Any]) -> bool:
    """Same model, task and question: the other side of this question, not another question of the pair."""
    return all(_plain(table.at[other, c]) == fields[c] for c in ("model", "task", "question"))


def _others(table: pd.DataFrame, rows: npt.NDArray[np.intp], current: int) -> list[OtherAnswer]:
    sub = table.iloc[rows]
    out = []
    for r, model, raw, parsed, correct, alt in zip(
        rows, sub["model"], sub["raw_answer"], sub["parsed"], sub["correct"], sub["alt_correct"], strict=True
    ):
        if int(r) == current:
            continue
        out.append(
            OtherAnswer(
                int(r),
                str(model),
                _plain(raw) or "",
                parsed_label(_plain(parsed)),
                verdict_word(_plain(correct)),
                verdict_word(_plain(alt)),
            )
        )
    return out


def _media(fields: dict[str, Any], side: str) -> list[MediaRef]:
    refs = []
    for entry in _json_list(fields.get("media") or ""):
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            refs.append(MediaRef(str(entry.get("kind", "")), entry["path"], str(entry.get("role", "")), side))
    return refs


def _plain(value: Any) -> Any:
    """A cell as plain Python (pandas' NA becomes None)."""
    if value is pd.NA or value is None:
        return None
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and np.isnan(value):
        return None
    return value


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
