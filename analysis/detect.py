"""Tell, from a file's content, which benchmark it belongs to, which task, and whether it is gold.

Private helper of :mod:`analysis.catalog`. The first records (or the JSON object) are read once
and offered to every registered benchmark's ``recognise``, in ``DETECT_RANK`` order; a sample
manifest is recognised here. Names are never trusted over content, except where a benchmark says
content cannot settle it (VidHalluc's binary-QA gold is the file named ``ach_binaryqa.json``).
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

from analysis import benchmarks
from analysis.benchmarks.base import Content, Detected, Role
from analysis.errors import InputError
from analysis.readers import iter_jsonl, looks_like_jsonl, read_json

__all__ = ["SAMPLE", "Detected", "Role", "detect"]

SAMPLE = 20
"""How many records are looked at to decide (keys differ slightly from record to record)."""


def detect(path: Path) -> Detected:
    """Read ``path`` and say what it is; InputError when it matches no known format."""
    content: Content
    if looks_like_jsonl(path):
        content = [v for _, v in islice(iter_jsonl(path), SAMPLE) if isinstance(v, dict)]
    else:
        value = read_json(path)
        if isinstance(value, list):
            content = [v for v in value[:SAMPLE] if isinstance(v, dict)]
        elif isinstance(value, dict):
            if isinstance(value.get("benchmarks"), dict):
                return Detected("", None, "manifest")
            content = value
        else:
            raise InputError(path, "expected a JSON list or object at the top level")
    for bench in sorted(benchmarks.REGISTRY.values(), key=lambda b: b.DETECT_RANK):
        found = bench.recognise(path, content)
        if found is not None:
            return found
    if isinstance(content, dict):
        raise InputError(path, "cannot tell which benchmark this JSON object belongs to")
    keys = sorted({k for record in content for k in record})
    shown = ", ".join(keys[:8]) or "no fields"
    raise InputError(path, f"cannot tell which benchmark this file belongs to (records have {shown})")
