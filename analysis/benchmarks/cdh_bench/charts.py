"""CDH-Bench's chart: CF-Acc against CS-Acc per task and category, with CFAD and CCR beside.

The numbers are :func:`analysis.benchmarks.cdh_bench.metrics.counterfactual_metrics` over the
rows' verdicts (the function ``score`` uses), so a chart agrees with ``halluscope score`` on the
same rows. Rows are item rows or the catalog's pre-grouped counts (weights ``_n``); they carry the
columns :func:`analysis.benchmarks.cdh_bench.derive` adds (``_side``, ``_cs_error``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis.benchmarks.base import Chart
from analysis.benchmarks.cdh_bench.metrics import counterfactual_metrics
from analysis.plot.figures import axis, by_model, color, empty, figure
from analysis.table.groups import group_indices, row_weights

COLUMNS = ["model", "task", "category", "cf_acc", "cs_acc", "cfad", "ccr", "rpd", "n_cf", "n_cs"]


def cf_cs_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per model, task and category: CF-Acc, CS-Acc, CFAD, CCR (as the module scores them)."""
    rows = table[table["scored"].to_numpy(dtype=bool)]
    correct = rows["correct"].fillna(False).to_numpy(dtype=bool)
    cs_error = rows["_cs_error"].to_numpy(dtype=bool)
    side = rows["_side"].astype(str).to_numpy()
    w = row_weights(rows)
    records = []
    for (model, task, category), idx in group_indices(rows, ["model", "task", "category"]).items():
        cf = idx[side[idx] == "counterfactual"]
        cs = idx[side[idx] == "commonsense"]
        m = counterfactual_metrics(correct[cf], correct[cs], cs_error[cf], w[cf], w[cs])
        records.append({"model": model, "task": task, "category": category, **m})
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def cf_cs(table: pd.DataFrame) -> go.Figure:
    """CF-Acc against CS-Acc (points below the diagonal lose on counterfactuals), CFAD, CCR."""
    data = cf_cs_data(table)
    title = "Counterfactual vs commonsense (CDH-Bench)"
    if data.empty:
        return empty(title, "No CDH-Bench items in this view")
    short = _drop_common_last_word(data["category"].astype(str).tolist())
    data = data.assign(label=[f"{t} · {c}" for t, c in zip(data["task"], short, strict=True)])
    traces: list[dict[str, Any]] = []
    for index, model, part in by_model(data):
        custom = part[["cfad", "ccr", "n_cf", "n_cs"]].astype(float).to_numpy().tolist()
        traces.append({
            "type": "scatter", **axis(1), "x": part["cs_acc"].tolist(), "y": part["cf_acc"].tolist(),
            "mode": "markers", "name": model, "legendgroup": model, "text": part["label"].tolist(),
            "marker": {"color": color(index), "size": 10}, "customdata": custom,
            "hovertemplate": "%{text}<br>CS %{x:.3f} CF %{y:.3f}<br>CFAD %{customdata[0]:.3f}"
                             "<br>CCR %{customdata[1]:.3f}<br>n %{customdata[2]} / %{customdata[3]}",
        })  # fmt: skip
        # Horizontal bars: task and category names read along the axis instead of colliding.
        for panel, metric in ((2, "cfad"), (3, "ccr")):
            traces.append({
                "type": "bar", "orientation": "h", **axis(panel), "y": part["label"].tolist(),
                "x": part[metric].astype(float).tolist(), "name": model, "legendgroup": model,
                "showlegend": False, "marker": {"color": color(index)},
                "hovertemplate": f"%{{y}}<br>{metric.upper()} %{{x:.3f}}",
            })  # fmt: skip
    diagonal = {
        "mode": "lines",
        "showlegend": False,
        "hoverinfo": "skip",
        "line": {"dash": "dot", "color": "grey"},
    }
    traces.append({"type": "scatter", **axis(1), "x": [0, 1], "y": [0, 1], **diagonal})
    order = {"categoryorder": "array", "categoryarray": sorted(set(data["label"]), reverse=True)}
    return figure(
        title,
        traces,
        ["CF-Acc vs CS-Acc", "CFAD = CS − CF", "CCR (errors that are commonsense)"],
        widths=[0.3, 0.35, 0.35],
        gaps=[0.16, 0.04],
        axes={
            "x": {"range": [0, 1.05], "title": {"text": "CS-Acc"}},
            "y": {"range": [0, 1.05], "title": {"text": "CF-Acc"}},
            "y2": order,
            "y3": {**order, "showticklabels": False},
            "x3": {"range": [0, 1.05]},
        },
    )


def _drop_common_last_word(names: list[str]) -> list[str]:
    """Drop a last word every name shares ("Counting Anomalies", "Attribute Anomalies"): axis room."""
    last = {n.rsplit(" ", 1)[-1] for n in names}
    if len(last) == 1 and all(" " in n for n in names):
        return [n.rsplit(" ", 1)[0] for n in names]
    return names


CHARTS = (Chart("cf-cs", "Counterfactual vs commonsense", cf_cs, lambda t: {"cf_cs": cf_cs_data(t)}),)
"""The chart this benchmark contributes (the Charts tab, the report and the charts CSV)."""
