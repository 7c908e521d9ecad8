"""VidHalluc TSH: entry accuracy on a hand-sized file, and the empty-file convention."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.benchmarks import vidhalluc
from analysis.errors import InputError

QUESTION = "Action A. a man jumps\nAction B. a man runs\n"


def entry(clip: str, gold: str, answer: str | None) -> dict[str, Any]:
    return {"video": clip, "Question": QUESTION, "Correct Answer": gold, "Model Answer": answer}


DATA = {
    "0": entry("v0_clip_1_0_10", "AB", "AB"),  # exact: right
    "1": entry("v1_clip_1_0_10", "BA", "Action A happens after action B"),  # official AB (wrong); lenient BA
    "2": entry("v2_clip_1_0_10", "AB", "AB."),  # official None; lenient AB
    "3": entry("v3_clip_1_0_10", "BA", "action b before action a"),  # BA in both
    "4": entry("v4_clip_1_0_10", "AB", None),  # null answer: wrong in both
}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_accuracy_both_parsers(tmp_path: Path) -> None:
    table = vidhalluc.load(write(tmp_path, "videollama2_tsh.json", DATA), task="tsh")
    assert len(table) == 5
    assert [None if pd.isna(v) else v for v in table["parsed"]] == ["AB", "AB", None, "BA", None]
    assert [None if pd.isna(v) else v for v in table["alt_parsed"]] == ["AB", "BA", "AB", "BA", None]
    # official: entries 0 and 3 right => 2 / 5
    assert vidhalluc.score(table, task="tsh")["overall"] == {"accuracy": 0.4, "n": 5}
    # lenient: 0, 1, 2, 3 right => 4 / 5
    assert vidhalluc.score(table, task="tsh", parser="lenient")["overall"] == {"accuracy": 0.8, "n": 5}
    row = table[table["gold"] == "BA"].iloc[0]
    assert row["question"] == QUESTION and row["source"] == "videollama2_tsh.json:key '1'"
    assert json.loads(row["media"])[0]["path"] == "v1_clip_1_0_10.mp4"
    assert table["item_id"].is_unique


def test_empty_object_scores_zero(tmp_path: Path) -> None:
    report = vidhalluc.score(vidhalluc.load(write(tmp_path, "t.json", {}), task="tsh"), task="tsh")
    # the official script: accuracy = correct / total if total > 0 else 0
    assert report["overall"] == {"accuracy": 0.0, "n": 0}
    assert report["n_scored"] == 0


def test_gold_refused(tmp_path: Path) -> None:
    pred = write(tmp_path, "t.json", DATA)
    with pytest.raises(InputError, match="takes no --gold"):
        vidhalluc.load(pred, gold=pred, task="tsh")


def test_a_per_item_csv_of_another_pipeline_reads_with_task_and_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A third-party audit's TSH CSV (``sample_id, ground_truth, raw_model_output, ...``: no
    video, no question) scores as the official file it was made from: the rule needs neither."""
    import csv

    from analysis.cli.main import main
    from analysis.load.catalog import SAMPLE_MANIFEST

    native = SAMPLE_MANIFEST.parent / "vidhalluc" / "predictions" / "tsh" / "balanced.json"
    entries = json.loads(native.read_text())
    path = tmp_path / "tsh_per_item.csv"
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["sample_id", "ground_truth", "raw_model_output", "parsed_answer", "is_correct"])
        for key, e in entries.items():
            writer.writerow([f"tsh_{key}", e["Correct Answer"], e["Model Answer"] or "", "", ""])
    assert main(["score", "vidhalluc", str(native), "--task", "tsh", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    mapping = "answer=ground_truth,prediction=raw_model_output"
    assert main(["score", "vidhalluc", str(path), "--task", "tsh", "--map", mapping, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["overall"] == expected["overall"] and got["n_scored"] == len(entries)
    # without the map: exit 2, saying what was tried, what the table lacks and how to map it
    assert main(["score", "vidhalluc", str(path), "--task", "tsh"]) == 2
    err = capsys.readouterr().err
    assert "without a 'prediction' column" in err and "--map prediction=COLUMN" in err
    assert len(err.strip().splitlines()) == 1
