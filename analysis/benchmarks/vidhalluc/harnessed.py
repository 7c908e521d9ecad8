"""VidHalluc results written by a general harness: the VLMEvalKit fork's ``VideoHalluc_*`` files.

A public VLMEvalKit fork implements VidHalluc as four datasets, ``VideoHalluc_BQA``, ``_MCQ``,
``_TSH`` and ``_STH``; its prediction file (xlsx, tsv or json, read by :mod:`analysis.files.harness`) has
one row per question asked of one clip, with the columns ``index, sample_id, question_id, clip_id,
task_type, video, video_path, question, answer`` plus ``prediction`` (MCQ adds ``choices``, STH
``answer_scene_change, answer_locations``). The rows carry their gold, so no ``--gold`` is needed.

Each task's rows are put back into the shape of the official files and read by the same code,
so items, verdicts and scores are the native ones:

- BQA: ``sample_id`` is the group; its questions are numbered in order of first appearance of
  ``question_id``; ``answer`` is the clip's gold. A question is right only if all its clips are.
- MCQ: ``sample_id`` the group, ``clip_id`` the clip; ``choices`` a JSON (or Python) mapping
  ``{"A": ..., "D": ...}``, or columns ``A``..``D``.
- TSH: one entry per row, keyed by ``question_id`` (else ``index``, else ``sample_id``, else the
  row's place). Only ``answer`` and ``prediction`` are required: the official rule reads nothing
  else, so a per-item file of another pipeline (``sample_id, ground_truth, raw_model_output``)
  is read with ``--task tsh --map answer=ground_truth,prediction=raw_model_output``.
- STH: one video per row; gold from ``answer_scene_change`` and ``answer_locations``.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc.detect import TASK_TYPES, task_type_name
from analysis.errors import InputError
from analysis.files import harness, readers


def load(found: harness.Harnessed, task: str, model: str) -> pd.DataFrame:
    """One model's rows of ``task`` from a VLMEvalKit prediction file, read as the native files."""
    records = found.records
    _check_task(records, task)
    builder: dict[str, Callable[[readers.Records, str], pd.DataFrame]] = {
        "bqa": _bqa, "mcq": _mcq, "tsh": _tsh, "sth": _sth,
    }  # fmt: skip
    table = builder[task](records, model)
    return table


def _text(records: readers.Records, index: int, key: str, *, optional: bool = False) -> Any:
    value = records.items[index].get(key)
    if value is None and not optional:
        raise records.error(index, "missing, expected a string", key)
    return None if value is None else str(value)


def _check_task(records: readers.Records, task: str) -> None:
    for index, item in enumerate(records.items):
        kind = item.get("task_type")
        if kind is None:
            continue
        if task_type_name(kind) != TASK_TYPES[task]:
            raise records.error(
                index, f"{kind!r} is not {TASK_TYPES[task]}, the task given (--task {task})", "task_type"
            )


def _clip(records: readers.Records, index: int, *, optional: bool = False) -> str:
    clip = _text(records, index, "clip_id", optional=True)
    if clip is None:
        video = _text(records, index, "video", optional=optional)
        if video is None:
            return ""
        clip = video.rsplit("/", 1)[-1].removesuffix(".mp4")
    return str(clip)


TSH_KEYS = ("question_id", "index", "sample_id")
"""The fields that may key a TSH entry, in order; without any, the row's place in the file."""


def _bqa(records: readers.Records, model: str) -> pd.DataFrame:
    gold: dict[str, list[dict[str, Any]]] = {}
    pred: dict[str, list[dict[str, Any]]] = {}
    position: dict[tuple[str, str], int] = {}
    for i in range(len(records)):
        group, qid = _text(records, i, "sample_id"), _text(records, i, "question_id")
        if (group, qid) not in position:
            position[group, qid] = len(gold.setdefault(group, []))
            gold[group].append({"q": _text(records, i, "question"), "a": {}})
            pred.setdefault(group, []).append({"q": _text(records, i, "question"), "a": {}})
        at = position[group, qid]
        clip = _clip(records, i)
        gold[group][at]["a"][clip] = _text(records, i, "answer")
        pred[group][at]["a"][clip] = _answer(records, i)
    return bqa._table(records.path, gold, records.path, pred, model)


def _mcq(records: readers.Records, model: str) -> pd.DataFrame:
    data: dict[str, dict[str, Any]] = {}
    for i in range(len(records)):
        group, clip = _text(records, i, "sample_id"), _clip(records, i)
        data.setdefault(group, {})[clip] = {
            "Question": _text(records, i, "question"),
            "Choices": _choices(records, i),
            "Correct Answer": _text(records, i, "answer"),
            "Model Answer": _answer(records, i),
        }
    return mcq._table(records.path, data, records.path, None, model)


def _choices(records: readers.Records, index: int) -> dict[str, str]:
    item = records.items[index]
    raw = item.get("choices")
    if raw is None:
        letters = {k: item[k] for k in "ABCD" if item.get(k) is not None}
        if not letters:
            raise records.error(index, "missing: expected the options as 'choices' or columns A-D", "choices")
        return {k: str(v) for k, v in letters.items()}
    value: Any = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            try:
                value = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                value = None
    if not isinstance(value, dict):
        raise records.error(index, "expected a mapping of option letters to texts", "choices")
    return {str(k): str(v) for k, v in value.items()}


def _tsh(records: readers.Records, model: str) -> pd.DataFrame:
    data: dict[str, dict[str, Any]] = {}
    for i in range(len(records)):
        field = next((k for k in TSH_KEYS if records.items[i].get(k) is not None), None)
        key = str(i) if field is None else str(_text(records, i, field))
        if key in data:
            raise records.error(i, f"repeats the entry {key!r}", field or "row")
        data[key] = {
            # the official rule reads the two answers only: a per-item file of another pipeline
            # may leave out the video and the question (they are shown, not scored)
            "video": _clip(records, i, optional=True),
            "Question": _text(records, i, "question", optional=True) or "",
            "Correct Answer": _text(records, i, "answer"),
            "Model Answer": _answer(records, i),
        }
    return tsh._table(records.path, data, model, gold_only=False)


def _sth(records: readers.Records, model: str) -> pd.DataFrame:
    gold: dict[str, dict[str, Any]] = {}
    pred: dict[str, Any] = {}
    for i in range(len(records)):
        clip = _clip(records, i)
        gold[clip] = {
            "Scene change": _text(records, i, "answer_scene_change"),
            "Locations": _text(records, i, "answer_locations", optional=True),
        }
        pred[clip] = _answer(records, i)
    keys = list(pred)
    return sth._table(keys, [""] * len(keys), gold, pred, records.path, records.path, model)


def _answer(records: readers.Records, index: int) -> str | None:
    value = records.items[index].get(harness.ANSWER)
    if value is not None and not isinstance(value, str):
        raise InputError(records.path, "expected a string", record=records.where(index), field=harness.ANSWER)
    return value
