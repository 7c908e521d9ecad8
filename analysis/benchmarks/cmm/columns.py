"""Whole-column builders for the CMM item table: item ids, media and extra JSON, constants.

Everything here works on Arrow columns or numpy codes. A million rows hold far fewer distinct
paths, questions and field combinations, so text is built once per distinct value (vectorised
with Arrow) and spread to the rows with one ``take``; the only Python loops hash distinct texts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

U64 = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.intp]
ArrowStrings: TypeAlias = Any
"""A ``pyarrow`` string Array or ChunkedArray (pyarrow ships no type information)."""
StringArray: TypeAlias = pd.api.extensions.ExtensionArray

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_HEX = np.array([f"{i:02x}".encode() for i in range(256)], dtype="S2")


# --- distinct values --------------------------------------------------------------------------


class Factors(NamedTuple):
    """A string column as codes and its distinct values (in order of first appearance)."""

    codes: Ints
    """Per row, the index of its value in ``values``; -1 for null."""
    values: list[str]
    array: pa.Array
    """``values`` as an Arrow string array."""


def factorize(column: ArrowStrings) -> Factors:
    """Codes (-1 for null) and the distinct values, in order of first appearance."""
    codes, uniques = pd.factorize(pd.Series(strings(column), copy=False))
    values = uniques.to_numpy(dtype=object).tolist()
    return Factors(codes.astype(np.intp, copy=False), values, pa.array(values, pa.string()))


def combine(codes: Sequence[Ints]) -> Ints:
    """One code per distinct combination of several code columns (nulls, -1, are a value)."""
    sizes = [int(c.max(initial=-1)) + 2 for c in codes]
    if np.prod(np.array(sizes, dtype=float)) < 2.0**62:
        # One mixed-radix key and one factorize (the usual case: it cannot overflow).
        key = np.zeros(len(codes[0]), dtype=np.int64)
        for c, size in zip(codes, sizes, strict=True):
            key = key * size + (c + 1)
        return pd.factorize(key)[0].astype(np.intp)
    out = pd.factorize(codes[0])[0].astype(np.intp)
    for more, size in zip(codes[1:], sizes[1:], strict=True):
        out = pd.factorize(out * size + (more + 1))[0].astype(np.intp)
    return out


def first_rows(codes: Ints) -> Ints:
    """Row of the first occurrence of each code 0..k-1 (codes from :func:`combine`)."""
    return np.unique(codes, return_index=True)[1].astype(np.intp)


def spread(per_code: pa.Array, codes: Ints) -> pa.Array:
    """The value of each row's code (one Arrow ``take``)."""
    return pc.take(per_code, pa.array(codes))


# --- item ids ---------------------------------------------------------------------------------
# A CMM item is (video_path, audio_path, question). Hashing each row's key with hashlib costs
# about a microsecond a row; instead each *distinct* path and question is hashed once (blake2b,
# 8 bytes) and the three digests are chained through the splitmix64 finaliser with numpy's
# wrapping uint64 arithmetic. The definition is ours and fixed, so ids stay the same across
# library versions; :func:`item_id` computes the same id for a single item.


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def _digests(texts: list[str]) -> U64:
    """Digests of ``texts`` followed by the digest of "" (so code -1, a null, picks it)."""
    blake = hashlib.blake2b
    joined = b"".join([blake(t.encode("utf-8"), digest_size=8).digest() for t in [*texts, ""]])
    return np.frombuffer(joined, dtype="<u8").astype(np.uint64)


def _mix_int(x: int) -> int:
    x = (x + _GAMMA) & _MASK
    x = ((x ^ (x >> 30)) * _M1) & _MASK
    x = ((x ^ (x >> 27)) * _M2) & _MASK
    return x ^ (x >> 31)


def _mix(x: U64) -> U64:
    x = x + np.uint64(_GAMMA)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(_M1)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(_M2)
    return x ^ (x >> np.uint64(31))


def item_id(video_path: str | None, audio_path: str | None, question: str) -> str:
    """Id of one CMM item, equal to what :func:`item_ids` gives its row (None counts as empty)."""
    x = 0
    for part in (video_path, audio_path, question):
        x = _mix_int(x ^ _digest(part or ""))
    return f"{x:016x}"


def item_ids(parts: Sequence[Factors]) -> StringArray:
    """Ids of every row from the factorized (video, audio, question) columns."""
    x = np.zeros(len(parts[0].codes), dtype=np.uint64)
    for part in parts:
        x = _mix(x ^ _digests(part.values)[part.codes])
    return _hex(x)


def _hex(x: U64) -> StringArray:
    """Sixteen lower-case hex digits per value, built as one Arrow buffer."""
    digits = _HEX[x.astype(">u8").view(np.uint8).reshape(-1, 8)]
    data = pa.py_buffer(np.ascontiguousarray(digits).tobytes())
    offsets = pa.py_buffer(np.arange(0, 16 * len(x) + 1, 16, dtype=np.int32).tobytes())
    return strings(pa.StringArray.from_buffers(len(x), offsets, data))


# --- JSON text --------------------------------------------------------------------------------

NEEDS_ESCAPE = r'["\\\x00-\x1f]'
"""What ``json.dumps(..., ensure_ascii=False)`` escapes in a string: quote, backslash, controls."""


def quote(text: str) -> str:
    """``text`` as a JSON string literal, exactly as ``json.dumps(text, ensure_ascii=False)``."""
    # Only '"', '\\' and control characters need escaping; isprintable() is False for every
    # control character (and for a few harmless ones, which then take the slow, exact route).
    if '"' not in text and "\\" not in text and text.isprintable():
        return '"' + text + '"'
    return json.dumps(text, ensure_ascii=False)


# --- plain columns ----------------------------------------------------------------------------


def const_strings(value: str, length: int) -> StringArray:
    """A string column holding ``value`` on every row, without a Python list of ``length``."""
    return strings(pa.repeat(value, length))


def const_category(value: str, length: int) -> pd.Categorical:
    """A category column holding ``value`` on every row."""
    return pd.Categorical.from_codes(
        np.zeros(length, dtype=np.int8), categories=pd.Index([value], dtype="string")
    )


def strings(column: ArrowStrings | Sequence[Any]) -> StringArray:
    """An Arrow string column as the item table's string array (no copy)."""
    array: StringArray = pd.array(column, dtype="string")
    return array


def take_rows(column: ArrowStrings, rows: Ints) -> pa.ChunkedArray:
    """The values of ``column`` at ``rows``."""
    return _chunked(pc.take(column, pa.array(rows)))


def _chunked(column: Any) -> pa.ChunkedArray:
    if isinstance(column, pa.ChunkedArray):
        return column
    return pa.chunked_array([column])
