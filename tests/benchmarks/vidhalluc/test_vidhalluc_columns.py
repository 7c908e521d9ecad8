"""VidHalluc MCQ and TSH columns built a column at a time equal the record-by-record reading.

The loaders check every field in bulk and build whole columns; the record-by-record reading stays
as the reference (and names a bad value). Each quirk of the files is fed to both: extra fields,
clips missing from the predictions, absent and empty groups, answers without their own choices,
gold alone, the combined file, non-ASCII and quoted ids.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc import mcq, mcq_columns, tsh
from analysis.benchmarks.vidhalluc.common import make_id, make_ids, video, videos
from analysis.errors import InputError
from analysis.files.readers import without_gc_pauses

CHOICES = {"A": "running", "B": "jumping", "C": "walking", "D": "sitting"}
GOLD: dict[str, Any] = {
    "g1": {
        "g1_clip_1": {"Question": "What?", "Choices": CHOICES, "Correct Answer": "B"},
        "g1_clip_2": {
            "Question": "What?",
            "Choices": {"A": 'x "q"', "B": "é", "C": "", "D": "w"},
            "Correct Answer": "AC",
            "note": "kept in extra",
        },
    },
    "g2": {"g2 'clip'": {"Choices": CHOICES, "Correct Answer": "D"}},  # no question
    "g3": {"g3_clip_1": {"Question": "Q", "Choices": CHOICES, "Correct Answer": "A"}},
    "g4": {"g4_clip_1": {"Question": "Q", "Correct Answer": "C", "missing_prediction": False}},  # no choices
    "é": {},
}
PRED: dict[str, Any] = {
    "g1": {
        "g1_clip_1": {"Choices": {"A": "other", "B": "texts"}, "Model Answer": "B"},
        "g1_clip_2": {},
    },  # counted and wrong
    "g2": {"g2 'clip'": {"Model Answer": None}},  # no choices of its own: the gold's are shown
    "g3": {},  # empty: skipped
    "g4": {"g4_clip_1": {"Model Answer": "C. walking", "Choices": {}}},
}


def combined() -> dict[str, Any]:
    """The official inference output: gold and answers in one record."""
    out = json.loads(json.dumps(GOLD))
    for group, clips in out.items():
        for k, record in enumerate(clips.values()):
            record["Model Answer"] = ["A", "The man is jumping.", None, "AB", "C"][(k + len(group)) % 5]
    return out


@pytest.mark.parametrize("case", ["gold only", "combined", "beside gold"])
def test_mcq_columns_equal_the_record_by_record_reading(case: str) -> None:
    gold_path, pred_path = Path("ach_mcq.json"), Path("model.json")
    args = {
        "gold only": (gold_path, GOLD, None, None),
        "combined": (pred_path, combined(), pred_path, None),
        "beside gold": (gold_path, GOLD, pred_path, PRED),
    }[case]
    fast = mcq_columns.columns(*args)
    assert fast is not None
    assert fast == mcq._columns_one_by_one(*args)


@pytest.mark.parametrize(
    ("gold", "pred", "field"),
    [
        (
            {"g": {"c": {"Correct Answer": "A", "Choices": {"A": 1}}}},
            {"g": {"c": {"Choices": CHOICES}}},
            "Choices.A",
        ),
        ({"g": {"c": {"Correct Answer": "A"}}}, {"g": {"c": {"Model Answer": 3}}}, "Model Answer"),
        ({"g": {"c": {"Correct Answer": "A"}}}, {"g": {"c": {"Choices": []}}}, "Choices"),
        ({"g": {"c": {"Correct Answer": None}}}, {"g": {"c": {}}}, "Correct Answer"),
        ({"g": {"c": {"Correct Answer": "A", "Question": 2}}}, {"g": {"c": {}}}, "Question"),
    ],
)
def test_mcq_bad_values_leave_the_fast_path_and_are_named(
    tmp_path: Path, gold: dict[str, Any], pred: dict[str, Any], field: str
) -> None:
    gold_path, pred_path = tmp_path / "ach_mcq.json", tmp_path / "model.json"
    gold_path.write_text(json.dumps(gold))
    pred_path.write_text(json.dumps(pred))
    assert mcq_columns.columns(gold_path, gold, pred_path, pred) is None
    with pytest.raises(InputError) as err:
        vidhalluc.load(pred_path, gold=gold_path, task="mcq")
    assert "group 'g', clip 'c'" in err.value.line() and field in err.value.line()


def reference_verdicts(rows: list[tuple[str | None, dict[str, str], str, bool]], parser: str) -> list[bool]:
    """Per row: the parsed letter set equals the gold's, and the clip was not missing."""
    parse = mcq.PARSE[parser]
    return [not lost and parse(raw, choices) == mcq.gold_letters(gold) for raw, choices, gold, lost in rows]


def test_mcq_verdicts_per_distinct_value_equal_each_row(tmp_path: Path) -> None:
    pred_path = tmp_path / "model.json"
    pred_path.write_text(json.dumps(combined()))
    table = vidhalluc.load(pred_path, gold=None, task="mcq")
    extras = [json.loads(e) for e in table["extra"]]
    raws = [r if isinstance(r, str) else None for r in table["raw_answer"].astype(object)]
    rows = [
        (raw, e["Choices"], g, bool(e.get("missing_prediction")))
        for raw, e, g in zip(raws, extras, table["gold"], strict=True)
    ]
    for parser in ("official", "lenient"):
        parsed, correct = mcq.verdicts(table, parser)
        assert correct == reference_verdicts(rows, parser)
        assert parsed == [mcq.letters_text(mcq.PARSE[parser](r, c)) for r, c, _, _ in rows]
    assert mcq.verdicts(table.iloc[:0], "official") == ([], [])


TSH = {
    "0": {
        "video": "v0",
        "Question": "Action A. x\nAction B. y\n",
        "Correct Answer": "AB",
        "Model Answer": "ab",
    },
    "1": {"video": 'v "1"', "Question": "q", "Correct Answer": "BA", "Model Answer": None, "extra": [1, 2]},
    "2": {"video": "é", "Question": "q", "Correct Answer": "AB", "Model Answer": "Action B then action A"},
}


@pytest.mark.parametrize("gold_only", [False, True])
def test_tsh_columns_equal_the_record_by_record_reading(gold_only: bool) -> None:
    path = Path("tsh.json")
    data = json.loads(json.dumps(TSH))
    if gold_only:
        data["0"]["Model Answer"] = 5  # never read from a gold file
    fast = tsh._columns(path, data, gold_only=gold_only)
    assert fast is not None
    assert fast == tsh._columns_one_by_one(path, data, gold_only=gold_only)


def test_tsh_bad_value_is_named(tmp_path: Path) -> None:
    data = json.loads(json.dumps(TSH))
    data["2"]["Correct Answer"] = ["AB"]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    assert tsh._columns(path, data, gold_only=False) is None
    with pytest.raises(InputError) as err:
        vidhalluc.load(path, task="tsh")
    assert "key '2'" in err.value.line() and "Correct Answer" in err.value.line()


def test_ids_and_media_of_a_column_equal_each_row() -> None:
    groups, clips = ["g", "é", "g\x1fh", ""], ["c", "c 'x'", "", "tab\there"]
    want = [make_id("mcq", g, c) for g, c in zip(groups, clips, strict=True)]
    assert make_ids("mcq", groups, clips) == want
    assert make_ids("sth", clips) == [make_id("sth", c) for c in clips]
    for odd in ('q"uote', "back\\slash", "nl\nx", "\u00a0"):
        ids = ["a_clip_1", odd]
        assert videos(ids) == [video(c) for c in ids]
    assert videos(["a", "b"]) == [video("a"), video("b")]


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_pauses_the_collector_and_restores_its_state(tmp_path: Path, enabled: bool) -> None:
    seen: list[bool] = []

    @without_gc_pauses
    def fails() -> None:
        seen.append(gc.isenabled())
        raise InputError(tmp_path, "bad")

    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(InputError):
            fails()
        assert seen == [False] and gc.isenabled() is enabled
        bad = tmp_path / "model.json"
        bad.write_text("{")
        with pytest.raises(InputError):
            vidhalluc.load(bad, task="tsh")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
