"""Charts as pure functions: an item table (already filtered) in, a plotly Figure out.

Each chart has a data function (``*_data``: table -> small DataFrame, the numbers) and a figure
function drawing it. The numbers come from the functions the benchmark modules' ``score`` uses
(:mod:`analysis.stats.metrics`), on the same columns, so a chart agrees with ``halluscope score``
on the same rows. Tables carry the derived columns of :func:`analysis.query.prepare`
(``_pred_code``, ``_gold_yes``, ``_binary``) and each benchmark's own (:func:`derive_columns`),
both added once at load time. An empty input gives a figure with no traces and a note saying so.

The common charts are here; a benchmark contributes its own through ``CHARTS``, and
:func:`chart_list` puts them all in one list that the app, the report and the CSV loop over.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from analysis import benchmarks
from analysis.benchmarks.base import Chart, Derived
from analysis.plot.figures import (
    SYMBOLS,
    axis,
    by_model,
    color,
    crowded_width,
    empty,
    figure,
    model_bar,
    wrap,
)
from analysis.stats.metrics import binary_metrics, ratio
from analysis.table.groups import group_indices, row_weights

BASE_COLUMNS = (
    "benchmark",
    "model",
    "task",
    "category",
    "scored",
    "correct",
    "gold",
    "raw_answer",
    "_binary",
    "_pred_code",
    "_gold_yes",
)
"""The columns of the item table (and of :func:`analysis.query.prepare`) the common charts read."""


def derived_columns() -> dict[str, Derived]:
    """Every registered benchmark's derived columns (the first declaration of a name wins)."""
    out: dict[str, Derived] = {}
    for bench in benchmarks.REGISTRY.values():
        for name, spec in bench.DERIVED.items():
            out.setdefault(name, spec)
    return out


def chart_columns() -> tuple[str, ...]:
    """The columns the charts read: the common ones and every benchmark's derived ones.

    The app slices only these for each view.
    """
    return BASE_COLUMNS + tuple(derived_columns())


def derive_columns(table: pd.DataFrame) -> pd.DataFrame:
    """Add, once, the columns each benchmark derives for its charts (``DERIVED``, ``derive``).

    Rows of other benchmarks get each column's fill value.
    """
    out = table
    for name, bench in benchmarks.REGISTRY.items():
        if not bench.DERIVED:
            continue
        rows = np.flatnonzero((out["benchmark"] == name).to_numpy(dtype=bool))
        values = bench.derive(out, rows) if rows.size else {}
        for column, spec in bench.DERIVED.items():
            fill = spec.fill
            as_object = fill is None or isinstance(fill, str)  # text and lists: one object per row
            column_values = np.full(len(out), fill, dtype=object if as_object else None)
            if rows.size:
                derived = values[column]
                if fill is None:  # object column: place each value as it is (lists stay lists)
                    for k, at in enumerate(rows.tolist()):
                        column_values[at] = derived[k]
                else:
                    column_values[rows] = derived
            # text as the item table's text dtype, so a cached table reads back the same
            out[column] = pd.array(column_values, dtype="string") if isinstance(fill, str) else column_values
    return out


def group_column(table: pd.DataFrame) -> str:
    """The grouping a chart uses: category when there are several, else task, else benchmark."""
    for column in ("category", "task"):
        values = table[column]
        if values[values != ""].nunique() > 1:
            return column
    return "benchmark"


def _groups(table: pd.DataFrame, by: str) -> list[tuple[str, str, npt.NDArray[np.intp]]]:
    """(model, group value, row positions) for each combination, sorted."""
    return [(k[0], k[1], idx) for k, idx in group_indices(table, ["model", by]).items()]


def _label(group: str, by: str) -> str:
    return group if group else f"(no {by})"


def yes_bias_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per model and group, over scored yes/no rows: gold-yes ratio, predicted-yes ratio, PA, HR."""
    rows = table[table["_binary"].to_numpy(dtype=bool) & table["scored"].to_numpy(dtype=bool)]
    by = group_column(rows)
    pred = rows["_pred_code"].to_numpy()
    gold = rows["_gold_yes"].to_numpy(dtype=bool)
    correct = rows["correct"].fillna(False).to_numpy(dtype=bool)
    w = row_weights(rows)
    records = []
    for model, group, idx in _groups(rows, by):
        m = binary_metrics(pred[idx], gold[idx], correct[idx], weights=w[idx])
        records.append(
            {
                "model": model,
                "group": _label(group, by),
                "by": by,
                "n": m["n"],
                "gold_yes_ratio": ratio(int(w[idx][gold[idx]].sum()), int(w[idx].sum())),
                "yes_ratio": m["yes_ratio"],
                "pa": m["pa"],
                "hr": m["hr"],
                "accuracy": m["accuracy"],
            }
        )
    columns = ["model", "group", "by", "n", "gold_yes_ratio", "yes_ratio", "pa", "hr", "accuracy"]
    return pd.DataFrame.from_records(records, columns=columns)


def yes_bias(table: pd.DataFrame) -> go.Figure:
    """Yes-bias: predicted-yes against gold-yes ratio (left), PA against HR (right), per model."""
    data = yes_bias_data(table)
    title = "Yes-bias"
    if data.empty:
        return empty(title, "No yes/no items in this view")
    # the bars share half the width with the PA/HR panel: six categories' labels overlapped at 1280 px
    width = crowded_width(data["group"].nunique(), room=42)
    data = data.assign(label=[wrap(g, width) for g in data["group"]])
    symbols = {g: SYMBOLS[i % len(SYMBOLS)] for i, g in enumerate(dict.fromkeys(data["group"]))}
    traces: list[dict[str, Any]] = []
    for index, model, part in by_model(data):
        traces.append(
            model_bar(
                model,
                index,
                part["label"].tolist(),
                part["yes_ratio"].tolist(),
                part[["n"]].to_numpy().tolist(),
                "%{x}<br>predicted yes %{y:.3f}<br>n %{customdata[0]}",
                panel=1,
                grouped=True,
            )
        )
        traces.append(
            {
                "type": "scatter",
                **axis(2),
                "x": part["pa"].tolist(),
                "y": part["hr"].tolist(),
                "mode": "markers",
                "text": part["group"].tolist(),
                "name": model,
                "legendgroup": model,
                "showlegend": False,
                "marker": {"color": color(index), "size": 11, "symbol": [symbols[g] for g in part["group"]]},
                "hovertemplate": f"{model}<br>%{{text}}<br>PA %{{x:.3f}}<br>HR %{{y:.3f}}<extra></extra>",
            }
        )
    gold = data.drop_duplicates("group")
    traces.append(
        {
            "type": "scatter",
            **axis(1),
            "x": gold["label"].tolist(),
            "y": gold["gold_yes_ratio"].tolist(),
            "mode": "markers",
            "name": "gold yes",
            "marker": {"symbol": "line-ew-open", "size": 28, "color": "black", "line": {"width": 3}},
        }
    )
    traces.append(
        {
            "type": "scatter",
            **axis(2),
            "x": [0, 1],
            "y": [1, 0],
            "mode": "lines",
            "showlegend": False,
            "line": {"dash": "dot", "color": "grey"},
            "hoverinfo": "skip",
        }
    )
    traces += [
        {
            "type": "scatter",
            **axis(2),
            "x": [None],
            "y": [None],
            "mode": "markers",
            "name": wrap(g, 40),
            "marker": {"color": "grey", "size": 9, "symbol": s},
        }
        for g, s in symbols.items()
    ]
    return figure(
        title,
        traces,
        ["Predicted yes vs gold yes", "PA (yes recall) vs HR (no recall)"],
        axes={
            "y": {"range": [0, 1.05], "title": {"text": "ratio"}},
            "x2": {"range": [0, 1.05], "title": {"text": "PA"}},
            "y2": {"range": [0, 1.1], "title": {"text": "HR"}},
        },
    )


def accuracy_data(table: pd.DataFrame) -> pd.DataFrame:
    """Accuracy of scored rows with a verdict, per model and group."""
    rows = table[table["scored"].to_numpy(dtype=bool) & table["correct"].notna().to_numpy(dtype=bool)]
    by = group_column(rows)
    correct = rows["correct"].to_numpy(dtype=bool)
    w = row_weights(rows)
    records = [
        {
            "model": m,
            "group": _label(g, by),
            "by": by,
            "n": int(w[idx].sum()),
            "accuracy": ratio(int(w[idx][correct[idx]].sum()), int(w[idx].sum())),
        }
        for m, g, idx in _groups(rows, by)
    ]
    return pd.DataFrame.from_records(records, columns=["model", "group", "by", "n", "accuracy"])


def accuracy_by_category(table: pd.DataFrame) -> go.Figure:
    """Accuracy per category (or task) and model, as grouped bars."""
    data = accuracy_data(table)
    by = str(data["by"].iloc[0]) if not data.empty else "category"
    # Rows, not the official unit: a row may be one clip of a question; the overview has the official metrics.
    title = f"Accuracy per row (clip, question or record) by {by}"
    if data.empty:
        return empty(title, "No scored items with a verdict in this view")
    traces = [
        model_bar(
            model,
            index,
            [wrap(g) for g in part["group"]],
            part["accuracy"].tolist(),
            part[["n"]].to_numpy().tolist(),
            "%{x}<br>accuracy %{y:.3f}<br>n %{customdata[0]}",
        )
        for index, model, part in by_model(data)
    ]
    return figure(title, traces, [""], axes={"y": {"range": [0, 1.05], "title": {"text": "accuracy"}}})


def common_charts() -> tuple[Chart, ...]:
    """The charts every benchmark's rows appear in: accuracy, and yes-bias (yes/no rows)."""
    return (
        Chart("accuracy", "Accuracy", accuracy_by_category, lambda t: {"accuracy": accuracy_data(t)}),
        Chart("yes-bias", "Yes-bias", yes_bias, lambda t: {"yes_bias": yes_bias_data(t)}),
    )


def chart_list() -> list[tuple[str | None, Chart]]:
    """Every chart, in the order the Charts tab and the report show them.

    The common ones, then each registered benchmark's own, each with the benchmark whose rows it
    draws (None: every row).
    """
    shown: list[tuple[str | None, Chart]] = [(None, c) for c in common_charts()]
    shown += [(name, c) for name, bench in benchmarks.REGISTRY.items() for c in bench.CHARTS]
    return shown


def rows_of(table: pd.DataFrame, benchmark: str | None) -> pd.DataFrame:
    """The rows a chart draws: all of them, or one benchmark's."""
    if benchmark is None:
        return table
    return table[(table["benchmark"] == benchmark).to_numpy(dtype=bool)]


def draw_all(table: pd.DataFrame) -> list[go.Figure]:
    """Every chart of :func:`chart_list` over ``table``, in order."""
    return [chart.draw(rows_of(table, name)) for name, chart in chart_list()]


def view_data(table: pd.DataFrame) -> pd.DataFrame:
    """The numbers behind every chart of a view, one frame with a ``chart`` column (for CSV)."""
    parts: dict[str, pd.DataFrame] = {}
    for name, chart in chart_list():
        parts.update(chart.numbers(rows_of(table, name)))
    frames = [part.assign(chart=name) for name, part in parts.items() if not part.empty]
    if not frames:
        return pd.DataFrame(columns=["chart"])
    out = pd.concat(frames, ignore_index=True)
    return out[["chart", *[c for c in out.columns if c != "chart"]]]
