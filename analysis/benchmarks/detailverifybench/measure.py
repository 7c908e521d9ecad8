"""Per-item DetailVerifyBench numbers from compared positions (the counting half of the scorer).

A parser (:mod:`.scoring`) decides which gold token each compared position
is and whether the prediction flags it; everything after that is here, the same for every
parser: token and sentence P / R / F1 / IoU per item, label-type hits, the flag strings, and
joining results of chunks or of a subset of items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.benchmarks.detailverifybench.batch import BoolArray, IntArray, TokenTable
from analysis.benchmarks.detailverifybench.spans import match_labels

FloatArray = npt.NDArray[np.float64]
Labels = Sequence[Sequence[Mapping[str, Any]] | None]


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
class Positions:
    """The compared positions of some items, item after item, each item's in rank order."""

    item: IntArray
    gold: BoolArray
    pred: BoolArray
    gold_index: IntArray
    """Index of the compared gold token in the gold token table."""
    rank: IntArray
    """Position within its item (0, 1, ...)."""


@dataclass(frozen=True)
class Sentences:
    """Gold sentence numbers per sentence-alone token ("piece"), the same for every parser."""

    of_piece: IntArray
    item_first_piece: IntArray


def positions(lengths: IntArray) -> tuple[IntArray, IntArray]:
    """Item and rank of every compared position, items laid out one after another."""
    item = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    first = np.cumsum(lengths) - lengths
    return item, np.arange(item.size, dtype=np.int64) - first[item]


def measure(
    pos: Positions,
    gt: TokenTable,
    sentences: Sentences,
    g_codes: IntArray,
    extra_fp: IntArray,
    labels: Labels | None,
) -> Comparison:
    """Per-item numbers of the compared positions of items ``g_codes`` (labels: one per item)."""
    n = g_codes.size
    token, gold_any, pred_any, exact, compared = token_level(pos, n, extra_fp)
    sentence = _sentence_level(pos, sentences, g_codes, n)
    hits = label_hits(pos, gt, g_codes, labels) if labels is not None else {}
    return Comparison(token, sentence, gold_any, pred_any, exact, _flag_strings(pos, compared), hits)


def merge(parts: Sequence[Comparison]) -> Comparison:
    """Join the per-chunk results (per-item arrays end to end, label counts summed)."""
    if not parts:
        empty = np.zeros(0, dtype=np.float64)
        levels = {"token": ("precision", "recall", "f1", "iou"), "sentence": ("precision", "recall", "f1")}
        none = np.zeros(0, dtype=bool)
        return Comparison(
            {k: empty for k in levels["token"]},
            {k: empty for k in levels["sentence"]},
            none,
            none,
            none,
            [],
            {},
        )
    if len(parts) == 1:
        return parts[0]
    hits: dict[str, tuple[int, int]] = {}
    for part in parts:
        add_hits(hits, part.label_hits, 1)
    return Comparison(
        token={k: np.concatenate([p.token[k] for p in parts]) for k in parts[0].token},
        sentence={k: np.concatenate([p.sentence[k] for p in parts]) for k in parts[0].sentence},
        gold_any=np.concatenate([p.gold_any for p in parts]),
        pred_any=np.concatenate([p.pred_any for p in parts]),
        exact=np.concatenate([p.exact for p in parts]),
        flags=[f for p in parts for f in p.flags],
        label_hits=hits,
    )


def add_hits(into: dict[str, tuple[int, int]], hits: Mapping[str, tuple[int, int]], sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) label-type counts."""
    for kind, (caught, total) in hits.items():
        old = into.get(kind, (0, 0))
        into[kind] = (old[0] + sign * caught, old[1] + sign * total)


def splice(
    base: Comparison, items: IntArray, patch: Comparison, hits: dict[str, tuple[int, int]]
) -> Comparison:
    """``base`` with the per-item results of ``items`` replaced by ``patch``."""

    def put(values: npt.NDArray[Any], new: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out = values.copy()
        out[items] = new
        return out

    flags = list(base.flags)
    for k, i in enumerate(items.tolist()):
        flags[i] = patch.flags[k]
    return Comparison(
        token={k: put(v, patch.token[k]) for k, v in base.token.items()},
        sentence={k: put(v, patch.sentence[k]) for k, v in base.sentence.items()},
        gold_any=put(base.gold_any, patch.gold_any),
        pred_any=put(base.pred_any, patch.pred_any),
        exact=put(base.exact, patch.exact),
        flags=flags,
        label_hits=hits,
    )


def _rates(tp: FloatArray, predicted: FloatArray, actual: FloatArray) -> dict[str, FloatArray]:
    """Per-item precision, recall, F1 with the official 0 for every undefined ratio."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, tp / predicted, 0.0)
        recall = np.where(actual > 0, tp / actual, 0.0)
        both = precision + recall
        f1s = np.where(both > 0, 2 * precision * recall / both, 0.0)
    return {"precision": precision, "recall": recall, "f1": f1s}


def _outcomes(owner: IntArray, gold: BoolArray, pred: BoolArray, n: int) -> npt.NDArray[np.float64]:
    """Per item, how many (gold, pred) pairs are (0,0), (0,1), (1,0), (1,1): one bincount."""
    code = owner * 4 + gold * 2 + pred
    return np.bincount(code, minlength=4 * n).reshape(n, 4).astype(np.float64)


def token_level(
    pos: Positions, n: int, extra_fp: IntArray
) -> tuple[dict[str, FloatArray], BoolArray, BoolArray, BoolArray, IntArray]:
    """Per item token P / R / F1 / IoU, gold and prediction "any", exact match and positions compared."""
    counts = _outcomes(pos.item, pos.gold, pos.pred, n)
    tp, fn = counts[:, 3], counts[:, 2]
    fp = counts[:, 1] + extra_fp
    compared = counts.sum(axis=1).astype(np.int64)
    out = _rates(tp, tp + fp, tp + fn)
    union = tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(union > 0, tp / union, 1.0)
    empty = compared == 0
    for values in out.values():
        values[empty] = 0.0
    out["iou"] = np.where(empty, 0.0, iou)
    exact = ~empty & (fp == 0) & (fn == 0)
    return out, (tp + fn) > 0, (tp + fp) > 0, exact, compared


def sentence_numbers(gt: TokenTable) -> Sentences:
    """Sentence of each gold piece: the sentence ends before its token, plus its rank in the token."""
    piece_first = np.cumsum(gt.pieces) - gt.pieces
    shift = np.repeat(gt.ends_before - piece_first, gt.pieces)
    of_piece = np.arange(shift.size, dtype=np.int64) + shift
    item_first = np.concatenate(([0], np.cumsum(gt.pieces)))[gt.offsets[:-1]]
    return Sentences(of_piece, item_first.astype(np.int64, copy=False))


def _sentence_level(pos: Positions, sentences: Sentences, g_codes: IntArray, n: int) -> dict[str, FloatArray]:
    """Official sentence ranges: positions counted in sentence-alone tokens, applied to flags."""
    sentence = sentences.of_piece[sentences.item_first_piece[g_codes][pos.item] + pos.rank]
    # A new sentence starts at each item's first position and wherever the sentence id changes.
    starts = np.ones(pos.item.size, dtype=bool)
    starts[1:] = (pos.rank[1:] == 0) | (sentence[1:] != sentence[:-1])
    first = np.flatnonzero(starts)
    if first.size == 0:
        zeros = np.zeros(n, dtype=np.float64)
        return _rates(zeros, zeros, zeros)
    gold_pos = np.logical_or.reduceat(pos.gold, first)
    pred_pos = np.logical_or.reduceat(pos.pred, first)
    counts = _outcomes(pos.item[first], gold_pos, pred_pos, n)
    tp = counts[:, 3]
    return _rates(tp, tp + counts[:, 1], tp + counts[:, 2])


def label_hits(
    pos: Positions, gt: TokenTable, g_codes: IntArray, labels: Labels
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


def _flag_strings(pos: Positions, compared: IntArray) -> list[str]:
    """Per item, its compared prediction flags as a string of ``0`` and ``1``."""
    text = (pos.pred.view(np.uint8) + ord("0")).tobytes().decode("ascii")
    bounds = np.concatenate(([0], np.cumsum(compared))).tolist()
    return [text[bounds[i] : bounds[i + 1]] for i in range(compared.size)]
