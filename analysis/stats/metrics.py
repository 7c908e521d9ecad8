"""Metrics as small pure functions over whole columns.

Conventions: inputs are numpy arrays (or anything ``np.asarray`` takes); an undefined ratio is
``None`` unless the caller passes the official scorer's own convention as ``zero`` (some
official scorers count an undefined ratio as 0). Nothing here does I/O or keeps state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
Metric = float | int | None
MetricDict = dict[str, Metric]

YES = 1
NO = 0
UNPARSED = -1
"""Codes of a yes/no reading: 1 yes, 0 no, -1 neither."""


def ratio(numerator: float, denominator: float, zero: float | None = None) -> float | None:
    """``numerator / denominator`` as a float; ``zero`` (default None) when the denominator is 0."""
    if denominator == 0:
        return zero
    return float(numerator) / float(denominator)


def accuracy(correct: Any, zero: float | None = None) -> float | None:
    """Share of True in ``correct``."""
    arr = np.asarray(correct, dtype=bool)
    return ratio(int(arr.sum()), arr.size, zero)


def weighted_count(mask: Any, weights: Any) -> int:
    """How many rows ``mask`` holds: True entries, each counted ``weights`` times when given."""
    if weights is None:
        return int(np.count_nonzero(mask))
    return int(np.asarray(weights, dtype=np.int64)[np.asarray(mask, dtype=bool)].sum())


def binary_metrics(
    pred: Any, gold_yes: Any, correct: Any, zero: float | None = None, weights: Any = None
) -> MetricDict:
    """Yes/no metrics with positive class yes.

    ``pred`` holds reading codes (1 yes, 0 no, -1 unparsed), ``gold_yes`` whether the gold is yes,
    ``correct`` the verdict the scorer gave (which may differ from ``pred == gold`` where a scorer
    has quirks, as a substring rule does). An unparsed answer is wrong and neither yes nor no.

    Keys: accuracy, precision (TP / predicted yes), recall (TP / gold yes), f1, yes_ratio
    (predicted yes / n), pa (= recall), hr (TN / gold no), n, unparsed.

    ``weights``: how many rows each entry stands for (pre-grouped counts); one each when None.
    """
    p = np.asarray(pred, dtype=np.int8)
    g = np.asarray(gold_yes, dtype=bool)
    c = np.asarray(correct, dtype=bool)
    n = weighted_count(np.ones(p.size, dtype=bool), weights)
    pred_yes = p == YES
    tp = weighted_count(pred_yes & g, weights)
    tn = weighted_count((p == NO) & ~g, weights)
    n_pred_yes = weighted_count(pred_yes, weights)
    n_gold_yes = weighted_count(g, weights)
    prec = ratio(tp, n_pred_yes, zero)
    rec = ratio(tp, n_gold_yes, zero)
    return {
        "accuracy": ratio(weighted_count(c, weights), n, zero),
        "precision": prec,
        "recall": rec,
        "f1": f1(prec, rec, zero),
        "yes_ratio": ratio(n_pred_yes, n, zero),
        "pa": rec,
        "hr": ratio(tn, n - n_gold_yes, zero),
        "n": n,
        "unparsed": weighted_count(p == UNPARSED, weights),
    }


def binary_counts(pred: Any, gold_yes: Any, correct: Any) -> dict[str, BoolArray]:
    """Per-row 0/1 statistics whose sums give every :func:`binary_metrics` number."""
    p = np.asarray(pred, dtype=np.int8)
    g = np.asarray(gold_yes, dtype=bool)
    return {
        "n": np.ones(p.size, dtype=bool),
        "correct": np.asarray(correct, dtype=bool),
        "pred_yes": p == YES,
        "gold_yes": g,
        "tp": (p == YES) & g,
        "tn": (p == NO) & ~g,
        "unparsed": p == UNPARSED,
    }


def binary_metrics_of(totals: FloatArray) -> dict[str, FloatArray]:
    """:func:`binary_metrics` from summed :func:`binary_counts` (rows of ``totals``), NaN for None."""
    n, correct, pred_yes, gold_yes, tp, tn, unparsed = totals.T
    precision = ratios(tp, pred_yes)
    recall = ratios(tp, gold_yes)
    return {
        "accuracy": ratios(correct, n),
        "precision": precision,
        "recall": recall,
        "f1": f1s(precision, recall),
        "yes_ratio": ratios(pred_yes, n),
        "pa": recall,
        "hr": ratios(tn, n - gold_yes),
        "n": n,
        "unparsed": unparsed,
    }


def f1(precision: float | None, recall: float | None, zero: float | None = None) -> float | None:
    """Harmonic mean of precision and recall; ``zero`` when undefined or both are 0."""
    if precision is None or recall is None or precision + recall == 0:
        return zero
    return 2 * precision * recall / (precision + recall)


def mcc(pred_yes: Any, gold_yes: Any) -> float:
    """Matthews correlation of two boolean columns; 0 when undefined (a constant column)."""
    p = np.asarray(pred_yes, dtype=bool)
    g = np.asarray(gold_yes, dtype=bool)
    tp = float(np.count_nonzero(p & g))
    tn = float(np.count_nonzero(~p & ~g))
    fp = float(np.count_nonzero(p & ~g))
    fn = float(np.count_nonzero(~p & g))
    denom = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    if denom == 0:
        return 0.0
    return (tp * tn - fp * fn) / denom


def macro_mean(values: Any, zero: float = 0.0) -> float:
    """Plain mean of per-item values; ``zero`` for no items.

    The sum is ``math.fsum`` (correctly rounded, so independent of order and of added zeros): the
    same number whether items are summed one by one or first per cluster, as the bootstrap does.
    """
    arr = np.asarray(values, dtype=float)
    return math.fsum(arr.tolist()) / arr.size if arr.size else zero


def ratios(numerator: Any, denominator: Any, zero: float | None = None) -> FloatArray:
    """:func:`ratio` over arrays: NaN (or ``zero``) where the denominator is 0."""
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    return np.where(den == 0, np.nan if zero is None else zero, out)


def f1s(precision: FloatArray, recall: FloatArray, zero: float | None = None) -> FloatArray:
    """:func:`f1` over arrays (NaN stands for None, in and out)."""
    total = precision + recall
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 2 * precision * recall / total
    undefined = np.isnan(precision) | np.isnan(recall) | (total == 0)
    return np.where(undefined, np.nan if zero is None else zero, out)
