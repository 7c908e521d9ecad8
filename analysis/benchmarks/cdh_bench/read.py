"""Reading CDH-Bench files: the official ``results.jsonl`` and the gold ``benchmark.jsonl``.

Both readers check every field they use and raise :class:`~analysis.errors.InputError` naming the
file, the line and the field. They return plain columns (or, for the 300-pair gold file, small
pair records); ``cdh_bench.py`` turns them into item tables.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.cdh_bench.columns import Columns
from analysis.benchmarks.cdh_bench.names import TASKS as TASKS  # the tasks scored; others skipped, counted
from analysis.files.readers import MAX_TEXT_CHARS, Records, read_jsonl, require, require_column, type_name
from analysis.table.columns import item_key, json_list, media_json

SIDES = ("commonsense", "counterfactual")
"""Sides in the order the official script asks them."""
BLOCKS = {"qa": "direct_qa", "mc": "multiple_choice"}
"""The gold file's block for each task."""
UNKNOWN = "Unknown"
"""Category of a record without one (the official summary's ``category or "Unknown"``)."""

# Record fields that have a column of their own; everything else goes to ``extra``.
_RESULT_COLUMNS = (
    "pair_id", "task", "side", "category", "subcategory", "gt", "pred", "question",
    "options", "image_path", "model_name",
)  # fmt: skip
_OPTIONAL_TEXT = ("category", "subcategory", "gt", "cf_gt", "cs_gt", "pred", "question",
                  "image_path", "model_name", "status")  # fmt: skip


def item_id(pair_id: str, task: str, side: str) -> str:
    """Stable id of one question asked of one image: the same for every model, run and retry."""
    return "cdh-" + item_key(pair_id, task, side)


def item_ids(pair_ids: Sequence[str], tasks: Sequence[str], sides: Sequence[str]) -> list[str]:
    """:func:`item_id` of each (pair id, task, side): the same hash, without two calls a row."""
    blake = hashlib.blake2b
    return [
        "cdh-" + blake(f"{p}\x1f{t}\x1f{s}".encode(), digest_size=8).hexdigest()
        for p, t, s in zip(pair_ids, tasks, sides, strict=True)
    ]


def image_path(subcategory: str, pair_id: str, side: str) -> str:
    """Where the release keeps a pair's image, relative to the data folder."""
    folder = subcategory.replace(" ", "_").replace("/", "_")
    return f"images/{folder}/{pair_id.replace(' ', '_')}/{side}.png"


def read_results(path: Path) -> tuple[Records, dict[str, list[Any]], Columns]:
    """Read ``results.jsonl``: its records, their checked fields as columns, and all their fields.

    Every record has ``status``, ``pair_id``, ``task``, ``side`` checked for type; a record with
    ``status == "ok"`` must name its task, and one of a task halluscope scores (``qa``/``mc``)
    also its pair and a side. Records of other tasks are read, not scored. Each check
    looks at a whole column; only when one fails are the records walked again to name the first
    bad one, in the order the checks are listed here.
    """
    records = read_jsonl(path)
    _refuse_foreign(records)
    fields = Columns(records.items)
    cols: dict[str, list[Any]] = {k: _checked(records, fields, k, (str,)) for k in _OPTIONAL_TEXT}
    ok = [s == "ok" for s in cols["status"]]
    cols["task"] = _checked(records, fields, "task", (str,))
    if any(is_ok and t is None for t, is_ok in zip(cols["task"], ok, strict=True)):
        _refuse_unnamed(records, cols["task"], ok, "task", None)
    # a task halluscope does not score (an evaluator's extra "caption" records) is skipped and
    # counted, never a reason to refuse the file: only the scored records must name the rest
    scored = [is_ok and t in TASKS for t, is_ok in zip(cols["task"], ok, strict=True)]
    for key, allowed in (("pair_id", None), ("side", SIDES)):
        cols[key] = _checked(records, fields, key, (str,))
        named = {v for v, counts in zip(cols[key], scored, strict=True) if counts}
        if None in named or (allowed is not None and not named <= set(allowed)):
            _refuse_unnamed(records, cols[key], scored, key, allowed)
    for key in ("correct", "commonsense_error"):
        cols[key] = _checked(records, fields, key, (bool,))
    cols["options"] = _options(records, fields.get("options"))
    return records, cols, fields


_OWN_FIELDS = ("status", "pair_id", "task", "side")
"""Fields every record of a run's ``results.jsonl`` has: a file in which no record has any of
them is another file, refused, not read as every record skipped (a record without ``status`` is
one the official summary ignores, but a whole file of them is not a run)."""


def _refuse_foreign(records: Records) -> None:
    """Refuse a file none of whose records has a field of a CDH-Bench result (naming what they have)."""
    if not records.items or any(k in item for item in records.items for k in _OWN_FIELDS):
        return
    have = sorted({k for item in records.items for k in item})
    shown = ", ".join(have[:8]) + (", ..." if len(have) > 8 else "") or "no fields"
    problem = f"missing in every record, as are {', '.join(_OWN_FIELDS[1:])} (records have {shown})"
    raise records.error(0, problem, _OWN_FIELDS[0])


def result_extras(fields: Columns) -> pa.Array:
    """Each record's fields without a column of their own, as JSON (``run``, ``ts``, ``raw``...)."""
    return fields.texts_without(_RESULT_COLUMNS)


def _checked(records: Records, fields: Columns, key: str, kinds: tuple[type, ...]) -> list[Any]:
    """Field ``key`` of every record (None where absent), of one of ``kinds`` or null."""
    values = fields.get(key)
    if kinds == (str,):  # Arrow takes strings and nulls only; a byte count within the limit is
        text = fields.text(key)  # a character count within it
        fits = text is not None and (pc.max(pc.binary_length(text)).as_py() or 0) <= MAX_TEXT_CHARS
        fits = fits or (text is not None and max(map(len, filter(None, values))) <= MAX_TEXT_CHARS)
    else:
        fits = set(map(type, values)) - {type(None)} <= set(kinds)
    if not fits:
        require_column(records, key, kinds, optional=True)  # raises, naming the first bad record
    return values


def _refuse_unnamed(
    records: Records, values: list[Any], ok: list[bool], key: str, allowed: tuple[str, ...] | None
) -> None:
    for index, value in enumerate(values):
        if ok[index] and value is None:
            require(records, index, key)  # raises: an ok record must name it
        if ok[index] and allowed is not None and value not in allowed:
            raise records.error(index, f"{value!r} is not one of {', '.join(allowed)}", key)


def _options(records: Records, values: list[Any]) -> list[str]:
    """The ``options`` lists as JSON texts ("" for none); a list of anything but strings is refused."""
    if all(v is None for v in values):
        return [""] * len(values)
    if set(map(type, values)) <= {list, type(None)} and all(
        type(entry) is str for value in values if value for entry in value
    ):
        return ["" if value is None else json_list(value) for value in values]
    return [_option_text(records, i) for i in range(len(records))]  # raises, naming the first bad one


def _option_text(records: Records, index: int) -> str:
    value = require(records, index, "options", (list,), optional=True)
    if value is None:
        return ""
    for entry in value:
        if not isinstance(entry, str):
            raise records.error(index, f"expected a list of strings, found {type_name(entry)}", "options")
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class GoldPair:
    """One line of ``benchmark.jsonl``: a pair of images and the two tasks asked of both."""

    pair_id: str
    pair_name: str
    category: str
    subcategory: str
    questions: dict[str, str]
    """Question per task (``qa``, ``mc``)."""
    golds: dict[tuple[str, str], str]
    """Gold per (task, side)."""
    options: list[str] | str
    """The mc options as written: normally a list, but a single string is kept to be flagged."""
    source: str
    """``file:line N``."""
    extra: str
    """Other fields of the line (``pair_name``, prompts...) as JSON."""


def read_gold(path: Path) -> list[GoldPair]:
    """Read ``benchmark.jsonl`` (key order within a line does not matter)."""
    records = read_jsonl(path)
    return [_gold_pair(records, i) for i in range(len(records))]


def _gold_pair(records: Records, index: int) -> GoldPair:
    pair_id = require(records, index, "pair_id")
    questions: dict[str, str] = {}
    golds: dict[tuple[str, str], str] = {}
    for task, block_key in BLOCKS.items():
        block = require(records, index, block_key, (dict,))
        questions[task] = _nested(records, index, block, block_key, "question")
        for side in SIDES:
            golds[task, side] = _nested(records, index, block, block_key, f"{side}_gt")
    options = records.items[index]["multiple_choice"].get("options")
    well_typed = isinstance(options, list) and all(isinstance(o, str) for o in options)
    if not (well_typed or isinstance(options, str)):
        found = type_name(options) if not isinstance(options, list) else "a non-string entry"
        raise records.error(index, f"expected a list of strings, got {found}", "multiple_choice.options")
    item = records.items[index]
    own_columns = ("pair_id", "category", "subcategory", *BLOCKS.values())
    rest = {k: v for k, v in item.items() if k not in own_columns}
    return GoldPair(
        pair_id=pair_id,
        pair_name=require(records, index, "pair_name", optional=True) or "",
        category=require(records, index, "category", optional=True) or UNKNOWN,
        subcategory=require(records, index, "subcategory", optional=True) or "",
        questions=questions,
        golds=golds,
        options=options,
        source=f"{records.path.name}:{records.where(index)}",
        extra=json.dumps(rest, ensure_ascii=False) if rest else "",
    )


def _nested(records: Records, index: int, block: dict[str, Any], block_key: str, key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        problem = "missing" if key not in block else f"got {type_name(value)}"
        raise records.error(index, f"{problem}, expected a string", f"{block_key}.{key}")
    return value


def gold_columns(pairs: list[GoldPair]) -> dict[str, list[Any]]:
    """Item-table columns of gold pairs: one row per (pair, task, side), no model answer."""
    cols: dict[str, list[Any]] = {k: [] for k in (
        "item_id", "task", "category", "subcategory", "question", "options", "gold",
        "media", "pair_id", "side", "source", "extra")}  # fmt: skip
    for pair in pairs:
        for task in TASKS:
            options = pair.options if isinstance(pair.options, list) else [pair.options]
            for side in SIDES:
                path = image_path(pair.subcategory, pair.pair_id, side)
                row = (item_id(pair.pair_id, task, side), task, pair.category, pair.subcategory,
                       pair.questions[task], json.dumps(options, ensure_ascii=False) if task == "mc" else "",
                       pair.golds[task, side], media_json([("image", path, side)]), pair.pair_id, side,
                       pair.source, pair.extra)  # fmt: skip
                for key, value in zip(cols, row, strict=True):
                    cols[key].append(value)
    return cols
