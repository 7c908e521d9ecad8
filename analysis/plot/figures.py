"""Plotly figures built from plain dicts: side-by-side panels, a quiet style, wrapped labels.

Used by the common charts (:mod:`analysis.charts.common`) and by each benchmark's own.
``plotly.subplots.make_subplots`` and named templates validate every property they touch, which
costs about 30 ms a figure; one ``go.Figure(dict)`` with the axes laid out here costs about 3 ms,
and the app redraws every chart on every filter.
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

HEIGHT = 380
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D", "#BAB0AC")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon", "triangle-down")
_AXIS = {
    "gridcolor": "#e8e8e8",
    "zerolinecolor": "#d0d0d0",
    "linecolor": "#c8c8c8",
    "automargin": True,
    "tickangle": 0,
}
_GAP = 0.09


def color(index: int) -> str:
    """The palette's ``index``-th colour (a model's index from :func:`palette_indices`)."""
    return PALETTE[index % len(PALETTE)]


def palette_indices(models: Iterable[str]) -> dict[str, int]:
    """Each model's colour index, from its name: the same model keeps its colour in every chart.

    A model's colour is picked by a checksum of its name, not its place in the chart's list (that
    place changed with the other models a benchmark has, and so did the colour; issue 20). Two
    models of one chart never share a colour while the palette lasts: in name order, a model whose
    colour is taken gets the next free one.
    """
    out: dict[str, int] = {}
    used: set[int] = set()
    for model in sorted(set(models)):
        index = zlib.crc32(model.encode("utf-8")) % len(PALETTE)
        for step in range(len(PALETTE)):
            if (index + step) % len(PALETTE) not in used:
                index = (index + step) % len(PALETTE)
                break
        used.add(index)
        out[model] = index
    return out


def wrap(label: str, width: int = 14) -> str:
    """Break a long axis label into lines (plotly's ``<br>``), so labels never need rotating.

    Lines break between words and, in a word longer than ``width``, after its hyphens
    (``visual-`` / ``audio-`` / ``language``): such a word on one line overlapped its neighbours.
    """
    lines: list[str] = []
    for word in str(label).replace("_", " ").split():
        hyphenated = len(word) > width and "-" in word.strip("-")
        pieces = re.findall(r"[^-]*-|[^-]+$", word) if hyphenated else [word]
        for index, piece in enumerate(pieces):
            glue = "" if index else " "  # the rest of a hyphenated word joins without a space
            if lines and len(lines[-1]) + len(glue) + len(piece) <= width:
                lines[-1] += glue + piece
            else:
                lines.append(piece)
    return "<br>".join(lines) or str(label)


def crowded_width(groups: int, room: int = 48) -> int:
    """A :func:`wrap` width for ``groups`` labels sharing one panel of about ``room`` characters."""
    return max(7, min(14, room // max(groups, 1)))


def by_model(data: pd.DataFrame) -> list[tuple[int, str, pd.DataFrame]]:
    """``(colour index, model, its rows)`` of a chart's numbers, models in sorted order."""
    groups = [(str(m), part) for m, part in data.groupby("model", sort=True)]
    colours = palette_indices(m for m, _ in groups)
    return [(colours[m], m, part) for m, part in groups]


def axis(panel: int) -> dict[str, str]:
    """Trace keys placing a trace in panel ``panel`` (1-based)."""
    suffix = "" if panel == 1 else str(panel)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def model_bar(
    model: str,
    index: int,
    x: list[Any],
    y: list[Any],
    customdata: list[Any],
    hover: str,
    *,
    panel: int | None = None,
    grouped: bool = False,
    legend: bool = True,
) -> dict[str, Any]:
    """One model's bar trace in the model's colour; ``grouped`` ties it to the model's legend entry."""
    trace: dict[str, Any] = {
        "type": "bar",
        "x": x,
        "y": y,
        "name": model,
        "marker": {"color": color(index)},
        "customdata": customdata,
        "hovertemplate": hover,
    }
    if panel is not None:
        trace.update(axis(panel))
    if grouped:
        trace["legendgroup"] = model
    if not legend:
        trace["showlegend"] = False
    return trace


def figure(
    title: str,
    traces: Sequence[dict[str, Any]],
    panels: Sequence[str],
    widths: Sequence[float] | None = None,
    axes: dict[str, dict[str, Any]] | None = None,
    gaps: Sequence[float] | None = None,
) -> go.Figure:
    """A figure of side-by-side panels titled ``panels``; ``axes`` adds per-axis settings (``x2``...).

    ``gaps``: space before each panel after the first (wider where a panel has long tick labels).
    """
    n = max(1, len(panels))
    shares = list(widths or [1.0] * n)
    spaces = list(gaps or [_GAP] * (n - 1))
    usable = 1.0 - sum(spaces)
    layout: dict[str, Any] = {
        "title": {"text": title, "x": 0.01},
        "height": HEIGHT,
        "barmode": "group",
        "margin": {"l": 50, "r": 20, "t": 70, "b": 40},
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "legend": {"font": {"size": 11}},
        "annotations": [],
    }
    start = 0.0
    for index, share in enumerate(shares, start=1):
        end = min(1.0, start + usable * share / sum(shares))  # rounding may overshoot 1 by an ulp
        suffix = "" if index == 1 else str(index)
        layout[f"xaxis{suffix}"] = {**_AXIS, "domain": [start, end], "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = {**_AXIS, "anchor": f"x{suffix}"}
        if len(panels) > 1:
            layout["annotations"].append(
                {
                    "text": panels[index - 1],
                    "x": (start + end) / 2,
                    "y": 1.02,
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 13},
                }
            )
        start = end + (spaces[index - 1] if index - 1 < len(spaces) else 0.0)
    for key, settings in (axes or {}).items():
        name = f"{key[0]}axis{key[1:]}"
        layout[name] = {**layout[name], **settings}
    return go.Figure({"data": [plain_text(t) for t in traces], "layout": layout})


_SHOWN = ("name", "text", "x", "y")
"""Trace fields plotly shows as text (legend, labels, ticks, hover's ``%{x}``)."""


def plain_text(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace with every shown string escaped for plotly's pseudo-HTML.

    Plotly renders ``<b>``, ``<i>`` and ``<a href>`` inside names and labels; model names and
    categories come from data files, so they are escaped (``<br>``, which :func:`wrap` inserts,
    stays a line break).
    """
    out = dict(trace)
    for key in _SHOWN:
        value = out.get(key)
        if isinstance(value, str):
            out[key] = _escape(value)
        elif isinstance(value, list):
            out[key] = [_escape(v) if isinstance(v, str) else v for v in value]
    return out


def _escape(text: str) -> str:
    return html.escape(text, quote=False).replace("&lt;br&gt;", "<br>")


def empty(title: str, note: str) -> go.Figure:
    """A figure with no traces and a note in the middle."""
    return go.Figure(
        {
            "data": [],
            "layout": {
                "title": {"text": title, "x": 0.01},
                "height": 200,
                "plot_bgcolor": "white",
                "paper_bgcolor": "white",
                "xaxis": {"visible": False},
                "yaxis": {"visible": False},
                "annotations": [
                    {"text": note, "showarrow": False, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}
                ],
            },
        }
    )
