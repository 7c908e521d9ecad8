"""DetailVerifyBench span view: hits, false alarms and misses over the caption, with label types.

The inspector's view of an item (``TAGGING.view`` in :mod:`.tagging`). It follows the official
scorer's reading (``docs/benchmarks/detailverifybench.md``): tokens by the official regex on the
untagged text, a token hallucinated when it overlaps a tag, and no alignment (the prediction's token *i* is
compared with the gold's token *i*), so what is coloured is exactly what is counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.benchmarks.base import SpanKind, SpanPiece, SpanView
from analysis.benchmarks.detailverifybench.spans import (
    is_no_hallucination,
    match_labels,
    read_tags,
    token_flags,
)
from analysis.stats.metrics import f1, ratio


def span_view(gold_tagged: str, predicted_tagged: str, labels: Sequence[Any] = ()) -> SpanView:
    """Colour the gold caption's tokens by comparing them with the prediction's, position by position."""
    gold_clean, gold_toks, gold_list = token_flags(gold_tagged)
    gold_flags = np.array(gold_list, dtype=bool)
    if is_no_hallucination(predicted_tagged):
        pred_flags = np.zeros(len(gold_toks), dtype=bool)
    else:
        pred_flags = np.array(token_flags(predicted_tagged)[2], dtype=bool)
    n = min(len(gold_toks), len(pred_flags))
    kinds = _kinds(gold_flags[:n], pred_flags[:n])
    token_label = _token_labels(gold_tagged, gold_toks, labels)
    pieces = _pieces(gold_clean, gold_toks, kinds, token_label)
    return SpanView(pieces, token_scores(gold_flags[:n], pred_flags[:n]), n, len(gold_toks), len(pred_flags))


def _kinds(gold: npt.NDArray[np.bool_], pred: npt.NDArray[np.bool_]) -> list[SpanKind | None]:
    return [
        ("hit" if g and p else "miss" if g else "false alarm" if p else None)
        for g, p in zip(gold.tolist(), pred.tolist(), strict=True)
    ]


def token_scores(gold: npt.NDArray[np.bool_], pred: npt.NDArray[np.bool_]) -> dict[str, float]:
    """Per-item token precision, recall, F1 and IoU, with the official zero conventions."""
    tp = int(np.count_nonzero(gold & pred))
    union = int(np.count_nonzero(gold | pred))
    precision = ratio(tp, int(np.count_nonzero(pred)), 0.0) or 0.0
    recall = ratio(tp, int(np.count_nonzero(gold)), 0.0) or 0.0
    iou = 0.0 if gold.size == 0 else (ratio(tp, union, 1.0) or 0.0)
    return {"precision": precision, "recall": recall, "f1": f1(precision, recall, 0.0) or 0.0, "iou": iou}


def _token_labels(
    gold_tagged: str, toks: Sequence[tuple[int, int]], labels: Sequence[Any]
) -> list[str | None]:
    """Label type of the gold tag each token lies in (None outside tags)."""
    clean, ranges = read_tags(gold_tagged)
    entries = [e for e in labels if isinstance(e, Mapping)]
    kinds = match_labels([clean[r.clean_start : r.clean_end] for r in ranges], entries)
    out: list[str | None] = []
    for s, e in toks:
        out.append(
            next(
                (k for r, k in zip(ranges, kinds, strict=True) if s < r.clean_end and r.clean_start < e), None
            )
        )
    return out


def _pieces(
    text: str, toks: Sequence[tuple[int, int]], kinds: Sequence[SpanKind | None], labels: Sequence[str | None]
) -> list[SpanPiece]:
    """Cut the text at token borders; the gap between two tokens of one kind joins their piece."""
    pieces: list[SpanPiece] = []
    at = 0
    for index, (start, end) in enumerate(toks):
        kind = kinds[index] if index < len(kinds) else "not compared"
        label = labels[index] if kind in ("hit", "miss") else None
        gap = text[at:start]
        if pieces and pieces[-1].kind == kind and pieces[-1].label == label and kind is not None:
            pieces[-1] = SpanPiece(pieces[-1].text + gap + text[start:end], kind, label)
        else:
            if gap:
                pieces.append(SpanPiece(gap, None))
            pieces.append(SpanPiece(text[start:end], kind, label))
        at = end
    if at < len(text):
        pieces.append(SpanPiece(text[at:], None))
    return _merge_plain(pieces)


def _merge_plain(pieces: list[SpanPiece]) -> list[SpanPiece]:
    out: list[SpanPiece] = []
    for piece in pieces:
        if out and piece.kind is None and out[-1].kind is None:
            out[-1] = SpanPiece(out[-1].text + piece.text, None)
        else:
            out.append(piece)
    return out
