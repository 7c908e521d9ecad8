"""``halluscope export``: corrections as CSV / JSONL / Parquet, or corrected gold in native files.

Kept apart from :mod:`analysis.cli` so that ``halluscope score`` never imports SQLAlchemy.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from analysis.errors import InputError, UsageError


def run_export(args: argparse.Namespace) -> str:
    """Do the export; returns the line to print (the CLI declares the options)."""
    from analysis.benchmarks import get
    from analysis.store.connect import open_store
    from analysis.store.corrected import write_native
    from analysis.store.db import StoreError, default_db_path
    from analysis.store.export import export_corrections
    from analysis.store.labels import current_labels

    bench = get(args.benchmark)
    target = args.db or default_db_path()
    if not str(target).startswith(("postgres", "sqlite:")) and not Path(target).is_file():
        raise InputError(target, "no such database file")
    try:
        store = open_store(target)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    try:
        if args.format == "native":
            if not args.gold:
                raise UsageError("--format native needs --gold with the files to correct")
            labels = current_labels(store, bench.NAME)
            written = write_native(bench.NAME, args.gold, labels, args.out)
            n = int((labels["field"] == "gold").sum())
            return f"wrote {len(written)} file(s) with {n} corrected gold value(s) to {args.out}"
        n = export_corrections(store, args.out, fmt=args.format, benchmark=bench.NAME)
        return f"wrote {n} event(s) to {args.out}"
    finally:
        store.close()
