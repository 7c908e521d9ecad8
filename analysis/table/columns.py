"""The item table: one DataFrame layout shared by all five benchmarks.

Each row is one thing a model answered (or, for gold-only tables, one thing it would be asked).
Columns are defined once here, each with its documentation; loaders fill them with whole-column
operations, and :func:`make_table` puts them in order, checks that none is missing and gives each
its dtype. Fields of a record that have no column of their own are kept, as JSON, in ``extra``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]


@dataclass(frozen=True)
class Column:
    """One column of the item table."""

    name: str
    dtype: str
    doc: str


COLUMNS: tuple[Column, ...] = (
    Column("benchmark", "category", "Registry id of the benchmark (its package's ``NAME``)."),
    Column(
        "item_id",
        "str",
        "Stable id of the question asked, the same for every model and every run: built from the "
        "benchmark's own key (see each module's card), never from a row position.",
    ),
    Column("model", "category", "Model that answered; empty for gold-only tables."),
    Column("task", "category", "Benchmark task, as the benchmark names it (its task string or a short id)."),
    Column("category", "category", "Benchmark category (a sub-category, a domain...); empty if none."),
    Column("subcategory", "category", "Finer grouping where the benchmark has one, else empty."),
    Column("question", "str", "The question or prompt as the benchmark states it."),
    Column("options", "str", "Answer options as a JSON list of strings; empty when there are none."),
    Column("gold", "str", "Gold answer as written in the file (for span tasks, the tagged caption)."),
    Column("raw_answer", "str", "The model's answer exactly as the file has it; null when absent."),
    Column("parsed", "str", "The answer read by the default (official) parser; null if unparsed."),
    Column("correct", "boolean", "Verdict under the default parser; null where not scored."),
    Column("alt_parser", "category", "Name of the alternative parser whose reading is kept beside."),
    Column("alt_parsed", "str", "The answer read by the alternative parser; null if unparsed."),
    Column("alt_correct", "boolean", "Verdict under the alternative parser."),
    Column(
        "scored",
        "bool",
        "Whether the official scorer counts this row (False for dropped duplicates, failed runs, "
        "invalid outputs); rows not scored stay in the table so reviewers can see them.",
    ),
    Column("skip_reason", "str", "Why the row is not scored; empty when it is."),
    Column(
        "media",
        "str",
        'Media references as a JSON list of {"kind": "video"|"audio"|"image", "path": ..., '
        '"role": ...}; paths as the file gives them, resolved against media roots at display time.',
    ),
    Column("pair_id", "str", "Pair the item belongs to (a clip pair, an image pair); empty if none."),
    Column("side", "str", "Which side of the pair (a clip id, a named side); empty if none."),
    Column("source", "str", "File the row was read from, and the record within it (``file:line 3``)."),
    Column("extra", "str", "The record's other fields as a JSON object, kept so nothing is lost."),
)

COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
_BY_NAME = {c.name: c for c in COLUMNS}

MediaKind = Literal["video", "audio", "image"]


def make_table(columns: Mapping[str, Any], length: int | None = None) -> pd.DataFrame:
    """Build an item table from whole columns.

    ``columns`` maps column names to sequences (or scalars, broadcast to ``length``). Columns left
    out get their empty value (empty string, null, False). Unknown names are an error: the schema
    is defined once, here.
    """
    unknown = set(columns) - set(COLUMN_NAMES)
    if unknown:
        raise KeyError(f"not item-table columns: {sorted(unknown)}")
    if length is None:
        lengths = {len(v) for v in columns.values() if _is_sequence(v)}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {sorted(lengths)}")
        length = lengths.pop() if lengths else 0
    data: dict[str, Any] = {}
    for col in COLUMNS:
        value = columns.get(col.name, _default(col))
        if not _is_sequence(value):
            value = [value] * length
        data[col.name] = pd.Series(value, dtype=_pandas_dtype(col), copy=False)
    frame = pd.DataFrame(data)
    return frame


def empty_table() -> pd.DataFrame:
    """An item table with no rows and every column typed."""
    return make_table({}, length=0)


def concat_tables(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack item tables (several models, several files) keeping the schema's dtypes.

    Each text column comes out as one contiguous Arrow array (:func:`stack_column`).
    """
    if not tables:
        return empty_table()
    names = list(tables[0].columns)
    if any(list(t.columns) != names for t in tables[1:]):  # columns differ: pandas aligns them
        frame = pd.concat(list(tables), ignore_index=True)
        for col in COLUMNS:
            frame[col.name] = frame[col.name].astype(_pandas_dtype(col))  # type: ignore[call-overload]
        return single_chunks(frame)
    return stack_columns(names, lambda name: [t[name] for t in tables])


STACK_THREADS = 2
"""Columns stacked at once: most of a stack is copying (and first touching) memory, which
Arrow does without holding the GIL, so two columns go side by side on two cores."""


def stack_columns(names: Sequence[str], pieces: Callable[[str], list[pd.Series]]) -> pd.DataFrame:
    """A table whose column ``name`` stacks ``pieces(name)``, asked for one column at a time.

    ``pieces`` may read each column from disk when asked (a memory-mapped cache entry): only one
    column's pieces are then held at once, next to the table being built.
    """
    with ThreadPoolExecutor(max_workers=STACK_THREADS) as pool:  # Arrow copies without the GIL
        stacked = list(pool.map(lambda name: stack_column(name, pieces(name)), names))
    return pd.DataFrame(dict(zip(names, stacked, strict=True)), copy=False)


def stack_column(name: str, pieces: Sequence[pd.Series]) -> pd.Series:
    """One column from pieces, in the schema's dtype; text as one Arrow array (a single copy).

    The same values and dtype as ``pd.concat(pieces).astype(dtype)``, without pandas' per-block
    copies and with no chunk left to join when a page of rows is taken.
    """
    col = _BY_NAME.get(name)
    dtype = _pandas_dtype(col) if col is not None else None
    if dtype == "string" or (
        dtype is None and all(isinstance(p.array, pd.arrays.ArrowStringArray) for p in pieces)
    ):
        chunks = []
        for piece in pieces:
            array = piece.array
            if not isinstance(array, pd.arrays.ArrowStringArray):
                array = piece.astype(pd.StringDtype("pyarrow")).array
            chunks.extend(array._pa_array.chunks)
        size = sum(c.nbytes for c in chunks)
        text = (
            pa.large_string()
            if size >= 2**31 - 1 or any(c.type == pa.large_string() for c in chunks)
            else pa.string()
        )
        joined = pa.concat_arrays([c.cast(text) for c in chunks]) if chunks else pa.array([], text)
        return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([joined])), name=name, copy=False)
    kinds = {
        str(p.dtype.categories.dtype) if isinstance(p.dtype, pd.CategoricalDtype) else None for p in pieces
    }
    if dtype == "category" and len(kinds) == 1 and None not in kinds:  # categoricals of one kind of text
        return pd.Series(_stack_categorical([p.array for p in pieces]), name=name, copy=False)
    stacked = pd.concat(list(pieces), ignore_index=True)
    if dtype is not None:
        stacked = stacked.astype(dtype)  # type: ignore[call-overload]
    return stacked.rename(name)


def single_chunks(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each Arrow-backed text column in one chunk (a column at a time, to bound memory)."""
    for name in frame.columns:
        array = frame[name].array
        chunked = getattr(array, "_pa_array", None)
        if isinstance(array, pd.arrays.ArrowStringArray) and chunked is not None and chunked.num_chunks > 1:
            frame[name] = pd.arrays.ArrowStringArray(pa.chunked_array([chunked.combine_chunks()]))
    return frame


def _stack_categorical(pieces: Sequence[pd.Categorical]) -> pd.Categorical:
    """Categoricals stacked as ``pd.concat(...).astype("category")`` would, on codes alone.

    Pieces with the same categories keep them (unused ones included); otherwise the categories
    are the values used, sorted, as pandas makes them from the values (its concat of differing
    categoricals gives plain values). No text is looked at row by row.
    """
    first = pieces[0].dtype
    if all(p.dtype == first for p in pieces):
        codes = np.concatenate([np.asarray(p.codes) for p in pieces])
        return pd.Categorical.from_codes(codes, dtype=first)
    used = [p.categories[np.unique(p.codes[p.codes >= 0])] for p in pieces]
    values = pd.Index(np.unique(np.concatenate([np.asarray(u, dtype=object) for u in used])))
    categories = pd.Index(values, dtype=first.categories.dtype)
    recoded = []
    for piece in pieces:
        mapping = np.append(categories.get_indexer(piece.categories), -1)  # code -1 (missing) stays -1
        recoded.append(mapping[np.asarray(piece.codes)])
    return pd.Categorical.from_codes(np.concatenate(recoded), categories=categories)


ARROW_TEXT = pa.large_string()
"""The Arrow type of the text columns the column builders below make."""


def text_column(values: Sequence[str | None] | Any) -> pd.arrays.ArrowStringArray:
    """A string column from Python texts (None for null), converted once by Arrow."""
    return arrow_text_column(pa.array(values, ARROW_TEXT))


def arrow_text_column(text: pa.Array) -> pd.arrays.ArrowStringArray:
    """A string column wrapping Arrow texts (no copy)."""
    return pd.arrays.ArrowStringArray(pa.chunked_array([text], ARROW_TEXT))


def text_bytes(text: pa.Array) -> memoryview:
    """The bytes of ``text``'s own strings, one after another, without a copy.

    A slice of an Arrow string array shares its whole buffer: its own strings are the bytes
    between its first and last offsets (either offset width), never its neighbours' bytes.
    """
    if text.buffers()[2] is None:  # no string holds a byte
        return memoryview(b"")
    width = np.int64 if text.type == pa.large_string() else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=width)
    first, last = int(offsets[text.offset]), int(offsets[text.offset + len(text)])
    return memoryview(text.buffers()[2])[first:last]


def same_text_column(value: str, n: int) -> pd.arrays.ArrowStringArray:
    """A string column holding ``value`` in every row (what the table makes of a scalar, made at once)."""
    return arrow_text_column(pa.repeat(pa.scalar(value, ARROW_TEXT), n))


def same_category_column(value: str, n: int) -> pd.Categorical:
    """A category column holding ``value`` in every row."""
    categories: list[Any] = [value]
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=pd.Index(categories))


def category_column(text: pa.Array) -> pd.Categorical:
    """A category column from Arrow texts, its categories sorted (as pandas sorts a column's values)."""
    encoded = pc.dictionary_encode(text)
    names = encoded.dictionary.to_pylist()
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False)]
    return pd.Categorical.from_codes(codes, categories=pd.Index([names[i] for i in order]))


def item_key(*parts: str | None) -> str:
    """Deterministic short hash of the parts that identify an item (None counts as empty)."""
    joined = "\x1f".join("" if p is None else p for p in parts)
    return hashlib.blake2b(joined.encode("utf-8"), digest_size=8).hexdigest()


def media_json(refs: Sequence[tuple[MediaKind, str, str]]) -> str:
    """Encode media references ``(kind, path, role)`` for the ``media`` column.

    The text is exactly ``json.dumps([{"kind": ..., "path": ..., "role": ...}, ...],
    ensure_ascii=False)``, written directly: loaders call this once per row (a million times for
    a leaderboard), where ``json.dumps`` costs several times more.
    """
    if not all(isinstance(x, str) for ref in refs for x in ref):
        return json.dumps([{"kind": k, "path": p, "role": r} for k, p, r in refs], ensure_ascii=False)
    entries = [
        f'{{"kind": {json_string(k)}, "path": {json_string(p)}, "role": {json_string(r)}}}'
        for k, p, r in refs
    ]
    return "[" + ", ".join(entries) + "]"


def media_refs(media: str | None) -> list[tuple[str, str, str]]:
    """The ``(kind, path, role)`` references of a ``media`` text: the inverse of :func:`media_json`.

    Entries without a text path are left out; a text that is not a JSON list has none.
    """
    try:
        entries = json.loads(media) if media else []
    except ValueError:
        return []
    if not isinstance(entries, list):
        return []
    return [
        (str(e.get("kind", "")), e["path"], str(e.get("role", "")))
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("path"), str)
    ]


def media_paths(media: str | None) -> dict[str, str]:
    """The first path of each kind in a ``media`` text (:func:`media_refs`); empty for none."""
    found: dict[str, str] = {}
    for kind, path, _ in media_refs(media):
        found.setdefault(kind, path)
    return found


def json_list(texts: Sequence[str]) -> str:
    """A list of strings as JSON, exactly as ``json.dumps(texts, ensure_ascii=False)``."""
    return "[" + ", ".join(json_string(t) for t in texts) + "]"


def json_string(text: str) -> str:
    """``text`` as a JSON string literal, exactly as ``json.dumps(text, ensure_ascii=False)``."""
    # json.dumps escapes only '"', '\\' and control characters; isprintable() is False for every
    # control character (and for a few harmless ones, which then take the exact slow route).
    if '"' not in text and "\\" not in text and text.isprintable():
        return '"' + text + '"'
    return json.dumps(text, ensure_ascii=False)


def extra_json(record: Mapping[str, Any], keep_out: Sequence[str]) -> str:
    """Encode the fields of ``record`` that have a column of their own elsewhere left out."""
    rest = {k: v for k, v in record.items() if k not in keep_out}
    return json.dumps(rest, ensure_ascii=False, default=str) if rest else ""


def _default(col: Column) -> Any:
    if col.dtype == "bool":
        return False
    if col.dtype == "boolean" or col.name in {"raw_answer", "parsed", "alt_parsed"}:
        return None
    return ""


def _pandas_dtype(col: Column) -> str:
    return {"str": "string", "category": "category", "bool": "bool", "boolean": "boolean"}[col.dtype]


def _is_sequence(value: Any) -> bool:
    return not isinstance(value, (str, bytes)) and hasattr(value, "__len__")
