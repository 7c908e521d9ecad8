"""Reading CMM rows into Arrow columns: a fast whole-file path and a slow validating one.

The fast path hands the file to ``pyarrow.json`` (multi-threaded, one pass) with every known field
typed as a string. It is trusted only when the result is unambiguous: one record per physical line
(so row ``i`` is line ``i + 1``), no required field null or missing, no text over the size limit.
Anything else, including every Arrow parse error, falls back to the slow path, which reads the
file record by record with :mod:`analysis.files.readers` and raises an :class:`InputError` naming the line
and field at fault (or succeeds, e.g. for a JSON list or a file with blank lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]
import pyarrow.json as pj  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.cmm.early import FIELDS as FIELDS  # the template's fields, written once
from analysis.errors import InputError
from analysis.files import readers

REQUIRED: tuple[str, ...] = ("sub_category", "granularity", "question", "answer")
"""Fields the official scorer (or the item key) cannot do without; ``pred`` too for predictions."""

_SCHEMA = pa.schema([(name, pa.string()) for name in FIELDS])
_BLOCK_BYTES = 4 * 1024 * 1024
"""Arrow reads the file in blocks of this size, streaming (measured: the fastest, and it keeps
the peak memory near the size of the columns; a line longer than this falls back to the slow
path)."""
_CHUNK_BYTES = 16 * 1024 * 1024
_MAX_OPENS = 512
"""A line holding more ``{`` and ``[`` than this goes to the validating reader, which refuses too
deep a nesting by name: Arrow's parser recurses without a limit and crashed the process (exit 139,
no message) on a line nested 10,000 deep. A CMM record nests one or two levels."""


@dataclass
class Rows:
    """The rows of one CMM file as whole columns."""

    path: Path
    columns: dict[str, pa.ChunkedArray]
    """Every name of :data:`FIELDS` as a string column (null where absent)."""
    size: int
    labels: list[str] | None
    """How to name each row (``line 7``, ``record 3``); None when row ``i`` is ``line i + 1``."""
    unknown: list[dict[str, Any]] | None
    """Per row, the fields that are not in :data:`FIELDS`; None when no row has any."""

    def __len__(self) -> int:
        return self.size

    def label_list(self) -> list[str]:
        """The name of every row."""
        if self.labels is None:
            return [f"line {i}" for i in range(1, self.size + 1)]
        return self.labels

    def sources(self) -> pa.Array:
        """``<file name>:<row name>`` for every row, built without a Python list when possible."""
        if self.labels is None:
            numbers = pc.cast(pa.array(np.arange(1, self.size + 1)), pa.string())
            return pc.binary_join_element_wise(f"{self.path.name}:line ", numbers, "")
        return pa.array([f"{self.path.name}:{label}" for label in self.labels], pa.string())


def read_rows(path: Path, *, need_pred: bool) -> Rows:
    """Read a CMM file (JSONL, or a JSON list) with every required field checked."""
    required = (*REQUIRED, "pred") if need_pred else REQUIRED
    rows = _read_fast(path, required)
    if rows is None:
        rows = _read_slow(path, required)
    if len(rows) == 0:
        raise InputError(path, "no records")
    return rows


def _read_fast(path: Path, required: tuple[str, ...]) -> Rows | None:
    if not path.is_file():
        return None
    lines, opens = _scan(path)
    if lines == 0 or opens > _MAX_OPENS:
        return None
    try:
        reader = pj.open_json(
            path,
            read_options=pj.ReadOptions(block_size=_BLOCK_BYTES),
            parse_options=pj.ParseOptions(explicit_schema=_SCHEMA, unexpected_field_behavior="infer"),
        )
        table = reader.read_all()
        # The streaming reader does not check that strings are UTF-8; this pass does (~0.1 s).
        table.validate(full=True)
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        return None
    # Arrow skips blank lines and accepts two objects on one line or one object over several:
    # line numbers are only certain when rows and lines agree one to one.
    if table.num_rows != lines or not _columns_ok(table, required):
        return None
    unknown = _unknown_fields(table)
    return Rows(path, {name: table.column(name) for name in FIELDS}, lines, None, unknown)


def _scan(path: Path) -> tuple[int, int]:
    """Physical lines (a last line without newline counts; 0 for a blank file), and most opens.

    The opens are the most ``{`` and ``[`` on one line: a bound on how deeply a line nests
    (:data:`_MAX_OPENS`).
    """
    count = 0
    last = b"\n"
    blank = True
    deepest = carry = 0  # carry: the opens of the line the chunk before ended in
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK_BYTES):
            count += chunk.count(b"\n")
            blank = blank and not chunk.strip()
            last = chunk[-1:]
            opens = [line.count(b"{") + line.count(b"[") for line in chunk.split(b"\n")]
            opens[0] += carry
            deepest = max(deepest, *opens[:-1]) if len(opens) > 1 else deepest
            carry = opens[-1]
    if blank:
        return 0, 0
    return count + (last != b"\n"), max(deepest, carry)


def _first_byte(path: Path) -> bytes:
    if not path.is_file():
        return b""  # the reader then says what is wrong with the path
    with path.open("rb") as handle:
        while chunk := readers.without_bom(handle.read(4096)):
            stripped = chunk.lstrip()
            if stripped:
                return stripped[:1]
    return b""


def _columns_ok(table: pa.Table, required: tuple[str, ...]) -> bool:
    for name in FIELDS:
        column = table.column(name)
        if name in required and column.null_count:
            return False
        # Bytes bound characters from above: count characters only when bytes exceed the limit.
        longest = pc.max(pc.binary_length(column)).as_py()
        too_long = longest is not None and longest > readers.MAX_TEXT_CHARS
        if too_long and pc.max(pc.utf8_length(column)).as_py() > readers.MAX_TEXT_CHARS:
            return False
    return True


def _unknown_fields(table: pa.Table) -> list[dict[str, Any]] | None:
    names = [name for name in table.column_names if name not in FIELDS]
    if not names:
        return None
    values = {name: table.column(name).to_pylist() for name in names}
    return [
        {name: values[name][i] for name in names if values[name][i] is not None}
        for i in range(table.num_rows)
    ]


def _read_slow(path: Path, required: tuple[str, ...]) -> Rows:
    # A JSON list is read whole; anything else is JSONL, so errors name lines even in a file of
    # one line (which read_records would take for a single JSON document).
    records = readers.read_records(path) if _first_byte(path) == b"[" else readers.read_jsonl(path)
    return rows_of(records, required)


def rows_of(records: readers.Records, required: tuple[str, ...]) -> Rows:
    """Rows of records already read (a harness's file joined to gold), every field checked."""
    columns = {
        name: pa.chunked_array(
            [pa.array(readers.require_column(records, name, optional=name not in required), pa.string())]
        )
        for name in FIELDS
    }
    labels = records.labels or [readers.record_name(i) for i in range(len(records))]
    unknown = [{k: v for k, v in item.items() if k not in FIELDS and v is not None} for item in records.items]
    return Rows(records.path, columns, len(records), labels, unknown if any(unknown) else None)
