r"""VidHalluc TSH (temporal sequence): put two actions, A and B, in the order they happen.

File ``{idx: {"video", "Question": "Action A. ...\nAction B. ...\n", "Correct Answer": "AB"|"BA",
"Model Answer"}}``; no gold file. The official reading is reproduced quirk for quirk in
:func:`official`; :func:`lenient` is the reading it was presumably meant to be.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.vidhalluc.common import (
    GOLD_ONLY,
    by_distinct,
    expect,
    field,
    make_id,
    make_ids,
    nullable,
    only,
    table,
    texts_ok,
    video,
    videos,
    with_verdicts,
)
from analysis.files.readers import read_object
from analysis.stats.metrics import MetricDict, accuracy
from analysis.table.columns import extra_json

TASK = "tsh"
_EXACT = {"ab": "AB", "ba": "BA", "a": "A", "b": "B"}
_MENTION = r"(action [ab]|[ab][\.\)])"
# The official patterns, verbatim. ``[^before]`` is a character class (any character except
# b, e, f, o, r), not "anything but the word", and likewise ``[^then]``, ``[^after]``, ``[^action]``.
_ORDER = (
    ("before", re.compile(_MENTION + r"[^before]+before[^action]*?" + _MENTION), False),
    ("then", re.compile(_MENTION + r"[^then]+then[^action]*?" + _MENTION), False),
    ("after", re.compile(_MENTION + r"[^after]+after[^action]*?" + _MENTION), True),
)
_MENTIONS = re.compile(_MENTION)


def item_id(key: str, clip: str) -> str:
    """Id of one TSH entry: its key in the file and its video."""
    return make_id(TASK, key, clip)


def official(raw: str | None) -> str | None:
    """The official reading; None where it returns the string ``'None'``.

    On the answer lower-cased *without* strip: exactly ab/ba/a/b; "not clear"/"no clear" -> None;
    both "action a" and "action b" -> the first of before/then/after present *as a substring*
    decides which pattern is tried (only that one); when it fails, every mention in order of
    appearance. Each mention gives its last character upper-cased, so "a." gives ".".
    """
    if raw is None:
        return None
    answer = raw.lower()
    if answer in _EXACT:
        return _EXACT[answer]
    if "not clear" in answer or "no clear" in answer:
        return None
    has_a, has_b = "action a" in answer, "action b" in answer
    if has_a and has_b:
        for keyword, pattern, swap in _ORDER:
            if keyword in answer:
                match = pattern.search(answer)
                if match:
                    first, second = (match.group(2), match.group(1)) if swap else match.groups()
                    return first[-1].upper() + second[-1].upper()
                break
        return "".join(m.group(1)[-1].upper() for m in _MENTIONS.finditer(answer))
    if has_a:
        return "A"
    if has_b:
        return "B"
    return None


def official_correct(parsed: str | None, gold: str) -> bool:
    """Official comparison, case-sensitive and unstripped; its 'None' string equals a gold 'None'."""
    return (parsed if parsed is not None else "None") == gold


_BARE = re.compile(r"^[\W_]*(ab|ba|a|b)[\W_]*$", re.I)
_ORDER_TOKEN = re.compile(r"(?<![A-Za-z])(AB|BA)(?![A-Za-z])")
_BARE_PAIR = re.compile(
    r"(?<![A-Za-z])([AB])\s*(?:->|→|,|then|before|followed by)\s*(?!\1)([AB])(?![A-Za-z])"
)
_LENIENT_MENTION = re.compile(r"\baction\s*\(?([ab])\b|(?<![a-z0-9])\(?([ab])[.)](?![a-z0-9])", re.I)
_FORWARD = re.compile(
    r"\b(?:before|then|followed by|prior to|precedes|preceding|next|later|afterwards?|"
    r"after (?:that|this|which|it)|first)\b",
    re.I,
)
_BACKWARD = re.compile(r"\b(?:after|following|preceded by|follows)\b", re.I)


def lenient(raw: str | None) -> str | None:
    r"""A reading without the character-class and last-character quirks.

    1. The answer, stripped of spaces and punctuation, is ab/ba/a/b (any case): that order
       ("AB." and "AB\n" read as AB).
    2. An upper-case "AB"/"BA" token, or "A -> B", "B, A", "A then B" with bare capital letters.
    3. Mentions ("action a", "(b)", "a." not inside a word) give their *letter*. With both letters,
       the first pair of consecutive mentions of different letters joined by an ordering word decides
       ("before", "then", "followed by", "first", "after that"... keep the order; "after",
       "following", "preceded by" reverse it); without one, the order of first appearance.
    4. One letter mentioned: that letter. None: None ("not clear" ends here too).
    """
    if raw is None:
        return None
    bare = _BARE.match(raw.strip())
    if bare:
        return bare.group(1).upper()
    token = _ORDER_TOKEN.search(raw)
    if token:
        return token.group(1)
    pair = _BARE_PAIR.search(raw)
    if pair:
        return pair.group(1) + pair.group(2)
    mentions = [
        (m.start(), m.end(), (m.group(1) or m.group(2)).upper()) for m in _LENIENT_MENTION.finditer(raw)
    ]
    letters = list(dict.fromkeys(letter for _, _, letter in mentions))
    if len(letters) < 2:
        return letters[0] if letters else None
    for (_, end, first), (start, _, second) in itertools.pairwise(mentions):
        if first == second:
            continue
        between = raw[end:start]
        if _FORWARD.search(between):
            return first + second
        if _BACKWARD.search(between):
            return second + first
    return "".join(letters)


def lenient_correct(parsed: str | None, gold: str) -> bool:
    """The lenient reading against the gold, stripped and upper-cased."""
    return parsed is not None and parsed == gold.strip().upper()


PARSE = {"official": (official, official_correct), "lenient": (lenient, lenient_correct)}


def verdicts(frame: pd.DataFrame, parser: str) -> tuple[list[str | None], list[bool]]:
    """Order read under ``parser`` and its verdict against the gold."""
    parse, judge = PARSE[parser]
    parsed = by_distinct(nullable(frame["raw_answer"].tolist()), parse)
    golds = frame["gold"].astype(str).tolist()
    return parsed, [judge(p, g) for p, g in zip(parsed, golds, strict=True)]


def load(predictions: Path, model: str) -> pd.DataFrame:
    """One row per entry; the file carries its own gold."""
    return _table(predictions, read_object(predictions), model, gold_only=False)


def load_gold(path: Path, data: dict[str, Any]) -> pd.DataFrame:
    """Gold alone (``tsh.json``), for browsing."""
    return _table(path, data, "", gold_only=True)


_KNOWN = ("video", "Question", "Correct Answer", "Model Answer")
_KNOWN_SET = frozenset(_KNOWN)


def _table(path: Path, data: dict[str, Any], model: str, *, gold_only: bool) -> pd.DataFrame:
    cols = _columns(path, data, gold_only=gold_only)
    if cols is None:
        cols = _columns_one_by_one(path, data, gold_only=gold_only)
    n = len(cols["item_id"])
    frame = table(
        {**cols, "scored": not gold_only, "skip_reason": GOLD_ONLY if gold_only else ""},
        task=TASK,
        model=model,
        n=n,
    )
    return with_verdicts(frame, verdicts)


def _columns(path: Path, data: dict[str, Any], *, gold_only: bool) -> dict[str, list[Any]] | None:
    """The columns built a column at a time, every field checked in bulk; None if a check fails."""
    keys, records = list(data), list(data.values())
    if not only(dict, records):
        return None
    fields = [
        (r.get("video"), r.get("Question"), r.get("Correct Answer"), r.get("Model Answer")) for r in records
    ]
    empty: list[list[Any]] = [[], [], [], []]
    clips, questions, golds, raws = [list(c) for c in zip(*fields, strict=True)] if fields else empty
    if not all(texts_ok(c, optional=False) for c in (clips, questions, golds)):
        return None
    if gold_only:
        raws = [None] * len(records)
    elif not texts_ok(raws, optional=True):
        return None
    plain = list(map(_KNOWN_SET.issuperset, records))
    return {
        "item_id": make_ids(TASK, keys, clips),
        "question": questions,
        "gold": golds,
        "raw_answer": raws,
        "media": videos(clips),
        "source": [f"{name}:key {key!r}" for name in (path.name,) for key in keys],
        "extra": ["" if p else extra_json(r, _KNOWN) for r, p in zip(records, plain, strict=True)],
    }


def _columns_one_by_one(path: Path, data: dict[str, Any], *, gold_only: bool) -> dict[str, list[Any]]:
    """The columns record by record: every check in file order, so the first bad value is named."""
    cols: dict[str, list[Any]] = {
        k: [] for k in ("item_id", "question", "gold", "raw_answer", "media", "source", "extra")
    }
    for key, record in data.items():
        where = f"key {key!r}"
        expect(path, record, (dict,), record=where)
        clip = field(path, record, "video", record=where)
        cols["item_id"].append(item_id(key, clip))
        cols["question"].append(field(path, record, "Question", record=where))
        cols["gold"].append(field(path, record, "Correct Answer", record=where))
        # A null answer (a model that returned nothing) reads as unparsed; the official script
        # would stop on it with an AttributeError.
        cols["raw_answer"].append(
            None if gold_only else field(path, record, "Model Answer", record=where, optional=True)
        )
        cols["media"].append(video(clip))
        cols["source"].append(f"{path.name}:{where}")
        cols["extra"].append(extra_json(record, _KNOWN))
    return cols


def overall(frame: pd.DataFrame, parser: str) -> tuple[MetricDict, int, int]:
    """Entry accuracy; an empty file gives 0, the official convention."""
    scored = frame["scored"].to_numpy(dtype=bool)
    _, correct = verdicts(frame[scored], parser)
    n = int(scored.sum())
    return {"accuracy": accuracy(correct, zero=0.0), "n": n}, n, int((~scored).sum())
