"""The overview tab, shown first: per benchmark, leaderboards with n, intervals and paired tests.

Boards follow the benchmark selector. Their numbers are ``halluscope score``'s, their intervals
``score --ci``'s (same replicates and seed), computed once per benchmark and kept for the app's
life (the catalog never changes); corrected numbers are recomputed from the store's current
labels each time the board is shown. A plotly click cannot reach Python, so a model's failures
open from a dropdown and a button, which set the filters and switch to the Items tab.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from analysis.boards.html_tables import CSS as BOARD_CSS
from analysis.boards.html_tables import boards_html
from analysis.boards.leaderboard import Leaderboard, leaderboards, with_corrected
from analysis.charts.boards import board_chart, board_csv
from analysis.load.catalog import Catalog
from analysis.query import ALL
from components import url_state
from components.shown_tabs import ShownTabs

SEP = " · "
TAB = "Overview"
"""The tab's label (what its ``select`` event names: :mod:`components.shown_tabs`)."""
CSS = (
    BOARD_CSS
    + """
table.hs-changes { border-collapse: collapse; font-size: 0.9em; margin: 4px 0 12px; }
table.hs-changes th, table.hs-changes td { padding: 2px 10px; text-align: right;
  border-bottom: 1px solid var(--border-color-primary, #d0d7de); }
table.hs-changes th:first-child, table.hs-changes td:first-child { text-align: left; }
.hs-gold-changes .hs-meta { opacity: 0.8; font-size: 0.9em; margin: 8px 0 2px; }
"""
)


@dataclass
class OverviewWidgets:
    """The overview's widgets."""

    boards: gr.HTML
    target: gr.Dropdown
    open_failures: gr.Button
    chart: gr.Plot
    csv: gr.DownloadButton
    suspects: gr.Markdown
    """How many items the suspect ranking flags on this benchmark."""
    changes: gr.HTML
    """Each board under official gold, corrected gold and without the suspects."""


def build_overview() -> OverviewWidgets:
    """The boards, then the picker that opens one model's failures in the Items tab."""
    boards = gr.HTML("", elem_id="leaderboards")
    suspects = gr.Markdown("", elem_id="suspects-summary")
    changes = gr.HTML("", elem_id="gold-changes", padding=False)
    with gr.Row(equal_height=True, elem_id="open-failures-row"):
        target = gr.Dropdown(
            [], label="Open a model's failures (board · model)", elem_id="failures-of", scale=4
        )
        open_failures = gr.Button("Show its wrong answers", elem_id="open-failures", scale=1)
    chart = gr.Plot(label="Official metric per board", elem_id="chart-official", show_label=False)
    csv = gr.DownloadButton("Numbers of the boards and chart (CSV)", elem_id="boards-csv", size="sm")
    return OverviewWidgets(boards, target, open_failures, chart, csv, suspects, changes)


def board_cache(catalog: Catalog) -> Callable[[str], list[Leaderboard]]:
    """Leaderboards per benchmark, computed on first request (the catalog never changes)."""
    found: dict[str, list[Leaderboard]] = {}

    def get(benchmark: str) -> list[Leaderboard]:
        if benchmark not in found:
            found[benchmark] = leaderboards(catalog.table, benchmark)
        return found[benchmark]

    return get


def target_choices(boards: list[Leaderboard]) -> list[str]:
    """``board · model`` for every entry of every board."""
    return [f"{lb.board.title}{SEP}{e.model}" for lb in boards for e in lb.entries]


def current_boards(
    boards_of: Callable[[str], list[Leaderboard]],
    benchmark: str | None,
    corrected: Callable[[str], Any] | None,
) -> list[Leaderboard]:
    """The benchmark's boards, with corrected numbers when the store has gold corrections."""
    if not benchmark:
        return []
    boards = boards_of(benchmark)
    fixed = corrected(benchmark) if corrected is not None else None
    return with_corrected(boards, fixed) if fixed is not None else boards


def show(
    boards_of: Callable[[str], list[Leaderboard]],
    benchmark: str | None,
    corrected: Callable[[str], Any] | None = None,
    folder: Path | None = None,
) -> tuple[str, Any, Any, Any]:
    """Boards' HTML, the failure picker, the official-metric chart and its CSV, for one benchmark.

    The CSV is written under ``folder`` (a temporary folder when None).
    """
    boards = current_boards(boards_of, benchmark, corrected)
    choices = target_choices(boards)
    csv = None
    if boards:
        where = folder or Path(tempfile.mkdtemp(prefix="halluscope-boards-"))
        csv = where / f"{benchmark}-leaderboards.csv"
        csv.write_text(board_csv(boards), encoding="utf-8")
    title = f"{benchmark}: official metric per board" if benchmark else "Official metric"
    return (
        boards_html(boards),
        gr.update(choices=choices, value=choices[0] if choices else None),
        board_chart(boards, title),
        gr.update(value=None if csv is None else str(csv), interactive=csv is not None),
    )


def failure_filters(
    boards_of: Callable[[str], list[Leaderboard]], benchmark: str | None, target: str | None
) -> tuple[Any, Any, Any, Any]:
    """Filters showing the chosen model's wrong answers on the chosen board, and the Items tab."""
    if not benchmark or not target or SEP not in target:
        raise gr.Error("Pick a board and model first.", print_exception=False)
    title, model = target.rsplit(SEP, 1)
    board = next((lb.board for lb in boards_of(benchmark) if lb.board.title == title), None)
    if board is None:
        raise gr.Error(f"No board {title!r} for {benchmark}.")
    task = board.task or (board.scope[1] if board.scope is not None and board.scope[0] == "task" else ALL)
    return (
        gr.update(value=[model]),
        gr.update(value=task),
        gr.update(value=True),
        gr.Tabs(selected="items-tab"),
    )


BLIND_NOTE = "<p><em>Leaderboards are hidden while you review blind: they are metrics over gold.</em></p>"
"""What a blind reviewer's overview says instead of the boards."""


def wire(
    ov: OverviewWidgets,
    demo: gr.Blocks,
    f: Any,
    tabs: gr.Tabs,
    tab: gr.Tab,
    memory: ShownTabs,
    boards_of: Callable[[str], list[Leaderboard]],
    corrected: Callable[[str], Any] | None,
    refresh: Callable[..., Any],
    refresh_out: list[Any],
    hidden: Callable[[gr.Request, gr.OAuthProfile | None], bool] | None = None,
    more: Callable[[gr.Request, gr.OAuthProfile | None, str | None], tuple[Any, ...]] | None = None,
    more_out: list[Any] | None = None,
    stale_on: list[Any] | None = None,
) -> None:
    """Boards on load, on a benchmark change and on opening the tab; the failure button sets filters and tab.

    ``hidden(request, profile)`` says the requester may see no metric (a blind reviewer): then
    no board, chart or CSV is sent, only a line saying why. ``more`` adds the tab's other content
    (its outputs ``more_out``) to the same answer. While the tab is hidden a benchmark change, or
    a change of any of ``stale_on`` (a save), sends nothing and marks the tab stale; opening it
    catches up (:mod:`components.shown_tabs`).
    """
    free: dict[str, Any] = {"concurrency_limit": None}
    out = [ov.boards, ov.target, ov.chart, ov.csv]
    extra = list(more_out or [])
    folder = Path(tempfile.mkdtemp(prefix="halluscope-boards-"))

    def boards(
        request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None
    ) -> tuple[Any, ...]:
        if hidden is not None and hidden(request, profile):
            return (
                BLIND_NOTE,
                gr.update(choices=[], value=None),
                None,
                gr.update(value=None, interactive=False),
            )
        return show(boards_of, benchmark, corrected, folder)

    def whole(request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None) -> tuple[Any, ...]:
        return (*boards(request, profile, benchmark), *(more(request, profile, benchmark) if more else ()))

    # the API's /overview: boards only; at load, those of the benchmark a link names
    demo.load(url_state.filled_at_load(boards, f.benchmark), f.benchmark, out, api_name="overview", **free)
    if hidden is not None:  # no board to open failures from: the picker and its button go too

        def picker(request: gr.Request, profile: gr.OAuthProfile | None) -> tuple[Any, Any]:
            shown = not hidden(request, profile)
            return gr.update(visible=shown), gr.update(visible=shown)

        demo.load(picker, None, [ov.target, ov.open_failures], api_visibility="private", **free)
    if more is not None:
        demo.load(
            url_state.filled_at_load(more, f.benchmark), f.benchmark, extra, api_visibility="private", **free
        )
    memory.follow(tab, TAB, f.benchmark, whole, [*out, *extra], stale_on)
    ov.open_failures.click(
        lambda b, t: failure_filters(boards_of, b, t),
        [f.benchmark, ov.target],
        [f.models, f.task, f.wrong_only, tabs],
        api_visibility="private",
        **free,
    ).success(refresh, f.inputs(), refresh_out, api_visibility="private", **free)
