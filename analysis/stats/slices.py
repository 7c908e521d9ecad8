"""Is a slice's accuracy below the rest's? One test for clustered verdicts, and the FDR correction.

The method (``docs/failures.md`` says it in words):

- Verdicts are clustered (the questions on one clip, the two sides of an image pair), so a slice of
  ``n`` items is worth fewer than ``n`` independent ones. Each group's design effect is the ratio
  of its cluster-robust variance of the accuracy (the ratio estimator's, with the usual
  ``k / (k - 1)`` factor over ``k`` clusters) to the binomial variance, floored at 1 (Rao & Scott's
  first-order correction, 1981). A group of one cluster is worth one item.
- Counts are divided by the design effect and rounded (the effective sample), and the slice is
  tested against the rest with Fisher's exact one-sided test on those counts (hypergeometric lower
  tail: the slice holds at most that many right answers). Exact at every size, so small slices need
  no separate rule; discreteness and the floor make it conservative.
- Benjamini-Hochberg over every slice tested gives the ``q`` values.

Everything works on whole arrays: one call tests every slice of a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[Any]
"""Float arrays (NumPy's stubs type some float results as integer arrays, hence Any)."""


@dataclass(frozen=True)
class GroupSums:
    """Per group (a slice, or its rest): what the clustered variance needs, as arrays."""

    n: Floats
    """Items."""
    y: Floats
    """Items answered right."""
    k: Floats
    """Clusters with at least one item in the group."""
    syy: Floats
    """Sum over clusters of (right answers in the cluster)²."""
    syn: Floats
    """Sum over clusters of right answers times items."""
    snn: Floats
    """Sum over clusters of items²."""

    @classmethod
    def one_group(cls, right: Floats, items: Floats) -> GroupSums:
        """The sums of one group from its clusters' counts (right answers, items), one per cluster."""
        y, n = np.asarray(right, dtype=float), np.asarray(items, dtype=float)
        one = np.ones(1)
        return cls(
            one * n.sum(),
            one * y.sum(),
            one * n.size,
            one * (y * y).sum(),
            one * (y * n).sum(),
            one * (n * n).sum(),
        )


def design_effect(g: GroupSums, rho: float = 0.0) -> Floats:
    """Cluster-robust over binomial variance of the group's accuracy, at least 1 (Rao-Scott).

    The group's own ratio is noisy where it has few clusters, and an estimate that comes out low
    makes the test too bold; so it is never taken below Kish's ``1 + (m - 1) rho``, with ``m`` the
    group's size-weighted mean cluster size and ``rho`` the intra-cluster correlation estimated
    once from all of a model's items (:func:`intra_cluster_correlation`). A group within one
    cluster gets ``n`` (it is worth one item); a group whose verdicts are all alike gets 1.
    """
    n = np.maximum(g.n, 1.0)
    p = g.y / n
    spread = np.maximum(g.syy - 2 * p * g.syn + p * p * g.snn, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        robust = g.k / (g.k - 1) * spread / (n * n)
        binomial = p * (1 - p) / n
        ratio = robust / binomial
    kish = 1.0 + (g.snn / n - 1.0) * max(rho, 0.0)
    deff = np.where(binomial > 0, np.maximum(np.maximum(ratio, kish), 1.0), 1.0)
    return np.where(g.k <= 1, np.maximum(g.n, 1.0), deff)


def intra_cluster_correlation(g: GroupSums) -> float:
    """Rho from the design effect of one large group (all of a model's items): ``(deff - 1) / (m - 1)``."""
    if g.n.size != 1 or g.n[0] <= 0:
        return 0.0
    m = float(g.snn[0] / g.n[0])
    if m <= 1.0:
        return 0.0
    return float(max((design_effect(g)[0] - 1.0) / (m - 1.0), 0.0))


def effective(n: Floats, y: Floats, deff: Floats) -> tuple[Floats, Floats]:
    """Counts divided by the design effect and rounded: (items, right answers)."""
    n_eff = np.rint(n / deff)
    y_eff = np.minimum(np.rint(y / deff), n_eff)
    return n_eff, y_eff


def lower_tail_log_p(n_a: Floats, y_a: Floats, n_b: Floats, y_b: Floats) -> Floats:
    """Log p of Fisher's exact one-sided test that group a's accuracy is below group b's.

    Logarithms keep the order of very small p values, which underflow as floats.
    """
    from scipy.stats import hypergeom  # here, not at the top: scipy.stats is a second of the app's start

    total = n_a + n_b
    right = y_a + y_b
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = hypergeom.logcdf(y_a, total, right, n_a)
    log_p = np.where((n_a <= 0) | (n_b <= 0), 0.0, np.asarray(log_p, dtype=float))
    out: Floats = np.minimum(np.nan_to_num(log_p, nan=0.0), 0.0)
    return out


def below_rest_log_p(slice_: GroupSums, rest: GroupSums, rho: float = 0.0) -> Floats:
    """Log p that each slice's accuracy is below its rest's, both groups clustered (see above)."""
    n_a, y_a = effective(slice_.n, slice_.y, design_effect(slice_, rho))
    n_b, y_b = effective(rest.n, rest.y, design_effect(rest, rho))
    return lower_tail_log_p(n_a, y_a, n_b, y_b)


def benjamini_hochberg(p: Floats) -> Floats:
    """Benjamini-Hochberg adjusted p values (q), in the given order."""
    m = p.size
    if m == 0:
        return p.astype(float)
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum(np.minimum.accumulate(ranked[::-1])[::-1], 1.0)
    q: Floats = np.empty(m, dtype=float)
    q[order] = q_sorted
    return q
