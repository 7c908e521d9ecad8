"""The AVHBench item table: which rows are scored, and the readings of both parsers."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.avhbench.read import Parsed
from analysis.metrics import NO, UNPARSED, YES
from analysis.table import extra_json, item_key, make_table, media_json
from analysis.yesno import Reader, code_to_word, read_column

CAPTIONING = "AV Captioning"
"""The one task that is not yes/no: shown, never scored, never counted as skipped."""

CAPTION_REASON = "captioning: not a yes/no task"


def build(parsed: Parsed, *, name: str, model: str | None, readers: tuple[Reader, Reader] | None,
          alt_parser: str) -> pd.DataFrame:
    """The item table of ``parsed``; ``readers`` (default, alternative) is None for gold alone."""
    n = len(parsed)
    keys = [(v, t.strip()) for v, t in zip(parsed.video_id, parsed.text, strict=True)]
    scored, reasons = _scored(parsed, keys)
    columns: dict[str, Any] = {
        "benchmark": name,
        "item_id": [item_key(v, t) for v, t in keys],
        "model": _model(parsed, model) if readers is not None else "",
        "task": parsed.task,
        "question": parsed.text,
        "gold": parsed.label,
        "alt_parser": alt_parser,
        "scored": scored,
        "skip_reason": reasons,
        "media": [media_json([("video", f"{v}.mp4", "video+audio")]) for v in parsed.video_id],
        "source": [f"{parsed.path.name}:{w}" for w in parsed.where],
        "extra": [extra_json(e, ()) for e in parsed.extra],
    }
    if readers is not None:
        raw = pd.Series(parsed.pred, dtype="string")
        binary = np.array([t != CAPTIONING for t in parsed.task], dtype=bool)
        gold = _gold_codes(parsed.label)
        for prefix, reader in zip(("", "alt_"), readers, strict=True):
            code = np.where(binary, read_column(raw, reader), UNPARSED).astype(np.int8)
            verdict = pd.array(code == gold, dtype="boolean")
            verdict[~scored] = pd.NA
            columns[f"{prefix}parsed"] = code_to_word(code)
            columns[f"{prefix}correct"] = verdict
        columns["raw_answer"] = raw
    return make_table(columns, length=n)


def _scored(parsed: Parsed, keys: list[tuple[str, str]]) -> tuple[npt.NDArray[np.bool_], list[str]]:
    """Captioning rows and repeated keys (after the first) are not scored; nor is a non-Yes/No gold."""
    first: dict[tuple[str, str], str] = {}
    scored = np.ones(len(keys), dtype=bool)
    reasons = [""] * len(keys)
    failed = parsed.failed or [False] * len(keys)
    for i, (key, task, label) in enumerate(zip(keys, parsed.task, parsed.label, strict=True)):
        if task == CAPTIONING:
            scored[i], reasons[i] = False, CAPTION_REASON
        elif failed[i]:  # a failed inference, not an answer; a later retry of the key still counts
            scored[i], reasons[i] = False, "failed inference (ERROR: ...)"
        elif key in first:
            scored[i], reasons[i] = False, f"repeated key: first asked at {first[key]}"
        else:
            first[key] = parsed.where[i]
            if label.strip().lower() not in ("yes", "no"):
                scored[i], reasons[i] = False, f"gold label {label!r} is not Yes or No"
    return scored, reasons


def _gold_codes(labels: list[str]) -> npt.NDArray[np.int8]:
    norm = [label.strip().lower() for label in labels]
    return np.array([YES if g == "yes" else NO if g == "no" else UNPARSED for g in norm], dtype=np.int8)


def _model(parsed: Parsed, model: str | None) -> str:
    """The model given, else one ``model`` field shared by every record, else the file's stem."""
    if model:
        return model
    names = {e.get("model") for e in parsed.extra}
    if len(names) == 1:
        name = names.pop()
        if isinstance(name, str) and name:
            return name
    return parsed.path.stem
