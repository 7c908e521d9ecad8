"""Cluster bootstrap intervals of every metric of a score report: seeded and vectorised.

A replicate draws as many clusters as there are, with replacement (a seeded
``numpy.random.Generator``), and sums their statistics (:mod:`analysis.stats.clusters`); the metrics
of those sums are the replicate's. All replicates at once are one matrix product of a weights
matrix (``n_boot x clusters``, how often each cluster was drawn) with the statistics. Clusters
whose statistics are identical are interchangeable, so they are merged first and the weights are
drawn over the distinct rows (a multinomial with their frequencies: the same distribution, far
fewer draws when a benchmark's statistics are small counts). Intervals are percentile intervals;
undefined replicates (a ratio over nothing) are left out of the quantiles.

The same data, ``n_boot`` and seed give the same numbers, in the CLI and in the app.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from threadpoolctl import threadpool_limits

from analysis.stats.clusters import COUNT_KEYS, ClusterStats, FloatArray, Scope
from analysis.stats.defaults import N_BOOT, SEED

__all__ = ["N_BOOT", "SEED"]  # also the defaults of everything that bootstraps through here
LEVEL = 0.95
METHOD = "percentile"
CHUNK_CELLS = 4_000_000
"""Weights drawn per pass (replicates x clusters): bounds memory at a few tens of MB."""

Interval = list[float] | None


@dataclass(frozen=True)
class Distinct:
    """Statistics rows merged: each distinct row once, and which distinct row each cluster has."""

    rows: FloatArray
    of_cluster: npt.NDArray[np.intp]
    counts: npt.NDArray[np.int64]


def distinct(values: FloatArray) -> Distinct:
    """Merge identical rows of ``values`` (no NaN; first-appearance order).

    Rows are told apart by a 64-bit hash of their bits (``pandas.util.hash_array`` per column), then
    checked against their representative: on a collision (never seen; about n^2 / 2^64) the exact
    ``numpy.unique`` is used instead.
    """
    n, m = values.shape
    if n == 0:
        return Distinct(values, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64))
    bits = np.ascontiguousarray(values + 0.0).view(np.uint64)  # + 0.0: -0.0 and 0.0 alike
    hashes = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(m):
            hashes = hashes * np.uint64(0x100000001B3) ^ pd.util.hash_array(bits[:, j], categorize=False)
    codes, uniques = pd.factorize(hashes)
    _, first = np.unique(codes, return_index=True)  # uniques come in first-appearance order
    rows = values[first]
    if not (rows[codes] == values).all():
        merged, inverse, counts = np.unique(values, axis=0, return_inverse=True, return_counts=True)
        return Distinct(merged, inverse.reshape(-1).astype(np.intp), counts.astype(np.int64))
    return Distinct(rows, codes.astype(np.intp), np.bincount(codes, minlength=len(uniques)).astype(np.int64))


def weights(d: Distinct, n_boot: int, rng: np.random.Generator) -> Iterator[npt.NDArray[np.float64]]:
    """Resample weights over the distinct rows, ``(b, len(d.rows))`` per chunk, ``n_boot`` in all."""
    n = int(d.counts.sum())
    size = len(d.rows)
    per_chunk = max(1, CHUNK_CELLS // max(n, 1))
    # A multinomial costs one binomial per distinct row; drawing cluster indices costs one cheap
    # integer per cluster: take whichever does less work.
    by_rows = size * 20 < n
    same = bool(np.array_equal(d.of_cluster, np.arange(n)))  # no cluster merged: draws are rows
    done = 0
    while done < n_boot:
        b = min(per_chunk, n_boot - done)
        if by_rows:
            w = rng.multinomial(n, d.counts / n, size=b)
        else:
            draws = rng.integers(0, n, size=(b, n), dtype=np.int32 if n < 2**31 else np.int64)
            picks = draws if size == n and same else d.of_cluster[draws]
            offsets = (np.arange(b, dtype=np.intp) * size)[:, None]
            w = np.bincount((picks + offsets).ravel(), minlength=b * size).reshape(b, size)
        done += b
        yield w.astype(np.float64)


def replicate_totals(values: FloatArray, n_boot: int, seed: int, block: int | None = None) -> FloatArray:
    """``(n_boot, columns)``: the summed statistics of every replicate.

    With ``block`` (the number of statistics per scope), each scope's columns are multiplied
    only over the rows where that scope has anything: a group holding a sixth of the clusters
    costs a sixth. An unknown statistic (NaN: a number that needs what is not available, such as
    an embedder) is summed as 0 here; the metric it feeds is undefined on the data, so
    :func:`intervals` gives it no interval.
    """
    if values.shape[0] == 0:
        return np.zeros((n_boot, values.shape[1]))
    d = distinct(np.where(np.isnan(values), 0.0, values))
    rng = np.random.default_rng(seed)
    k = block or values.shape[1]
    parts = []
    for start in range(0, values.shape[1], k):
        cols = d.rows[:, start : start + k]
        members = np.flatnonzero(np.any(cols != 0, axis=1))
        # (rows^T w^T)^T rather than w rows: OpenBLAS is many times faster with the long
        # dimension inside, for a short-and-wide weights matrix.
        parts.append((np.ascontiguousarray(cols[members].T), members))
    out = []
    # One BLAS thread: as fast as several for these thin products (4x faster on a busy 2-core
    # machine), and the same summation order everywhere, so a seed gives the same float sums.
    with threadpool_limits(limits=1, user_api="blas"):
        out = _products(d, parts, k, n_boot, rng, values.shape[1])
    return np.concatenate(out, axis=0)


def _products(
    d: Distinct,
    parts: list[tuple[FloatArray, npt.NDArray[np.intp]]],
    k: int,
    n_boot: int,
    rng: np.random.Generator,
    width: int,
) -> list[FloatArray]:
    out = []
    for w in weights(d, n_boot, rng):
        chunk = np.zeros((w.shape[0], width))
        for i, (rows_t, members) in enumerate(parts):
            if members.size:
                drawn = w if members.size == w.shape[1] else w[:, members]
                chunk[:, i * k : (i + 1) * k] = (rows_t @ drawn.T).T
        out.append(chunk)
    return out


def scope_metrics(stats: ClusterStats, totals: FloatArray) -> dict[Scope, dict[str, FloatArray]]:
    """Each scope's metrics over rows of summed statistics (``totals`` of all columns).

    A row in which a scope holds nothing (every statistic 0: a replicate that drew none of its
    clusters) gives NaN for that scope, whatever the official convention for an empty input:
    such a replicate says nothing about the metric.
    """
    k = len(stats.names)
    out: dict[Scope, dict[str, FloatArray]] = {}
    for s, scope in enumerate(stats.scopes):
        block = totals[:, s * k : (s + 1) * k]
        empty = ~np.any(block != 0, axis=1)
        out[scope] = {
            name: np.where(empty, np.nan, arr) if name not in COUNT_KEYS else arr
            for name, arr in stats.metrics(block).items()
        }
    return out


def percentile(values: FloatArray, level: float) -> Interval:
    """The central ``level`` percentile interval of the defined values; None when none is."""
    kept = values[~np.isnan(values)]
    if kept.size == 0:
        return None
    alpha = (1 - level) / 2
    lo, hi = np.quantile(kept, [alpha, 1 - alpha])
    return [float(lo), float(hi)]


def intervals(
    stats: ClusterStats, *, n_boot: int = N_BOOT, seed: int = SEED, level: float = LEVEL
) -> dict[str, Any]:
    """The ``ci`` object of ``score --ci``: an interval per metric, shaped like the report."""
    point_defined = _defined(stats)
    reps = scope_metrics(stats, replicate_totals(stats.values, n_boot, seed, block=len(stats.names) or None))
    overall: dict[str, Interval] = {}
    groups: dict[str, dict[str, dict[str, Interval]]] = {name: {} for name in stats.groups}
    for scope, metrics in reps.items():
        shown = {
            name: (percentile(arr, level) if point_defined[scope][name] else None)
            for name, arr in metrics.items()
            if name not in COUNT_KEYS
        }
        if scope is None:
            overall = shown
        else:
            groups.setdefault(scope[0], {})[scope[1]] = shown
    return {
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "method": METHOD,
        "cluster": stats.unit,
        "n_clusters": len(stats.keys),
        "overall": overall,
        "groups": groups,
    }


def _defined(stats: ClusterStats) -> dict[Scope, dict[str, bool]]:
    """Whether each metric is defined on the data itself (else its interval is null too)."""
    summed = stats.values.sum(axis=0)[None, :]  # only zero or NaN matters here, not the last bit
    return {
        scope: {name: not bool(np.isnan(arr[0])) for name, arr in metrics.items()}
        for scope, metrics in scope_metrics(stats, summed).items()
    }
