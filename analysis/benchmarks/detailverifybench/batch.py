"""Official DetailVerifyBench tokens and token flags for many captions at once (numpy).

The reference rules are in :mod:`.spans` (one caption at a time, regex based); this
module gives the same answer for a whole column without a Python object per token:

- the tagged captions of a chunk are joined with newlines (never part of a token or a tag) and
  split once on the tag strings; the tags are paired like the official non-greedy regex: after
  each closing tag (or at a caption's start) a new group begins, a group whose first tag opens
  and whose last tag closes is a pair (the opens between are part of its content), any other
  group pairs nothing. The text between the tags is the clean chunk;
- tokens, sentence marks and flags come from character classes of the clean chunk
  (:mod:`analysis.benchmarks.detailverifybench.chars`);
- :func:`tokenize_like` reads predictions next to their gold captions: a prediction whose clean
  text is its gold's (the usual answer: the caption, re-tagged) takes the gold's tokens and only
  gets its own flags.

Per token the table also keeps what the sentence-level score needs: how many pieces the official
sentence split cuts it into (one more than the ``.`` inside it, since every ``.`` ends a
"sentence") and how many sentence-ending characters come before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from analysis.benchmarks.detailverifybench import chars
from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CHUNK_TEXTS = 2048
"""Captions per vectorised pass: bounds memory (a code-point array of a few MB) per pass."""

_TAG_SPLIT = re.compile(f"({re.escape(OPEN)}|{re.escape(CLOSE)})")


@dataclass(frozen=True)
class TokenTable:
    """Tokens of many captions, flattened: caption ``i`` owns tokens ``offsets[i]:offsets[i+1]``."""

    texts: Sequence[str]
    """The tagged captions, as given."""
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
    range_bounds: IntArray
    """Per tag pair, ``(start, end)`` of its content in its tagged caption (shape ``(n, 2)``)."""
    pieces: IntArray
    """Sentence pieces the token is cut into when each sentence is tokenised alone."""
    ends_before: IntArray
    """Sentence-ending characters (``.!?。！？``) before the token in its caption."""
    clean_joined: tuple[str, ...]
    """Clean captions of each chunk joined by newlines; caption ``i`` is a slice of one of them."""
    clean_where: IntArray
    """Per caption, ``(chunk, start, end)`` of its clean text in ``clean_joined`` (shape ``(n, 3)``)."""

    def counts(self) -> IntArray:
        """Tokens per caption."""
        return np.diff(self.offsets)

    def clean(self, index: int) -> str:
        """Caption ``index`` without its tags."""
        chunk, start, end = (int(x) for x in self.clean_where[index])
        return self.clean_joined[chunk][start:end]

    @cached_property
    def cleans(self) -> list[str]:
        """Each caption without its tags (built on first use)."""
        return [self.clean_joined[k][s:e] for k, s, e in self.clean_where.tolist()]

    @cached_property
    def range_texts(self) -> list[str]:
        """Text inside each tag pair, as written (built on first use: only label types need it)."""
        owner = np.repeat(np.arange(len(self.texts)), np.diff(self.range_offsets)).tolist()
        return [self.texts[i][s:e] for i, (s, e) in zip(owner, self.range_bounds.tolist(), strict=True)]

    def words(self, index: int) -> list[str]:
        """Token strings of caption ``index`` (only for the few captions that need them)."""
        lo, hi = int(self.offsets[index]), int(self.offsets[index + 1])
        clean = self.clean(index)
        spans = zip(self.starts[lo:hi].tolist(), self.ends[lo:hi].tolist(), strict=True)
        return [clean[s:e] for s, e in spans]


@dataclass(frozen=True)
class _Tags:
    """A joined chunk without its tag strings, and its official tag pairs in text order."""

    clean: str
    clean_bases: IntArray
    """Where each caption starts in ``clean``."""
    caption: IntArray
    """Per pair, the caption it is in."""
    start: IntArray
    """Content of each pair in the joined tagged text (``start`` just after the opening tag)."""
    end: IntArray
    clean_start: IntArray
    """The same range in ``clean``."""
    clean_end: IntArray

    def clean_ends(self, n: int) -> IntArray:
        """Where each of the ``n`` captions ends in ``clean``."""
        return np.append(self.clean_bases[1:] - 1, len(self.clean))[:n]


def tokenize_texts(tagged: Sequence[str], *, sentences: bool = True) -> TokenTable:
    """Clean, tokenise and flag every caption of ``tagged`` by the official rules.

    ``sentences=False`` leaves ``pieces`` and ``ends_before`` empty (predictions never need them).
    """
    parts = [_chunk(tagged[i : i + CHUNK_TEXTS], sentences) for i in range(0, len(tagged), CHUNK_TEXTS)]
    return _concat(tagged, parts)


def _chunk(texts: Sequence[str], sentences: bool) -> TokenTable:
    bases = _bases(texts)
    tags = _read_tags("\n".join(texts), bases)
    codes, classes, wide = chars.code_points(tags.clean)
    clean_bases, clean_ends = tags.clean_bases, tags.clean_ends(len(texts))
    if wide.size:
        starts, ends = chars.token_bounds(classes, wide[chars.is_cjk(codes[wide])])
    else:
        starts, ends = chars.ascii_token_bounds(classes)
    starts, ends = chars.regex_where_needed(tags.clean, clean_bases, clean_ends, starts, ends)
    # Few keys into many sorted values: per caption, per tag pair, per "." (never per token).
    offsets = np.searchsorted(starts, np.append(clean_bases, codes.size)).astype(np.int64, copy=False)
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), np.diff(offsets))
    pieces = ends_before = np.zeros(0, dtype=np.int64)
    if sentences:
        marks = chars.sentence_ends(codes, classes, wide)
        before, pieces = chars.sentence_marks(marks, codes[marks] == ord("."), starts, ends)
        ends_before = before - np.searchsorted(marks, clean_bases)[owner]
    first = chars.first_overlap(tags.clean_start, tags.clean_end, starts, ends)
    return _table(
        texts,
        tags,
        bases,
        offsets,
        starts - clean_bases[owner],
        ends - clean_bases[owner],
        first,
        pieces,
        ends_before,
    )


def tokenize_like(tagged: Sequence[str], like: TokenTable) -> tuple[TokenTable, BoolArray]:
    """:func:`tokenize_texts` (without sentences) of captions paired with those of ``like``.

    A prediction usually has the words of its gold caption with other tags: where the clean
    texts are equal, the tokens are ``like``'s and only the flags are new (this caption's own
    tag pairs over those tokens); the other captions are tokenised. Returns the table and, per
    caption, whether its clean text equals ``like``'s. Meant for chunk-sized inputs.
    """
    if len(tagged) != len(like.texts):
        raise ValueError(f"{len(tagged)} captions to tokenise like {len(like.texts)}")
    bases = _bases(tagged)
    tags = _read_tags("\n".join(tagged), bases)
    same = _same_clean(tags, like)
    n_like = int(like.offsets[-1])
    counts = np.where(same, like.counts(), 0)
    first_token = like.offsets[:-1].copy()
    starts, ends = like.starts, like.ends
    others = np.flatnonzero(~same)
    if others.size:
        own = _chunk([tagged[i] for i in others.tolist()], sentences=False)
        counts[others] = own.counts()
        first_token[others] = own.offsets[:-1] + n_like
        starts, ends = np.concatenate((starts, own.starts)), np.concatenate((ends, own.ends))
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64, copy=False)
    if others.size:  # gather each caption's tokens from ``like`` or from its own table
        pick = np.repeat(first_token - offsets[:-1], counts) + np.arange(int(offsets[-1]), dtype=np.int64)
        starts, ends = starts[pick], ends[pick]
    shift = np.repeat(tags.clean_bases, counts)
    first = chars.first_overlap(tags.clean_start, tags.clean_end, starts + shift, ends + shift)
    empty = np.zeros(0, dtype=np.int64)
    return _table(tagged, tags, bases, offsets, starts, ends, first, empty, empty), same


def _same_clean(tags: _Tags, like: TokenTable) -> BoolArray:
    """Per caption, whether its clean text equals that of the same caption of ``like``.

    Consecutive captions of equal lengths (within one chunk of ``like``) lie the same distance
    apart in both joined texts, so one comparison settles a whole run of them; captions are
    compared one by one only inside a run that differs.
    """
    n = tags.clean_bases.size
    if n == 0:
        return np.zeros(0, dtype=bool)
    starts, ends = tags.clean_bases.tolist(), tags.clean_ends(n).tolist()
    where = like.clean_where
    equal_size = (tags.clean_ends(n) - tags.clean_bases) == (where[:, 2] - where[:, 1])
    cut = np.flatnonzero(np.diff(equal_size.astype(np.int8)) | np.diff(where[:, 0]).astype(bool)) + 1
    chunk, g_start, g_end = (where[:, i].tolist() for i in range(3))
    same = np.zeros(n, dtype=bool)
    for lo, hi in zip([0, *cut.tolist()], [*cut.tolist(), n], strict=True):
        if not equal_size[lo]:
            continue
        theirs = like.clean_joined[chunk[lo]]
        if tags.clean[starts[lo] : ends[hi - 1]] == theirs[g_start[lo] : g_end[hi - 1]]:
            same[lo:hi] = True
            continue
        for i in range(lo, hi):
            same[i] = tags.clean[starts[i] : ends[i]] == theirs[g_start[i] : g_end[i]]
    return same


def _bases(texts: Sequence[str]) -> IntArray:
    """Where each text starts once they are joined with newlines."""
    steps = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
    return np.cumsum(steps) - steps


def _table(
    texts: Sequence[str],
    tags: _Tags,
    bases: IntArray,
    offsets: IntArray,
    starts: IntArray,
    ends: IntArray,
    first: IntArray,
    pieces: IntArray,
    ends_before: IntArray,
) -> TokenTable:
    """Assemble a chunk's table (token spans relative to their own caption)."""
    range_counts = np.bincount(tags.caption, minlength=len(texts))
    clean_bases = tags.clean_bases
    return TokenTable(
        texts=texts,
        offsets=offsets,
        starts=starts,
        ends=ends,
        flags=first >= 0,
        first_range=first,
        range_offsets=np.concatenate(([0], np.cumsum(range_counts))).astype(np.int64, copy=False),
        range_bounds=np.stack((tags.start - bases[tags.caption], tags.end - bases[tags.caption]), axis=1),
        pieces=pieces,
        ends_before=ends_before,
        clean_joined=(tags.clean,),
        clean_where=np.stack((np.zeros_like(clean_bases), clean_bases, tags.clean_ends(len(texts))), axis=1),
    )


def _read_tags(joined: str, bases: IntArray) -> _Tags:
    """Drop the tag strings of a joined chunk and find the pairs the official regex reads.

    Tag strings never hold a newline, so none spans two captions, and a left-to-right split of
    the whole chunk finds exactly the tags a split of each caption would.
    """
    parts = _TAG_SPLIT.split(joined)
    if len(parts) == 1:
        empty = np.zeros(0, dtype=np.int64)
        return _Tags(joined, bases, empty, empty, empty, empty, empty)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    tag_length = lengths[1::2]
    tag_pos = np.cumsum(lengths)[0::2][:-1]  # a tag starts where the text before it ends
    removed = np.concatenate(([0], np.cumsum(tag_length)))  # tag characters before each tag
    closing = tag_length == len(CLOSE)
    caption = np.searchsorted(bases, tag_pos, side="right") - 1
    new_group = np.ones(tag_pos.size, dtype=bool)
    new_group[1:] = (caption[1:] != caption[:-1]) | closing[:-1]
    first = np.flatnonzero(new_group)
    last = np.append(first[1:], tag_pos.size) - 1
    paired = ~closing[first] & closing[last]
    opens, closes = first[paired], last[paired]
    return _Tags(
        clean="".join(parts[0::2]),
        clean_bases=bases - removed[np.searchsorted(tag_pos, bases)],
        caption=caption[opens].astype(np.int64, copy=False),
        start=tag_pos[opens] + len(OPEN),
        end=tag_pos[closes],
        clean_start=tag_pos[opens] - removed[opens],
        clean_end=tag_pos[closes] - removed[closes],
    )


def _concat(texts: Sequence[str], parts: Sequence[TokenTable]) -> TokenTable:
    if len(parts) == 1:
        return parts[0]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return TokenTable(
            texts,
            np.zeros(1, dtype=np.int64),
            empty,
            empty,
            empty.astype(bool),
            empty,
            np.zeros(1, dtype=np.int64),
            np.zeros((0, 2), dtype=np.int64),
            empty,
            empty,
            (),
            np.zeros((0, 3), dtype=np.int64),
        )
    token_shift = np.cumsum([0] + [int(p.offsets[-1]) for p in parts[:-1]])
    range_shift = np.cumsum([0] + [int(p.range_offsets[-1]) for p in parts[:-1]])
    first = [
        np.where(p.first_range >= 0, p.first_range + rs, -1) for p, rs in zip(parts, range_shift, strict=True)
    ]
    where = [p.clean_where + np.array([k, 0, 0]) for k, p in enumerate(parts)]
    return TokenTable(
        texts=texts,
        offsets=np.concatenate([[0]] + [p.offsets[1:] + s for p, s in zip(parts, token_shift, strict=True)]),
        starts=np.concatenate([p.starts for p in parts]),
        ends=np.concatenate([p.ends for p in parts]),
        flags=np.concatenate([p.flags for p in parts]),
        first_range=np.concatenate(first).astype(np.int64, copy=False),
        range_offsets=np.concatenate(
            [[0]] + [p.range_offsets[1:] + s for p, s in zip(parts, range_shift, strict=True)]
        ),
        range_bounds=np.concatenate([p.range_bounds for p in parts]),
        pieces=np.concatenate([p.pieces for p in parts]),
        ends_before=np.concatenate([p.ends_before for p in parts]),
        clean_joined=tuple(j for p in parts for j in p.clean_joined),
        clean_where=np.concatenate(where),
    )
