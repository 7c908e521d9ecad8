"""Charts as pure functions: an item table (already filtered) in, a plotly Figure out.

Each chart has a data function (``*_data``: table -> small DataFrame, the numbers) and a figure
function drawing it. The numbers come from the functions the benchmark modules' ``score`` uses
(:mod:`analysis.stats.metrics`; DetailVerifyBench's own comparison), on the same columns, so a chart
agrees with ``halluscope score`` on the same rows. Tables carry the derived columns of
:func:`analysis.query.views.prepare` (``_pred_code``, ``_gold_yes``, ``_binary``) and those of
:func:`derive_columns` (``_cs_error``, ``_token_f1``, ``_labels``), both added once at load time.
An empty input gives a figure with no traces and a note saying so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from analysis import benchmarks
from analysis.benchmarks.base import ChartKind
from analysis.plot.figures import SYMBOLS, axis, color, empty, figure, model_bar, wrap
from analysis.query.views import group_indices
from analysis.stats.metrics import binary_metrics, counterfactual_metrics, macro_mean, ratio

BASE_COLUMNS = (
    "benchmark",
    "model",
    "task",
    "category",
    "side",
    "scored",
    "correct",
    "gold",
    "raw_answer",
    "_binary",
    "_pred_code",
    "_gold_yes",
)
CHART_COLUMNS = BASE_COLUMNS + tuple(
    dict.fromkeys(c for b in benchmarks.REGISTRY.values() for c in b.DERIVED)
)
"""The columns the charts read (the app slices only these for each view): the common ones and
every benchmark's derived ones."""


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
        for column, fill in bench.DERIVED.items():
            column_values = np.full(len(out), fill, dtype=object if fill is None else None)
            if rows.size:
                derived = values[column]
                if fill is None:  # object column: place each value as it is (lists stay lists)
                    for k, at in enumerate(rows.tolist()):
                        column_values[at] = derived[k]
                else:
                    column_values[rows] = derived
            out[column] = column_values
    return out


def with_chart(table: pd.DataFrame, kind: ChartKind) -> npt.NDArray[np.bool_]:
    """Rows of the benchmarks that have the chart ``kind``."""
    names = [n for n, b in benchmarks.REGISTRY.items() if kind in b.CHARTS]
    return table["benchmark"].isin(names).to_numpy(dtype=bool)


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


def _models(data: pd.DataFrame) -> list[tuple[int, str, pd.DataFrame]]:
    return [(i, str(m), part) for i, (m, part) in enumerate(data.groupby("model", sort=True))]


def weights(table: pd.DataFrame) -> npt.NDArray[np.int64]:
    """How many rows each row of ``table`` stands for: its ``_n`` when pre-grouped, else 1.

    Every data function takes either item rows or the catalog's pre-grouped counts
    (:class:`analysis.charts.cells.ChartCells`: one row per distinct combination of what the
    charts read, with ``_n`` rows and ``_f1_sum``, the sum of their token F1).
    """
    if "_n" in table:
        return table["_n"].to_numpy(dtype=np.int64)
    return np.ones(len(table), dtype=np.int64)


def yes_bias_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per model and group, over scored yes/no rows: gold-yes ratio, predicted-yes ratio, PA, HR."""
    rows = table[table["_binary"].to_numpy(dtype=bool) & table["scored"].to_numpy(dtype=bool)]
    by = group_column(rows)
    pred = rows["_pred_code"].to_numpy()
    gold = rows["_gold_yes"].to_numpy(dtype=bool)
    correct = rows["correct"].fillna(False).to_numpy(dtype=bool)
    w = weights(rows)
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
    data = data.assign(label=[wrap(g) for g in data["group"]])
    symbols = {g: SYMBOLS[i % len(SYMBOLS)] for i, g in enumerate(dict.fromkeys(data["group"]))}
    traces: list[dict[str, Any]] = []
    for index, model, part in _models(data):
        traces.append(
            model_bar(model, index, part["label"].tolist(), part["yes_ratio"].tolist(),
                      part[["n"]].to_numpy().tolist(), "%{x}<br>predicted yes %{y:.3f}<br>n %{customdata[0]}",
                      panel=1, grouped=True)
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


def cf_cs_data(table: pd.DataFrame) -> pd.DataFrame:
    """CDH-Bench per model, task and category: CF-Acc, CS-Acc, CFAD, CCR (as the module scores them)."""
    mask = with_chart(table, "counterfactual") & table["scored"].to_numpy(dtype=bool)
    rows = table[mask]
    correct = rows["correct"].fillna(False).to_numpy(dtype=bool)
    cs_error = rows["_cs_error"].to_numpy(dtype=bool)
    side = rows["side"].astype(str).to_numpy()
    w = weights(rows)
    records = []
    for (model, task, category), idx in group_indices(rows, ["model", "task", "category"]).items():
        cf = idx[side[idx] == "counterfactual"]
        cs = idx[side[idx] == "commonsense"]
        m = counterfactual_metrics(correct[cf], correct[cs], cs_error[cf], w[cf], w[cs])
        records.append({"model": model, "task": task, "category": category, **m})
    columns = ["model", "task", "category", "cf_acc", "cs_acc", "cfad", "ccr", "rpd", "n_cf", "n_cs"]
    return pd.DataFrame.from_records(records, columns=columns)


def cf_cs(table: pd.DataFrame) -> go.Figure:
    """CDH-Bench: CF-Acc against CS-Acc (points below the diagonal lose on counterfactuals), CFAD, CCR."""
    data = cf_cs_data(table)
    title = "Counterfactual vs commonsense (CDH-Bench)"
    if data.empty:
        return empty(title, "No CDH-Bench items in this view")
    short = _drop_common_last_word(data["category"].astype(str).tolist())
    data = data.assign(label=[f"{t} · {c}" for t, c in zip(data["task"], short, strict=True)])
    traces: list[dict[str, Any]] = []
    for index, model, part in _models(data):
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


def accuracy_data(table: pd.DataFrame) -> pd.DataFrame:
    """Accuracy of scored rows with a verdict, per model and group."""
    rows = table[table["scored"].to_numpy(dtype=bool) & table["correct"].notna().to_numpy(dtype=bool)]
    by = group_column(rows)
    correct = rows["correct"].to_numpy(dtype=bool)
    w = weights(rows)
    records = [
        {"model": m, "group": _label(g, by), "by": by, "n": int(w[idx].sum()),
         "accuracy": ratio(int(w[idx][correct[idx]].sum()), int(w[idx].sum()))}
        for m, g, idx in _groups(rows, by)
    ]
    return pd.DataFrame.from_records(records, columns=["model", "group", "by", "n", "accuracy"])


def accuracy_by_category(table: pd.DataFrame) -> go.Figure:
    """Accuracy per category (or task) and model, as grouped bars."""
    data = accuracy_data(table)
    by = str(data["by"].iloc[0]) if not data.empty else "category"
    # Rows, not the official unit: a VidHalluc bqa row is one clip; the overview has the official metrics.
    title = f"Accuracy per row (clip, question or record) by {by}"
    if data.empty:
        return empty(title, "No scored items with a verdict in this view")
    traces = [
        model_bar(model, index, [wrap(g) for g in part["group"]], part["accuracy"].tolist(),
                  part[["n"]].to_numpy().tolist(), "%{x}<br>accuracy %{y:.3f}<br>n %{customdata[0]}")
        for index, model, part in _models(data)
    ]
    return figure(title, traces, [""], axes={"y": {"range": [0, 1.05], "title": {"text": "accuracy"}}})


def dvb_data(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """DetailVerifyBench per model: token F1 per domain, and token recall per label type.

    Token F1 per domain is the macro mean of the official per-item F1 (``_token_f1``), as the
    benchmark's ``score`` computes it; recall per label type comes from the benchmark's
    ``label_recall`` on the rows that carry gold labels (none unless the run was loaded with its
    gold file).
    """
    mask = with_chart(table, "spans") & table["scored"].to_numpy(dtype=bool)
    rows = table[mask]
    domains = [
        {"model": m, "domain": d, "n": n, "token_f1": f1}
        for m, d, idx in _groups(rows, "category")
        for n, f1 in [_macro_f1(rows, idx)]
    ]
    labels: list[dict[str, Any]] = []
    labelled = rows[rows["_labels"].notna().to_numpy(dtype=bool)]
    for (name, model), idx in group_indices(labelled, ["benchmark", "model"]).items():
        part = labelled.iloc[idx]
        recall = benchmarks.get(name).label_recall(
            part["gold"].tolist(), part["raw_answer"].fillna("").tolist(), part["_labels"].tolist()
        )
        labels.extend(
            {
                "model": model,
                "label": k,
                "hits": m["hits"],
                "gold_tokens": m["n_tokens"],
                "recall": m["token_recall"],
            }
            for k, m in recall.items()
        )
    return (
        pd.DataFrame.from_records(domains, columns=["model", "domain", "n", "token_f1"]),
        pd.DataFrame.from_records(labels, columns=["model", "label", "hits", "gold_tokens", "recall"]),
    )


def _macro_f1(rows: pd.DataFrame, idx: npt.NDArray[np.intp]) -> tuple[int, float]:
    """Rows and macro-mean token F1 of ``rows[idx]`` (item rows, or pre-grouped sums of F1)."""
    if "_n" not in rows:
        return int(idx.size), macro_mean(rows["_token_f1"].to_numpy(dtype=float)[idx])
    n = int(rows["_n"].to_numpy(dtype=np.int64)[idx].sum())
    total = float(rows["_f1_sum"].to_numpy(dtype=float)[idx].sum())
    return n, total / n if n else 0.0


def dvb_charts(table: pd.DataFrame) -> go.Figure:
    """DetailVerifyBench: token F1 per domain (left) and recall per label type (right), per model."""
    domains, per_label = dvb_data(table)
    title = "DetailVerifyBench spans"
    if domains.empty:
        return empty(title, "No scored DetailVerifyBench items in this view")
    traces: list[dict[str, Any]] = []
    for index, model, part in _models(domains):
        traces.append(
            model_bar(model, index, part["domain"].tolist(), part["token_f1"].tolist(),
                      part[["n"]].to_numpy().tolist(), "%{x}<br>F1 %{y:.3f}<br>n %{customdata[0]}",
                      panel=1, grouped=True)
        )
        mine = per_label[per_label["model"] == model]
        if not mine.empty:
            traces.append(
                model_bar(
                    model, index, [wrap(str(k).replace(" Hallucination", "")) for k in mine["label"]],
                    mine["recall"].tolist(), mine[["hits", "gold_tokens"]].to_numpy().tolist(),
                    "%{x}<br>recall %{y:.3f}<br>%{customdata[0]} / %{customdata[1]} tokens",
                    panel=2, grouped=True, legend=False,
                )
            )
    recall_title = "Token recall per label type (micro)"
    if per_label.empty:
        recall_title += "<br><sub>needs the gold labels: load the run with its real_test.jsonl</sub>"
    return figure(
        title,
        traces,
        ["Token F1 per domain (macro)", recall_title],
        widths=[0.4, 0.6],
        axes={"y": {"range": [0, 1.05]}, "y2": {"range": [0, 1.05]}},
    )


def view_data(table: pd.DataFrame) -> pd.DataFrame:
    """The numbers behind every chart of a view, one frame with a ``chart`` column (for CSV)."""
    domains, labels = dvb_data(table)
    parts = {"accuracy": accuracy_data(table), "yes_bias": yes_bias_data(table), "cf_cs": cf_cs_data(table),
             "dvb_domain": domains, "dvb_label": labels}
    frames = [part.assign(chart=name) for name, part in parts.items() if not part.empty]
    if not frames:
        return pd.DataFrame(columns=["chart"])
    out = pd.concat(frames, ignore_index=True)
    return out[["chart", *[c for c in out.columns if c != "chart"]]]
