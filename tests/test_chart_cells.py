"""Charts from pre-grouped counts draw exactly what they draw from the rows themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.charts import common as charts
from analysis.charts.cells import ChartCells
from analysis.load.catalog import Catalog, load_manifest
from analysis.query import ALL, Filters, filter_rows

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "manifest.json"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_manifest(SAMPLES)


def _views(cat: Catalog) -> list[Filters]:
    views = [Filters(), Filters(wrong_only=True), Filters(search="the")]
    for bench in cat.benchmarks():
        views += [
            Filters(benchmark=bench),
            Filters(benchmark=bench, wrong_only=True),
            Filters(benchmark=bench, parser_dependent=True),
        ]
        models = sorted(cat.table.loc[cat.table["benchmark"] == bench, "model"].astype(str).unique())
        views.append(Filters(benchmark=bench, models=tuple(models[:1])))
    return views


def _close(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False, rtol=1e-12, atol=1e-12
    )


def test_every_chart_data_agrees_on_every_view(catalog: Catalog) -> None:
    for filters in _views(catalog):
        rows = filter_rows(catalog.table, filters)
        by_rows, by_cells = catalog.chart_rows(rows), catalog.chart_view(rows)
        assert int(by_cells["_n"].sum()) == len(rows)
        for owner, chart in charts.chart_list():
            from_cells = chart.numbers(charts.rows_of(by_cells, owner))
            from_rows = chart.numbers(charts.rows_of(by_rows, owner))
            assert from_cells.keys() == from_rows.keys()
            for name, part in from_cells.items():
                _close(part, from_rows[name])


def test_figures_are_the_same(catalog: Catalog) -> None:
    rows = filter_rows(catalog.table, Filters(benchmark=ALL))
    assert [f.to_dict() for f in charts.draw_all(catalog.chart_view(rows))] == [
        f.to_dict() for f in charts.draw_all(catalog.chart_rows(rows))
    ]


def test_cells_are_few_and_labelled_rows_stay_rows() -> None:
    n = 10_000
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        {
            "benchmark": pd.Categorical(rng.choice(["cmm", "detailverifybench"], n)),
            "model": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "task": pd.Categorical([""] * n),
            "category": pd.Categorical(rng.choice(["x", "y"], n)),
            "_side": rng.choice(["counterfactual", "commonsense", ""], n).astype(object),
            "scored": rng.random(n) < 0.9,
            "correct": pd.array(rng.choice([True, False, None], n), dtype="boolean"),
            "gold": pd.array(["yes"] * n, dtype="string"),
            "raw_answer": pd.array(["Yes."] * n, dtype="string"),
            "_binary": np.ones(n, dtype=bool),
            "_pred_code": rng.choice([-1, 0, 1], n).astype(np.int8),
            "_gold_yes": rng.random(n) < 0.5,
            "_cs_error": np.zeros(n, dtype=bool),
            "_token_f1": rng.random(n),
            "_labels": pd.Series(
                [[{"type": "t"}] if i % 1000 == 0 else None for i in range(n)], dtype=object
            ),
        }
    )
    cells = ChartCells(table)
    # benchmark, model, category, scored, correct, _pred_code, _gold_yes, _side
    assert cells.size <= 2 * 3 * 2 * 2 * 3 * 3 * 2 * 3
    rows = np.flatnonzero(rng.random(n) < 0.5)
    view = cells.view(rows)
    assert int(view["_n"].sum()) == rows.size
    assert int(view["_labels"].notna().sum()) == int(table["_labels"].iloc[rows].notna().sum())
    assert view["_token_f1_sum"].sum() == pytest.approx(table["_token_f1"].iloc[rows].sum())
    view_data: Any = charts.accuracy_data(view)
    row_data: Any = charts.accuracy_data(table.iloc[rows])
    _close(view_data, row_data)
