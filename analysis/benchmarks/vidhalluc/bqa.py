"""VidHalluc ACH binary QA: one yes/no question asked of every clip of a pair.

Gold ``{group: [{"q": text, "a": {clip_id: "Yes"|"No"}}]}``; the prediction file mirrors it with the
model's raw text per clip. One table row per (group, question index, clip); the official verdict of
a *question* is "every clip correct", computed in :func:`overall`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.benchmarks.shared.yesno import negation_aware
from analysis.benchmarks.vidhalluc.common import (
    GOLD_ONLY,
    by_distinct,
    expect,
    field,
    make_id,
    mask_unscored,
    nullable,
    read_extra,
    table,
    video,
)
from analysis.files.readers import read_object
from analysis.stats.metrics import NO, YES, MetricDict, ratio

TASK = "bqa"


def item_id(group: str, index: int, clip: str) -> str:
    """Id of one clip's answer to question ``index`` (0-based position) of ``group``."""
    return make_id(TASK, group, str(index), clip)


def official(raw: str | None) -> str | None:
    """``pred.strip().split('.')[0].split(',')[0].strip().upper()``; None for a missing answer."""
    if raw is None:
        return None
    return raw.strip().split(".")[0].split(",")[0].strip().upper()


def lenient(raw: str | None) -> str | None:
    """First explicit yes/no word, else a negation as no, else an affirmation as yes (``YES``/``NO``)."""
    if raw is None:
        return None
    code = negation_aware(raw)
    return "YES" if code == YES else "NO" if code == NO else None


PARSE = {"official": official, "lenient": lenient}


def verdicts(frame: pd.DataFrame, parser: str) -> tuple[list[str | None], list[bool]]:
    """Clip-level reading and verdict of each row (gold compared stripped and upper-cased)."""
    parsed = by_distinct(nullable(frame["raw_answer"].tolist()), PARSE[parser])
    golds = frame["gold"].astype(str).str.strip().str.upper().tolist()
    vacuous = [bool(e.get("no_clips")) for e in read_extra(frame)]
    correct = [v or (p is not None and p == g) for p, g, v in zip(parsed, golds, vacuous, strict=True)]
    return parsed, correct


def read_gold(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Read and check ``ach_binaryqa.json``."""
    data = read_object(path)
    check_gold(path, data)
    return data


def check_gold(path: Path, data: dict[str, Any]) -> None:
    """Every group a list of ``{"q": str, "a": {clip: str}}``; errors name group, question, clip."""
    for group, questions in data.items():
        expect(path, questions, (list,), record=f"group {group!r}")
        for index, question in enumerate(questions):
            where = f"group {group!r}, question {index}"
            expect(path, question, (dict,), record=where)
            field(path, question, "q", record=where, optional=True)
            answers = field(path, question, "a", (dict,), record=where)
            for clip, answer in answers.items():
                expect(path, answer, (str,), record=f"{where}, clip {clip!r}", field="a")


def load(predictions: Path, gold_path: Path, model: str) -> pd.DataFrame:
    """Rows for every gold (question, clip); questions the official scorer skips stay unscored."""
    gold = read_gold(gold_path)
    pred = read_object(predictions)
    return _table(gold_path, gold, predictions, pred, model)


def load_gold(path: Path, data: dict[str, Any]) -> pd.DataFrame:
    """Gold alone, for browsing."""
    check_gold(path, data)
    return _table(path, data, None, None, "")


_COLUMNS = (
    "item_id",
    "pair_id",
    "side",
    "question",
    "gold",
    "raw_answer",
    "scored",
    "skip_reason",
    "media",
    "source",
    "extra",
)


def _table(
    gold_path: Path, gold: dict[str, Any], pred_path: Path | None, pred: dict[str, Any] | None, model: str
) -> pd.DataFrame:
    cols: dict[str, list[Any]] = {k: [] for k in _COLUMNS}
    for group, questions in gold.items():
        entries, group_reason = _pred_questions(pred_path, pred, group)
        for index, question in enumerate(questions):
            answers: dict[str, Any] | None = None
            if group_reason:
                reason = group_reason
            elif index >= len(entries):
                reason = f"question {index + 1} beyond the {len(entries)} question(s) the predictions hold"
            else:
                assert pred_path is not None
                reason, answers = "", _question_answers(pred_path, entries[index], group, index)
            source = pred_path if pred_path is not None and not reason else gold_path
            _add_rows(cols, group, index, question, answers, reason, source)
    frame = table(cols, task=TASK, model=model, n=len(cols["item_id"]))
    return _with_verdicts(frame)


def _pred_questions(pred_path: Path | None, pred: dict[str, Any] | None, group: str) -> tuple[list[Any], str]:
    """The group's prediction list, and why the whole group is skipped ('' when it is not)."""
    if pred is None or pred_path is None:
        return [], GOLD_ONLY
    entry = pred.get(group)
    if not entry:  # the official scorer skips an absent group and any empty (falsy) value alike
        if group not in pred:
            return [], "group absent from the predictions"
        return [], "group empty in the predictions"
    return expect(pred_path, entry, (list,), record=f"group {group!r}"), ""


def _question_answers(path: Path, entry: Any, group: str, index: int) -> dict[str, Any]:
    where = f"group {group!r}, question {index}"
    item = expect(path, entry, (dict,), record=where)
    # A null or absent "a" holds no answers: every clip then counts as unanswered (wrong).
    found: dict[str, Any] | None = field(path, item, "a", (dict,), record=where, optional=True)
    if found is None:
        return {}
    for clip, raw in found.items():
        if raw is not None:
            expect(path, raw, (str,), record=f"{where}, clip {clip!r}", field="a")
    return found


def _add_rows(
    cols: dict[str, list[Any]],
    group: str,
    index: int,
    question: dict[str, Any],
    answers: dict[str, Any] | None,
    reason: str,
    source: Path,
) -> None:
    # A gold question with no clips is vacuously right for the official scorer (all() of nothing):
    # it keeps one row, with an empty side, so that the question is still counted.
    clips = list(question["a"].items()) or [("", "")]
    for clip, gold_answer in clips:
        cols["item_id"].append(item_id(group, index, clip))
        cols["pair_id"].append(group)
        cols["side"].append(clip)
        cols["question"].append(question.get("q") or "")
        cols["gold"].append(gold_answer)
        cols["raw_answer"].append(None if answers is None else answers.get(clip))
        cols["scored"].append(not reason)
        cols["skip_reason"].append(reason)
        cols["media"].append(video(clip) if clip else "[]")
        cols["source"].append(f"{source.name}:group {group!r} question {index}")
        extra = {"question_index": index, **({"no_clips": True} if not question["a"] else {})}
        cols["extra"].append(json.dumps(extra))


def _with_verdicts(frame: pd.DataFrame) -> pd.DataFrame:
    scored = frame["scored"].tolist()
    parsed, correct = verdicts(frame, "official")
    alt_parsed, alt_correct = verdicts(frame, "lenient")
    frame["parsed"] = pd.Series(parsed, dtype="string")
    frame["correct"] = pd.Series(mask_unscored(correct, scored), dtype="boolean")
    frame["alt_parsed"] = pd.Series(alt_parsed, dtype="string")
    frame["alt_correct"] = pd.Series(mask_unscored(alt_correct, scored), dtype="boolean")
    return frame


def question_keys(frame: pd.DataFrame) -> pd.Series:
    """One key per (group, question index): the unit the official accuracy counts."""
    index = pd.Series([str(e.get("question_index", "")) for e in read_extra(frame)], index=frame.index)
    return frame["pair_id"].astype(str) + "\x1f" + index


def overall(frame: pd.DataFrame, parser: str) -> tuple[MetricDict, int, int]:
    """Question accuracy (all clips right), ``n`` counted questions; also (n, skipped questions)."""
    keys = question_keys(frame)
    scored = frame["scored"].to_numpy(dtype=bool)
    _, correct = verdicts(frame[scored], parser)
    per_question = (
        pd.Series(np.asarray(correct, dtype=bool), index=keys[scored].to_numpy())
        .groupby(level=0, sort=False)
        .all()
    )
    n = int(per_question.size)
    skipped = int(keys[~scored].nunique())
    return {"accuracy": ratio(int(per_question.sum()), n), "n": n}, n, skipped
