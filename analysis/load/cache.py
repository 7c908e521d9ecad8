"""Where loaded item tables are kept on disk, and how: Arrow files read back memory-mapped.

Re-opening a large prediction file costs a hash of its bytes and one memory-mapped Arrow read
instead of a full parse. What an entry is keyed by is :mod:`analysis.load.catalog_cache` (the one
key scheme: a loaded set of files, and each prediction file of it). Entries are Arrow IPC files
without compression (:func:`write_frame`):
reading one maps the file and wraps its buffers, where Parquet would decode every page (0.5 s
for a million rows against a few milliseconds). A cache entry that cannot be read is ignored and
rebuilt, never trusted.

xxhash (XXH3-128) is used for the content key because hashing is on the re-open path: it runs
at memory speed where SHA-256 takes about half a second per 400 MB on this kind of machine.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import xxhash

_CHUNK = 8 * 1024 * 1024

FORMAT = "table-2"
"""Bumped when the layout of an entry changes (2: Arrow IPC instead of Parquet)."""


def default_cache_dir() -> Path:
    """``$HALLUSCOPE_CACHE_DIR``, else ``~/.cache/halluscope/tables``."""
    env = os.environ.get("HALLUSCOPE_CACHE_DIR")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "halluscope" / "tables"


def file_digest(path: Path) -> str:
    """XXH3-128 hex digest of a file's bytes."""
    hasher = xxhash.xxh3_128()
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    with path.open("rb") as handle:
        while True:
            size = handle.readinto(buffer)
            if not size:
                break
            hasher.update(view[:size])
    return hasher.hexdigest()


def write_frame(entry: Path, frame: pd.DataFrame, meta: dict[str, Any]) -> bool:
    """Write ``frame`` (and JSON-able ``meta``) as one Arrow IPC file, atomically; False on failure.

    Text columns should be single Arrow chunks (:func:`analysis.table.columns.single_chunks`): the file
    then holds one record batch, and a page of rows read back costs only its rows.
    """
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        os.close(fd)
    except OSError:
        return False
    try:
        arrow = pa.Table.from_pandas(frame, preserve_index=False)
        tagged = {b"halluscope": json.dumps({"format": FORMAT, **meta}).encode("utf-8")}
        arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), **tagged})
        with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, arrow.schema) as writer:
            writer.write_table(arrow)
        os.replace(tmp, entry)  # atomic: a reader sees the old entry or the whole new one
        return True
    except (OSError, pa.ArrowException, TypeError, ValueError):
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_frame(entry: Path) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """The frame and metadata of :func:`write_frame`, memory-mapped; None if missing, torn or foreign."""
    if not entry.is_file():
        return None
    try:
        arrow = pa.ipc.open_file(pa.memory_map(str(entry), "r")).read_all()
        meta = json.loads((arrow.schema.metadata or {})[b"halluscope"])
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            return None
        frame = _frame(arrow)
    except (OSError, pa.ArrowException, KeyError, ValueError, TypeError):
        return None
    os.utime(entry)  # most recently used (for pruning)
    return frame, meta


def _frame(arrow: pa.Table) -> pd.DataFrame:
    """An Arrow table as item-table columns: text wraps the Arrow buffers, categories are ``string``."""
    frame: pd.DataFrame = arrow.to_pandas(types_mapper=_text_dtype, split_blocks=True)
    for name, dtype in frame.dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype):  # categories come back as "str"; the table has "string"
            codes = frame[name].cat.codes.to_numpy()
            categories = pd.Index(dtype.categories, dtype="string")
            frame[name] = pd.Categorical.from_codes(codes, categories=categories)
    return frame


def entry_columns(entry: Path) -> list[str] | None:
    """The column names of an entry of :func:`write_frame`; None if it cannot be read."""
    try:
        return list(pa.ipc.open_file(pa.memory_map(str(entry), "r")).schema.names)
    except (OSError, pa.ArrowException):
        return None


def entry_rows(entry: Path) -> int | None:
    """The rows of a readable entry of :func:`write_frame` in the current format; None otherwise."""
    try:
        reader = pa.ipc.open_file(pa.memory_map(str(entry), "r"))
        meta = json.loads((reader.schema.metadata or {})[b"halluscope"])
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            return None
        rows = int(sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches)))
    except (OSError, pa.ArrowException, KeyError, ValueError, TypeError):
        return None
    os.utime(entry)  # most recently used (for pruning)
    return rows


def read_column(entry: Path, name: str) -> pd.Series:
    """One column of an entry of :func:`write_frame`, through a memory map of its own.

    When the column is let go, so is its map: stacking many entries a column at a time then
    holds only one column of them in memory (a whole entry's map would keep every page that
    was read resident). The whole entry is wrapped and one column kept: pyarrow copies the
    buffers of a column read alone (``included_fields``), but wraps a whole file's without
    reading them. Raises OSError or ArrowException when the entry cannot be read.
    """
    with pa.memory_map(str(entry), "r") as source:
        arrow = pa.ipc.open_file(source).read_all()
    return _column(arrow, name)


def _column(arrow: pa.Table, name: str) -> pd.Series:
    """``_frame(arrow)[name]``: text, one-chunk categories, booleans and numbers without a frame.

    Stacking reads each column of each file's entry (22 columns of 18 files at a million rows),
    and converting a one-column table to a frame costs 1-2 ms each time, about half a stack.
    Other kinds (lists, pandas' nullable integers) still go through that conversion.
    """
    column = arrow.column(name)
    kind = column.type
    if kind in (pa.string(), pa.large_string()):
        return pd.Series(pd.arrays.ArrowStringArray(column), name=name, copy=False)
    if (
        pa.types.is_dictionary(kind)
        and kind.value_type in (pa.string(), pa.large_string())
        and pa.types.is_integer(kind.index_type)
        and not kind.ordered
        and column.num_chunks == 1
    ):
        chunk = column.chunk(0)
        codes = chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        categories = pd.Index(chunk.dictionary.to_pylist(), dtype="string")
        return pd.Series(pd.Categorical.from_codes(codes, categories=categories), name=name, copy=False)
    numpy_type = _numpy_types(arrow).get(name)
    if kind == pa.bool_() and numpy_type == "boolean":  # pandas' nullable booleans
        values = column.fill_null(False).to_numpy(zero_copy_only=False)
        missing = column.is_null().to_numpy(zero_copy_only=False)
        return pd.Series(pd.arrays.BooleanArray(values, missing), name=name, copy=False)
    plain = pa.types.is_boolean(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind)
    if plain and numpy_type == np.dtype(kind.to_pandas_dtype()).name:
        return pd.Series(column.to_numpy(), name=name, copy=False)
    whole: pd.Series = _frame(arrow.select([name]))[name]
    return whole


def _numpy_types(arrow: pa.Table) -> dict[str, str]:
    """Each column's ``numpy_type`` in the pandas metadata ``write_frame`` stored (none if absent)."""
    try:
        described = json.loads((arrow.schema.metadata or {})[b"pandas"])["columns"]
        return {str(c["name"]): str(c["numpy_type"]) for c in described}
    except (KeyError, TypeError, ValueError):
        return {}


def _text_dtype(arrow_type: pa.DataType) -> Any:
    """Arrow text as the item table's ``string`` dtype (wrapping the mapped buffers, no copy)."""
    if arrow_type in (pa.string(), pa.large_string()):
        return pd.StringDtype("pyarrow")
    return None
