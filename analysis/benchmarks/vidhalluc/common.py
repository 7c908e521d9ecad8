"""Helpers shared by the four VidHalluc tasks: type checks that name the record, row columns, ids."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.shared.gold_only import GOLD_ONLY as GOLD_ONLY  # the one reason of every benchmark
from analysis.benchmarks.vidhalluc.names import NAME, PARSERS
from analysis.errors import InputError
from analysis.files.readers import (
    MAX_TEXT_CHARS,
    type_name,
    without_gc_pauses,  # noqa: F401 - re-exported for the loaders
)
from analysis.table.columns import item_key, json_string, make_table, media_json

ALT = PARSERS[1]
"""The lenient parser (the other is the official scorer's)."""


def expect(path: Path, value: Any, kinds: tuple[type, ...], *, record: str, field: str | None = None) -> Any:
    """Return ``value`` if it has one of ``kinds`` (JSON sense: a bool is not a number)."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise InputError(
            path, f"expected {_describe(kinds)}, got {type_name(value)}", record=record, field=field
        )
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise InputError(
            path,
            f"is {len(value):,} characters, over the {MAX_TEXT_CHARS:,} limit",
            record=record,
            field=field,
        )
    return value


def field(
    path: Path,
    obj: dict[str, Any],
    key: str,
    kinds: tuple[type, ...] = (str,),
    *,
    record: str,
    optional: bool = False,
) -> Any:
    """Return ``obj[key]`` checked like :func:`expect`; absent or null is an error unless optional."""
    value = obj.get(key)
    if value is None:
        if optional:
            return None
        problem = "missing" if key not in obj else "is null"
        raise InputError(path, f"{problem}, expected {_describe(kinds)}", record=record, field=key)
    return expect(path, value, kinds, record=record, field=key)


def only(kind: type, values: Sequence[Any]) -> bool:
    """Whether every value has exactly type ``kind`` (one C-level pass; a bulk check)."""
    return set(map(type, values)) <= {kind}


def texts_ok(values: Sequence[Any], *, optional: bool) -> bool:
    """Whether every value is a string within the length limit (or null, if ``optional``).

    The bulk form of :func:`field`'s check: when it says no, the record-by-record reading names
    the bad value.
    """
    kinds = set(map(type, values))
    if not kinds <= ({str, type(None)} if optional else {str}):
        return False
    present = filter(None, values) if type(None) in kinds else values  # "" and None have no length to check
    return max(map(len, present), default=0) <= MAX_TEXT_CHARS


def _describe(kinds: tuple[type, ...]) -> str:
    names = {str: "a string", dict: "an object", list: "a list", int: "a number", float: "a number"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


def model_name(predictions: Path, model: str | None) -> str:
    """The model column: given, else the prediction file's stem (VidHalluc files do not name it)."""
    return model if model else predictions.stem


def make_id(task: str, *parts: str) -> str:
    """Stable item id: readable task prefix plus a hash of the benchmark's own key."""
    return f"{task}-{item_key(task, *parts)}"


def make_ids(task: str, *columns: Sequence[str]) -> list[str]:
    r""":func:`make_id` of each row of the (string) key columns, one hash call per row.

    The digest is :func:`analysis.table.columns.item_key`'s: blake2b of the parts joined by ``\x1f``.
    """
    digest, sep, head = hashlib.blake2b, "\x1f", task + "\x1f"
    return [
        task + "-" + digest((head + sep.join(parts)).encode(), digest_size=8).hexdigest()
        for parts in zip(*columns, strict=True)
    ]


def video(clip_id: str) -> str:
    """The ``media`` value of one clip, ``<clip_id>.mp4``."""
    return media_json([("video", f"{clip_id}.mp4", "clip")])


def videos(clip_ids: Sequence[str]) -> list[str]:
    """:func:`video` of each clip id.

    When no id needs escaping (then neither does their concatenation: one scan), each value is
    the encoding of a placeholder clip with the id put in its place.
    """
    template = video("@")
    joined = "".join(clip_ids)
    if template.count('"@.mp4"') != 1 or json_string(joined) != f'"{joined}"':
        return [video(clip) for clip in clip_ids]
    head, tail = template.split('"@.mp4"')
    return [f'{head}"{clip}.mp4"{tail}' for clip in clip_ids]


def read_extra(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Decode the ``extra`` column (empty strings become empty dicts), each distinct text once.

    Rows with the same text share one dict: read it, do not change it.
    """
    decoded: dict[str, dict[str, Any]] = {}
    out = []
    for text in table["extra"].astype(str).tolist():
        value = decoded.get(text)
        if value is None:
            value = decoded[text] = json.loads(text) if text else {}
        out.append(value)
    return out


def by_distinct(values: Sequence[Hashable], parse: Callable[[Any], Any]) -> list[Any]:
    """Apply ``parse`` once per distinct value: model answers repeat a great deal."""
    cache: dict[Hashable, Any] = {}
    out = []
    for value in values:
        if value not in cache:
            cache[value] = parse(value)
        out.append(cache[value])
    return out


def nullable(values: Sequence[Any]) -> list[str | None]:
    """Raw answers from a string column, with pandas' missing values turned into None."""
    return [v if type(v) is str else None if v is None or pd.isna(v) else str(v) for v in values]


def table(columns: dict[str, Any], *, task: str, model: str, n: int) -> pd.DataFrame:
    """Finish an item table: fixed columns for the benchmark, task, model and alt parser."""
    columns = {**columns, "benchmark": NAME, "task": task, "model": model, "alt_parser": ALT}
    return make_table(columns, length=n)


def mask_unscored(values: list[Any], scored: Sequence[bool]) -> list[Any]:
    """Null out verdicts of rows the official scorer does not count."""
    return [v if s else None for v, s in zip(values, scored, strict=True)]


def with_verdicts(
    frame: pd.DataFrame, verdicts: Callable[[pd.DataFrame, str], tuple[list[Any], list[Any]]]
) -> pd.DataFrame:
    """Fill the parsed answers and verdicts of both parsers (official, lenient) from ``verdicts``."""
    scored = frame["scored"].tolist()
    for parser, (p_col, c_col) in {
        "official": ("parsed", "correct"),
        "lenient": ("alt_parsed", "alt_correct"),
    }.items():
        parsed, correct = verdicts(frame, parser)
        frame[p_col] = pd.Series(parsed, dtype="string")
        frame[c_col] = pd.Series(mask_unscored(correct, scored), dtype="boolean")
    return frame
