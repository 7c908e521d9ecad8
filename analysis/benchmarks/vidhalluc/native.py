"""Corrected VidHalluc files: nested JSON objects, corrected in place through the tasks' item ids.

``ach_binaryqa.json`` clip answers; ``ach_mcq.json`` / ``tsh.json`` (and the MCQ / TSH result
files, which carry them too) ``Correct Answer``; ``sth.json`` ``Scene change`` and ``Locations``.
A BQA prediction file (the model's text in place of each answer) and an STH prediction file
(``{video_id: text}``) carry no gold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from analysis.benchmarks.shared.corrected import dump, table_spelling
from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc.auditing import detect
from analysis.benchmarks.vidhalluc.detect import recognise
from analysis.files.readers import read_object

Fix = Callable[[str, Any, Mapping[str, str]], None]


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """The file with corrected gold, or None when it is a prediction file without gold."""
    data = read_object(path)
    found = recognise(path, data)
    if found is not None and found.role == "predictions" and found.task in ("bqa", "sth"):
        return None
    fixes: dict[str, Fix] = {"bqa": _bqa, "mcq": _mcq, "tsh": _tsh, "sth": _sth}
    fix = fixes[found.task if found is not None and found.task else detect(path, data)]
    for key, entry in data.items():
        fix(key, entry, gold)
    return dump(data, jsonl=False)


def _bqa(group: str, questions: list[dict[str, Any]], gold: Mapping[str, str]) -> None:
    for index, question in enumerate(questions):
        answers = question.get("a") or {}
        for clip in answers:
            value = gold.get(bqa.item_id(group, index, clip))
            if value is not None:
                answers[clip] = table_spelling(value, answers[clip])


def _mcq(group: str, clips: dict[str, Any], gold: Mapping[str, str]) -> None:
    for clip, record in clips.items():
        value = gold.get(mcq.item_id(group, clip))
        if value is not None:
            record["Correct Answer"] = value


def _tsh(key: str, entry: dict[str, Any], gold: Mapping[str, str]) -> None:
    value = gold.get(tsh.item_id(key, str(entry.get("video"))))
    if value is not None:
        entry["Correct Answer"] = value


def _sth(video_id: str, entry: dict[str, Any], gold: Mapping[str, str]) -> None:
    value = gold.get(sth.item_id(video_id))
    if value is not None:
        change, _, locations = value.removeprefix("Scene change: ").partition(", Locations: ")
        entry["Scene change"] = change
        if locations:  # a "No" keeps the file's own Locations text
            entry["Locations"] = locations
