"""Telling VidHalluc files apart by content: JSON objects whose first entry has each task's shape.

A binary-QA prediction file mirrors the gold file exactly (the model's text in place of each
clip's answer), so content cannot tell them apart when a model answers a bare "Yes"/"No": there
the gold is the file named ``ach_binaryqa.json`` (or one the user marks as gold).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.benchmarks.base import Content, Detected, Role

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
        return Detected("vidhalluc", "sth", "predictions")
    if isinstance(first, list) and first and isinstance(first[0], dict) and {"q", "a"} <= set(first[0]):
        role: Role = "gold" if path.stem == GOLD_BQA_NAME else "predictions"
        return Detected("vidhalluc", "bqa", role, by_name=True)
    if isinstance(first, dict):
        if "Scene change" in first:
            return Detected("vidhalluc", "sth", "gold")
        if "Question" in first and "video" in first:
            return Detected("vidhalluc", "tsh", "predictions" if "Model Answer" in first else "gold")
        inner = _first_value(first)
        if isinstance(inner, dict) and "Choices" in inner:
            return Detected("vidhalluc", "mcq", "predictions" if "Model Answer" in inner else "gold")
    return None


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
