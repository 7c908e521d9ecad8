"""A cache of loaded item tables, keyed by the content of the files they were read from.

Re-opening a large prediction file costs a hash of its bytes and one Parquet read instead of a
full parse. The key covers everything a table depends on: the benchmark and its scoring
``VERSION``, the item-table schema, the task, the model name and the bytes of the prediction
and gold files. A cache entry that cannot be read is ignored and rebuilt, never trusted.

xxhash (XXH3-128) is used for the content key because hashing is on the re-open path: it runs
at memory speed where SHA-256 takes about half a second per 400 MB on this kind of machine.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd
import xxhash

from analysis.benchmarks.base import Benchmark
from analysis.table import COLUMN_NAMES, concat_tables

_CHUNK = 8 * 1024 * 1024


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


def cache_key(
    bench: Benchmark,
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    model: str | None = None,
) -> str:
    """The key of one loaded table: everything the table depends on, hashed."""
    parts = [
        bench.NAME,
        bench.VERSION,
        ",".join(COLUMN_NAMES),
        task or "",
        model or "",
        file_digest(predictions),
        file_digest(gold) if gold is not None else "",
    ]
    return xxhash.xxh3_128_hexdigest("\x1f".join(parts).encode("utf-8"))


def load_cached(
    bench: Benchmark,
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    model: str | None = None,
    cache_dir: Path | None = None,
) -> pd.DataFrame:
    """``bench.load(...)``, served from the cache when the same bytes were loaded before.

    Load errors are never cached: a bad file raises its ``InputError`` every time.
    """
    folder = cache_dir or default_cache_dir()
    key = cache_key(bench, predictions, gold=gold, task=task, model=model)
    entry = folder / f"{bench.NAME}-{key}.parquet"
    if entry.exists():
        try:
            return _restore(pd.read_parquet(entry))
        except (OSError, ValueError, KeyError):
            entry.unlink(missing_ok=True)  # a torn or foreign file: rebuild it
    table = bench.load(predictions, gold=gold, task=task, model=model)
    _store(table, entry)
    return table


def _restore(frame: pd.DataFrame) -> pd.DataFrame:
    if tuple(frame.columns) != COLUMN_NAMES:
        raise KeyError("cached table has another schema")
    return concat_tables([frame])


def _store(table: pd.DataFrame, entry: Path) -> None:
    entry.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
    os.close(fd)
    try:
        table.to_parquet(tmp, index=False)
        os.replace(tmp, entry)  # atomic: readers see the old entry or the whole new one
    finally:
        Path(tmp).unlink(missing_ok=True)
