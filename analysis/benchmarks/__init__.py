"""The registry: every benchmark halluscope knows, listed explicitly, looked up by id."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator, Mapping, Sequence
from typing import cast

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


class _Registry(Mapping[str, Benchmark]):
    """Benchmark id -> module, each package imported the first time it is asked for.

    ``halluscope score cmm`` then imports CMM alone: the other four packages (and what they
    import) cost a few hundred milliseconds of a command that takes little more than a second.
    The id is the package name with ``-`` for ``_`` (the conformance test checks it is ``NAME``).
    """

    def __init__(self, packages: Sequence[str]) -> None:
        self._packages = {name.replace("_", "-"): name for name in packages}

    def __getitem__(self, name: str) -> Benchmark:
        module = importlib.import_module(f"analysis.benchmarks.{self._packages[name]}")
        return cast(Benchmark, module)

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


REGISTRY: Mapping[str, Benchmark] = _Registry(PACKAGES)
"""Every benchmark, in registry order."""


class UnknownBenchmark(KeyError):
    """A benchmark id that is not registered; the message suggests the closest one."""

    def __str__(self) -> str:
        return str(self.args[0])


def get(name: str) -> Benchmark:
    """Return the benchmark module registered as ``name`` (case-insensitive, ``_`` as ``-``)."""
    key = name.strip().lower().replace("_", "-")
    if key in REGISTRY:
        return REGISTRY[key]
    close = difflib.get_close_matches(key, list(REGISTRY), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UnknownBenchmark(
        f"unknown benchmark {name!r}{hint} (known: {', '.join(REGISTRY)})"
    )


__all__ = ["PACKAGES", "REGISTRY", "Benchmark", "Finding", "ScoreReport", "UnknownBenchmark", "get"]
