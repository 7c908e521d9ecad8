"""Hallucination tags and tokens: pure functions over one caption.

DetailVerifyBench marks hallucinated text as ``<HALLUCINATION>...</HALLUCINATION>``. The functions
here read one caption exactly as the official scorer does (tag pairs, tokens, token flags,
sentence token counts) and add what a viewer needs: a tag parse that never fails on malformed
markup, a token alignment, and the projection of span-list predictions onto a caption (how the
published span-list detections are scored). Whole-column scoring lives in :mod:`.batch`, which is
tested against these reference functions; the inspector's hit / miss / false-alarm view is
:mod:`.span_view`.

Offsets are Python string indices. "Clean" text is the caption with every tag string removed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from analysis.benchmarks.detailverifybench.tags import CLOSE as CLOSE
from analysis.benchmarks.detailverifybench.tags import OPEN as OPEN

NO_HALLUCINATION = "NO HALLUCINATION"
"""A prediction that, stripped and upper-cased, equals this means "the caption is clean"."""

TOKEN_PATTERN = re.compile(
    r"[A-Za-z0-9]+(?:[-'.@_][A-Za-z0-9]+)*"
    r"|[@#][A-Za-z0-9_]+"
    r"|[\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff]+"
)
"""The official token rule, alternatives in order; everything else (punctuation, space) is dropped."""

SENTENCE_SPLIT = re.compile(r"(?<=[.!?。！？])\s*")
_TAG = re.compile(f"{OPEN}|{CLOSE}")
_TAG_SPLIT = re.compile(f"({OPEN}|{CLOSE})")
_LABEL_JUNK = re.compile(r"[^\w\s]")
_WORD = re.compile(r"\w+")

Span = tuple[int, int]
SegmentKind = Literal["text", "hallucination", "tag", "stray_tag"]


@dataclass(frozen=True)
class TagRange:
    """One tag pair as the official scorer reads it (non-greedy, first close after an open)."""

    start: int
    """Offset of the content in the tagged text (just after ``<HALLUCINATION>``)."""
    end: int
    """Offset of the closing tag in the tagged text."""
    clean_start: int
    """The same range in the clean text."""
    clean_end: int


@dataclass(frozen=True)
class Segment:
    """A piece of a tagged caption for display; the segments of a text re-join to it exactly."""

    start: int
    end: int
    kind: SegmentKind
    """``hallucination`` inside a tag pair, ``tag`` the markup of a pair, ``stray_tag`` markup the
    official reading ignores (unclosed, nested or unopened tags), else ``text``."""


def strip_tags(text: str) -> str:
    """Remove every tag string, scanning left to right like the official scorer."""
    return _TAG.sub("", text)


def read_tags(text: str) -> tuple[str, list[TagRange]]:
    """Clean text and the official tag pairs of a tagged caption.

    Same result as ``re.finditer(r"<HALLUCINATION>(.*?)</HALLUCINATION>", text, re.S)``: an open
    tag pairs with the first close tag after it; opens inside a pair, closes outside one and an
    unclosed open are markup that pairs with nothing.
    """
    clean, pairs = tag_pairs(text)
    return clean, [TagRange(*pair) for pair in pairs]


def tag_pairs(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """:func:`read_tags` with plain tuples ``(start, end, clean_start, clean_end)``, for hot loops."""
    parts = _TAG_SPLIT.split(text)
    if len(parts) == 1:
        return text, []
    pairs: list[tuple[int, int, int, int]] = []
    clean_pos = orig_pos = 0
    opened = False
    open_orig = open_clean = 0
    for piece, tag in zip(parts[0::2], parts[1::2], strict=False):
        clean_pos += len(piece)
        orig_pos += len(piece)
        if tag == OPEN:
            if not opened:
                opened, open_orig, open_clean = True, orig_pos + len(OPEN), clean_pos
        elif opened:
            pairs.append((open_orig, orig_pos, open_clean, clean_pos))
            opened = False
        orig_pos += len(tag)
    return "".join(parts[0::2]), pairs


def tokenize(clean: str) -> list[Span]:
    """Token spans of a clean text under the official rule."""
    return [m.span() for m in TOKEN_PATTERN.finditer(clean)]


def token_flags(tagged: str) -> tuple[str, list[Span], list[bool]]:
    """Clean text, token spans and, per token, whether it overlaps a tag pair (partly counts).

    The official scorer compares offsets in the tagged text; in clean offsets the same test is
    ``start < range end and range start < end`` (an empty pair strictly inside a token marks it).
    """
    clean, ranges = read_tags(tagged)
    spans = tokenize(clean)
    flags = [any(s < r.clean_end and r.clean_start < e for r in ranges) for s, e in spans]
    return clean, spans, flags


def is_no_hallucination(prediction: str) -> bool:
    """Whether a prediction is the "nothing is hallucinated" answer."""
    return prediction.strip().upper() == NO_HALLUCINATION


def sentence_token_counts(clean: str) -> list[int]:
    """Tokens per sentence, each sentence tokenised alone (so "3.5" and "U.S." split)."""
    return [len(TOKEN_PATTERN.findall(s)) for s in SENTENCE_SPLIT.split(clean) if s.strip()]


def segments(tagged: str) -> list[Segment]:
    """Cut a tagged caption into text, hallucination and markup pieces; never fails."""
    _, ranges = read_tags(tagged)
    paired = {r.start - len(OPEN) for r in ranges} | {r.end for r in ranges}
    out: list[Segment] = []
    pos = 0
    inside = iter(ranges)
    current = next(inside, None)
    for match in _TAG.finditer(tagged):
        start, end = match.span()
        if start > pos:
            within = current is not None and current.start <= pos and start <= current.end
            out.append(Segment(pos, start, "hallucination" if within else "text"))
        out.append(Segment(start, end, "tag" if start in paired else "stray_tag"))
        if current is not None and start == current.end:
            current = next(inside, None)
        pos = end
    if pos < len(tagged):
        out.append(Segment(pos, len(tagged), "text"))
    return out


def tag_problems(tagged: str) -> list[str]:
    """Malformed markup in a caption: counts that differ, nested, unopened or unclosed tags."""
    problems: list[str] = []
    opens = tagged.count(OPEN)
    closes = tagged.count(CLOSE)
    if opens != closes:
        problems.append(f"{opens} opening vs {closes} closing tags")
    depth = 0
    for match in _TAG.finditer(tagged):
        if match.group() == OPEN:
            if depth:
                problems.append(f"nested opening tag at offset {match.start()}")
            depth += 1
        elif depth:
            depth -= 1
        else:
            problems.append(f"closing tag without an opening tag at offset {match.start()}")
    return problems


def label_key(text: str) -> str:
    """How the official scorer matches a tag's text to a label entry's text."""
    return _LABEL_JUNK.sub("", text.strip().lower())


def match_labels(tag_texts: Sequence[str], labels: Sequence[Mapping[str, Any]]) -> list[str]:
    """Label type of each tag: the first label of the first unused entry with the same key.

    A tag with no such entry, or whose entry has no labels, is ``Unknown``.
    """
    pool: dict[str, list[Mapping[str, Any]]] = {}
    for entry in labels:
        pool.setdefault(label_key(str(entry.get("text", ""))), []).append(entry)
    out: list[str] = []
    for text in tag_texts:
        entries = pool.get(label_key(text))
        kinds = entries.pop(0).get("labels", ["Unknown"]) if entries else ["Unknown"]
        out.append(str(kinds[0]) if kinds else "Unknown")
    return out


def token_opcodes(gold: Sequence[str], pred: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib`` opcodes turning ``gold`` into ``pred`` (equal, replace, delete, insert).

    The common head and tail are matched first and only the middle goes to ``SequenceMatcher``:
    captions usually differ in a word or two, and frequent words ("the", "a") make the full
    matcher slow on 200-token captions.
    """
    size = min(len(gold), len(pred))
    head = 0
    while head < size and gold[head] == pred[head]:
        head += 1
    tail = 0
    while tail < size - head and gold[len(gold) - 1 - tail] == pred[len(pred) - 1 - tail]:
        tail += 1
    g_end, p_end = len(gold) - tail, len(pred) - tail
    middle = difflib.SequenceMatcher(None, list(gold[head:g_end]), list(pred[head:p_end]), autojunk=False)
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [
        (op, g0 + head, g1 + head, p0 + head, p1 + head)
        for op, g0, g1, p0, p1 in middle.get_opcodes()
        if op != "equal" or g1 > g0
    ]
    if tail:
        ops.append(("equal", g_end, len(gold), p_end, len(pred)))
    return ops


def align_flags(
    gold_tokens: Sequence[str], pred_tokens: Sequence[str], pred_flags: Sequence[bool]
) -> tuple[list[bool], int]:
    """Carry prediction flags onto gold token positions through a token alignment (NOT official).

    Equal blocks and same-size replacements map one to one; a gold token in a replacement of
    another size is flagged if any replacing token is; a gold token the prediction dropped is
    clean. Returns the flags (one per gold token) and how many flagged prediction tokens have no
    gold position (inserted words), which the aligned scorer counts as false alarms.
    """
    mapped = [False] * len(gold_tokens)
    orphans = 0
    for op, g0, g1, p0, p1 in token_opcodes(gold_tokens, pred_tokens):
        if op == "equal" or (op == "replace" and g1 - g0 == p1 - p0):
            mapped[g0:g1] = [bool(f) for f in pred_flags[p0:p1]]
        elif op == "replace":
            mapped[g0:g1] = [any(pred_flags[p0:p1])] * (g1 - g0)
        elif op == "insert":
            orphans += sum(1 for f in pred_flags[p0:p1] if f)
    return mapped, orphans


def tag_spans(text: str, span_strings: Sequence[str], *, every: bool = False) -> tuple[str, list[str]]:
    """Tag span-list predictions on a clean caption; return the tagged text and unlocated spans.

    Each listed span takes its first free occurrence (``every``: all occurrences), looked up as
    a whole-word exact match, then an exact match anywhere, then with any punctuation or space
    between its words ("white cross - belts" finds "white cross-belts"), then the same ignoring
    case. Blank spans are dropped. Overlapping occurrences merge into one tag pair.
    """
    taken: list[Span] = []
    unlocated: list[str] = []
    for raw in span_strings:
        needle = raw.strip()
        if not needle:
            continue
        found = _locate(text, needle, taken, every)
        if not found:
            unlocated.append(raw)
        taken.extend(found)
    merged: list[list[int]] = []
    for start, end in sorted(taken):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: list[str] = []
    pos = 0
    for start, end in merged:
        pieces += [text[pos:start], OPEN, text[start:end], CLOSE]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), unlocated


def _locate(text: str, needle: str, taken: Sequence[Span], every: bool) -> list[Span]:
    words = _WORD.findall(needle)
    flexible = r"\W*".join(map(re.escape, words)) if words else re.escape(needle)
    edge_l = r"(?<!\w)" if needle[0].isalnum() else ""
    edge_r = r"(?!\w)" if needle[-1].isalnum() else ""
    for pattern, flags in (
        (edge_l + re.escape(needle) + edge_r, 0),
        (re.escape(needle), 0),
        (flexible, 0),
        (flexible, re.IGNORECASE),
    ):
        hits = [m.span() for m in re.finditer(pattern, text, flags) if m.end() > m.start()]
        if not hits:
            continue
        if every:
            return hits
        free = [h for h in hits if all(h[1] <= s or e <= h[0] for s, e in taken)]
        return [free[0] if free else hits[0]]
    return []
