"""What each correction changes: every board under three golds, side by side.

The official gold, the corrected gold, and the official gold with the suspect items left out
(``docs/suspects.md``). Per board and model: the ranking metric under each, the model's rank
under each, and a paired test of official against corrected gold (McNemar, exact, on the model's
per-item verdicts: a correction changes nothing but which answers count as right). Per board:
Kendall's tau between the official ranking and each of the other two. Leaving suspects out
scores a subset of the items, so it has no paired test: its column says how far the board would
move if the suspects turned out wrong, before anyone has checked them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Board
from analysis.boards.leaderboard import Entry, board_values, fmt, ranking_metric
from analysis.stats.paired import mcnemar


@dataclass(frozen=True)
class Standing:
    """One model on one board under the three golds."""

    model: str
    official: float | None
    corrected: float | None
    without: float | None
    """Official gold, the suspect items left out."""
    rank: int
    rank_corrected: int
    rank_without: int
    changed: int
    """Items whose verdict for this model differs between official and corrected gold."""
    p: float | None
    """Exact McNemar p value, official against corrected verdicts (None: no verdict changed)."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {
            "model": self.model,
            "official": self.official,
            "corrected": self.corrected,
            "without_suspects": self.without,
            "rank": self.rank,
            "rank_corrected": self.rank_corrected,
            "rank_without_suspects": self.rank_without,
            "verdicts_changed": self.changed,
            "p": self.p,
        }


@dataclass(frozen=True)
class GoldChanges:
    """One board under three golds."""

    benchmark: str
    board: str
    metric: str
    corrections: int
    """Items of this board whose gold is corrected."""
    left_out: int
    """Suspect items of this board left out in the third column."""
    standings: list[Standing]
    tau_corrected: float | None
    """Kendall's tau-b between the official and the corrected ranking (None: under 2 models)."""
    tau_without: float | None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: the keys of ``score --db --corrected --json``'s ``gold_changes`` entries."""
        return {
            "benchmark": self.benchmark,
            "board": self.board,
            "metric": self.metric,
            "corrections": self.corrections,
            "suspects_left_out": self.left_out,
            "kendall_tau_corrected": self.tau_corrected,
            "kendall_tau_without_suspects": self.tau_without,
            "models": [s.as_dict() for s in self.standings],
        }


def gold_changes(
    official: pd.DataFrame, corrected: pd.DataFrame, benchmark: str, suspects: Collection[str]
) -> list[GoldChanges]:
    """Every board of ``benchmark`` under the three golds.

    ``official``: the rows as loaded; ``corrected``: the same rows under corrected gold
    (:func:`analysis.review.corrected.corrected_view`, row for row); ``suspects``: the item ids
    left out in the third column.
    """
    bench = benchmarks.get(benchmark)
    mine = (official["benchmark"].astype(str) == bench.NAME).to_numpy(dtype=bool)
    rows, fixed = official[mine], corrected[mine]
    suspect = rows["item_id"].astype(str).isin(set(suspects)).to_numpy(dtype=bool)
    out = []
    for board in bench.BOARDS:
        before = board_values(bench, board, rows)
        if not before:
            continue
        after = board_values(bench, board, fixed)
        kept = board_values(bench, board, rows[~suspect])
        metric = ranking_metric(board, [Entry(m, 0, v, {}) for m, v in before.items()])
        models = sorted(before)
        values = {m: before[m].get(metric) for m in models}
        after_v = {m: after.get(m, {}).get(metric) for m in models}
        kept_v = {m: kept.get(m, {}).get(metric) for m in models}
        ranks = [_ranks(v) for v in (values, after_v, kept_v)]
        on_task = _on_board(rows, board)
        on_board = rows[on_task]
        standings = []
        for m in models:
            changed, p = _verdict_test(on_board, fixed[on_task], m)
            places = (ranks[0][m], ranks[1][m], ranks[2][m])
            standings.append(Standing(m, values[m], after_v[m], kept_v[m], *places, changed, p))
        standings.sort(key=lambda s: (s.rank, s.model))
        board_fixed = fixed[on_task]
        touched = board_fixed["gold_corrected"].to_numpy(dtype=bool)
        corrections = int(board_fixed.loc[touched, "item_id"].nunique())
        left_out = int(on_board.loc[suspect[on_task], "item_id"].nunique())
        out.append(
            GoldChanges(
                bench.NAME, board.title, metric, corrections, left_out, standings,
                _tau(values, after_v), _tau(values, kept_v),
            )
        )  # fmt: skip
    return out


def _on_board(rows: pd.DataFrame, board: Board) -> npt.NDArray[np.bool_]:
    """The rows a board's numbers come from: its task's, or those of the task group it scores."""
    task = board.task
    if task is None and board.scope is not None and board.scope[0] == "task":
        task = board.scope[1]
    if task is None:
        return np.ones(len(rows), dtype=bool)
    return (rows["task"].astype(str) == task).to_numpy(dtype=bool)


def _ranks(values: dict[str, float | None]) -> dict[str, int]:
    """1 = best; ties share the better rank; an undefined value ranks last."""
    order = sorted(values, key=lambda m: (values[m] is None, -(values[m] or 0.0), m))
    out: dict[str, int] = {}
    for place, m in enumerate(order, start=1):
        tied = [o for o in order[: place - 1] if values[o] is not None and values[o] == values[m]]
        out[m] = out[tied[0]] if tied else place
    return out


def _tau(a: dict[str, float | None], b: dict[str, float | None]) -> float | None:
    both = [m for m in a if a[m] is not None and b.get(m) is not None]
    if len(both) < 2:
        return None
    from scipy.stats import kendalltau  # here, not at the top: scipy.stats is a second of the app's start

    tau = kendalltau([a[m] for m in both], [b[m] for m in both]).statistic
    return None if tau != tau else float(tau)  # NaN: one side is constant


def _verdict_test(rows: pd.DataFrame, fixed: pd.DataFrame, model: str) -> tuple[int, float | None]:
    """(verdicts that changed, exact McNemar p) of one model, official against corrected gold."""
    mine = (rows["model"].astype(str) == model).to_numpy(dtype=bool) & rows["scored"].to_numpy(dtype=bool)
    a = rows.loc[mine, "correct"].astype("boolean").fillna(False)
    b = fixed.loc[mine, "correct"].astype("boolean").fillna(False)
    changed = int((a != b).sum())
    if not changed:
        return 0, None
    p, _ = mcnemar(a.astype(bool), b.astype(bool))
    return changed, p


def changes_html(changes: Sequence[GoldChanges]) -> str:
    """The comparison as HTML tables (the Overview and the report)."""
    parts = []
    for c in changes:
        head = (
            f"<p class='hs-meta'>{escape(c.benchmark)} · {escape(c.board)} · {escape(c.metric)}: "
            f"{c.corrections} corrected item(s), {c.left_out} suspect item(s) left out in the last "
            f"column · Kendall's tau against the official ranking: corrected {_fmt_tau(c.tau_corrected)}, "
            f"without suspects {_fmt_tau(c.tau_without)}</p>"
        )
        rows = "".join(
            f"<tr><td>{escape(s.model)}</td><td>{fmt(s.official)}</td>"
            f"<td>{fmt(s.corrected)} {_move(s.rank, s.rank_corrected)}</td>"
            f"<td>{fmt(s.without)} {_move(s.rank, s.rank_without)}</td>"
            f"<td>{s.changed}</td><td>{'–' if s.p is None else f'{s.p:.3g}'}</td></tr>"
            for s in c.standings
        )
        parts.append(
            head + "<table class='hs-changes'><thead><tr><th>model</th><th>official</th><th>corrected</th>"
            "<th>without suspects</th><th>verdicts changed</th><th>McNemar p</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    return "".join(parts)


def _fmt_tau(tau: float | None) -> str:
    return "–" if tau is None else f"{tau:.3f}"


def _move(before: int, after: int) -> str:
    """``(#2 → #1)`` where the rank moved, else ``(#2)``."""
    return f"(#{before} → #{after})" if after != before else f"(#{before})"
