"""The registry: every benchmark halluscope knows, listed explicitly, looked up by id."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator, Mapping
from typing import cast

from analysis.benchmarks.base import Benchmark, Finding, ScoreReport


class _Registry(Mapping[str, Benchmark]):
    """Benchmark id -> module, each module imported the first time it is asked for.

    ``halluscope score cmm`` then imports CMM alone: the other four packages (and what they
    import) cost a few hundred milliseconds of a command that takes little more than a second.
    """

    def __init__(self, packages: dict[str, str]) -> None:
        self._packages = packages

    def __getitem__(self, name: str) -> Benchmark:
        module = importlib.import_module(f"analysis.benchmarks.{self._packages[name]}")
        return cast(Benchmark, module)

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


REGISTRY: Mapping[str, Benchmark] = _Registry(
    {
        "avhbench": "avhbench",
        "cmm": "cmm",
        "vidhalluc": "vidhalluc",
        "cdh-bench": "cdh_bench",
        "detailverifybench": "detailverifybench",
    }
)
"""Every benchmark, in registry order; the id is the module's ``NAME`` (a test checks it)."""


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


__all__ = ["REGISTRY", "Benchmark", "Finding", "ScoreReport", "UnknownBenchmark", "get"]
