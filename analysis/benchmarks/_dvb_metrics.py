"""DetailVerifyBench per-item and aggregate metrics over whole columns.

:func:`compare` turns gold and predicted tagged captions into per-item numbers under a parser:

- ``official``: gold and prediction token flags cut to the shorter length and compared position
  by position (``NO HALLUCINATION`` = all clean, as long as the gold, nothing cut);
- ``aligned`` (NOT official): prediction flags carried onto gold positions through a token
  alignment (:func:`analysis.spans.align_flags`), compared over the whole gold; flagged words the
  gold lacks count as false alarms.

Positions are built with ``np.repeat`` arithmetic and counted with ``np.bincount``; the only
per-item Python work is the alignment of captions whose words differ (aligned parser only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.benchmarks._dvb_batch import BoolArray, IntArray, TokenTable, tokenize_texts
from analysis.metrics import MetricDict, f1, macro_mean, ratio
from analysis.spans import align_flags, is_no_hallucination, match_labels

FloatArray = npt.NDArray[np.float64]

METRIC_KEYS = (
    "token_precision", "token_recall", "token_f1", "token_iou",
    "sentence_precision", "sentence_recall", "sentence_f1",
    "response_precision", "response_recall", "response_f1", "n",
)


@dataclass(frozen=True)
class Comparison:
    """Per-item results of one parser; arrays are aligned with the input order."""

    token: dict[str, FloatArray]
    """``precision``, ``recall``, ``f1``, ``iou`` per item (0 where undefined)."""
    sentence: dict[str, FloatArray]
    gold_any: BoolArray
    """Gold has a hallucinated token among the compared positions."""
    pred_any: BoolArray
    exact: BoolArray
    """The scorer sees a perfect detection: compared flags equal, at least one position."""
    flags: list[str]
    """Predicted flags over the compared positions, ``1`` = hallucinated (the parsed answer)."""
    label_hits: dict[str, tuple[int, int]]
    """Label type -> (gold tokens caught, gold tokens), when gold labels were given."""


@dataclass(frozen=True)
class _Positions:
    item: IntArray
    gold: BoolArray
    pred: BoolArray
    gold_index: IntArray
    """Index of the compared gold token in the gold token table."""
    rank: IntArray
    """Position within its item (0, 1, ...)."""


ITEMS_PER_CHUNK = 2048
"""Items scored per vectorised pass: keeps every position array small (a few MB)."""


@dataclass(frozen=True)
class _Part:
    """One chunk of items, both sides tokenised (item ``i`` is caption ``i`` on each side)."""

    gold: TokenTable
    pred: TokenTable
    none: BoolArray
    """Per item, the prediction is ``NO HALLUCINATION`` (left untokenised)."""


@dataclass(frozen=True)
class Prepared:
    """Gold and predictions tokenised once, in chunks, ready for any parser."""

    parts: list[_Part]


def prepare(gold: Sequence[str], pred: Sequence[str]) -> Prepared:
    """Tokenise and flag gold and predicted captions (pairs in the same order)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold captions but {len(pred)} predictions")
    return Prepared([_prepare_part(gold[i:i + ITEMS_PER_CHUNK], pred[i:i + ITEMS_PER_CHUNK])
                     for i in range(0, len(gold), ITEMS_PER_CHUNK)])


def _prepare_part(gold: Sequence[str], pred: Sequence[str]) -> _Part:
    none = np.array([is_no_hallucination(p) for p in pred], dtype=bool)
    # NO HALLUCINATION answers are not tokenised: they read as all clean, gold-long.
    kept = [("" if x else p) for p, x in zip(pred, none, strict=True)]
    return _Part(tokenize_texts(gold), tokenize_texts(kept, sentences=False), none)


def compare(
    gold: Sequence[str],
    pred: Sequence[str],
    parser: str = "official",
    labels: Sequence[Sequence[Mapping[str, Any]] | None] | None = None,
) -> Comparison:
    """Score each (gold, prediction) pair of tagged captions; see the module docstring."""
    _check_parser(parser)
    parts = []
    for i in range(0, len(gold), ITEMS_PER_CHUNK):
        part = _prepare_part(gold[i:i + ITEMS_PER_CHUNK], pred[i:i + ITEMS_PER_CHUNK])
        chunk_labels = None if labels is None else labels[i:i + ITEMS_PER_CHUNK]
        parts.append(_compare_part(part, parser, chunk_labels))
    return _merge(parts)


def compare_prepared(
    prep: Prepared, parser: str, labels: Sequence[Sequence[Mapping[str, Any]] | None] | None = None
) -> Comparison:
    """:func:`compare` on captions already tokenised by :func:`prepare`."""
    _check_parser(parser)
    parts = []
    for k, part in enumerate(prep.parts):
        lo = k * ITEMS_PER_CHUNK
        parts.append(_compare_part(part, parser, None if labels is None else labels[lo:lo + ITEMS_PER_CHUNK]))
    return _merge(parts)


def _check_parser(parser: str) -> None:
    if parser not in ("official", "aligned"):
        raise ValueError(f"unknown parser {parser!r}")


def _compare_part(
    part: _Part, parser: str, labels: Sequence[Sequence[Mapping[str, Any]] | None] | None
) -> Comparison:
    gt, pt, none = part.gold, part.pred, part.none
    n = none.size
    codes = np.arange(n, dtype=np.int64)
    extra_fp = np.zeros(n, dtype=np.int64)
    if parser == "official":
        pos = _official(gt, pt, codes, codes, none)
    else:
        pos, extra_fp = _aligned(gt, pt, codes, codes, none)
    token, gold_any, pred_any, exact = _token_level(pos, n, extra_fp)
    sentence = _sentence_level(pos, gt, codes, n)
    hits = _label_hits(pos, gt, codes, labels) if labels is not None else {}
    return Comparison(token, sentence, gold_any, pred_any, exact, _flag_strings(pos, n), hits)


def _merge(parts: Sequence[Comparison]) -> Comparison:
    """Join the per-chunk results (per-item arrays end to end, label counts summed)."""
    if not parts:
        empty = np.zeros(0, dtype=np.float64)
        levels = {"token": ("precision", "recall", "f1", "iou"), "sentence": ("precision", "recall", "f1")}
        none = np.zeros(0, dtype=bool)
        return Comparison({k: empty for k in levels["token"]}, {k: empty for k in levels["sentence"]},
                          none, none, none, [], {})
    hits: dict[str, tuple[int, int]] = {}
    for part in parts:
        for kind, (caught, total) in part.label_hits.items():
            old = hits.get(kind, (0, 0))
            hits[kind] = (old[0] + caught, old[1] + total)
    return Comparison(
        token={k: np.concatenate([p.token[k] for p in parts]) for k in parts[0].token},
        sentence={k: np.concatenate([p.sentence[k] for p in parts]) for k in parts[0].sentence},
        gold_any=np.concatenate([p.gold_any for p in parts]),
        pred_any=np.concatenate([p.pred_any for p in parts]),
        exact=np.concatenate([p.exact for p in parts]),
        flags=[f for p in parts for f in p.flags],
        label_hits=hits,
    )


def _positions(lengths: IntArray) -> tuple[IntArray, IntArray]:
    """Item and rank of every compared position, items laid out one after another."""
    item = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    first = np.cumsum(lengths) - lengths
    return item, np.arange(item.size, dtype=np.int64) - first[item]


def _official(
    gt: TokenTable, pt: TokenTable, g_codes: IntArray, p_codes: IntArray, none: BoolArray
) -> _Positions:
    g_off, g_len = gt.offsets[g_codes], gt.counts()[g_codes]
    p_off, p_len = pt.offsets[p_codes], pt.counts()[p_codes]
    compared = np.where(none, g_len, np.minimum(g_len, p_len))
    item, rank = _positions(compared)
    gold_index = g_off[item] + rank
    pred = np.zeros(item.size, dtype=bool)
    real = ~none[item]
    pred[real] = pt.flags[p_off[item[real]] + rank[real]]
    return _Positions(item, gt.flags[gold_index], pred, gold_index, rank)


def _aligned(
    gt: TokenTable, pt: TokenTable, g_codes: IntArray, p_codes: IntArray, none: BoolArray
) -> tuple[_Positions, IntArray]:
    g_len = gt.counts()[g_codes]
    item, rank = _positions(g_len)
    gold_index = gt.offsets[g_codes][item] + rank
    pred = np.zeros(item.size, dtype=bool)
    extra_fp = np.zeros(g_codes.size, dtype=np.int64)
    first = np.cumsum(g_len) - g_len
    same = np.array([gt.cleans[g] == pt.cleans[p] for g, p in zip(g_codes, p_codes, strict=True)], dtype=bool)
    same |= none
    for i in np.flatnonzero(~same).tolist():
        gw, pw = gt.words(int(g_codes[i])), pt.words(int(p_codes[i]))
        lo, hi = int(pt.offsets[p_codes[i]]), int(pt.offsets[p_codes[i] + 1])
        if gw == pw:
            same[i] = True
            continue
        mapped, extra_fp[i] = align_flags(gw, pw, pt.flags[lo:hi].tolist())
        pred[first[i]:first[i] + g_len[i]] = mapped
    direct = same[item] & ~none[item]
    pred[direct] = pt.flags[pt.offsets[p_codes][item[direct]] + rank[direct]]
    return _Positions(item, gt.flags[gold_index], pred, gold_index, rank), extra_fp


def _rates(tp: FloatArray, predicted: FloatArray, actual: FloatArray) -> dict[str, FloatArray]:
    """Per-item precision, recall, F1 with the official 0 for every undefined ratio."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, tp / predicted, 0.0)
        recall = np.where(actual > 0, tp / actual, 0.0)
        both = precision + recall
        f1s = np.where(both > 0, 2 * precision * recall / both, 0.0)
    return {"precision": precision, "recall": recall, "f1": f1s}


def _token_level(
    pos: _Positions, n: int, extra_fp: IntArray
) -> tuple[dict[str, FloatArray], BoolArray, BoolArray, BoolArray]:
    def count(mask: BoolArray) -> FloatArray:
        return np.bincount(pos.item, weights=mask, minlength=n).astype(np.float64, copy=False)

    tp = count(pos.gold & pos.pred)
    fp = count(~pos.gold & pos.pred) + extra_fp
    fn = count(pos.gold & ~pos.pred)
    compared = np.bincount(pos.item, minlength=n)
    out = _rates(tp, tp + fp, tp + fn)
    union = tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(union > 0, tp / union, 1.0)
    empty = compared == 0
    for values in out.values():
        values[empty] = 0.0
    out["iou"] = np.where(empty, 0.0, iou)
    exact = ~empty & (fp == 0) & (fn == 0)
    return out, (tp + fn) > 0, (tp + fp) > 0, exact


def _sentence_level(pos: _Positions, gt: TokenTable, g_codes: IntArray, n: int) -> dict[str, FloatArray]:
    """Official sentence ranges: positions counted in sentence-alone tokens, applied to flags."""
    piece_token = np.repeat(np.arange(gt.pieces.size, dtype=np.int64), gt.pieces)
    piece_first = np.cumsum(gt.pieces) - gt.pieces
    piece_rank = np.arange(piece_token.size, dtype=np.int64) - piece_first[piece_token]
    sentence_of_piece = gt.ends_before[piece_token] + piece_rank
    piece_offsets = np.concatenate(([0], np.cumsum(gt.pieces)))[gt.offsets[:-1]]
    sentence = sentence_of_piece[piece_offsets[g_codes][pos.item] + pos.rank]
    # A new sentence starts at each item's first position and wherever the sentence id changes.
    starts = np.ones(pos.item.size, dtype=bool)
    starts[1:] = (pos.rank[1:] == 0) | (sentence[1:] != sentence[:-1])
    segment = np.cumsum(starts) - 1
    n_seg = int(segment[-1]) + 1 if segment.size else 0
    gold_pos = np.bincount(segment, weights=pos.gold, minlength=n_seg) > 0
    pred_pos = np.bincount(segment, weights=pos.pred, minlength=n_seg) > 0
    owner = pos.item[starts]

    def count(mask: BoolArray) -> FloatArray:
        return np.bincount(owner, weights=mask, minlength=n).astype(np.float64, copy=False)

    tp = count(gold_pos & pred_pos)
    return _rates(tp, tp + count(~gold_pos & pred_pos), tp + count(gold_pos & ~pred_pos))


def _label_hits(
    pos: _Positions, gt: TokenTable, g_codes: IntArray,
    labels: Sequence[Sequence[Mapping[str, Any]] | None],
) -> dict[str, tuple[int, int]]:
    """Micro recall counts per label type over the compared gold hallucinated tokens."""
    names: dict[str, int] = {}
    codes: list[int] = []
    item_base = np.zeros(len(labels), dtype=np.int64)
    has = np.zeros(len(labels), dtype=bool)
    for i, entries in enumerate(labels):
        item_base[i] = len(codes)
        if entries is None:
            continue
        has[i] = True
        g = int(g_codes[i])
        lo, hi = int(gt.range_offsets[g]), int(gt.range_offsets[g + 1])
        for kind in match_labels(gt.range_texts[lo:hi], entries):
            codes.append(names.setdefault(kind, len(names)))
    use = pos.gold & has[pos.item]
    ranges = gt.first_range[pos.gold_index[use]]
    local = ranges - gt.range_offsets[g_codes[pos.item[use]]]
    kinds = np.asarray(codes, dtype=np.int64)[item_base[pos.item[use]] + local] if use.any() else local
    total = np.bincount(kinds, minlength=len(names))
    caught = np.bincount(kinds, weights=pos.pred[use], minlength=len(names))
    return {name: (int(caught[c]), int(total[c])) for name, c in names.items() if total[c] > 0}


def _flag_strings(pos: _Positions, n: int) -> list[str]:
    text = (pos.pred.astype(np.uint8) + ord("0")).tobytes().decode("ascii")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(pos.item, minlength=n)))).tolist()
    return [text[bounds[i]:bounds[i + 1]] for i in range(n)]


def summarize(c: Comparison, mask: BoolArray) -> MetricDict:
    """The eleven numbers of ``cli.md`` over the items in ``mask`` (official zero conventions)."""
    out: MetricDict = {}
    for level, values in (("token", c.token), ("sentence", c.sentence)):
        for name, arr in values.items():
            out[f"{level}_{name}"] = macro_mean(arr[mask])
    g, p = c.gold_any[mask], c.pred_any[mask]
    tp = int(np.count_nonzero(g & p))
    precision = ratio(tp, int(np.count_nonzero(p)), 0.0)
    recall = ratio(tp, int(np.count_nonzero(g)), 0.0)
    out["response_precision"] = precision
    out["response_recall"] = recall
    out["response_f1"] = f1(precision, recall, 0.0)
    out["n"] = int(np.count_nonzero(mask))
    return {key: out[key] for key in METRIC_KEYS}


def label_recall(hits: Mapping[str, tuple[int, int]]) -> dict[str, MetricDict]:
    """Per label type: token recall (micro), tokens caught and gold tokens, sorted by type."""
    return {
        kind: {"token_recall": ratio(caught, total, 0.0), "hits": caught, "n_tokens": total}
        for kind, (caught, total) in sorted(hits.items())
    }
