"""CDH-Bench's own metrics: CF-Acc, CS-Acc, CFAD, CCR and RPD, as pure functions over verdict columns.

Used by :func:`analysis.benchmarks.cdh_bench.score`, its cluster statistics (the bootstrap) and its
chart, so the three agree on the same rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analysis.stats.metrics import BoolArray, FloatArray, MetricDict, ratio, ratios, weighted_count


def counterfactual_metrics(
    cf_correct: Any,
    cs_correct: Any,
    cf_commonsense_error: Any,
    cf_weights: Any = None,
    cs_weights: Any = None,
) -> MetricDict:
    """CDH-Bench metrics of one task (or task and category).

    ``cf_correct`` / ``cs_correct``: verdicts on counterfactual / commonsense records;
    ``cf_commonsense_error``: per counterfactual record, wrong *and* equal to the commonsense gold.
    CFAD = CS-Acc - CF-Acc (signed); CCR = commonsense errors / counterfactual errors;
    RPD = CFAD / CS-Acc. Each is None when undefined. ``cf_weights`` / ``cs_weights``: rows each
    entry stands for (pre-grouped counts); one each when None.
    """
    cf = np.asarray(cf_correct, dtype=bool)
    cs = np.asarray(cs_correct, dtype=bool)
    cse = np.asarray(cf_commonsense_error, dtype=bool)
    n_cf = weighted_count(np.ones(cf.size, dtype=bool), cf_weights)
    n_cs = weighted_count(np.ones(cs.size, dtype=bool), cs_weights)
    cf_acc = ratio(weighted_count(cf, cf_weights), n_cf)
    cs_acc = ratio(weighted_count(cs, cs_weights), n_cs)
    cfad = None if cf_acc is None or cs_acc is None else cs_acc - cf_acc
    errors = n_cf - weighted_count(cf, cf_weights)
    ccr = ratio(weighted_count(cse & ~cf, cf_weights), errors)
    rpd = None if cfad is None or not cs_acc else cfad / cs_acc
    return {
        "cf_acc": cf_acc,
        "cs_acc": cs_acc,
        "cfad": cfad,
        "ccr": ccr,
        "rpd": rpd,
        "n_cf": n_cf,
        "n_cs": n_cs,
    }


def counterfactual_counts(
    is_cf: Any, is_cs: Any, correct: Any, commonsense_error: Any
) -> dict[str, BoolArray]:
    """Per-row 0/1 statistics whose sums give every :func:`counterfactual_metrics` number."""
    cf = np.asarray(is_cf, dtype=bool)
    cs = np.asarray(is_cs, dtype=bool)
    ok = np.asarray(correct, dtype=bool)
    cse = np.asarray(commonsense_error, dtype=bool)
    return {
        "n_cf": cf,
        "n_cs": cs,
        "cf_correct": cf & ok,
        "cs_correct": cs & ok,
        "cf_commonsense_error": cf & cse & ~ok,
    }


def counterfactual_metrics_of(totals: FloatArray) -> dict[str, FloatArray]:
    """:func:`counterfactual_metrics` from summed :func:`counterfactual_counts`, NaN for None."""
    n_cf, n_cs, cf_correct, cs_correct, cse = totals.T
    cf_acc = ratios(cf_correct, n_cf)
    cs_acc = ratios(cs_correct, n_cs)
    cfad = cs_acc - cf_acc
    with np.errstate(divide="ignore", invalid="ignore"):
        rpd = np.where((cs_acc == 0) | np.isnan(cs_acc), np.nan, cfad / cs_acc)
    return {
        "cf_acc": cf_acc,
        "cs_acc": cs_acc,
        "cfad": cfad,
        "ccr": ratios(cse, n_cf - cf_correct),
        "rpd": rpd,
        "n_cf": n_cf,
        "n_cs": n_cs,
    }
