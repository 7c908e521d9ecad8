"""Leaderboards as HTML tables (escaped), for the app's overview and the offline report."""

from __future__ import annotations

from html import escape

from analysis.boards.leaderboard import Leaderboard, fmt, fmt_interval

CSS = """
.hs-board { margin: 0 0 18px 0; max-width: 100%; overflow-x: auto; }
.hs-board h3 { margin: 10px 0 4px 0; font-size: 1.05em; }
.hs-board .hs-board-note { font-size: 0.85em; color: var(--hs-subdued, #555); margin: 2px 0 6px 0; }
.hs-board table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
.hs-board th, .hs-board td { padding: 4px 8px; text-align: right; white-space: nowrap;
  border-bottom: 1px solid var(--hs-rule, #d0d7de); }
.hs-board th { font-weight: 600; }
.hs-board td.hs-model, .hs-board th.hs-model { text-align: left; white-space: normal; }
.hs-board td.hs-beats, .hs-board th.hs-beats { text-align: left; white-space: normal; }
.hs-board .hs-ci { display: block; font-size: 0.82em; color: var(--hs-subdued, #555); }
.hs-board .hs-fixed { display: block; font-size: 0.82em; }
.hs-board .hs-sig { font-weight: 600; }
"""


def _metric_cell(value: float | int | None, interval: list[float] | None, fixed: str | None) -> str:
    cell = f"{escape(fmt(value))}<span class='hs-ci'>{escape(fmt_interval(interval))}</span>"
    if fixed is not None:
        cell += f"<span class='hs-fixed'>corrected {escape(fixed)}</span>"
    return f"<td>{cell}</td>"


def board_html(lb: Leaderboard) -> str:
    """One board: rank, model, n, each metric with its interval (and corrected value), tests."""
    metrics = lb.board.metrics
    ranked = lb.ranked_by
    head = "".join(f"<th>{escape(m)}</th>" for m in metrics)
    rows = []
    for rank, e in enumerate(lb.entries, start=1):
        cells = "".join(
            _metric_cell(
                e.values.get(m), e.intervals.get(m), None if e.corrected is None else fmt(e.corrected.get(m))
            )
            for m in metrics
        )
        beaten = lb.beats(e.model)
        beats = f"<span class='hs-sig'>{escape(', '.join(beaten))}</span>" if beaten else "–"
        rows.append(
            f"<tr><td>{rank}</td><td class='hs-model'>{escape(e.model)}</td><td>{e.n:,}</td>"
            f"{cells}<td class='hs-beats'>{beats}</td></tr>"
        )
    tests = {t.test for t in lb.tests}
    how = " and ".join(sorted(tests)) or "no test (one model)"
    note = (
        f"Ranked by {escape(ranked)}. Under each number: its {lb.level:.0%} interval, cluster bootstrap "
        f"over {escape(lb.cluster)}s ({lb.n_boot:,} replicates, seed {lb.seed}). "
        f"<i>Better than</i>: a difference in {escape(ranked)} significant on the same items "
        f"({escape(how)}, Holm-corrected over {len(lb.tests)} pair(s), p &lt; {1 - lb.level:.2f})."
    )
    empty = [m for m in metrics if m in lb.board.missing and any(e.values.get(m) is None for e in lb.entries)]
    for reason in dict.fromkeys(lb.board.missing[m] for m in empty):  # each reason once, in order
        named = ", ".join(m for m in empty if lb.board.missing[m] == reason)
        note += f" <span class='hs-missing-why'>– in {escape(named)}: {escape(reason)}.</span>"
    return (
        f"<div class='hs-board'><h3>{escape(lb.board.title)}</h3>"
        f"<p class='hs-board-note'>{note}</p>"
        f"<table><thead><tr><th>#</th><th class='hs-model'>model</th><th>n</th>{head}"
        f"<th class='hs-beats'>better than</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def boards_html(boards: list[Leaderboard]) -> str:
    """Every board, or a sentence saying there is none."""
    if not boards:
        return "<p class='hs-none'>No model results for this benchmark: nothing to rank.</p>"
    return "".join(board_html(lb) for lb in boards)
