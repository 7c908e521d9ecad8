"""Tell, from a file's content, which benchmark it belongs to, which task, and whether it is gold.

Private helper of :mod:`analysis.catalog`. Names are never trusted over content, except for one
case content cannot settle: a VidHalluc binary-QA prediction file mirrors the gold file exactly,
so a model that answers a bare "Yes"/"No" writes a file that looks like gold. There the gold is
the file named ``ach_binaryqa.json`` (or one the user marks as gold).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from analysis.errors import InputError
from analysis.readers import iter_jsonl, looks_like_jsonl, read_json

Role = Literal["gold", "predictions", "manifest"]

PREDICTION_KEYS = ("pred", "prediction", "response")
"""Fields in which AVHBench and CMM files carry the model's answer."""

SAMPLE = 20
"""How many records are looked at to decide (keys differ slightly from record to record)."""


@dataclass(frozen=True)
class Detected:
    """What a file is."""

    benchmark: str
    task: str | None
    role: Role


def detect(path: Path) -> Detected:
    """Read ``path`` and say what it is; InputError when it matches no known format."""
    if looks_like_jsonl(path):
        first = [v for _, v in islice(iter_jsonl(path), SAMPLE) if isinstance(v, dict)]
        return _from_records(path, first)
    value = read_json(path)
    if isinstance(value, list):
        return _from_records(path, [v for v in value[:SAMPLE] if isinstance(v, dict)])
    if isinstance(value, dict):
        return _from_object(path, value)
    raise InputError(path, "expected a JSON list or object at the top level")


def _keys(records: list[dict[str, Any]]) -> set[str]:
    keys: set[str] = set()
    for record in records:
        keys.update(record)
    return keys


def _from_records(path: Path, records: list[dict[str, Any]]) -> Detected:
    keys = _keys(records)
    if "gt_hallucinated_caption_with_tags" in keys:
        return Detected("detailverifybench", None, "predictions")
    if {"description_tag", "GT_description"} & keys:
        return Detected("detailverifybench", None, "gold")
    if "pair_id" in keys and {"direct_qa", "multiple_choice"} & keys:
        return Detected("cdh-bench", None, "gold")
    if "pair_id" in keys and {"side", "status", "cf_gt"} & keys:
        return Detected("cdh-bench", None, "predictions")
    if "sub_category" in keys and {"granularity", "modality"} & keys:
        return Detected("cmm", None, "predictions" if "pred" in keys else "gold")
    if {"video_id", "id"} & keys and {"task", "text", "label", "question"} & keys:
        has_pred = bool(set(PREDICTION_KEYS) & keys)
        return Detected("avhbench", None, "predictions" if has_pred else "gold")
    shown = ", ".join(sorted(keys)[:8]) or "no fields"
    raise InputError(path, f"cannot tell which benchmark this file belongs to (records have {shown})")


def _first_value(value: dict[str, Any]) -> Any:
    for item in value.values():
        if item not in (None, [], {}):
            return item
    return None


def _from_object(path: Path, value: dict[str, Any]) -> Detected:
    if isinstance(value.get("benchmarks"), dict):
        return Detected("", None, "manifest")
    first = _first_value(value)
    if isinstance(first, str):
        return Detected("vidhalluc", "sth", "predictions")
    if isinstance(first, list) and isinstance(first[0], dict) and {"q", "a"} <= set(first[0]):
        role: Role = "gold" if path.stem == "ach_binaryqa" else "predictions"
        return Detected("vidhalluc", "bqa", role)
    if isinstance(first, dict):
        if "Scene change" in first:
            return Detected("vidhalluc", "sth", "gold")
        if "Question" in first and "video" in first:
            return Detected("vidhalluc", "tsh", "predictions" if "Model Answer" in first else "gold")
        inner = _first_value(first)
        if isinstance(inner, dict) and "Choices" in inner:
            return Detected("vidhalluc", "mcq", "predictions" if "Model Answer" in inner else "gold")
    raise InputError(path, "cannot tell which benchmark this JSON object belongs to")
