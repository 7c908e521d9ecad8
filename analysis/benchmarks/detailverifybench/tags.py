"""The ``<HALLUCINATION>`` tag rules, in one place.

Two readings, on purpose: the official scorer's (exact-case tags, :data:`OPEN` / :data:`CLOSE`,
:func:`strip_tags` in :mod:`.spans`) and the editor's, which accepts any case so that a
reviewer's typed caption is read as meant (:func:`untag`, :func:`tagged_to_spans`), and always
writes the official spelling (:func:`spans_to_tagged`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analysis.errors import InvalidLabel

OPEN = "<HALLUCINATION>"
CLOSE = "</HALLUCINATION>"
_ANY_CASE_TAG = re.compile(r"</?hallucination>", re.IGNORECASE)


def untag(tagged: str) -> str:
    """The caption without its hallucination tags."""
    return _ANY_CASE_TAG.sub("", tagged)


def tagged_to_spans(tagged: str) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of the tagged parts, as offsets into the untagged caption."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    removed = 0
    for match in _ANY_CASE_TAG.finditer(tagged):
        at = match.start() - removed
        closing = match.group(0).startswith("</")
        if closing == (start is None):
            raise InvalidLabel(f"unbalanced or nested hallucination tag at character {match.start()}")
        if closing:
            assert start is not None
            if at > start:
                spans.append((start, at))
            start = None
        else:
            start = at
        removed += len(match.group(0))
    if start is not None:
        raise InvalidLabel("a hallucination tag is not closed")
    return spans


def spans_to_tagged(clean: str, spans: Sequence[Sequence[int]]) -> str:
    """Tag ``clean`` at the given character spans (sorted; overlapping spans are merged)."""
    merged: list[list[int]] = []
    for start, end in sorted((int(s), int(e)) for s, e in spans):
        if not 0 <= start < end <= len(clean):
            raise InvalidLabel(f"span [{start}, {end}) is outside the caption (length {len(clean)})")
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out += [clean[pos:start], OPEN, clean[start:end], CLOSE]
        pos = end
    out.append(clean[pos:])
    return "".join(out)
