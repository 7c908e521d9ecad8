"""Moving between items: selecting a table row, next / previous, jumping to an item id.

Each handler is a plain function of the catalog, the current row and the filter widgets' values,
returning the new current row, the inspector's outputs and, when the item is on another page,
that page of the table (``gr.skip()`` when the page does not change, so the table is not resent).
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import numpy as np

from analysis.load.catalog import Catalog
from analysis.query import Filters, neighbour, page_of, position
from components.browse.page import filters_from, row_from_values, show_page
from components.browse.render import md_code
from components.browse.view import ItemView, as_view


def _position(rows: Any, row: int | None) -> str:
    if row is None:
        return "No item in this view." if len(rows) == 0 else ""
    at = position(rows, row)
    where = f"item {at + 1:,} of {len(rows):,} in view" if at is not None else "item outside the current view"
    return f"{where} · row {row}"


def select_row(
    catalog: Catalog | ItemView, values: list[Any] | None, filter_values: list[Any]
) -> tuple[Any, ...]:
    """The inspector for the table row whose values were clicked (read ``row``, not the position)."""
    view = as_view(catalog)
    row = row_from_values(values)
    rows = view.rows(filters_from(*filter_values))
    return (row, *view.inspect(row, _position(rows, row)))


def step_item(
    catalog: Catalog | ItemView, step: int, current: int | None, page: float | None, filter_values: list[Any]
) -> tuple[Any, ...]:
    """Go ``step`` items forward or back in the filtered view; follow with the table's page."""
    view = as_view(catalog)
    filters = filters_from(*filter_values)
    rows = view.rows(filters)
    row = neighbour(rows, current, step)
    return (
        row,
        *view.inspect(row, _position(rows, row)),
        *_page_update(view, filters, rows, row, page),
    )


def page_to_row(
    catalog: Catalog | ItemView, row: int | None, page: float | None, filter_values: list[Any]
) -> tuple[Any, ...]:
    """The table's page holding ``row`` (an item opened by its id), as a step to an item pages it."""
    view = as_view(catalog)
    filters = filters_from(*filter_values)
    return _page_update(view, filters, view.rows(filters), row, page)


def _page_update(
    catalog: ItemView, filters: Filters, rows: Any, row: int | None, page: float | None
) -> tuple[Any, ...]:
    if row is None:
        return gr.skip(), gr.skip(), gr.skip()
    wanted = page_of(rows, row)
    if wanted == int(page or 1):
        return gr.skip(), gr.skip(), gr.skip()
    return show_page(catalog, filters, wanted)


def find_item(
    catalog: Catalog | ItemView, item_id: str | None, filter_values: list[Any], model: str | None = None
) -> tuple[Any, ...]:
    """The inspector for an item id typed by the reviewer (or a shared URL's).

    ``model``'s row of the item where it has one (a shared link names the row it showed); then
    its row in the view (the model filtered on), else its first row (any model).
    """
    view = as_view(catalog)
    found = view.catalog.rows_of((item_id or "").strip())
    if model is not None and found.size:
        mine = found[(view.catalog.table["model"].to_numpy()[found] == model)]
        found = mine if mine.size else found
    rows = view.rows(filters_from(*filter_values))
    in_view = found[np.isin(found, rows)]
    row = int(in_view[0]) if in_view.size else int(found[0]) if found.size else None
    result = view.inspect(row, _position(rows, row))
    if row is None and item_id:
        result = (f"No item with id {md_code(item_id.strip())}.", *result[1:])
    return (row, *result)


def clear_stale(
    catalog: Catalog | ItemView, current: int | None, filter_values: list[Any]
) -> tuple[Any, ...]:
    """Clear the inspector when the view is empty or the item belongs to another benchmark.

    Otherwise the item stays and only its place is told again: its position in the new view, or
    that it is outside it (a narrower view of its benchmark, a slice of another model).
    """
    view = as_view(catalog)
    table = view.catalog.table
    skip = tuple(gr.skip() for _ in range(6))
    if current is None or not 0 <= current < len(table):
        return skip
    filters = filters_from(*filter_values)
    rows = view.rows(filters)  # the viewer's own rows: a blind one's filters are narrowed
    other = bool(filters.benchmark) and str(table.at[current, "benchmark"]) != filters.benchmark
    if len(rows) and not other:
        return (gr.skip(), _position(rows, current), *skip[2:])
    return nothing_open(view, _position(rows, None))


def nothing_open(catalog: Catalog | ItemView, position: str = "") -> tuple[Any, ...]:
    """The inspector with no item open (``position``: where the view stands, else "No item selected.")."""
    return (None, *as_view(catalog).inspect(None, position or "No item selected."))


def open_in_items(item_id: str | None) -> tuple[Any, Any]:
    """The "Go to item id" box and the Items tab, for an item another tab names.

    A finding's or a slice's item; a refusal when none is chosen. Chained to :func:`find_item`, it
    opens the item.
    """
    if not item_id:
        raise gr.Error("Choose an item first.")
    return item_id, gr.Tabs(selected="items-tab")
