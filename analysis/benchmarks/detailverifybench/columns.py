"""Big DetailVerifyBench text columns, built and read without a copy of the whole column.

A 100,000-record pipeline output carries about 1.3 GB of text (``raw_output`` and two captions
per record in ``extra``, the tagged gold and prediction). Turning it into Python strings, then
into Arrow strings, then filtering the table, each allocates that much afresh; so ``extra`` is
encoded straight into Arrow buffers, a slice of records at a time, and the scorer reads the gold
and prediction columns a slice of rows at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import orjson
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

from analysis.files.readers import Records, record_name
from analysis.table.columns import extra_json, json_string, media_json, text_bytes

ROWS_PER_SLICE = 8192
"""Records encoded (or rows read) per step."""

_LABELS_KEY = '"hallucination_labels"'


def extra_column(
    records: Sequence[dict[str, Any]],
    labels: Sequence[list[dict[str, Any]] | None] | None,
    own_columns: Sequence[str],
) -> pd.arrays.ArrowStringArray:
    """Each record's other fields as a JSON object (``""`` when none), ``hallucination_labels`` last.

    ``labels`` None: no record has label entries.
    """
    chunks = []
    for lo in range(0, len(records), ROWS_PER_SLICE):
        hi = lo + ROWS_PER_SLICE
        if labels is None:
            blobs = [_extra(r, None, own_columns) for r in records[lo:hi]]
        else:
            blobs = [_extra(r, x, own_columns) for r, x in zip(records[lo:hi], labels[lo:hi], strict=True)]
        offsets = np.zeros(len(blobs) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs)), out=offsets[1:])
        data = pa.py_buffer(b"".join(blobs))
        chunks.append(pa.LargeStringArray.from_buffers(len(blobs), pa.py_buffer(offsets), data))
    return pd.arrays.ArrowStringArray(pa.chunked_array(chunks, type=pa.large_string()))


def _extra(record: dict[str, Any], labels: list[dict[str, Any]] | None, own_columns: Sequence[str]) -> bytes:
    rest = record.copy()  # a C-level copy, then a few deletions: the same keys in the same order
    for key in own_columns:
        rest.pop(key, None)
    if labels is not None:
        rest["hallucination_labels"] = labels
    if not rest:
        return b""
    try:
        return orjson.dumps(rest)
    except TypeError:  # values orjson refuses (integers beyond 64 bits): the slower general path
        return extra_json(rest, ()).encode("utf-8")


def image_media(paths: Sequence[str]) -> list[str]:
    """The ``media`` value of each image path: :func:`analysis.table.columns.media_json` of one image.

    When no path needs escaping (the usual case: then their concatenation needs none, one scan),
    each value is the encoding of a placeholder path with the path put in its place.
    """
    template = media_json([("image", "@", "image")])
    joined = "".join(paths)
    if template.count('"@"') != 1 or json_string(joined) != f'"{joined}"':
        return [media_json([("image", path, "image")]) for path in paths]
    head, tail = template.split('"@"')
    return [f'{head}"{path}"{tail}' for path in paths]


def sources(name: str, records: Records) -> list[str]:
    """The ``source`` value of each record: the file name and where the record is in it."""
    if records.labels:
        return [f"{name}:{label}" for label in records.labels]
    return [f"{name}:{record_name(index)}" for index in range(len(records.items))]


class ColumnTexts(Sequence[str]):
    """Some rows of a text column, turned into Python strings a slice at a time (null reads ``""``)."""

    def __init__(self, column: pd.Series, rows: npt.NDArray[np.intp]) -> None:
        """View rows ``rows`` (positions) of ``column``."""
        self._values = column.array
        self._rows = rows

    def __len__(self) -> int:
        """Number of rows viewed."""
        return int(self._rows.size)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        """One text, or a list of the texts of a slice of the rows."""
        if isinstance(index, slice):
            return [_text(v) for v in self._values.take(self._rows[index]).tolist()]
        return _text(self._values[int(self._rows[index])])

    def __iter__(self) -> Iterator[str]:
        """The texts in order, read a slice at a time."""
        for lo in range(0, len(self), ROWS_PER_SLICE):
            yield from self[lo : lo + ROWS_PER_SLICE]


def _text(value: Any) -> str:
    if type(value) is str:
        return value
    return "" if value is None or value is pd.NA or value != value else str(value)


def may_hold_labels(extra: pd.Series, rows: npt.NDArray[np.intp] | None = None) -> bool:
    """False when no row of ``extra`` (of ``rows``, when given) can contain a ``"hallucination_labels"`` key.

    Arrow-backed columns are searched in their raw bytes: those of the rows from the first of
    ``rows`` to the last (every row without ``rows``), never the bytes of other rows in the same
    buffer. A benchmark's rows are a few spans of a table holding all five, so a search of the
    whole table's ``extra`` would read every other benchmark's text as well. True only means
    "look row by row": the span may hold rows not in ``rows``, and a match may straddle two rows.
    Other columns fall back to the string accessor.
    """
    if rows is not None:
        if not len(rows):
            return False
        extra = extra.iloc[int(rows.min()) : int(rows.max()) + 1]
    values = extra.array
    if isinstance(values, pd.arrays.ArrowStringArray):
        chunks = pa.chunked_array(values.__arrow_array__()).chunks
        return any(_LABELS_BYTES.search(text_bytes(c)) for c in chunks)
    return bool(extra.fillna("").astype(str).str.contains(_LABELS_KEY, regex=False).any())


_LABELS_BYTES = re.compile(re.escape(_LABELS_KEY.encode("utf-8")))
