"""Suspect spans of a tagged gold: words that strong models tag and the gold does not, or the reverse.

For a benchmark whose gold is a tagged text (a long caption with its hallucinated words tagged), the
same likelihood ratio as :mod:`analysis.suspects.rank`, token by token (``docs/suspects.md``).
Each model tags a token that is truly hallucinated with its token recall ``r`` and a token that is
not with its false-alarm rate ``f`` (both measured on every caption against the gold, shrunk toward
the pooled rates). For a token the gold leaves untagged, a model that tags it adds
``log(r / f)`` to the evidence that the gold missed it, and a model that does not adds
``log((1 - r) / (1 - f))``; a tagged token is the mirror image. A model that rarely tags anything
says little by not tagging; a precise model that tags a word the gold left alone says a lot.
Consecutive tokens with positive evidence form a suspect span; a caption's score is its strongest
span's summed evidence, its ``suggested`` gold the caption with the spans whose posterior passes
one half (under :data:`~analysis.suspects.rank.PRIOR`) flipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.benchmarks import get
from analysis.benchmarks.base import Tagging
from analysis.query.flips import verdict_rows
from analysis.suspects.rank import PRIOR, Suspect

STRENGTH = 20.0
"""Pseudo-tokens pulling a model's recall and false-alarm rate toward the pooled ones."""
FLOOR = 0.01
"""Rates are kept in [FLOOR, 1 - FLOOR]."""


@dataclass(frozen=True)
class Span:
    """A run of suspect tokens: its characters in the untagged text, and which way the gold errs."""

    start: int
    end: int
    text: str
    tag: bool
    """True: strong models tag it and the gold does not; False: the gold tags it and they do not."""
    evidence: float
    models: int
    """Models whose tagging of the span disagrees with the gold."""
    answered: int


@dataclass(frozen=True)
class _Caption:
    item_id: str
    gold: str
    clean: str
    tokens: list[tuple[int, int]]
    gold_set: set[int]
    model_sets: dict[str, set[int]]


def tagging_of(benchmark: str, table: pd.DataFrame) -> Tagging | None:
    """The tag rules of a benchmark whose gold is tagged text (None: its gold is not)."""
    rows = table[(table["benchmark"].astype(str) == benchmark).to_numpy(dtype=bool)]
    if not len(rows):
        return None
    first = rows.iloc[0]
    kind = get(benchmark).gold_kind(str(first["task"] or ""), str(first["gold"] or ""))
    return kind.tagging if kind.form == "tagged" else None


def rank_spans(
    benchmark: str, table: pd.DataFrame, *, prior: float = PRIOR
) -> tuple[list[Suspect], dict[str, list[Span]]]:
    """(captions most suspect first, as :class:`Suspect`; item id -> its suspect spans)."""
    tagging = tagging_of(benchmark, table)
    if tagging is None:
        return [], {}
    captions = _captions(tagging, verdict_rows(table))
    rates = _rates(captions)
    threshold = math.log((1.0 - prior) / prior)
    found: list[tuple[float, Suspect]] = []
    spans_of: dict[str, list[Span]] = {}
    for c in captions:
        evidence = _token_evidence(c, rates)
        spans = _spans(c, evidence)
        spans_of[c.item_id] = [s for s in spans if s.evidence > 0]
        best = max(spans, key=lambda s: s.evidence, default=None)
        score = best.evidence if best is not None else max(evidence, default=0.0)
        flip = {i for s in spans if s.evidence > threshold for i in _token_range(c, s)}
        suggested = tagging.tag_tokens(c.clean, sorted(c.gold_set ^ flip)) if flip else None
        against = best.models if best is not None else 0
        answered = len(c.model_sets)
        found.append(
            (
                score,
                Suspect(
                    item_id=c.item_id,
                    task="",
                    rank=0,
                    score=score,
                    gold=c.gold,
                    suggested=suggested,
                    against=against,
                    agree=answered - against,
                    reasons=_reasons(spans, answered),
                    alternative=suggested or "",
                    posterior=1.0 / (1.0 + math.exp(-(score - threshold)))
                    if score - threshold > -700
                    else 0.0,
                ),
            )
        )
    found.sort(key=lambda p: (-round(p[0], 9), p[1].item_id))
    out = [Suspect(**{**s.__dict__, "rank": i}) for i, (_, s) in enumerate(found, start=1)]
    return out, spans_of


def _captions(tagging: Tagging, rows: pd.DataFrame) -> list[_Caption]:
    out: dict[str, _Caption] = {}
    for item, model, gold, answer in zip(
        rows["item_id"].astype(str), rows["model"].astype(str), rows["gold"], rows["raw_answer"], strict=True
    ):
        if not model or not isinstance(gold, str) or not isinstance(answer, str):
            continue
        c = out.get(item)
        if c is None:
            clean = tagging.strip(gold)
            c = out[item] = _Caption(
                item, gold, clean, tagging.tokens(clean), tagging.selected_tokens(gold), {}
            )
        if tagging.strip(answer) == c.clean:  # tokens line up only on the same text
            c.model_sets[model] = tagging.selected_tokens(answer)
    return [c for c in out.values() if c.model_sets]


def _rates(captions: Sequence[_Caption]) -> dict[str, tuple[float, float]]:
    """Model -> (token recall, false-alarm rate) against the gold, shrunk toward the pooled rates."""
    counts: dict[str, list[int]] = {}
    for c in captions:
        n = len(c.tokens)
        for model, tagged in c.model_sets.items():
            k = counts.setdefault(model, [0, 0, 0, 0])  # hits, gold-tagged, false alarms, gold-untagged
            k[0] += len(tagged & c.gold_set)
            k[1] += len(c.gold_set)
            k[2] += len(tagged - c.gold_set)
            k[3] += n - len(c.gold_set)
    pooled = [sum(k[i] for k in counts.values()) for i in range(4)]
    r0 = (pooled[0] + 1) / (pooled[1] + 2)
    f0 = (pooled[2] + 1) / (pooled[3] + 2)
    out = {}
    for model, k in counts.items():
        r = (k[0] + STRENGTH * r0) / (k[1] + STRENGTH)
        f = (k[2] + STRENGTH * f0) / (k[3] + STRENGTH)
        out[model] = (min(max(r, FLOOR), 1 - FLOOR), min(max(f, FLOOR), 1 - FLOOR))
    return out


def _token_evidence(c: _Caption, rates: dict[str, tuple[float, float]]) -> list[float]:
    """Per token, the log likelihood ratio that the gold's reading of it is wrong."""
    out = []
    for t in range(len(c.tokens)):
        gold_tags = t in c.gold_set
        total = 0.0
        for model, tagged in c.model_sets.items():
            r, f = rates[model]
            says = t in tagged
            flipped = math.log(r / f) if says else math.log((1 - r) / (1 - f))
            total += -flipped if gold_tags else flipped
        out.append(total)
    return out


def _spans(c: _Caption, evidence: Sequence[float]) -> list[Span]:
    """Runs of consecutive tokens with positive evidence and the same gold reading."""
    spans: list[Span] = []
    run: list[int] = []
    for t in [*range(len(c.tokens)), -1]:
        joins = t >= 0 and evidence[t] > 0 and (not run or (t in c.gold_set) == (run[0] in c.gold_set))
        if joins and run and t != run[-1] + 1:
            joins = False
        if joins:
            run.append(t)
            continue
        if run:
            spans.append(_span(c, run, evidence))
        run = [t] if t >= 0 and evidence[t] > 0 else []
    return spans


def _span(c: _Caption, run: list[int], evidence: Sequence[float]) -> Span:
    start, end = c.tokens[run[0]][0], c.tokens[run[-1]][1]
    gold_tags = run[0] in c.gold_set
    disagree = sum(1 for tagged in c.model_sets.values() if bool(set(run) & tagged) == (not gold_tags))
    return Span(
        start,
        end,
        c.clean[start:end],
        not gold_tags,
        sum(evidence[t] for t in run),
        disagree,
        len(c.model_sets),
    )


def _token_range(c: _Caption, s: Span) -> range:
    first = next(i for i, (a, _) in enumerate(c.tokens) if a == s.start)
    last = next(i for i, (_, b) in enumerate(c.tokens) if b == s.end)
    return range(first, last + 1)


def _reasons(spans: Sequence[Span], answered: int) -> tuple[str, ...]:
    shown = sorted((s for s in spans if s.evidence > 0), key=lambda s: -s.evidence)[:3]
    if not shown:
        return (f"the {answered} models that answered tag this caption as the gold does, or disagree weakly",)
    out = []
    for s in shown:
        if s.tag:
            out.append(f"{s.models} of {s.answered} models tag “{s.text}” as hallucinated; the gold does not")
        else:
            out.append(f"the gold tags “{s.text}” as hallucinated; {s.models} of {s.answered} models do not")
    return tuple(out)


def rank_any(benchmark: str, table: pd.DataFrame) -> list[Suspect]:
    """Suspects of any benchmark: spans where the gold is tagged text, else the choice ranking.

    The rows are taken model by model in one order, whatever order the files came in: the sums
    then add up alike, and the same answers give the same scores to the last digit.
    """
    from analysis.suspects.rank import rank_suspects

    table = table.iloc[np.argsort(table["model"].astype(str).to_numpy(), kind="stable")]
    if tagging_of(benchmark, table) is not None:
        return rank_spans(benchmark, table)[0]
    return rank_suspects(benchmark, table)
