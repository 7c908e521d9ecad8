"""Additive statistics per cluster: what a benchmark hands the bootstrap.

A benchmark's metrics are all functions of a few sums over its scored items (counts such as TP
and FP, sums of per-item F1...). :class:`ClusterStats` holds those sums per *cluster* (the unit the
benchmark's items hang together by: a video, a clip pair, a caption), for the whole report and for
each group of it, plus the pure function from summed statistics to metrics. Summing every cluster
gives exactly the numbers of the benchmark's ``score``; summing a resample of clusters gives one
bootstrap replicate (:mod:`analysis.stats.intervals`). Nothing here knows a benchmark.

Exactness: counts are integers, so any order of summing gives the same total. Float statistics
(per-caption F1, STH side scores) are summed with ``math.fsum``, correctly rounded, as ``score``
sums them; that is exact when a cluster holds one item with such a statistic, as a caption and an
STH video do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.stats.metrics import MetricDict

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Scope = tuple[str, str] | None
"""Where a metric sits in a score report: None for ``overall``, else (group, key)."""
MetricsFn = Callable[[FloatArray], dict[str, FloatArray]]
"""Summed statistics ``(m, k)`` -> each metric ``(m,)``; NaN where the report has null."""

COUNT_KEYS = frozenset({"n", "n_cf", "n_cs", "unparsed", "hits", "n_tokens"})
"""Report keys that are counts (``cli.md``): integers in a report, no interval of their own."""


@dataclass(frozen=True)
class ClusterStats:
    """One model's additive statistics, one row per cluster, one block of columns per scope."""

    unit: str
    """What a cluster is, for people (``"video"``, ``"clip pair"``)."""
    keys: npt.NDArray[np.object_]
    """Cluster keys, the same for every model's answers to the same items."""
    names: tuple[str, ...]
    """The ``k`` statistics of one scope, in column order."""
    scopes: tuple[Scope, ...]
    values: FloatArray
    """``(len(keys), len(scopes) * k)``: the statistics of scope ``s`` are columns ``s*k:(s+1)*k``."""
    metrics: MetricsFn
    groups: tuple[str, ...] = ()
    """The report's group names, including any that hold no key (as ``score`` reports them)."""
    verdicts: Mapping[tuple[Scope, str], pd.Series] = field(default_factory=dict)
    """Per (scope, metric) where the metric is an accuracy over units: a boolean Series of the
    verdicts indexed by unit key (for McNemar's test between two models)."""

    def block(self, scope: Scope) -> FloatArray:
        """The statistics of one scope, ``(n_clusters, k)``."""
        s = self.scopes.index(scope)
        k = len(self.names)
        return self.values[:, s * k : (s + 1) * k]


def tally(
    keys: Sequence[Any] | npt.NDArray[Any] | pd.Series,
    columns: Mapping[str, Any],
    scopes: Sequence[tuple[Scope, Any]],
) -> tuple[npt.NDArray[np.object_], FloatArray]:
    """Sum per-row statistics per cluster for every scope.

    ``keys`` gives each row's cluster; ``columns`` each statistic per row; ``scopes`` each scope
    with its row mask. Returns the cluster keys (first-appearance order) and the values matrix.
    """
    codes, uniques = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    n_clusters = len(uniques)
    stats = [np.asarray(v, dtype=float) for v in columns.values()]
    blocks: list[FloatArray] = []
    for _, mask in scopes:
        rows = np.asarray(mask, dtype=bool)
        sub = codes[rows]
        for stat in stats:
            blocks.append(np.bincount(sub, weights=stat[rows], minlength=n_clusters).astype(np.float64))
    values = np.stack(blocks, axis=1) if blocks else np.zeros((n_clusters, 0))
    return np.asarray(uniques, dtype=object), values


def totals(values: FloatArray) -> FloatArray:
    """Column sums, each correctly rounded (``math.fsum``): the sum no order of items changes."""
    return np.array([math.fsum(values[:, j].tolist()) for j in range(values.shape[1])], dtype=float)


def as_report_values(metrics: Mapping[str, FloatArray], index: int = 0) -> MetricDict:
    """One row of vectorised metrics as a report's dict: NaN -> None, counts -> int."""
    out: MetricDict = {}
    for name, arr in metrics.items():
        value = float(arr[index])
        if math.isnan(value):
            out[name] = None
        elif name in COUNT_KEYS:
            out[name] = int(value)
        else:
            out[name] = value
    return out


def point(stats: ClusterStats) -> dict[str, Any]:
    """The report's ``overall`` and ``groups`` computed from the summed statistics."""
    summed = totals(stats.values)
    k = len(stats.names)
    overall: MetricDict = {}
    groups: dict[str, dict[str, MetricDict]] = {name: {} for name in stats.groups}
    for s, scope in enumerate(stats.scopes):
        values = as_report_values(stats.metrics(summed[None, s * k : (s + 1) * k]))
        if scope is None:
            overall = values
        else:
            groups.setdefault(scope[0], {})[scope[1]] = values
    return {"overall": overall, "groups": groups}


def scope_verdicts(
    metric: str, correct: Any, units: Any, scopes: Sequence[tuple[Scope, Any]]
) -> dict[tuple[Scope, str], pd.Series]:
    """The verdicts of ``metric`` per scope: ``correct`` by unit, restricted to each scope's mask."""
    ok = np.asarray(correct, dtype=bool)
    ids = np.asarray(units, dtype=object)
    out = {}
    for scope, mask in scopes:
        rows = np.asarray(mask, dtype=bool)
        out[(scope, metric)] = pd.Series(ok[rows], index=ids[rows])
    return out


def masks(labels: Any, names: Sequence[str], group: str) -> list[tuple[Scope, BoolArray]]:
    """One scope per name of ``names``: rows whose ``labels`` equal it, in group ``group``."""
    arr = np.asarray(labels, dtype=object)
    return [((group, name), arr == name) for name in names]
