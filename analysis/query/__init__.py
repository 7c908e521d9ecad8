"""Queries over the loaded item table: filters, pages of rows, one item's detail.

Whole-column work on the table; only the one inspected item becomes a Python object. The modules
behind this face: :mod:`.prepare` (columns derived at load time), :mod:`.filters`, :mod:`.pages`
and :mod:`.detail`.
"""

from analysis.query.detail import (
    ItemDetail,
    MediaRef,
    OtherAnswer,
    item_detail,
    parsed_spans,
    split_spans,
    verdict_word,
)
from analysis.query.filters import ALL, Filters, choices, filter_mask, filter_rows
from analysis.query.pages import (
    DISPLAY_COLUMNS,
    PAGE_SIZE,
    display_frame,
    neighbour,
    page_count,
    page_of,
    page_slice,
    position,
    reading_labels,
    verdict_mark,
)
from analysis.query.prepare import prepare, search_text

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
    "reading_labels",
    "search_text",
    "split_spans",
    "verdict_mark",
    "verdict_word",
]
