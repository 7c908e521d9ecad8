"""CDH-Bench answer readers: the official extraction rules and the ``strict`` alternative.

A reader maps ``(task, answer text, gold)`` to ``(what was read, verdict)``. The reading shown
for a qa answer depends on the gold's kind, exactly as the official scorer branches on it: a
yes/no gold reads "yes"/"no", an all-digit gold reads the first integer, any other gold reads the
normalised answer (which the gold must be a substring of). An mc answer reads as a letter.

``official`` (used for ``reparse`` and for the ``parsed`` column) follows
``scripts/evaluate_cdh_bench.py`` rule for rule, quirks included (see the module card in
``cdh_bench.py``). ``strict`` differs in three ways, each aimed at a misreading the official rules
make on this benchmark's answers:

- punctuation splits words instead of being deleted, so "不是，这是猫" starts with "不是" (no);
  the official rule glues it into one word and then finds 是 (yes);
- a yes/no needs an explicit answer: the first word, an "answer is yes/no" phrase, or the last
  word. "yes"/"no"/是/不 merely occurring somewhere does not count: CDH-Bench questions are built
  as "X and not Y?", so negations and affirmations occur in right and wrong answers alike;
- a letter is read on the original case: a lone letter, a leading marked letter ("B.", "(B)",
  "b)"), the last "answer is B" phrase, else the only standalone capital A-D (two different ones
  are ambiguous: unparsed), with the article in "A dog" left out. The official rules upper-case
  first, so "a cat" reads as option A, and need a word boundary, so "选B" reads nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

THINK_END = "</think>"
LETTERS = frozenset({"A", "B", "C", "D"})
YES_FIRST = frozenset({"yes", "y", "true", "是", "对"})
NO_FIRST = frozenset({"no", "n", "false", "否", "不", "不是", "错"})

Reading = tuple[str | None, bool]
"""What an answer was read as (None: unparsed) and whether that is correct."""
Reader = Callable[[str, str, str], Reading]
"""``reader(task, answer, gold)``."""

# The official letter patterns, tried in order on the upper-cased answer; the first hit wins.
_MC_PATTERNS = (
    re.compile(r"^([A-D])(?:\.|\)|$|\s)"),
    re.compile(r"(?:ANSWER|答案)(?:IS|是|为)?\s*([A-D])"),
    re.compile(r"\s([A-D])(?:\.|\)|$|\s)"),
    re.compile(r"\b([A-D])\b"),
)
_INT = re.compile(r"\d+")

_STRICT_YES = YES_FIRST | {"是的", "对的", "正确"}
_STRICT_NO = NO_FIRST | {"不对", "不是的", "错误", "没有"}
_STRICT_ANSWER_YN = re.compile(r"\banswer(?: is)? (yes|no)\b|答案 ?(?:是|为)? ?(不是|是|否|对|错)")
_CJK_YN = {"是": "yes", "对": "yes", "不是": "no", "否": "no", "错": "no"}
_STRICT_ALONE = re.compile(r"^[(\[]?([A-Da-d])[)\]]?[.。:：]?$")
_STRICT_LEAD = re.compile(r"^[(\[]?([A-Da-d])[.。)\]:：]")
_STRICT_ANSWER_LETTER = re.compile(
    r"(?i:answer|答案)\W{0,3}(?i:is|是|为)?\W{0,3}[(\[]?([A-D])(?![A-Za-z0-9])"
)
_STANDALONE = re.compile(r"(?<![A-Za-z0-9])([A-D])(?![A-Za-z0-9])")
# "A" followed by a lower-case word is the article ("A dog"), unless that word is one that follows
# an option letter ("A and B", "A is right").
_ARTICLE_AFTER = re.compile(
    r"\s+(?!(?:and|or|nor|but|is|was|seems?|looks?|matches|fits|because|since|as|vs|versus"
    r"|would|should|could|might|can|must|will)\b)[a-z]"
)


def after_think(text: str) -> str:
    """The answer after the last ``</think>`` (all of it when there is none), stripped."""
    return text.rsplit(THINK_END, 1)[-1].strip()


def normalise(text: str) -> str:
    """Official normalisation: lower-case, keep letters/digits (CJK too) and spaces, collapse spaces."""
    low = after_think(text).lower()
    return " ".join("".join(ch for ch in low if ch.isalnum() or ch.isspace()).split())


def official_yes_no(text: str) -> str | None:
    """Official yes/no: first word, else "yes" among words or 是/对 anywhere, else "no"/否/不."""
    norm = normalise(text)
    words = norm.split()
    if not words:
        return None
    if words[0] in YES_FIRST:
        return "yes"
    if words[0] in NO_FIRST:
        return "no"
    if "yes" in words or "是" in norm or "对" in norm:
        return "yes"
    if "no" in words or "否" in norm or "不" in norm:
        return "no"
    return None


def official_letter(text: str) -> str | None:
    """Official letter: the first of four patterns that hits the upper-cased answer."""
    upper = after_think(text).upper()
    for pattern in _MC_PATTERNS:
        match = pattern.search(upper)
        if match:
            return match.group(1)
    return None


def first_int(text: str) -> str | None:
    """The first run of digits as an integer's text ("007" reads "7"), None if there is none."""
    match = _INT.search(after_think(text))
    if match is None:
        return None
    try:
        return str(int(match.group()))
    except ValueError:  # a digit run past Python's int-string limit: the official code gives None
        return None


def official_qa(text: str, gold: str) -> Reading:
    """Official direct-QA verdict, branching on the gold's kind."""
    gold = gold.strip()
    if not gold:
        return None, False
    gold_norm = normalise(gold)
    if gold_norm in ("yes", "no"):
        said = official_yes_no(text)
        return said, said == gold_norm
    if gold.isdigit():
        number = first_int(text)
        return number, number == gold
    answer = normalise(text)
    return answer or None, gold_norm in answer


def official_mc(text: str, gold: str) -> Reading:
    """Official multiple-choice verdict; a gold outside A-D is always wrong."""
    letter = official_letter(text)
    return letter, gold.strip().upper() in LETTERS and letter == gold.strip().upper()


def strict_yes_no(text: str) -> str | None:
    """Strict yes/no: the first word, an "answer is" phrase, or the last word; else unparsed."""
    low = after_think(text).lower()
    words = "".join(ch if ch.isalnum() or ch.isspace() else " " for ch in low).split()
    if not words:
        return None
    if words[0] in _STRICT_YES:
        return "yes"
    if words[0] in _STRICT_NO:
        return "no"
    match = _STRICT_ANSWER_YN.search(" ".join(words))
    if match:
        return match.group(1) or _CJK_YN[match.group(2)]
    if words[-1] in ("yes", "no"):
        return words[-1]
    return None


def strict_letter(text: str) -> str | None:
    """Strict letter, read on the original case (see the module docstring)."""
    answer = after_think(text)
    for pattern in (_STRICT_ALONE, _STRICT_LEAD):
        match = pattern.match(answer)
        if match:
            return match.group(1).upper()
    phrases = _STRICT_ANSWER_LETTER.findall(answer)
    if phrases:
        return str(phrases[-1])  # the last stated answer is the conclusion
    found = {
        m.group(1)
        for m in _STANDALONE.finditer(answer)
        if not (m.group(1) == "A" and _ARTICLE_AFTER.match(answer, m.end()))
    }
    return found.pop() if len(found) == 1 else None


def strict_qa(text: str, gold: str) -> Reading:
    """Strict direct-QA verdict: yes/no golds use the strict reader, other golds the official rule."""
    gold_norm = normalise(gold.strip())
    if gold_norm in ("yes", "no"):
        said = strict_yes_no(text)
        return said, said == gold_norm
    return official_qa(text, gold)


def strict_mc(text: str, gold: str) -> Reading:
    """Strict multiple-choice verdict; a gold outside A-D is always wrong, as officially."""
    letter = strict_letter(text)
    return letter, gold.strip().upper() in LETTERS and letter == gold.strip().upper()


def _by_task(qa: Callable[[str, str], Reading], mc: Callable[[str, str], Reading]) -> Reader:
    def read(task: str, text: str, gold: str) -> Reading:
        if task == "qa":
            return qa(text, gold)
        if task == "mc":
            return mc(text, gold)
        return None, False

    return read


READERS: dict[str, Reader] = {
    "reparse": _by_task(official_qa, official_mc),
    "strict": _by_task(strict_qa, strict_mc),
}
"""Readers by parser name (``official`` scoring uses the stored verdicts, read with ``reparse``)."""


def read_rows(
    tasks: Iterable[Any], texts: Iterable[Any], golds: Iterable[Any], reader: Reader
) -> tuple[list[str | None], list[bool]]:
    """Apply ``reader`` to whole columns, reading each distinct (task, text, gold) once.

    A null text reads as the empty answer (unparsed, wrong); a null gold as the empty gold.
    """
    cache: dict[tuple[str, str, str], Reading] = {}
    parsed: list[str | None] = []
    correct: list[bool] = []
    for task, text, gold in zip(tasks, texts, golds, strict=True):
        key = (_text(task), _text(text), _text(gold))
        reading = cache.get(key)
        if reading is None:
            reading = cache[key] = reader(*key)
        parsed.append(reading[0])
        correct.append(reading[1])
    return parsed, correct


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
