"""Bad VidHalluc files: one InputError naming file, record and field; through the CLI, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import vidhalluc
from analysis.cli.main import main
from analysis.errors import InputError

BQA_GOLD = {"g1": [{"q": "Is someone jumping?", "a": {"c1": "Yes", "c2": "No"}}]}
STH_GOLD = {"v1": {"Scene change": "Yes", "Locations": "from a to b."}}
MCQ_OK = {
    "g1": {
        "c1": {
            "Question": "q",
            "Choices": {"A": "x", "B": "y", "C": "z", "D": "w"},
            "Correct Answer": "A",
            "Model Answer": "A",
        }
    }
}
TSH_OK = {"0": {"video": "v0", "Question": "q", "Correct Answer": "AB", "Model Answer": "AB"}}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def load(tmp_path: Path, task: str, pred: Any, gold: Any = None) -> None:
    gold_path = write(tmp_path, "gold.json", gold) if gold is not None else None
    vidhalluc.load(write(tmp_path, "pred.json", pred), gold=gold_path, task=task)


def message(excinfo: pytest.ExceptionInfo[InputError]) -> str:
    text = excinfo.value.line()
    assert "\n" not in text
    return text


@pytest.mark.parametrize(
    ("task", "gold"), [("bqa", BQA_GOLD), ("mcq", None), ("tsh", None), ("sth", STH_GOLD)]
)
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"g1": [{"q": "x", "a": {', "is the file truncated"),
        ("", "file is empty"),
        (b'{"g1": "caf\xe9"}', "not valid UTF-8"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_broken_files(tmp_path: Path, task: str, gold: Any, content: Any, expected: str) -> None:
    with pytest.raises(InputError) as excinfo:
        load(tmp_path, task, content, gold)
    text = message(excinfo)
    assert "pred.json" in text and expected in text


@pytest.mark.parametrize(
    ("task", "pred", "gold", "parts"),
    [
        (
            "bqa",
            {"g1": [{"q": "x", "a": {"c1": 1, "c2": "No"}}]},
            BQA_GOLD,
            [
                "pred.json",
                "group 'g1', question 0, clip 'c1'",
                "field 'a'",
                "expected a string, got a number",
            ],
        ),
        ("bqa", {"g1": {"q": "x"}}, BQA_GOLD, ["pred.json", "group 'g1'", "expected a list"]),
        (
            "bqa",
            {"g1": ["not an object"]},
            BQA_GOLD,
            ["pred.json", "group 'g1', question 0", "expected an object"],
        ),
        (
            "bqa",
            {"g1": [{"a": ["Yes"]}]},
            BQA_GOLD,
            ["pred.json", "group 'g1', question 0", "field 'a'", "a list"],
        ),
        ("bqa", {}, {"g1": "oops"}, ["gold.json", "group 'g1'", "expected a list"]),
        ("bqa", {}, {"g1": [{"q": "x"}]}, ["gold.json", "group 'g1', question 0", "field 'a'", "missing"]),
        ("bqa", {}, {"g1": [{"q": "x", "a": {"c1": True}}]}, ["gold.json", "clip 'c1'", "a boolean"]),
        (
            "mcq",
            {"g1": {"c1": {"Question": "q", "Model Answer": "A"}}},
            None,
            ["pred.json", "group 'g1', clip 'c1'", "field 'Correct Answer'", "missing"],
        ),
        (
            "mcq",
            {"g1": {"c1": {"Correct Answer": "A", "Model Answer": 3}}},
            None,
            ["group 'g1', clip 'c1'", "field 'Model Answer'", "a number"],
        ),
        (
            "mcq",
            {"g1": {"c1": {"Correct Answer": "A", "Choices": {"A": None}}}},
            None,
            ["group 'g1', clip 'c1'", "field 'Choices.A'"],
        ),
        ("mcq", {"g1": ["c1"]}, None, ["group 'g1'", "expected an object, got a list"]),
        (
            "tsh",
            {"0": {"Question": "q", "Correct Answer": "AB", "Model Answer": "AB"}},
            None,
            ["pred.json", "key '0'", "field 'video'", "missing"],
        ),
        (
            "tsh",
            {"0": {"video": "v", "Question": "q", "Correct Answer": None, "Model Answer": "AB"}},
            None,
            ["key '0'", "field 'Correct Answer'", "is null"],
        ),
        ("tsh", {"0": "AB"}, None, ["key '0'", "expected an object"]),
        ("sth", {"v1": ["Yes"]}, STH_GOLD, ["pred.json", "video 'v1'", "a list"]),
        (
            "sth",
            {"v1": "Yes"},
            {"v1": {"Locations": "from a to b."}},
            ["gold.json", "video 'v1'", "field 'Scene change'", "missing"],
        ),
        (
            "sth",
            {"v1": "Yes"},
            {"v1": {"Scene change": "Yes", "Locations": 5}},
            ["field 'Locations'", "a number"],
        ),
    ],
)
def test_wrong_types_and_missing_keys(
    tmp_path: Path, task: str, pred: Any, gold: Any, parts: list[str]
) -> None:
    with pytest.raises(InputError) as excinfo:
        load(tmp_path, task, pred, gold)
    text = message(excinfo)
    for part in parts:
        assert part in text, text


@pytest.mark.parametrize("task", ["bqa", "sth"])
def test_gold_required(tmp_path: Path, task: str) -> None:
    with pytest.raises(InputError, match="needs --gold"):
        load(tmp_path, task, {})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["bqa", "pred.json"], "needs --gold ach_binaryqa.json"),
        (["sth", "pred.json"], "needs --gold sth.json"),
        (["tsh", "truncated.json"], "truncated.json: line 1"),
        (["mcq", "bad_types.json"], "field 'Correct Answer'"),
        (["mcq", "missing.json"], "no such file"),
    ],
)
def test_cli_exit_2_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pred.json", {})
    write(tmp_path, "truncated.json", '{"0": {"video": "v0", "Ques')
    write(tmp_path, "bad_types.json", {"g1": {"c1": {"Correct Answer": 7}}})
    task, pred = args
    code = main(["score", "vidhalluc", pred, "--task", task, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_cli_needs_task(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["score", "vidhalluc", str(write(tmp_path, "p.json", TSH_OK))])
    assert code == 2 and "needs --task" in capsys.readouterr().err


def test_valid_minimal_files_load(tmp_path: Path) -> None:
    load(tmp_path, "mcq", MCQ_OK)
    load(tmp_path, "tsh", TSH_OK)
