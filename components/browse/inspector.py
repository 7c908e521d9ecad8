"""The inspector: one item's media, question, answer, gold, verdicts and every model's answer.

:func:`inspect_row` is the handler (plain function of the catalog and a row); the HTML comes from
:mod:`components.browse.render`, which escapes every text taken from a data file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Tagging
from analysis.load.catalog import Catalog
from analysis.query import ItemDetail
from components.browse import render
from components.keys import MEDIA_ID, NEXT_ID, PREV_ID

EMPTY = '<p class="hs-none">Select a row of the table (or press j) to inspect an item.</p>'


@dataclass
class InspectWidgets:
    """Inspector outputs, in the order :func:`inspect_row` returns them."""

    status: gr.Markdown
    media: gr.HTML
    item: gr.HTML
    spans: gr.HTML
    others: gr.HTML
    prev_item: gr.Button
    next_item: gr.Button

    def outputs(self) -> list[Any]:
        """Widgets :func:`inspect_row` fills."""
        return [self.status, self.media, self.item, self.spans, self.others]


def _html(elem_id: str, value: str = "") -> gr.HTML:
    # js_on_load=None: the default adds a click listener that would send an event per click.
    return gr.HTML(value, elem_id=elem_id, js_on_load=None, padding=False)


def build_inspector() -> InspectWidgets:
    """Item navigation, then media beside the question and answer, then spans and other models."""
    with gr.Row(equal_height=True, elem_id="item-nav"):
        prev_item = gr.Button("◀ Previous item", size="sm", scale=0, min_width=140, elem_id=PREV_ID)
        next_item = gr.Button("Next item ▶", size="sm", scale=0, min_width=140, elem_id=NEXT_ID)
        status = gr.Markdown("", elem_id="item-status")
    with gr.Row():
        with gr.Column(scale=1, min_width=320):
            media = _html(MEDIA_ID)
        with gr.Column(scale=1, min_width=320):
            item = _html("item", EMPTY)
    spans = _html("spans")
    with gr.Accordion("Every model's answer to this item", open=True):
        others = _html("others")
    return InspectWidgets(status, media, item, spans, others, prev_item, next_item)


def inspect_row(
    catalog: Catalog, row: int | None, position: str = "", *, detail: ItemDetail | None = None
) -> tuple[str, str, str, Any, str]:
    """Status line, media, item, span view (tagged gold only) and other answers of ``row``.

    ``detail``: the item as the viewer may see it (corrected gold), instead of the catalog's.
    """
    if row is None or not 0 <= row < len(catalog.table):
        return position, "", EMPTY, gr.update(value="", visible=False), ""
    detail = detail or catalog.detail(row)
    bench = benchmarks.get(str(detail.fields["benchmark"]))
    gold = detail.fields.get("gold")
    original = None if gold is None or gold is pd.NA else str(gold)
    kind = bench.gold_kind(str(detail.fields.get("task") or ""), original)
    media = render.media_html(detail, catalog.resolver(bench.NAME))
    item = render.item_html(detail, kind=kind, options=bench.options(detail.extra))
    spans = (
        gr.update(value=spans_for(detail, kind.tagging), visible=True)
        if kind.tagging is not None
        else gr.update(value="", visible=False)
    )
    return position, media, item, spans, render.others_html(detail.others)


def spans_for(detail: ItemDetail, tagging: Tagging) -> str:
    """The span view of a row whose gold is tagged: the gold's tags against the tags the model wrote.

    A gold-only row has no answer: its gold tags show as misses against nothing tagged.
    """
    gold = str(detail.fields.get("gold") or "")
    raw = detail.fields.get("raw_answer")
    reason = "" if detail.fields.get("scored") else str(detail.fields.get("skip_reason") or "not scored")
    return render.spans_html(tagging.view(gold, None if raw is None else str(raw), detail.extra), reason)
