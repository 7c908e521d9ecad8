"""``halluscope report``: one self-contained HTML file, or the leaderboard tables for a paper.

The HTML holds, per benchmark, the leaderboards with intervals and paired tests, the official
metric chart and the bias charts, the audit findings and a corrections summary. plotly.js is
inlined once from the installed plotly package, so the file opens offline and asks no server for
anything. ``latex`` (booktabs) and ``markdown`` give the leaderboards alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from analysis.benchmarks.base import Finding
from analysis.boards.html_tables import CSS as BOARD_CSS
from analysis.boards.html_tables import boards_html
from analysis.boards.leaderboard import Leaderboard, fmt, fmt_interval, leaderboards, with_corrected
from analysis.charts.boards import board_chart
from analysis.charts.common import chart_list, rows_of
from analysis.failures.compare import Comparison, compare_runs, difference_rows
from analysis.load.catalog import Catalog
from analysis.query import Filters, filter_rows
from analysis.review.corrected import uncorrected
from analysis.review.gold_changes import GoldChanges, changes_html, gold_changes
from analysis.review.suspects import suspect_ids

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "svg"}}
"""The chart toolbar's camera saves an SVG; every chart is still an interactive plotly figure."""


@dataclass
class Section:
    """What the report says about one benchmark."""

    benchmark: str
    boards: list[Leaderboard]
    figures: list[go.Figure]
    findings: list[Finding]
    corrections: int | None = None
    """Gold corrections in the store; None when no store was given."""
    notes: list[str] = field(default_factory=list)
    comparison: Comparison | None = None
    """Two runs compared (``report --compare A B``), where both answered this benchmark."""
    changes: list[GoldChanges] = field(default_factory=list)
    """Every board under official gold, corrected gold and without the suspects (with ``--db``)."""


def sections(
    catalog: Catalog,
    *,
    n_boot: int,
    seed: int,
    corrected: Mapping[str, pd.DataFrame | None] | None = None,
    compare: tuple[str, str] | None = None,
) -> list[Section]:
    """One section per benchmark of the catalog.

    ``corrected``: rows scored on corrected gold; ``compare``: two models compared item by item
    where both answered the benchmark.
    """
    out = []
    for bench in catalog.benchmarks():
        boards = leaderboards(catalog.table, bench, n_boot=n_boot, seed=seed)
        fixed = None if corrected is None else corrected.get(bench)
        count = None
        if corrected is not None:
            count = 0 if fixed is None else int(fixed.loc[fixed["gold_corrected"], "item_id"].nunique())
            if fixed is not None and count:
                boards = with_corrected(boards, fixed)
        view = catalog.chart_rows(filter_rows(catalog.table, Filters(benchmark=bench)))
        figures = [board_chart(boards, f"{bench}: official metric per board")]
        # every chart but accuracy per row: the board chart above gives the official metric instead
        drawn = [
            chart.draw(rows_of(view, owner)) for owner, chart in chart_list() if chart.name != "accuracy"
        ]
        figures += [fig for fig in drawn if fig.data]
        compared = None
        if compare is not None:
            models = set(catalog.table.loc[catalog.table["benchmark"] == bench, "model"].astype(str))
            if set(compare) <= models:
                compared = compare_runs(catalog.table, bench, *compare, n_boot=n_boot, seed=seed)
        changes = []
        if corrected is not None:
            rows = catalog.table[(catalog.table["benchmark"] == bench).to_numpy(dtype=bool)]
            changes = gold_changes(
                rows, fixed if fixed is not None else uncorrected(rows), bench, suspect_ids(rows)
            )
        out.append(
            Section(
                bench,
                boards,
                figures,
                list(catalog.findings.get(bench, [])),
                count,
                comparison=compared,
                changes=changes,
            )
        )
    return out


def _figure_html(fig: go.Figure, index: int) -> str:
    return str(
        fig.to_html(
            full_html=False,
            include_plotlyjs=False,
            config=PLOT_CONFIG,
            div_id=f"chart-{index}",
            default_width="100%",
        )
    )


def _findings_html(findings: Sequence[Finding]) -> str:
    if not findings:
        return "<p>The audit found no data problem.</p>"
    rows = "".join(
        f"<tr><td>{escape(f.severity)}</td><td>{escape(f.check)}</td><td>{escape(f.where)}</td>"
        f"<td class='hs-detail'>{escape(f.detail)}</td><td>{len(f.item_ids)}</td></tr>"
        for f in findings
    )
    return (
        f"<p>{len(findings)} finding(s).</p><table class='hs-findings'><thead><tr><th>severity</th>"
        f"<th>check</th><th>where</th><th>detail</th><th>items</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _changes_html(section: Section) -> str:
    if not section.changes:
        return ""
    return (
        "<h4>What the corrections change</h4><p>Each board under the official gold, the corrected "
        "gold and the official gold without the suspect items (the ranking's suggestions, "
        "<code>halluscope suspects</code>), with rank changes, Kendall's tau against the official "
        "ranking, and an exact McNemar test of each model's verdicts, official against corrected.</p>"
        + changes_html(section.changes)
    )


def latex_changes(changes: Sequence[GoldChanges]) -> str:
    """The three-gold comparison as booktabs tables, one per board."""
    out = []
    for c in changes:
        tau = f"Kendall's tau: corrected {_tau(c.tau_corrected)}, without suspects {_tau(c.tau_without)}"
        out.append(
            f"% {latex_escape(c.benchmark)}: {latex_escape(c.board)}, {latex_escape(c.metric)} under "
            f"three golds; {c.corrections} corrected, {c.left_out} suspect item(s) left out; "
            + latex_escape(tau)
        )
        out += [r"\begin{tabular}{lrrrrr}", r"\toprule"]
        head = ["model", "official", "corrected", "without suspects", "verdicts changed", "McNemar p"]
        out.append(" & ".join(head) + r" \\")
        out.append(r"\midrule")
        for st in c.standings:
            cells = [
                latex_escape(st.model),
                fmt(st.official),
                f"{fmt(st.corrected)} (\\#{st.rank_corrected})",
                f"{fmt(st.without)} (\\#{st.rank_without})",
                str(st.changed),
                "--" if st.p is None else f"{st.p:.3g}",
            ]
            out.append(" & ".join(cells) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(out)


def _tau(value: float | None) -> str:
    return "--" if value is None else f"{value:.3f}"


def _corrections_html(section: Section) -> str:
    if section.corrections is None:
        return "<p>No label store was given (<code>--db</code>): official gold only.</p>"
    if not section.corrections:
        return "<p>No gold corrections in the store: corrected numbers equal the official ones.</p>"
    return (
        f"<p>{section.corrections} item(s) with corrected gold; the boards show each corrected "
        "number under the official one.</p>"
    )


PAGE_CSS = """
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px;
  color: #1f2328; background: #fff; }
h1 { font-size: 1.5em; } h2 { margin-top: 32px; border-bottom: 2px solid #d0d7de; }
table.hs-findings { border-collapse: collapse; width: 100%; font-size: 0.9em; }
table.hs-findings th, table.hs-findings td { border-bottom: 1px solid #d0d7de; padding: 3px 6px;
  text-align: left; vertical-align: top; }
.hs-meta { color: #57606a; font-size: 0.9em; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } .hs-meta { color: #9198a1; }
  .hs-board { --hs-subdued: #9198a1; --hs-rule: #30363d; }
}
"""


def html(catalog: Catalog, parts: Sequence[Section], *, files: Sequence[str]) -> str:
    """The whole report as one HTML document (plotly.js inlined)."""
    body = []
    figure = 0
    for s in parts:
        charts_html = []
        for fig in s.figures:
            charts_html.append(_figure_html(fig, figure))
            figure += 1
        body.append(
            f"<section id='{escape(s.benchmark)}'><h2>{escape(s.benchmark)}</h2>"
            f"<h3>Leaderboards</h3>{boards_html(s.boards)}"
            f"<h3>Charts</h3>{''.join(charts_html)}"
            f"<h3>Audit findings</h3>{_findings_html(s.findings)}"
            f"<h3>Corrections</h3>{_corrections_html(s)}{_changes_html(s)}{_comparison_html(s.comparison)}"
            "</section>"
        )
    errors = "".join(f"<li><code>{escape(e)}</code></li>" for e in catalog.errors)
    problems = f"<h2>Files that could not be loaded</h2><ul>{errors}</ul>" if errors else ""
    listed = "".join(f"<li><code>{escape(f)}</code></li>" for f in files)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>halluscope report</title><style>{PAGE_CSS}{BOARD_CSS}</style>"
        f"<script>{get_plotlyjs()}</script></head><body>"
        f"<h1>halluscope report</h1><p class='hs-meta'>{len(catalog.table):,} rows from "
        f"{len(files)} file(s):</p><ul class='hs-meta'>{listed}</ul>{''.join(body)}{problems}"
        "</body></html>"
    )


def _table_rows(lb: Leaderboard) -> tuple[list[str], list[list[str]]]:
    head = ["model", "n", *lb.board.metrics]
    rows = []
    for e in lb.entries:
        cells = [e.model, f"{e.n:,}"]
        for m in lb.board.metrics:
            cells.append(f"{fmt(e.values.get(m))} {fmt_interval(e.intervals.get(m))}")
        rows.append(cells)
    return head, rows


def markdown(boards: Sequence[Leaderboard]) -> str:
    """Every board as a Markdown pipe table, intervals in brackets."""
    out = []
    for lb in boards:
        head, rows = _table_rows(lb)
        out.append(
            f"**{lb.benchmark}: {lb.board.title}** (95% interval, cluster bootstrap over "
            f"{lb.cluster}s, {lb.n_boot} replicates, seed {lb.seed})\n"
        )
        out.append("| " + " | ".join(h.replace("_", " ") for h in head) + " |")
        out.append("|" + "|".join([":---", "---:", *["---:"] * (len(head) - 2)]) + "|")
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        out.append("")
    return "\n".join(out)


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters."""
    return "".join(_LATEX.get(ch, ch) for ch in text)


def _comparison_html(c: Comparison | None) -> str:
    if c is None:
        return ""
    a, b = escape(c.a), escape(c.b)
    flips = "".join(f"<tr><th>{escape(k)}</th><td>{v}</td></tr>" for k, v in c.flips.items())
    head, rows = difference_rows(c)
    table = (
        "<table class='hs-board'><tr>"
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + "</tr>"
        + "".join("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in r) + "</tr>" for r in rows)
        + "</table>"
    )
    losses = "".join(
        f"<li>{escape(' & '.join(f'{k}={v}' for k, v in s.conditions))}: {a} is the one right in "
        f"{s.accuracy:.0%} of {s.n} split items (elsewhere {s.rest_accuracy:.0%}), q = {s.q:.2g}</li>"
        for s in c.losses
    )
    losses_html = (
        f"<ul>{losses}</ul>"
        if losses
        else f"<p>No slice ({c.tested} tested) where {a} loses significantly more.</p>"
    )
    return (
        f"<h3>{a} (A) against {b} (B)</h3>"
        f"<p>Items both were scored on, by their two verdicts (A = {a}, B = {b}):</p>"
        f"<table class='hs-board'>{flips}</table>"
        "<p>A − B per board: paired cluster bootstrap interval; exact McNemar p where the metric is an "
        "accuracy; Holm across the boards.</p>"
        f"{table}<h4>Where {a} loses to {b}</h4>{losses_html}"
    )


def latex_comparison(c: Comparison) -> str:
    """A comparison as a booktabs ``tabular`` with the flip table in a comment line above it."""
    head, rows = difference_rows(c)
    flips = ", ".join(f"{k} {v}" for k, v in c.flips.items())
    out = [
        f"% {latex_escape(c.benchmark)}: {latex_escape(c.a)} (A) against {latex_escape(c.b)} (B); "
        + latex_escape(flips),
        "\\begin{tabular}{ll" + "r" * (len(head) - 2) + "}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in head) + " \\\\",
        "\\midrule",
        *[" & ".join(latex_escape(x) for x in r) + " \\\\" for r in rows],
        "\\bottomrule",
        "\\end{tabular}",
        "",
    ]
    return "\n".join(out)


def latex(boards: Sequence[Leaderboard]) -> str:
    """Every board as a booktabs ``tabular`` (the document needs the booktabs package)."""
    out = []
    for lb in boards:
        head, rows = _table_rows(lb)
        how = f"cluster bootstrap over {latex_escape(lb.cluster)}s, {lb.n_boot} replicates, seed {lb.seed}"
        out.append(f"% {latex_escape(lb.benchmark)}: {latex_escape(lb.board.title)}; 95% intervals, {how}")
        out.append("\\begin{tabular}{l" + "r" * (len(head) - 1) + "}")
        out.append("\\toprule")
        out.append(" & ".join(latex_escape(h) for h in head) + " \\\\")
        out.append("\\midrule")
        out += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in rows]
        out.append("\\bottomrule")
        out.append("\\end{tabular}")
        out.append("")
    return "\n".join(out)


def corrected_rows(catalog: Catalog, db: str) -> dict[str, pd.DataFrame | None]:
    """Per benchmark, its rows scored on the store's corrected gold (None without gold labels)."""
    from pathlib import Path

    from analysis.errors import InputError, StoreError, UsageError
    from analysis.review.corrected import corrected_benchmark
    from analysis.store.connect import open_store

    if not db.startswith(("postgres", "sqlite:")) and not Path(db).is_file():
        raise InputError(db, "no such database file")
    try:
        store = open_store(db)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    try:
        return {bench: corrected_benchmark(catalog.table, store, bench) for bench in catalog.benchmarks()}
    finally:
        store.close()
