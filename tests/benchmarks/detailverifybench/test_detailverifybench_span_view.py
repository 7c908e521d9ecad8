"""The inspector's span view of a DetailVerifyBench item: what is coloured is what is counted."""

from __future__ import annotations

import pytest
from app_data import GOLD_TAGGED, PRED_TAGGED

from analysis.benchmarks.detailverifybench.span_view import span_view


def test_span_view_colours_hits_false_alarms_and_misses() -> None:
    labels = [{"text": "with red cuffs,", "labels": ["Object Color Hallucination"]}]
    view = span_view(GOLD_TAGGED, PRED_TAGGED, labels)
    kinds = [(p.text, p.kind, p.label) for p in view.pieces if p.kind]
    assert kinds == [
        ("with", "miss", "Object Color Hallucination"),
        ("red cuffs", "hit", "Object Color Hallucination"),
        ("blue", "false alarm", None),
    ]
    assert "".join(p.text for p in view.pieces) == "A man with red cuffs, blue trousers and a hat."
    # gold flags: with red cuffs (3 of 10 tokens); predicted: red cuffs blue. TP 2, P 2/3, R 2/3, F1 2/3,
    # IoU 2 / |{with, red, cuffs, blue}| = 0.5
    assert view.scores == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3, "iou": 0.5})
    assert view.compared == 10


def test_span_view_no_hallucination_and_short_prediction() -> None:
    clean = span_view(GOLD_TAGGED, " no hallucination ")
    assert [p.kind for p in clean.pieces if p.kind] == ["miss"] and clean.compared == 10
    # A prediction of 3 tokens: the official scorer compares 3 positions, the rest is not compared.
    short = span_view(GOLD_TAGGED, "A man <HALLUCINATION>with</HALLUCINATION>")
    assert short.compared == 3
    assert [p.kind for p in short.pieces if p.kind] == ["hit", "not compared"]
