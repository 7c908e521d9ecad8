"""Where a model fails: the slices of an item table on which its accuracy is significantly low.

A slice is up to ``max_depth`` conditions ``column = value`` over the columns every item table has
(task, category, sub-category, gold, whether an answer was read) and the benchmark's own
attributes (:meth:`~analysis.benchmarks.base.Benchmark.slicing`). Each slice of each model is
tested against the rest of that model's items (:mod:`analysis.stats.slices`: clustered, exact),
Benjamini-Hochberg runs over every slice tested in the call, and a significant slice is left out
when it adds nothing to a more general one (``docs/failures.md``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks import get
from analysis.benchmarks.slicing import Condition, condition_mask, slice_columns
from analysis.query.flips import verdict_rows
from analysis.stats.slices import (
    Floats,
    GroupSums,
    below_rest_log_p,
    benjamini_hochberg,
    design_effect,
    effective,
    intra_cluster_correlation,
    lower_tail_log_p,
)

MIN_ITEMS = 10
"""A slice (and its rest) needs this many scored items to be tested; smaller ones are not counted."""
MAX_VALUES = 30
"""A column with more distinct values than this (an id, a free text) is not sliced on."""
MAX_GOLD_VALUES = 12
"""Gold is sliced on only where it is a choice (yes/no, a letter, a short order)."""


@dataclass(frozen=True)
class Slice:
    """One tested slice of one model."""

    model: str
    conditions: tuple[Condition, ...]
    """``(column, value)`` pairs, in column order."""
    n: int
    right: int
    rest_n: int
    rest_right: int
    log_p: float
    """Natural log of the one-sided p value (slice below the rest)."""
    q: float = 1.0
    deff: float = 1.0

    @property
    def accuracy(self) -> float:
        """The model's accuracy on the slice."""
        return self.right / self.n

    @property
    def rest_accuracy(self) -> float:
        """The model's accuracy on the rest of its items."""
        return self.rest_right / self.rest_n

    @property
    def p(self) -> float:
        """The one-sided p value."""
        return math.exp(self.log_p)

    def as_dict(self) -> dict[str, object]:
        """The JSON line of ``halluscope slices --json`` (``docs/cli.md``)."""
        return {
            "model": self.model,
            "slice": dict(self.conditions),
            "n": self.n,
            "accuracy": self.accuracy,
            "rest_accuracy": self.rest_accuracy,
            "p": self.p,
            "q": self.q,
        }


def find_slices(
    benchmark: str,
    table: pd.DataFrame,
    *,
    models: Sequence[str] | None = None,
    max_depth: int = 3,
    alpha: float = 0.05,
) -> tuple[list[Slice], int]:
    """(the significant slices, most significant first; how many slices were tested).

    ``table`` holds one benchmark's rows (any models); only scored rows with a verdict count.
    """
    table = verdict_rows(table)
    clusters, columns = slice_columns(benchmark, table)
    right = table["correct"].to_numpy(dtype=bool)
    model_of = table["model"].astype(str).to_numpy(dtype=object)
    names = sorted(set(model_of)) if models is None else list(models)
    tested: list[Slice] = []
    for model in names:
        rows = model_of == model
        tested += _test_model(
            model, right[rows], clusters[rows], {k: v[rows] for k, v in columns.items()}, max_depth
        )
    if not tested:
        return [], 0
    q = benjamini_hochberg(np.exp(np.array([s.log_p for s in tested])))
    tested = [replace(s, q=float(v)) for s, v in zip(tested, q, strict=True)]
    found = _without_implied([s for s in tested if s.q <= alpha], tested, alpha)
    found.sort(key=lambda s: (s.log_p, len(s.conditions), s.model, s.conditions))
    return found, len(tested)


@dataclass(frozen=True)
class OwnMetric:
    """A benchmark's own metric on a slice and on the rest of the model's items (None: undefined)."""

    name: str
    slice: float | None
    rest: float | None


def own_metric(
    benchmark: str, table: pd.DataFrame, model: str, conditions: Sequence[Condition]
) -> OwnMetric | None:
    """The benchmark's own metric (HR, CFAD, token F1) of ``model`` on a slice and on the rest.

    None for a benchmark whose headline is accuracy. ``table`` holds the benchmark's rows; the
    metric is the package's own scoring of the model's rows, the unscored ones skipped as it skips them.
    """
    rows = table[(table["model"].astype(str) == model).to_numpy(dtype=bool)]
    _, columns = slice_columns(benchmark, rows)
    metric = get(benchmark).slicing(rows.iloc[:0]).metric
    if metric is None:
        return None
    inside = condition_mask(columns, conditions)
    return OwnMetric(metric.name, metric.of(rows[inside]), metric.of(rows[~inside]))


def _codes(values: npt.NDArray[np.object_]) -> tuple[npt.NDArray[np.int64], list[str]] | None:
    """Sorted codes of a column's non-empty values (-1 for empty), or None when not sliceable."""
    distinct = sorted({str(v) for v in values} - {""})
    if not 2 <= len(distinct) <= MAX_VALUES:
        return None
    codes = pd.Categorical(values, categories=distinct).codes.astype(np.int64)
    return codes, distinct


def _test_model(
    model: str,
    right: npt.NDArray[np.bool_],
    clusters: npt.NDArray[np.object_],
    columns: Mapping[str, npt.NDArray[np.object_]],
    max_depth: int,
) -> list[Slice]:
    total = right.size
    if total < 2 * MIN_ITEMS:
        return []
    coded = {}
    for name, values in columns.items():
        got = _codes(values)
        if got is not None and (name != "gold" or len(got[1]) <= MAX_GOLD_VALUES):
            coded[name] = got
    cl, _ = pd.factorize(pd.Series(clusters, dtype=object), sort=False)
    n_clusters = int(cl.max()) + 1 if cl.size else 0
    y = right.astype(np.float64)
    big_n = np.bincount(cl, minlength=n_clusters).astype(np.float64)
    big_y = np.bincount(cl, weights=y, minlength=n_clusters)
    overall = GroupSums.one_group(big_y, big_n)
    whole = (float(overall.syy[0]), float(overall.syn[0]), float(overall.snn[0]))
    rho = intra_cluster_correlation(overall)
    out: list[Slice] = []
    names = sorted(coded)
    for depth in range(1, max_depth + 1):
        for combo in itertools.combinations(names, depth):
            out += _test_combo(model, combo, coded, cl, n_clusters, y, big_n, big_y, whole, total, rho)
    return out


def _test_combo(
    model: str,
    combo: tuple[str, ...],
    coded: Mapping[str, tuple[npt.NDArray[np.int64], list[str]]],
    cl: npt.NDArray[np.intp],
    n_clusters: int,
    y: Floats,
    big_n: Floats,
    big_y: Floats,
    whole: tuple[float, float, float],
    total: int,
    rho: float,
) -> list[Slice]:
    key = np.zeros(y.size, dtype=np.int64)
    valid = np.ones(y.size, dtype=bool)
    radix = 1
    for name in combo:
        codes, labels = coded[name]
        valid &= codes >= 0
        key = key * len(labels) + np.maximum(codes, 0)
        radix *= len(labels)
    key, yv, clv = key[valid], y[valid], cl[valid]
    n_s = np.bincount(key, minlength=radix).astype(np.float64)
    y_s = np.bincount(key, weights=yv, minlength=radix)
    keep = (n_s >= MIN_ITEMS) & (total - n_s >= MIN_ITEMS)
    if not keep.any():
        return []
    joint, uniques = pd.factorize(key * n_clusters + clv, sort=False)
    n_u = np.bincount(joint).astype(np.float64)
    y_u = np.bincount(joint, weights=yv)
    s_u = (uniques // n_clusters).astype(np.intp)
    c_u = (uniques % n_clusters).astype(np.intp)
    cn, cy = big_n[c_u], big_y[c_u]
    rn, ry = cn - n_u, cy - y_u

    def per_slice(values: Floats) -> Floats:
        return np.bincount(s_u, weights=values, minlength=radix)

    inside = GroupSums(
        n_s,
        y_s,
        per_slice(np.ones_like(n_u)),
        per_slice(y_u * y_u),
        per_slice(y_u * n_u),
        per_slice(n_u * n_u),
    )
    total_y = float(big_y.sum())
    rest = GroupSums(
        total - n_s,
        total_y - y_s,
        n_clusters - per_slice((rn == 0).astype(np.float64)),
        whole[0] - per_slice(cy * cy - ry * ry),
        whole[1] - per_slice(cy * cn - ry * rn),
        whole[2] - per_slice(cn * cn - rn * rn),
    )
    log_p = below_rest_log_p(inside, rest, rho)
    deff = design_effect(inside, rho)
    found = []
    for s in np.flatnonzero(keep):
        digits, rem = [], int(s)
        for name in reversed(combo):
            size = len(coded[name][1])
            digits.append(coded[name][1][rem % size])
            rem //= size
        conditions = tuple(zip(combo, reversed(digits), strict=True))
        found.append(
            Slice(
                model,
                conditions,
                int(n_s[s]),
                int(y_s[s]),
                int(total - n_s[s]),
                int(total_y - y_s[s]),
                float(log_p[s]),
                deff=float(deff[s]),
            )
        )
    return found


def _without_implied(significant: list[Slice], tested: list[Slice], alpha: float) -> list[Slice]:
    """Leave out a slice that adds nothing to a more general one (``docs/failures.md``).

    A slice is implied by a parent (one condition fewer) that holds the same items, or by a
    significant parent when its accuracy is not significantly below the rest of that parent's
    items (an exact test at ``alpha`` on the same effective counts).
    """
    by_key = {(s.model, s.conditions): s for s in tested}
    kept = []
    for s in significant:
        implied = False
        for dropped in range(len(s.conditions) if len(s.conditions) > 1 else 0):
            parent = by_key.get((s.model, s.conditions[:dropped] + s.conditions[dropped + 1 :]))
            if parent is None:
                continue
            if parent.n == s.n:
                implied = True
                break
            if parent.q <= alpha and _extra_log_p(s, parent) > math.log(alpha):
                implied = True
                break
        if not implied:
            kept.append(s)
    return kept


def _extra_log_p(child: Slice, parent: Slice) -> float:
    """Log p that ``child`` is below the rest of ``parent``'s items (clustered as each was)."""
    one = np.ones(1)
    n_c, y_c = effective(one * child.n, one * child.right, one * child.deff)
    n_r, y_r = effective(one * (parent.n - child.n), one * (parent.right - child.right), one * parent.deff)
    return float(lower_tail_log_p(n_c, y_c, n_r, y_r)[0])
