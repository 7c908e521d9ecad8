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

from analysis.load.catalog import Catalog
from analysis.query import Filters
from analysis.store import Identity, StoreError
from components.browse import charts, navigate
from components.browse import page as browse
from components.browse.item_changes import item_moved
from components.identity import identity_of
from components.review import extra as review_extra
from components.review import span_picker
from components.review.context import Refused, ReviewContext
from components.review.gold import ReviewerView
from components.review.panel import (
    Behind,
    Conflict,
    Opened,
    ReviewWidgets,
    confirm_gold,
    panel,
    save,
    undo_last,
)
from components.shown_tabs import ShownTabs

FREE: dict[str, Any] = {"concurrency_limit": None}
DRAFTS: dict[str, Any] = {"concurrency_id": "review-drafts", "concurrency_limit": 1}
"""The events that keep a draft run one at a time, in the order they were sent.

A session's state is read when its event starts and written when it ends. Run side by side,
the radio's draft (the note still empty) could end after the note's and replace it: the note
typed was lost when the reviewer came back to the item. Keeping a draft takes microseconds.
The writes (save, undo) change the same dict in place (:func:`_without_draft`), so a draft kept
while one runs is not replaced by its copy either."""


TAB = "Review"
"""The tab's label (what its ``select`` event names: :mod:`components.shown_tabs`)."""


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
    target: gr.Markdown
    """Which item an adjudication acts on (the item open in the Items tab), with its visible votes."""


VISITOR_QUEUES = (
    "Read-only demo: the audit's findings and the suspected wrong gold. Sign in to vote, and to "
    "see your own queue and the disagreements."
)
"""What the queue picker tells a visitor (who is offered only the public queues)."""


def build_review_tab() -> ReviewTab:
    """Queues on top, then adjudication, agreement and exports."""
    with gr.Row(equal_height=False):  # the button its own height, not the picker's (a tall slab)
        queue = gr.Radio(
            list(review_extra.QUEUES),
            value=review_extra.QUEUES[0],
            label="Queue",
            elem_id="rv-queue",
            scale=3,
        )
        load = gr.Button("Show queue", size="sm", scale=0, min_width=120, elem_id="rv-queue-load")
    items = gr.Dataframe(
        headers=list(review_extra.QUEUE_COLUMNS),
        interactive=False,
        max_height=320,
        wrap=True,  # a suspect's detail is a sentence: read whole, not cut at the column's edge
        column_widths=["20%", "35%", "45%"],
        elem_id="rv-queue-items",
        label="Click an item to open it",
    )
    with gr.Accordion("Adjudicate the current item (disagreements)", open=True):
        target = gr.Markdown("No item is open: pick one from a queue.", elem_id="rv-adj-target")
        with gr.Row(equal_height=True):
            value = gr.Textbox(label="Final gold", elem_id="rv-adj-value", scale=1)
            reason = gr.Textbox(label="Reason (required)", elem_id="rv-adj-reason", scale=2)
            adjudicate = gr.Button("Adjudicate", size="sm", scale=0, min_width=120, elem_id="rv-adj")
    message = gr.Markdown("", elem_id="rv-tab-message")
    agreement = gr.Markdown("", elem_id="rv-agreement")
    with gr.Row(equal_height=True):
        build = gr.Button("Prepare exports", size="sm", scale=0, min_width=140, elem_id="rv-export")
        files = [
            gr.DownloadButton(label, visible=False, size="sm", elem_id=f"rv-dl-{i}")
            for i, label in enumerate(review_extra.EXPORT_LABELS)
        ]
    return ReviewTab(queue, load, items, value, reason, adjudicate, message, agreement, build, files, target)


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


def wire_review(
    ctx: ReviewContext,
    demo: gr.Blocks,
    open_item: tuple[gr.State, gr.State],
    f: browse.BrowseWidgets,
    t: browse.TableWidgets,
    ins: Any,
    ch: charts.ChartWidgets,
    rv: ReviewWidgets,
    rt: ReviewTab,
    gold_mode: gr.Radio,
    changes: gr.Markdown,
    tabs: gr.Tabs,
    shown: tuple[gr.Tab, ShownTabs] | None = None,
) -> None:
    """Connect the review panel, the gold switch and the Review tab.

    ``open_item``: the open row's state and the count whose change stands for its own
    (:func:`components.browse.item_changes.item_moved`).
    ``shown``: the Review tab and the memory of shown tabs, with which its queue follows the
    benchmark (at once while the tab shows, on its opening otherwise).

    Blind mode is the reviewer's role (:attr:`ReviewContext.blind`), read on the server from the
    session's identity on every call; nothing the browser sends can turn it off.
    """
    current, moved = open_item
    fin = f.inputs()
    private: dict[str, Any] = {"api_visibility": "private"}
    pick = span_picker.refresh(ctx)  # the token picker follows the gold text the panel filled
    n_panel = len(rv.outputs())
    n_item = len(ins.outputs())

    def show(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        row: int | None,
        drafts: dict[int, list[Any]] | None,
    ) -> tuple[Any, ...]:
        return panel(ctx, row, identity_of(request, profile), drafts=drafts)

    def offered(request: gr.Request, profile: gr.OAuthProfile | None) -> tuple[Any, ...]:
        access = ctx.access(identity_of(request, profile))
        labels = review_extra.offered_queues(access)
        # only the buttons this viewer may use are shown (a read-only demo showed every one and
        # refused each on click; issue 20): the line above the form still says who adjudicates.
        # A visitor reads the public queues (the audit's, the suspects) and is told what signing in adds.
        may_export = ctx.store is not None and access.signed_in
        settle = gr.update(visible=access.may_adjudicate)
        info = None if access.signed_in else VISITOR_QUEUES
        return (
            gr.update(choices=labels, value=labels[0], info=info),
            settle,
            settle,
            settle,
            gr.update(visible=bool(labels)),
            gr.update(visible=may_export),
        )

    # a blind reviewer is not offered the audit's queue; a reviewer gets no Adjudicate button
    demo.load(
        offered,
        None,
        [rt.queue, rt.value, rt.reason, rt.adjudicate, rt.load, rt.build],
        **private,
        **FREE,
    )

    for trigger in (*item_moved(current, moved), demo.load):
        trigger(show, [current, rv.drafts], rv.outputs(), **private, **FREE).then(
            pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE
        )

    def keep_draft(row: int | None, drafts: dict[int, list[Any]] | None, *form: Any) -> dict[int, list[Any]]:
        """The form's values, and the labels it was opened with (last), kept for the row it shows.

        That is the row the form was filled for, not ``row`` (the open row): right after the next
        item opens, the form still shows the item before until its own answer comes.
        """
        kept = drafts if drafts is not None else {}
        opened = form[-1] if form else None
        shows = opened.row if isinstance(opened, Opened) and opened.row is not None else row
        if shows is not None:
            kept[int(shows)] = list(form)  # in place: see DRAFTS
        return kept

    for widget in rv.inputs():
        event = widget.blur if isinstance(widget, gr.Textbox) else widget.input
        event(keep_draft, [current, rv.drafts, *rv.inputs(), rv.opened], rv.drafts, **private, **DRAFTS)

    def metrics(
        request: gr.Request, profile: gr.OAuthProfile | None, mode: str, *values: Any
    ) -> tuple[Any, ...]:
        filters = browse.filters_from(*values)
        shown = ReviewerView(ctx, identity_of(request, profile))
        if shown.blind:
            return ("Metrics are hidden in blind mode.", *shown.charts(filters))
        if mode == "corrected" and ctx.store is not None and filters.benchmark:
            return (review_extra.metric_lines(ctx, filters.benchmark), *corrected_charts(ctx, filters))
        return ("", *shown.charts(filters))

    def refresh_metrics(
        request: gr.Request, profile: gr.OAuthProfile | None, mode: str, *values: Any
    ) -> tuple[Any, ...]:
        return metrics(request, profile, mode, *values) if mode == "corrected" else ("", *[gr.skip()] * 5)

    metric_out = [changes, *ch.outputs()]
    gold_mode.change(metrics, [gold_mode, *fin], metric_out, **private, **FREE)
    for widget in (
        f.benchmark,
        f.models,
        f.task,
        f.category,
        f.wrong_only,
        f.parser_dependent,
        f.flagged_only,
    ):
        widget.input(
            refresh_metrics, [gold_mode, *fin], metric_out, trigger_mode="always_last", **private, **FREE
        )

    def after(
        who: Identity | None,
        row: int | None,
        drafts: dict[int, list[Any]] | None,
        page: float | None,
        values: list[Any],
    ) -> tuple[Any, ...]:
        """The panel, the inspector and the table page again: one gold everywhere after a write."""
        view = ReviewerView(ctx, who)
        filters = browse.filters_from(*values)
        rows = view.rows(filters)
        return (
            *panel(ctx, row, who, drafts=drafts),
            *view.inspect(row)[1:],
            *browse.show_page(view, filters, page, rows),
        )

    def wrote(action: Callable[..., str]) -> Callable[..., tuple[Any, ...]]:
        def handler(
            request: gr.Request,
            profile: gr.OAuthProfile | None,
            row: int | None,
            drafts: dict[int, list[Any]] | None,
            page: float | None,
            *rest: Any,
        ) -> tuple[Any, ...]:
            who = identity_of(request, profile)
            values, form = list(rest[: len(fin)]), rest[len(fin) :]
            try:
                line = action(who, row, *form)
            except Conflict as exc:  # the rest was saved: the form shows the item as it is now, not advanced
                kept = _without_draft(drafts, row)
                return (f"⚠ {exc}", kept, False, *after(who, row, kept, page, values))
            except Behind as exc:  # nothing saved: the form is filled for the open item, drafts kept
                return (f"⚠ {exc}", drafts, False, *after(who, row, drafts, page, values))
            except Refused as exc:  # the form stays as typed; the message says why, replacing the last one
                return (f"⚠ {exc}", drafts, False, *[gr.skip()] * (n_panel + n_item - 1 + 3))
            kept = _without_draft(drafts, row)
            return (line, kept, True, *after(who, row, kept, page, values))

        return handler

    ok = gr.State(False)
    written = [rv.message, rv.drafts, ok, *rv.outputs(), *ins.outputs()[1:], t.table, t.page, t.info]
    write_in = [current, rv.drafts, t.page, *fin]
    step_in = [current, t.page, *fin]

    def next_if_saved(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        saved: bool,
        row: int | None,
        page: float | None,
        *values: Any,
    ) -> tuple[Any, ...]:
        if not saved:
            return tuple(gr.skip() for _ in range(1 + n_item + 3))
        view = ReviewerView(ctx, identity_of(request, profile))
        return ctx.item_changes.counted(request, navigate.step_item(view, 1, row, page, list(values)))

    save_form = wrote(lambda who, row, *form: save(ctx, row, who, *form))
    for button, then_next in ((rv.save, False), (rv.save_next, True)):
        event = button.click(
            save_form, [*write_in, *rv.inputs(), rv.opened], written, api_visibility="private", **FREE
        )
        event.then(pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE)
        event.then(refresh_metrics, [gold_mode, *fin], metric_out, **private, **FREE)
        if then_next:
            event.then(
                next_if_saved,
                [ok, *step_in],
                [current, *ins.outputs(), t.table, t.page, t.info],
                **private,
                **FREE,
            )
    undone = rv.undo.click(
        wrote(lambda who, row: undo_last(ctx, row, who)), write_in, written, api_visibility="private", **FREE
    )
    undone.then(pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE)
    undone.then(refresh_metrics, [gold_mode, *fin], metric_out, **private, **FREE)
    rv.confirm.click(
        wrote(lambda who, row: confirm_gold(ctx, row, who)),
        write_in,
        written,
        api_visibility="private",
        **FREE,
    )
    span_picker.wire_picker(ctx, rv.picker, current, rv.gold_text)

    def refresh_item(
        request: gr.Request, profile: gr.OAuthProfile | None, row: int | None
    ) -> tuple[Any, ...]:
        return ReviewerView(ctx, identity_of(request, profile)).inspect(row)[1:]

    def refresh(event: Any) -> None:
        """After a write elsewhere (an adjudication): the panel and the inspector show the new gold."""
        event.then(show, [current, rv.drafts], rv.outputs(), **private, **FREE).then(
            pick, [current, rv.gold_text], rv.picker.chips, **private, **FREE
        )
        event.then(refresh_item, [current], ins.outputs()[1:], **private, **FREE)

    _wire_tab(ctx, open_item, f, ins, rt, tabs, rv.message, refresh, shown)
    for widget in fin:  # a search or another benchmark: the last save's message no longer applies
        widget.input(lambda: "", None, rv.message, **private, **FREE)
    _api(ctx)


def corrected_charts(ctx: ReviewContext, filters: Filters) -> tuple[Any, ...]:
    """Every chart of the filtered view over corrected gold."""
    return charts.chart_updates(chart_source(ctx, "corrected", filters)[0], filters)


def chart_source(ctx: ReviewContext, mode: str, filters: Filters) -> tuple[Catalog, str]:
    """The rows the Charts tab draws (and its CSV holds) under the Gold switch ``mode``, and that gold.

    Corrected gold where it is asked for and can be had (a store, one benchmark), else the
    official. The charts and their CSV both ask here: the CSV once held the official numbers
    under *corrected*, beside charts showing the corrected ones.
    """
    if mode != "corrected" or ctx.store is None or not filters.benchmark:
        return ctx.catalog, "official"
    return Catalog(review_extra.corrected_table(ctx, filters.benchmark), media_roots={}), "corrected"


def _wire_tab(
    ctx: ReviewContext,
    item: tuple[gr.State, gr.State],
    f: browse.BrowseWidgets,
    ins: Any,
    rt: ReviewTab,
    tabs: gr.Tabs,
    saved: gr.Markdown,
    refresh: Callable[[Any], None],
    shown: tuple[gr.Tab, ShownTabs] | None,
) -> None:
    current = item[0]
    private: dict[str, Any] = {"api_visibility": "private"}
    fills = ctx.queue_fills
    shown_queue = with_identity(lambda who, q, b: review_extra.queue_update(ctx, q, b, who))

    def queue(request: gr.Request, profile: gr.OAuthProfile | None, kind: str, benchmark: str | None) -> Any:
        ticket = fills.take(request)
        items = shown_queue(request, profile, kind, benchmark)
        # the tab's catch-up fill (its default queue) once landed after this one (issue 20)
        return items if fills.is_latest(request, ticket) else gr.skip()

    agree = with_identity(lambda who, b: review_extra.agreement_markdown(ctx, b, who))
    # a queue picked is shown at once (the table kept the last queue until Show queue was pressed);
    # the button shows it again, with the votes saved since
    for shows in (rt.load.click, rt.queue.input):
        shows(queue, [rt.queue, f.benchmark], rt.items, **private, **FREE).then(
            agree, [f.benchmark], rt.agreement, **private, **FREE
        )
    if shown is not None:  # another benchmark: its queue, not the last one's (nor its last message)
        tab, memory = shown

        def followed(
            request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None, kind: str
        ) -> tuple[Any, ...]:
            who = identity_of(request, profile)
            ticket = fills.take(request)
            labels = review_extra.offered_queues(ctx.access(who))
            # at page load this may run before the picker got its value (``offered``): the queue it
            # is about to show, the first offered, is filled (the tab opened on an empty table)
            kind = kind if kind in labels or not labels else labels[0]
            try:
                items = review_extra.queue_update(ctx, kind, benchmark, who)
            except Refused as exc:  # a queue this reviewer is not offered: said where the tab speaks
                return gr.update(value=None), gr.skip(), f"⚠ {escape(str(exc), quote=False)}"
            except StoreError as exc:
                return gr.skip(), gr.skip(), f"⚠ {escape(str(exc), quote=False)}"
            if not fills.is_latest(request, ticket):  # a newer fill started meanwhile: its queue stands
                items = gr.skip()
            return items, review_extra.agreement_markdown(ctx, benchmark, who), ""

        # nothing fills the queue at load (the benchmark shown first changes nothing): the tab's
        # first opening does, with the queue its picker shows (it opened on an empty table)
        memory.follow(
            tab,
            TAB,
            f.benchmark,
            followed,
            [rt.items, rt.agreement, rt.message],
            inputs=[rt.queue],
            filled=False,
        )

    def open_item(
        evt: gr.SelectData, request: gr.Request, profile: gr.OAuthProfile | None, *values: Any
    ) -> tuple[Any, ...]:
        item_id = str(evt.row_value[0]) if evt.row_value else ""
        view = ReviewerView(ctx, identity_of(request, profile))
        shown = (*navigate.find_item(view, item_id, list(values)), gr.Tabs(selected="items-tab"))
        return ctx.item_changes.counted(request, shown)

    def target_of(who: Identity | None, row: int | None) -> tuple[str, Any]:
        """The panel, and the button disabled (not hidden) where she took a side: the panel says why."""
        text = review_extra.adjudication_target(ctx, row, who)
        return text, gr.update(interactive=review_extra.may_settle(ctx, row, who))

    target = with_identity(target_of)
    settled = [rt.target, rt.adjudicate]
    rt.items.select(open_item, f.inputs(), [current, *ins.outputs(), tabs], **private, **FREE).then(
        target, [current], settled, **private, **FREE
    )
    # a new item, a vote saved on it here, the queue shown again or the tab opened: the sides as
    # they stand (other reviewers vote meanwhile; the panel kept the votes it was first shown)
    shows_again = [rt.load.click] + ([shown[0].select] if shown is not None else [])
    for trigger in (*item_moved(*item), saved.change, *shows_again):
        trigger(target, [current], settled, **private, **FREE)
    # The adjudication form belongs to one item: another item empties it (a value and a reason
    # typed for one item were once settled on the next, with the last result line left under it).
    typed_for = gr.State(None)

    def emptied_form(row: int | None) -> tuple[int | None, str, str, str]:
        """The form of the item just opened: the row it is for, no value, no reason, no result."""
        return row, "", "", ""

    for trigger in item_moved(*item):
        trigger(emptied_form, current, [typed_for, rt.value, rt.reason, rt.message], **private, **FREE)

    def settle(
        who: Identity | None, row: int | None, form_row: int | None, value: str | None, reason: str | None
    ) -> str:
        try:
            if row != form_row:  # pressed before the emptied form for the new item arrived
                raise Refused(review_extra.ADJUDICATION_FORM_BEHIND)
            return review_extra.adjudicate_item(ctx, row, who, value, reason)
        except Refused as exc:  # said in the tab, replacing the last message, not in a passing toast
            return f"⚠ {exc}"

    adjudicate = with_identity(settle)
    settled = rt.adjudicate.click(
        adjudicate, [current, typed_for, rt.value, rt.reason], rt.message, api_visibility="private", **FREE
    ).success(target, [current], settled, **private, **FREE)
    refresh(settled)
    exports = with_identity(
        lambda who, b: [
            gr.update(value=p or None, visible=bool(p)) for p in review_extra.build_exports(ctx, b, who)
        ]
    )
    rt.build.click(exports, [f.benchmark], rt.files, **private)


def _api(ctx: ReviewContext) -> None:
    """``/relabel``: one label by item id, as the signed-in user (for scripts and load tests).

    Its last argument ``key`` is an idempotency key: a client that lost the answer retries with the
    same key and gets the first event's id back, never a second event.
    """

    def relabel(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        item_id: str,
        field: str,
        value: str,
        reason: str,
        key: str = "",
    ) -> str:
        """Relabel; ``key`` (optional) is the client's idempotency key: a retry returns the first event id."""
        from analysis.store import InvalidLabel, NoChange
        from analysis.store.payload import submit

        who = identity_of(request, profile)
        why = ctx.access(who).refusal("write labels", ctx.read_only)
        if why is not None or ctx.store is None or who is None:
            raise gr.Error(why or "Refused.", print_exception=False)
        found = ctx.catalog.rows_of(str(item_id))
        if not found.size:
            raise gr.Error(escape(f"No item {item_id!r}.", quote=False), print_exception=False)
        row = ctx.catalog.table.iloc[int(found[0])]
        action = "vote" if ctx.access(who).gold_scope == "vote" and field == "gold" else "relabel"
        payload = {
            "action": action,
            "item_id": item_id,
            "field": field,
            "value": value or None,
            "reason": reason,
            "key": key or None,
        }
        try:
            event = submit(ctx.store, payload, who, row=row)
        except (InvalidLabel, NoChange, PermissionError, StoreError) as exc:
            raise gr.Error(escape(f"Not saved: {exc}", quote=False), print_exception=False) from exc
        return event.event_id

    # writes are serialised by the store, not by the queue
    gr.api(relabel, api_name="relabel", concurrency_limit=None)  # type: ignore[attr-defined]


def _without_draft(drafts: dict[int, list[Any]] | None, row: int | None) -> dict[int, list[Any]]:
    """``drafts`` less the draft of ``row`` (just written), changed in place (:data:`DRAFTS`)."""
    kept = drafts if drafts is not None else {}
    if row is not None:
        kept.pop(int(row), None)
    return kept
