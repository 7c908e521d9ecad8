"""CDH-Bench's metrics on hand-sized cases; each carries its arithmetic."""

import pytest

from analysis.benchmarks.cdh_bench.metrics import counterfactual_metrics


def test_counterfactual_metrics_hand_case() -> None:
    # CF: 2 of 5 correct; 3 errors, 2 of them equal the commonsense gold -> CCR 2/3
    # CS: 4 of 5 correct -> CS-Acc 0.8; CFAD = 0.8 - 0.4 = 0.4; RPD = 0.4/0.8 = 0.5
    m = counterfactual_metrics(
        [True, True, False, False, False],
        [True, True, True, True, False],
        [False, False, True, True, False],
    )
    assert m["cf_acc"] == pytest.approx(0.4)
    assert m["cs_acc"] == pytest.approx(0.8)
    assert m["cfad"] == pytest.approx(0.4)
    assert m["ccr"] == pytest.approx(2 / 3)
    assert m["rpd"] == pytest.approx(0.5)
    assert (m["n_cf"], m["n_cs"]) == (5, 5)


def test_counterfactual_metrics_undefined() -> None:
    m = counterfactual_metrics([True], [], [False])
    assert m["cs_acc"] is None and m["cfad"] is None and m["rpd"] is None
    assert m["ccr"] is None  # no counterfactual errors
    zero_cs = counterfactual_metrics([False], [False], [True])
    assert zero_cs["cfad"] == 0.0 and zero_cs["rpd"] is None and zero_cs["ccr"] == 1.0
