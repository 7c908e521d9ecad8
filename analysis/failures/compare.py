"""Two runs compared item by item: the flip table, the paired difference per board, where A loses.

- The flip table counts the items both models were scored on by their two verdicts (both right,
  only A wrong, only B wrong, both wrong); each cell's items can be listed.
- Per board of the benchmark, the paired difference A - B of its ranking metric with a paired
  cluster bootstrap interval and an exact McNemar p value where the metric is an accuracy
  (:func:`analysis.stats.paired.compare_models`), Holm-corrected across the boards shown.
- Where A loses to B: on the items where exactly one of the two is right, the slices where A is the
  one right significantly less often than on the rest (:func:`analysis.failures.slices.find_slices`
  with "A right" as the verdict: the McNemar view of the difference, slice by slice).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from analysis.boards.leaderboard import fmt, fmt_interval, leaderboards
from analysis.failures.slices import Slice, find_slices
from analysis.query.flips import CELLS, KEYS, paired_rows, verdict_rows
from analysis.stats.intervals import N_BOOT, SEED, Interval
from analysis.stats.paired import holm


@dataclass(frozen=True)
class BoardDifference:
    """A - B on one board's ranking metric."""

    board: str
    metric: str
    a: float | None
    b: float | None
    difference: float | None
    interval: Interval
    test: str
    p: float | None
    p_holm: float | None = None


def flip_table(pairs: pd.DataFrame) -> dict[str, int]:
    """Counts of :data:`CELLS` over :func:`paired_rows`."""
    counts = pairs["cell"].value_counts()
    return {c: int(counts.get(c, 0)) for c in CELLS}


def board_differences(
    table: pd.DataFrame, benchmark: str, a: str, b: str, *, n_boot: int = N_BOOT, seed: int = SEED
) -> list[BoardDifference]:
    """A - B on every board where both models have items, Holm-corrected across those boards."""
    mine = table[table["model"].astype(str).isin([a, b]).to_numpy(dtype=bool)]
    found = []
    for lb in leaderboards(mine, benchmark, n_boot=n_boot, seed=seed):
        values = {e.model: e.values for e in lb.entries}
        test = next((t for t in lb.tests if {t.a, t.b} == {a, b}), None)
        if test is None:
            continue
        sign = 1.0 if test.a == a else -1.0
        interval = None if test.interval is None else sorted(sign * v for v in test.interval)
        diff = None if test.difference is None else sign * test.difference
        metric = test.metric
        found.append(
            BoardDifference(
                lb.board.title,
                metric,
                values[a].get(metric),
                values[b].get(metric),
                diff,
                interval,
                test.test,
                test.p,
            )
        )
    adjusted = holm([d.p for d in found])
    return [replace(d, p_holm=p) for d, p in zip(found, adjusted, strict=True)]


def where_a_loses(
    table: pd.DataFrame, benchmark: str, a: str, b: str, *, max_depth: int = 2, alpha: float = 0.05
) -> tuple[list[Slice], int]:
    """Slices of the discordant items where A is right significantly less often than elsewhere.

    The verdict tested is "A is the one right" on the items exactly one of the two got right; its
    rows are A's (so A's clusters and attributes); the model column says ``A vs B``.
    """
    pairs = paired_rows(table, a, b)
    discordant = pairs[pairs["a"] != pairs["b"]]
    rows = verdict_rows(table)
    rows = rows[(rows["model"].astype(str) == a).to_numpy(dtype=bool)].copy()
    rows["item_id"] = rows["item_id"].astype(str)
    rows["task"] = rows["task"].astype(str)
    rows = rows.drop_duplicates(list(KEYS), keep="first")
    keep = rows.merge(discordant[[*KEYS, "a"]], on=list(KEYS), how="inner", validate="one_to_one")
    if keep.empty:
        return [], 0
    keep["correct"] = keep["a"].to_numpy(dtype=bool)
    keep["model"] = f"{a} vs {b}"
    keep = keep.drop(columns=["a"])
    return find_slices(benchmark, keep, max_depth=max_depth, alpha=alpha)


@dataclass(frozen=True)
class Comparison:
    """Everything the app and the report show of A against B on one benchmark."""

    benchmark: str
    a: str
    b: str
    flips: dict[str, int]
    boards: list[BoardDifference]
    losses: list[Slice]
    """Where A loses to B (:func:`where_a_loses`)."""
    tested: int


def compare_runs(
    table: pd.DataFrame, benchmark: str, a: str, b: str, *, n_boot: int = N_BOOT, seed: int = SEED
) -> Comparison:
    """:class:`Comparison` of ``a`` against ``b`` on ``benchmark``'s rows of ``table``."""
    rows = table[(table["benchmark"].astype(str) == benchmark).to_numpy(dtype=bool)]
    losses, tested = where_a_loses(rows, benchmark, a, b)
    return Comparison(
        benchmark,
        a,
        b,
        flip_table(paired_rows(rows, a, b)),
        board_differences(rows, benchmark, a, b, n_boot=n_boot, seed=seed),
        losses,
        tested,
    )


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.2g}"


def difference_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """A comparison's paired differences as text: header (A and B by name), rows."""
    head = ["board", "metric", c.a, c.b, "A - B", "95% interval", "test", "p", "p (Holm)"]
    rows = [
        [
            d.board,
            d.metric,
            fmt(d.a),
            fmt(d.b),
            fmt(d.difference),
            fmt_interval(d.interval),
            d.test,
            _p(d.p),
            _p(d.p_holm),
        ]
        for d in c.boards
    ]
    return head, rows
