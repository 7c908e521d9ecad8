"""Character-level pieces of the batch tokeniser (:mod:`analysis.benchmarks.detailverifybench.batch`).

Everything here works on one chunk of clean captions joined by newlines, as a code-point array:

- token boundaries come from character classes: under the official pattern, a caption without
  ``@`` or ``#`` has exactly two kinds of token, maximal runs of ASCII letters and digits joined
  by single ``- ' . @ _`` characters that have a letter or digit on both sides, and maximal runs
  of CJK characters. Captions with ``@`` or ``#`` (where ``[@#][A-Za-z0-9_]+`` can cut a run) go
  through the regex itself;
- a token is flagged when a tag pair starts before its end and ends after its start (pairs and
  tokens are both sorted and disjoint, so a few ``searchsorted`` calls flag a whole chunk);
- sentence ends and the dots inside tokens give the official sentence-alone token counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.benchmarks.detailverifybench.spans import TOKEN_PATTERN

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Codes = npt.NDArray[Any]
"""Code points of a joined chunk: ``uint8`` when it is ASCII, else ``uint32``."""

# Character classes of ASCII code points; index 128 stands for every non-ASCII character.
_ALNUM, _CONNECTOR, _SENTENCE_END = 1, 2, 8
_ASCII_CLASS = np.zeros(129, dtype=np.uint8)
for _c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
    _ASCII_CLASS[ord(_c)] = _ALNUM
for _c in "-'@_":
    _ASCII_CLASS[ord(_c)] = _CONNECTOR
_ASCII_CLASS[ord(".")] = _CONNECTOR | _SENTENCE_END
_ASCII_CLASS[ord("!")] = _ASCII_CLASS[ord("?")] = _SENTENCE_END
_WIDE_SENTENCE_ENDS = np.array([ord(c) for c in "。！？"], dtype=np.uint32)
_CLASS_BYTES = bytes(_ASCII_CLASS[:128]) + bytes(128)
"""The classes as a ``bytes.translate`` table (only used on ASCII text)."""


def code_points(clean: str) -> tuple[Codes, npt.NDArray[np.uint8], IntArray]:
    """Code points, character classes and the positions of non-ASCII characters of a clean chunk.

    ASCII text (the usual caption) takes one byte per character and a ``bytes.translate`` for
    the classes; other text takes UTF-32 code units.
    """
    if clean.isascii():
        raw = clean.encode("ascii")
        classes = np.frombuffer(raw.translate(_CLASS_BYTES), dtype=np.uint8)
        return np.frombuffer(raw, dtype=np.uint8), classes, np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(clean.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    classes = np.take(_ASCII_CLASS, codes, mode="clip")  # every non-ASCII code reads entry 128
    return codes, classes, np.flatnonzero(codes >= 128)


def sentence_ends(codes: Codes, classes: npt.NDArray[np.uint8], wide: IntArray) -> IntArray:
    """Positions of the sentence-ending characters ``.!?。！？`` (``wide``: the non-ASCII positions)."""
    ends = np.flatnonzero((classes & _SENTENCE_END) != 0)
    if wide.size:
        ends = np.sort(np.concatenate((ends, wide[np.isin(codes[wide], _WIDE_SENTENCE_ENDS)])))
    return ends.astype(np.int64, copy=False)


def sentence_marks(
    marks: IntArray, is_dot: BoolArray, starts: IntArray, ends: IntArray
) -> tuple[IntArray, IntArray]:
    """Per token, the sentence ends (sorted ``marks``) before its start, and its sentence pieces.

    A token holding ``k`` dots is cut into ``k + 1`` pieces. One search of the marks among the
    token starts serves both (a bincount, not a search per token).
    """
    after = np.searchsorted(starts, marks, side="right")
    before = np.cumsum(np.bincount(after, minlength=starts.size + 1))[: starts.size]
    owner = after[is_dot] - 1
    hit = (owner >= 0) & (marks[is_dot] < ends[np.maximum(owner, 0)]) if starts.size else owner >= 0
    pieces = np.bincount(owner[hit], minlength=starts.size) + 1
    return before.astype(np.int64, copy=False), pieces.astype(np.int64, copy=False)


def is_cjk(codes: Codes) -> BoolArray:
    """CJK ideographs, hiragana and katakana: U+4E00..U+9FFF and U+3040..U+30FF."""
    codes = codes.astype(np.uint32, copy=False)
    return ((codes - 0x4E00) < 0x5200) | ((codes - 0x3040) < 0xC0)


def ascii_token_bounds(classes: npt.NDArray[np.uint8]) -> tuple[IntArray, IntArray]:
    """:func:`token_bounds` for ASCII text: token characters form runs, so edges alternate."""
    alnum = (classes & _ALNUM) != 0
    padded = np.zeros(alnum.size + 2, dtype=bool)
    padded[1:-1] = alnum
    # A connector between two letters/digits joins them into one token.
    padded[2:-2] |= ((classes[1:-1] & _CONNECTOR) != 0) & alnum[:-2] & alnum[2:]
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return edges[0::2].astype(np.int64, copy=False), edges[1::2].astype(np.int64, copy=False)


def token_bounds(classes: npt.NDArray[np.uint8], cjk: IntArray) -> tuple[IntArray, IntArray]:
    """Official token spans of a caption without ``@``/``#`` (see the module docstring)."""
    alnum = (classes & _ALNUM) != 0
    kind = alnum.astype(np.uint8)
    # A connector between two letters/digits joins them into one token.
    kind[1:-1] |= ((classes[1:-1] & _CONNECTOR) != 0) & alnum[:-2] & alnum[2:]
    kind[cjk] = 2
    padded = np.zeros(kind.size + 2, dtype=np.uint8)
    padded[1:-1] = kind
    change = padded[1:] != padded[:-1]
    starts = np.flatnonzero(change[:-1] & (kind != 0)).astype(np.int64, copy=False)
    ends = np.flatnonzero(change[1:] & (kind != 0)).astype(np.int64, copy=False) + 1
    return starts, ends


def regex_where_needed(
    joined: str, bases: IntArray, caption_ends: IntArray, starts: IntArray, ends: IntArray
) -> tuple[IntArray, IntArray]:
    """Replace the tokens of captions holding ``@`` or ``#`` by the regex's own reading."""
    if "@" not in joined and "#" not in joined:
        return starts, ends
    bounds = list(zip(bases.tolist(), caption_ends.tolist(), strict=True))
    special = [i for i, (s, e) in enumerate(bounds) if "@" in joined[s:e] or "#" in joined[s:e]]
    owner = np.searchsorted(bases, starts, side="right") - 1
    keep = ~np.isin(owner, special)
    extra_s: list[int] = []
    extra_e: list[int] = []
    for i in special:
        base, end = bounds[i]
        for match in TOKEN_PATTERN.finditer(joined, base, end):
            extra_s.append(match.start())
            extra_e.append(match.end())
    all_s = np.concatenate((starts[keep], np.asarray(extra_s, dtype=np.int64)))
    all_e = np.concatenate((ends[keep], np.asarray(extra_e, dtype=np.int64)))
    order = np.argsort(all_s, kind="stable")
    return all_s[order], all_e[order]


def first_overlap(r_start: IntArray, r_end: IntArray, starts: IntArray, ends: IntArray) -> IntArray:
    """Per token, the first range with ``range start < token end`` and ``range end > token start``.

    Tokens and ranges are both sorted and disjoint, so range ``r`` overlaps exactly the tokens
    ``first_after[r]:first_from[r]``; a difference array marks them, and a flagged token's first
    range is the first one ending after its position (ranges end in order).
    """
    out = np.full(starts.size, -1, dtype=np.int64)
    if r_start.size == 0:
        return out
    first_after = np.searchsorted(ends, r_start, side="right")
    first_from = np.searchsorted(starts, r_end, side="left")
    cover = np.cumsum(
        np.bincount(first_after, minlength=starts.size + 1)
        - np.bincount(first_from, minlength=starts.size + 1)
    )[: starts.size]
    flagged = np.flatnonzero(cover > 0)
    out[flagged] = np.searchsorted(first_from, flagged, side="right")
    return out
