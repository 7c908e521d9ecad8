"""The AVHBench item table: which rows are scored, and the readings of both parsers."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.avhbench.read import Parsed
from analysis.benchmarks.shared.yesno import Reader, code_to_word, read_column
from analysis.stats.metrics import NO, UNPARSED, YES
from analysis.table.columns import (
    ARROW_TEXT,
    arrow_text_column,
    category_column,
    extra_json,
    make_table,
    media_json,
    same_category_column,
    same_text_column,
    text_column,
)

CAPTIONING = "AV Captioning"
"""The one task that is not yes/no: shown, never scored, never counted as skipped."""

CAPTION_REASON = "captioning: not a yes/no task"


def build(
    parsed: Parsed, *, name: str, model: str | None, readers: tuple[Reader, Reader] | None, alt_parser: str
) -> pd.DataFrame:
    """The item table of ``parsed``; ``readers`` (default, alternative) is None for gold alone."""
    n = len(parsed)
    keys = list(zip(parsed.video_id, [t.strip() for t in parsed.text], strict=True))
    scored, reasons = _scored(parsed, keys)
    columns: dict[str, Any] = {
        "benchmark": same_category_column(name, n),
        "item_id": text_column(_item_ids(keys)),
        "model": same_category_column(_model(parsed, model) if readers is not None else "", n),
        "task": _categories(parsed.task),
        "category": same_category_column("", n),
        "subcategory": same_category_column("", n),
        "question": text_column(parsed.text),
        "options": same_text_column("", n),
        "gold": text_column(parsed.label),
        "alt_parser": same_category_column(alt_parser, n),
        "scored": scored,
        "skip_reason": text_column(reasons),
        "media": text_column(_per_distinct(parsed.video_id, _media)),
        "pair_id": same_text_column("", n),
        "side": same_text_column("", n),
        "source": _sources(parsed),
        "extra": text_column([extra_json(e, ()) if e else "" for e in parsed.extra])
        if any(parsed.extra)
        else same_text_column("", n),
    }
    if readers is not None:
        raw = pd.Series(text_column(parsed.pred), copy=False)
        binary = np.array(_per_distinct(parsed.task, lambda t: t != CAPTIONING), dtype=bool)
        gold = _gold_codes(parsed.label)
        for prefix, reader in zip(("", "alt_"), readers, strict=True):
            code = np.where(binary, read_column(raw, reader), UNPARSED).astype(np.int8)
            columns[f"{prefix}parsed"] = code_to_word(code)
            columns[f"{prefix}correct"] = pd.arrays.BooleanArray((code == gold) & scored, ~scored)
        columns["raw_answer"] = raw
    return make_table(columns, length=n)


def _categories(values: list[str]) -> pd.Categorical:
    return category_column(pa.array(values, ARROW_TEXT))


def _item_ids(keys: list[tuple[str, str]]) -> list[str]:
    """``item_key(video_id, text)`` of each key: the same hash, without two calls a row."""
    blake = hashlib.blake2b
    return [blake(f"{v}\x1f{t}".encode(), digest_size=8).hexdigest() for v, t in keys]


def _media(video_id: str) -> str:
    return media_json([("video", f"{video_id}.mp4", "video+audio")])


def _sources(parsed: Parsed) -> pd.arrays.ArrowStringArray:
    """``file:record N`` of each record."""
    prefix = pa.scalar(f"{parsed.path.name}:", ARROW_TEXT)
    where = pa.array(parsed.where, ARROW_TEXT)
    return arrow_text_column(pc.binary_join_element_wise(prefix, where, pa.scalar("", ARROW_TEXT)))


def _per_distinct(values: list[Any], function: Callable[[Any], Any]) -> list[Any]:
    """``function(v)`` for each value, computed once per distinct value."""
    known = {v: function(v) for v in dict.fromkeys(values)}
    return [known[v] for v in values]


def _scored(parsed: Parsed, keys: list[tuple[str, str]]) -> tuple[npt.NDArray[np.bool_], list[str]]:
    """Captioning rows and repeated keys (after the first) are not scored; nor is a non-Yes/No gold."""
    n = len(keys)
    captioning = np.array([t == CAPTIONING for t in parsed.task], dtype=bool)
    failed = np.array(parsed.failed or [False] * n, dtype=bool) & ~captioning
    # a failed inference is not an answer: a later retry of the key still counts
    asked = np.flatnonzero(~captioning & ~failed)
    first_at: dict[tuple[str, str], int] = {}
    first = np.array([first_at.setdefault(keys[i], i) for i in asked.tolist()], dtype=np.intp)
    repeated = asked[first != asked]
    yes_no = np.array(_per_distinct(parsed.label, lambda g: g.strip().lower() in ("yes", "no")), dtype=bool)
    odd_gold = asked[(first == asked) & ~yes_no[asked]]
    scored = np.ones(n, dtype=bool)
    reasons = [""] * n
    for i in np.flatnonzero(captioning).tolist():
        reasons[i] = CAPTION_REASON
    for i in np.flatnonzero(failed).tolist():
        reasons[i] = "failed inference (ERROR: ...)"
    for i in odd_gold.tolist():
        reasons[i] = f"gold label {parsed.label[i]!r} is not Yes or No"
    scored[captioning | failed] = False
    scored[odd_gold] = False
    scored[repeated] = False
    for i, at in zip(repeated.tolist(), first[first != asked].tolist(), strict=True):
        reasons[i] = f"repeated key: first asked at {parsed.where[at]}"
    return scored, reasons


def _gold_codes(labels: list[str]) -> npt.NDArray[np.int8]:
    def code(label: str) -> int:
        norm = label.strip().lower()
        return YES if norm == "yes" else NO if norm == "no" else UNPARSED

    return np.array(_per_distinct(labels, code), dtype=np.int8)


def _model(parsed: Parsed, model: str | None) -> str:
    """The model given, else one ``model`` field shared by every record, else the file's stem."""
    if model:
        return model
    name = parsed.extra[0].get("model") if parsed.extra else None
    if isinstance(name, str) and name and all(e.get("model") == name for e in parsed.extra):
        return name
    return parsed.path.stem
