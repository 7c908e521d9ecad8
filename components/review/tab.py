"""Wiring of the review features into the app: identity on every write, queues, exports.

Every handler that writes or reads a reviewer's own data takes ``gr.Request`` and
``gr.OAuthProfile | None`` (injected by Gradio, never sent by the browser) and builds the
identity from them with :func:`components.identity.identity_of`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr

from analysis.store import Identity, StoreError
from analysis.views import Filters
from components.browse import charts, navigate
from components.browse import page as browse
from components.browse.inspector import inspect_row
from components.identity import identity_of
from components.review import extra as review_extra
from components.review import span_picker
from components.review.context import Refused, ReviewContext
from components.review.panel import ReviewWidgets, panel, save, undo_last

FREE: dict[str, Any] = {"concurrency_limit": None}


@dataclass
class ReviewTab:
    """The Review tab: queues, adjudication, agreement and exports."""

    queue: gr.Radio
    load: gr.Button
    items: gr.Dataframe
    value: gr.Textbox
    reason: gr.Textbox
    adjudicate: gr.Button
    message: gr.Markdown
    agreement: gr.Markdown
    build: gr.Button
    files: list[gr.DownloadButton]


def build_review_tab() -> ReviewTab:
    """Queues on top, then adjudication, agreement and exports."""
    with gr.Row(equal_height=True):
        queue = gr.Radio(list(review_extra.QUEUES), value=review_extra.QUEUES[0], label="Queue",
                         elem_id="rv-queue", scale=3)
        load = gr.Button("Show queue", size="sm", scale=0, min_width=120, elem_id="rv-queue-load")
    items = gr.Dataframe(headers=["item_id", "detail"], interactive=False, max_height=260,
                         elem_id="rv-queue-items", label="Click an item to open it")
    with gr.Accordion("Adjudicate the current item (disagreements)", open=True), gr.Row(equal_height=True):
        value = gr.Textbox(label="Final gold", elem_id="rv-adj-value", scale=1)
        reason = gr.Textbox(label="Reason (required)", elem_id="rv-adj-reason", scale=2)
        adjudicate = gr.Button("Adjudicate", size="sm", scale=0, min_width=120, elem_id="rv-adj")
    message = gr.Markdown("", elem_id="rv-tab-message")
    agreement = gr.Markdown("", elem_id="rv-agreement")
    with gr.Row(equal_height=True):
        build = gr.Button("Prepare exports", size="sm", scale=0, min_width=140, elem_id="rv-export")
        files = [gr.DownloadButton(label, visible=False, size="sm", elem_id=f"rv-dl-{i}")
                 for i, label in enumerate(("Corrections CSV", "Corrections JSONL", "Corrections Parquet",
                                            "Corrected native gold (zip)"))]
    return ReviewTab(queue, load, items, value, reason, adjudicate, message, agreement, build, files)


def with_identity(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A Gradio handler that passes the session's identity (or None) first; refusals become errors."""

    def handler(request: gr.Request, profile: gr.OAuthProfile | None, *args: Any) -> Any:
        try:
            return fn(identity_of(request, profile), *args)
        except Refused as exc:
            raise gr.Error(escape(str(exc), quote=False), print_exception=False) from exc  # toasts show HTML
        except StoreError as exc:  # the database refused: say why (it was {"error": null})
            raise gr.Error(escape(f"Not saved: {exc}", quote=False), print_exception=False) from exc

    return handler


def _blind_item(ctx: ReviewContext, row: int | None, blind: bool, who: Identity | None) -> tuple[Any, ...]:
    """Item and other-answers HTML: blind (question and options only) or the normal inspector."""
    if row is None:
        return gr.skip(), gr.skip(), gr.skip()
    _, _, item, spans, others = inspect_row(ctx.catalog, row)
    if not blind:
        return item, spans, others
    from components.review.blind import blind_html

    return blind_html(ctx, row, who), gr.update(value="", visible=False), ""


def wire_review(ctx: ReviewContext, demo: gr.Blocks, current: gr.State, f: browse.BrowseWidgets,
                t: browse.TableWidgets, ins: Any, ch: charts.ChartWidgets, rv: ReviewWidgets,
                rt: ReviewTab, gold_mode: gr.Radio, changes: gr.Markdown, tabs: gr.Tabs) -> None:
    """Connect the review panel, the gold switch and the Review tab."""
    fin = f.inputs()
    private: dict[str, Any] = {"api_visibility": "private"}
    show = with_identity(lambda who, row, blind: panel(ctx, row, who, bool(blind)))
    inspector = with_identity(lambda who, row, blind: _blind_item(ctx, row, bool(blind), who))
    item_out = [ins.item, ins.spans, ins.others]
    pick = span_picker.refresh(ctx)  # the token picker follows the gold text the panel filled
    for trigger in (current.change, rv.blind.change, demo.load):
        trigger(show, [current, rv.blind], rv.outputs(), **private, **FREE).then(
            inspector, [current, rv.blind], item_out, **private, **FREE).then(
            pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE)

    def metrics(mode: str, *values: Any) -> tuple[Any, ...]:
        filters = browse.filters_from(*values)
        if mode == "corrected" and ctx.store is not None and filters.benchmark:
            return (review_extra.metric_lines(ctx, filters.benchmark), *corrected_charts(ctx, filters))
        return ("", *charts.chart_updates(ctx.catalog, filters))

    def refresh_metrics(mode: str, *values: Any) -> tuple[Any, ...]:
        return metrics(mode, *values) if mode == "corrected" else ("", *[gr.skip()] * 5)

    metric_out = [changes, *ch.outputs()]
    gold_mode.change(metrics, [gold_mode, *fin], metric_out, **private, **FREE)
    for widget in (f.benchmark, f.models, f.task, f.category, f.wrong_only, f.parser_dependent,
                   f.flagged_only):
        widget.input(refresh_metrics, [gold_mode, *fin], metric_out, trigger_mode="always_last",
                     **private, **FREE)

    step_in = [current, t.page, *fin]
    write = with_identity(lambda who, row, blind, *form: save(ctx, row, who, bool(blind), *form))
    for button, then_next in ((rv.save, False), (rv.save_next, True)):
        event = button.click(write, [current, rv.blind, *rv.inputs()], rv.message,
                             api_visibility="private", **FREE)
        event = event.success(show, [current, rv.blind], rv.outputs(), **private, **FREE)
        event.then(pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE)
        event.then(refresh_metrics, [gold_mode, *fin], metric_out, **private, **FREE)
        if then_next:
            event.then(lambda r, p, *v: navigate.step_item(ctx.catalog, 1, r, p, list(v)), step_in,
                       [current, *ins.outputs(), t.table, t.page, t.info], **private, **FREE)
    undo = with_identity(lambda who, row, blind: undo_last(ctx, row, who, bool(blind)))
    undone = rv.undo.click(undo, [current, rv.blind], rv.message, api_visibility="private", **FREE).success(
        show, [current, rv.blind], rv.outputs(), **private, **FREE)
    undone.then(pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE)
    undone.then(refresh_metrics, [gold_mode, *fin], metric_out, **private, **FREE)
    span_picker.wire_picker(ctx, rv.picker, current, rv.gold_text)
    _wire_tab(ctx, current, f, ins, rt, tabs)
    _api(ctx)


def corrected_charts(ctx: ReviewContext, filters: Filters) -> tuple[Any, ...]:
    """Every chart of the filtered view over corrected gold."""
    from analysis.catalog import Catalog

    assert filters.benchmark is not None
    table = review_extra.corrected_table(ctx, filters.benchmark)
    fixed = Catalog(table, media_roots={})
    return charts.chart_updates(fixed, filters)


def _wire_tab(ctx: ReviewContext, current: gr.State, f: browse.BrowseWidgets, ins: Any, rt: ReviewTab,
              tabs: gr.Tabs) -> None:
    private: dict[str, Any] = {"api_visibility": "private"}
    queue = with_identity(lambda who, q, b: review_extra.queue_frame(ctx, q, b, who))
    agree = with_identity(lambda who, b: review_extra.agreement_markdown(ctx, b))
    rt.load.click(queue, [rt.queue, f.benchmark], rt.items, **private, **FREE).then(
        agree, [f.benchmark], rt.agreement, **private, **FREE)

    def open_item(evt: gr.SelectData, *values: Any) -> tuple[Any, ...]:
        item_id = str(evt.row_value[0]) if evt.row_value else ""
        return (*navigate.find_item(ctx.catalog, item_id, list(values)), gr.Tabs(selected="items-tab"))

    rt.items.select(open_item, f.inputs(), [current, *ins.outputs(), tabs], **private, **FREE)
    adjudicate = with_identity(lambda who, row, v, r: review_extra.adjudicate_item(ctx, row, who, v, r))
    rt.adjudicate.click(adjudicate, [current, rt.value, rt.reason], rt.message, api_visibility="private",
                        **FREE)
    exports = with_identity(lambda who, b: [gr.update(value=p or None, visible=bool(p))
                                            for p in review_extra.build_exports(ctx, b, who)])
    rt.build.click(exports, [f.benchmark], rt.files, **private)


def _api(ctx: ReviewContext) -> None:
    """``/relabel``: one label by item id, as the signed-in user (for scripts and load tests).

    Its last argument ``key`` is an idempotency key: a client that lost the answer retries with the
    same key and gets the first event's id back, never a second event.
    """

    def relabel(request: gr.Request, profile: gr.OAuthProfile | None, item_id: str, field: str,
                value: str, reason: str, key: str = "") -> str:
        """Relabel; ``key`` (optional) is the client's idempotency key: a retry returns the first event id."""
        from analysis.store import InvalidLabel, NoChange
        from analysis.store.payload import submit

        who = identity_of(request, profile)
        if ctx.store is None or who is None:
            raise gr.Error("Refused: sign in to write labels.", print_exception=False)
        found = ctx.catalog.rows_of(str(item_id))
        if not found.size:
            raise gr.Error(escape(f"No item {item_id!r}.", quote=False), print_exception=False)
        row = ctx.catalog.table.iloc[int(found[0])]
        payload = {"action": "relabel", "item_id": item_id, "field": field, "value": value or None,
                   "reason": reason, "key": key or None}
        try:
            event = submit(ctx.store, payload, who, row=row)
        except (InvalidLabel, NoChange, PermissionError, StoreError) as exc:
            raise gr.Error(escape(f"Not saved: {exc}", quote=False), print_exception=False) from exc
        return event.event_id

    # writes are serialised by the store, not by the queue
    gr.api(relabel, api_name="relabel", concurrency_limit=None)  # type: ignore[attr-defined]
