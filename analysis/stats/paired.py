"""Is model A better than model B on the same items? Paired tests with a correction for many pairs.

- Paired cluster bootstrap of the difference: both models' statistics are resampled with the
  *same* draw of clusters (the union of both models' clusters; a cluster a model did not answer
  adds nothing to its sums), so the items' shared difficulty cancels out. The interval is the
  percentile interval of ``metric(A) - metric(B)``; the two-sided p value is
  ``2 * min(P(d <= 0), P(d >= 0))`` over replicates, with the usual +1 correction.
- Exact McNemar for metrics that are accuracies over units (``ClusterStats.verdicts``): the units
  both models answered, ``b`` = A right and B wrong, ``c`` = A wrong and B right, two-sided
  ``scipy.stats.binomtest(b, b + c, 0.5)``. Where it applies, its p value is the test's.
- Holm's step-down correction over every pair of models compared on one metric.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.stats.clusters import ClusterStats, FloatArray, Scope, point
from analysis.stats.intervals import LEVEL, N_BOOT, SEED, Interval, percentile, replicate_totals


@dataclass(frozen=True)
class PairTest:
    """One comparison of two models on one metric."""

    a: str
    b: str
    metric: str
    difference: float | None
    """``metric(a) - metric(b)``, from the numbers ``score`` gives."""
    interval: Interval
    """Paired bootstrap percentile interval of the difference."""
    test: str
    """``mcnemar`` (exact, on the units both answered) or ``bootstrap``."""
    p: float | None
    p_holm: float | None
    """``p`` after Holm's correction over every pair compared together."""
    significant: bool
    discordant: tuple[int, int] | None = None
    """McNemar's (a right and b wrong, a wrong and b right)."""


def aligned(models: Sequence[ClusterStats], scope: Scope) -> tuple[FloatArray, int]:
    """The models' statistics of ``scope`` side by side over the union of their clusters."""
    order = pd.Index(pd.unique(np.concatenate([s.keys for s in models])) if models else [])
    k = len(models[0].names) if models else 0
    joint = np.zeros((len(order), k * len(models)))
    for i, stats in enumerate(models):
        rows = order.get_indexer(pd.Index(stats.keys))
        joint[rows, i * k : (i + 1) * k] = stats.block(scope)
    return joint, k


def mcnemar(a: pd.Series, b: pd.Series) -> tuple[float, tuple[int, int]]:
    """Exact two-sided McNemar p value on the units both verdict Series hold."""
    both = a.index.intersection(b.index)
    va = a.loc[both].to_numpy(dtype=bool)
    vb = b.loc[both].to_numpy(dtype=bool)
    right_wrong = int(np.count_nonzero(va & ~vb))
    wrong_right = int(np.count_nonzero(~va & vb))
    n = right_wrong + wrong_right
    if n == 0:
        return 1.0, (right_wrong, wrong_right)
    from scipy.stats import binomtest  # here, not at the top: scipy.stats is a second of the app's start

    p = float(binomtest(right_wrong, n, 0.5).pvalue)
    return p, (right_wrong, wrong_right)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p values, in the given order (None stays None and is not counted)."""
    known = [(p, i) for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    m = len(known)
    for rank, (p, i) in enumerate(sorted(known)):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def compare_models(
    stats: Mapping[str, ClusterStats],
    metric: str,
    scope: Scope = None,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    level: float = LEVEL,
) -> list[PairTest]:
    """Every pair of models on ``metric`` of ``scope``, tested and Holm-corrected together."""
    names = list(stats)
    models = [stats[n] for n in names]
    if len(models) < 2:
        return []
    joint, k = aligned(models, scope)
    totals = replicate_totals(joint, n_boot, seed, block=k)
    reps = [_metric_of(models[i], totals[:, i * k : (i + 1) * k], metric) for i in range(len(models))]
    points = [_point(s, scope, metric) for s in models]
    raw: list[tuple[int, int, float | None, Interval, str, float | None, tuple[int, int] | None]] = []
    for i, j in itertools.combinations(range(len(models)), 2):
        pi, pj = points[i], points[j]
        diff = None if pi is None or pj is None else pi - pj
        d = reps[i] - reps[j]
        interval = None if diff is None else percentile(d, level)
        test, p, discordant = "bootstrap", _bootstrap_p(d) if diff is not None else None, None
        va, vb = models[i].verdicts.get((scope, metric)), models[j].verdicts.get((scope, metric))
        if va is not None and vb is not None:
            test = "mcnemar"
            p, discordant = mcnemar(va, vb)
        raw.append((i, j, diff, interval, test, p, discordant))
    adjusted = holm([r[5] for r in raw])
    alpha = 1 - level
    return [
        PairTest(
            names[i],
            names[j],
            metric,
            diff,
            interval,
            test,
            p,
            p_adj,
            p_adj is not None and p_adj < alpha,
            discordant,
        )
        for (i, j, diff, interval, test, p, discordant), p_adj in zip(raw, adjusted, strict=True)
    ]


def _metric_of(stats: ClusterStats, block: FloatArray, metric: str) -> FloatArray:
    values = stats.metrics(block)[metric]
    empty = ~np.any(block != 0, axis=1)
    return np.where(empty, np.nan, values)


def _point(stats: ClusterStats, scope: Scope, metric: str) -> float | None:
    report = point(stats)
    values = report["overall"] if scope is None else report["groups"].get(scope[0], {}).get(scope[1], {})
    value = values.get(metric)
    return None if value is None else float(value)


def _bootstrap_p(d: FloatArray) -> float | None:
    kept = d[~np.isnan(d)]
    if kept.size == 0:
        return None
    below = (1 + np.count_nonzero(kept <= 0)) / (kept.size + 1)
    above = (1 + np.count_nonzero(kept >= 0)) / (kept.size + 1)
    return float(min(1.0, 2 * min(below, above)))
