"""DetailVerifyBench per-item and aggregate metrics over whole columns.

:func:`compare` turns gold and predicted tagged captions into per-item numbers under a parser:

- ``official``: gold and prediction token flags cut to the shorter length and compared position
  by position (``NO HALLUCINATION`` = all clean, as long as the gold, nothing cut);
- ``aligned`` (NOT official): prediction flags carried onto gold positions through a token
  alignment (:func:`.spans.align_flags`), compared over the whole gold; flagged words the
  gold lacks count as false alarms.

Positions are built with ``np.repeat`` arithmetic and counted in
:mod:`analysis.benchmarks.detailverifybench.measure`. Where gold and prediction have the same words (or the
prediction is ``NO HALLUCINATION``) both parsers compare the same positions, so the aligned
result is the official one with only the items whose words differ recomputed; those are the only
per-item Python work (their alignment). :func:`compare_parsers` gives both from one tokenisation
(what a loader wants); :func:`compare_flags` scores official flags already read (an item table's
``parsed``), tokenising only the gold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.benchmarks.detailverifybench.batch import (
    BoolArray,
    IntArray,
    TokenTable,
    tokenize_like,
    tokenize_texts,
)
from analysis.benchmarks.detailverifybench.measure import (
    Comparison,
    Labels,
    Positions,
    Sentences,
    add_hits,
    label_hits,
    measure,
    merge,
    positions,
    sentence_numbers,
    splice,
    token_level,
)
from analysis.benchmarks.detailverifybench.spans import NO_HALLUCINATION, align_flags
from analysis.stats.metrics import FloatArray, MetricDict, f1, f1s, macro_mean, ratio, ratios

METRIC_KEYS = (
    "token_precision",
    "token_recall",
    "token_f1",
    "token_iou",
    "sentence_precision",
    "sentence_recall",
    "sentence_f1",
    "response_precision",
    "response_recall",
    "response_f1",
    "n",
)
PARSERS = ("official", "aligned")


ITEMS_PER_CHUNK = 2048
"""Items scored per vectorised pass: keeps every position array small (a few MB)."""
FLAGS_PER_PASS = 65536
"""Items per pass of :func:`token_f1_of_flags` (positions only, no text: a few tens of MB)."""


@dataclass(frozen=True)
class _Part:
    """One chunk of items, both sides tokenised (item ``i`` is caption ``i`` on each side)."""

    gold: TokenTable
    pred: TokenTable
    none: BoolArray
    """Per item, the prediction is ``NO HALLUCINATION`` (left untokenised)."""
    same: BoolArray
    """Per item, the prediction's clean text is the gold's (so are its tokens)."""


@dataclass(frozen=True)
class Prepared:
    """Gold and predictions tokenised once, in chunks, ready for any parser."""

    parts: list[_Part]


def prepare(gold: Sequence[str], pred: Sequence[str]) -> Prepared:
    """Tokenise and flag gold and predicted captions (pairs in the same order)."""
    _check_lengths(gold, pred)
    return Prepared(
        [
            _prepare_part(gold[i : i + ITEMS_PER_CHUNK], pred[i : i + ITEMS_PER_CHUNK])
            for i in range(0, len(gold), ITEMS_PER_CHUNK)
        ]
    )


def _check_lengths(gold: Sequence[str], pred: Sequence[str | None]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold captions but {len(pred)} predictions")


def _prepare_part(gold: Sequence[str], pred: Sequence[str]) -> _Part:
    none = np.fromiter(map(says_none, pred), dtype=bool, count=len(pred))
    # NO HALLUCINATION answers are not tokenised: they read as all clean, gold-long.
    kept = [("" if x else p) for p, x in zip(pred, none.tolist(), strict=True)]
    gold_tokens = tokenize_texts(gold)
    pred_tokens, same = tokenize_like(kept, gold_tokens)
    return _Part(gold_tokens, pred_tokens, none, same)


def says_none(prediction: str) -> bool:
    """:func:`.spans.is_no_hallucination`, without upper-casing a whole caption.

    Upper-casing never shortens a text, so a stripped answer longer than ``NO HALLUCINATION``
    cannot be it.
    """
    text = prediction.strip()
    return len(text) <= len(NO_HALLUCINATION) and text.upper() == NO_HALLUCINATION


def compare(
    gold: Sequence[str],
    pred: Sequence[str],
    parser: str = "official",
    labels: Labels | None = None,
) -> Comparison:
    """Score each (gold, prediction) pair of tagged captions; see the module docstring."""
    return compare_parsers(gold, pred, (parser,), labels)[parser]


def compare_parsers(
    gold: Sequence[str], pred: Sequence[str], parsers: Sequence[str], labels: Labels | None = None
) -> dict[str, Comparison]:
    """:func:`compare` under several parsers at once: each chunk is tokenised once, then dropped."""
    for parser in parsers:
        _check_parser(parser)
    _check_lengths(gold, pred)
    found: dict[str, list[Comparison]] = {parser: [] for parser in parsers}
    for i in range(0, len(gold), ITEMS_PER_CHUNK):
        part = _prepare_part(gold[i : i + ITEMS_PER_CHUNK], pred[i : i + ITEMS_PER_CHUNK])
        chunk_labels = None if labels is None else labels[i : i + ITEMS_PER_CHUNK]
        for parser, result in _compare_part(part, parsers, chunk_labels).items():
            found[parser].append(result)
    return {parser: merge(results) for parser, results in found.items()}


def compare_prepared(prep: Prepared, parser: str, labels: Labels | None = None) -> Comparison:
    """:func:`compare` on captions already tokenised by :func:`prepare`."""
    _check_parser(parser)
    parts = []
    for k, part in enumerate(prep.parts):
        lo = k * ITEMS_PER_CHUNK
        chunk_labels = None if labels is None else labels[lo : lo + ITEMS_PER_CHUNK]
        parts.append(_compare_part(part, (parser,), chunk_labels)[parser])
    return merge(parts)


def compare_flags(
    gold: Sequence[str], flags: Sequence[str | None], pred: Sequence[str], labels: Labels | None = None
) -> Comparison:
    """Official numbers from prediction flags already read; only the gold captions are tokenised.

    ``flags`` are :func:`compare`'s (an item table's ``parsed`` column). An item whose flags are
    missing, hold anything but ``0`` and ``1`` or outnumber its gold tokens (so cannot be the
    official reading) is read again from ``pred``.
    """
    _check_lengths(gold, pred)
    _check_lengths(gold, flags)
    parts = []
    for lo in range(0, len(gold), ITEMS_PER_CHUNK):
        gt = tokenize_texts(gold[lo : lo + ITEMS_PER_CHUNK])
        usable = usable_flags(flags[lo : lo + ITEMS_PER_CHUNK], gt.counts().tolist())
        bad = [k for k, f in enumerate(usable) if f is None]
        if bad:
            again = compare([gt.texts[k] for k in bad], [pred[lo + k] for k in bad]).flags
            for k, f in zip(bad, again, strict=True):
                usable[k] = f
        chunk_labels = None if labels is None else labels[lo : lo + ITEMS_PER_CHUNK]
        parts.append(_from_flags(gt, [f or "" for f in usable], chunk_labels))
    return merge(parts)


def usable_flags(flags: Sequence[str | None], sizes: Sequence[int]) -> list[str | None]:
    """The flags that can be the official reading of their item (of ``sizes`` gold tokens); else None."""
    out = [f if type(f) is str and len(f) <= n else None for f, n in zip(flags, sizes, strict=True)]
    joined = "".join(f for f in out if f is not None)
    if joined.isascii() and np.all(np.frombuffer(joined.encode("ascii"), dtype=np.uint8) | 1 == ord("1")):
        return out
    return [f if f is not None and set(f) <= {"0", "1"} else None for f in out]


def token_f1_of_flags(gt: TokenTable, codes: IntArray, flags: Sequence[str]) -> FloatArray:
    """Official token F1 per item from flags already read (usable ones: :func:`usable_flags`).

    Item ``k`` compares its flags with the first ``len(flags[k])`` tokens of gold caption
    ``codes[k]`` of ``gt``, which may hold each distinct caption once (the models of a
    leaderboard share them): each is tokenised once, and the items cost only position arithmetic.
    """
    parts = [np.zeros(0, dtype=np.float64)]
    for lo in range(0, codes.size, FLAGS_PER_PASS):
        part, chunk = codes[lo : lo + FLAGS_PER_PASS], flags[lo : lo + FLAGS_PER_PASS]
        n = part.size
        item, rank = positions(np.fromiter(map(len, chunk), dtype=np.int64, count=n))
        gold_index = gt.offsets[part][item] + rank
        pred = np.frombuffer("".join(chunk).encode("ascii"), dtype=np.uint8) == ord("1")
        pos = Positions(item, gt.flags[gold_index], pred, gold_index, rank)
        parts.append(token_level(pos, n, np.zeros(n, dtype=np.int64))[0]["f1"])
    return np.concatenate(parts)


def _from_flags(gt: TokenTable, flags: Sequence[str], labels: Labels | None) -> Comparison:
    """Per-item numbers when item ``i`` compares its first ``len(flags[i])`` gold tokens."""
    n = len(flags)
    item, rank = positions(np.fromiter(map(len, flags), dtype=np.int64, count=n))
    gold_index = gt.offsets[item] + rank
    pred = np.frombuffer("".join(flags).encode("ascii"), dtype=np.uint8) == ord("1")
    pos = Positions(item, gt.flags[gold_index], pred, gold_index, rank)
    codes = np.arange(n, dtype=np.int64)
    return measure(pos, gt, sentence_numbers(gt), codes, np.zeros(n, dtype=np.int64), labels)


def _check_parser(parser: str) -> None:
    if parser not in PARSERS:
        raise ValueError(f"unknown parser {parser!r}")


def _compare_part(part: _Part, parsers: Sequence[str], labels: Labels | None) -> dict[str, Comparison]:
    """Official numbers of a chunk, and the aligned ones as a patch of the official ones."""
    n = part.none.size
    codes = np.arange(n, dtype=np.int64)
    sentences = sentence_numbers(part.gold)
    official_pos = _official(part.gold, part.pred, codes, part.none)
    official = measure(official_pos, part.gold, sentences, codes, np.zeros(n, dtype=np.int64), labels)
    out = {}
    if "official" in parsers:
        out["official"] = official
    if "aligned" in parsers:
        out["aligned"] = _aligned(part, official, sentences, labels)
    return out


def _official(gt: TokenTable, pt: TokenTable, codes: IntArray, none: BoolArray) -> Positions:
    """Positions of items ``codes`` (caption ``codes[k]`` on both sides; ``none`` per item)."""
    g_off, g_len = gt.offsets[codes], gt.counts()[codes]
    p_off, p_len = pt.offsets[codes], pt.counts()[codes]
    compared = np.where(none, g_len, np.minimum(g_len, p_len))
    item, rank = positions(compared)
    gold_index = g_off[item] + rank
    pred = np.zeros(item.size, dtype=bool)
    if pt.flags.size:  # a NO HALLUCINATION item has no prediction token: its index is clipped, then dropped
        pred = np.take(pt.flags, gold_index + (p_off - g_off)[item], mode="clip") & ~none[item]
    return Positions(item, gt.flags[gold_index], pred, gold_index, rank)


def _aligned(part: _Part, official: Comparison, sentences: Sentences, labels: Labels | None) -> Comparison:
    """The official result with the items whose words differ re-scored through an alignment."""
    gt, pt = part.gold, part.pred
    diff = _differing_words(part)
    if diff.size == 0:
        return official
    g_len = gt.counts()[diff]
    item, rank = positions(g_len)
    gold_index = gt.offsets[diff][item] + rank
    pred = np.zeros(item.size, dtype=bool)
    extra_fp = np.zeros(diff.size, dtype=np.int64)
    first = (np.cumsum(g_len) - g_len).tolist()
    for k, i in enumerate(diff.tolist()):
        lo, hi = int(pt.offsets[i]), int(pt.offsets[i + 1])
        mapped, extra_fp[k] = align_flags(gt.words(i), pt.words(i), pt.flags[lo:hi].tolist())
        pred[first[k] : first[k] + len(mapped)] = mapped
    pos = Positions(item, gt.flags[gold_index], pred, gold_index, rank)
    sub_labels = None if labels is None else [labels[i] for i in diff.tolist()]
    patch = measure(pos, gt, sentences, diff, extra_fp, sub_labels)
    hits = dict(official.label_hits)
    if sub_labels is not None:
        no_none = np.zeros(diff.size, dtype=bool)
        add_hits(hits, label_hits(_official(gt, pt, diff, no_none), gt, diff, sub_labels), -1)
        add_hits(hits, patch.label_hits, 1)
    return splice(official, diff, patch, {k: v for k, v in hits.items() if v[1] > 0})


def _differing_words(part: _Part) -> IntArray:
    """Items whose prediction (not NO HALLUCINATION) has other words than the gold caption."""
    maybe = np.flatnonzero(~part.none & ~part.same).tolist()
    return np.asarray([i for i in maybe if part.gold.words(i) != part.pred.words(i)], dtype=np.int64)


def summarize(c: Comparison, mask: BoolArray) -> MetricDict:
    """The eleven numbers of ``docs/cli.md`` over the items in ``mask`` (official zero conventions)."""
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


STAT_NAMES = (
    "n",
    "token_precision",
    "token_recall",
    "token_f1",
    "token_iou",
    "sentence_precision",
    "sentence_recall",
    "sentence_f1",
    "gold_any",
    "pred_any",
    "tp",
)
"""Per-caption statistics whose sums give :func:`summarize`'s numbers (``metrics_of``)."""


def stat_columns(c: Comparison) -> dict[str, FloatArray]:
    """The :data:`STAT_NAMES` of every compared item, in item order."""
    n = c.gold_any.size
    columns: dict[str, FloatArray] = {"n": np.ones(n)}
    for level, values in (("token", c.token), ("sentence", c.sentence)):
        for name, arr in values.items():
            columns[f"{level}_{name}"] = np.asarray(arr, dtype=float)
    columns["gold_any"] = c.gold_any.astype(float)
    columns["pred_any"] = c.pred_any.astype(float)
    columns["tp"] = (c.gold_any & c.pred_any).astype(float)
    return {name: columns[name] for name in STAT_NAMES}


def metrics_of(totals: FloatArray) -> dict[str, FloatArray]:
    """:func:`summarize` from summed :func:`stat_columns` (vectorised; official zero conventions)."""
    by = dict(zip(STAT_NAMES, totals.T, strict=True))
    n = by["n"]
    out = {key: ratios(by[key], n, 0.0) for key in STAT_NAMES[1:8]}
    precision = ratios(by["tp"], by["pred_any"], 0.0)
    recall = ratios(by["tp"], by["gold_any"], 0.0)
    out |= {
        "response_precision": precision,
        "response_recall": recall,
        "response_f1": f1s(precision, recall, 0.0),
        "n": n,
    }
    return {key: out[key] for key in METRIC_KEYS}


def label_recall(hits: Mapping[str, tuple[int, int]]) -> dict[str, MetricDict]:
    """Per label type: token recall (micro), tokens caught and gold tokens, sorted by type."""
    return {
        kind: {"token_recall": ratio(caught, total, 0.0), "hits": caught, "n_tokens": total}
        for kind, (caught, total) in sorted(hits.items())
    }


def label_type_recall(
    gold: Sequence[str],
    predictions: Sequence[str],
    labels: Sequence[Sequence[dict[str, Any]] | None],
    parser: str = "official",
) -> dict[str, MetricDict]:
    """Per label type token recall of tagged predictions against tagged gold and its label entries."""
    return label_recall(compare(gold, predictions, parser, labels).label_hits)
