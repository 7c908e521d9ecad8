"""Records as columns, and values as JSON texts written a column at a time.

A million parsed records are a million dicts spread over memory: reading them one field at a
time (``[r.get(k) for r in records]`` per field) costs a cache miss per record and field, and
``json.dumps`` record by record (for ``extra``) several microseconds a record. The records of one
file mostly share their keys in the same order, so :class:`Columns` groups them by key sequence
and reads each group in one pass (``itemgetter`` over all its keys, then a transpose), and
:func:`dumps_each` writes the JSON texts of a column with Arrow: a string with nothing to escape
is quoted as it is and only the others go through ``json.dumps``; booleans, nulls and 64-bit
integers are cast; an object is its keys' texts joined around its values' texts. Floats, lists
and anything rare are written by ``json.dumps`` itself. Every text is byte for byte what
``json.dumps(value, ensure_ascii=False, default=str)`` writes (``tests/benchmarks/cdh-bench``
checks it).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.table.columns import json_string

TEXT = pa.large_string()
"""The Arrow type of the texts (that of the item table's string columns)."""

_ESCAPED = r'["\\\x00-\x1f]'
"""What ``json.dumps(..., ensure_ascii=False)`` escapes in a string: quote, backslash, control characters."""

_MAX_DEPTH = 8
"""Objects nested deeper are written by ``json.dumps`` whole (no deep recursion here)."""

_MIN_GROUP = 16
"""Records with more distinct key sequences than a sixteenth of them are read one by one."""


class Columns:
    """The fields of many JSON objects, read a group of objects with the same keys at a time."""

    def __init__(self, objects: Sequence[dict[str, Any]]) -> None:
        self.objects = objects
        self._texts: dict[str, pa.Array | None] = {}
        distinct = dict.fromkeys(map(tuple, objects))
        self.grouped = len(distinct) <= max(_MIN_GROUP, len(objects) // _MIN_GROUP)
        """False when the objects have too many key sequences to group: then read one by one."""
        self.groups: list[tuple[tuple[str, ...], list[int] | None, dict[str, Sequence[Any]]]] = []
        """(keys, the objects' rows or None for all, one column per key) per key sequence."""
        if not self.grouped:
            return
        if len(distinct) == 1:
            shape = next(iter(distinct))
            self.groups.append((shape, None, _transpose(objects, shape)))
            return
        rows_of: dict[tuple[str, ...], list[int]] = {shape: [] for shape in distinct}
        for row, shape in enumerate(map(tuple, objects)):
            rows_of[shape].append(row)
        for shape, rows in rows_of.items():
            self.groups.append((shape, rows, _transpose([objects[i] for i in rows], shape)))

    def get(self, key: str) -> list[Any]:
        """``obj.get(key)`` of every object."""
        if not self.grouped:
            return [o.get(key) for o in self.objects]
        if len(self.groups) == 1:
            column = self.groups[0][2].get(key)
            return [None] * len(self.objects) if column is None else list(column)
        out: list[Any] = [None] * len(self.objects)
        for _, rows, columns in self.groups:
            if key in columns:
                for row, value in zip(rows or (), columns[key], strict=True):
                    out[row] = value
        return out

    def text(self, key: str) -> pa.Array | None:
        """Field ``key`` of every object as Arrow text (null where absent or null).

        None when some value is not a string.
        """
        if key not in self._texts:
            values = self.groups[0][2].get(key) if self.grouped and len(self.groups) == 1 else None
            try:
                self._texts[key] = pa.array(self.get(key) if values is None else values, TEXT)
            except (pa.ArrowTypeError, pa.ArrowInvalid):
                self._texts[key] = None
        return self._texts[key]

    def texts_without(self, drop: Collection[str], *, depth: int = 0) -> pa.Array:
        """Each object without the keys in ``drop``, as ``json.dumps`` writes it ("{}" if none is left)."""
        if not self.grouped or depth >= _MAX_DEPTH:
            return pa.array([
                json.dumps({k: v for k, v in o.items() if k not in drop}, ensure_ascii=False, default=str)
                for o in self.objects
            ], TEXT)  # fmt: skip
        known = self._texts if len(self.groups) == 1 else {}  # strings already in Arrow: not again
        parts = [_joined(shape, columns, drop, len(self.objects if rows is None else rows), depth, known)
                 for shape, rows, columns in self.groups]  # fmt: skip
        if len(parts) <= 1:
            return parts[0] if parts else pa.array([], TEXT)
        return _in_order([rows or [] for _, rows, _ in self.groups], parts)


def dumps_each(values: Sequence[Any], *, depth: int = 0) -> pa.Array:
    """``json.dumps(v, ensure_ascii=False, default=str)`` of each value, as an Arrow array of texts."""
    kinds = set(map(type, values))
    if len(kinds) <= 1:
        return _one_kind(kinds.pop() if kinds else type(None), values, depth)
    kind_of = list(map(type, values))
    rows_of = {kind: [i for i, k in enumerate(kind_of) if k is kind] for kind in dict.fromkeys(kind_of)}
    parts = [_one_kind(kind, [values[i] for i in rows], depth) for kind, rows in rows_of.items()]
    return _in_order(list(rows_of.values()), parts)


def _transpose(objects: Sequence[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Sequence[Any]]:
    """One column per key of objects that all have ``keys``, in one pass over the objects."""
    if len(keys) == 1:
        return {keys[0]: [o[keys[0]] for o in objects]}
    if not keys:
        return {}
    return dict(zip(keys, zip(*map(itemgetter(*keys), objects), strict=True), strict=True))


def _one_kind(kind: type, values: Sequence[Any], depth: int) -> pa.Array:
    if kind is str:
        return _strings(values)
    if kind is bool:
        return pc.if_else(pa.array(values, pa.bool_()), pa.scalar("true", TEXT), pa.scalar("false", TEXT))
    if kind is type(None):
        return pa.repeat(pa.scalar("null", TEXT), len(values))
    if kind is int:
        try:
            return pc.cast(pa.array(values, pa.int64()), TEXT)
        except OverflowError:  # beyond 64 bits: written by json.dumps below
            pass
    if kind is dict:
        return Columns(values).texts_without((), depth=depth + 1)
    return pa.array([json.dumps(v, ensure_ascii=False, default=str) for v in values], TEXT)


def _strings(values: Sequence[str]) -> pa.Array:
    return json_strings(pa.array(values, TEXT))


def json_strings(text: pa.Array) -> pa.Array:
    """Arrow texts (no nulls) as JSON string literals, exactly as ``json.dumps`` writes each."""
    distinct = pc.dictionary_encode(text)
    if 2 * len(distinct.dictionary) <= len(text):  # repeated texts: each distinct one quoted once
        return _quoted(distinct.dictionary).take(distinct.indices)
    return _quoted(text)


def _quoted(text: pa.Array) -> pa.Array:
    """Strings as JSON string literals."""
    escape = pc.match_substring_regex(text, _ESCAPED)
    if pc.any(escape).as_py():
        text = pc.replace_with_mask(text, escape, _escaped(pc.filter(text, escape)))
    quote = pa.scalar('"', TEXT)
    return pc.binary_join_element_wise(quote, text, quote, pa.scalar("", TEXT))


def _escaped(text: pa.Array) -> pa.Array:
    """Strings escaped as ``json.dumps`` escapes them (without the quotes around them)."""
    rare = pc.match_substring_regex(text, r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
    out = text
    for char, escape in _SHORT_ESCAPES:  # the backslash first: the others add backslashes
        out = pc.replace_substring(out, char, escape)
    if pc.any(rare).as_py():  # other control characters (\b, \u0001...): json.dumps itself, less the quotes
        exact = [json.dumps(t, ensure_ascii=False)[1:-1] for t in pc.filter(text, rare).to_pylist()]
        out = pc.replace_with_mask(out, rare, pa.array(exact, TEXT))
    return out


_SHORT_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
"""The escapes ``json.dumps`` writes for the common characters it escapes, in the order to apply them."""


def _joined(
    shape: tuple[str, ...],
    columns: dict[str, Sequence[Any]],
    drop: Collection[str],
    n: int,
    depth: int,
    known: dict[str, pa.Array | None],
) -> pa.Array:
    """Texts of ``n`` objects with the keys ``shape``, from their columns, keys in ``drop`` left out."""
    keys = [k for k in shape if k not in drop]
    if not keys:
        return pa.repeat(pa.scalar("{}", TEXT), n)
    pieces: list[Any] = []
    for i, key in enumerate(keys):
        pieces.append(pa.scalar(("{" if i == 0 else ", ") + json_string(key) + ": ", TEXT))
        text = known.get(key)
        whole = text is not None and text.null_count == 0  # every value a string
        pieces.append(json_strings(text) if whole else dumps_each(columns[key], depth=depth))
    pieces.append(pa.scalar("}", TEXT))
    return pc.binary_join_element_wise(*pieces, pa.scalar("", TEXT))


def _in_order(rows: list[list[int]], parts: list[pa.Array]) -> pa.Array:
    """The texts of groups of rows (``parts[g]`` for the rows ``rows[g]``) back in row order."""
    placed = np.concatenate([np.asarray(r, dtype=np.int64) for r in rows])
    position = np.empty(len(placed), dtype=np.int64)
    position[placed] = np.arange(len(placed), dtype=np.int64)
    return pa.concat_arrays(parts).take(pa.array(position))
