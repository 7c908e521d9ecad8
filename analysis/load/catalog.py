"""Everything the app shows, loaded once: one item table over all files, audit findings, load errors.

The loading pipeline (``docs/architecture.md``): :mod:`.sources` says what to load (a manifest, or
a user's files told apart by content), :mod:`.read` reads them (worker processes, per-file cache
entries), this module restores or writes the whole table's cache entry (:mod:`.catalog_cache`),
derives the columns filters and charts read, and audits the gold (:mod:`.audit`). The result is
:class:`Loaded`; the process that serves it indexes it once, as a :class:`Catalog`.

A bad file never stops the rest: its loader's one-line message (``InputError.line()``) is kept in
:attr:`Loaded.errors` and shown in the app, and every other file loads.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Finding
from analysis.charts.cells import ChartCells
from analysis.charts.common import chart_columns, derive_columns
from analysis.files.media import MediaResolver
from analysis.load import catalog_cache
from analysis.load.audit import audit_gold, mark_flagged
from analysis.load.read import Progress, read_tables, start_pool
from analysis.load.sources import SAMPLE_MANIFEST, Source, manifest_sources, may_warm, tell_apart
from analysis.query import Filters, ItemDetail, filter_rows, item_detail, prepare, search_text
from analysis.table.groups import group_indices

__all__ = [
    "SAMPLE_MANIFEST",
    "Catalog",
    "Loaded",
    "Progress",
    "Source",
    "load_manifest",
    "load_paths",
    "load_sources",
    "print_progress",
    "start_loading",
]


_VIEWS_KEPT = 8
"""Filtered views a catalog remembers (:meth:`Catalog.rows_for`)."""


@dataclass
class Loaded:
    """What loading gives: the table and what was found on the way (not yet indexed)."""

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


@dataclass
class Catalog(Loaded):
    """The loaded data the app browses, indexed once, in the process that serves it; never changed.

    The indexes: each item's rows, each pair's rows, the media resolvers, the pre-grouped chart
    counts, the last few filtered views.
    """

    @classmethod
    def of(cls, loaded: Loaded) -> Catalog:
        """Index ``loaded`` (the table is not copied)."""
        return cls(
            loaded.table,
            loaded.findings,
            loaded.errors,
            loaded.media_roots,
            loaded.files,
            loaded.cache_entry,
            loaded.saving,
        )

    def __post_init__(self) -> None:
        # The item and pair indexes are made when an item is first opened, not before the first
        # page (a fifth of a second at a million rows): the lock makes them once for every thread.
        self._index_lock = threading.Lock()
        self._items: tuple[pd.Index, npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None
        self._pairs: dict[tuple[str, str], npt.NDArray[np.intp]] | None = None
        self._resolvers = {
            b: MediaResolver(r, benchmarks.get(b).MEDIA_ALIASES) for b, r in self.media_roots.items()
        }
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
        ids, order, bounds = self._item_index()
        found = ids.get_indexer(pd.Index([item_id], dtype="string"))[0]
        if found < 0:
            return np.empty(0, dtype=np.intp)
        code = int(found)
        return order[bounds[code] : bounds[code + 1]]

    def pair_rows(self, benchmark: str, pair_id: str | None) -> npt.NDArray[np.intp]:
        """Positions of every row of one pair (all models and sides); empty without a pair."""
        return self._pair_index().get((benchmark, pair_id or ""), np.empty(0, dtype=np.intp))

    def _item_index(self) -> tuple[pd.Index, npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The item ids, the rows in item order, and where each item's rows start in it."""
        with self._index_lock:
            if self._items is None:
                # One sort instead of 100,000 small arrays: an item's rows are a slice of the order.
                codes, uniques = pd.factorize(self.table["item_id"])
                order = np.argsort(codes, kind="stable").astype(np.intp)
                bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1)).astype(np.intp)
                # An Index finds an id through its hash table (built on first use), not a Python dict.
                self._items = (pd.Index(uniques, dtype="string"), order, bounds)
            return self._items

    def _pair_index(self) -> dict[tuple[str, str], npt.NDArray[np.intp]]:
        """(benchmark, pair id) -> the pair's rows."""
        with self._index_lock:
            if self._pairs is None:
                paired = np.flatnonzero((self.table["pair_id"].fillna("") != "").to_numpy(dtype=bool))
                keys = self.table[["benchmark", "pair_id"]].iloc[paired]  # two columns, not the whole table
                by_pair = group_indices(keys, list(keys.columns))
                self._pairs = {(k[0], k[1]): paired[v] for k, v in by_pair.items()}
            return self._pairs

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
    return Catalog.of(_manifest(path, cache_dir, progress))


def load_paths(
    paths: Sequence[Path],
    *,
    gold: Sequence[Path] = (),
    media_roots: Mapping[str, Sequence[Path]] | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    apart: bool = False,
) -> Catalog:
    """Load user files of any benchmarks, telling each file's kind from its content.

    ``gold`` marks files as gold whatever they look like; a path that is a manifest loads it.
    ``cache_dir`` and ``progress``: as for :func:`load_sources`. ``apart``: parse even a single
    prediction file in a worker process (with ``cache_dir``), leaving this process's cores to the
    caller's other work (:func:`start_loading`).
    """
    return Catalog.of(_paths(paths, gold, media_roots, cache_dir, progress, apart))


def load_sources(
    sources: Sequence[Source],
    media_roots: Mapping[str, Sequence[Path]],
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> Catalog:
    """Load files whose kind is known (:func:`_sources`), indexed."""
    return Catalog.of(_sources(sources, media_roots, cache_dir=cache_dir, progress=progress))


def _manifest(path: Path, cache_dir: Path | None, progress: Progress | None, apart: bool = False) -> Loaded:
    sources, roots = manifest_sources(path)
    return _sources(sources, roots, cache_dir=cache_dir, progress=progress, apart=apart)


def _paths(
    paths: Sequence[Path],
    gold: Sequence[Path],
    media_roots: Mapping[str, Sequence[Path]] | None,
    cache_dir: Path | None,
    progress: Progress | None,
    apart: bool = False,
) -> Loaded:
    """:func:`load_paths` without the index."""
    roots = {k: list(v) for k, v in (media_roots or {}).items()}
    digests = catalog_cache.Digests()
    pool: list[ProcessPoolExecutor] = []
    warm = may_warm(paths, cache_dir, digests)
    try:
        # the worker processes start once a second prediction file is told apart, while the rest is
        ready = (lambda: pool.append(start_pool())) if warm else None
        told = tell_apart(paths, gold, cache_dir, digests, ready=ready)
        if told.manifest is not None:
            return _merge_manifest(_manifest(told.manifest, cache_dir, progress, apart), paths, gold, roots)
        loaded = _sources(
            told.sources,
            roots,
            cache_dir=cache_dir,
            progress=progress,
            digests=digests,
            pool=pool[0] if pool else None,
            apart=apart,
        )
    finally:
        for started in pool:
            started.shutdown(wait=False)  # its workers exit on their own while the table is put to use
    loaded.errors[:0] = told.errors
    return loaded


def _merge_manifest(
    loaded: Loaded, paths: Sequence[Path], gold: Sequence[Path], roots: dict[str, list[Path]]
) -> Loaded:
    if len(paths) + len(gold) > 1:
        loaded.errors.append("a manifest was given with other files: only the manifest was loaded")
    for bench_id, extra in roots.items():
        loaded.media_roots[bench_id] = (*extra, *loaded.media_roots.get(bench_id, ()))
    return loaded


def start_loading(
    paths: Sequence[Path],
    *,
    gold: Sequence[Path] = (),
    media_roots: Mapping[str, Sequence[Path]] | None = None,
    cache_dir: Path | None = None,
) -> Callable[[], Catalog]:
    """Load in a thread while this process does other start-up work; call the result to wait.

    ``halluscope serve`` imports Gradio (seconds) while the files load. The parsing itself runs
    in worker processes (:func:`analysis.load.read.read_tables`), so the loading thread mostly
    waits, and the two overlap on two cores. The table is stacked and indexed here, in the
    process that serves it: nothing is handed from one process to another, and the whole
    table's cache entry is written behind, while the app starts (a separate loading process
    used to write it first and have it read back: about 3 s of a million-row start). Errors
    reach the caller; progress goes to stderr.
    """
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="halluscope-load")
    future = pool.submit(
        load_paths,
        list(paths),
        gold=list(gold),
        media_roots={k: list(v) for k, v in (media_roots or {}).items()},
        cache_dir=cache_dir,
        progress=print_progress,
        apart=True,
    )
    pool.shutdown(wait=False)  # the load still runs; the thread ends with it
    return future.result


def print_progress(message: str) -> None:
    """Progress of loading, one line on stderr."""
    print(f"halluscope: {message}", file=sys.stderr, flush=True)


def _sources(
    sources: Sequence[Source],
    media_roots: Mapping[str, Sequence[Path]],
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    digests: catalog_cache.Digests | None = None,
    pool: ProcessPoolExecutor | None = None,
    apart: bool = False,
) -> Loaded:
    """Load files whose kind is known; collect every error instead of stopping at the first.

    ``cache_dir``: keep the loaded table there, keyed by the files' content, and reuse it when
    the same files are loaded again (:mod:`analysis.load.catalog_cache`). ``progress`` is told what
    is being read, file by file. ``digests``: file digests already taken (by detection).
    ``pool``: worker processes already started for the files (the caller shuts it down).

    A table loaded from the files is written to the cache behind the load: the catalog comes back
    as soon as it can be browsed, and :meth:`Loaded.saved_entry` waits for the write (the
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
        stacked, errors, unreadable = read_tables(
            sources, gold_by_bench, say, cache_dir, pool, apart=apart, digests=digests
        )
        table = _index(stacked)
        say(f"{len(table):,} rows from {len(sources)} files in {time.perf_counter() - start:.1f} s")
        if entry is not None:  # written behind the load (I/O, mostly without the GIL)
            saving = _save_behind(entry, table, errors, say)
    roots = {b: tuple(Path(p) for p in r) for b, r in media_roots.items()}
    # audit only the gold files that loaded: a bad one is listed once, by its loading error
    readable = {b: [g for g in gs if g.path not in unreadable] for b, gs in gold_by_bench.items()}
    findings = audit_gold({b: gs for b, gs in readable.items() if gs}, roots, errors)
    files: dict[str, list[Path]] = {}
    for source in sources:
        if source.role in ("gold", "predictions") and source.path not in files.get(source.benchmark, []):
            files.setdefault(source.benchmark, []).append(source.path)
    cached = entry if restored is not None else None
    return Loaded(mark_flagged(table, findings), findings, errors, roots, files, cached, saving)


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


def _index(stacked: pd.DataFrame) -> pd.DataFrame:
    """``derive_columns(prepare(stacked))``, the search text made in a thread meanwhile.

    The search text is Arrow work without the GIL and the benchmarks' derived columns mostly
    Python: on two cores they go side by side.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        text = pool.submit(search_text, stacked)
        derived = derive_columns(stacked.copy(deep=False))  # reads only the item table's columns
        table = prepare(stacked, text=text.result())
    for name in derived.columns[len(stacked.columns) :]:
        column = derived[name]
        keep_array = column.dtype == object or isinstance(column.dtype, pd.StringDtype)  # lists, text
        table[name] = column.array if keep_array else column.to_numpy()
    return table
