"""VidHalluc ACH binary QA: loading, skips and question-level scoring on hand-sized files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.benchmarks import vidhalluc

GOLD = {
    "g1": [
        {"q": "Is someone jumping?", "a": {"g1_clip_1": "Yes", "g1_clip_2": "No"}},
        {"q": "Is someone running?", "a": {"g1_clip_1": "No", "g1_clip_2": "Yes"}},
    ],
    "g2": [
        {"q": "Is someone swimming?", "a": {"g2_clip_1": "Yes", "g2_clip_2": "No"}},
        {"q": "Is someone diving?", "a": {"g2_clip_1": "No", "g2_clip_2": "Yes"}},
    ],
    "g3": [{"q": "Is someone cooking?", "a": {"g3_clip_1": "Yes", "g3_clip_2": "No"}}],
    "g4": [{"q": "Is someone singing?", "a": {"g4_clip_1": "No", "g4_clip_2": "Yes"}}],
}
PRED = {
    "g1": [
        {"q": "text not compared", "a": {"g1_clip_1": "Yes.", "g1_clip_2": "No, nobody jumps"}},
        {"q": "Is someone running?", "a": {"g1_clip_1": "No", "g1_clip_2": None}},
    ],
    # one question only: question 2 is beyond the list; "g2_clip_9" is an extra clip
    "g2": [{"q": "Is someone swimming?", "a": {"g2_clip_1": "Yes", "g2_clip_2": "Nope", "g2_clip_9": "Yes"}}],
    # g3 absent: skipped whole
    "g4": [],  # empty: skipped whole
    "g9": [{"q": "extra group", "a": {"g9_clip_1": "Yes"}}],  # not in gold: ignored
}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path, "llava_bqa.json", PRED), write(tmp_path, "ach_binaryqa.json", GOLD)


def test_rows_per_gold_clip_with_skips(files: tuple[Path, Path]) -> None:
    pred, gold = files
    table = vidhalluc.load(pred, gold=gold, task="bqa")
    # g1: 2 questions x 2 clips, g2: 2 x 2, g3: 1 x 2, g4: 1 x 2 = 12 rows; g9 and g2_clip_9 get none
    assert len(table) == 12
    assert set(table["side"]) == {f"g{g}_clip_{c}" for g in (1, 2, 3, 4) for c in (1, 2)}
    assert table["scored"].sum() == 6  # g1 (4 rows) and g2 question 0 (2 rows)
    reasons = dict(zip(table["pair_id"] + "/" + table["question"], table["skip_reason"], strict=True))
    assert reasons["g3/Is someone cooking?"] == "group absent from the predictions"
    assert reasons["g4/Is someone singing?"] == "group empty in the predictions"
    assert reasons["g2/Is someone diving?"].startswith("question 2 beyond the 1 question")
    assert reasons["g1/Is someone jumping?"] == ""
    assert (table["model"] == "llava_bqa").all()
    assert (table["benchmark"] == "vidhalluc").all() and (table["task"] == "bqa").all()
    row = table[table["side"] == "g1_clip_2"].iloc[0]
    assert row["question"] == "Is someone jumping?" and row["gold"] == "No"
    assert row["raw_answer"] == "No, nobody jumps" and row["parsed"] == "NO" and bool(row["correct"])
    assert json.loads(row["media"]) == [{"kind": "video", "path": "g1_clip_2.mp4", "role": "clip"}]
    assert row["source"] == "llava_bqa.json:group 'g1' question 0"
    null_row = table[(table["side"] == "g1_clip_2") & (table["question"] == "Is someone running?")].iloc[0]
    assert pd.isna(null_row["raw_answer"])
    assert not bool(null_row["correct"])
    skipped = table[~table["scored"]]
    assert skipped["correct"].isna().all() and skipped["raw_answer"].isna().all()


def test_question_accuracy_official_and_lenient(files: tuple[Path, Path]) -> None:
    pred, gold = files
    table = vidhalluc.load(pred, gold=gold, task="bqa")
    report = vidhalluc.score(table, task="bqa")
    # counted: g1 q0 (Yes./No, -> YES, NO: right), g1 q1 (clip 2 null: wrong),
    #          g2 q0 ("Nope" -> NOPE != NO: wrong)  => 1 / 3
    # skipped: g2 q1 (beyond the list), g3 q0 (group absent), g4 q0 (group empty) => 3
    assert report == {
        "benchmark": "vidhalluc",
        "task": "bqa",
        "parser": "official",
        "n_scored": 3,
        "n_skipped": 3,
        "overall": {"accuracy": 1 / 3, "n": 3},
        "groups": {},
    }
    lenient = vidhalluc.score(table, task="bqa", parser="lenient")
    # lenient reads "Nope" as NO, so g2 q0 is right too => 2 / 3; the null answer stays wrong
    assert lenient["overall"] == {"accuracy": 2 / 3, "n": 3}
    assert lenient["parser"] == "lenient"
    # the alt columns agree with re-parsing
    assert table.loc[table["raw_answer"] == "Nope", "alt_parsed"].tolist() == ["NO"]
    assert table.loc[table["raw_answer"] == "Nope", "alt_correct"].tolist() == [True]


def test_item_ids_stable_and_unique(files: tuple[Path, Path]) -> None:
    pred, gold = files
    a = vidhalluc.load(pred, gold=gold, task="bqa")
    b = vidhalluc.load(pred, gold=gold, task="bqa", model="other")
    assert a["item_id"].tolist() == b["item_id"].tolist()
    assert a["item_id"].is_unique
    assert all(i.startswith("bqa-") for i in a["item_id"])
    assert (b["model"] == "other").all()
    gold_only = vidhalluc.load_gold([gold])
    assert set(gold_only["item_id"]) == set(a["item_id"])


def test_missing_answers_object_and_vacuous_question(tmp_path: Path) -> None:
    gold = write(
        tmp_path,
        "gold.json",
        {"g": [{"q": "no clips", "a": {}}, {"q": "two clips", "a": {"c1": "Yes", "c2": "No"}}]},
    )
    pred = write(tmp_path, "pred.json", {"g": [{"q": "no clips"}, {"q": "two clips"}]})
    table = vidhalluc.load(pred, gold=gold, task="bqa")
    report = vidhalluc.score(table, task="bqa")
    # question 0 has no clips: all() of nothing is True (official quirk) -> right
    # question 1's prediction has no "a": both clips unanswered -> wrong   => 1 / 2
    assert report["overall"] == {"accuracy": 0.5, "n": 2}
    assert len(table) == 3 and table["side"].tolist() == ["", "c1", "c2"]


def test_no_counted_question_gives_null(tmp_path: Path) -> None:
    gold = write(tmp_path, "gold.json", GOLD)
    pred = write(tmp_path, "pred.json", {})
    report = vidhalluc.score(vidhalluc.load(pred, gold=gold, task="bqa"), task="bqa")
    # 6 gold questions, all skipped: no accuracy is defined (the official script prints "No data")
    assert report["overall"] == {"accuracy": None, "n": 0}
    assert report["n_skipped"] == 6


def test_task_inferred_from_table_and_unknown_parser(files: tuple[Path, Path]) -> None:
    pred, gold = files
    table = vidhalluc.load(pred, gold=gold, task="bqa")
    assert vidhalluc.score(table)["task"] == "bqa"
    with pytest.raises(ValueError, match="unknown parser"):
        vidhalluc.score(table, parser="nonsense")
