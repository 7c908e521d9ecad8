"""VidHalluc additive statistics per cluster, for intervals (:mod:`analysis.stats.intervals`).

Clusters: bqa and mcq, the clip pair (``pair_id``: a question is asked of both clips, and both
clips' questions share the look-alike pair); tsh, the video; sth, the video (one id each).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc.embedder import SentenceEmbedder
from analysis.stats.clusters import ClusterStats, FloatArray, MetricsFn, Scope, tally
from analysis.stats.metrics import ratios

ACCURACY = ("n", "correct")


def accuracy_of(zero: float | None) -> MetricsFn:
    """Accuracy and ``n`` from summed (n, correct); ``zero`` where n is 0 (None: NaN)."""

    def metrics(totals: FloatArray) -> dict[str, FloatArray]:
        n, correct = totals.T
        return {"accuracy": ratios(correct, n, zero), "n": n}

    return metrics


def _accuracy_stats(
    unit: str, clusters: np.ndarray, units: np.ndarray, correct: np.ndarray, zero: float | None
) -> ClusterStats:
    ok = np.asarray(correct, dtype=bool)
    columns = {"n": np.ones(ok.size, dtype=bool), "correct": ok}
    keys, values = tally(clusters, columns, [(None, np.ones(ok.size, dtype=bool))])
    verdicts: dict[tuple[Scope, str], pd.Series] = {(None, "accuracy"): pd.Series(ok, index=units)}
    return ClusterStats(unit, keys, ACCURACY, (None,), values, accuracy_of(zero), verdicts=verdicts)


def bqa_stats(frame: pd.DataFrame, parser: str) -> ClusterStats:
    """Questions (right iff every clip is) per clip pair."""
    scored = frame["scored"].to_numpy(dtype=bool)
    rows = frame[scored]
    _, correct = bqa.verdicts(rows, parser)
    keys = bqa.question_keys(rows).to_numpy(dtype=object)
    per_question = pd.DataFrame(
        {
            "key": keys,
            "pair": rows["pair_id"].astype(str).to_numpy(dtype=object),
            "ok": np.asarray(correct, dtype=bool),
        }
    )
    questions = per_question.groupby("key", sort=False).agg(pair=("pair", "first"), ok=("ok", "all"))
    return _accuracy_stats(
        "clip pair",
        questions["pair"].to_numpy(dtype=object),
        questions.index.to_numpy(dtype=object),
        questions["ok"].to_numpy(dtype=bool),
        None,
    )


def mcq_stats(frame: pd.DataFrame, parser: str) -> ClusterStats:
    """Clip questions per clip pair."""
    rows = frame[frame["scored"].to_numpy(dtype=bool)]
    _, correct = mcq.verdicts(rows, parser)
    return _accuracy_stats(
        "clip pair",
        rows["pair_id"].astype(str).to_numpy(dtype=object),
        rows["item_id"].to_numpy(dtype=object),
        np.asarray(correct, dtype=bool),
        None,
    )


def tsh_stats(frame: pd.DataFrame, parser: str) -> ClusterStats:
    """Entries per video (an empty file gives accuracy 0, the official convention)."""
    rows = frame[frame["scored"].to_numpy(dtype=bool)]
    _, correct = tsh.verdicts(rows, parser)
    return _accuracy_stats(
        "video",
        rows["media"].to_numpy(dtype=object),
        rows["item_id"].to_numpy(dtype=object),
        np.asarray(correct, dtype=bool),
        0.0,
    )


STH_STATS = ("n", "tp", "tn", "fp", "fn", "both_yes", "pair_score")


def sth_metrics(totals: FloatArray) -> dict[str, FloatArray]:
    """MCC, classification, description and STH score from summed confusion counts and side scores."""
    n, tp, tn, fp, fn, both, pair_score = totals.T
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.where(denom == 0, 0.0, (tp * tn - fp * fn) / denom)
        desc = np.where(both == 0, 0.0, pair_score / (2 * both))
    desc = np.where(np.isnan(pair_score), np.nan, desc)
    classification = ((corr + 1) / 2) ** 2
    # no item at all: MCC 0 (cli.md's convention), classification 0.25, description 0, score 0.15
    return {
        "mcc": corr,
        "classification_score": classification,
        "description_score": desc,
        "score": classification * 0.6 + desc * 0.4,
        "n": n,
    }


def sth_stats(frame: pd.DataFrame, parser: str, embedder: SentenceEmbedder | sth.Auto | None) -> ClusterStats:
    """Confusion counts and summed side scores per video."""
    p = sth.parts(frame, parser, embedder)
    pred, gold = p.pred_yes, p.gold_yes
    pair_score = p.pair_score if p.pair_score is not None else np.full(pred.size, math.nan)
    columns = {
        "n": np.ones(pred.size, dtype=bool),
        "tp": pred & gold,
        "tn": ~pred & ~gold,
        "fp": pred & ~gold,
        "fn": ~pred & gold,
        "both_yes": pred & gold,
        "pair_score": pair_score,
    }
    everything = [(None, np.ones(pred.size, dtype=bool))]
    keys, values = tally(p.rows["media"].to_numpy(dtype=object), columns, everything)
    return ClusterStats("video", keys, STH_STATS, (None,), values, sth_metrics)
