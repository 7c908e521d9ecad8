"""What every benchmark module offers: the interface the registry and the CLI rely on.

A benchmark is a module (``analysis/benchmarks/<id>.py``) with the attributes and functions of
:class:`Benchmark`. ``tests/test_registry_conformance.py`` checks every registered module against
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict

import pandas as pd

from analysis.cluster_stats import ClusterStats
from analysis.metrics import MetricDict


class ScoreReport(TypedDict):
    """The JSON object ``halluscope score --json`` prints (see ``shared/spec/cli.md``)."""

    benchmark: str
    task: str | None
    parser: str
    n_scored: int
    n_skipped: int
    overall: MetricDict
    groups: dict[str, dict[str, MetricDict]]


Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One data problem found by an audit, from the data itself."""

    check: str
    """Kind of problem: ``conflicting-duplicate``, ``duplicate-record``, ``inverted-polarity``,
    ``malformed-options``, ``duplicate-options``, ``same-gold-both-sides``, ``missing-media``,
    ``unreadable-media``, ``question-mismatch``..."""
    where: str
    """How a person finds the item: a key, a pair id, a clip id."""
    detail: str
    """What is wrong, in a sentence."""
    severity: Severity = "warning"
    item_ids: tuple[str, ...] = ()
    """Item-table ids of the rows concerned, so the app can queue them for review."""

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form for ``halluscope audit --json``."""
        return {
            "check": self.check,
            "where": self.where,
            "detail": self.detail,
            "severity": self.severity,
            "item_ids": list(self.item_ids),
        }


@dataclass(frozen=True)
class Board:
    """One leaderboard of a benchmark: where its official metrics sit in a score report."""

    title: str
    task: str | None
    """The ``--task`` to score with (None where the benchmark has no task option)."""
    scope: tuple[str, str] | None
    """None for the report's ``overall``, else (group, key), e.g. ``("task", "qa")``."""
    metrics: tuple[str, ...]
    """The official metrics shown; the first ranks the models (higher is better)."""


class Benchmark(Protocol):
    """The interface of a benchmark module."""

    NAME: str
    """Registry id, as typed on the command line."""
    VERSION: str
    """Scoring version of this module; bump it when a score could change."""
    TASKS: tuple[str, ...]
    """Values ``--task`` accepts; empty when the benchmark has no task option."""
    TASK_REQUIRED: bool
    PARSERS: tuple[str, ...]
    """Parser names; the first is the default (``official`` where an official scorer exists)."""
    ALT_PARSER: str
    """The parser whose reading the item table keeps beside the default one."""
    BOARDS: tuple[Board, ...]
    """The leaderboards of the overview, in order (boards without models are left out)."""

    def load(
        self,
        predictions: Path,
        *,
        gold: Path | None = None,
        task: str | None = None,
        model: str | None = None,
    ) -> pd.DataFrame:
        """Read one prediction file (one model) into an item table."""
        ...

    def load_gold(self, paths: Sequence[Path]) -> pd.DataFrame:
        """Read gold files alone (no model) into an item table, so gold can be browsed."""
        ...

    def score(
        self, table: pd.DataFrame, *, task: str | None = None, parser: str | None = None
    ) -> ScoreReport:
        """Score an item table of one model exactly as ``cli.md`` describes."""
        ...

    def audit(self, paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
        """Find data problems in gold files (and their media, when a root is given)."""
        ...

    def cluster_stats(
        self, table: pd.DataFrame, *, task: str | None = None, parser: str | None = None
    ) -> ClusterStats:
        """Additive statistics of ``score``'s every metric, per cluster of related items.

        Summed over all clusters, ``ClusterStats.metrics`` gives exactly ``score``'s numbers
        (``tests/test_intervals.py``); the bootstrap of :mod:`analysis.intervals` resamples them.
        """
        ...


def resolve_parser(benchmark: str, parsers: Sequence[str], parser: str | None) -> str:
    """The parser to score with: ``parser``, else the benchmark's default (the first of ``parsers``).

    An unknown name is a ``ValueError`` that lists the known ones.
    """
    chosen = parser or parsers[0]
    if chosen not in parsers:
        raise ValueError(f"unknown parser {chosen!r} for {benchmark} (known: {', '.join(parsers)})")
    return chosen


def refuse_task(benchmark: str, task: str | None) -> None:
    """Raise ``ValueError`` when a task is given to a benchmark that has none."""
    if task is not None:
        raise ValueError(f"{benchmark} has no tasks (got {task!r})")
