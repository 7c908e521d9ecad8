"""The registry: every benchmark halluscope knows, listed explicitly, looked up by id.

Importing it costs nothing heavy: the protocol (:mod:`analysis.benchmarks.base`, which imports
pandas) and each package load the first time a benchmark is asked for, so ``halluscope --help``
starts at once.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analysis.benchmarks.base import Benchmark, Finding, ScoreReport

PACKAGES = (
    "avhbench",
    "cmm",
    "vidhalluc",
    "cdh_bench",
    "detailverifybench",
)
"""The benchmark packages under ``analysis/benchmarks/``, in the order the app lists them: adding a
benchmark is one line here (and its package, case file and samples)."""


class _Registry(Mapping[str, "Benchmark"]):
    """Benchmark id -> module, each package imported the first time it is asked for.

    ``halluscope score <id>`` then imports that package alone: the other packages (and what they
    import) cost a few hundred milliseconds of a command that takes little more than a second.
    The id is the package's ``NAME`` (for the listed packages, their name with ``-`` for ``_``;
    the conformance test checks it). A module that lacks part of :class:`Benchmark` is refused
    when first asked for.
    """

    def __init__(self, packages: Sequence[str]) -> None:
        self._modules = {name.replace("_", "-"): f"analysis.benchmarks.{name}" for name in packages}
        self._loaded: dict[str, Benchmark] = {}
        self._names: dict[tuple[str, str], Any] = {}
        """(id, stem) -> a module of the package loaded alone by path, or None (no such file)."""

    def __getitem__(self, name: str) -> Benchmark:
        found = self._loaded.get(name)
        if found is None:
            found = _checked(importlib.import_module(self._modules[name]))
            self._loaded[name] = found
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._modules  # Mapping's own would look the package up, importing it

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def names(self, name: str) -> Any:
        """The package's ``names.py`` (id, tasks, parsers), read by path: the package is not imported.

        The module itself once it is imported, or when it has no ``names.py`` (a plugin's may not).
        """
        if name in self._loaded:
            return self._loaded[name]
        found = self._alone(name, "names")
        return self[name] if found is None else found

    def early(self, name: str) -> Any:
        """The package's ``early.py``, read by path (the package not imported); None if it has none.

        Its ``read(path)`` may start before the package is imported; its result goes to the
        package's ``score_file(path, ..., early=result)`` (``docs/adding-a-benchmark.md``).
        """
        return self._alone(name, "early")

    def _alone(self, name: str, stem: str) -> Any:
        """The module ``<package>/<stem>.py`` loaded by its path alone (None if the file is absent)."""
        key = (name, stem)
        if key not in self._names:
            spec = importlib.util.find_spec(self._modules[name])  # finds, does not import, the package
            folders = list(spec.submodule_search_locations or []) if spec is not None else []
            path = Path(folders[0]) / f"{stem}.py" if folders else None
            if path is None or not path.is_file():
                self._names[key] = None
                return None
            alone = importlib.util.spec_from_file_location(f"_halluscope_{stem}_{name}", path)
            assert alone is not None and alone.loader is not None
            module = importlib.util.module_from_spec(alone)
            sys.modules[alone.name] = module  # as an import would (a dataclass there looks itself up)
            alone.loader.exec_module(module)
            self._names[key] = module
        return self._names[key]

    def add(self, module: str) -> str:
        """Register the benchmark package ``module`` (a dotted name), last; returns its id."""
        bench = _checked(importlib.import_module(module))
        if bench.NAME in self._modules and self._modules[bench.NAME] != module:
            taken = self._modules[bench.NAME]
            raise ValueError(f"benchmark id {bench.NAME!r} is already registered ({taken})")
        self._modules[bench.NAME] = module
        self._loaded[bench.NAME] = bench
        return bench.NAME

    def remove(self, name: str) -> None:
        """Forget a benchmark added with :meth:`add` (the listed packages stay)."""
        self._modules.pop(name, None)
        self._loaded.pop(name, None)
        self._names = {key: module for key, module in self._names.items() if key[0] != name}


def _checked(module: object) -> Benchmark:
    from analysis.benchmarks.base import Benchmark

    if not isinstance(module, Benchmark):
        missing = [m for m in _protocol_members() if not hasattr(module, m)]
        raise TypeError(
            f"{getattr(module, '__name__', module)} is not a benchmark package: it lacks "
            f"{', '.join(missing)} (see analysis/benchmarks/base.py)"
        )
    return module


def _protocol_members() -> list[str]:
    from analysis.benchmarks.base import Benchmark

    return sorted(m for m in Benchmark.__dict__ if not m.startswith("_")) + sorted(
        a for a in Benchmark.__annotations__ if not a.startswith("_")
    )


REGISTRY: _Registry = _Registry(PACKAGES)
"""Every benchmark, in registry order."""


def register(module: str) -> str:
    """Add a benchmark package from outside ``analysis/benchmarks/`` (a plugin, or a test's toy).

    It then appears wherever the registry is looped over: scoring, the item table, the charts,
    the store, the app built afterwards. Returns its id.
    """
    return REGISTRY.add(module)


class UnknownBenchmark(KeyError):
    """A benchmark id that is not registered; the message suggests the closest one."""

    def __str__(self) -> str:
        return str(self.args[0])


def get(name: str) -> Benchmark:
    """Return the benchmark module registered as ``name`` (case-insensitive, ``_`` as ``-``)."""
    return REGISTRY[_key(name)]


def names(name: str) -> Any:
    """The id, ``TASKS``, ``TASK_REQUIRED`` and ``PARSERS`` of the benchmark ``name``, its package unimported.

    What the command line checks its options against before anything heavy loads (a mistyped
    ``--task`` is told at once); each package takes these names from its ``names.py``.
    """
    return REGISTRY.names(_key(name))


def early(name: str) -> Any:
    """The benchmark ``name``'s ``early.py``, its package unimported, or None (:meth:`_Registry.early`)."""
    return REGISTRY.early(_key(name))


def _key(name: str) -> str:
    """The registered id ``name`` means; :class:`UnknownBenchmark`, with the closest id, if none."""
    key = name.strip().lower().replace("_", "-")
    if key in REGISTRY:
        return key
    close = difflib.get_close_matches(key, list(REGISTRY), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UnknownBenchmark(f"unknown benchmark {name!r}{hint} (known: {', '.join(REGISTRY)})")


def __getattr__(name: str) -> Any:
    """The protocol's names, re-exported here, imported when first used."""
    if name in ("Benchmark", "Finding", "ScoreReport"):
        from analysis.benchmarks import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PACKAGES",
    "REGISTRY",
    "Benchmark",
    "Finding",
    "ScoreReport",
    "UnknownBenchmark",
    "early",
    "get",
    "names",
    "register",
]
