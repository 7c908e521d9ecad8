r"""Corrections out and in: CSV, JSONL and Parquet, one row per event (who, when, why, old, new).

Every event is exported, undos included, so a file carries the full history and importing it
into another store rebuilds the same current labels. Importing is idempotent (events are known
by ``event_id``): importing a file twice adds it once.

CSV cells are made safe for spreadsheets: a cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a line break (which a spreadsheet would run as a formula) gets a leading apostrophe,
and so does a cell that starts with an apostrophe, so the import can take exactly one off again.
The same guard applies after every line break inside a value (``ok\r@SUM(1)`` is written
``ok\r'@SUM(1)``), and the file is RFC 4180 CSV (CRLF between rows), so a cell holding a CR, an
LF, a comma or a quote is always quoted: Python's writer with a bare ``\n`` row end left a lone CR
unquoted, which split the row for any reader that ends lines at CR.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from analysis.errors import InputError
from analysis.files.csv_cells import csv_safe, csv_unsafe, csv_writer, read_csv_rows
from analysis.files.readers import check_file, read_jsonl
from analysis.files.table_formats import Format, guess_format
from analysis.store.db import Store
from analysis.store.identity import Identity, as_identity
from analysis.store.labels import events_frame
from analysis.store.merge import insert_events
from analysis.store.schema import EVENT_COLUMNS

EXPORT_COLUMNS: tuple[str, ...] = tuple("item_id" if c == "item_key" else c for c in EVENT_COLUMNS)
"""Columns of an exported corrections file (``item_id`` is the item table's id)."""


def corrections_frame(store: Store, benchmark: str | None = None) -> pd.DataFrame:
    """Every event (of one benchmark), oldest first, in the export's columns."""
    frame = events_frame(store, benchmark).rename(columns={"item_key": "item_id"})
    return frame[list(EXPORT_COLUMNS)].reset_index(drop=True)


def export_corrections(
    store: Store,
    path: Path,
    *,
    fmt: str | None = None,
    benchmark: str | None = None,
    frame: pd.DataFrame | None = None,
) -> int:
    """Write every event (of one benchmark) to ``path``; returns the number of rows.

    ``frame``: the events to write instead (a subset of :func:`corrections_frame`, e.g. what one
    reviewer may see).
    """
    frame = corrections_frame(store, benchmark) if frame is None else frame
    return write_frame(frame[list(EXPORT_COLUMNS)], path, guess_format(path, fmt))


def write_frame(frame: pd.DataFrame, path: Path, kind: Format) -> int:
    """``frame`` as CSV (formula-safe cells), JSONL or Parquet (text columns); returns its rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "csv":
        buffer = io.StringIO()
        writer = csv_writer(buffer)
        writer.writerow(frame.columns)
        for row in frame.itertuples(index=False):
            writer.writerow([csv_safe(v) for v in row])
        path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    elif kind == "jsonl":
        records = frame.astype(object).where(frame.notna(), None).to_dict("records")
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    else:
        frame.astype({c: "string" for c in frame.columns if c != "id"}).to_parquet(path, index=False)
    return len(frame)


def read_corrections(path: Path, *, fmt: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The events of a corrections file, as ``(where, event)`` pairs ready to merge."""
    check_file(path)
    kind = guess_format(path, fmt)
    if kind == "jsonl":
        records = read_jsonl(path)
        rows = [(records.where(i), dict(r)) for i, r in enumerate(records.items)]
    elif kind == "csv":
        rows = _read_csv(path)
    else:
        rows = parquet_rows(path)
    return [
        (where, {("item_key" if k == "item_id" else str(k)): v for k, v in row.items()})
        for where, row in rows
    ]


def parquet_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(where, row)`` of every row of a Parquet file (``row 1`` first), missing cells as None."""
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
        raise InputError(path, f"not a Parquet file ({type(exc).__name__})") from None
    frame = frame.astype(object).where(frame.notna(), None)
    return [
        (f"row {i}", {str(k): v for k, v in r.items()})
        for i, r in enumerate(frame.to_dict("records"), start=1)
    ]


def _read_csv(path: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        (where, {k: csv_unsafe(v) for k, v in row.items()})
        for where, row in read_csv_rows(path, ("event_id", "item_id", "field"))
    ]


def import_corrections(store: Store, path: Path, importer: Identity, *, fmt: str | None = None) -> int:
    """Merge a corrections file into ``store``; returns how many events were new.

    The events keep their authors (this is history from another store); ``origin`` records who
    imported them, and from which file, so an import is never mistaken for a local edit.
    """
    who = as_identity(importer)
    rows = read_corrections(path, fmt=fmt)
    return insert_events(store, rows, source=str(path), origin=f"import by {who.name} from {path.name}"[:256])
