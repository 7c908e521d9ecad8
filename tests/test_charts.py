"""Charts are pure DataFrame -> Figure functions: checked on their numbers and on fig.data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from app_data import catalog

from analysis.benchmarks import REGISTRY
from analysis.charts import common as charts
from analysis.query import prepare

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "manifest.json"


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return catalog().table


def test_yes_bias_numbers(table: pd.DataFrame) -> None:
    cmm = table[table["benchmark"] == "cmm"]
    data = charts.yes_bias_data(cmm).set_index("model")
    # m1: answers yes / no / unparsed on golds yes / no / no: predicted-yes 1/3, gold-yes 1/3,
    # PA = 1/1, HR = 1 no-read on gold no / 2 gold no = 1/2.
    assert data.loc["m1", "yes_ratio"] == pytest.approx(1 / 3)
    assert data.loc["m1", "gold_yes_ratio"] == pytest.approx(1 / 3)
    assert data.loc["m1", "pa"] == 1.0 and data.loc["m1", "hr"] == 0.5
    assert data.loc["m1", "group"] == "(no benchmark)" or data.loc["m1", "by"] in {"benchmark", "category"}


def test_yes_bias_figure_has_a_bar_per_model_and_gold_marks(table: pd.DataFrame) -> None:
    avh = table[table["benchmark"] == "avhbench"]
    fig = charts.yes_bias(avh)
    bars = [t for t in fig.data if t.type == "bar"]
    assert sorted(t.name for t in bars) == ["m1", "m2"]
    m1 = next(t for t in bars if t.name == "m1")
    # grouped by task (two tasks); m1 always answers yes
    assert [x.replace("<br>", " ") for x in m1.x] == [
        "Audio-driven Video Hallucination",
        "Video-driven Audio Hallucination",
    ]
    assert list(m1.y) == [1.0, 1.0]
    assert any(t.name == "gold yes" for t in fig.data)


def test_accuracy_per_group_follows_the_rows(table: pd.DataFrame) -> None:
    cmm = table[table["benchmark"] == "cmm"]
    data = charts.accuracy_data(cmm).set_index("model")
    assert data.loc["m1", "accuracy"] == pytest.approx(2 / 3)  # yes/yes, no/no right, unparsed wrong
    fig = charts.accuracy_by_category(cmm[cmm["correct"] == False])  # noqa: E712 - the "wrong only" view
    assert all(list(t.y) == [0.0] for t in fig.data)


def test_empty_views_give_an_empty_figure_with_a_note(table: pd.DataFrame) -> None:
    empty = table.iloc[0:0]
    for fig in charts.draw_all(empty):
        assert len(fig.data) == 0
        assert fig.layout.annotations and "No" in fig.layout.annotations[0].text


def test_group_column_prefers_category_then_task(table: pd.DataFrame) -> None:
    assert charts.group_column(prepare(table[table["benchmark"] == "avhbench"])) == "task"
    cdh = table[table["benchmark"] == "cdh-bench"]
    assert charts.group_column(cdh) == "benchmark"  # one category, one task


def test_panels_with_narrow_gaps_stay_inside_the_figure() -> None:
    """Four panels with 0.06 gaps summed their domains to 1.0000000000000002, which plotly refuses."""
    from analysis.plot.figures import figure

    fig = figure("four", [], ["a", "b", "c", "d"], gaps=[0.06] * 3)
    ends = [fig.layout[f"xaxis{s}"].domain[1] for s in ("", "2", "3", "4")]
    assert all(0 < end <= 1 for end in ends) and ends[-1] == 1.0


@pytest.mark.parametrize("key", list(REGISTRY))
def test_view_data_holds_the_numbers_of_every_chart_of_the_view(key: str) -> None:
    from analysis.charts.common import chart_list, rows_of, view_data
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.query import Filters, filter_rows

    catalog = load_manifest(SAMPLE_MANIFEST)
    view = catalog.chart_rows(filter_rows(catalog.table, Filters(benchmark=key)))
    data = view_data(view)
    assert data.columns[0] == "chart"
    for owner, chart in chart_list():
        for name, expected in chart.numbers(rows_of(view, owner)).items():
            got = data[data["chart"] == name].reset_index(drop=True)
            assert len(got) == len(expected)
            if len(expected):
                pd.testing.assert_frame_equal(got[list(expected.columns)], expected, check_dtype=False)


def test_a_model_keeps_its_colour_in_every_benchmark_and_a_chart_never_repeats_one() -> None:
    # Issue 20: colours followed a model's place in each benchmark's sorted list, so a model
    # changed colour where a benchmark had one model more (sorted before it).
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.plot.figures import PALETTE, palette_indices

    table = load_manifest(SAMPLE_MANIFEST).table
    models = sorted(set(table["model"].astype(str)) - {""})
    taken = set(palette_indices(models).values())
    # an extra model, first in name order, whose own colour is free (a collision is the one case
    # where a colour may move, see palette_indices)
    extra = next(n for n in (f"a-extra-{i}" for i in range(50)) if palette_indices([n])[n] not in taken)
    seen: dict[str, set[str]] = {}
    for bench in ("cmm", "cdh-bench"):
        rows = table[table["benchmark"] == bench]
        if bench == "cdh-bench":
            more = rows[rows["model"] == models[0]].assign(model=extra)
            rows = pd.concat([rows, more], ignore_index=True)
        for fig in charts.draw_all(rows):
            for trace in fig.data:
                colour = getattr(getattr(trace, "marker", None), "color", None)
                if trace.type == "bar" and isinstance(colour, str) and trace.name in models:
                    seen.setdefault(str(trace.name), set()).add(colour)
    assert set(seen) == set(models) and all(len(c) == 1 for c in seen.values()), seen
    # within one chart: distinct while the palette lasts, whatever the order of the list
    names = [f"model-{i}" for i in range(len(PALETTE))]
    assert sorted(palette_indices(names).values()) == list(range(len(PALETTE)))
    assert palette_indices(names) == palette_indices(reversed(names))
