"""The item table of one ``results.jsonl``, built a column at a time.

Text columns go to the table as Arrow arrays (what the table's string columns are), so pandas
does not check a million Python strings again; texts that repeat (media references, skip reasons,
readings of the same answer against the same gold) are made once per distinct value.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.cdh_bench import parse as _parse
from analysis.benchmarks.cdh_bench import read as _read
from analysis.benchmarks.cdh_bench.columns import TEXT, Columns, json_strings
from analysis.files.readers import Records
from analysis.table.columns import (
    arrow_text_column,
    category_column,
    make_table,
    same_category_column,
    text_column,
)

Bools = npt.NDArray[np.bool_]


def results_table(
    path: Path,
    records: Records,
    cols: dict[str, list[Any]],
    fields: Columns,
    *,
    name: str,
    model: str | None,
    alt_parser: str,
) -> pd.DataFrame:
    """The item table of the records of ``path`` (every record, in file order)."""
    n = len(records)
    tasks = [t or "" for t in cols["task"]]
    ok = _is(fields.text("status"), "ok") & np.isin(np.array(tasks, dtype=object), _read.TASKS)
    sides = [s or "" for s in cols["side"]]
    pairs = [p or "" for p in cols["pair_id"]]
    readers = [_parse.READERS["reparse"], _parse.READERS[alt_parser]]
    (parsed, _), (alt_parsed, alt_correct) = _readings(fields, tasks, cols, readers)
    return make_table({
        "benchmark": same_category_column(name, n),
        "item_id": text_column(_read.item_ids(pairs, tasks, sides)),
        "model": same_category_column(model, n) if model
        else category_column(_or(fields.text("model_name"), path.stem)),
        "task": category_column(_or(fields.text("task"), "")),
        "category": category_column(_or(fields.text("category"), _read.UNKNOWN)),
        "subcategory": category_column(_or(fields.text("subcategory"), "")),
        "question": _checked_text(_or(fields.text("question"), "")),
        "options": text_column(cols["options"]),
        "gold": _checked_text(_or(fields.text("gt"), "")),
        "raw_answer": _checked_text(fields.text("pred")),
        "parsed": text_column(_unless(ok, parsed)),
        "correct": _verdicts(ok, _true(cols["correct"])),
        "alt_parser": same_category_column(alt_parser, n),
        "alt_parsed": text_column(_unless(ok, alt_parsed)),
        "alt_correct": _verdicts(ok, alt_correct),
        "scored": ok,
        "skip_reason": text_column(_per_distinct(list(zip(cols["status"], tasks, strict=True)), _skip)),
        "media": _checked_text(_media(fields.text("image_path"), _or(fields.text("side"), ""))),
        "pair_id": _checked_text(_or(fields.text("pair_id"), "")),
        "side": _checked_text(_or(fields.text("side"), "")),
        "source": _sources(path, records),
        "extra": _checked_text(_read.result_extras(fields)),
    }, length=n)  # fmt: skip


def _checked_text(text: pa.Array | None) -> pd.arrays.ArrowStringArray:
    """A string column from Arrow texts of a field the reader checked."""
    assert text is not None, "a text field the reader checked"
    return arrow_text_column(text)


def _or(text: pa.Array | None, default: str) -> pa.Array:
    """``value or default`` of each text: nulls and empty texts become ``default``."""
    assert text is not None, "a text field the reader checked"
    filled = pc.fill_null(text, "")
    if not default:
        return filled
    return pc.if_else(pc.equal(filled, ""), pa.scalar(default, TEXT), filled)


def _is(text: pa.Array | None, value: str) -> Bools:
    """Where the text is ``value`` (never where it is null)."""
    assert text is not None, "a text field the reader checked"
    found: Bools = pc.equal(text, value).fill_null(False).to_numpy(zero_copy_only=False)
    return found


def _true(values: list[bool | None]) -> Bools:
    """Where the value is True (not null)."""
    found: Bools = pa.array(values, pa.bool_()).fill_null(False).to_numpy(zero_copy_only=False)
    return found


def _unless(ok: Bools, values: npt.NDArray[np.object_]) -> npt.NDArray[np.object_]:
    """``values`` with None where the row is not scored."""
    out = values.copy()
    out[~ok] = None
    return out


def _verdicts(ok: Bools, correct: Bools) -> pd.arrays.BooleanArray:
    """Verdicts where the row is scored, null elsewhere."""
    return pd.arrays.BooleanArray(correct & ok, ~ok)


def _per_distinct(values: list[Any], text: Any) -> list[str]:
    """``text(v)`` for each value, computed once per distinct value."""
    known = {v: text(v) for v in dict.fromkeys(values)}
    return [known[v] for v in values]


def _skip(key: tuple[str | None, str]) -> str:
    status, task = key
    if status == "ok" and task not in _read.TASKS:
        return f"task {task!r}: not scored (halluscope scores {' and '.join(_read.TASKS)})"
    if status == "ok":
        return ""
    if status is None:
        return "no status: not counted"
    return f"status {status!r}: not counted, even if a later retry succeeds"


def _media(paths: pa.Array | None, sides: pa.Array) -> pa.Array:
    """The image of each record as its ``media`` text (``media_json`` of it), "" where it has none."""
    path = _or(paths, "")
    texts = pc.binary_join_element_wise(
        pa.scalar('[{"kind": "image", "path": ', TEXT), json_strings(path), pa.scalar(', "role": ', TEXT),
        json_strings(sides), pa.scalar("}]", TEXT), pa.scalar("", TEXT))  # fmt: skip
    return pc.if_else(pc.equal(path, ""), pa.scalar("", TEXT), texts)


def _readings(
    fields: Columns, tasks: list[str], cols: dict[str, list[Any]], readers: Sequence[_parse.Reader]
) -> list[tuple[npt.NDArray[np.object_], Bools]]:
    """Per reader, each row's reading and verdict, each distinct (task, answer, gold) read once.

    As ``parse.read_rows``: a null answer or gold reads as "". The distinct keys are found by Arrow
    on one text per row that no two different keys share: the task's and the gold's lengths
    before them (``2:qa3:yesYes, it is``).
    """
    task, gold = _or(fields.text("task"), ""), _or(fields.text("gt"), "")
    pieces = [
        pc.cast(pc.utf8_length(task), TEXT),
        pa.scalar(":", TEXT),
        task,
        pc.cast(pc.utf8_length(gold), TEXT),
        pa.scalar(":", TEXT),
        gold,
        _or(fields.text("pred"), ""),
    ]
    codes = pc.dictionary_encode(pc.binary_join_element_wise(*pieces, pa.scalar("", TEXT))).indices
    codes = codes.to_numpy(zero_copy_only=False)
    _, first = np.unique(codes, return_index=True)  # codes count from 0 in order of first appearance
    keys = [(tasks[i], cols["pred"][i] or "", cols["gt"][i] or "") for i in first.tolist()]
    out = []
    for reader in readers:
        readings = [reader(*key) for key in keys]
        parsed = np.empty(len(readings), dtype=object)
        parsed[:] = [r[0] for r in readings]
        out.append((parsed[codes], np.array([r[1] for r in readings], dtype=bool)[codes]))
    return out


def _sources(path: Path, records: Records) -> pd.arrays.ArrowStringArray:
    """``file:line N`` of each record."""
    where = records.labels or [records.where(i) for i in range(len(records))]
    joined = pc.binary_join_element_wise(pa.scalar(f"{path.name}:", TEXT), pa.array(where, TEXT),
                                         pa.scalar("", TEXT))  # fmt: skip
    return arrow_text_column(joined)
