"""Reading the files into one item table: prediction files in worker processes, then gold-only rows.

The second step of the loading pipeline (``docs/architecture.md``). Each prediction file is read
by its benchmark's own loader, in a worker process that writes the table to its per-file cache
entry (:mod:`.catalog_cache`, memory-mapped back here); a file read once before is not parsed
again. Gold files add the rows of the tasks no prediction file covers, so gold can be browsed.
The parts are stacked a column at a time. A file that cannot be read is one line in the errors;
the others load.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from analysis import benchmarks
from analysis.errors import InputError
from analysis.files import harness
from analysis.files.readers import without_gc_pauses
from analysis.load import catalog_cache
from analysis.load.cache import entry_columns, entry_rows, read_column, read_frame
from analysis.load.sources import Source
from analysis.table.columns import concat_tables, single_chunks, stack_columns

Progress = Callable[[str], None]
"""Told, one line at a time, what loading is doing."""


T = TypeVar("T")


_WORKERS = 2
"""Processes loading prediction files side by side (at most one per core)."""


Part = pd.DataFrame | Path
"""A loaded item table, or the per-file cache entry holding it (:func:`_load_to_file`)."""


def start_pool() -> ProcessPoolExecutor:
    """The worker processes of :func:`_load_in_workers`, each started and importing the loaders."""
    workers = max(1, min(os.cpu_count() or 1, _WORKERS))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    for _ in range(workers):
        pool.submit(_imported)
    return pool


def _imported() -> None:
    """Nothing: run in a new worker, its arrival has imported this module and the loaders."""


def read_tables(
    sources: Sequence[Source],
    gold_by_bench: Mapping[str, list[Source]],
    say: Progress,
    cache_dir: Path | None = None,
    pool: ProcessPoolExecutor | None = None,
    *,
    apart: bool = False,
    digests: catalog_cache.Digests | None = None,
) -> tuple[pd.DataFrame, list[str], set[Path]]:
    """Every prediction file, then the gold-only rows: one prepared table, errors, unread gold files.

    With ``cache_dir``, prediction files load in worker processes (one per core) through
    per-file cache entries (:func:`_load_to_file`): files load side by side, a table comes back
    as a memory-mapped file instead of a pickle, and a file already loaded once (in another set
    of files) is not parsed again. The entries are then stacked a column at a time
    (:func:`_stack`), so the loading process never holds them all beside the stacked table.
    ``apart``: a single prediction file goes to a worker too (this process has other work).
    ``digests``: the files' digests taken already (by detection): the workers do not hash the
    files again for their entries' keys.
    """
    errors: list[str] = []
    predictions = [s for s in sources if s.role == "predictions"]
    parts: list[Part | None]
    if cache_dir is not None and (len(predictions) > 1 or (apart and predictions)):
        parts = _load_in_workers(predictions, gold_by_bench, cache_dir, errors, say, pool, digests)
    else:
        parts = []
        for index, source in enumerate(predictions, 1):
            started = time.perf_counter()
            size = source.path.stat().st_size / 1e6 if source.path.is_file() else 0.0
            say(f"[{index}/{len(predictions)}] {source.benchmark} {source.path.name} ({size:,.1f} MB)...")
            table = attempt(errors, source.path, _load_predictions, source, gold_by_bench)
            parts.append(table)
            rows = len(table) if table is not None else 0
            say(f"[{index}/{len(predictions)}] {rows:,} rows in {time.perf_counter() - started:.1f} s")
    covered = {(str(b), str(t)) for p in parts if p is not None for b, t in _bench_tasks(p)}
    unreadable: set[Path] = set()
    for bench_id, gold in gold_by_bench.items():
        say(f"gold of {bench_id} ({len(gold)} files)...")
        for one in gold:  # one by one: a bad gold file drops itself, not its benchmark's others
            part = attempt(errors, one.path, _load_gold, bench_id, [one], covered)
            parts.append(part)
            if part is None:
                unreadable.add(one.path)
    say("indexing...")
    stacked = _stack([p for p in parts if p is not None])
    if cache_dir is not None:  # only now: an entry pruned before its stack would be missing
        catalog_cache.prune_files(cache_dir, len(predictions))
    return stacked, errors, unreadable


def _stack(parts: Sequence[Part]) -> pd.DataFrame:
    """The parts as one item table, their text in single Arrow arrays; entries read a column at a time."""
    names = [_columns(p) for p in parts]
    first = names[0] if names else None
    if first is None or any(n != first for n in names):
        return concat_tables([_frame(p) for p in parts])
    return stack_columns(
        first, lambda name: [read_column(p, name) if isinstance(p, Path) else p[name] for p in parts]
    )


def _columns(part: Part) -> list[str] | None:
    return list(part.columns) if isinstance(part, pd.DataFrame) else entry_columns(part)


def _frame(part: Part) -> pd.DataFrame:
    if isinstance(part, pd.DataFrame):
        return part
    restored = read_frame(part)
    if restored is None:
        raise InputError(part, "a cache entry written during this load could not be read back")
    return restored[0]


def _load_in_workers(
    predictions: Sequence[Source],
    gold_by_bench: Mapping[str, list[Source]],
    cache_dir: Path,
    errors: list[str],
    say: Progress,
    started: ProcessPoolExecutor | None = None,
    digests: catalog_cache.Digests | None = None,
) -> list[Part | None]:
    """Prediction tables loaded by worker processes, in the order of ``predictions``.

    A table comes back as its cache entry (or, when the entry could not be written, itself).
    ``started``: workers already started (left running); else a pool is made for these files and
    shut down without waiting for its workers to exit (the table is stacked meanwhile).
    """
    parts: list[Part | None] = [None] * len(predictions)
    problems: dict[int, str] = {}
    workers = max(1, min(os.cpu_count() or 1, _WORKERS, len(predictions)))
    size = sum(_size(s.path) for s in predictions) / 1e6
    context = multiprocessing.get_context("spawn")
    pool = started or ProcessPoolExecutor(max_workers=workers, mp_context=context)
    say(f"loading {len(predictions)} files ({size:,.1f} MB) in {workers} processes...")
    try:
        # largest first: the last file to finish is then a small one, not one worker's long tail
        order = sorted(range(len(predictions)), key=lambda i: -_size(predictions[i].path))
        files = [p for s in predictions for p in (s.path, s.gold)]
        gold_files = [g.path for gold in gold_by_bench.values() for g in gold]
        known = (digests or catalog_cache.Digests()).taken([*files, *gold_files])  # one for all
        futures = {
            pool.submit(_load_to_file, predictions[index], dict(gold_by_bench), cache_dir, known): index
            for index in order
        }
        for done, future in enumerate(as_completed(futures), 1):
            index = futures[future]
            source = predictions[index]
            loaded, problem, rows, took = future.result()
            if problem is not None:
                problems[index] = problem
            elif isinstance(loaded, Path) and entry_columns(loaded) is None:  # removed in between
                parts[index] = attempt(errors, source.path, _load_predictions, source, gold_by_bench)
            else:
                parts[index] = loaded
            say(
                f"[{done}/{len(predictions)}] {source.benchmark} {source.path.name}: {rows:,} rows, "
                f"{took:.1f} s"
            )
    finally:
        if started is None:
            pool.shutdown(wait=False, cancel_futures=True)
    errors.extend(problems[i] for i in sorted(problems))
    return parts


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _load_to_file(
    source: Source, gold_by_bench: dict[str, list[Source]], cache_dir: Path, known: dict[Path, str]
) -> tuple[Path | pd.DataFrame | None, str | None, int, float]:
    """In a worker: load one prediction file into its per-file cache entry (reused if there).

    Returns the entry (or the table itself when the cache cannot be written), the one-line
    error instead when the file cannot be loaded, the rows and the seconds it took. ``known``:
    digests the loading process took already.
    """
    start = time.perf_counter()
    digests = catalog_cache.Digests(known)
    candidates = [g for gold in gold_by_bench.values() for g in gold if g.benchmark == source.benchmark]
    entry = catalog_cache.file_entry(cache_dir, source, candidates, digests)
    cached = entry_rows(entry)
    if cached is not None:
        return entry, None, cached, time.perf_counter() - start
    errors: list[str] = []
    table = attempt(errors, source.path, _load_predictions, source, gold_by_bench)
    if table is None:
        return None, errors[0], 0, time.perf_counter() - start
    table = single_chunks(table)
    if catalog_cache.save_file(entry, table):
        return entry, None, len(table), time.perf_counter() - start
    return table, None, len(table), time.perf_counter() - start


def _bench_tasks(part: Part) -> list[tuple[Any, Any]]:
    if isinstance(part, Path):
        frame = pd.DataFrame({name: read_column(part, name) for name in ("benchmark", "task")})
    else:
        frame = part[["benchmark", "task"]]
    pairs = frame.drop_duplicates().astype(str).drop_duplicates()  # text of the few distinct pairs only
    return list(pairs.itertuples(index=False, name=None))


@without_gc_pauses
def _load_predictions(source: Source, gold_by_bench: Mapping[str, list[Source]]) -> pd.DataFrame:
    bench = benchmarks.get(source.benchmark)
    kind = _sniffed(source.path)
    if not source.find_gold:
        candidates = [source.gold] if source.gold is not None else []
    else:
        candidates = _gold_candidates(source, gold_by_bench.get(source.benchmark, []), kind)
    if not candidates and source.task in bench.NEEDS_GOLD and kind not in _CARRY_GOLD:
        raise InputError(
            source.path, f"{bench.NAME} {source.task} predictions need their gold file; pass it too"
        )
    if bench.TRY_EACH_GOLD and source.find_gold:
        # Optional gold that belongs to one of several sets: use the first gold that fits the run.
        for gold in candidates:
            try:
                return bench.load(source.path, gold=gold, task=source.task, model=source.model)
            except InputError:
                continue
        candidates = []
    first = candidates[0] if candidates else None
    return bench.load(source.path, gold=first, task=source.task, model=source.model)


_CARRY_GOLD = frozenset({"vlmevalkit"})
"""Harness formats whose rows carry their gold (the dataset's columns): they are handed no gold file."""


def _gold_candidates(source: Source, gold: Sequence[Source], kind: str | None) -> list[Path]:
    """Gold files a user's prediction file may go with: same benchmark and task, where it takes one.

    A file of one task of a benchmark with per-file tasks takes gold only when it needs it: the
    other tasks' results carry their gold (multiple choice, say), and handing them their
    annotation file would blame that file for a gold it was never meant to give. A general
    harness's file (``docs/formats.md``) goes by its format: lmms-eval samples join their gold by
    ``doc_id``, a VLMEvalKit file carries its gold in the dataset's columns. ``kind``: the file's
    format (:func:`_sniffed`).
    """
    bench = benchmarks.get(source.benchmark)
    if kind == "lmms-eval":  # its doc_id rows join gold, whatever the benchmark's own files do
        return [g.path for g in gold if g.task == source.task]
    if kind in _CARRY_GOLD:
        return []
    if not bench.TAKES_GOLD:
        return []
    if source.task is not None and source.task not in bench.NEEDS_GOLD:
        return []
    return [g.path for g in gold if g.task == source.task]


def _sniffed(path: Path) -> str | None:
    """The file's format by content (:func:`analysis.files.harness.sniff`); None when it cannot be read."""
    try:
        return harness.sniff(path)
    except (InputError, OSError):
        return None


@without_gc_pauses
def _load_gold(bench_id: str, gold: Sequence[Source], covered: set[tuple[str, str]]) -> pd.DataFrame:
    """Gold-only rows, for the benchmark tasks no prediction file covers (so gold can be browsed)."""
    table = benchmarks.get(bench_id).load_gold([g.path for g in gold])
    keys = table["benchmark"].astype(str) + "\x1f" + table["task"].astype(str)
    done = {f"{b}\x1f{t}" for b, t in covered}
    return table[~keys.isin(done)].reset_index(drop=True)


def attempt(errors: list[str], path: Path, action: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """Run ``action``; keep a failure as one line and go on with the other files (None then)."""
    try:
        return action(*args, **kwargs)
    except InputError as exc:
        errors.append(exc.line())
    except Exception as exc:  # one broken module or file must not stop the app loading the others
        errors.append(f"{path}: could not be loaded ({type(exc).__name__}: {exc})")
    return None
