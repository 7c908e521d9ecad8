"""Token selection <-> tagged caption, for editing DetailVerifyBench gold by picking tokens.

A reviewer picks tokens of the clean caption (official token rule, :func:`.spans.tokenize`);
:func:`tag_tokens` turns the picked token indices into a tagged caption and
:func:`selected_tokens` reads a tagged caption back into token indices with the official rule (a
token is hallucinated if it overlaps a tag pair, partly counts). The two are inverse:
``selected_tokens(tag_tokens(t, s)) == s`` and ``strip_tags(tag_tokens(t, s)) == t`` for a clean
caption ``t`` (one without tag strings).
"""

from __future__ import annotations

from collections.abc import Iterable

from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN, Span, token_flags, tokenize


def token_runs(selected: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive indices as ``(first, last)`` pairs, in order."""
    runs: list[tuple[int, int]] = []
    for index in sorted(set(selected)):
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def tag_tokens(clean_text: str, selected_token_indices: Iterable[int]) -> str:
    """Wrap each run of consecutive selected tokens in one tag pair.

    A tag opens at the first token's start and closes at the last token's end; the text between
    the tokens of a run (spaces, punctuation) stays inside the tag unchanged. Raises
    :class:`ValueError` for an index that is not a token of ``clean_text``.
    """
    spans: list[Span] = tokenize(clean_text)
    runs = token_runs(selected_token_indices)
    if runs and (runs[0][0] < 0 or runs[-1][1] >= len(spans)):
        raise ValueError(f"token index out of range: the caption has {len(spans)} token(s)")
    pieces: list[str] = []
    pos = 0
    for first, last in runs:
        start, end = spans[first][0], spans[last][1]
        pieces += [clean_text[pos:start], OPEN, clean_text[start:end], CLOSE]
        pos = end
    pieces.append(clean_text[pos:])
    return "".join(pieces)


def selected_tokens(tagged_caption: str) -> set[int]:
    """Indices of the tokens that overlap a tag pair, read as the official scorer reads tags."""
    _, _, flags = token_flags(tagged_caption)
    return {i for i, flag in enumerate(flags) if flag}
