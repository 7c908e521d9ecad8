"""Telling VidHalluc files apart by content: JSON objects whose first entry has each task's shape.

A binary-QA prediction file mirrors the gold file exactly (the model's text in place of each
clip's answer): a file where most answers are not a bare Yes or No holds a model's answers; one
of bare answers only is the gold when named ``ach_binaryqa.json``, else either (:func:`_bqa`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.benchmarks.base import Content, Detected

GOLD_BQA_NAME = "ach_binaryqa"


def _first_value(value: dict[str, Any]) -> Any:
    for item in value.values():
        if item not in (None, [], {}):
            return item
    return None


TASK_TYPES = {"bqa": "BQA", "mcq": "MCQ", "tsh": "TSH", "sth": "STH"}
"""``task_type`` of the VLMEvalKit fork's ``VideoHalluc_*`` rows, per task (as :func:`task_type_name`
writes it)."""


def task_type_name(kind: Any) -> str:
    """A ``task_type`` value as :data:`TASK_TYPES` writes it: any case, ``VideoHalluc_`` prefix or not."""
    return str(kind).upper().removeprefix("VIDEOHALLUC_")


def recognise(path: Path, content: Content) -> Detected | None:
    """The task and role of a VidHalluc file (gold or one model's results)."""
    if isinstance(content, list):
        return _fork_rows(content)
    if not isinstance(content, dict):
        return None
    first = _first_value(content)
    if isinstance(first, str):
        # a scene-change results file maps each video to the model's text: every value a text
        # (a leaderboard's {"_comment": "...", "models": [...]} was taken for one)
        looked = list(content.values())[:_LOOKED_AT]
        if all(isinstance(v, str) or v is None for v in looked):
            return Detected("vidhalluc", "sth", "predictions")
        return None
    if isinstance(first, list) and first and isinstance(first[0], dict) and {"q", "a"} <= set(first[0]):
        return _bqa(path, content)
    if isinstance(first, dict):
        if "Scene change" in first:
            return Detected("vidhalluc", "sth", "gold")
        if "Question" in first and "video" in first:
            return Detected("vidhalluc", "tsh", "predictions" if "Model Answer" in first else "gold")
        inner = _first_value(first)
        if isinstance(inner, dict) and "Choices" in inner:
            return Detected("vidhalluc", "mcq", "predictions" if "Model Answer" in inner else "gold")
    return None


_BARE = frozenset({"yes", "no"})
_LOOKED_AT = 500
"""Groups of a binary-QA file whose answers are looked at to tell gold from a model's answers."""


def _bqa(path: Path, content: dict[str, Any]) -> Detected:
    """A binary-QA file's role: by its answers when they show it, else by its name.

    Gold answers are a bare Yes or No. A file where most answers are anything else (sentences,
    nulls) holds a model's answers, whatever its name; one of bare answers only is the gold when
    named ``ach_binaryqa.json``. Anything between (a model answering "Yes"/"No", a gold file with a
    few bad values, which the audit flags) is only a guess by name (``by_name``: never a reason to
    refuse the file).
    """
    answers = [
        answer
        for questions in list(content.values())[:_LOOKED_AT]
        for question in (questions if isinstance(questions, list) else ())
        if isinstance(question, dict) and isinstance(question.get("a"), dict)
        for answer in question["a"].values()
    ]
    other = sum(not (isinstance(a, str) and a.strip().lower() in _BARE) for a in answers)
    if other * 2 > len(answers):
        return Detected("vidhalluc", "bqa", "predictions")
    named = path.stem == GOLD_BQA_NAME
    if named and other == 0:
        return Detected("vidhalluc", "bqa", "gold")
    return Detected("vidhalluc", "bqa", "gold" if named else "predictions", by_name=True)


def _fork_rows(content: list[dict[str, Any]]) -> Detected | None:
    """A VLMEvalKit fork's prediction rows (``task_type``, ``clip_id``, ``prediction``): one task."""
    keys = {k for record in content for k in record}
    if not {"task_type", "clip_id", "prediction"} <= keys:
        return None
    names = {task_type_name(r.get("task_type", "")) for r in content}
    tasks = [task for task, name in TASK_TYPES.items() if name in names]
    if len(names) != 1 or len(tasks) != 1:
        return None  # the reader names the row whose task_type is not the file's
    return Detected("vidhalluc", tasks[0], "predictions")
