"""DetailVerifyBench's chart: token F1 per domain, and token recall per gold label type, per model.

Token F1 per domain is the macro mean of the official per-item F1 (``_token_f1``, derived at load
time), as ``score`` computes it; recall per label type comes from
:func:`analysis.benchmarks.detailverifybench.scoring.label_type_recall` on the rows that carry gold
labels (``_labels``: none unless the run was loaded with its gold file). Rows are item rows or the
catalog's pre-grouped counts, whose ``_token_f1_sum`` is the sum of their rows' F1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from analysis.benchmarks.base import Chart
from analysis.benchmarks.detailverifybench.scoring import label_type_recall
from analysis.plot.figures import by_model, empty, figure, model_bar, wrap
from analysis.stats.metrics import macro_mean
from analysis.table.groups import group_indices


def dvb_data(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per model: token F1 per domain, and token recall per label type."""
    rows = table[table["scored"].to_numpy(dtype=bool)]
    domains = [
        {"model": m, "domain": d, "n": n, "token_f1": f1}
        for (m, d), idx in group_indices(rows, ["model", "category"]).items()
        for n, f1 in [_macro_f1(rows, idx)]
    ]
    labels: list[dict[str, Any]] = []
    labelled = rows[rows["_labels"].notna().to_numpy(dtype=bool)]
    for (model,), idx in group_indices(labelled, ["model"]).items():
        part = labelled.iloc[idx]
        recall = label_type_recall(
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
    total = float(rows["_token_f1_sum"].to_numpy(dtype=float)[idx].sum())
    return n, total / n if n else 0.0


def spans_chart(table: pd.DataFrame) -> go.Figure:
    """Token F1 per domain (left) and recall per label type (right), per model."""
    domains, per_label = dvb_data(table)
    title = "DetailVerifyBench spans"
    if domains.empty:
        return empty(title, "No scored DetailVerifyBench items in this view")
    traces: list[dict[str, Any]] = []
    for index, model, part in by_model(domains):
        traces.append(
            model_bar(
                model,
                index,
                part["domain"].tolist(),
                part["token_f1"].tolist(),
                part[["n"]].to_numpy().tolist(),
                "%{x}<br>F1 %{y:.3f}<br>n %{customdata[0]}",
                panel=1,
                grouped=True,
            )
        )
        mine = per_label[per_label["model"] == model]
        if not mine.empty:
            traces.append(
                model_bar(
                    model,
                    index,
                    # nine types share the wider panel: a word a line keeps the names apart
                    [wrap(str(k).replace(" Hallucination", ""), width=8) for k in mine["label"]],
                    mine["recall"].tolist(),
                    mine[["hits", "gold_tokens"]].to_numpy().tolist(),
                    "%{x}<br>recall %{y:.3f}<br>%{customdata[0]} / %{customdata[1]} tokens",
                    panel=2,
                    grouped=True,
                    legend=False,
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


def _numbers(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    domains, labels = dvb_data(table)
    return {"dvb_domain": domains, "dvb_label": labels}


CHARTS = (Chart("spans", "DetailVerifyBench", spans_chart, _numbers),)
"""The chart this benchmark contributes (the Charts tab, the report and the charts CSV)."""
