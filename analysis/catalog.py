"""Everything the app shows, loaded once: one item table over all files, audit findings, load errors.

Files come either from a manifest (``samples/manifest.json``, written by the sample generator) or
from a list of paths a user gives ``halluscope serve``; then each file's benchmark, task and role
(gold or predictions) are read from its content (:mod:`analysis.detect`).

A bad file never stops the rest: its loader's one-line message (``InputError.line()``) is kept in
:attr:`Catalog.errors` and shown in the app, and every other file loads.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Finding
from analysis.charts import CHART_COLUMNS, derive_columns
from analysis.detect import Detected, Role, detect
from analysis.errors import InputError
from analysis.media import MediaResolver
from analysis.readers import read_object
from analysis.table import concat_tables
from analysis.views import ItemDetail, group_indices, item_detail, prepare

T = TypeVar("T")

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
    """The item table of every file, plus the derived columns of :func:`analysis.views.prepare`."""
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    """Audit findings per benchmark id."""
    errors: list[str] = field(default_factory=list)
    """One line per file that could not be loaded (or audited), naming file, record and field."""
    media_roots: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    """Folders media paths resolve against, per benchmark id."""
    files: dict[str, list[Path]] = field(default_factory=dict)
    """Every file loaded, per benchmark id (gold and predictions: corrected copies start here)."""

    def __post_init__(self) -> None:
        # One sort instead of 100,000 small arrays: an item's rows are a slice of ``_item_order``.
        codes, uniques = pd.factorize(self.table["item_id"])
        self._item_code = {str(u): i for i, u in enumerate(uniques)}
        self._item_order = np.argsort(codes, kind="stable").astype(np.intp)
        self._item_bounds = np.searchsorted(codes[self._item_order], np.arange(len(uniques) + 1))
        paired = np.flatnonzero((self.table["pair_id"].fillna("") != "").to_numpy(dtype=bool))
        self._rows_by_pair = {
            (k[0], k[1]): paired[v]
            for k, v in group_indices(self.table.iloc[paired], ["benchmark", "pair_id"]).items()
        }
        self._resolvers = {b: MediaResolver(r) for b, r in self.media_roots.items()}
        present = [c for c in CHART_COLUMNS if c in self.table]
        self._chart_frame = self.table[present]

    def chart_rows(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """The columns charts read, for ``rows`` (slicing a dozen columns, not all of them)."""
        return self._chart_frame.iloc[rows]

    def rows_of(self, item_id: str) -> npt.NDArray[np.intp]:
        """Positions of every row (every model) answering ``item_id``."""
        code = self._item_code.get(item_id)
        if code is None:
            return np.empty(0, dtype=np.intp)
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
        present = set(self.table["benchmark"].astype(str).unique())
        return [b for b in benchmarks.REGISTRY if b in present]


def load_manifest(path: Path) -> Catalog:
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
    return load_sources(sources, roots)


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
) -> Catalog:
    """Load user files of any benchmarks, telling each file's kind from its content.

    ``gold`` marks files as gold whatever they look like; a path that is a manifest loads it.
    """
    sources: list[Source] = []
    errors: list[str] = []
    roots = {k: list(v) for k, v in (media_roots or {}).items()}
    for path in [*paths, *gold]:
        try:
            found = detect(path)
        except InputError as exc:
            errors.append(exc.line())
            continue
        if found.role == "manifest":
            return _merge_manifest(load_manifest(path), paths, gold, roots)
        role: Role = "gold" if path in gold else found.role
        sources.append(Source(path, found.benchmark, role, task=found.task, find_gold=True))
    catalog = load_sources(sources, roots)
    catalog.errors[:0] = errors
    return catalog


def _merge_manifest(
    catalog: Catalog, paths: Sequence[Path], gold: Sequence[Path], roots: dict[str, list[Path]]
) -> Catalog:
    if len(paths) + len(gold) > 1:
        catalog.errors.append("a manifest was given with other files: only the manifest was loaded")
    for bench_id, extra in roots.items():
        catalog.media_roots[bench_id] = (*extra, *catalog.media_roots.get(bench_id, ()))
    return Catalog(catalog.table, catalog.findings, catalog.errors, catalog.media_roots, catalog.files)


SAMPLE_MANIFEST = Path(__file__).resolve().parents[1] / "samples" / "manifest.json"
"""The bundled samples, served when no file is given."""


def start_loading(
    paths: Sequence[Path],
    *,
    gold: Sequence[Path] = (),
    media_roots: Mapping[str, Sequence[Path]] | None = None,
) -> Callable[[], Catalog]:
    """Load in another process while this one does other start-up work; call the result to wait.

    ``halluscope serve`` imports Gradio (seconds) while the files load: on two cores the two
    overlap, which keeps a 100,000-row cold start within its budget. Errors reach the caller.
    """
    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = executor.submit(
        _load_parts, list(paths), list(gold), {k: list(v) for k, v in (media_roots or {}).items()}
    )

    def wait() -> Catalog:
        try:
            table, findings, errors, roots, files = future.result()
        finally:
            executor.shutdown()
        return Catalog(table, findings, errors, roots, files)

    return wait


def _load_parts(
    paths: list[Path], gold: list[Path], roots: dict[str, list[Path]]
) -> tuple[pd.DataFrame, dict[str, list[Finding]], list[str], dict[str, tuple[Path, ...]],
           dict[str, list[Path]]]:
    catalog = load_paths(paths, gold=gold, media_roots=roots)
    return catalog.table, catalog.findings, catalog.errors, catalog.media_roots, catalog.files


def load_sources(sources: Sequence[Source], media_roots: Mapping[str, Sequence[Path]]) -> Catalog:
    """Load files whose kind is known; collect every error instead of stopping at the first."""
    errors: list[str] = []
    tables: list[pd.DataFrame | None] = []
    gold_by_bench: dict[str, list[Source]] = {}
    for source in sources:
        if source.role == "gold":
            gold_by_bench.setdefault(source.benchmark, []).append(source)
    for source in sources:
        if source.role == "predictions":
            tables.append(_attempt(errors, source.path, _load_predictions, source, gold_by_bench))
    covered = {(str(b), str(t)) for t_ in tables if t_ is not None for b, t in _bench_tasks(t_)}
    for bench_id, gold in gold_by_bench.items():
        tables.append(_attempt(errors, gold[0].path, _load_gold, bench_id, gold, covered))
    roots = {b: tuple(Path(p) for p in r) for b, r in media_roots.items()}
    findings = _audit(gold_by_bench, roots, errors)
    flagged = {i for fs in findings.values() for f in fs for i in f.item_ids}
    table = prepare(concat_tables([t for t in tables if t is not None]), flagged)
    files: dict[str, list[Path]] = {}
    for source in sources:
        if source.role in ("gold", "predictions") and source.path not in files.get(source.benchmark, []):
            files.setdefault(source.benchmark, []).append(source.path)
    return Catalog(derive_columns(table), findings, errors, roots, files)


def _bench_tasks(table: pd.DataFrame) -> list[tuple[Any, Any]]:
    pairs = table[["benchmark", "task"]].astype(str).drop_duplicates()
    return list(pairs.itertuples(index=False, name=None))


def _load_predictions(source: Source, gold_by_bench: Mapping[str, list[Source]]) -> pd.DataFrame:
    bench = benchmarks.get(source.benchmark)
    if not source.find_gold:
        candidates = [source.gold] if source.gold is not None else []
    else:
        candidates = _gold_candidates(source, gold_by_bench.get(source.benchmark, []))
    if not candidates and source.task in bench.NEEDS_GOLD:
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


def _gold_candidates(source: Source, gold: Sequence[Source]) -> list[Path]:
    """Gold files a user's prediction file may go with: same benchmark and task, where it takes one."""
    if not benchmarks.get(source.benchmark).TAKES_GOLD:
        return []
    return [g.path for g in gold if g.task == source.task]


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
