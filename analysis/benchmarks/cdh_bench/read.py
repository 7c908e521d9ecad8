"""Reading CDH-Bench files: the official ``results.jsonl`` and the gold ``benchmark.jsonl``.

Both readers check every field they use and raise :class:`~analysis.errors.InputError` naming the
file, the line and the field. They return plain columns (or, for the 300-pair gold file, small
pair records); ``cdh_bench.py`` turns them into item tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.readers import Records, read_jsonl, require, require_column, type_name
from analysis.table import item_key, media_json

TASKS = ("qa", "mc")
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


def image_path(subcategory: str, pair_id: str, side: str) -> str:
    """Where the release keeps a pair's image, relative to the data folder."""
    folder = subcategory.replace(" ", "_").replace("/", "_")
    return f"images/{folder}/{pair_id.replace(' ', '_')}/{side}.png"


def read_results(path: Path) -> tuple[Records, dict[str, list[Any]]]:
    """Read ``results.jsonl``: its records and their checked fields as columns.

    Every record has ``status``, ``pair_id``, ``task``, ``side`` checked for type; a record with
    ``status == "ok"`` must also name its pair, a task in ``qa``/``mc`` and a side.
    """
    records = read_jsonl(path)
    cols: dict[str, list[Any]] = {k: require_column(records, k, optional=True) for k in _OPTIONAL_TEXT}
    ok = [s == "ok" for s in cols["status"]]
    for key, allowed in (("pair_id", None), ("task", TASKS), ("side", SIDES)):
        cols[key] = require_column(records, key, optional=True)
        for index, value in enumerate(cols[key]):
            if ok[index] and value is None:
                require(records, index, key)  # raises: an ok record must name it
            if ok[index] and allowed is not None and value not in allowed:
                raise records.error(index, f"{value!r} is not one of {', '.join(allowed)}", key)
    for key in ("correct", "commonsense_error"):
        cols[key] = require_column(records, key, (bool,), optional=True)
    cols["options"] = [_options(records, i) for i in range(len(records))]
    return records, cols


def _options(records: Records, index: int) -> str:
    value = require(records, index, "options", (list,), optional=True)
    if value is None:
        return ""
    for entry in value:
        if not isinstance(entry, str):
            raise records.error(index, f"expected a list of strings, found {type_name(entry)}", "options")
    return json.dumps(value, ensure_ascii=False)


def result_extras(records: Records) -> list[str]:
    """Each record's fields without a column of their own, as JSON (``run``, ``ts``, ``raw``...)."""
    keep_out = set(_RESULT_COLUMNS)
    return [
        json.dumps({k: v for k, v in r.items() if k not in keep_out}, ensure_ascii=False, default=str)
        for r in records.items
    ]


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
