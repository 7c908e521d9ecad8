"""Official DetailVerifyBench tokens and token flags for many captions at once (numpy).

The reference rules are in :mod:`analysis.spans` (one caption at a time, regex based); this
module gives the same answer for a whole column without a Python object per token:

- tags are read per caption with :func:`analysis.spans.tag_pairs` (a handful per caption); the
  clean captions of a chunk are joined with newlines (never part of a token) into one
  code-point array;
- token boundaries come from character classes: under the official pattern, a caption without
  ``@`` or ``#`` has exactly two kinds of token, maximal runs of ASCII letters and digits joined
  by single ``- ' . @ _`` characters that have a letter or digit on both sides, and maximal runs
  of CJK characters. Captions with ``@`` or ``#`` (where ``[@#][A-Za-z0-9_]+`` can cut a run) go
  through the regex itself;
- a token is flagged when a tag pair starts before its end and ends after its start (pairs and
  tokens are both sorted and disjoint, so a few ``searchsorted`` calls flag a whole chunk).

It also records, per token, what the sentence-level score needs: how many pieces the official
sentence split cuts it into (one more than the ``.`` inside it, since every ``.`` ends a
"sentence") and how many sentence-ending characters come before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analysis.spans import TOKEN_PATTERN, tag_pairs

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CHUNK_TEXTS = 2048
"""Captions per vectorised pass: bounds memory (a code-point array of a few MB) per pass."""

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


@dataclass(frozen=True)
class TokenTable:
    """Tokens of many captions, flattened: caption ``i`` owns tokens ``offsets[i]:offsets[i+1]``."""

    cleans: list[str]
    """Each caption without its tags."""
    offsets: IntArray
    starts: IntArray
    """Token start in its clean caption."""
    ends: IntArray
    flags: BoolArray
    """Token overlaps a tag pair (hallucinated)."""
    first_range: IntArray
    """Index (into ``range_texts``) of the first tag pair the token overlaps; -1 if none."""
    range_offsets: IntArray
    """Caption ``i`` owns tag pairs ``range_offsets[i]:range_offsets[i+1]``."""
    range_texts: list[str]
    """Text inside each tag pair, as written (used to look up its label type)."""
    pieces: IntArray
    """Sentence pieces the token is cut into when each sentence is tokenised alone."""
    ends_before: IntArray
    """Sentence-ending characters (``.!?。！？``) before the token in its caption."""

    def counts(self) -> IntArray:
        """Tokens per caption."""
        return np.diff(self.offsets)

    def words(self, index: int) -> list[str]:
        """Token strings of caption ``index`` (only for the few captions that need them)."""
        lo, hi = int(self.offsets[index]), int(self.offsets[index + 1])
        clean = self.cleans[index]
        spans = zip(self.starts[lo:hi].tolist(), self.ends[lo:hi].tolist(), strict=True)
        return [clean[s:e] for s, e in spans]


def tokenize_texts(tagged: Sequence[str], *, sentences: bool = True) -> TokenTable:
    """Clean, tokenise and flag every caption of ``tagged`` by the official rules.

    ``sentences=False`` leaves ``pieces`` and ``ends_before`` empty (predictions never need them).
    """
    parts = [_chunk(tagged[i:i + CHUNK_TEXTS], sentences) for i in range(0, len(tagged), CHUNK_TEXTS)]
    return parts[0] if len(parts) == 1 else _concat(parts)


def _chunk(texts: Sequence[str], sentences: bool) -> TokenTable:
    cleans, range_counts, range_starts, range_ends, range_texts = _read_tags(texts)
    lengths = np.fromiter(map(len, cleans), dtype=np.int64, count=len(cleans))
    bases = np.cumsum(lengths + 1) - (lengths + 1)
    codes = np.frombuffer("\n".join(cleans).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    classes = np.take(_ASCII_CLASS, codes, mode="clip")  # every non-ASCII code reads entry 128
    wide = np.flatnonzero(codes >= 128)
    starts, ends = _token_bounds(classes, wide[_is_cjk(codes[wide])])
    starts, ends = _regex_where_needed(cleans, bases, starts, ends)
    # Few keys into many sorted values: per caption, per tag pair, per "." (never per token).
    offsets = np.searchsorted(starts, np.append(bases, codes.size)).astype(np.int64, copy=False)
    owner = np.repeat(np.arange(len(cleans), dtype=np.int64), np.diff(offsets))
    text_of_range = np.repeat(np.arange(len(cleans)), range_counts)
    first = _first_overlap(
        np.asarray(range_starts, dtype=np.int64) + bases[text_of_range],
        np.asarray(range_ends, dtype=np.int64) + bases[text_of_range],
        starts, ends,
    )
    pieces = ends_before = np.zeros(0, dtype=np.int64)
    if sentences:
        sentence_ends = np.flatnonzero(classes & _SENTENCE_END)
        if wide.size:
            wide_ends = wide[np.isin(codes[wide], _WIDE_SENTENCE_ENDS)]
            sentence_ends = np.sort(np.concatenate((sentence_ends, wide_ends)))
        ends_before = _count_before(sentence_ends, starts) - np.searchsorted(sentence_ends, bases)[owner]
        dots = sentence_ends[codes[sentence_ends] == ord(".")]
        pieces = _inside(dots, starts, ends) + 1
    return TokenTable(
        cleans=cleans,
        offsets=offsets,
        starts=starts - bases[owner],
        ends=ends - bases[owner],
        flags=first >= 0,
        first_range=first,
        range_offsets=np.concatenate(([0], np.cumsum(range_counts))).astype(np.int64, copy=False),
        range_texts=range_texts,
        pieces=pieces,
        ends_before=ends_before,
    )


def _read_tags(texts: Sequence[str]) -> tuple[list[str], list[int], list[int], list[int], list[str]]:
    """Clean captions and their tag pairs (clean offsets, text inside), one caption at a time.

    A handful of tags per caption: a plain loop here is cheaper than any array trick.
    """
    cleans: list[str] = []
    counts: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    inside: list[str] = []
    for text in texts:
        if "HALLUCINATION>" not in text:
            cleans.append(text)
            counts.append(0)
            continue
        clean, pairs = tag_pairs(text)
        cleans.append(clean)
        counts.append(len(pairs))
        for start, end, clean_start, clean_end in pairs:
            starts.append(clean_start)
            ends.append(clean_end)
            inside.append(text[start:end])
    return cleans, counts, starts, ends, inside


def _count_before(marks: IntArray, starts: IntArray) -> IntArray:
    """Per token, how many sorted ``marks`` lie before its start (a bincount, not a search per token)."""
    after = np.searchsorted(starts, marks, side="right")
    return np.cumsum(np.bincount(after, minlength=starts.size + 1))[:starts.size].astype(np.int64, copy=False)


def _inside(marks: IntArray, starts: IntArray, ends: IntArray) -> IntArray:
    """Per token, how many ``marks`` (character positions) lie inside it."""
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64)
    owner = np.searchsorted(starts, marks, side="right") - 1
    hit = (owner >= 0) & (marks < ends[np.maximum(owner, 0)])
    return np.bincount(owner[hit], minlength=starts.size).astype(np.int64, copy=False)


def _is_cjk(codes: npt.NDArray[np.uint32]) -> BoolArray:
    """CJK ideographs, hiragana and katakana: U+4E00..U+9FFF and U+3040..U+30FF."""
    return ((codes - 0x4E00) < 0x5200) | ((codes - 0x3040) < 0xC0)


def _token_bounds(classes: npt.NDArray[np.uint8], cjk: IntArray) -> tuple[IntArray, IntArray]:
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


def _regex_where_needed(
    cleans: Sequence[str], bases: IntArray, starts: IntArray, ends: IntArray
) -> tuple[IntArray, IntArray]:
    """Replace the tokens of captions holding ``@`` or ``#`` by the regex's own reading."""
    special = [i for i, c in enumerate(cleans) if "@" in c or "#" in c]
    if not special:
        return starts, ends
    owner = np.searchsorted(bases, starts, side="right") - 1
    keep = ~np.isin(owner, special)
    extra_s: list[int] = []
    extra_e: list[int] = []
    for i in special:
        base = int(bases[i])
        for match in TOKEN_PATTERN.finditer(cleans[i]):
            extra_s.append(base + match.start())
            extra_e.append(base + match.end())
    all_s = np.concatenate((starts[keep], np.asarray(extra_s, dtype=np.int64)))
    all_e = np.concatenate((ends[keep], np.asarray(extra_e, dtype=np.int64)))
    order = np.argsort(all_s, kind="stable")
    return all_s[order], all_e[order]


def _first_overlap(r_start: IntArray, r_end: IntArray, starts: IntArray, ends: IntArray) -> IntArray:
    """Per token, the first range with ``range start < token end`` and ``range end > token start``.

    Tokens and ranges are both sorted and disjoint, so range ``r`` overlaps exactly the tokens
    ``first_after[r]:first_from[r]``; a difference array marks them, and a flagged token's first
    range is the first one ending after its position (ranges end in order).
    """
    first_after = np.searchsorted(ends, r_start, side="right")
    first_from = np.searchsorted(starts, r_end, side="left")
    cover = np.cumsum(np.bincount(first_after, minlength=starts.size + 1)
                      - np.bincount(first_from, minlength=starts.size + 1))[:starts.size]
    flagged = np.flatnonzero(cover > 0)
    out = np.full(starts.size, -1, dtype=np.int64)
    out[flagged] = np.searchsorted(first_from, flagged, side="right")
    return out


def _concat(parts: Sequence[TokenTable]) -> TokenTable:
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return TokenTable([], np.zeros(1, dtype=np.int64), empty, empty, empty.astype(bool), empty,
                          np.zeros(1, dtype=np.int64), [], empty, empty)
    token_shift = np.cumsum([0] + [int(p.offsets[-1]) for p in parts[:-1]])
    range_shift = np.cumsum([0] + [int(p.range_offsets[-1]) for p in parts[:-1]])
    first = [np.where(p.first_range >= 0, p.first_range + rs, -1)
             for p, rs in zip(parts, range_shift, strict=True)]
    return TokenTable(
        cleans=[c for p in parts for c in p.cleans],
        offsets=np.concatenate([[0]] + [p.offsets[1:] + s for p, s in zip(parts, token_shift, strict=True)]),
        starts=np.concatenate([p.starts for p in parts]),
        ends=np.concatenate([p.ends for p in parts]),
        flags=np.concatenate([p.flags for p in parts]),
        first_range=np.concatenate(first).astype(np.int64, copy=False),
        range_offsets=np.concatenate(
            [[0]] + [p.range_offsets[1:] + s for p, s in zip(parts, range_shift, strict=True)]
        ),
        range_texts=[t for p in parts for t in p.range_texts],
        pieces=np.concatenate([p.pieces for p in parts]),
        ends_before=np.concatenate([p.ends_before for p in parts]),
    )
