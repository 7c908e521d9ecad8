"""Token selection <-> tagged caption, for editing DetailVerifyBench gold by picking tokens.

A reviewer picks tokens of the clean caption (official token rule, :func:`.spans.tokenize`);
:func:`tag_tokens` turns the picked token indices into a tagged caption and
:func:`selected_tokens` reads a tagged caption back into token indices with the official rule (a
token is hallucinated if it overlaps a tag pair, partly counts). The two are inverse:
``selected_tokens(tag_tokens(t, s)) == s`` and ``strip_tags(tag_tokens(t, s)) == t`` for a clean
caption ``t`` (one without tag strings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from analysis.benchmarks.base import token_runs as token_runs
from analysis.benchmarks.detailverifybench.spans import CLOSE, Span, token_flags, tokenize
from analysis.benchmarks.detailverifybench.tags import label_type, opening, split_types
from analysis.errors import InvalidLabel


def tag_tokens(
    clean_text: str, selected_token_indices: Iterable[int], types: Mapping[int, str] | None = None
) -> str:
    """Wrap each run of consecutive selected tokens in one tag pair.

    A tag opens at the first token's start and closes at the last token's end; the text between
    the tokens of a run (spaces, punctuation) stays inside the tag unchanged. ``types`` maps a
    run's first token index to the label type its tag names (:mod:`.tags`); other keys are
    ignored. Raises :class:`ValueError` for an index that is not a token of ``clean_text``, or
    for a malformed type.
    """
    spans: list[Span] = tokenize(clean_text)
    runs = token_runs(selected_token_indices)
    if runs and (runs[0][0] < 0 or runs[-1][1] >= len(spans)):
        raise ValueError(f"token index out of range: the caption has {len(spans)} token(s)")
    pieces: list[str] = []
    pos = 0
    for first, last in runs:
        start, end = spans[first][0], spans[last][1]
        try:
            kind = label_type((types or {}).get(first))
        except InvalidLabel as exc:
            raise ValueError(str(exc)) from None
        pieces += [clean_text[pos:start], opening(kind), clean_text[start:end], CLOSE]
        pos = end
    pieces.append(clean_text[pos:])
    return "".join(pieces)


def selected_tokens(tagged_caption: str) -> set[int]:
    """Indices of the tokens that overlap a tag pair, read as the official scorer reads tags.

    Types named in the tags (:mod:`.tags`) are set aside first: they do not move a tag.
    """
    _, _, flags = token_flags(split_types(tagged_caption)[0])
    return {i for i, flag in enumerate(flags) if flag}
