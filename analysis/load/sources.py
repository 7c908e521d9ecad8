"""What to load: the files of a manifest or a user's list, each with its benchmark, task and role.

The first step of the loading pipeline (``docs/architecture.md``): a manifest names its files; a
user's files are told apart by content (:mod:`analysis.load.detect`), and gold files are matched
to the prediction files of their benchmark when the files are read (:mod:`.read`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis import benchmarks
from analysis.errors import InputError
from analysis.files.readers import read_object
from analysis.load import catalog_cache
from analysis.load.detect import Detected, NoBenchmarkNamed, Role, detect


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


SAMPLE_MANIFEST = Path(__file__).resolve().parents[2] / "samples" / "manifest.json"
"""The bundled samples, served when no file is given."""


def _entry_sources(path: Path, base: Path, bench_id: str, entry: dict[str, Any]) -> list[Source]:
    out = [Source(base / g, bench_id, "gold") for g in entry.get("gold", []) if isinstance(g, str)]
    for index, pred in enumerate(entry.get("predictions", [])):
        if not isinstance(pred, dict) or not isinstance(pred.get("path"), str):
            raise InputError(
                path, "expected an object with a 'path'", record=f"{bench_id} prediction {index + 1}"
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


def manifest_sources(path: Path) -> tuple[list[Source], dict[str, list[Path]]]:
    """The files a sample manifest lists and the media root of each benchmark (paths relative to it)."""
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
        sources.extend(_entry_sources(path, base, bench_id, entry))
        if isinstance(entry.get("media_root"), str):
            roots[bench_id] = [base / entry["media_root"]]
    return sources, roots


@dataclass
class Told:
    """A user's files told apart: the sources, one line per file that could not be, or a manifest."""

    sources: list[Source] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    manifest: Path | None = None
    """A manifest among the files: it is loaded instead of them."""


def tell_apart(
    paths: Sequence[Path],
    gold: Sequence[Path],
    cache_dir: Path | None,
    digests: catalog_cache.Digests,
    *,
    ready: Callable[[], None] | None = None,
) -> Told:
    """Each file's benchmark, task and role, from its content (remembered in ``cache_dir``).

    ``gold`` marks files as gold whatever they look like. A file that cannot be told apart is one
    line of :attr:`Told.errors`; lmms-eval samples that name no benchmark go to the one benchmark
    whose gold came with them (:func:`with_the_only_gold`). ``ready`` is called once, when a second
    prediction file is told apart (the loader starts its workers then).
    """
    told = Told()
    unnamed: list[NoBenchmarkNamed] = []
    for path in [*paths, *gold]:
        try:
            found = catalog_cache.detect(path, cache_dir, digests) if cache_dir else detect(path)
        except NoBenchmarkNamed as exc:  # decided below, once every gold file is known
            unnamed.append(exc)
            continue
        except InputError as exc:
            told.errors.append(exc.line())
            continue
        except OSError as exc:  # unreadable (permissions, a broken link): listed, the rest loads
            told.errors.append(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})")
            continue
        if found.role == "manifest":
            return Told(manifest=path)
        role: Role = "gold" if path in gold else found.role
        told.sources.append(Source(path, found.benchmark, role, task=found.task, find_gold=True))
        if ready is not None and sum(s.role == "predictions" for s in told.sources) == 2:
            ready()
    told.sources.extend(with_the_only_gold(unnamed, told.sources, told.errors))
    return told


def with_the_only_gold(
    unnamed: list[NoBenchmarkNamed], sources: list[Source], errors: list[str]
) -> list[Source]:
    """lmms-eval samples files as predictions of the one benchmark whose gold they came with.

    Their ``doc_id`` joins that gold's rows. With the gold of no such benchmark, or of several,
    each stays an error that says how to name its benchmark.
    """
    readers = {
        s.benchmark
        for s in sources
        if s.role == "gold" and "lmms-eval" in benchmarks.get(s.benchmark).HARNESS_FORMATS
    }
    if len(readers) != 1:
        errors.extend(exc.line() for exc in unnamed)
        return []
    (bench_id,) = readers
    return [Source(Path(exc.path), bench_id, "predictions", find_gold=True) for exc in unnamed]


def may_warm(paths: Sequence[Path], cache_dir: Path | None, digests: catalog_cache.Digests) -> bool:
    """Whether to start the worker processes while the files are told apart (:func:`.read.start_pool`).

    Each worker takes most of a second to start and import the loaders; begun as soon as a second
    prediction file is told apart, that overlaps the rest of detection. Not for files detected
    before (most likely a restart from the cache, where workers would only take the cores from
    it), and never for a load without a cache folder, which loads in this process.
    """
    return (
        cache_dir is not None
        and len(paths) > 1
        and not catalog_cache.all_detected_before(paths, cache_dir, digests)
    )


def describe(found: Detected) -> str:
    """How a detected file is named in the app's file list."""
    task = f" {found.task}" if found.task else ""
    return f"{found.benchmark}{task} {found.role}"
