"""VidHalluc ACH multiple choice: the three input forms and clip accuracy on hand-sized files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analysis.benchmarks import vidhalluc

CHOICES = {"A": "jumping", "B": "running", "C": "walking", "D": "sitting"}


def q(gold: str, answer: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "Question": "What is the person doing?",
        "Choices": CHOICES,
        "Correct Answer": gold,
    }
    if answer is not None:
        record["Model Answer"] = answer
    return record


COMBINED = {
    "g1": {
        "g1_clip_1": q("AC", "A and C"),  # {A, C} = {A, C}: right
        "g1_clip_2": q("B", "A man is running."),  # official {A} (article): wrong; lenient B: right
    },
    "g2": {
        # official: no letter, no choice text: {} != {D}; lenient {A, B}: wrong too
        "g2_clip_1": q("D", "AB"),
        "g2_clip_2": q("B", "The person is running"),  # choice text "running": B, right in both
    },
}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_combined_file(tmp_path: Path) -> None:
    table = vidhalluc.load(write(tmp_path, "gpt4o_mcq.json", COMBINED), task="mcq")
    assert len(table) == 4 and table["scored"].all()
    report = vidhalluc.score(table, task="mcq")
    # official: right g1_clip_1, g2_clip_2 => 2 / 4
    assert report["overall"] == {"accuracy": 0.5, "n": 4}
    assert report["n_scored"] == 4 and report["n_skipped"] == 0
    # lenient: also g1_clip_2 => 3 / 4
    assert vidhalluc.score(table, task="mcq", parser="lenient")["overall"] == {"accuracy": 0.75, "n": 4}
    row = table[table["side"] == "g1_clip_2"].iloc[0]
    assert json.loads(row["options"]) == ["A. jumping", "B. running", "C. walking", "D. sitting"]
    assert row["parsed"] == "A" and row["alt_parsed"] == "B"
    assert not bool(row["correct"]) and bool(row["alt_correct"])
    assert row["pair_id"] == "g1" and row["gold"] == "B"
    assert json.loads(row["extra"])["Choices"] == CHOICES
    assert table.loc[table["side"] == "g1_clip_1", "parsed"].tolist() == ["AC"]


def test_gt_pred_wrapper_and_separate_gold_agree(tmp_path: Path) -> None:
    gt = {
        "g1": {"g1_clip_1": q("A"), "g1_clip_2": q("")},
        "g2": {"g2_clip_1": q("B")},
        "g3": {"g3_clip_1": q("C")},
    }
    pred = {
        "g1": {"g1_clip_1": q("A", "A")},  # g1_clip_2 missing from a present group: counted, wrong
        "g2": {},  # empty group: skipped
        # g3 absent: skipped
    }
    wrapped = vidhalluc.load(write(tmp_path, "both.json", {"gt": gt, "pred": pred}), task="mcq")
    separate = vidhalluc.load(
        write(tmp_path, "pred.json", pred), gold=write(tmp_path, "ach_mcq.json", gt), task="mcq"
    )
    for table in (wrapped, separate):
        report = vidhalluc.score(table, task="mcq")
        # counted: g1_clip_1 (right), g1_clip_2 (missing: wrong even though gold "" has no letter) => 1 / 2
        # skipped: g2_clip_1, g3_clip_1 => 2
        assert report["overall"] == {"accuracy": 0.5, "n": 2}
        assert report["n_skipped"] == 2
    assert wrapped["item_id"].tolist() == separate["item_id"].tolist()


def test_missing_or_null_model_answer_reads_empty(tmp_path: Path) -> None:
    data = {"g": {"c1": q(""), "c2": {**q(""), "Model Answer": None}, "c3": q("A")}}
    table = vidhalluc.load(write(tmp_path, "m.json", data), task="mcq")
    # c1, c2: no answer -> {} = gold {} (right); c3: {} != {A} (wrong) => 2 / 3
    assert vidhalluc.score(table, task="mcq")["overall"] == {"accuracy": 2 / 3, "n": 3}


def test_empty_file_object(tmp_path: Path) -> None:
    report = vidhalluc.score(vidhalluc.load(write(tmp_path, "m.json", {}), task="mcq"), task="mcq")
    assert report["overall"] == {"accuracy": None, "n": 0}
