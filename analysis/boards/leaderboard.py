"""Leaderboards: per benchmark board, every model by the official metrics, with n and intervals.

The numbers are exactly those of the benchmark's ``score`` (``halluscope score``), the intervals
exactly those of ``score --ci`` with the same ``n_boot`` and seed, and pairs of models are
tested on the ranking metric (:mod:`analysis.stats.paired`). Where gold corrections exist, the
corrected numbers stand beside the official ones. Pure data: the app and the report render it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Benchmark, Board
from analysis.stats.clusters import ClusterStats
from analysis.stats.intervals import LEVEL, N_BOOT, SEED, Interval, intervals
from analysis.stats.metrics import MetricDict
from analysis.stats.paired import PairTest, compare_models


@dataclass(frozen=True)
class Entry:
    """One model's row of a board."""

    model: str
    n: int
    values: MetricDict
    """The board's metrics as ``score`` gives them."""
    intervals: dict[str, Interval]
    corrected: MetricDict | None = None
    """The same metrics against corrected gold; None when no gold of this board was corrected."""


@dataclass(frozen=True)
class Leaderboard:
    """One board: models ranked by its first metric, and the pairwise tests on that metric."""

    benchmark: str
    board: Board
    cluster: str
    entries: list[Entry]
    tests: list[PairTest] = field(default_factory=list)
    n_boot: int = N_BOOT
    seed: int = SEED
    level: float = LEVEL
    corrected_gold: bool = False
    """The entries carry corrected numbers: one without them (no gold of its rows was corrected)
    has its official numbers under corrected gold too (:meth:`corrected_values`)."""

    def corrected_values(self, entry: Entry) -> MetricDict | None:
        """``entry``'s numbers under corrected gold; None when the board has no corrected view."""
        if entry.corrected is not None:
            return entry.corrected
        return entry.values if self.corrected_gold else None

    @property
    def ranked_by(self) -> str:
        """The metric the models are ranked and tested on."""
        return ranking_metric(self.board, self.entries)

    def beats(self, model: str) -> list[str]:
        """Models this one is significantly better than (Holm-corrected) on the ranking metric."""
        out = []
        for t in self.tests:
            if not t.significant or t.difference is None or t.difference == 0:
                continue
            if t.a == model and t.difference > 0:
                out.append(t.b)
            elif t.b == model and t.difference < 0:
                out.append(t.a)
        return out


def ranking_metric(board: Board, entries: list[Entry]) -> str:
    """The board's first metric that some model has (STH's score is null without an embedder)."""
    for metric in board.metrics:
        if any(e.values.get(metric) is not None for e in entries):
            return metric
    return board.metrics[0]


def _scope_values(report: Any, scope: tuple[str, str] | None) -> MetricDict:
    if scope is None:
        return dict(report["overall"])
    return dict(report["groups"].get(scope[0], {}).get(scope[1], {}))


def _scope_ci(ci: dict[str, Any], scope: tuple[str, str] | None) -> dict[str, Interval]:
    if scope is None:
        return dict(ci["overall"])
    return dict(ci["groups"].get(scope[0], {}).get(scope[1], {}))


def _n(values: MetricDict) -> int:
    if "n" in values:
        return int(values["n"] or 0)
    return int(values.get("n_cf") or 0) + int(values.get("n_cs") or 0)


def models_of(rows: pd.DataFrame) -> list[str]:
    """Model names present in ``rows`` (gold-only rows have none), in order of appearance."""
    names = rows["model"].astype(str)
    return [m for m in pd.unique(names) if m]


def board_rows(rows: pd.DataFrame, board: Board) -> pd.DataFrame:
    """The rows a board scores: its task's, where the board names one."""
    if board.task is None:
        return rows
    return rows[(rows["task"].astype(str) == board.task).to_numpy(dtype=bool)]


def build_board(
    bench: Benchmark,
    board: Board,
    rows: pd.DataFrame,
    *,
    corrected: pd.DataFrame | None = None,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    score: Callable[..., Any] | None = None,
) -> Leaderboard | None:
    """One board over the rows of one benchmark (all models); None when no model has a number."""
    rows = board_rows(rows, board)
    score = score or bench.score
    entries: list[Entry] = []
    stats: dict[str, ClusterStats] = {}
    unit = ""
    for model in models_of(rows):
        mine = rows[(rows["model"].astype(str) == model).to_numpy(dtype=bool)]
        values = _scope_values(score(mine, task=board.task), board.scope)
        if not values or _n(values) == 0:
            continue
        st = bench.cluster_stats(mine, task=board.task)
        unit = st.unit
        ci = _scope_ci(intervals(st, n_boot=n_boot, seed=seed), board.scope)
        fixed = _corrected(bench, board, corrected, model, score)
        entries.append(
            Entry(
                model,
                _n(values),
                {m: values.get(m) for m in board.metrics},
                {m: ci.get(m) for m in board.metrics},
                fixed,
            )
        )
        stats[model] = st
    if not entries:
        return None
    first = ranking_metric(board, entries)
    # ties by name: the order the files came in (the app's, the report's) never decides a rank
    entries.sort(key=lambda e: (e.values.get(first) is None, -(e.values.get(first) or 0.0), e.model))
    tests = compare_models(
        {e.model: stats[e.model] for e in entries}, first, board.scope, n_boot=n_boot, seed=seed
    )
    return Leaderboard(
        bench.NAME, board, unit, entries, tests, n_boot, seed, corrected_gold=corrected is not None
    )


def board_values(bench: Benchmark, board: Board, rows: pd.DataFrame) -> dict[str, MetricDict]:
    """Model -> the board's metrics on ``rows`` (one benchmark's, any models), as ``score`` gives them.

    Models with nothing scored on the board are left out.
    """
    rows = board_rows(rows, board)
    out: dict[str, MetricDict] = {}
    for model in models_of(rows):
        mine = rows[(rows["model"].astype(str) == model).to_numpy(dtype=bool)]
        values = _scope_values(bench.score(mine, task=board.task), board.scope)
        if values and _n(values):
            out[model] = {m: values.get(m) for m in board.metrics}
    return out


def _corrected(
    bench: Benchmark, board: Board, corrected: pd.DataFrame | None, model: str, score: Callable[..., Any]
) -> MetricDict | None:
    if corrected is None or "gold_corrected" not in corrected:
        return None
    mine = board_rows(corrected, board)
    mine = mine[(mine["model"].astype(str) == model).to_numpy(dtype=bool)]
    if not mine["gold_corrected"].to_numpy(dtype=bool).any():
        return None
    values = _scope_values(score(mine, task=board.task), board.scope)
    return {m: values.get(m) for m in board.metrics}


def leaderboards(
    table: pd.DataFrame,
    benchmark: str,
    *,
    corrected: pd.DataFrame | None = None,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> list[Leaderboard]:
    """Every board of ``benchmark`` that has models in ``table`` (rows of any benchmarks)."""
    bench = benchmarks.get(benchmark)
    rows = table[(table["benchmark"].astype(str) == bench.NAME).to_numpy(dtype=bool)]
    fixed = None
    if corrected is not None:
        fixed = corrected[(corrected["benchmark"].astype(str) == bench.NAME).to_numpy(dtype=bool)]
    out = []
    for board in bench.BOARDS:
        built = build_board(bench, board, rows, corrected=fixed, n_boot=n_boot, seed=seed)
        if built is not None:
            out.append(built)
    return out


def with_corrected(boards: list[Leaderboard], corrected: pd.DataFrame) -> list[Leaderboard]:
    """The same boards with each entry's corrected numbers (from ``apply_corrections`` rows)."""
    out = []
    for lb in boards:
        bench = benchmarks.get(lb.benchmark)
        rows = corrected[(corrected["benchmark"].astype(str) == bench.NAME).to_numpy(dtype=bool)]
        entries = [
            replace(e, corrected=_corrected(bench, lb.board, rows, e.model, bench.score)) for e in lb.entries
        ]
        out.append(replace(lb, entries=entries, corrected_gold=True))
    return out


def fmt(value: float | int | None, digits: int = 3) -> str:
    """A metric for people: 3 decimals, a dash for undefined."""
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # no "-0.000"


def fmt_interval(interval: Interval, digits: int = 3) -> str:
    """``[lo, hi]`` with 3 decimals, or a dash."""
    if interval is None:
        return "–"
    return f"[{fmt(interval[0], digits)}, {fmt(interval[1], digits)}]"
