"""The AVHBench item table: which rows are scored, and the readings of both parsers."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.avhbench.read import Parsed
from analysis.metrics import NO, UNPARSED, YES
from analysis.table import extra_json, make_table, media_json
from analysis.yesno import Reader, code_to_word, read_column

CAPTIONING = "AV Captioning"
"""The one task that is not yes/no: shown, never scored, never counted as skipped."""

CAPTION_REASON = "captioning: not a yes/no task"


def build(parsed: Parsed, *, name: str, model: str | None, readers: tuple[Reader, Reader] | None,
          alt_parser: str) -> pd.DataFrame:
    """The item table of ``parsed``; ``readers`` (default, alternative) is None for gold alone."""
    n = len(parsed)
    keys = list(zip(parsed.video_id, [t.strip() for t in parsed.text], strict=True))
    scored, reasons = _scored(parsed, keys)
    columns: dict[str, Any] = {
        "benchmark": _same_category(name, n),
        "item_id": _text(_item_ids(keys)),
        "model": _same_category(_model(parsed, model) if readers is not None else "", n),
        "task": _category(parsed.task),
        "category": _same_category("", n),
        "subcategory": _same_category("", n),
        "question": _text(parsed.text),
        "options": _same_text("", n),
        "gold": _text(parsed.label),
        "alt_parser": _same_category(alt_parser, n),
        "scored": scored,
        "skip_reason": _text(reasons),
        "media": _text(_per_distinct(parsed.video_id, _media)),
        "pair_id": _same_text("", n),
        "side": _same_text("", n),
        "source": _sources(parsed),
        "extra": _text([extra_json(e, ()) if e else "" for e in parsed.extra]) if any(parsed.extra) else
        _same_text("", n),
    }
    if readers is not None:
        raw = pd.Series(_text(parsed.pred), copy=False)
        binary = np.array(_per_distinct(parsed.task, lambda t: t != CAPTIONING), dtype=bool)
        gold = _gold_codes(parsed.label)
        for prefix, reader in zip(("", "alt_"), readers, strict=True):
            code = np.where(binary, read_column(raw, reader), UNPARSED).astype(np.int8)
            columns[f"{prefix}parsed"] = code_to_word(code)
            columns[f"{prefix}correct"] = pd.arrays.BooleanArray((code == gold) & scored, ~scored)
        columns["raw_answer"] = raw
    return make_table(columns, length=n)


def _text(values: Sequence[str | None]) -> pd.arrays.ArrowStringArray:
    """A string column from Python texts (None for null), converted once by Arrow."""
    return pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(values, _TEXT)], _TEXT))


_TEXT = pa.large_string()


def _same_text(value: str, n: int) -> pd.arrays.ArrowStringArray:
    """A string column holding ``value`` in every row (what the table makes of a scalar, made at once)."""
    return pd.arrays.ArrowStringArray(pa.chunked_array([pa.repeat(pa.scalar(value, _TEXT), n)], _TEXT))


def _same_category(value: str, n: int) -> pd.Categorical:
    """A category column holding ``value`` in every row."""
    categories: list[Any] = [value]
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=pd.Index(categories))


def _category(values: list[str]) -> pd.Categorical:
    """A category column, its categories sorted (as pandas sorts a column's values)."""
    encoded = pc.dictionary_encode(pa.array(values, _TEXT))
    names = encoded.dictionary.to_pylist()
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False)]
    return pd.Categorical.from_codes(codes, categories=pd.Index([names[i] for i in order]))


def _item_ids(keys: list[tuple[str, str]]) -> list[str]:
    """``item_key(video_id, text)`` of each key: the same hash, without two calls a row."""
    blake = hashlib.blake2b
    return [blake(f"{v}\x1f{t}".encode(), digest_size=8).hexdigest() for v, t in keys]


def _media(video_id: str) -> str:
    return media_json([("video", f"{video_id}.mp4", "video+audio")])


def _sources(parsed: Parsed) -> pd.arrays.ArrowStringArray:
    """``file:record N`` of each record."""
    prefix = pa.scalar(f"{parsed.path.name}:", _TEXT)
    joined = pc.binary_join_element_wise(prefix, pa.array(parsed.where, _TEXT), pa.scalar("", _TEXT))
    return pd.arrays.ArrowStringArray(pa.chunked_array([joined], _TEXT))


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
