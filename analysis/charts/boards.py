"""Charts of the official metrics: one panel per leaderboard, error bars from the intervals.

Pure functions: leaderboards in, a small DataFrame (the numbers, for CSV) or a plotly Figure out.
Each panel shows the board's ranking metric (its first official metric: a question-level
accuracy, a task's combined score, a per-task accuracy...) for every model, with its 95% interval
as an error bar and n on hover.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis.boards.leaderboard import Leaderboard
from analysis.files.csv_cells import frame_csv
from analysis.plot.figures import color, empty, figure, palette_indices, wrap

COLUMNS = [
    "benchmark",
    "board",
    "task",
    "model",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "cluster",
    "n_boot",
    "seed",
    "corrected",
]


def board_data(boards: list[Leaderboard]) -> pd.DataFrame:
    """Every board metric of every model: value, interval, n, and corrected value where there is one.

    ``corrected`` is empty only without a corrected view (no store). With one, a board no
    correction touched holds its official numbers there: they are its numbers under corrected
    gold (an empty cell read as "no corrected value").
    """
    records: list[dict[str, Any]] = []
    for lb in boards:
        for e in lb.entries:
            fixed = lb.corrected_values(e)
            for metric in lb.board.metrics:
                interval = e.intervals.get(metric)
                records.append(
                    {
                        "benchmark": lb.benchmark,
                        "board": lb.board.title,
                        "task": lb.board.task or "",
                        "model": e.model,
                        "metric": metric,
                        "value": e.values.get(metric),
                        "ci_low": None if interval is None else interval[0],
                        "ci_high": None if interval is None else interval[1],
                        "n": e.n,
                        "cluster": lb.cluster,
                        "n_boot": lb.n_boot,
                        "seed": lb.seed,
                        "corrected": None if fixed is None else fixed.get(metric),
                    }
                )
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def board_csv(boards: list[Leaderboard]) -> str:
    """:func:`board_data` as CSV text (full precision)."""
    return frame_csv(board_data(boards))  # model names come from file names: guarded as text


def _bar(lb: Leaderboard, panel: int, legend: set[str], order: dict[str, int]) -> list[dict[str, Any]]:
    metric = lb.ranked_by
    traces = []
    for e in lb.entries:
        value = e.values.get(metric)
        interval = e.intervals.get(metric)
        index = order[e.model]
        y = [value]
        shown = "–" if interval is None else f"[{interval[0]:.3f}, {interval[1]:.3f}]"
        trace: dict[str, Any] = {
            "type": "bar",
            "x": [wrap(e.model, 12)],
            "y": y,
            "name": e.model,
            "marker": {"color": color(index)},
            "legendgroup": e.model,
            "showlegend": e.model not in legend,
            "customdata": [[metric, e.n, shown]],
            "hovertemplate": "%{fullData.name}<br>%{customdata[0]} %{y:.3f}<br>95% CI %{customdata[2]}"
            "<br>n %{customdata[1]}<extra></extra>",
            "xaxis": "x" if panel == 1 else f"x{panel}",
            "yaxis": "y" if panel == 1 else f"y{panel}",
        }
        if value is not None and interval is not None:
            trace["error_y"] = {
                "type": "data",
                "symmetric": False,
                "array": [interval[1] - value],
                "arrayminus": [value - interval[0]],
                "color": "#444",
                "thickness": 1.2,
            }
        legend.add(e.model)
        traces.append(trace)
    return traces


def board_chart(boards: list[Leaderboard], title: str = "Official metric per board") -> go.Figure:
    """One panel per board: its ranking metric per model, bars with 95% error bars."""
    if not boards:
        return empty(title, "No model results for this benchmark")
    legend: set[str] = set()
    order = palette_indices(e.model for lb in boards for e in lb.entries)
    traces = [t for i, lb in enumerate(boards, start=1) for t in _bar(lb, i, legend, order)]
    panels = [f"{wrap(lb.board.title, 28)}<br><sup>{lb.ranked_by}</sup>" for lb in boards]
    fig = figure(title, traces, panels, gaps=[0.06] * (len(boards) - 1))
    fig.update_layout(margin={"t": 110}, showlegend=True)
    for i, lb in enumerate(boards, start=1):
        suffix = "" if i == 1 else str(i)
        fig.layout[f"xaxis{suffix}"].update(showticklabels=False)  # the legend names the colours
        if lb.ranked_by not in {"cfad", "rpd"}:
            fig.layout[f"yaxis{suffix}"].update(range=[0, 1.05])
    return fig
