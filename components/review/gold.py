"""What a reviewer is shown of the items: one gold everywhere, and nothing of it when blind.

:class:`ReviewerView` is the :class:`~components.browse.view.ItemView` of one signed-in reviewer,
built per request from the server's own identity; what it may show is that reviewer's
:class:`~analysis.review.access.Access` (the core decides, this view follows):

- a reviewer sees the **current** gold: corrected where a label corrected it, the official value
  beside it and a marker (:data:`MARK`) on the row; verdicts are recomputed against it, in the
  table, the inspector and every model's answer;
- a **blind** reviewer gets no gold, verdict, reading, model answer or audit flag in the table,
  only the question and their own votes in the inspector, no charts, and filters that would sort
  rows by correctness or by what the audit found (*wrong only*, *verdict depends on the parser*,
  *flagged by the audit*, search over answers) do nothing.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Any

import gradio as gr
import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.charts.common import chart_list
from analysis.query import Filters, ItemDetail, display_frame, filter_rows, item_detail
from analysis.review.corrected import corrected_view
from analysis.store import Identity
from components.browse.inspector import inspect_row
from components.browse.view import ItemView
from components.review.context import ReviewContext

MARK = "✎"
BLIND_CHARTS = "Charts are hidden in blind mode: every chart is drawn over gold."
BLIND_ANSWERS = (
    '<p class="hs-none">The models\' answers are hidden in blind mode: each is read against gold.</p>'
)
"""What the section of every model's answer says to a blind reviewer (it stood empty)."""


class ReviewerView(ItemView):
    """The items as ``who`` may see them (see the module docstring)."""

    def __init__(self, ctx: ReviewContext, who: Identity | None) -> None:
        super().__init__(ctx.catalog)
        self.ctx, self.who = ctx, who
        self.access = ctx.access(who)
        self.blind = not self.access.sees_gold

    def rows(self, filters: Filters) -> npt.NDArray[np.intp]:
        """The filtered rows; for a blind reviewer, filters over verdicts, answers, audit flags are dropped.

        *Wrong only* reads the verdicts against current gold (those the table shows), once a
        label store is open.
        """
        if not self.blind:
            if not filters.wrong_only or self.ctx.store is None:
                return super().rows(filters)
            rows = super().rows(replace(filters, wrong_only=False))
            if not rows.size:
                return rows
            correct = self.corrected(rows)["correct"]
            return rows[correct.eq(False).fillna(False).to_numpy(dtype=bool)]
        table = self.catalog.table
        rows = filter_rows(table, replace(self.access.filters(filters), search=""))
        needle = filters.search.strip().lower()
        searched = self.access.searched or ("item_id", "question")
        if needle and rows.size:
            sub = table.iloc[rows]
            text = sub[searched[0]].astype(str)
            for column in searched[1:]:
                text = text + " " + sub[column].fillna("").astype(str)
            rows = rows[text.str.lower().str.contains(needle, regex=False).to_numpy(dtype=bool)]
        return rows

    def corrected(self, positions: npt.NDArray[np.intp]) -> pd.DataFrame:
        """The rows at ``positions``, scored against current gold (index 0..n-1, same order)."""
        return corrected_view(self.catalog.table.iloc[positions], self.ctx.store).reset_index(drop=True)

    def frame(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """The table page: current gold with the official beside it, or (blind) no gold at all."""
        if self.blind:  # the columns themselves go: shown empty, they read as answers missing
            return display_frame(self.catalog.table, rows).drop(columns=list(self.access.hidden_columns))
        fixed = self.corrected(rows)
        frame = display_frame(fixed, np.arange(len(fixed), dtype=np.intp))
        frame["row"] = rows.astype(np.int64)
        changed = fixed["gold_corrected"].to_numpy(dtype=bool)
        if changed.any():
            official = fixed.loc[changed, "official_gold"].fillna("").astype(str).tolist()
            frame.loc[changed, "gold"] = [
                f"{MARK} {g} (was {o})" for g, o in zip(frame.loc[changed, "gold"], official, strict=True)
            ]
        return frame

    def detail(self, row: int) -> ItemDetail:
        """The inspector's item with current gold and the verdicts recomputed against it."""
        table = self.catalog.table
        same_item = self.catalog.rows_of(str(table.at[row, "item_id"]))
        pair = table.at[row, "pair_id"]
        pair_id = None if pair is pd.NA else str(pair)
        same_pair = self.catalog.pair_rows(str(table.at[row, "benchmark"]), pair_id)
        positions = np.unique(np.concatenate([[row], same_item, same_pair]).astype(np.intp))
        fixed = self.corrected(positions)
        local = {int(p): i for i, p in enumerate(positions)}
        detail = item_detail(
            fixed,
            local[row],
            np.array([local[int(r)] for r in same_item], dtype=np.intp),
            np.array([local[int(r)] for r in same_pair], dtype=np.intp),
        )
        kept = dict(detail.fields)
        at = local[row]
        kept["official_gold"] = _plain(fixed.at[at, "official_gold"])
        kept["gold_corrected"] = bool(fixed.at[at, "gold_corrected"])
        return replace(detail, row=row, fields=kept)

    def inspect(self, row: int | None, position: str = "") -> tuple[Any, ...]:
        """The inspector: current gold, or for a blind reviewer the question and my votes only."""
        if row is None or not 0 <= row < len(self.catalog.table):
            return inspect_row(self.catalog, None, position)
        if self.blind:
            from components.review.blind import blind_html

            status, media, _, _, _ = inspect_row(self.catalog, row, position)
            hidden = gr.update(value="", visible=False)
            return status, media, blind_html(self.ctx, row, self.who), hidden, BLIND_ANSWERS
        shown = inspect_row(self.catalog, row, position, detail=self.detail(row))
        spans = shown[3]
        if isinstance(spans, dict) and spans.get("visible") and spans.get("value"):
            note = suspect_note(self.ctx, row)
            if note:  # the suspect spans under the caption view (docs/suspects.md)
                return (*shown[:3], gr.update(value=str(spans["value"]) + note, visible=True), shown[4])
        return shown

    def charts(self, filters: Filters, rows: npt.NDArray[np.intp] | None = None) -> tuple[Any, ...]:
        """The charts of the view; none for a blind reviewer."""
        if self.blind:
            return (BLIND_CHARTS, *[gr.update(value=None, visible=False)] * len(chart_list()))
        return super().charts(filters, rows)


def suspect_note(ctx: ReviewContext, row: int) -> str:
    """HTML under a tagged caption: where the suspect ranking thinks its gold tags are wrong."""
    table = ctx.catalog.table
    benchmark, item_id = str(table.at[row, "benchmark"]), str(table.at[row, "item_id"])
    found = next((s for s in ctx.suspects(benchmark) if s.item_id == item_id), None)
    if found is None or found.score <= 0:
        return ""
    listed = "".join(f"<li>{escape(r)}</li>" for r in found.reasons)
    return (
        f"<div class='hs-suspect-spans' id='suspect-spans'><b>Suspect spans</b> (rank {found.rank} of "
        f"{len(ctx.suspects(benchmark))} in the suspect ranking; press <code>r</code> if the gold is "
        f"right):<ul>{listed}</ul></div>"
    )


def _plain(value: Any) -> Any:
    missing = value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
    return None if missing else value
