"""The registry: every benchmark halluscope knows, listed explicitly, looked up by id."""

from __future__ import annotations

import difflib
import importlib
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

REGISTRY: dict[str, Benchmark] = {
    module.NAME: cast(Benchmark, module)
    for module in (importlib.import_module(f"analysis.benchmarks.{name}") for name in PACKAGES)
}


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
