"""The commands that use the label store: ``import``, ``merge``, ``export``, and every ``--db``.

Kept apart from :mod:`analysis.cli.main` so that ``halluscope score`` never imports SQLAlchemy. The
numbers ``score --corrected`` prints are the app's corrected view: both apply the store's current
labels with :func:`analysis.store.apply.apply_corrections` and score with the benchmark's own
``score``; both count corrections with :func:`analysis.store.apply.count_corrections`.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks import UnknownBenchmark, get
from analysis.benchmarks.base import Benchmark, Finding
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.errors import InputError, InvalidLabel, ReadOnlyStore, StoreError, UsageError
from analysis.files.csv_cells import csv_unsafe, read_csv_rows
from analysis.files.readers import check_file, read_jsonl
from analysis.files.table_formats import guess_format
from analysis.review.corrected import corrected_gold, corrected_view, write_native
from analysis.store.apply import count_corrections
from analysis.store.connect import open_store
from analysis.store.db import Store, default_db_path
from analysis.store.events import ItemRef, write_label_rows
from analysis.store.export import export_corrections, parquet_rows
from analysis.store.identity import Identity, NotAuthenticated
from analysis.store.values import FIELDS, NEEDS_REASON
from analysis.table.columns import concat_tables

CORRECTION_COLUMNS = ("item_id", "field", "value", "reason")
"""Columns of a corrections file; the task and the official gold come from the ``--gold`` files."""


def _open(db: str | None, *, only_read: bool) -> Store:
    """The store ``--db`` names (default: the data folder's).

    ``only_read``: for a command that only reads labels. The store must exist, and a store the user
    may read but not write (another user's file, a read-only folder) is opened read-only rather
    than refused; its schema must then be this version's, since bringing it up to date writes.
    """
    target = db or default_db_path()
    if only_read and not str(target).startswith(("postgres", "sqlite:")):
        if not Path(target).is_file():
            raise InputError(target, "no such database file")
        if Path(target).stat().st_size == 0:  # SQLite would take it as a new database
            raise InputError(target, "is empty, not a label store")
    try:
        try:
            return open_store(target)
        except ReadOnlyStore:
            if not only_read:
                raise
            return open_store(target, read_only=True)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def corrected_table(db: str | None, bench: Benchmark, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` against the store's current corrected gold, as the app's "corrected" view has it.

    The count of corrections goes to stderr. Used by ``score --corrected`` and ``items --db``.
    """
    store = _open(db, only_read=True)
    try:
        fixed = corrected_view(table, store)
    finally:
        store.close()
    print(f"halluscope: {count_corrections(fixed)} gold correction(s) applied", file=sys.stderr)
    return fixed


def reviewed_items(db: str | None, bench: Benchmark) -> dict[str, str]:
    """Item id -> ``corrected`` or ``confirmed``: the team's verdicts on suspects (``docs/suspects.md``)."""
    from analysis.review.suspects import verdicts

    store = _open(db, only_read=True)
    try:
        return verdicts(store, bench.NAME)
    finally:
        store.close()


def finding_states(db: str | None, bench: Benchmark, findings: Sequence[Finding]) -> list[str | None]:
    """``audit --db``: where the store's labels leave each finding (:mod:`analysis.review.findings`)."""
    from analysis.review.findings import finding_states as states

    store = _open(db, only_read=True)
    try:
        return states(store, bench.NAME, findings)
    finally:
        store.close()


def pair_decisions(db: str | None, pair_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``pairs score --db``: pair id -> ``decision`` and ``resolution``, as the app's pair list shows them."""
    from analysis.review.pairs.team import decisions
    from analysis.store.reviewers import REVIEWERS_PER_ITEM

    store = _open(db, only_read=True)
    try:
        final = decisions(store, pair_ids, required=REVIEWERS_PER_ITEM)
    finally:
        store.close()
    return {
        str(p): {"decision": d, "resolution": r}
        for p, d, r in zip(final["pair_id"], final["decision"], final["resolution"], strict=True)
    }


def read_correction_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(where, row)`` of a CSV, JSONL or Parquet corrections file (by extension; else JSON Lines).

    The app's own exports are read too: its final labels become ``gold`` rows (the corrected gold
    and its reason); its event log is not a corrections file (:func:`is_event_log`).
    """
    check_file(path)
    kind = _kind(path)
    rows: list[tuple[str, dict[str, Any]]]
    if kind == "csv":
        rows = list(read_csv_rows(path, ()))
        header = set(rows[0][1]) if rows else set()
        app_export = "corrected_gold" in header  # the app writes formula-safe cells: taken off here
        rows = [
            (where, {k: (csv_unsafe(v) if app_export else v) if v != "" else None for k, v in row.items()})
            for where, row in rows
        ]
    elif kind == "parquet":
        rows = parquet_rows(path)
    else:
        records = read_jsonl(path)
        rows = [(records.where(i), dict(r)) for i, r in enumerate(records.items)]
    if rows and "corrected_gold" in rows[0][1]:
        return [(where, _final_label_row(row)) for where, row in rows]
    missing = [c for c in ("item_id", "field", "value") if rows and c not in rows[0][1]]
    if missing:
        raise InputError(path, f"missing columns: {', '.join(missing)}", record=rows[0][0])
    return rows


def _kind(path: Path) -> str:
    """``csv`` or ``parquet`` by the extension, as ``export`` names them; anything else is JSON Lines."""
    try:
        return guess_format(path, None)
    except InputError:
        return "jsonl"


def _final_label_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of the app's final labels as a ``gold`` correction: the corrected gold, with its reason."""
    reason = row.get("adjudication_reason") or row.get("reason")
    return {
        "item_id": row.get("item_id"),
        "field": "gold",
        "value": row.get("corrected_gold"),
        "reason": reason,
        "benchmark": row.get("benchmark"),
    }


def is_event_log(path: Path) -> bool:
    """True when ``path`` is an event log the app or ``export`` wrote: ``event_id`` and ``field`` columns.

    The app's final labels name an ``event_id`` too, but no ``field`` (they are gold, always).
    """
    try:
        kind = _kind(path)
        if kind == "csv":
            with path.open(encoding="utf-8-sig", newline="") as handle:
                names = set(next(csv.reader([handle.readline()]), []))
        elif kind == "parquet":
            import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

            names = set(pq.read_schema(path).names)
        else:
            with path.open("rb") as handle:
                first = handle.readline(1 << 20).strip()
            names = {
                n for n in ("event_id", "field") if first.startswith(b"{") and f'"{n}"'.encode() in first
            }
    except (OSError, UnicodeDecodeError, ValueError):
        return False  # the reader says what is wrong with it
    except Exception:  # pyarrow's errors for a file that is not Parquet: the reader says so
        return False
    return {"event_id", "field"} <= names


def known_items(bench: Benchmark, files: Sequence[Path] | None) -> dict[str, tuple[str, str | None]] | None:
    """``item_id -> (task, official gold)`` of every item in ``files``, as the app reads them.

    An import is checked against these: an id that is in none of them (a typo, another
    benchmark's item) is refused, and each event records the official gold it replaces. None
    without files: the contract's ``import`` takes no files, so the ids are then taken as given
    (:func:`_unchecked_item`).
    """
    if not files:
        return None
    from analysis.load.detect import expect_benchmark

    known: dict[str, tuple[str, str | None]] = {}
    for path in files:
        expect_benchmark(Path(path), bench)  # another benchmark's file: said as such, not as a bad field
        try:
            table = load_as_shown(lambda paths: bench.load_gold(paths), lambda p: bench.load(p), Path(path))
        except ValueError:  # a prediction file that is read only beside its gold file
            raise InputError(
                path, "holds no gold of its own: give the gold files to check ids against"
            ) from None
        for item_id, task, gold in zip(table["item_id"], table["task"], table["gold"], strict=True):
            official = gold if isinstance(gold, str) else None
            if known.get(str(item_id), ("", None))[1] is None:
                known[str(item_id)] = (task if isinstance(task, str) else "", official)
    return known


def planned_writes(
    bench: Benchmark,
    path: Path,
    rows: list[tuple[str, dict[str, Any]]],
    known: Mapping[str, tuple[str, str | None]] | None,
) -> list[tuple[ItemRef, str, Any, str]]:
    """Every row checked before anything is written: ``(item, field, value, reason)``.

    ``known``: the items of the ``--gold`` files (:func:`known_items`); None: no files were given.
    """
    from analysis.store.values import normalize

    planned = []
    for where, row in rows:
        item_id, field = row.get("item_id"), row.get("field")
        if not isinstance(item_id, str) or not item_id.strip():
            raise InputError(path, "missing, expected the item id as text", record=where, field="item_id")
        if known is not None and item_id not in known:
            what = f"{item_id!r} is not an item of the given {bench.NAME} files"
            raise InputError(path, what, record=where, field="item_id")
        if field not in FIELDS:
            known_fields = ", ".join(FIELDS)
            raise InputError(path, f"{field!r} is not one of {known_fields}", record=where, field="field")
        try:
            if known is None:
                ref = _unchecked_item(bench, item_id, field, row.get("value"))
            else:
                ref = ItemRef(bench.NAME, item_id, *known[item_id])
            normalize(field, row.get("value"), benchmark=bench.NAME, task=ref.task, original=ref.gold)
        except InvalidLabel as exc:
            raise InputError(path, str(exc), record=where, field="value") from None
        reason = row.get("reason")
        reason = "" if reason is None else str(reason)
        if field in NEEDS_REASON and not reason.strip():
            raise InputError(path, f"a {field} correction needs a reason", record=where, field="reason")
        planned.append((ref, field, row.get("value"), reason))
    return planned


def _unchecked_item(bench: Benchmark, item_id: str, field: str, value: Any) -> ItemRef:
    """The item a row names when no files say what it is: its task told by the value it is given.

    A gold value must fit the kind of gold of one of the benchmark's tasks (``docs/cli.md``), of the
    task an id names where it starts with one and a dash (``<task>-…``); a
    value that several kinds would spell differently (``BA``: a set of letters ``AB`` to one task,
    an order ``BA`` to another) is refused, since only the item's own files can say which it is.
    Flags and notes fit any item.
    """
    from analysis.store.values import normalize

    if field != "gold" or value is None:
        return ItemRef(bench.NAME, item_id)
    fits: dict[str, str | None] = {}
    problems: list[str] = []
    tasks = bench.TASKS or ("",)
    named = [t for t in tasks if t and item_id.startswith(f"{t}-")]  # an id like ``task-…``
    for task in named or tasks:
        try:
            fits[task] = normalize(field, value, benchmark=bench.NAME, task=task)
        except InvalidLabel as exc:
            problems.append(str(exc))
    if not fits:
        raise InvalidLabel(problems[0] if len(problems) == 1 else "; ".join(dict.fromkeys(problems)))
    if len(set(fits.values())) > 1:
        readings = ", ".join(f"{t} reads it as {v!r}" for t, v in fits.items())
        raise InvalidLabel(
            f"{value!r} is spelled differently by {bench.NAME}'s tasks ({readings}): "
            "give --gold FILE... so that the item's own task decides"
        )
    return ItemRef(bench.NAME, item_id, next(iter(fits)))


def run_import(args: argparse.Namespace) -> str:
    """``halluscope import``: all rows or none; a row equal to the current label adds no event.

    An event log (the app's or ``export``'s) is merged instead, as :func:`run_merge` does, with
    every event of another benchmark refused.
    """
    bench = get(args.benchmark)
    try:
        who = Identity(args.reviewer)
    except NotAuthenticated as exc:
        raise UsageError(f"--reviewer: {exc}") from None
    check_file(args.corrections)  # a pipe would block the first read until something writes to it
    if is_event_log(args.corrections):
        return _merge([args.corrections], args.db, who, benchmark=bench.NAME)
    rows = read_correction_rows(args.corrections)
    for where, row in rows:
        named = row.get("benchmark")
        if named is not None and _registry_id(named) != bench.NAME:
            what = f"{named!r} is not {bench.NAME}: import each benchmark's labels on their own"
            raise InputError(args.corrections, what, record=where, field="benchmark")
    known = known_items(bench, args.gold)
    writes = planned_writes(bench, args.corrections, rows, known)
    store = _open(args.db, only_read=False)
    try:
        added = len(write_label_rows(store, writes, who, scope="final"))  # one transaction
    finally:
        store.close()
    if known is None and writes:  # after the import: a refusal is one line, this warning no part of it
        print(
            f"halluscope: no --gold given: the {len(writes)} row(s) name items not checked against "
            f"{bench.NAME}'s files (an id of no item changes nothing); give --gold FILE... to check them",
            file=sys.stderr,
        )
    return f"imported {added} new event(s) from {len(writes)} row(s) of {args.corrections}"


def _registry_id(name: object) -> str | None:
    """The registry id a file's ``benchmark`` cell names (any spelling ``get`` takes), None for none."""
    try:
        return get(str(name)).NAME
    except UnknownBenchmark:
        return None


def run_merge(args: argparse.Namespace) -> str:
    """``halluscope merge``: event logs into the store, each event once, all files or none."""
    try:
        who = Identity(args.reviewer)
    except NotAuthenticated as exc:
        raise UsageError(f"--reviewer: {exc}") from None
    return _merge(args.logs, args.db, who, benchmark=None)


def _merge(paths: Sequence[Path], db: str | None, who: Identity, *, benchmark: str | None) -> str:
    from analysis.store.export import read_corrections
    from analysis.store.merge import insert_events

    rows: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        check_file(path)  # before is_event_log opens it: a pipe would block until written to
        if not is_event_log(path):
            raise InputError(path, "not an event log (no event_id column): import corrections with `import`")
        for where, event in read_corrections(path):
            if benchmark is not None and event.get("benchmark") != benchmark:
                what = f"{event.get('benchmark')!r} is not {benchmark}: merge other benchmarks with `merge`"
                raise InputError(path, what, record=where, field="benchmark")
            rows.append((f"{path.name}: {where}", event))
    names = ", ".join(p.name for p in paths)
    store = _open(db, only_read=False)
    try:
        added = insert_events(store, rows, source=names, origin=f"merge by {who.name} from {names}"[:256])
    finally:
        store.close()
    return f"merged {added} new event(s) from {len(rows)} event(s) of {names}"


def _shown(bench: Benchmark, path: Path) -> pd.DataFrame | None:
    """The file as the app shows it; None for a file that carries no gold and cannot be read alone.

    A file that carries gold (one export writes a copy of) must read as ``score`` reads it: its
    refusal is the export's, before anything is written (a patched copy of a file ``score``
    refuses would be a file no one can score).
    """
    try:
        return load_as_shown(lambda paths: bench.load_gold(paths), lambda p: bench.load(p), path)
    except (InputError, ValueError) as exc:
        if bench.write_corrected(path, {}) is None:  # no gold in it: nothing to write, nothing to count
            return None
        if isinstance(exc, InputError):
            raise
        raise InputError(path, str(exc)) from None


def run_export(args: argparse.Namespace, fmt: str) -> str:
    """Do the export in ``fmt`` (:func:`~analysis.cli.checks.check_export`'s); returns the line to print."""
    bench = get(args.benchmark)
    store = _open(args.db, only_read=True)
    try:
        if fmt == "native":
            from analysis.load.detect import expect_benchmark

            for path in args.gold:  # another benchmark's file: said as such, not as a missing field
                expect_benchmark(Path(path), bench)
            tables = [t for t in (_shown(bench, Path(p)) for p in args.gold) if t is not None]
            written = write_native(bench.NAME, args.gold, corrected_gold(store, bench.NAME), args.out)
            n = count_corrections(corrected_view(concat_tables(tables), store)) if tables else 0
            return f"wrote {len(written)} file(s) with {n} corrected gold value(s) to {args.out}"
        n = export_corrections(store, args.out, fmt=fmt, benchmark=bench.NAME)
        return f"wrote {n} event(s) to {args.out}"
    finally:
        store.close()
