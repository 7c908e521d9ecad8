"""The app's loaded table on disk, keyed by the content of every file it was read from.

A restart with the same files costs a hash of their bytes and one memory-mapped Arrow read instead
of parsing them again. The entry is an Arrow IPC file without compression
(:func:`analysis.load.cache.write_frame`): reading it maps the file and wraps its buffers (strings stay
in Arrow, as the item table keeps them), so a million rows open in well under a second and take
no private memory until a column is copied.

The key covers the catalog format, the item-table schema, and per source its benchmark and that
benchmark's scoring ``VERSION``, its role, task, model and the bytes of the file (and of a gold
file named for it). Audit findings are not cached: audits read the gold files and the media
folders, which may change without the files changing, so they run at every start.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xxhash

from analysis import benchmarks
from analysis.charts.common import derived_columns
from analysis.load.cache import file_digest, read_frame, write_frame
from analysis.load.detect import Detected
from analysis.load.detect import detect as _detect
from analysis.table.columns import COLUMN_NAMES

FORMAT = "catalog-4"
"""Bumped when what the catalog derives from the item tables changes."""
DETECT_FORMAT = "detect-2"
"""Bumped when file detection changes."""
KEEP = 3
"""Catalog entries kept in the cache folder (the most recently used); older ones are removed."""
KEEP_FILES = 64
"""Per-file entries kept (the tables of single prediction files, see :func:`file_entry`)."""


def _object_columns() -> list[str]:
    """Derived columns holding a value of their own per row (lists): stored as JSON text, null stays null."""
    return [name for name, spec in derived_columns().items() if spec.cell == "row"]


class Digests:
    """Content digests of files, each file hashed once per load (detection and key share them)."""

    def __init__(self, known: Mapping[Path, str] | None = None) -> None:
        self._known: dict[Path, str] = dict(known or {})

    def taken(self, paths: Iterable[Path | None]) -> dict[Path, str]:
        """The digests already taken of ``paths`` (for a worker process, which then hashes none again)."""
        return {p: self._known[p] for p in paths if p is not None and p in self._known}

    def of(self, path: Path) -> str:
        """XXH3-128 of the file's bytes; ``missing:<path>`` when it is not a file."""
        if path not in self._known:
            self._known[path] = file_digest(path) if path.is_file() else f"missing:{path}"
        return self._known[path]


def catalog_key(sources: Sequence[Any], digests: Digests | None = None) -> str:
    """The key of the table loaded from ``sources`` (:class:`analysis.load.catalog.Source` values)."""
    digests = digests or Digests()
    parts = [FORMAT, ",".join(COLUMN_NAMES)]
    for s in sources:
        version = benchmarks.get(s.benchmark).VERSION
        gold = digests.of(s.gold) if s.gold is not None else ""
        digest = digests.of(s.path)
        parts.append(
            "|".join(
                [
                    s.benchmark,
                    version,
                    s.role,
                    s.task or "",
                    s.model or "",
                    str(s.find_gold),
                    str(s.path),
                    digest,
                    gold,
                ]
            )
        )
    return xxhash.xxh3_128_hexdigest("\x1f".join(parts).encode("utf-8"))


def detect(path: Path, folder: Path, digests: Digests) -> Detected:
    """:func:`analysis.load.detect.detect`, remembered by content in ``folder/detected.json``.

    Telling a JSON file's kind parses the whole file (seconds for a large one): on a restart the
    answer is read back instead. Errors are not remembered (a bad file says why every time). What
    a file's name decided is remembered under its bytes and its name together (the same bytes
    under another name may be another file).
    """
    known = _detected(folder)
    hit = _remembered(known, path, digests)
    if hit is not None:
        return hit
    found = _detect(path)
    content, named = _detected_keys(path, digests)
    known[named if found.by_name else content] = [found.benchmark, found.task, found.role]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(dict(list(known.items())[-1000:]), out)
        os.replace(tmp, folder / "detected.json")
    except OSError:
        pass  # not remembered: detected again next time
    return found


def all_detected_before(paths: Sequence[Path], folder: Path, digests: Digests) -> bool:
    """True when :func:`detect` remembers every one of ``paths``: likely a restart."""
    known = _detected(folder)
    return all(_remembered(known, p, digests) is not None for p in paths)


def _detected(folder: Path) -> dict[str, Any]:
    """What ``folder/detected.json`` remembers ({} when it is missing or unreadable)."""
    try:
        known = json.loads((folder / "detected.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _detected_keys(path: Path, digests: Digests) -> tuple[str, str]:
    """The keys of a file's detection: by its bytes, and by its bytes and name (a name decided)."""
    content = f"{DETECT_FORMAT}:{digests.of(path)}"
    return content, f"{content}:{path.name}"


def _remembered(known: dict[str, Any], path: Path, digests: Digests) -> Detected | None:
    content, named = _detected_keys(path, digests)
    for key, by_name in ((content, False), (named, True)):
        hit = known.get(key)
        if isinstance(hit, list) and len(hit) == 3:
            return Detected(hit[0], hit[1], hit[2], by_name=by_name)
    return None


def entry_path(folder: Path, key: str) -> Path:
    """Where the entry of ``key`` lives."""
    return folder / f"catalog-{key}.arrow"


def save(entry: Path, table: pd.DataFrame, errors: list[str]) -> Path | None:
    """Write ``entry`` atomically (:func:`analysis.load.cache.write_frame`); None when that fails."""
    frame = table.copy(deep=False)
    for name in _object_columns():
        if name in frame:
            texts = [None if v is None else json.dumps(v) for v in frame[name].tolist()]
            frame[name] = pd.Series(texts, index=frame.index, dtype="string")
    if not write_frame(entry, frame, {"catalog": FORMAT, "errors": errors}):
        return None
    _prune(entry.parent)
    return entry


def restore(entry: Path) -> tuple[pd.DataFrame, list[str]] | None:
    """The table and load errors of an entry; None when it is missing, torn or foreign."""
    restored = read_frame(entry)
    if restored is None or restored[1].get("catalog") != FORMAT:
        return None
    frame, meta = restored
    for name in _object_columns():
        if name in frame:
            frame[name] = _from_json(frame[name])
    return frame, list(meta.get("errors", []))


def file_entry(folder: Path, source: Any, gold: Sequence[Any], digests: Digests) -> Path:
    """The per-file entry of one prediction file: its content, its benchmark, and its possible gold.

    ``gold``: the gold sources of the same benchmark the catalog was given (the loader may pick
    one of them), so a new gold file means a new entry.
    """
    key = catalog_key([source, *gold], digests)
    return folder / f"file-{key}.arrow"


def save_file(entry: Path, table: pd.DataFrame) -> bool:
    """Write one prediction file's item table (:func:`analysis.load.cache.write_frame`).

    Nothing is pruned here: the entries of a load are read back after all of them are written,
    so the loader prunes once they are stacked (:func:`prune_files`).
    """
    return write_frame(entry, table, {"file": FORMAT})


def prune_files(folder: Path, in_use: int) -> None:
    """Keep the :data:`KEEP_FILES` most recently used per-file entries, and at least ``in_use``.

    ``in_use``: the entries of the load just made (written or reused, so the newest), which are
    never removed, however many files that load had.
    """
    _prune(folder, "file-*.arrow", max(KEEP_FILES, in_use))


def _from_json(column: pd.Series) -> pd.Series:
    """Decode the JSON texts of a column (only the rows that have one: most are null)."""
    values = np.full(len(column), None, dtype=object)
    present = np.flatnonzero(column.notna().to_numpy(dtype=bool))
    values[present] = [json.loads(t) for t in column.iloc[present].tolist()]
    return pd.Series(values, index=column.index, dtype=object)


def _prune(folder: Path, pattern: str = "catalog-*.arrow", keep: int = KEEP) -> None:
    entries = []
    for path in folder.glob(pattern):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue  # removed by another process meanwhile
    for _, old in sorted(entries, reverse=True)[keep:]:
        old.unlink(missing_ok=True)
