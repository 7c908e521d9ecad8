"""The commands that use the label store: ``import``, ``score --corrected`` and ``export``.

Kept apart from :mod:`analysis.cli.main` so that ``halluscope score`` never imports SQLAlchemy. The
numbers ``score --corrected`` prints are the app's corrected view: both apply the store's current
labels with :func:`analysis.store.apply.apply_corrections` and score with the benchmark's own
``score``; both count corrections with :func:`analysis.store.apply.count_corrections`.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks import get
from analysis.benchmarks.base import Benchmark
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.errors import InputError, InvalidLabel, StoreError, UsageError
from analysis.files.readers import read_jsonl
from analysis.review.corrected import corrected_gold, corrected_view, write_native
from analysis.store.apply import count_corrections
from analysis.store.connect import open_store
from analysis.store.db import Store, default_db_path
from analysis.store.events import ItemRef, write_label_rows
from analysis.store.export import export_corrections, guess_format
from analysis.store.identity import Identity, NotAuthenticated
from analysis.store.values import FIELDS
from analysis.table.columns import concat_tables

CORRECTION_COLUMNS = ("item_id", "field", "value", "reason")
"""Columns of a corrections file; ``task`` and ``gold`` (the official value, as ``items``
prints them) may be given too, so that a value is checked against its task's kind."""


def _open(db: str | None, *, must_exist: bool) -> Store:
    target = db or default_db_path()
    if must_exist and not str(target).startswith(("postgres", "sqlite:")) and not Path(target).is_file():
        raise InputError(target, "no such database file")
    try:
        return open_store(target)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def corrected_table(db: str | None, bench: Benchmark, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` against the store's current corrected gold, as the app's "corrected" view has it.

    The count of corrections goes to stderr. Used by ``score --corrected`` and ``items --db``.
    """
    store = _open(db, must_exist=True)
    try:
        fixed = corrected_view(table, store)
    finally:
        store.close()
    print(f"halluscope: {count_corrections(fixed)} gold correction(s) applied", file=sys.stderr)
    return fixed


def read_correction_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(where, row)`` of a CSV or JSONL corrections file (by extension; ``.csv`` is CSV)."""
    if not path.is_file():
        raise InputError(path, "no such file")
    if path.suffix.lower() == ".csv":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(path, "not valid UTF-8 text") from None
        reader = csv.DictReader(io.StringIO(text))
        missing = {"item_id", "field", "value"} - set(reader.fieldnames or ())
        if missing:
            raise InputError(path, f"missing columns: {', '.join(sorted(missing))}", record="line 1")
        return [
            (f"line {n}", {k: (v if v != "" else None) for k, v in row.items() if k is not None})
            for n, row in enumerate(reader, start=2)
        ]
    records = read_jsonl(path)
    return [(records.where(i), dict(r)) for i, r in enumerate(records.items)]


def planned_writes(
    bench: Benchmark, path: Path, rows: list[tuple[str, dict[str, Any]]]
) -> list[tuple[ItemRef, str, Any, str]]:
    """Every row checked before anything is written: ``(item, field, value, reason)``."""
    from analysis.store.values import normalize

    planned = []
    for where, row in rows:
        item_id, field = row.get("item_id"), row.get("field")
        if not isinstance(item_id, str) or not item_id:
            raise InputError(path, "missing, expected the item id as text", record=where, field="item_id")
        if field not in FIELDS:
            known = ", ".join(FIELDS)
            raise InputError(path, f"{field!r} is not one of {known}", record=where, field="field")
        task, gold = row.get("task"), row.get("gold")
        ref = ItemRef(bench.NAME, item_id, str(task or ""), None if gold is None else str(gold))
        try:
            normalize(field, row.get("value"), benchmark=bench.NAME, task=ref.task, original=ref.gold)
        except InvalidLabel as exc:
            raise InputError(path, str(exc), record=where, field="value") from None
        reason = row.get("reason")
        planned.append((ref, field, row.get("value"), "" if reason is None else str(reason)))
    return planned


def run_import(args: argparse.Namespace) -> str:
    """``halluscope import``: all rows or none; a row equal to the current label adds no event."""
    bench = get(args.benchmark)
    try:
        who = Identity(args.reviewer)
    except NotAuthenticated as exc:
        raise UsageError(f"--reviewer: {exc}") from None
    writes = planned_writes(bench, args.corrections, read_correction_rows(args.corrections))
    store = _open(args.db, must_exist=False)
    try:
        added = len(write_label_rows(store, writes, who, scope="final"))  # one transaction
    finally:
        store.close()
    return f"imported {added} new event(s) from {len(writes)} row(s) of {args.corrections}"


def _shown(bench: Benchmark, path: Path) -> pd.DataFrame | None:
    try:
        return load_as_shown(lambda paths: bench.load_gold(paths), lambda p: bench.load(p), path)
    except (InputError, ValueError):
        return None


def export_format(out: Path, fmt: str | None) -> str:
    """``--format`` as given, else the one the extension of ``--out`` names (before the store opens)."""
    if fmt is not None:
        return fmt
    try:
        return guess_format(out, None)
    except InputError:
        raise UsageError(
            f"--out {out}: cannot tell the format from the extension "
            f"{out.suffix or '(none)'}: name a .csv, .jsonl or .parquet file, "
            "or give --format"
        ) from None


def run_export(args: argparse.Namespace) -> str:
    """Do the export; returns the line to print (the CLI declares the options)."""
    bench = get(args.benchmark)
    fmt = export_format(args.out, args.format)
    store = _open(args.db, must_exist=True)
    try:
        if fmt == "native":
            if not args.gold:
                raise UsageError("--format native needs --gold with the files to correct")
            written = write_native(bench.NAME, args.gold, corrected_gold(store, bench.NAME), args.out)
            tables = [t for t in (_shown(bench, Path(p)) for p in args.gold) if t is not None]
            n = count_corrections(corrected_view(concat_tables(tables), store)) if tables else 0
            return f"wrote {len(written)} file(s) with {n} corrected gold value(s) to {args.out}"
        n = export_corrections(store, args.out, fmt=fmt, benchmark=bench.NAME)
        return f"wrote {n} event(s) to {args.out}"
    finally:
        store.close()
