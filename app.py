"""halluscope's reviewer app: browse, inspect and chart benchmark results.

``python app.py`` serves the bundled samples (``samples/manifest.json``) with no configuration;
``halluscope serve FILE... --media-root BENCH=DIR`` serves a user's own files. The app is built by
:func:`build_app` from a loaded :class:`~analysis.load.catalog.Catalog` (no module-level state), and the
handlers it wires are plain functions in ``components/``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query import page_of
from analysis.review.access import Roles
from analysis.review.pairs.checks import pair_owner
from analysis.review.pairs.previews import default_preview_dir
from components import failures, gate, keys, media_route, narrow_charts, overview, problems, url_state
from components.browse import charts, navigate
from components.browse import page as browse
from components.browse.inspector import build_inspector
from components.browse.item_changes import ItemChanges, item_moved
from components.identity import auth_from, identity_of, on_spaces, roles_from
from components.pairs.tab import build_pairs_tab
from components.review import extra as review_extra
from components.review.context import ReviewContext
from components.review.gold import ReviewerView
from components.review.panel import build_review
from components.review.tab import TAB as review_tab_label
from components.review.tab import build_review_tab, chart_source, wire_review
from components.shown_tabs import ShownTabs
from components.store_errors import say_store_errors
from components.style import CSS

SCROLL_TO_FILTERS = "() => { document.getElementById('filter-col')?.scrollIntoView(); return []; }"
"""The phone's "Filters" button: to the filter column, which a phone stacks under the tabs."""


def _has_pairs(catalog: Catalog) -> bool:
    """Whether a loaded benchmark declares pairs to validate (the Pair validation tab is shown)."""
    try:
        return pair_owner() in catalog.benchmarks()
    except LookupError:
        return False


def build_app(catalog: Catalog, review: ReviewContext | None = None) -> gr.Blocks:
    """The reviewer app over ``catalog``; ``review`` (a label store and reviewers) enables review."""
    ctx = review or ReviewContext(catalog)
    # files handed to download buttons are copied into Gradio's cache: removed after 10 minutes
    demo = gr.Blocks(title="halluscope", delete_cache=(300, 600))
    with demo:
        current = gr.State(None)
        # counts the items opened outside the queue: its change stands for current's (see _wire)
        moved = gr.State(0)
        gr.Markdown(_summary(catalog), elem_id="summary")
        if catalog.errors:
            with gr.Accordion(
                f"{len(catalog.errors)} file(s) could not be loaded",
                open=len(catalog.errors) <= 3,
                elem_id="load-errors",
            ):
                gr.HTML(_errors_html(catalog.errors), js_on_load=None)
        with gr.Row(equal_height=False, elem_id="main-row"):
            with gr.Column(scale=1, min_width=240, elem_id="filter-col"):
                f = browse.build_filters(catalog)
                jump = gr.Textbox(  # locked until start-up has put the URL's item in it, as the filters
                    label="Go to item id",
                    placeholder="paste an item id (Enter)",
                    elem_id="jump",
                    interactive=False,
                )
                legend = gr.Markdown(keys.legend_markdown(), elem_id="keys-legend")
                if ctx.oauth:
                    gr.LoginButton()
            with gr.Column(scale=5, elem_id="main-col"):
                # a phone stacks the filters under the tabs (components/style.py): a way down to them
                gr.Button("Filters ↓", size="sm", elem_id="to-filters").click(
                    None, None, None, js=SCROLL_TO_FILTERS, api_visibility="private"
                )
                with gr.Tabs() as tabs:
                    with gr.Tab(overview.TAB, id="overview-tab") as overview_tab:
                        ov = overview.build_overview()
                    with gr.Tab("Items", id="items-tab"):
                        t = browse.build_table(catalog)
                        ins = build_inspector()
                        rv = build_review()
                    with gr.Tab("Charts", id="charts-tab"):
                        gold_mode = gr.Radio(
                            ["official", "corrected"], value="official", label="Gold", elem_id="gold-mode"
                        )
                        changes = gr.Markdown("", elem_id="metric-changes")
                        ch = charts.build_charts()
                        csv_make, csv_file = charts.build_csv_export()
                    with gr.Tab(failures.TAB, id="failures-tab") as fail_tab:
                        fw = failures.build()
                    with gr.Tab(review_tab_label, id="review-tab") as review_tab:
                        rt = build_review_tab()
                    if ctx.store is not None and _has_pairs(catalog):
                        with gr.Tab("Pair validation", id="pairs-tab"):
                            build_pairs_tab(
                                catalog,
                                ctx.store,
                                identity_of,
                                k=ctx.k,
                                preview_dir=default_preview_dir(),
                                reviewers=ctx.reviewers,
                                adjudicators=ctx.adjudicators,
                                blind=ctx.blind,
                                scores=ctx.extra.get("pair_scores"),
                                clip_dir=ctx.extra.get("pair_clip"),
                                dino_dir=ctx.extra.get("pair_dino"),
                            )
                    with gr.Tab(problems.TAB, id="problems-tab") as problems_tab:
                        pw = problems.build(catalog, reviewed=ctx.store is not None)
                        if catalog.errors:
                            gr.HTML(_errors_html(catalog.errors), js_on_load=None)
        url_item = gr.Textbox(visible=False, elem_id="url-item")
        memory = ShownTabs.wired(demo, tabs)  # hidden tabs wait for their opening
        refresh, refresh_out, find = _wire(ctx, demo, current, f, t, ins, ch, jump, tabs, url_item, moved)
        _wire_problems(ctx, demo, pw, (problems_tab, memory), f, jump, tabs, find, [current, *ins.outputs()])
        item_out = [current, *ins.outputs()]
        _wire_failures(ctx, fw, (fail_tab, memory), f, jump, tabs, find, item_out, (refresh, refresh_out))
        charts_folder = Path(tempfile.mkdtemp(prefix="halluscope-charts-"))

        def chart_csv(request: gr.Request, profile: gr.OAuthProfile | None, mode: str, *values: Any) -> Any:
            if _hides_gold(ctx, request, profile):  # charts are metrics over gold
                raise gr.Error("Charts are hidden while you review blind.")
            filters = browse.filters_from(*values)
            source, gold = chart_source(ctx, mode, filters)  # the gold the charts above it show
            return charts.chart_csv(source, filters, charts_folder, gold)

        csv_make.click(
            chart_csv, [gold_mode, *f.inputs()], csv_file, api_visibility="private", concurrency_limit=None
        )
        # an item asked for by id is shown where items are: in the Items tab
        jump.submit(
            lambda: gr.Tabs(selected="items-tab"),
            None,
            tabs,
            api_visibility="private",
            concurrency_limit=None,
        )
        boards_of = overview.board_cache(catalog)

        def legend_for(request: gr.Request, profile: gr.OAuthProfile | None) -> str:
            """The keys this viewer can use: the reviewing keys only for one who may save labels."""
            access = ctx.access(identity_of(request, profile))
            return keys.legend_markdown(reviewing=access.may_write, confirms=access.sees_gold)

        demo.load(legend_for, None, legend, api_visibility="private", concurrency_limit=None)

        def suspects_and_changes(
            request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None
        ) -> tuple[str, str]:
            """The overview's suspects line and three-gold table (a ranking per benchmark, computed once)."""
            who = identity_of(request, profile)
            return (
                review_extra.suspect_summary(ctx, benchmark, who),
                review_extra.gold_change_html(ctx, benchmark, who),
            )

        overview.wire(
            ov,
            demo,
            f,
            tabs,
            overview_tab,
            memory,
            boards_of,
            None if ctx.store is None else functools.partial(_corrected_rows, ctx),
            refresh,
            refresh_out,
            hidden=lambda request, profile: _hides_gold(ctx, request, profile),
            more=suspects_and_changes,
            more_out=[ov.suspects, ov.changes],
            stale_on=[rv.message],  # a save: the corrected boards and the three-gold table move
        )
        wire_review(
            ctx, demo, (current, moved), f, t, ins, ch, rv, rt, gold_mode, changes, tabs, (review_tab, memory)
        )
    say_store_errors(demo)
    return demo


def _wire(
    ctx: ReviewContext,
    demo: gr.Blocks,
    current: gr.State,
    f: browse.BrowseWidgets,
    t: browse.TableWidgets,
    ins: Any,
    ch: charts.ChartWidgets,
    jump: gr.Textbox,
    tabs: gr.Tabs,
    url_item: gr.Textbox,
    moved: gr.State,
) -> tuple[Any, list[Any], Any]:
    """Browse handlers; each builds the view of the request's reviewer (blind: no gold), API too.

    Opening an item from the table and stepping answer outside the queue (``fast``). Such an
    answer fires no change event of a ``gr.State`` (Gradio 6 sends the changed states with queued
    answers only), so a queued step after it bumps ``moved``, whose change stands for
    ``current``'s: whatever follows the open item listens to both
    (:func:`components.browse.item_changes.item_moved`).
    """
    fin = f.inputs()

    table_out = [t.table, t.page, t.info]
    free: dict[str, Any] = {"concurrency_limit": None}  # read-only handlers: no queue serialising
    # The clicks a reviewer makes most (a benchmark switch, a filter, opening an item, next and
    # previous) answer outside the queue, in one HTTP round trip: the queue's join and event
    # stream cost 80-400 ms of such a click on the samples (bench/clicks.py). Read-only handlers
    # only. Their answers fire no gr.State change event (see the docstring): the open item's
    # followers hear of it through ``moved``.
    fast: dict[str, Any] = {"queue": False}

    def view(request: gr.Request | None, profile: gr.OAuthProfile | None) -> ReviewerView:
        return ReviewerView(ctx, identity_of(request, profile))

    def refresh(request: gr.Request, profile: gr.OAuthProfile | None, *values: Any) -> tuple[Any, ...]:
        return view_at(request, profile, values, None)

    def view_at(
        request: gr.Request, profile: gr.OAuthProfile | None, values: Sequence[Any], row: int | None
    ) -> tuple[Any, ...]:
        """The page and charts of a view: its first page, or the page holding ``row`` (an opened link's)."""
        filters = browse.filters_from(*values)
        shown = view(request, profile)
        rows = shown.rows(filters)
        number = 1 if row is None else page_of(rows, row)
        return (*browse.show_page(shown, filters, number, rows), *shown.charts(filters, rows))

    def go_page(
        delta: int, request: gr.Request, profile: gr.OAuthProfile | None, page: float | None, *values: Any
    ) -> tuple[Any, ...]:
        return browse.show_page(view(request, profile), browse.filters_from(*values), int(page or 1) + delta)

    opened = ctx.item_changes  # each handler that sets the item counts it (see clear_stale)

    def on_select(
        evt: gr.SelectData, request: gr.Request, profile: gr.OAuthProfile | None, *values: Any
    ) -> tuple[Any, ...]:
        shown = view(request, profile)
        return opened.counted(request, navigate.select_row(shown, evt.row_value, list(values)))

    def step(
        delta: int,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        row: int | None,
        page: float | None,
        *values: Any,
    ) -> tuple[Any, ...]:
        shown = view(request, profile)
        return opened.counted(request, navigate.step_item(shown, delta, row, page, list(values)))

    def find(
        request: gr.Request, profile: gr.OAuthProfile | None, item_id: str | None, *values: Any
    ) -> tuple[Any, ...]:
        return opened.counted(request, navigate.find_item(view(request, profile), item_id, list(values)))

    put_back = ItemChanges()  # per session, how many views the server has put in place (start-up, Back)

    def clear_stale(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        row: int | None,
        seen: float | None,
        *values: Any,
    ) -> tuple[Any, ...]:
        before = opened.count(request)
        out = navigate.clear_stale(view(request, profile), row, list(values))
        if opened.count(request) != before:  # an item was opened meanwhile: it stands
            return tuple(gr.skip() for _ in out)
        if int(seen or 0) < put_back.count(request):  # made before a view was put back: that view stands
            return tuple(gr.skip() for _ in out)
        return out

    def paging(delta: int) -> Any:
        def handler(
            request: gr.Request, profile: gr.OAuthProfile | None, p: float | None, *v: Any
        ) -> tuple[Any, ...]:
            return go_page(delta, request, profile, p, *v)

        return handler

    def stepping(delta: int) -> Any:
        def handler(
            request: gr.Request, profile: gr.OAuthProfile | None, r: int | None, p: float | None, *v: Any
        ) -> tuple[Any, ...]:
            return step(delta, request, profile, r, p, *v)

        return handler

    refresh_out = [*table_out, *ch.outputs()]
    item_out = [current, *ins.outputs()]
    catalog = ctx.catalog

    def restore_item(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        item_id: str | None,
        model: str | None,
        *values: Any,
        close: bool = False,
    ) -> tuple[Any, ...]:
        if not item_id:  # at start-up nothing is open; going back to a view without a row closes it
            return (
                navigate.nothing_open(view(request, profile)) if close else tuple(gr.skip() for _ in item_out)
            )
        shown = navigate.find_item(view(request, profile), item_id, list(values), model)
        return opened.counted(request, shown)

    def view_of(
        request: gr.Request, profile: gr.OAuthProfile | None, params: dict[str, str], *, close: bool
    ) -> tuple[Any, ...]:
        """The view of a URL's parameters in one answer: its filters (opened), item, tab, page and charts."""
        restored = url_state.restore_updates(catalog, params)
        opened_filters, item_id, tab = (
            url_state.opened(restored[: len(fin)]),
            restored[len(fin)],
            restored[-1],
        )
        values = url_state.values_of(restored[: len(fin)])
        item = restore_item(request, profile, item_id, url_state.model_of(params), *values, close=close)
        # the row for the address now, not after a round trip of its own: a filter changed meanwhile
        # would write an address without the row (and Back would then land on that)
        row = item[0] if isinstance(item[0], int) else None
        page = view_at(request, profile, values, row)  # the table paged to the link's item
        url_row = url_state.item_of(catalog, row) if item_id or close else gr.skip()
        put_back.bump(request)
        return (
            *opened_filters,
            gr.update(value=item_id, interactive=True),
            tab,
            *page,
            *item,
            url_row,
            put_back.count(request),
        )

    def start_up(request: gr.Request, profile: gr.OAuthProfile | None) -> tuple[Any, ...]:
        return view_of(request, profile, dict(request.query_params), close=False)

    def went_back(request: gr.Request, profile: gr.OAuthProfile | None, search: str) -> tuple[Any, ...]:
        """Back or Forward: the address's view put back in place, without a reload."""
        return view_of(request, profile, url_state.params_from(search), close=True)

    seen_view = gr.Number(0, visible=False)  # the count of put_back this page has applied
    view_out = [*fin, jump, tabs, *refresh_out, *item_out, url_item, seen_view]
    # One round trip puts the URL's view in place; the filters stay locked until it has.
    demo.load(start_up, None, view_out, api_visibility="private", **free).then(
        None, [url_item, *fin], None, js=url_state.READY_JS, api_visibility="private"
    )
    search = gr.Textbox(visible=False)
    back = gr.Button("Back", visible="hidden", elem_id=url_state.POP_ID)
    back.click(went_back, search, view_out, js=url_state.POP_JS, api_visibility="private", **free).then(
        None, [url_item, *fin], None, js=url_state.READY_JS, api_visibility="private"
    )
    # An empty view, or another benchmark, leaves nothing to inspect. On a reviewer's own change
    # only: a view put in place by the server (start-up, Back) sets its row itself; a change made
    # before such a view landed (its answer may come after it) leaves that view's row open.
    for widget in fin:
        widget.input(clear_stale, [current, seen_view, *fin], item_out, api_visibility="private", **free)

    def address(request: gr.Request, row: int | None, seen: float | None) -> Any:
        """The open row for the URL; skipped when a view was put back since the row changed.

        Such an answer is stale: the view put back wrote its own row, and a late empty row here
        would rewrite that step of history without its item (then push the item as a new step).
        """
        if int(seen or 0) < put_back.count(request):
            return gr.skip()
        return url_state.item_of(catalog, row)

    for moved_on in item_moved(current, moved):
        moved_on(address, [current, seen_view], url_item, api_visibility="private", **free)
    for widget in (url_item, *fin):
        widget.change(None, [url_item, *fin], None, js=url_state.PUSH_JS, api_visibility="private")

    def switch(request: gr.Request, profile: gr.OAuthProfile | None, *values: Any) -> tuple[Any, ...]:
        """Another benchmark: its choices and, in the same answer, its page and charts (one round trip)."""
        bench, models, task, category, *flags_and_text = values
        choices = browse.on_benchmark(ctx.catalog, bench, models, task, category)
        kept = url_state.values_of(choices)  # the models, task, category, slice and flip it keeps
        after = [bench, *kept[:3], *flags_and_text[:4], *kept[3:]]
        return (*choices, *refresh(request, profile, *after))

    f.benchmark.input(
        switch,
        fin,
        [f.models, f.task, f.category, f.slice, f.flip, *refresh_out],
        trigger_mode="always_last",
        api_visibility="private",
        **fast,
    )
    for widget in (f.models, f.task, f.category, f.wrong_only, f.parser_dependent, f.flagged_only):
        widget.input(refresh, fin, refresh_out, trigger_mode="always_last", api_visibility="private", **fast)
    # the page and charts of a view: also the API's /view (the same handler whatever calls it)
    f.search.submit(refresh, fin, refresh_out, api_name="view", **free)
    f.slice.submit(refresh, fin, refresh_out, api_visibility="private", **free)
    f.flip.submit(refresh, fin, refresh_out, api_visibility="private", **free)
    t.page.submit(paging(0), [t.page, *fin], table_out, api_name="page", **free)
    t.prev_page.click(paging(-1), [t.page, *fin], table_out, api_visibility="private", **free)
    t.next_page.click(paging(1), [t.page, *fin], table_out, api_visibility="private", **free)

    def bump(n: int | None) -> int:
        return (n or 0) + 1

    t.table.select(on_select, fin, item_out, api_visibility="private", **fast).then(
        bump, moved, moved, api_visibility="private", **free
    )
    step_in = [current, t.page, *fin]
    step_out = [*item_out, *table_out]
    for button, delta, name in ((ins.next_item, 1, "next_item"), (ins.prev_item, -1, "previous_item")):
        button.click(stepping(delta), step_in, step_out, api_name=name, **fast).then(
            bump, moved, moved, api_visibility="private", **free
        )

    def page_to(
        request: gr.Request, profile: gr.OAuthProfile | None, row: int | None, page: float | None, *v: Any
    ) -> tuple[Any, ...]:
        return navigate.page_to_row(view(request, profile), row, page, list(v))

    jump.submit(find, [jump, *fin], item_out, api_name="item", **free).then(
        page_to, [current, t.page, *fin], table_out, api_visibility="private", **free
    )
    return refresh, refresh_out, find


def _corrected_rows(ctx: ReviewContext, benchmark: str | None) -> pd.DataFrame | None:
    """``benchmark``'s rows against the store's corrected gold; None without a store or a correction.

    The one way every tab asks for the corrected gold. A store that is down raises
    :class:`~analysis.errors.StoreError`, which every handler turns into the store's one line
    (:mod:`components.store_errors`): a tab that says "counted against the corrected gold" must
    never show the official gold's counts instead.
    """
    from analysis.review.corrected import corrected_benchmark

    if ctx.store is None or not benchmark:
        return None
    return corrected_benchmark(ctx.catalog.table, ctx.store, benchmark)


def _hides_gold(ctx: ReviewContext, request: gr.Request, profile: gr.OAuthProfile | None) -> bool:
    """Whoever sent ``request`` may not see gold, verdicts or anything computed from them (blind)."""
    return not ctx.access(identity_of(request, profile)).sees_gold


def _wire_problems(
    ctx: ReviewContext,
    demo: gr.Blocks,
    pw: problems.ProblemsWidgets,
    shown_tab: tuple[gr.Tab, ShownTabs],
    f: browse.BrowseWidgets,
    jump: gr.Textbox,
    tabs: gr.Tabs,
    find: Any,
    item_out: list[Any],
) -> None:
    """The Data problems tab follows the benchmark selector; its button opens a finding's item.

    Filled again on every opening: the findings' states move with any reviewer's save, and a few
    findings and one benchmark's labels are cheap to read.
    """
    free: dict[str, Any] = {"concurrency_limit": None, "api_visibility": "private"}

    def shown(request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None) -> tuple[Any, ...]:
        access = ctx.access(identity_of(request, profile))
        return problems.show(ctx.catalog, benchmark, not access.sees_gold, ctx.store, access.sees_team)

    demo.load(url_state.filled_at_load(shown, f.benchmark), f.benchmark, pw.outputs(), **free)
    tab, memory = shown_tab
    memory.follow(tab, problems.TAB, f.benchmark, shown, pw.outputs(), every_opening=True)
    pw.open_item.click(navigate.open_in_items, pw.item, [jump, tabs], **free).success(
        find, [jump, *f.inputs()], item_out, **free
    )


def _wire_failures(
    ctx: ReviewContext,
    fw: failures.FailureWidgets,
    shown_tab: tuple[gr.Tab, ShownTabs],
    f: browse.BrowseWidgets,
    jump: gr.Textbox,
    tabs: gr.Tabs,
    find: Any,
    item_out: list[Any],
    refreshing: tuple[Any, list[Any]],
) -> None:
    """The Where it fails tab follows the benchmark and its two model pickers; an item opens in Items.

    Its figures are computed only for a reviewer who looks at it (a slice search and a bootstrap
    per benchmark switch, for a tab nobody opened, slowed every switch): on its first opening, on a
    benchmark change while it shows or on the opening after one (:class:`ShownTabs`, a tab not
    filled at load), and when a picker changes. A benchmark change starts from that benchmark's
    default models. Each opening asks whether the corrected gold moved since the figures were
    counted (anyone's save: the page remembers a digest of it, :func:`gold_basis`), and only then
    counts again, with the models shown.
    """
    from analysis.review.corrected import gold_basis

    free: dict[str, Any] = {"concurrency_limit": None, "api_visibility": "private"}
    basis = gr.State(None)  # (benchmark, digest of its corrected gold) the figures shown counted

    def digest(benchmark: str | None) -> str:
        """The corrected gold's digest ("" with none); a store that is down says so, as any read does."""
        return gold_basis(ctx.store, benchmark) if benchmark else ""

    def shown(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        benchmark: str | None,
        a: str | None,
        b: str | None,
    ) -> tuple[Any, ...]:
        hides = _hides_gold(ctx, request, profile)
        counted = (benchmark, "" if hides else digest(benchmark))
        rows = None if hides else _corrected_rows(ctx, benchmark)
        return (*failures.show(ctx.catalog, benchmark, a, b, hides, rows), counted)

    def items(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        benchmark: str | None,
        a: str | None,
        b: str | None,
        group: str | None,
    ) -> tuple[Any, Any]:
        hides = _hides_gold(ctx, request, profile)
        return failures.group_items(
            ctx.catalog, benchmark, a, b, group, hides, None if hides else _corrected_rows(ctx, benchmark)
        )

    outs = [*fw.outputs(), basis]

    def followed(
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        benchmark: str | None,
        a: str | None,
        b: str | None,
        counted: tuple[str, str] | None,
    ) -> tuple[Any, ...]:
        """Another benchmark: its default models; the same one: again only if its gold moved."""
        if counted is None or counted[0] != benchmark:
            return shown(request, profile, benchmark, None, None)
        hides = _hides_gold(ctx, request, profile)
        if hides or counted[1] == digest(benchmark):
            return tuple(gr.skip() for _ in outs)
        return shown(request, profile, benchmark, a, b)

    ins = [f.benchmark, fw.model, fw.other]
    fail_tab, memory = shown_tab
    memory.follow(
        fail_tab, failures.TAB, f.benchmark, followed, outs, inputs=[fw.model, fw.other, basis],
        filled=False, every_opening=True,
    )  # fmt: skip
    fw.model.input(shown, ins, outs, **free)
    fw.other.input(shown, ins, outs, **free)
    fw.group.change(items, [*ins, fw.group], [fw.item, fw.open_item], **free)
    fw.open_item.click(navigate.open_in_items, fw.item, [jump, tabs], **free).success(
        find, [jump, *f.inputs()], item_out, **free
    )

    def to_items(
        evt: gr.SelectData,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        benchmark: str | None,
        a: str | None,
    ) -> tuple[Any, ...]:
        return failures.slice_in_items(benchmark, a, evt.row_value, _hides_gold(ctx, request, profile))

    def cell_to_items(
        evt: gr.SelectData,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        benchmark: str | None,
        a: str | None,
        b: str | None,
    ) -> tuple[Any, ...]:
        row = evt.index[0] if isinstance(evt.index, (list, tuple)) else None
        return failures.cell_in_items(benchmark, a, b, row, _hides_gold(ctx, request, profile))

    refresh, refresh_out = refreshing
    cut = [*f.inputs()[1:], tabs]  # every filter but the benchmark, then the tab
    fw.slices.select(to_items, [f.benchmark, fw.model], cut, **free).then(
        refresh, f.inputs(), refresh_out, **free
    )
    fw.flips.select(cell_to_items, ins, cut, **free).then(refresh, f.inputs(), refresh_out, **free)


def _summary(catalog: Catalog) -> str:
    table = catalog.table
    models = {str(m) for m in table["model"].unique()} - {""}  # distinct first: 1M rows as text took 0.2 s
    parts = [
        f"{len(table):,} rows",
        f"{len(models)} models",
        f"{len(catalog.benchmarks())} benchmarks",
    ]
    if catalog.errors:
        parts.append(f"**{len(catalog.errors)} file problem(s), listed below**")
    return "## halluscope · reviewer\n" + " · ".join(parts)


def _errors_html(errors: list[str]) -> str:
    lines = "".join(f"<li><code>{escape(e)}</code></li>" for e in errors)
    head = "<b>Some files could not be loaded; the rest are shown.</b>"
    return f'<div class="hs-errors">{head}<ul>{lines}</ul></div>'


def launch_kwargs(catalog: Catalog) -> dict[str, Any]:
    """What ``launch`` needs: styling, the key script, media roots as the only served folders, the gate.

    Behind the gate, media outside the server's folder are served by token (:mod:`components.media_route`).
    """
    gated = gate.launch_kwargs()  # every upload refused, sign-in guessing slowed
    gated["app_kwargs"]["middleware"].append(media_route.middleware())
    return {
        "css": CSS + overview.CSS,
        "head": keys.HEAD + url_state.HEAD + narrow_charts.HEAD,
        "allowed_paths": catalog.allowed_paths(),
        "run_history": False,
        "theme": gr.themes.Soft(),
        **gated,
    }


def open_review(
    catalog: Catalog,
    *,
    db: str | None = None,
    data_dir: Path | None = None,
    users: list[tuple[str, str]] | None = None,
    roles: Roles | None = None,
) -> ReviewContext:
    """The label store (mirrored to a HF dataset when ``HALLUSCOPE_HF_DATASET`` is set) and reviewers.

    The database file must not lie under a served media root (checked before anything is served).
    The default data folder is :func:`analysis.store.db.default_data_dir`, the CLI's too.
    A damaged database raises :class:`~analysis.errors.StoreError` (one line naming it); a data
    folder that cannot be written gives the read-only demo, saying so in one line on stderr.
    """
    from analysis.store import ReadOnlyStore, assert_not_served, open_store
    from analysis.store.db import default_data_dir, default_db_path
    from analysis.store.mirror import open_mirrored_store

    folder = data_dir or default_data_dir()
    roots = [Path(p) for p in catalog.allowed_paths()]
    if db is None:
        assert_not_served(default_db_path(folder), roots)
    try:
        if os.environ.get("HALLUSCOPE_HF_DATASET") and db is None:
            store = open_mirrored_store(folder)
        else:
            store = open_store(db, data_dir=folder, media_roots=roots)
    except ReadOnlyStore as exc:
        print(f"halluscope: {exc}: serving the read-only demo", file=sys.stderr)
        return ReviewContext(catalog, None, oauth=on_spaces(), read_only=str(exc))
    if store.path is not None:
        assert_not_served(store.path, roots)
    roles = roles if roles is not None else roles_from()
    return ReviewContext(
        catalog,
        store,
        tuple(u for u, _ in users or ()),
        oauth=on_spaces(),
        adjudicators=roles.adjudicators,
        blind=roles.blind,
    )


def serve(
    catalog: Catalog,
    *,
    host: str | None = None,
    port: int | None = None,
    users: list[tuple[str, str]] | None = None,
    db: str | None = None,
    data_dir: Path | None = None,
    roles: Roles | None = None,
    pairs: dict[str, Any] | None = None,
) -> None:
    """Serve the app over a loaded catalog until interrupted (read-only without users or a Space).

    ``pairs``: ``pair_scores`` (``serve --pair-scores``), ``pair_clip`` and ``pair_dino``
    (``--pair-clip``, ``--pair-dino``: local checkpoints for the pair tab, ``docs/pair-scores.md``).
    """
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    users = users if users is not None else auth_from()
    ctx = open_review(catalog, db=db, data_dir=data_dir, users=users, roles=roles)
    ctx.extra.update(pairs or {})
    build_app(catalog, ctx).launch(
        server_name=host, server_port=port, auth=users or None, **launch_kwargs(catalog)
    )


def serve_command(args: argparse.Namespace, wait: Callable[[], Catalog]) -> None:
    """``halluscope serve``: reviewers, roles and the store from its arguments, then :func:`serve`.

    Registered as the ``halluscope.servers`` entry point (``pyproject.toml``), through which the
    command line, which never imports the app, finds it. ``wait`` returns the catalog loading
    meanwhile.
    """
    from analysis.errors import UsageError
    from components.identity import AuthError

    try:
        users = auth_from(extra=args.auth, auth_file=args.auth_file)
    except (AuthError, OSError) as exc:
        raise UsageError(f"--auth: {exc}") from exc
    pairs: dict[str, Any] = getattr(args, "pairs", None) or {}  # read and checked by the CLI
    review = {
        "users": users or None,
        "db": args.db,
        "data_dir": args.data_dir,
        "roles": roles_from(adjudicators=args.adjudicator, blind=args.blind),
        "pairs": pairs or None,
    }
    serve(wait(), host=args.host, port=args.port, **{k: v for k, v in review.items() if v is not None})


def main() -> None:
    """Serve the bundled samples (``python app.py``; on Hugging Face Spaces too).

    A label store that cannot be used stops start-up with one line naming it and exit code 2.
    """
    from analysis.errors import StoreError

    try:
        serve(load_manifest(SAMPLE_MANIFEST))
    except StoreError as exc:
        print(f"halluscope: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
