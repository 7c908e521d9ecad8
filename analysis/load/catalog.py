"""Everything the app shows, loaded once: one item table over all files, audit findings, load errors.

Files come either from a manifest (``samples/manifest.json``, written by the sample generator) or
from a list of paths a user gives ``halluscope serve``; then each file's benchmark, task and role
(gold or predictions) are read from its content (:mod:`analysis.load.detect`).

A bad file never stops the rest: its loader's one-line message (``InputError.line()``) is kept in
:attr:`Catalog.errors` and shown in the app, and every other file loads.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Finding
from analysis.charts.cells import ChartCells
from analysis.charts.common import chart_columns, derive_columns
from analysis.errors import InputError
from analysis.files import harness
from analysis.files.media import MediaResolver
from analysis.files.readers import read_object, without_gc_pauses
from analysis.load import catalog_cache
from analysis.load.cache import entry_columns, entry_rows, read_column, read_frame
from analysis.load.detect import Detected, NoBenchmarkNamed, Role, detect
from analysis.query import (
    Filters,
    ItemDetail,
    filter_rows,
    item_detail,
    prepare,
    search_text,
)
from analysis.table.columns import concat_tables, single_chunks, stack_columns
from analysis.table.groups import group_indices

T = TypeVar("T")
Progress = Callable[[str], None]
"""Told, one line at a time, what loading is doing."""

_WORKERS = 2
"""Processes loading prediction files side by side (at most one per core)."""
_VIEWS_KEPT = 8
"""Filtered views a catalog remembers (:meth:`Catalog.rows_for`)."""

@dataclass(frozen=True)
class Source:
    """One file to load, and what it is."""

    path: Path
    benchmark: str
    role: Role
    task: str | None = None
    model: str | None = None
    gold: Path | None = None
    """Gold file for a prediction file, when the manifest names it."""
    find_gold: bool = False
    """Look for the gold among the gold files given (user files); a manifest names it instead."""


@dataclass
class Catalog:
    """The loaded data the app browses; built once at start-up, never changed afterwards."""

    table: pd.DataFrame
    """The item table of every file, plus the derived columns of :func:`analysis.query.prepare`."""
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    """Audit findings per benchmark id."""
    errors: list[str] = field(default_factory=list)
    """One line per file that could not be loaded (or audited), naming file, record and field."""
    media_roots: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    """Folders media paths resolve against, per benchmark id."""
    files: dict[str, list[Path]] = field(default_factory=dict)
    """Every file loaded, per benchmark id (gold and predictions: corrected copies start here)."""
    cache_entry: Path | None = None
    """The cache file the table was read from, or saved to once :meth:`saved_entry` has waited."""
    saving: Future[Path | None] | None = field(default=None, repr=False, compare=False)
    """The cache entry being written behind the load (None when none is under way)."""

    def saved_entry(self) -> Path | None:
        """The cache file of the table (None when not cached), waiting for a write still under way."""
        if self.saving is not None:
            self.cache_entry = self.saving.result()
            self.saving = None
        return self.cache_entry

    def __post_init__(self) -> None:
        # One sort instead of 100,000 small arrays: an item's rows are a slice of ``_item_order``.
        codes, uniques = pd.factorize(self.table["item_id"])
        # An Index finds an id through its hash table (built on first use), not a Python dict.
        self._item_code = pd.Index(uniques, dtype="string")
        self._item_order = np.argsort(codes, kind="stable").astype(np.intp)
        self._item_bounds = np.searchsorted(codes[self._item_order], np.arange(len(uniques) + 1))
        paired = np.flatnonzero((self.table["pair_id"].fillna("") != "").to_numpy(dtype=bool))
        keys = self.table[["benchmark", "pair_id"]].iloc[paired]  # two columns, not the whole table
        by_pair = group_indices(keys, list(keys.columns))
        self._rows_by_pair = {(k[0], k[1]): paired[v] for k, v in by_pair.items()}
        self._resolvers = {b: MediaResolver(r, benchmarks.get(b).MEDIA_ALIASES)
                           for b, r in self.media_roots.items()}
        self._views: dict[Filters, npt.NDArray[np.intp]] = {}
        self._views_lock = threading.Lock()
        present = [c for c in chart_columns() if c in self.table]
        self._chart_frame = self.table[present]
        self._cells = ChartCells(self.table)
        self._benchmarks: list[str] | None = None

    def chart_view(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """What the charts draw for ``rows``: pre-grouped counts (:mod:`analysis.charts.cells`).

        One ``bincount`` of the rows' cells, whatever the number of rows; the charts give the same
        figures as from the rows themselves.
        """
        return self._cells.view(rows)

    def rows_for(self, filters: Filters) -> npt.NDArray[np.intp]:
        """Positions of the rows passing ``filters``, remembered for the last few filters.

        A click (select, next item, change page) reuses the rows of the filters in force instead
        of scanning the table again; only a new filter scans. The table never changes, so a
        remembered answer stays right.
        """
        with self._views_lock:  # handlers run in several threads
            rows = self._views.pop(filters, None)
        if rows is None:
            rows = filter_rows(self.table, filters)
            rows.setflags(write=False)
        with self._views_lock:
            self._views[filters] = rows  # most recently used last
            while len(self._views) > _VIEWS_KEPT:
                self._views.pop(next(iter(self._views)))
        return rows

    def chart_rows(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """The columns charts read, for ``rows`` (slicing a dozen columns, not all of them)."""
        return self._chart_frame.iloc[rows]

    def rows_of(self, item_id: str) -> npt.NDArray[np.intp]:
        """Positions of every row (every model) answering ``item_id``."""
        found = self._item_code.get_indexer([item_id])[0]
        if found < 0:
            return np.empty(0, dtype=np.intp)
        code = int(found)
        return self._item_order[self._item_bounds[code] : self._item_bounds[code + 1]]

    def pair_rows(self, benchmark: str, pair_id: str | None) -> npt.NDArray[np.intp]:
        """Positions of every row of one pair (all models and sides); empty without a pair."""
        return self._rows_by_pair.get((benchmark, pair_id or ""), np.empty(0, dtype=np.intp))

    def detail(self, row: int) -> ItemDetail:
        """The inspector's view of one row."""
        item_id = str(self.table.at[row, "item_id"])
        benchmark = str(self.table.at[row, "benchmark"])
        pair = self.table.at[row, "pair_id"]
        pair_id = None if pair is pd.NA else str(pair)
        return item_detail(self.table, row, self.rows_of(item_id), self.pair_rows(benchmark, pair_id))

    def resolver(self, benchmark: str) -> MediaResolver:
        """The media resolver of one benchmark (one with no roots finds nothing)."""
        return self._resolvers.get(benchmark) or MediaResolver(())

    def allowed_paths(self) -> list[str]:
        """Every media root, for the web server's allow-list (and nothing else)."""
        roots = {str(r) for resolver in self._resolvers.values() for r in resolver.roots}
        return sorted(roots)

    def benchmarks(self) -> list[str]:
        """Benchmark ids present in the table, in registry order."""
        if self._benchmarks is None:  # the distinct values made text, not a million rows
            present = {str(b) for b in self.table["benchmark"].dropna().unique()}
            self._benchmarks = [b for b in benchmarks.REGISTRY if b in present]
        return list(self._benchmarks)


def load_manifest(path: Path, *, cache_dir: Path | None = None, progress: Progress | None = None) -> Catalog:
    """Load every file a sample manifest lists (paths in it are relative to its folder)."""
    manifest = read_object(path)
    base = path.parent
    spec = manifest.get("benchmarks")
    if not isinstance(spec, dict):
        raise InputError(path, "expected an object", field="benchmarks")
    sources: list[Source] = []
    roots: dict[str, list[Path]] = {}
    for bench_id, entry in spec.items():
        if not isinstance(entry, dict):
            raise InputError(path, "expected an object", record=f"benchmark {bench_id!r}")
        sources.extend(_manifest_sources(path, base, bench_id, entry))
        if isinstance(entry.get("media_root"), str):
            roots[bench_id] = [base / entry["media_root"]]
    return load_sources(sources, roots, cache_dir=cache_dir, progress=progress)


def _manifest_sources(path: Path, base: Path, bench_id: str, entry: dict[str, Any]) -> list[Source]:
    out = [Source(base / g, bench_id, "gold") for g in entry.get("gold", []) if isinstance(g, str)]
    for index, pred in enumerate(entry.get("predictions", [])):
        if not isinstance(pred, dict) or not isinstance(pred.get("path"), str):
            raise InputError(
                path, "expected an object with a 'path'", record=f"{bench_id} prediction {index}"
            )
        gold = pred.get("gold")
        out.append(
            Source(
                base / pred["path"],
                bench_id,
                "predictions",
                task=pred.get("task"),
                model=pred.get("model"),
                gold=base / gold if isinstance(gold, str) else None,
            )
        )
    return out


def load_paths(
    paths: Sequence[Path],
    *,
    gold: Sequence[Path] = (),
    media_roots: Mapping[str, Sequence[Path]] | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> Catalog:
    """Load user files of any benchmarks, telling each file's kind from its content.

    ``gold`` marks files as gold whatever they look like; a path that is a manifest loads it.
    ``cache_dir`` and ``progress``: as for :func:`load_sources`.
    """
    sources: list[Source] = []
    errors: list[str] = []
    roots = {k: list(v) for k, v in (media_roots or {}).items()}
    digests = catalog_cache.Digests()
    warm = _may_warm(paths, cache_dir, digests)
    pool: ProcessPoolExecutor | None = None
    unnamed: list[NoBenchmarkNamed] = []
    try:
        for path in [*paths, *gold]:
            try:
                found = catalog_cache.detect(path, cache_dir, digests) if cache_dir else detect(path)
            except NoBenchmarkNamed as exc:  # decided below, once every gold file is known
                unnamed.append(exc)
                continue
            except InputError as exc:
                errors.append(exc.line())
                continue
            except OSError as exc:  # unreadable (permissions, a broken link): listed, the rest loads
                errors.append(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})")
                continue
            if found.role == "manifest":
                manifest = load_manifest(path, cache_dir=cache_dir, progress=progress)
                return _merge_manifest(manifest, paths, gold, roots)
            role: Role = "gold" if path in gold else found.role
            sources.append(Source(path, found.benchmark, role, task=found.task, find_gold=True))
            if warm and pool is None and sum(s.role == "predictions" for s in sources) == 2:
                pool = _start_pool()  # they will load in workers: started now, while the rest is told apart
        sources.extend(_with_the_only_gold(unnamed, sources, errors))
        catalog = load_sources(sources, roots, cache_dir=cache_dir, progress=progress, digests=digests,
                               pool=pool)
    finally:
        if pool is not None:
            pool.shutdown(wait=False)  # its workers exit on their own while the table is put to use
    catalog.errors[:0] = errors
    return catalog


def _with_the_only_gold(unnamed: list[NoBenchmarkNamed], sources: list[Source], errors: list[str]
                        ) -> list[Source]:
    """lmms-eval samples files as predictions of the one benchmark whose gold they came with.

    Their ``doc_id`` joins that gold's rows. With the gold of no such benchmark, or of several,
    each stays an error that says how to name its benchmark.
    """
    readers = {s.benchmark for s in sources if s.role == "gold"
               and "lmms-eval" in benchmarks.get(s.benchmark).HARNESS_FORMATS}
    if len(readers) != 1:
        errors.extend(exc.line() for exc in unnamed)
        return []
    (bench_id,) = readers
    return [Source(Path(exc.path), bench_id, "predictions", find_gold=True) for exc in unnamed]


def _may_warm(paths: Sequence[Path], cache_dir: Path | None, digests: catalog_cache.Digests) -> bool:
    """Whether to start the worker processes while the files are told apart (:func:`_start_pool`).

    Each worker takes most of a second to start and import the loaders; begun as soon as a second
    prediction file is told apart, that overlaps the rest of detection. Not for files detected
    before (most likely a restart from the cache, where workers would only take the cores from
    it), and never for a load without a cache folder, which loads in this process.
    """
    return cache_dir is not None and len(paths) > 1 and not catalog_cache.all_detected_before(
        paths, cache_dir, digests)


def _start_pool() -> ProcessPoolExecutor:
    """The worker processes of :func:`_load_in_workers`, each started and importing the loaders."""
    workers = max(1, min(os.cpu_count() or 1, _WORKERS))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    for _ in range(workers):
        pool.submit(_imported)
    return pool


def _imported() -> None:
    """Nothing: run in a new worker, its arrival has imported this module and the loaders."""


def _merge_manifest(
    catalog: Catalog, paths: Sequence[Path], gold: Sequence[Path], roots: dict[str, list[Path]]
) -> Catalog:
    if len(paths) + len(gold) > 1:
        catalog.errors.append("a manifest was given with other files: only the manifest was loaded")
    for bench_id, extra in roots.items():
        catalog.media_roots[bench_id] = (*extra, *catalog.media_roots.get(bench_id, ()))
    c = catalog
    return Catalog(c.table, c.findings, c.errors, c.media_roots, c.files, c.cache_entry, c.saving)


SAMPLE_MANIFEST = Path(__file__).resolve().parents[2] / "samples" / "manifest.json"
"""The bundled samples, served when no file is given."""


def start_loading(
    paths: Sequence[Path],
    *,
    gold: Sequence[Path] = (),
    media_roots: Mapping[str, Sequence[Path]] | None = None,
    cache_dir: Path | None = None,
) -> Callable[[], Catalog]:
    """Load in another process while this one does other start-up work; call the result to wait.

    ``halluscope serve`` imports Gradio (seconds) while the files load: on two cores the two
    overlap, which keeps a 100,000-row cold start within its budget. Errors reach the caller.
    The loading process prints its progress on stderr. With ``cache_dir`` it hands the table
    over through the cache entry (memory-mapped here) instead of pickling a million rows.
    """
    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = executor.submit(
        _load_parts, list(paths), list(gold), {k: list(v) for k, v in (media_roots or {}).items()}, cache_dir
    )

    def wait() -> Catalog:
        try:
            table, findings, errors, roots, files, entry = future.result()
        finally:
            executor.shutdown()
        if table is None:
            restored = catalog_cache.restore(entry) if entry is not None else None
            if restored is None:  # the entry vanished between the two processes: load here
                return load_paths(paths, gold=gold, media_roots=media_roots, progress=print_progress)
            table = _mark_flagged(restored[0], findings)
        return Catalog(table, findings, errors, roots, files, entry)

    return wait


def print_progress(message: str) -> None:
    """Progress of loading, one line on stderr."""
    print(f"halluscope: {message}", file=sys.stderr, flush=True)


def _load_parts(
    paths: list[Path], gold: list[Path], roots: dict[str, list[Path]], cache_dir: Path | None
) -> tuple[
    pd.DataFrame | None,
    dict[str, list[Finding]],
    list[str],
    dict[str, tuple[Path, ...]],
    dict[str, list[Path]],
    Path | None,
]:
    catalog = load_paths(paths, gold=gold, media_roots=roots, cache_dir=cache_dir, progress=print_progress)
    entry = catalog.saved_entry()  # the table is handed over through it: wait for the write
    table = None if entry is not None else catalog.table
    return table, catalog.findings, catalog.errors, catalog.media_roots, catalog.files, entry


def load_sources(
    sources: Sequence[Source],
    media_roots: Mapping[str, Sequence[Path]],
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    digests: catalog_cache.Digests | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> Catalog:
    """Load files whose kind is known; collect every error instead of stopping at the first.

    ``cache_dir``: keep the loaded table there, keyed by the files' content, and reuse it when
    the same files are loaded again (:mod:`analysis.load.catalog_cache`). ``progress`` is told what
    is being read, file by file. ``digests``: file digests already taken (by detection).
    ``pool``: worker processes already started for the files (the caller shuts it down).

    A table loaded from the files is written to the cache behind the load: the catalog comes back
    as soon as it can be browsed, and :meth:`Catalog.saved_entry` waits for the write (the
    entry is renamed into place whole, so a start meanwhile simply loads the files again).
    """
    say = progress or (lambda _message: None)
    gold_by_bench: dict[str, list[Source]] = {}
    for source in sources:
        if source.role == "gold":
            gold_by_bench.setdefault(source.benchmark, []).append(source)
    start = time.perf_counter()
    entry = None
    if cache_dir is not None:
        entry = catalog_cache.entry_path(cache_dir, catalog_cache.catalog_key(sources, digests))
    restored = catalog_cache.restore(entry) if entry is not None else None
    if restored is not None:
        table, errors = restored
        unreadable: set[Path] = set()  # a cached set of files loaded the same way before
        took = time.perf_counter() - start
        say(f"{len(table):,} rows from the cache of {len(sources)} files ({took:.1f} s)")
    saving = None
    if restored is None:
        table, errors, unreadable = _load_tables(sources, gold_by_bench, say, cache_dir, pool)
        say(f"{len(table):,} rows from {len(sources)} files in {time.perf_counter() - start:.1f} s")
        if entry is not None:  # written behind the load (I/O, mostly without the GIL)
            saving = _save_behind(entry, table, errors, say)
    roots = {b: tuple(Path(p) for p in r) for b, r in media_roots.items()}
    # audit only the gold files that loaded: a bad one is listed once, by its loading error
    readable = {b: [g for g in gs if g.path not in unreadable] for b, gs in gold_by_bench.items()}
    findings = _audit({b: gs for b, gs in readable.items() if gs}, roots, errors)
    files: dict[str, list[Path]] = {}
    for source in sources:
        if source.role in ("gold", "predictions") and source.path not in files.get(source.benchmark, []):
            files.setdefault(source.benchmark, []).append(source.path)
    cached = entry if restored is not None else None
    return Catalog(_mark_flagged(table, findings), findings, errors, roots, files, cached, saving)


def _save_behind(entry: Path, table: pd.DataFrame, errors: list[str], say: Progress) -> Future[Path | None]:
    """Start writing the catalog cache entry in a thread of its own; say where once it is written.

    The thread is not a daemon: the interpreter finishes the write before it exits.
    """
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="halluscope-cache")
    saved = pool.submit(catalog_cache.save, entry, table.copy(deep=False), list(errors))
    pool.shutdown(wait=False)  # the write still runs; the thread ends with it

    def done(future: Future[Path | None]) -> None:
        if not future.cancelled() and future.exception() is None and future.result() is not None:
            say(f"cached for the next start: {future.result()}")

    saved.add_done_callback(done)
    return saved


def _mark_flagged(table: pd.DataFrame, findings: Mapping[str, list[Finding]]) -> pd.DataFrame:
    """Set ``_flagged`` on the rows of every item an audit finding names (audits are never cached)."""
    flagged = {i for fs in findings.values() for f in fs for i in f.item_ids}
    table["_flagged"] = table["item_id"].isin(list(flagged)).to_numpy(dtype=bool)
    return table


def _load_tables(
    sources: Sequence[Source],
    gold_by_bench: Mapping[str, list[Source]],
    say: Progress,
    cache_dir: Path | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> tuple[pd.DataFrame, list[str], set[Path]]:
    """Every prediction file, then the gold-only rows: one prepared table, errors, unread gold files.

    With ``cache_dir``, prediction files load in worker processes (one per core) through
    per-file cache entries (:func:`_load_to_file`): files load side by side, a table comes back
    as a memory-mapped file instead of a pickle, and a file already loaded once (in another set
    of files) is not parsed again. The entries are then stacked a column at a time
    (:func:`_stack`), so the loading process never holds them all beside the stacked table.
    """
    errors: list[str] = []
    predictions = [s for s in sources if s.role == "predictions"]
    parts: list[Part | None]
    if cache_dir is not None and len(predictions) > 1:
        parts = _load_in_workers(predictions, gold_by_bench, cache_dir, errors, say, pool)
    else:
        parts = []
        for index, source in enumerate(predictions, 1):
            started = time.perf_counter()
            size = source.path.stat().st_size / 1e6 if source.path.is_file() else 0.0
            say(f"[{index}/{len(predictions)}] {source.benchmark} {source.path.name} ({size:,.1f} MB)...")
            table = _attempt(errors, source.path, _load_predictions, source, gold_by_bench)
            parts.append(table)
            rows = len(table) if table is not None else 0
            say(f"[{index}/{len(predictions)}] {rows:,} rows in {time.perf_counter() - started:.1f} s")
    covered = {(str(b), str(t)) for p in parts if p is not None for b, t in _bench_tasks(p)}
    unreadable: set[Path] = set()
    for bench_id, gold in gold_by_bench.items():
        say(f"gold of {bench_id} ({len(gold)} files)...")
        for one in gold:  # one by one: a bad gold file drops itself, not its benchmark's others
            part = _attempt(errors, one.path, _load_gold, bench_id, [one], covered)
            parts.append(part)
            if part is None:
                unreadable.add(one.path)
    say("indexing...")
    stacked = _stack([p for p in parts if p is not None])
    if cache_dir is not None:  # only now: an entry pruned before its stack would be missing
        catalog_cache.prune_files(cache_dir, len(predictions))
    return _index(stacked), errors, unreadable


def _index(stacked: pd.DataFrame) -> pd.DataFrame:
    """``derive_columns(prepare(stacked))``, the search text made in a thread meanwhile.

    The search text is Arrow work without the GIL and the benchmarks' derived columns mostly
    Python: on two cores they go side by side.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        text = pool.submit(search_text, stacked)
        derived = derive_columns(stacked.copy(deep=False))  # reads only the item table's columns
        table = prepare(stacked, text=text.result())
    for name in derived.columns[len(stacked.columns):]:
        column = derived[name]
        keep_array = column.dtype == object or isinstance(column.dtype, pd.StringDtype)  # lists, text
        table[name] = column.array if keep_array else column.to_numpy()
    return table


Part = pd.DataFrame | Path
"""A loaded item table, or the per-file cache entry holding it (:func:`_load_to_file`)."""


def _stack(parts: Sequence[Part]) -> pd.DataFrame:
    """The parts as one item table, their text in single Arrow arrays; entries read a column at a time."""
    names = [_columns(p) for p in parts]
    first = names[0] if names else None
    if first is None or any(n != first for n in names):
        return concat_tables([_frame(p) for p in parts])
    return stack_columns(first, lambda name: [read_column(p, name) if isinstance(p, Path) else p[name]
                                                 for p in parts])


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
        futures = {
            pool.submit(_load_to_file, predictions[index], dict(gold_by_bench), cache_dir): index
            for index in order
        }
        for done, future in enumerate(as_completed(futures), 1):
            index = futures[future]
            source = predictions[index]
            loaded, problem, rows, took = future.result()
            if problem is not None:
                problems[index] = problem
            elif isinstance(loaded, Path) and entry_columns(loaded) is None:  # removed in between
                parts[index] = _attempt(errors, source.path, _load_predictions, source, gold_by_bench)
            else:
                parts[index] = loaded
            say(f"[{done}/{len(predictions)}] {source.benchmark} {source.path.name}: {rows:,} rows, "
                f"{took:.1f} s")
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
    source: Source, gold_by_bench: dict[str, list[Source]], cache_dir: Path
) -> tuple[Path | pd.DataFrame | None, str | None, int, float]:
    """In a worker: load one prediction file into its per-file cache entry (reused if there).

    Returns the entry (or the table itself when the cache cannot be written), the one-line
    error instead when the file cannot be loaded, the rows and the seconds it took.
    """
    start = time.perf_counter()
    digests = catalog_cache.Digests()
    candidates = [g for gold in gold_by_bench.values() for g in gold if g.benchmark == source.benchmark]
    entry = catalog_cache.file_entry(cache_dir, source, candidates, digests)
    cached = entry_rows(entry)
    if cached is not None:
        return entry, None, cached, time.perf_counter() - start
    errors: list[str] = []
    table = _attempt(errors, source.path, _load_predictions, source, gold_by_bench)
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


def _audit(
    gold_by_bench: Mapping[str, list[Source]], roots: Mapping[str, tuple[Path, ...]], errors: list[str]
) -> dict[str, list[Finding]]:
    findings: dict[str, list[Finding]] = {}
    for bench_id, gold in gold_by_bench.items():
        root = roots.get(bench_id, (None,))[0]
        paths = [g.path for g in gold]
        found = _attempt(errors, paths[0], _audit_one, bench_id, paths, root)
        if found is not None:
            findings[bench_id] = found
    return findings


def _audit_one(bench_id: str, paths: list[Path], root: Path | None) -> list[Finding]:
    return benchmarks.get(bench_id).audit(paths, media_root=root)


def _attempt(errors: list[str], path: Path, action: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """Run ``action``; keep a failure as one line and go on with the other files (None then)."""
    try:
        return action(*args, **kwargs)
    except InputError as exc:
        errors.append(exc.line())
    except Exception as exc:  # one broken module or file must not stop the app loading the others
        errors.append(f"{path}: could not be loaded ({type(exc).__name__}: {exc})")
    return None


def describe(found: Detected) -> str:
    """How a detected file is named in the app's file list."""
    task = f" {found.task}" if found.task else ""
    return f"{found.benchmark}{task} {found.role}"
