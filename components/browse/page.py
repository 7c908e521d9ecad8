"""Selectors, filters and the paged item table: widgets plus plain handler functions.

Handlers take the :class:`~analysis.load.catalog.Catalog` and the widgets' values and return new
values; ``app.build_app`` wires them. The table is paged on the server; each shown row carries
``row`` (the catalog position) and ``item_id``, read back from the selected row's values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr
import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.slicing import parse
from analysis.load.catalog import Catalog
from analysis.query import (
    ALL,
    DISPLAY_COLUMNS,
    PAGE_SIZE,
    Filters,
    choices,
    page_count,
    page_slice,
)
from analysis.query.flips import parse_flip
from components.browse.view import ItemView, as_view

# Fits the Items tab at a 1280 px window (about 955 px of table) so that model, question, answer,
# parsed, gold and verdict show without scrolling; the item id is cut (it is in the inspector, whole).
# The gold column holds a corrected yes/no with the official one, "✎ No (was Yes)" (issue 20: at
# 64 px it showed "✎ No..." and the official gold never).
_WIDTHS: list[str | int] = [
    "44px",  # row
    "72px",  # item_id
    "84px",  # model
    "60px",  # task
    "64px",  # category
    "170px",  # question
    "132px",  # answer
    "72px",  # parsed
    "150px",  # gold
    "64px",  # verdict
    "40px",  # flag
]


@dataclass
class BrowseWidgets:
    """The selector and filter widgets, in the order handlers take their values."""

    benchmark: gr.Dropdown
    models: gr.Dropdown
    task: gr.Dropdown
    category: gr.Dropdown
    wrong_only: gr.Checkbox
    parser_dependent: gr.Checkbox
    flagged_only: gr.Checkbox
    search: gr.Textbox
    slice: gr.Textbox
    flip: gr.Textbox

    def inputs(self) -> list[Any]:
        """The widgets whose values make a :class:`Filters`, in :func:`filters_from` order."""
        return [
            self.benchmark,
            self.models,
            self.task,
            self.category,
            self.wrong_only,
            self.parser_dependent,
            self.flagged_only,
            self.search,
            self.slice,
            self.flip,
        ]


@dataclass
class TableWidgets:
    """The paged item table and its page controls."""

    table: gr.Dataframe
    page: gr.Number
    info: gr.Markdown
    prev_page: gr.Button
    next_page: gr.Button


def filters_from(
    benchmark: str | None,
    models: list[str] | None,
    task: str | None,
    category: str | None,
    wrong_only: bool,
    parser_dependent: bool,
    flagged_only: bool,
    search: str | None,
    slice_text: str | None = None,
    flip_text: str | None = None,
) -> Filters:
    """Turn the widgets' values into a :class:`Filters`; an unreadable slice or cell is refused (gr.Error)."""
    try:
        conditions = parse(slice_text or "")
    except ValueError as e:
        raise gr.Error(f"Slice: {e}") from None
    try:
        flip = parse_flip(flip_text or "")
    except ValueError as e:
        raise gr.Error(f"Flip-table cell: {e}") from None
    return Filters(
        benchmark=benchmark or None,
        models=tuple(models or ()),
        task=task or None,
        category=category or None,
        wrong_only=bool(wrong_only),
        parser_dependent=bool(parser_dependent),
        flagged_only=bool(flagged_only),
        search=search or "",
        slice=conditions,
        flip=flip,
    )


# The selectors take any value (allow_custom_value): a benchmark switch fires
# the handlers that follow every filter at once, with the selectors' old values, while the switch's
# own answer gives the selectors the new benchmark's choices, and Gradio then refused a task of the
# old benchmark ("Value: qa is not in the list of choices", a red toast). An unknown value keeps no
# rows for that moment; the switch's answer puts valid values in place (on_benchmark).


def _one_of(values: list[str], label: str, elem_id: str) -> gr.Dropdown:
    """A selector of one value or (all), locked until start-up, taking any value (the note above)."""
    return gr.Dropdown(
        [ALL, *values], value=ALL, label=label, elem_id=elem_id, interactive=False, allow_custom_value=True
    )


def build_filters(catalog: Catalog) -> BrowseWidgets:
    """The left column: benchmark, model, task and category selectors, then the filters.

    They start locked: the page's start-up puts the URL's view in them, and a choice made before
    that would be set back. The answer that puts the view in place opens them
    (:func:`components.url_state.opened`).
    """
    benches = catalog.benchmarks()
    first = benches[0] if benches else None
    start = choices(catalog.table, first)
    return BrowseWidgets(
        benchmark=gr.Dropdown(
            benches, value=first, label="Benchmark", elem_id="f-benchmark", interactive=False
        ),
        models=gr.Dropdown(
            start["model"],
            value=[],
            multiselect=True,
            label="Models (none = all)",
            elem_id="f-models",
            interactive=False,
            allow_custom_value=True,  # see the note above build_filters
        ),
        task=_one_of(start["task"], "Task", "f-task"),
        category=_one_of(start["category"], "Category", "f-category"),
        wrong_only=gr.Checkbox(label="Wrong only", elem_id="f-wrong", interactive=False),
        parser_dependent=gr.Checkbox(
            label="Verdict depends on the parser", elem_id="f-dependent", interactive=False
        ),
        flagged_only=gr.Checkbox(label="Flagged by the audit", elem_id="f-flagged", interactive=False),
        search=gr.Textbox(
            label="Search",
            placeholder="question, answer, item id… (Enter)",
            elem_id="f-search",
            interactive=False,
        ),
        slice=gr.Textbox(
            "",  # a default: API callers written before the slice existed still call /view alike
            label="Slice",
            placeholder="column = value & … (Where it fails sets it; Enter)",
            elem_id="f-slice",
            interactive=False,
        ),
        flip=gr.Textbox(
            "",
            label="Flip-table cell",
            placeholder="only A wrong · A = … · B = … (Where it fails sets it; Enter)",
            elem_id="f-flip",
            interactive=False,
        ),
    )


def build_table(catalog: Catalog) -> TableWidgets:
    """The item table with its page controls (the first page is filled by the app's load event)."""
    with gr.Row(equal_height=True, elem_id="pager"):
        prev_page = gr.Button("◀", size="sm", scale=0, min_width=44, elem_id="prev-page")
        page = gr.Number(
            value=1,
            precision=0,
            minimum=1,
            label="Page",
            scale=0,
            min_width=70,
            elem_id="page",
            show_label=False,
            container=False,
        )
        next_page = gr.Button("▶", size="sm", scale=0, min_width=44, elem_id="next-page")
        info = gr.Markdown("", elem_id="page-info")
    table = gr.Dataframe(
        value=pd.DataFrame(columns=list(DISPLAY_COLUMNS)),
        headers=list(DISPLAY_COLUMNS),
        interactive=False,
        max_height=380,
        elem_id="items",
        column_widths=_WIDTHS,
        wrap=False,
        label="Items (click a row to inspect it)",
        show_label=True,
    )
    return TableWidgets(table, page, info, prev_page, next_page)


def on_benchmark(
    catalog: Catalog,
    benchmark: str | None,
    models: list[str] | None = None,
    task: str | None = None,
    category: str | None = None,
) -> tuple[Any, Any, Any, str, str]:
    """The model, task and category choices of a benchmark.

    A chosen model, task or category the new benchmark also has stays chosen; the others, the
    slice and the flip-table cell (their columns are another benchmark's) are reset.
    """
    c = choices(catalog.table, benchmark)
    return (
        gr.update(choices=c["model"], value=[m for m in models or [] if m in c["model"]]),
        gr.update(choices=[ALL, *c["task"]], value=task if task in c["task"] else ALL),
        gr.update(choices=[ALL, *c["category"]], value=category if category in c["category"] else ALL),
        "",
        "",
    )


def show_page(
    catalog: Catalog | ItemView,
    filters: Filters,
    page: float | None,
    rows: npt.NDArray[np.intp] | None = None,
) -> tuple[pd.DataFrame, int, str]:
    """One page of the filtered table, the page number actually shown, and a "rows x–y of n" line.

    ``rows``: the filtered rows when the caller has them already (a refresh filters once).
    ``catalog`` may be a viewer's :class:`ItemView` (what that viewer may see of each row).
    """
    view = as_view(catalog)
    rows = view.rows(filters) if rows is None else rows
    pages = page_count(len(rows))
    number = min(max(1, int(page or 1)), pages)
    shown = page_slice(rows, number)
    if not len(rows):
        return view.frame(shown), number, "No rows in this view: loosen the filters."
    first = (number - 1) * PAGE_SIZE + 1
    info = f"rows {first:,}–{first + len(shown) - 1:,} of {len(rows):,} · page {number} of {pages}"
    return view.frame(shown), number, info


def row_from_values(values: list[Any] | None) -> int | None:
    """The catalog row of a selected table row, read from its values (never its position)."""
    if not values:
        return None
    try:
        return int(values[DISPLAY_COLUMNS.index("row")])
    except (TypeError, ValueError):
        return None
