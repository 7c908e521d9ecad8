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

from analysis.benchmarks.base import Benchmark
from analysis.errors import InputError
from analysis.readers import iter_jsonl, looks_like_jsonl, read_json

Role = Literal["gold", "predictions", "manifest"]

PREDICTION_KEYS = ("pred", "prediction", "response")
"""Fields in which AVHBench and CMM files carry the model's answer."""

ROLE_BY_NAME = {("vidhalluc", "bqa")}
"""Files whose role only their name tells (see above): never refused for their role."""

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
    found, why = _identify(path)
    if found is None:
        raise InputError(path, why)
    return found


def _identify(path: Path) -> tuple[Detected | None, str]:
    """What ``path`` is, or None and why not (a missing file or a folder is an InputError)."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a folder, expected a file")
    if looks_like_jsonl(path):
        first = [v for _, v in islice(iter_jsonl(path), SAMPLE) if isinstance(v, dict)]
        return _from_records(first)
    value = read_json(path)
    if isinstance(value, list):
        return _from_records([v for v in value[:SAMPLE] if isinstance(v, dict)])
    if isinstance(value, dict):
        return _from_object(path, value)
    return None, "expected a JSON list or object at the top level"


def expect(path: Path, benchmark: Benchmark, role: Role, task: str | None = None) -> None:
    """Refuse ``path`` when its content shows it is not a ``role`` file of ``benchmark``.

    A file whose kind content cannot tell (or that cannot be read) passes: the benchmark's reader
    then says precisely what it lacks. Only a confident "this is something else" is refused, with
    what the file is and what was expected (``cli.md``: gold passed as predictions, and the reverse,
    is never scored as all-skipped).
    """
    try:
        found, _ = _identify(path)
    except InputError:
        return
    if found is None:
        return
    wanted = f"expected {benchmark.NAME} {role}: {benchmark.FILES[role]}"
    if found.role == "manifest":
        raise InputError(path, f"this is a sample manifest, not a data file; {wanted}")
    if found.benchmark != benchmark.NAME and not _one_flat_object(path):
        seen = f"{found.benchmark} {found.role}"
        raise InputError(path, f"this looks like {seen}, not {benchmark.NAME}; {wanted}")
    if found.role != role and (found.benchmark, found.task) not in ROLE_BY_NAME:
        what = benchmark.FILES[found.role]
        raise InputError(path, f"this is {benchmark.NAME} {found.role}, {what}; {wanted}")
    if task is not None and found.task is not None and found.task != task:
        raise InputError(path, f"this is a {benchmark.NAME} {found.task} file, but --task is {task}")


def _one_flat_object(path: Path) -> bool:
    """A file holding one object with some text values: one JSONL record, or an ``{id: text}`` file.

    Content cannot say which, so such a file is never refused as another benchmark's: the reader
    of the benchmark asked for decides.
    """
    if looks_like_jsonl(path):
        return False
    value = read_json(path)
    return isinstance(value, dict) and any(isinstance(v, str) for v in value.values())


def _keys(records: list[dict[str, Any]]) -> set[str]:
    keys: set[str] = set()
    for record in records:
        keys.update(record)
    return keys


def _from_records(records: list[dict[str, Any]]) -> tuple[Detected | None, str]:
    keys = _keys(records)
    if "gt_hallucinated_caption_with_tags" in keys:
        return Detected("detailverifybench", None, "predictions"), ""
    if {"description_tag", "GT_description"} & keys:
        return Detected("detailverifybench", None, "gold"), ""
    if "pair_id" in keys and {"direct_qa", "multiple_choice"} & keys:
        return Detected("cdh-bench", None, "gold"), ""
    if "pair_id" in keys and {"side", "status", "cf_gt"} & keys:
        return Detected("cdh-bench", None, "predictions"), ""
    if "sub_category" in keys and {"granularity", "modality"} & keys:
        return Detected("cmm", None, "predictions" if {"pred", "prediction"} & keys else "gold"), ""
    if {"video_id", "id"} & keys and {"task", "text", "label", "question"} & keys:
        has_pred = bool(set(PREDICTION_KEYS) & keys)
        return Detected("avhbench", None, "predictions" if has_pred else "gold"), ""
    shown = ", ".join(sorted(keys)[:8]) or "no fields"
    return None, f"cannot tell which benchmark this file belongs to (records have {shown})"


def _first_value(value: dict[str, Any]) -> Any:
    for item in value.values():
        if item not in (None, [], {}):
            return item
    return None


def _from_object(path: Path, value: dict[str, Any]) -> tuple[Detected | None, str]:
    if isinstance(value.get("benchmarks"), dict):
        return Detected("", None, "manifest"), ""
    first = _first_value(value)
    if isinstance(first, str):
        return Detected("vidhalluc", "sth", "predictions"), ""
    if isinstance(first, list) and isinstance(first[0], dict) and {"q", "a"} <= set(first[0]):
        role: Role = "gold" if path.stem == "ach_binaryqa" else "predictions"
        return Detected("vidhalluc", "bqa", role), ""
    if isinstance(first, dict):
        if "Scene change" in first:
            return Detected("vidhalluc", "sth", "gold"), ""
        if "Question" in first and "video" in first:
            return Detected("vidhalluc", "tsh", "predictions" if "Model Answer" in first else "gold"), ""
        inner = _first_value(first)
        if isinstance(inner, dict) and "Choices" in inner:
            return Detected("vidhalluc", "mcq", "predictions" if "Model Answer" in inner else "gold"), ""
    return None, "cannot tell which benchmark this JSON object belongs to"
