"""Hand-sized metric cases; each carries its arithmetic."""

import numpy as np
import pytest

from analysis.stats.metrics import (
    NO,
    UNPARSED,
    YES,
    accuracy,
    binary_metrics,
    f1,
    mcc,
    ratio,
)


def test_binary_metrics_hand_case() -> None:
    # gold:  Y Y Y N N N
    # pred:  Y Y - Y N N   (- = unparsed, counted wrong and neither yes nor no)
    # TP=2 (rows 0,1), pred-yes=3 (0,1,3), gold-yes=3, TN=2 (4,5), gold-no=3, correct=4
    pred = np.array([YES, YES, UNPARSED, YES, NO, NO])
    gold = np.array([True, True, True, False, False, False])
    correct = pred == np.where(gold, YES, NO)
    m = binary_metrics(pred, gold, correct)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["pa"] == m["recall"]
    assert m["f1"] == pytest.approx(2 / 3)  # 2PR/(P+R) with P=R=2/3
    assert m["yes_ratio"] == pytest.approx(3 / 6)
    assert m["hr"] == pytest.approx(2 / 3)
    assert m["n"] == 6 and m["unparsed"] == 1


def test_binary_metrics_empty_is_none_or_zero() -> None:
    empty = np.array([], dtype=np.int8)
    m = binary_metrics(empty, empty.astype(bool), empty.astype(bool))
    assert m["accuracy"] is None and m["f1"] is None and m["n"] == 0
    z = binary_metrics(empty, empty.astype(bool), empty.astype(bool), zero=0.0)
    assert z["accuracy"] == 0.0 and z["hr"] == 0.0


def test_ratio_f1_accuracy_edges() -> None:
    assert ratio(1, 0) is None
    assert ratio(1, 0, 0.0) == 0.0
    assert f1(0.0, 0.0) is None
    assert f1(None, 0.5, 0.0) == 0.0
    assert accuracy([]) is None
    assert accuracy([True, False, True, True]) == 0.75


def test_mcc_hand_case_and_undefined() -> None:
    # pred: Y Y N N ; gold: Y N N N -> TP=1 FP=1 TN=2 FN=0
    # MCC = (1*2 - 1*0) / sqrt((1+1)(1+0)(2+1)(2+0)) = 2/sqrt(12)
    assert mcc([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(2 / 12**0.5)
    assert mcc([1, 1, 1], [1, 0, 1]) == 0.0  # constant prediction: undefined -> 0
