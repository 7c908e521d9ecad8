"""What every benchmark's correction code shares: setting verdicts, spelling gold, patching records.

Used by the ``gold`` and ``native`` modules of the benchmark packages; nothing here knows a
benchmark. (The drivers over the registry are :func:`analysis.benchmarks.rescore.rescore_with_gold` and
:func:`analysis.review.corrected.write_native`.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.base import Bools
from analysis.errors import InputError
from analysis.files.readers import Records, looks_like_jsonl, read_records, without_bom

Patch = Callable[[dict[str, Any], pd.Series, str], None]
"""Change one record in place: (record, the item's table row, the corrected gold)."""


def set_verdicts(out: pd.DataFrame, column: str, rows: Bools, values: Any) -> None:
    """Set verdicts on ``rows``, keeping null where the official scorer does not count a row."""
    scored = out["scored"].to_numpy(dtype=bool)[rows]
    column_values = out[column].astype("boolean").array.copy()
    new = pd.array([bool(v) if s else None for v, s in zip(values, scored, strict=True)], dtype="boolean")
    column_values[rows] = new
    out[column] = column_values


def table_spelling(value: str, original: str | None) -> str:
    """A corrected yes/no written like the official gold it replaces (``Yes`` beside ``Yes``)."""
    shown = (original or "").strip()
    if value not in ("yes", "no") or not shown[:1].isupper():
        return value
    return value.upper() if shown.isupper() and len(shown) > 1 else value.capitalize()


def read_for_patch(path: Path) -> tuple[Records, bool]:
    """The file's records, and whether it is written back as JSONL (objects a line) or a list."""
    records = read_records(path)
    with path.open("rb") as handle:
        starts_with_object = without_bom(handle.read(4096)).lstrip().startswith(b"{")
    return records, looks_like_jsonl(path) or starts_with_object


def dump(data: Any, *, jsonl: bool) -> str:
    """JSON text as the pipelines write it: one object a line, or an indented document."""
    if jsonl:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def patch_by_source(
    path: Path, records: Records, table: pd.DataFrame, gold: Mapping[str, str], patch: Patch
) -> None:
    """Patch the record each corrected item came from, found by the table's ``source`` column.

    ``table`` is the file loaded by its benchmark's own loader, so item ids agree with the app's.
    """
    index = {records.where(i): i for i in range(len(records))}
    prefix = f"{path.name}:"
    hit = table[table["item_id"].astype(str).isin(list(gold))]
    for _, row in hit.iterrows():
        label = str(row["source"]).removeprefix(prefix)
        if label not in index:
            raise InputError(path, f"cannot find the record of item {row['item_id']} ({row['source']})")
        patch(records.items[index[label]], row, gold[str(row["item_id"])])


def yes_no_patch(keys: tuple[str, ...]) -> Patch:
    """Write a yes/no gold into the first of ``keys`` the record has (spelled like the original)."""

    def patch(record: dict[str, Any], _row: pd.Series, value: str) -> None:
        for key in keys:
            if key in record:
                record[key] = table_spelling(value, record[key] if isinstance(record[key], str) else None)
                return
        record[keys[0]] = value

    return patch


def load_as_shown(
    load_gold: Callable[[list[Path]], pd.DataFrame], load: Callable[[Path], pd.DataFrame], path: Path
) -> pd.DataFrame:
    """The file as the app sees it: as gold if it reads as gold, else as one model's output."""
    try:
        return load_gold([path])
    except InputError:
        return load(path)
