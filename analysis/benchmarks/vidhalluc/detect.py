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


def recognise(path: Path, content: Content) -> Detected | None:
    """The task and role of a VidHalluc file (gold or one model's results)."""
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
