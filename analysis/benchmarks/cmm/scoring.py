"""CMM metrics over an item table: per-row flags, then one ``bincount`` per flag and grouping.

Every metric is a ratio of seven counts (rows, correct, predicted yes, gold yes, gold no, true
positives, gold-no rows with ``no`` in ``pred[:5]``), so a grouping costs a handful of
``numpy.bincount`` calls whatever the number of rows. Zero denominators give 0, as in the official
script.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.cmm.parse import NO_HIT, gold_class, official_hits
from analysis.benchmarks.shared.yesno import READERS, read_column
from analysis.stats.clusters import ClusterStats, FloatArray, masks, scope_verdicts
from analysis.stats.clusters import tally as tally_clusters
from analysis.stats.metrics import NO, UNPARSED, YES, MetricDict, f1, f1s, ratio, ratios

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.intp]

GRANULARITIES = ("object-level", "event-level")
"""The granularity values the official script reports; other values are left out of that group."""

DETAIL_GROUP = "granularity/sub_category"
"""The official script's third table (granularity x sub-category), given only on request."""

_ZERO = 0.0


@dataclass
class Flags:
    """Per-row facts every metric is counted from."""

    correct: Bools
    pred_yes: Bools
    gold_yes: Bools
    gold_no: Bools
    hr_hit: Bools
    """Gold-no rows the scorer counts as resisted (official: ``no`` in ``pred[:5]``)."""

    def columns(self) -> list[Bools]:
        """The flags in the order of :func:`tally`'s columns (after the row count)."""
        return [
            self.correct,
            self.pred_yes,
            self.gold_yes,
            self.gold_no,
            self.gold_yes & self.pred_yes,
            self.hr_hit,
        ]


def flags(table: pd.DataFrame, parser: str, alt_parser: str) -> Flags:
    """Flags of the rows of ``table`` as read by ``parser``."""
    g_codes, g_uniques = pd.factorize(table["gold"].array)
    g_norm = [str(u).strip().lower() for u in g_uniques]
    g_class = np.array([gold_class(g) for g in g_norm], dtype=np.int8)[g_codes]
    gold_yes, gold_no = g_class == YES, g_class == NO
    if parser == "official":
        code = _codes(table["parsed"])
        correct = table["correct"].to_numpy(dtype=bool, na_value=False)
        # With gold exactly "no" the verdict *is* "'no' in pred[:5]"; any other gold-no spelling
        # (none in the release) is read from the raw answer.
        is_no = np.array([g == "no" for g in g_norm], dtype=bool)[g_codes]
        hr_hit = gold_no & np.where(is_no, correct, False)
        odd = np.flatnonzero(gold_no & ~is_no)
        if odd.size:
            raw = table["raw_answer"].to_numpy(dtype=object, na_value="")[odd]
            hr_hit[odd] = [bool(official_hits(str(r)) & NO_HIT) for r in raw]
    else:
        if parser == alt_parser:
            code = _codes(table["alt_parsed"])
        else:
            code = read_column(table["raw_answer"], READERS[parser])
        correct = (code == g_class) & (g_class != UNPARSED)
        hr_hit = gold_no & (code == NO)
    return Flags(correct, code == YES, gold_yes, gold_no, hr_hit)


def _codes(words: pd.Series) -> npt.NDArray[np.int8]:
    code = np.full(len(words), UNPARSED, dtype=np.int8)
    code[(words == "yes").to_numpy(dtype=bool, na_value=False)] = YES
    code[(words == "no").to_numpy(dtype=bool, na_value=False)] = NO
    return code


def tally(
    keys: Ints, size: int, f: Flags, weights: npt.NDArray[np.int64] | None = None
) -> npt.NDArray[np.int64]:
    """Counts per group: rows, correct, predicted yes, gold yes, gold no, TP, HR hits.

    ``weights``: how many rows each entry stands for (distinct rows with their counts); 1 each
    when None. Counts stay exact: float64 holds every integer below 2**53.
    """
    columns = f.columns()
    # One integer bincount of (group, flag pattern) instead of a float bincount per flag: the
    # six flags make 64 patterns, and each count is the sum over the patterns holding its bit.
    patterns = 1 << len(columns)
    pattern = np.zeros(len(keys), dtype=np.int64)
    for bit, flag in enumerate(columns):
        pattern |= flag.astype(np.int64) << bit
    per_pattern = np.bincount(
        keys.astype(np.int64) * patterns + pattern, weights=weights, minlength=size * patterns
    )
    per_pattern = per_pattern.reshape(size, patterns).astype(np.int64)
    bits = (np.arange(patterns)[:, None] >> np.arange(len(columns))[None, :]) & 1
    return np.concatenate([per_pattern.sum(axis=1, keepdims=True), per_pattern @ bits], axis=1)


def metrics(counts: npt.NDArray[np.int64]) -> MetricDict:
    """CMM metrics from one row of :func:`tally` (0 where a denominator is 0)."""
    n, correct, pred_yes, gold_yes, gold_no, tp, hr_hit = (int(v) for v in counts)
    precision = ratio(tp, pred_yes, _ZERO)
    recall = ratio(tp, gold_yes, _ZERO)
    return {
        "accuracy": ratio(correct, n, _ZERO),
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall, _ZERO),
        "yes_ratio": ratio(pred_yes, n, _ZERO),
        "pa": recall,
        "hr": ratio(hr_hit, gold_no, _ZERO),
        "n": n,
    }


def grouped(
    table: pd.DataFrame, f: Flags, *, detail: bool, weights: npt.NDArray[np.int64] | None = None
) -> tuple[MetricDict, dict[str, dict[str, MetricDict]]]:
    """Overall metrics and the groups ``sub_category`` and ``granularity``.

    With ``detail``, also :data:`DETAIL_GROUP`, keyed ``"<granularity>/<sub_category>"``.
    ``weights``: rows each table row stands for (see :func:`tally`).
    """
    n = len(table)
    overall = metrics(tally(np.zeros(n, dtype=np.intp), 1, f, weights)[0])
    # factorize keeps the order of first appearance, as the official script's dicts do.
    s_codes, s_names = pd.factorize(table["category"])
    g_codes, g_names = pd.factorize(table["subcategory"])
    s_counts = tally(s_codes, len(s_names), f, weights)
    g_counts = tally(g_codes, len(g_names), f, weights)
    gs_keys = g_codes * len(s_names) + s_codes
    gs_counts = tally(gs_keys, len(g_names) * len(s_names), f, weights) if detail else None
    g_index = {str(name): i for i, name in enumerate(g_names)}
    by_sub = {str(name): metrics(s_counts[i]) for i, name in enumerate(s_names)}
    by_gran: dict[str, MetricDict] = {}
    by_both: dict[str, MetricDict] = {}
    for gran in GRANULARITIES:
        if gran not in g_index:
            continue
        gi = g_index[gran]
        by_gran[gran] = metrics(g_counts[gi])
        if gs_counts is None:
            continue
        for si, sub in enumerate(s_names):
            row = gs_counts[gi * len(s_names) + si]
            if row[0]:
                by_both[f"{gran}/{sub}"] = metrics(row)
    groups = {"sub_category": by_sub, "granularity": by_gran}
    if detail:
        groups[DETAIL_GROUP] = by_both
    return overall, groups


STAT_NAMES = ("n", "correct", "pred_yes", "gold_yes", "gold_no", "tp", "hr_hit")
"""The columns of :func:`tally`, as :class:`~analysis.stats.clusters.ClusterStats` names them."""


def metrics_of(totals: FloatArray) -> dict[str, FloatArray]:
    """:func:`metrics` over rows of summed counts (vectorised; 0 where a denominator is 0)."""
    n, correct, pred_yes, gold_yes, gold_no, tp, hr_hit = totals.T
    precision = ratios(tp, pred_yes, _ZERO)
    recall = ratios(tp, gold_yes, _ZERO)
    return {
        "accuracy": ratios(correct, n, _ZERO),
        "precision": precision,
        "recall": recall,
        "f1": f1s(precision, recall, _ZERO),
        "yes_ratio": ratios(pred_yes, n, _ZERO),
        "pa": recall,
        "hr": ratios(hr_hit, gold_no, _ZERO),
        "n": n,
    }


def cluster_stats(table: pd.DataFrame, f: Flags) -> ClusterStats:
    """Counts per clip (its yes and no probes hang together) for ``grouped``'s scopes."""
    n = len(table)
    columns = dict(zip(STAT_NAMES, [np.ones(n, dtype=bool), *f.columns()], strict=True))
    subs = [str(s) for s in pd.unique(table["category"].astype(str))]
    grans = set(table["subcategory"].astype(str))
    present = [g for g in GRANULARITIES if g in grans]
    scopes = [
        (None, np.ones(n, dtype=bool)),
        *masks(table["category"].astype(str), subs, "sub_category"),
        *masks(table["subcategory"].astype(str), present, "granularity"),
    ]
    keys, values = tally_clusters(table["media"].to_numpy(dtype=object), columns, scopes)
    verdicts = scope_verdicts("accuracy", f.correct, table["item_id"], scopes)
    return ClusterStats(
        "clip",
        keys,
        STAT_NAMES,
        tuple(s for s, _ in scopes),
        values,
        metrics_of,
        ("sub_category", "granularity"),
        verdicts,
    )
