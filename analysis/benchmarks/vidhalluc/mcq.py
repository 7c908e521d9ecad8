"""VidHalluc ACH multiple choice: one question per clip, one or more correct letters.

File ``{group: {clip_id: {"Question", "Choices": {"A".."D": text}, "Correct Answer", "Model Answer"}}}``
(the official inference output). The official scorer's own input ``{"gt": ..., "pred": ...}`` and a
separate gold file (``--gold ach_mcq.json``) are read too.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.vidhalluc import mcq_columns
from analysis.benchmarks.vidhalluc.common import (
    GOLD_ONLY,
    expect,
    field,
    make_id,
    nullable,
    table,
    video,
    with_verdicts,
)
from analysis.files.readers import read_object
from analysis.stats.metrics import MetricDict, accuracy
from analysis.table.columns import json_list

TASK = "mcq"
_LETTER = re.compile(r"\b[A-D]\b")
_GOLD_LETTER = re.compile(r"[A-D]")
Choices = dict[str, str]


def item_id(group: str, clip: str) -> str:
    """Id of one clip's question."""
    return make_id(TASK, group, clip)


def gold_letters(gold: str) -> frozenset[str]:
    """Every character A-D of the stripped, upper-cased ``Correct Answer`` (``"AC"`` is {A, C})."""
    return frozenset(_GOLD_LETTER.findall(gold.strip().upper()))


def official(raw: str | None, choices: Choices) -> frozenset[str]:
    r"""``\b[A-D]\b`` on the raw, case-sensitive text; else the first choice whose text is in it.

    A leading article "A" reads as option A and "AB" yields no letter (no word boundary inside it).
    A missing answer reads as the empty string, as ``.get("Model Answer", "")`` does.
    """
    text = raw or ""
    letters = frozenset(_LETTER.findall(text))
    if letters:
        return letters
    low = text.lower()
    for key, value in choices.items():
        if value.lower() in low:
            # The official scorer keeps the key upper-cased unless it is empty or spells "None".
            matched = key.strip().upper()
            return frozenset({matched}) if key and matched and matched != "NONE" else frozenset()
    return frozenset()


_ANSWER_PREFIX = re.compile(
    r"^\W*(?:the\s+)?(?:correct\s+|final\s+)?(?:answers?|options?|choices?)\s*(?:is|are|:)?\s*", re.I
)
_LETTERS_ONLY = re.compile(r"\band\b|\bor\b|[\s,;&/().\[\]*:]")
_LETTER_TOKEN = re.compile(r"\b([A-D]{1,4})\b")


def lenient(raw: str | None, choices: Choices) -> frozenset[str]:
    """A reading without the official traps.

    1. An answer made only of letters A-D (any case) and separators ("AB", "A, C", "A and C",
       "(B).", "Answer: bd") gives those letters.
    2. Else, upper-case tokens of one to four distinct letters A-D anywhere ("AB" is {A, B}), but a
       sentence-initial "A" followed by a lower-case word ("A man is...") is an article, not option A.
    3. Else, the choice texts found as whole words (case-insensitive); when several are, the longest
       one (the most specific: "running fast" over "running"). Empty choice texts never match.
    """
    text = (raw or "").strip()
    if not text:
        return frozenset()
    bare = _LETTERS_ONLY.sub("", _ANSWER_PREFIX.sub("", text))
    if bare and len(bare) <= 4 and set(bare.upper()) <= set("ABCD"):
        return frozenset(bare.upper())
    letters = _tokens(text)
    if letters:
        return letters
    return _choice_text(text, choices)


def _tokens(text: str) -> frozenset[str]:
    found: set[str] = set()
    for match in _LETTER_TOKEN.finditer(text):
        token = match.group(1)
        if len(set(token)) != len(token):
            continue  # "DAD", "ABBA": words, not letter lists
        if token == "A" and _is_article(text, match.start()):
            continue
        found.update(token)
    return frozenset(found)


def _is_article(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t")
    after = text[start + 1 :]
    at_sentence_start = not before or before[-1] in ".!?:\n"
    follows_word = re.match(r"\s+([a-z]\w*)", after)
    if not at_sentence_start or not follows_word:
        return False
    return follows_word.group(1) not in {"and", "or", "is", "are", "was", "seems", "would", "best"}


@functools.lru_cache(maxsize=65536)
def _whole_words(phrase: str) -> re.Pattern[str]:
    """The pattern finding ``phrase`` as whole words, any case, compiled once per phrase.

    The ``re`` module's own cache keeps 512 patterns: a file with more distinct choice texts
    than that would compile each of them again for every answer.
    """
    return re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.I)


def _choice_text(text: str, choices: Choices) -> frozenset[str]:
    best: tuple[int, str] | None = None
    for key, value in choices.items():
        phrase = value.strip()
        if not phrase or not _whole_words(phrase).search(text):
            continue
        if best is None or len(phrase) > best[0]:
            best = (len(phrase), key.strip().upper())
    return frozenset({best[1]}) if best and best[1] else frozenset()


PARSE = {"official": official, "lenient": lenient}


def letters_text(letters: frozenset[str]) -> str | None:
    """The ``parsed`` column form: sorted letters (``"AC"``), None when there are none."""
    return "".join(sorted(letters)) or None


def verdicts(frame: pd.DataFrame, parser: str) -> tuple[list[str | None], list[bool]]:
    """Letters read under ``parser`` and the official set comparison with the gold letters.

    Each distinct extra text (it holds the choices) is decoded once, each distinct (answer,
    extra) pair parsed once and each distinct gold read once, then spread back to the rows by
    their codes: a million rows repeat them a great deal.
    """
    parse = PARSE[parser]
    extra_codes, extra_texts = pd.factorize(frame["extra"].astype(str))
    extras = [json.loads(text) if text else {} for text in extra_texts.tolist()]
    raw_codes, raws = pd.factorize(frame["raw_answer"])
    answers = [*nullable(list(raws)), None]  # code -1 (a null answer) reads the last entry
    pairs, inverse = _pairs(raw_codes.astype(np.int64) % len(answers), extra_codes.astype(np.int64))
    letters = [parse(answers[a], extras[e].get("Choices") or {}) for a, e in pairs.tolist()]
    parsed = np.array([letters_text(x) for x in letters], dtype=object)
    keys = np.array([letters_text(x) or "" for x in letters], dtype=object)
    gold_codes, golds = pd.factorize(frame["gold"].astype(str))
    gold_keys = np.array([letters_text(gold_letters(g)) or "" for g in golds.tolist()], dtype=object)
    missing = np.array([bool(e.get("missing_prediction")) for e in extras], dtype=bool)
    # Equal sorted letters are equal sets. A clip missing from the predictions counts, and is
    # wrong even against an empty gold set.
    correct = (keys[inverse] == gold_keys[gold_codes]) & ~missing[extra_codes]
    return parsed[inverse].tolist(), correct.tolist()


def _pairs(
    a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """Distinct (a, b) pairs (rows of a 2-column array) and, per row, the number of its pair."""
    if a.size == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.intp)
    _, first, inverse = np.unique(a * (int(b.max()) + 1) + b, return_index=True, return_inverse=True)
    return np.stack((a[first], b[first]), axis=1), inverse.reshape(-1)


_KNOWN = ("Question", "Choices", "Correct Answer", "Model Answer")


def check_choices(path: Path, record: dict[str, Any], where: str) -> Choices | None:
    """The ``Choices`` object (texts must be strings), or None when absent."""
    choices: Choices | None = field(path, record, "Choices", (dict,), record=where, optional=True)
    if choices and not all(type(value) is str for value in choices.values()):  # else nothing to name
        for key, value in choices.items():
            expect(path, value, (str,), record=where, field=f"Choices.{key}")
    return choices


def load(predictions: Path, gold_path: Path | None, model: str) -> pd.DataFrame:
    """Read the combined file, the ``{"gt", "pred"}`` file, or predictions beside a gold file."""
    data = read_object(predictions)
    if gold_path is not None:
        return _table(gold_path, read_object(gold_path), predictions, data, model)
    if set(data) == {"gt", "pred"} and all(isinstance(v, dict) for v in data.values()):
        return _table(predictions, data["gt"], predictions, data["pred"], model)
    return _table(predictions, data, predictions, None, model)


def load_gold(path: Path, data: dict[str, Any]) -> pd.DataFrame:
    """Gold alone (``ach_mcq.json``), for browsing."""
    return _table(path, data, None, None, "")


def _table(
    gold_path: Path, gold: dict[str, Any], pred_path: Path | None, pred: dict[str, Any] | None, model: str
) -> pd.DataFrame:
    """``pred`` None with a ``pred_path``: one file holds both gold and answers.

    The columns are built a column at a time (:mod:`.mcq_columns`); when a value fails its bulk
    check they are built record by record, which names the bad record and field.
    """
    cols = mcq_columns.columns(gold_path, gold, pred_path, pred)
    if cols is None:
        cols = _columns_one_by_one(gold_path, gold, pred_path, pred)
    frame = table(cols, task=TASK, model=model, n=len(cols["item_id"]))
    return with_verdicts(frame, verdicts)


def _columns_one_by_one(
    gold_path: Path, gold: dict[str, Any], pred_path: Path | None, pred: dict[str, Any] | None
) -> dict[str, list[Any]]:
    """The columns, record by record: every check in file order, so the first bad value is named."""
    rows: list[dict[str, Any]] = []
    for group, clips in gold.items():
        expect(gold_path, clips, (dict,), record=f"group {group!r}")
        answers, reason = _group(pred_path, pred, group, clips)
        for clip, record in clips.items():
            where = f"group {group!r}, clip {clip!r}"
            expect(gold_path, record, (dict,), record=where)
            rows.append(_row(gold_path, pred_path, group, clip, record, answers, reason))
    return {key: [r[key] for r in rows] for key in _ROW_KEYS}


_ROW_KEYS = (
    "item_id",
    "pair_id",
    "side",
    "question",
    "options",
    "gold",
    "raw_answer",
    "scored",
    "skip_reason",
    "media",
    "source",
    "extra",
)


def _group(
    pred_path: Path | None, pred: dict[str, Any] | None, group: str, clips: dict[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The group's answers (clip -> record) and why it is skipped ('' when it is not)."""
    if pred_path is None:
        return None, GOLD_ONLY
    if pred is None:
        return clips, ""
    entry = pred.get(group)
    if not entry:  # the official scorer skips an absent or empty group without counting it
        why = "group absent from the predictions" if group not in pred else "group empty in the predictions"
        return None, why
    return expect(pred_path, entry, (dict,), record=f"group {group!r}"), ""


def _row(
    gold_path: Path,
    pred_path: Path | None,
    group: str,
    clip: str,
    record: dict[str, Any],
    answers: dict[str, Any] | None,
    reason: str,
) -> dict[str, Any]:
    where = f"group {group!r}, clip {clip!r}"
    gold = field(gold_path, record, "Correct Answer", record=where)
    question = field(gold_path, record, "Question", record=where, optional=True) or ""
    gold_choices = check_choices(gold_path, record, where)
    answer = None if answers is None else answers.get(clip)
    raw, choices, extra = None, gold_choices, {k: v for k, v in record.items() if k not in _KNOWN}
    if answers is not None and pred_path is not None:
        if answer:
            expect(pred_path, answer, (dict,), record=where)
            raw = field(pred_path, answer, "Model Answer", record=where, optional=True)
            choices = check_choices(pred_path, answer, where)
        else:  # counted, and wrong, by the official scorer
            extra["missing_prediction"] = True
    shown = choices if choices is not None else gold_choices
    source = pred_path if pred_path is not None and not reason else gold_path
    return {
        "item_id": item_id(group, clip),
        "pair_id": group,
        "side": clip,
        "question": question,
        "options": json_list([f"{k}. {v}" for k, v in (shown or {}).items()]),
        "gold": gold,
        "raw_answer": raw,
        "scored": not reason,
        "skip_reason": reason,
        "media": video(clip),
        "source": f"{source.name}:{where}",
        "extra": json.dumps({"Choices": choices or {}, **extra}, ensure_ascii=False),
    }


def overall(frame: pd.DataFrame, parser: str) -> tuple[MetricDict, int, int]:
    """Clip accuracy (letter sets equal); ``n`` clips counted; also (n, skipped clips)."""
    scored = frame["scored"].to_numpy(dtype=bool)
    _, correct = verdicts(frame[scored], parser)
    n = int(scored.sum())
    return {"accuracy": accuracy(correct), "n": n}, n, int((~scored).sum())
