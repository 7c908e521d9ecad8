"""The ``<HALLUCINATION>`` tag rules, in one place.

Two readings, on purpose: the official scorer's (exact-case tags, :data:`OPEN` / :data:`CLOSE`,
:func:`strip_tags` in :mod:`.spans`) and the editor's, which accepts any case so that a
reviewer's typed caption is read as meant (:func:`untag`, :func:`tagged_to_spans`), and always
writes the official spelling (:func:`spans_to_tagged`).

A correction may also name a tag's label type, ``<HALLUCINATION type="OCR Hallucination">``: the
official files keep types apart, in ``hallucination_labels``, so a new or merged span would
otherwise have none (``Unknown``). The attribute lives only in the label store's value; the item
table and every written file get the official tags (:func:`split_types`), and the type goes into
``hallucination_labels`` (:mod:`.label_types`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from analysis.errors import InvalidLabel

OPEN = "<HALLUCINATION>"
CLOSE = "</HALLUCINATION>"
_ANY_CASE_TAG = re.compile(
    r'<hallucination(?:\s+type\s*=\s*"([^"<>]*)")?\s*>|</hallucination>', re.IGNORECASE
)
MAX_TYPE = 80
"""Longest label type name a tag may carry."""

TypedSpan = tuple[int, int, str | None]
"""A tagged part ``[start, end)`` of the untagged caption and its label type (None: not named)."""


def untag(tagged: str) -> str:
    """The caption without its hallucination tags."""
    return _ANY_CASE_TAG.sub("", tagged)


def tagged_to_spans(tagged: str) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of the tagged parts, as offsets into the untagged caption."""
    return [(start, end) for start, end, _ in typed_spans(tagged)]


def typed_spans(tagged: str) -> list[TypedSpan]:
    """The tagged parts with the label type each opening tag names (None where it names none).

    An empty tag pair is dropped with its type.
    """
    spans: list[TypedSpan] = []
    start: int | None = None
    kind: str | None = None
    removed = 0
    for match in _ANY_CASE_TAG.finditer(tagged):
        at = match.start() - removed
        closing = match.group(0).startswith("</")
        if closing == (start is None):
            raise InvalidLabel(f"unbalanced or nested hallucination tag at character {match.start()}")
        if closing:
            assert start is not None
            if at > start:
                spans.append((start, at, kind))
            start = None
        else:
            start, kind = at, label_type(match.group(1))
        removed += len(match.group(0))
    if start is not None:
        raise InvalidLabel("a hallucination tag is not closed")
    return spans


def label_type(name: str | None) -> str | None:
    """A tag's label type as stored: trimmed; None for none, empty or ``Unknown`` (the official "none")."""
    if name is None:
        return None
    name = " ".join(name.split())
    if not name or name.lower() == "unknown":
        return None
    if len(name) > MAX_TYPE or any(c in name for c in '"<>'):
        raise InvalidLabel(f"a label type is at most {MAX_TYPE} characters, without quotes or angle brackets")
    return name


def opening(kind: str | None) -> str:
    """The opening tag, naming ``kind`` (a :func:`label_type`) if it is not None."""
    return OPEN if kind is None else f'{OPEN[:-1]} type="{kind}">'


def _span_parts(k: int, span: Any) -> tuple[int, int, str | None]:
    """``[start, end]`` or ``[start, end, type]`` as checked parts; :class:`InvalidLabel` otherwise."""
    ok = isinstance(span, (list, tuple)) and len(span) in (2, 3)
    ok = ok and all(isinstance(x, int) and not isinstance(x, bool) for x in span[:2])
    kind = span[2] if ok and len(span) == 3 else None
    if not ok or not (kind is None or isinstance(kind, str)):
        raise InvalidLabel(f"span {k} must be [start, end] or [start, end, type] (whole numbers, type text)")
    return int(span[0]), int(span[1]), label_type(kind)


def spans_to_tagged(clean: str, spans: Sequence[Sequence[Any]]) -> str:
    """Tag ``clean`` at the given character spans (sorted; overlapping spans are merged).

    A span may carry a label type as a third element (see :func:`typed_spans`); merged spans keep
    the first type named.
    """
    if not isinstance(spans, (list, tuple)):
        raise InvalidLabel("spans must be a list of [start, end] or [start, end, type]")
    parts = sorted((_span_parts(k, span) for k, span in enumerate(spans)), key=lambda p: p[:2])
    merged: list[list[Any]] = []
    for start, end, kind in parts:
        if not 0 <= start < end <= len(clean):
            raise InvalidLabel(f"span [{start}, {end}) is outside the caption (length {len(clean)})")
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            merged[-1][2] = merged[-1][2] or kind
        else:
            merged.append([start, end, kind])
    out, pos = [], 0
    for start, end, kind in merged:
        out += [clean[pos:start], opening(kind), clean[start:end], CLOSE]
        pos = end
    out.append(clean[pos:])
    return "".join(out)


def split_types(tagged: str) -> tuple[str, list[str | None]]:
    """The caption with official tags only, and the label type each tag named (None: none).

    A caption that names no type comes back unchanged (its tags are not re-spelled).
    """
    if "=" not in tagged or not any(m.group(1) is not None for m in _ANY_CASE_TAG.finditer(tagged)):
        return tagged, []
    spans = typed_spans(tagged)
    return spans_to_tagged(untag(tagged), [(s, e) for s, e, _ in spans]), [k for _, _, k in spans]
