"""The "Where it fails" tab: a model's significant failure slices, and two runs compared.

Thin: the slices, the flip table and the paired tests come from :mod:`analysis.failures`. Every
figure here is a verdict against gold, so a blind reviewer gets none of it. A slice or a flip-table
cell lists its items (wrong answers first); the button opens one in the Items tab, as the Data
problems tab does. A click on a slice's row shows the slice in the Items tab (its filter ``Slice``),
where the table and the charts follow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.slicing import condition_mask, describe, parse, slice_columns
from analysis.boards.leaderboard import fmt
from analysis.failures.compare import compare_runs, difference_rows
from analysis.failures.slices import Slice, find_slices, own_metric
from analysis.load.catalog import Catalog
from analysis.query import ALL
from analysis.query.flips import CELLS, describe_flip, paired_rows
from analysis.store.apply import count_corrections

TAB = "Where it fails"
"""The tab's label (the app tells from it that the tab is open)."""
SLICE_COLUMNS = ["slice", "n", "accuracy", "rest", "q"]
DIFF_COLUMNS = ["board", "metric", "A", "B", "A - B", "95% interval", "p (Holm)"]
BLIND_LINE = "Failure slices and comparisons are hidden in blind mode: they are verdicts against gold."
MAX_ITEMS = 200
"""Items listed for one slice or cell (wrong answers first)."""
PICKER_PX = 280
"""A picker's least width: wider than half a phone's screen, so there they stack."""
N_BOOT = 500
"""Bootstrap replicates of the comparison's intervals here (the report uses the full default)."""


@dataclass(frozen=True)
class FailureWidgets:
    """The tab's widgets."""

    model: gr.Dropdown
    other: gr.Dropdown
    line: gr.Markdown
    slices: gr.Dataframe
    flips: gr.Dataframe
    diffs: gr.Dataframe
    losses: gr.Markdown
    group: gr.Dropdown
    item: gr.Dropdown
    open_item: gr.Button

    def outputs(self) -> list[Any]:
        """What :func:`show` fills, in order."""
        return [
            self.model,
            self.other,
            self.line,
            self.slices,
            self.flips,
            self.diffs,
            self.losses,
            self.group,
        ]


def build() -> FailureWidgets:
    """The tab's layout; empty until a request asks (:func:`show`)."""
    # min_width: on a phone each picker takes a line of its own (two side by side cut a model's
    # name under the dropdown's arrow, "commonsens▾")
    with gr.Row():
        model = gr.Dropdown([], value=None, label="Model (A)", elem_id="fail-model", min_width=PICKER_PX)
        other = gr.Dropdown(
            [], value=None, label="Compare with (B)", elem_id="fail-other", min_width=PICKER_PX
        )
    line = gr.Markdown("", elem_id="fail-line")
    slices = gr.Dataframe(
        pd.DataFrame(columns=SLICE_COLUMNS),
        interactive=False,
        wrap=True,
        max_height=360,
        elem_id="fail-slices",
    )
    gr.Markdown("#### A against B", elem_id="fail-compare-head")
    with gr.Row(equal_height=False):
        flips = gr.Dataframe(
            pd.DataFrame(columns=["cell", "items"]),
            interactive=False,
            wrap=True,
            column_widths=["75%", "25%"],
            elem_id="fail-flips",
            scale=1,
            min_width=260,
        )
        diffs = gr.Dataframe(
            pd.DataFrame(columns=DIFF_COLUMNS),
            interactive=False,
            wrap=True,
            column_widths=["17%", "11%", "14%", "14%", "9%", "22%", "13%"],
            elem_id="fail-diffs",
            scale=3,
            # narrower (684 px beside the flip table at 1280), its metric and model names broke
            # inside words ("accurac y", "balance d"): below 1,060 px of room it goes under the flip
            # table, and the model columns are wide enough to break a name only at its hyphen
            min_width=800,
        )
    losses = gr.Markdown("", elem_id="fail-losses")
    with gr.Row(equal_height=True):
        group = gr.Dropdown(
            [],
            value=None,
            label="Items of a slice or cell",
            scale=2,
            elem_id="fail-group",
            min_width=PICKER_PX,
        )
        item = gr.Dropdown([], value=None, label="Item", scale=2, elem_id="fail-item", min_width=PICKER_PX)
        open_item = gr.Button("Open it in Items", scale=1, interactive=False, elem_id="fail-open")
    return FailureWidgets(model, other, line, slices, flips, diffs, losses, group, item, open_item)


def _models(catalog: Catalog, benchmark: str | None) -> list[str]:
    if not benchmark:
        return []
    rows = catalog.table[catalog.table["benchmark"] == benchmark]
    return sorted({str(m) for m in rows["model"].astype(str)} - {""})


def _rows(catalog: Catalog, benchmark: str, corrected: pd.DataFrame | None) -> pd.DataFrame:
    """The benchmark's rows with the gold the viewer sees: the corrected ones, when there are any."""
    if corrected is not None:
        return corrected
    return catalog.table[(catalog.table["benchmark"] == benchmark).to_numpy(dtype=bool)]


def _where(s: Slice) -> str:
    return describe(s.conditions)


def _slice_table(benchmark: str, rows: pd.DataFrame, model: str, found: list[Slice]) -> pd.DataFrame:
    """The slices with n, accuracy, the rest's, the benchmark's own metric on both, and q.

    The own metric (``HR``, ``HR rest``) only where the benchmark has one besides accuracy.
    """
    table = pd.DataFrame(
        [[_where(s), s.n, round(s.accuracy, 3), round(s.rest_accuracy, 3), f"{s.q:.2g}"] for s in found],
        columns=SLICE_COLUMNS,
    )
    own = [own_metric(benchmark, rows, model, s.conditions) for s in found]
    if found and own[0] is not None:
        name = own[0].name
        at = SLICE_COLUMNS.index("q")
        table.insert(at, name, [_metric(o.slice if o else None) for o in own])
        table.insert(at + 1, f"{name} rest", [_metric(o.rest if o else None) for o in own])
    return table


def _metric(value: float | None) -> str:
    """As the boards write a metric (:func:`analysis.boards.leaderboard.fmt`), NaN as undefined."""
    return fmt(None if value is None or value != value else value)


def show(
    catalog: Catalog,
    benchmark: str | None,
    model: str | None,
    other: str | None,
    blind: bool,
    corrected: pd.DataFrame | None = None,
) -> tuple[Any, ...]:
    """Everything the tab shows for ``model`` (A) and ``other`` (B) of ``benchmark``.

    ``corrected``: the benchmark's rows against the store's corrected gold
    (:func:`analysis.review.corrected.corrected_benchmark`), None while nothing is corrected. The
    tab counts against the gold the Items tab it opens shows, so a cell's items read the verdicts
    its count counted; the line says how many golds are corrected.
    """
    empty = (
        pd.DataFrame(columns=SLICE_COLUMNS),
        pd.DataFrame(columns=["cell", "items"]),
        pd.DataFrame(columns=DIFF_COLUMNS),
        "",
        gr.update(choices=[], value=None),
    )
    if blind:
        none = gr.update(choices=[], value=None)
        return (none, none, BLIND_LINE, *empty)
    models = _models(catalog, benchmark)
    if not models:
        none = gr.update(choices=[], value=None)
        return (none, none, "Pick a benchmark with model answers.", *empty)
    model = model if model in models else models[0]
    others = [m for m in models if m != model]
    other = other if other in others else (others[0] if others else None)
    rows = _rows(catalog, str(benchmark), corrected)
    found, tested = find_slices(str(benchmark), rows, models=[model], max_depth=2)
    slices = _slice_table(str(benchmark), rows, model, found)
    line = (
        f"**{model}** on {benchmark}: {len(found)} slice(s) significantly worse than the rest "
        f"(Benjamini-Hochberg q ≤ 0.05 over {tested} tested, clustered exact tests; docs/failures.md). "
        "Click a slice, or a cell of the flip table, to see its items in the Items tab."
    )
    fixed = 0 if corrected is None else count_corrections(corrected)
    if fixed:
        line += (
            f" Counted against the **corrected** gold, as the Items tab shows it: "
            f"{fixed} item(s) of {benchmark} have one."
        )
    groups = [(f"slice: {_where(s)}", f"slice\x1f{_where(s)}") for s in found]
    flips, diffs, losses = empty[1], empty[2], ""
    if other is not None:
        c = compare_runs(rows, str(benchmark), model, other, n_boot=N_BOOT)
        flips = pd.DataFrame(
            [[k.replace("A", model).replace("B", other), v] for k, v in c.flips.items()],
            columns=["cell", "items"],
        )
        head, cells = difference_rows(c)
        diffs = pd.DataFrame(cells, columns=head).drop(columns=["test", "p"])
        losses = (
            "Where **"
            + model
            + "** loses to **"
            + other
            + "**: "
            + (
                "; ".join(
                    f"{_where(s)} ({s.accuracy:.0%} of {s.n} split items, q {s.q:.2g})" for s in c.losses
                )
                or "no slice"
            )
            + f" ({c.tested} tested)."
        )
        groups += [
            (f"cell: {k.replace('A', model).replace('B', other)} ({v})", f"cell\x1f{k}")
            for k, v in c.flips.items()
            if v
        ]
    return (
        gr.update(choices=models, value=model),
        gr.update(choices=others, value=other),
        line,
        slices,
        flips,
        diffs,
        losses,
        gr.update(choices=groups, value=groups[0][1] if groups else None),
    )


def _in_items(models: list[str], slice_text: str = "", flip: str = "") -> tuple[Any, ...]:
    """The Items tab's filters from the models on (the benchmark stays), then the tab itself.

    In :func:`components.browse.page.build_filters`' order: models, task, category, the three
    checkboxes, search, slice, flip-table cell. Everything not given is cleared.
    """
    cleared = (ALL, ALL, False, False, False, "")
    return (gr.update(value=models), *cleared, slice_text, flip, gr.Tabs(selected="items-tab"))


_UNCHANGED = tuple(gr.skip() for _ in range(10))
"""What a click changes where it may not (a blind reviewer) or names nothing."""


def slice_in_items(
    benchmark: str | None, model: str | None, row: list[Any] | None, blind: bool
) -> tuple[Any, ...]:
    """A clicked slice as the Items tab's filters: its model and that slice (:func:`_in_items`)."""
    text = str(row[0]) if row else ""
    if blind or not benchmark or not model or not text:
        return _UNCHANGED
    return _in_items([model], slice_text=text)


def cell_in_items(
    benchmark: str | None, model: str | None, other: str | None, row: int | None, blind: bool
) -> tuple[Any, ...]:
    """A clicked flip-table cell (its row, in :data:`CELLS` order) as the Items tab's filters.

    Both models' answers to the cell's items (:func:`_in_items`).
    """
    if blind or not benchmark or not model or not other or row is None or not 0 <= row < len(CELLS):
        return _UNCHANGED
    return _in_items([model, other], flip=describe_flip((model, other, CELLS[row])))


def group_items(
    catalog: Catalog,
    benchmark: str | None,
    model: str | None,
    other: str | None,
    group: str | None,
    blind: bool,
    corrected: pd.DataFrame | None = None,
) -> tuple[Any, Any]:
    """The items of a slice (``model``'s, wrong first) or of a flip-table cell.

    ``corrected``: as in :func:`show`.
    """
    if blind or not benchmark or not model or not group:
        return gr.update(choices=[], value=None), gr.update(interactive=False)
    kind, _, name = group.partition("\x1f")
    rows = _rows(catalog, benchmark, corrected)
    if kind == "slice":
        mine = rows[(rows["model"].astype(str) == model).to_numpy(dtype=bool)]
        _, columns = slice_columns(str(benchmark), mine)
        picked = mine[condition_mask(columns, parse(name))]
        wrong = picked["correct"].eq(False).fillna(False).to_numpy(dtype=bool)
        ids = [*picked["item_id"].astype(str)[wrong], *picked["item_id"].astype(str)[~wrong]]
    elif kind == "cell" and other and name in CELLS:
        pairs = paired_rows(rows, model, other)
        ids = list(pairs.loc[pairs["cell"] == name, "item_id"].astype(str))
    else:
        ids = []
    ids = list(dict.fromkeys(ids))[:MAX_ITEMS]
    return gr.update(choices=ids, value=ids[0] if ids else None), gr.update(interactive=bool(ids))
