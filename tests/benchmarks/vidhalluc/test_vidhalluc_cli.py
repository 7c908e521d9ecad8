"""``halluscope score vidhalluc ...`` end to end: the JSON contract of docs/cli.md, per task."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import REGISTRY
from analysis.benchmarks.vidhalluc.embedder import SIMCSE_ENV
from analysis.cli.main import main

KEYS = {"benchmark", "task", "parser", "n_scored", "n_skipped", "overall", "groups"}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["score", "vidhalluc", *args, "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    report: dict[str, Any] = json.loads(out)
    assert set(report) == KEYS and report["benchmark"] == "vidhalluc" and report["groups"] == {}
    return report


def test_registered() -> None:
    module = REGISTRY["vidhalluc"]
    assert module.TASKS == ("bqa", "mcq", "tsh", "sth") and module.TASK_REQUIRED
    assert module.PARSERS == ("official", "lenient") and module.ALT_PARSER == "lenient"


def test_bqa(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = write(
        tmp_path,
        "ach_binaryqa.json",
        {
            "g1": [{"q": "Is someone jumping?", "a": {"c1": "Yes", "c2": "No"}}],
            "g2": [{"q": "Is someone running?", "a": {"c3": "No", "c4": "Yes"}}],
            "g3": [{"q": "Is someone diving?", "a": {"c5": "No", "c6": "Yes"}}],
        },
    )
    pred = write(
        tmp_path,
        "pred.json",
        {
            "g1": [{"q": "", "a": {"c1": "Yes, he is.", "c2": "No"}}],  # right
            "g2": [{"q": "", "a": {"c3": "No", "c4": "Yes the man runs"}}],  # official wrong, lenient right
        },
    )  # g3 skipped
    report = run(capsys, str(pred), "--gold", str(gold), "--task", "bqa")
    assert report["task"] == "bqa" and report["parser"] == "official"
    assert report["overall"] == {"accuracy": 0.5, "n": 2}  # 1 of 2 counted questions
    assert report["n_scored"] == 2 and report["n_skipped"] == 1
    lenient = run(capsys, str(pred), "--gold", str(gold), "--task", "bqa", "--parser", "lenient")
    assert lenient["overall"] == {"accuracy": 1.0, "n": 2} and lenient["parser"] == "lenient"


def test_mcq_and_tsh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    choices = {"A": "jumping", "B": "running", "C": "walking", "D": "sitting"}
    mcq = write(
        tmp_path,
        "mcq.json",
        {
            "g": {
                "c1": {
                    "Question": "q",
                    "Choices": choices,
                    "Correct Answer": "AC",
                    "Model Answer": "A and C",
                },
                "c2": {"Question": "q", "Choices": choices, "Correct Answer": "AC", "Model Answer": "AC"},
            }
        },
    )
    # "A and C" -> {A, C} right; "AC" -> no letter -> wrong  => 1 / 2
    assert run(capsys, str(mcq), "--task", "mcq")["overall"] == {"accuracy": 0.5, "n": 2}
    tsh = write(
        tmp_path,
        "tsh.json",
        {
            "0": {
                "video": "v",
                "Question": "q",
                "Correct Answer": "BA",
                "Model Answer": "action b then action a",
            },
            "1": {"video": "w", "Question": "q", "Correct Answer": "AB", "Model Answer": "AB\n"},
            "2": {"video": "x", "Question": "q", "Correct Answer": "AB", "Model Answer": "ab"},
        },
    )
    # BA right, "AB\n" not exact (None) wrong, "ab" -> AB right  => 2 / 3
    assert run(capsys, str(tsh), "--task", "tsh")["overall"] == {"accuracy": 2 / 3, "n": 3}


def test_sth_without_an_embedder(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv(SIMCSE_ENV, str(tmp_path / "no-model-here"))
    gold = write(
        tmp_path,
        "sth.json",
        {
            "a": {"Scene change": "Yes", "Locations": "from x to y."},
            "b": {"Scene change": "No", "Locations": "None"},
        },
    )
    pred = write(
        tmp_path, "p.json", {"a": "Scene change: Yes, Locations: from x to z.", "b": "Scene change: No"}
    )
    with caplog.at_level(logging.WARNING, logger="halluscope.vidhalluc"):
        report = run(capsys, str(pred), "--gold", str(gold), "--task", "sth")
    assert report["overall"] == {
        "mcc": 1.0,
        "classification_score": 1.0,
        "description_score": None,
        "score": None,
        "n": 2,
    }
    assert "no model folder" in caplog.text


def test_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tsh = write(
        tmp_path,
        "tsh.json",
        {"0": {"video": "v", "Question": "q", "Correct Answer": "AB", "Model Answer": "AB"}},
    )
    assert main(["score", "vidhalluc", str(tsh), "--task", "tsh"]) == 0
    out = capsys.readouterr().out
    assert "vidhalluc / tsh" in out and "1.0000" in out
