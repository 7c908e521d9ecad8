"""CDH-Bench checks that read a pair's own words: its name against its gold, and its questions.

A pair is named ``"<counterfactual> vs <commonsense>"`` ("6 fingers vs 5 fingers"), its yes/no
question reads ``"<commonsense statement> and not <counterfactual statement>?"`` and its
multiple-choice question asks about one subject. Every check compares these parts with each other,
so what it flags is a contradiction inside the pair, never a guess from outside it:

- ``name-gold-mismatch``: a side of the name that counts something ("3 wings") against the option
  the gold letter points at ("D. 8 wings"), and the yes/no question's "and not" half against the
  counterfactual side of the name. When exactly one option says what the name says, the
  suggested correction is that letter.
- ``broken-question``: "not not melting", "not glowing and not glowing" (one phrase negated on
  both halves) and "Is the sandwich and not glowing?" (the first half has no predicate).
- ``question-mismatch``: a multiple-choice question about a subject ("this cactus", "these
  scissors") that appears nowhere else in the pair, or one that counts a part the options do not
  count ("How many arms" with options in petals).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from analysis.benchmarks.base import Finding, Fix
from analysis.benchmarks.cdh_bench.read import SIDES, GoldPair, item_id

_LETTERS = "ABCD"
_PREFIX = re.compile(r"^\s*([A-Da-d])\s*[.)]\s*")
_NUMBER = re.compile(r"\d+")
_WORD = re.compile(r"[a-z]+")
_VERB = re.compile(r"^(?:is|are|does|do|can|has|have)\s+", re.IGNORECASE)
_DETERMINER = frozenset({"the", "a", "an", "this", "these", "that", "those", "its", "their"})
_SUBJECT = re.compile(
    r"\b(?:this|these)\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)"  # "this cactus", "this savanna scene"
    r"(?=\s+(?:have|has|is|are|do|does)\b|[?.]|$)"
)
_COUNTED = re.compile(
    r"\bhow many\s+((?:[a-z-]+\s+)??[a-z-]+)\s+(?:does|do|are|is|emerge|can|attach)\b", re.IGNORECASE
)
# Head nouns that name the whole picture, not a subject in it: "this savanna scene" fits any pair.
_SCENE_WORDS = frozenset(
    [
        "scene",
        "image",
        "picture",
        "photo",
        "landscape",
        "room",
        "race",
        "animal",
        "object",
        "item",
        "setting",
        "situation",
        "view",
        "place",
        "area",
    ]
)
_GENERIC = frozenset(
    [
        "what",
        "which",
        "how",
        "many",
        "much",
        "does",
        "have",
        "has",
        "this",
        "these",
        "that",
        "the",
        "there",
        "color",
        "colour",
        "material",
        "shown",
        "select",
        "choose",
        "identify",
        "describe",
        "happening",
        "unusual",
        "about",
        "between",
        "relationship",
        "and",
        "not",
        "with",
        "are",
        "for",
        "from",
        "into",
        "onto",
        "its",
        "their",
        "they",
        "them",
    ]
)
"""Question words that say nothing about what a pair shows, so they cannot make it fit."""


def audit_wording(pairs: Sequence[GoldPair]) -> list[Finding]:
    """Every check of this module over the pairs."""
    return [*_name_vs_gold(pairs), *_broken_questions(pairs), *_question_mismatch(pairs)]


def sides_of(name: str) -> tuple[str, str] | None:
    """(counterfactual, commonsense) halves of a pair name ``"A vs B"``; None without ``" vs "``."""
    left, sep, right = name.partition(" vs ")
    return (left.strip(), right.strip()) if sep and left.strip() and right.strip() else None


def _lettered(options: list[str] | str) -> dict[str, str]:
    if not isinstance(options, list) or len(options) != 4:
        return {}
    out = {}
    for position, option in enumerate(options):
        match = _PREFIX.match(option)
        letter = match.group(1).upper() if match else _LETTERS[position]
        out[letter] = _PREFIX.sub("", option).strip()
    return out


def _numbers(text: str) -> tuple[str, ...]:
    return tuple(_NUMBER.findall(text))


def _fold(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _words(text: str) -> set[str]:
    """Content words, plural-folded ("wheels" ~ "wheel"); question and function words dropped."""
    return {_fold(w) for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _GENERIC}


_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}
_NUM = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
_COUNT = re.compile(r"^" + _NUM + r"\s+([a-z-]+)(?:\s*\([^)]*\))?$", re.IGNORECASE)
"""A side or an option that is only a count: ``"3 wings"``, ``"Three colors (red, blue, yellow)"``."""


def count_of(text: str) -> tuple[str, str] | None:
    """(number, folded unit) of a text that is only a count; None otherwise."""
    match = _COUNT.match(text.strip().rstrip("."))
    if match is None:
        return None
    number = match.group(1).lower()
    return _NUMBER_WORDS.get(number, number), _fold(match.group(2).lower())


def counts_in(text: str, unit: str) -> list[str]:
    """Every number in ``text`` counting ``unit`` (``["4", "3"]`` in "4 thumbs (one hand with 3 thumbs)")."""
    found = []
    for match in re.finditer(_NUM + r"\s+([a-z-]+)", text, re.IGNORECASE):
        if _fold(match.group(2).lower()) == unit:
            number = match.group(1).lower()
            found.append(_NUMBER_WORDS.get(number, number))
    return found


def question_order(pair: GoldPair) -> str | None:
    """Which side the yes/no question states first: ``commonsense`` or ``counterfactual``.

    The question reads "<first> and not <second>?"; each half is compared, by content words, with
    the two sides of the pair name. None when the words cannot tell (counts: "5 fingers" and
    "6 fingers" share their words).
    """
    sides = sides_of(pair.pair_name)
    first, sep, second = pair.questions["qa"].rpartition(" and not ")
    if sides is None or not sep:
        return None
    cf, cs = (_words(side) for side in sides)
    head, tail = _words(first), _words(second)
    lean = len(head & cs) - len(head & cf) + len(tail & cf) - len(tail & cs)
    return "commonsense" if lean > 0 else "counterfactual" if lean < 0 else None


def _name_vs_gold(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    """Three sources count each side: the name, the multiple-choice gold, the yes/no question.

    The yes/no question states the commonsense side first and rules out the counterfactual side
    after "and not". When two sources agree, the third is the suspect, and the finding says so:
    a wrong gold letter is an error with the agreeing option as its fix; a wrong name is a warning
    (scores are unaffected); a question that counts otherwise is flagged.
    """
    for pair in pairs:
        sides = sides_of(pair.pair_name)
        options = _lettered(pair.options)
        if sides is None:
            continue
        first, _, negated = pair.questions["qa"].rpartition(" and not ")
        halves = {"counterfactual": negated, "commonsense": first}
        for side, said in zip(("counterfactual", "commonsense"), sides, strict=True):
            named = count_of(said)
            if named is None:
                continue
            gold = pair.golds["mc", side].strip().upper()
            counted = count_of(options[gold]) if gold in options else None
            mc = counted[0] if counted is not None and counted[1] == named[1] else None
            counts = counts_in(halves[side], named[1]) if first else []
            qa = named[0] if named[0] in counts else (counts[0] if counts else None)
            yield from _three_counts(pair, side, said, named, mc, qa, options)


def _three_counts(
    pair: GoldPair,
    side: str,
    said: str,
    named: tuple[str, str],
    mc: str | None,
    qa: str | None,
    options: dict[str, str],
) -> Iterator[Finding]:
    n, unit = named
    gold = pair.golds["mc", side].strip().upper()
    mc_id, qa_ids = item_id(pair.pair_id, "mc", side), (item_id(pair.pair_id, "qa", side),)
    where = f"{pair.pair_id} {side}"
    name_says = f"the pair name {pair.pair_name!r} says the {side} image shows {said!r}"
    if mc is not None and mc != n:
        shown = f"{gold}. {options[gold]}"
        agreeing = [k for k, text in options.items() if (count_of(text) or ("", ""))[0] == n]
        if qa == mc:
            none_says = "" if agreeing else f"; no option says {said!r}"
            yield Finding(
                "name-gold-mismatch",
                where,
                f"{name_says}, but the multiple_choice gold {shown!r} and the yes/no question "
                f"both count {mc}{none_says}: check the image (a wrong name leaves scores unaffected; "
                "otherwise gold and question are wrong)",
                "warning",
                (mc_id, *qa_ids),
                (Fix(mc_id, "note", f"pair name says {said}; gold and question say {mc} {unit}"),),
            )
            return
        corroborated = " and the yes/no question agree" if qa == n else ""
        if qa == n and len(agreeing) == 1:
            letter = agreeing[0]
            fix, tail = Fix(mc_id, "gold", letter), f"; option {letter}. {options[letter]!r} does"
        else:
            fix, tail = Fix(mc_id, "flag", "wrong-options"), "" if agreeing else f"; no option says {said!r}"
        yield Finding(
            "name-gold-mismatch",
            where,
            f"{name_says}{corroborated}, but the multiple_choice gold is {shown!r}{tail}",
            "error",
            (mc_id,),
            (fix,),
        )
    elif qa is not None and qa != n:
        question = pair.questions["qa"]
        # one question asked of both images: flagged, it is flagged on both sides, as a pair's
        # broken question is (the pair's metrics compare the two sides)
        both = tuple(item_id(pair.pair_id, "qa", s) for s in SIDES)
        yield Finding(
            "name-gold-mismatch",
            f"{pair.pair_id} qa",
            f"{name_says}"
            + (" and the multiple_choice gold agrees" if mc == n else "")
            + f", but the direct_qa question {question!r} counts {qa} for that side",
            "warning",
            both,
            tuple(Fix(i, "flag", "invalid-question") for i in both),
        )


def _broken_questions(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        for task, block in (("qa", "direct_qa"), ("mc", "multiple_choice")):
            problem = broken(pair.questions[task])
            if problem is None:
                continue
            ids = (item_id(pair.pair_id, task, "commonsense"), item_id(pair.pair_id, task, "counterfactual"))
            yield Finding(
                "broken-question",
                f"{pair.pair_id} {task}",
                f"{block} question {pair.questions[task]!r}: {problem}",
                "warning",
                ids,
                tuple(Fix(i, "flag", "invalid-question") for i in ids),
            )


def broken(question: str) -> str | None:
    """What is wrong with the wording of ``question`` (None when nothing this check knows)."""
    text = " ".join(question.split())
    if re.search(r"\bnot\s+not\b", text, re.IGNORECASE):
        return "a repeated negation ('not not')"
    first, sep, second = text.rstrip("?. ").rpartition(" and not ")
    if not sep:
        return None
    if first.lower().endswith(f"not {second.lower()}"):
        return f"asks for 'not {second}' and 'not {second}': one phrase negated on both halves"
    subject = [w for w in _VERB.sub("", first).split() if w.lower() not in _DETERMINER]
    if _VERB.match(first) and len(subject) <= 1:
        return f"the first half {first!r} has no predicate: the question looks truncated"
    return None


def _question_mismatch(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        question = pair.questions["mc"]
        options = " ".join(_lettered(pair.options).values()) or (
            pair.options if isinstance(pair.options, str) else " ".join(pair.options)
        )
        context = _words(" ".join((pair.pair_name, pair.questions["qa"], options)))
        if _words(question) & context:
            continue  # the question shares a content word with its pair: it fits
        problem = _off_subject(question, context) or _off_count(question, context)
        if problem is None:
            continue
        ids = (item_id(pair.pair_id, "mc", "commonsense"), item_id(pair.pair_id, "mc", "counterfactual"))
        yield Finding(
            "question-mismatch",
            pair.pair_id,
            f"multiple_choice question {question!r} {problem} (pair {pair.pair_name!r})",
            "warning",
            ids,
            tuple(Fix(i, "flag", "invalid-question") for i in ids),
        )


def _off_subject(question: str, context: set[str]) -> str | None:
    for phrase in _SUBJECT.findall(question.lower()):
        words = [w for w in phrase.split() if w not in _DETERMINER]
        if words and _fold(words[-1]) not in _SCENE_WORDS:
            return f"is about {phrase!r}, which the pair's name, yes/no question and options never mention"
    return None


def _off_count(question: str, context: set[str]) -> str | None:
    match = _COUNTED.search(question)
    if match is None:
        return None
    return f"counts {match.group(1)!r}, which the pair's name, yes/no question and options never mention"
