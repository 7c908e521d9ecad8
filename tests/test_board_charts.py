"""The official-metric chart and its CSV: the leaderboards' numbers, error bars from the intervals."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from analysis.boards.leaderboard import leaderboards
from analysis.charts.boards import board_chart, board_csv, board_data
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest


@pytest.fixture(scope="module")
def boards():  # type: ignore[no-untyped-def]
    return leaderboards(load_manifest(SAMPLE_MANIFEST).table, "vidhalluc", n_boot=100)


def test_each_bar_is_the_board_metric_with_its_interval(boards) -> None:  # type: ignore[no-untyped-def]
    fig = board_chart(boards)
    assert len(fig.data) == sum(len(lb.entries) for lb in boards)
    bars = iter(fig.data)
    for lb in boards:
        metric = lb.ranked_by
        for e in lb.entries:
            bar = next(bars)
            assert bar.name == e.model and bar.y[0] == e.values[metric]
            interval = e.intervals[metric]
            if interval is not None and e.values[metric] is not None:
                assert bar.error_y.array[0] == pytest.approx(interval[1] - e.values[metric])
                assert bar.error_y.arrayminus[0] == pytest.approx(e.values[metric] - interval[0])
            assert "n %{customdata[1]}" in bar.hovertemplate and bar.customdata[0][1] == e.n


def test_bqa_panel_shows_question_accuracy(boards) -> None:  # type: ignore[no-untyped-def]
    fig = board_chart(boards)
    balanced = next(t for t in fig.data if t.name == "balanced")  # first panel: bqa
    assert balanced.y[0] == pytest.approx(14 / 18)  # a question counts only when both clips are right


def test_csv_holds_every_metric_at_full_precision(boards) -> None:  # type: ignore[no-untyped-def]
    frame = pd.read_csv(io.StringIO(board_csv(boards)))
    expected = board_data(boards)
    assert len(frame) == len(expected) == sum(len(lb.entries) * len(lb.board.metrics) for lb in boards)
    known = expected["value"].notna()
    assert (frame.loc[known, "value"].to_numpy() == expected.loc[known, "value"].to_numpy(dtype=float)).all()


def test_no_boards_gives_a_note() -> None:
    fig = board_chart([])
    assert not fig.data and "No model results" in fig.layout.annotations[0].text
