r"""CSV that a spreadsheet opens as text: no cell runs as a formula, every row break is quoted.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a line break (which a spreadsheet would
run as a formula) gets a leading apostrophe, and so does a cell that starts with an apostrophe, so
a reader can take exactly one off again (:func:`csv_unsafe`). The same guard applies after every
line break inside a value (``ok\r@SUM(1)`` is written ``ok\r'@SUM(1)``), and the file is RFC 4180
CSV (CRLF between rows), so a cell holding a CR, an LF, a comma or a quote is always quoted.
Numbers are written as numbers: only text cells are guarded (:func:`frame_csv`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import InputError
from analysis.files.readers import read_bytes

_DANGEROUS = ("=", "+", "-", "@", "\t", "\r", "\n", "'")
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def csv_safe(value: Any) -> str:
    """A cell a spreadsheet will show as text: every line of it that starts a formula gets an apostrophe.

    The first line is guarded when the value starts with a formula starter or a line break; each
    later line when it starts with a formula starter (or an apostrophe, so that one comes off again).
    """
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    text = str(value)
    parts = _LINE_BREAK.split(text)  # line, break, line, break, ..., line
    first = "'" if text.startswith(_DANGEROUS) else ""
    lines = [first + parts[0], *("'" + p if p.startswith(_DANGEROUS) else p for p in parts[2::2])]
    out = [lines[0]]
    for brk, line in zip(parts[1::2], lines[1:], strict=True):
        out += [brk, line]
    return "".join(out)


def csv_unsafe(cell: str) -> str | None:
    """The value of a cell written by :func:`csv_safe` (empty means none)."""
    if cell == "":
        return None
    parts = _LINE_BREAK.split(cell)
    parts[0::2] = [p[1:] if p.startswith("'") else p for p in parts[0::2]]
    return "".join(parts)


def csv_writer(buffer: io.StringIO) -> Any:
    """A writer of RFC 4180 CSV: CRLF ends a row, so every CR or LF inside a cell is quoted."""
    return csv.writer(buffer, lineterminator="\r\n")


def frame_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text (RFC 4180 row ends), its text cells guarded by :func:`csv_safe`.

    Number and boolean columns are written as pandas writes them (full precision; a negative number
    stays a number); every other column, model names taken from file names among them, is text.
    """
    guarded = frame.copy()
    for name, dtype in frame.dtypes.items():
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            guarded[name] = [csv_safe(v) for v in frame[name].tolist()]
    return str(guarded.to_csv(index=False, lineterminator="\r\n"))


def read_csv_rows(path: Path, required: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """``(where, row)`` for every row of a CSV file with a header, checked strictly.

    A file cut inside a quoted cell, a stray quote, or a row with more or fewer cells than the
    header is refused naming the line it starts on, never read as a shorter or merged row. Bytes
    are decoded without universal newlines, so a CR inside a quoted cell stays a CR.
    """
    text = read_bytes(path).decode("utf-8")  # read_bytes refuses empty and non-UTF-8 files, drops a BOM
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[str, dict[str, str]]] = []
    header: list[str] | None = None
    while True:
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(path, f"not valid CSV ({exc})", record=f"line {start}") from None
        if header is None:
            header = cells
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(path, f"missing columns: {', '.join(missing)}", record="line 1")
            continue
        if not cells:
            continue  # a blank line
        if len(cells) != len(header):
            raise InputError(
                path, f"{len(cells)} cells where the header has {len(header)} columns", record=f"line {start}"
            )
        rows.append((f"line {start}", dict(zip(header, cells, strict=True))))
    if header is None:
        raise InputError(path, "no header line")
    return rows
