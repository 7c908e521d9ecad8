"""The wrong kind of file is refused with what it is and what was expected; serve loads what it can."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analysis.cli.main import main
from analysis.load.catalog import load_paths

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


GOLD_AS_PREDICTIONS = [
    (["cdh-bench", "cdh-bench/benchmark.jsonl"], "cdh-bench gold", "results.jsonl"),
    (["cmm", "cmm/all_data_final_reorg.json"], "cmm gold", "pred"),
    (["avhbench", "avhbench/QA.json"], "avhbench gold", "pred"),
    (
        ["detailverifybench", "detailverifybench/real_test.jsonl"],
        "detailverifybench gold",
        "tested_model_output",
    ),
    (["vidhalluc", "vidhalluc/tsh.json", "--task", "tsh"], "vidhalluc gold", "Model Answer"),
    (["vidhalluc", "vidhalluc/ach_mcq.json", "--task", "mcq"], "vidhalluc gold", "Model Answer"),
    # named ach_binaryqa.json and holding bare Yes/No only: it scored as predictions, accuracy 1.0
    (
        [
            "vidhalluc",
            "vidhalluc/ach_binaryqa.json",
            "--task",
            "bqa",
            "--gold",
            "vidhalluc/ach_binaryqa.json",
        ],
        "vidhalluc gold",
        "the model's text per clip",
    ),
]


@pytest.mark.parametrize(("args", "what", "expected"), GOLD_AS_PREDICTIONS)
def test_gold_passed_as_predictions_is_refused(
    args: list[str], what: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: `score cdh-bench benchmark.jsonl` exited 0 with every record skipped.
    rest = [str(SAMPLES / a) if a.endswith(".json") else a for a in args[2:]]
    code, out, err = run(["score", args[0], str(SAMPLES / args[1]), *rest, "--json"], capsys)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert f"this is {what}" in err and "expected" in err and expected in err


def test_predictions_passed_as_gold_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    preds = str(SAMPLES / "avhbench/predictions/balanced.json")
    code, _, err = run(["score", "avhbench", preds, "--gold", preds], capsys)
    assert code == 2 and "--gold" not in err and "this is avhbench predictions" in err
    assert "expected avhbench gold" in err


@pytest.mark.parametrize("command", ["score", "audit"])
def test_binary_qa_predictions_passed_as_gold_are_refused(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # They have the gold's shape, but most answers are sentences, not a bare Yes or No: scored as
    # gold they gave accuracy 0.0, and the audit listed every answer as bad gold
    preds = str(SAMPLES / "vidhalluc/predictions/bqa/yes-biased.json")
    other = str(SAMPLES / "vidhalluc/predictions/bqa/balanced.json")
    args = (
        ["score", "vidhalluc", other, "--task", "bqa", "--gold", preds]
        if command == "score"
        else [
            "audit",
            "vidhalluc",
            preds,
        ]
    )
    code, out, err = run(args, capsys)
    assert (code, out) == (2, "")
    assert "this is vidhalluc predictions" in err and "expected vidhalluc gold" in err


def test_binary_qa_gold_with_a_few_bad_values_is_still_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a gold file's bad values are the audit's to flag, never a reason to take it for predictions
    gold = tmp_path / "ach_binaryqa.json"
    text = (SAMPLES / "vidhalluc/ach_binaryqa.json").read_text(encoding="utf-8")
    gold.write_text(text.replace('"Yes"', '"Maybe"', 2), encoding="utf-8")
    code, out, err = run(["audit", "vidhalluc", str(gold), "--json"], capsys)
    assert code == 0 and "this is" not in err and "bad-gold" in out and "Maybe" in out


def test_audit_refuses_a_prediction_file(capsys: pytest.CaptureFixture[str]) -> None:
    results = str(SAMPLES / "cdh-bench/predictions/balanced.jsonl")
    code, out, err = run(["audit", "cdh-bench", results], capsys)
    assert (code, out) == (2, "")
    assert "this is cdh-bench predictions" in err and "expected cdh-bench gold: benchmark.jsonl" in err


def test_another_benchmarks_file_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", "cmm", str(SAMPLES / "avhbench/predictions/balanced.json")], capsys)
    assert code == 2 and "looks like avhbench predictions, not cmm" in err


def test_a_task_file_of_another_task_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SAMPLES / "vidhalluc/predictions/tsh/balanced.json")
    code, _, err = run(["score", "vidhalluc", path, "--task", "mcq"], capsys)
    assert code == 2 and "vidhalluc tsh file, but --task is mcq" in err


def test_binary_qa_gold_under_another_name_is_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Binary-QA gold and predictions have the same shape; only the name ach_binaryqa.json tells
    # them apart, so a corrected copy under another name must still be accepted as --gold.
    gold = tmp_path / "ach_binaryqa_corrected.json"
    shutil.copy(SAMPLES / "vidhalluc/ach_binaryqa.json", gold)
    preds = str(SAMPLES / "vidhalluc/predictions/bqa/balanced.json")
    code, _, err = run(["score", "vidhalluc", preds, "--task", "bqa", "--gold", str(gold)], capsys)
    assert (code, err) == (0, "")


def test_serve_lists_a_folder_and_a_missing_path_and_loads_the_rest(tmp_path: Path) -> None:
    # Before: IsADirectoryError from detection stopped the whole app.
    good = SAMPLES / "cmm/predictions/balanced.jsonl"
    catalog = load_paths([SAMPLES / "cmm", tmp_path / "nope.json", good])
    assert catalog.errors == [
        f"{SAMPLES / 'cmm'}: is a folder, expected a file",
        f"{tmp_path / 'nope.json'}: no such file",
    ]
    assert set(catalog.table["model"].astype(str)) == {"balanced"} and len(catalog.table) > 0


def test_one_bad_gold_file_drops_only_itself(tmp_path: Path) -> None:
    # Before: the benchmark's gold files loaded together, so one bad file dropped all of them.
    bad = tmp_path / "broken.jsonl"
    line = '{"pair_id": "Pair 1", "direct_qa": {"question": 3}, "multiple_choice": {}}\n'
    bad.write_text(line * 2)
    catalog = load_paths([SAMPLES / "cdh-bench/benchmark.jsonl", bad])
    assert len(catalog.errors) == 1 and catalog.errors[0].startswith(f"{bad}: line 1")
    assert len(catalog.table) > 0 and (catalog.table["benchmark"] == "cdh-bench").all()
    assert catalog.findings.get("cdh-bench")  # the good file is still audited


def test_a_tsh_prediction_served_with_its_annotation_file_loads(tmp_path: Path) -> None:
    # Before: tsh.json was handed to the TSH results as --gold and blamed ("takes no --gold").
    tsh = SAMPLES / "vidhalluc"
    catalog = load_paths([tsh / "predictions/tsh/balanced.json", tsh / "tsh.json"])
    assert catalog.errors == []
    assert set(catalog.table["model"].astype(str)) == {"balanced"}


def test_a_one_record_file_is_left_to_the_reader_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One JSONL line is also a JSON object of text values, the shape of VidHalluc STH results:
    # content cannot tell, so the CMM reader names the field at fault instead of a refusal.
    path = tmp_path / "one.jsonl"
    path.write_text('{"question": "Did you see a dog?", "answer": "yes", "pred": "Yes"}\n')
    code, _, err = run(["score", "cmm", str(path)], capsys)
    assert code == 2 and "vidhalluc" not in err and "line 1" in err


def test_a_file_of_no_known_format_is_told_the_formats_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was refused for its first record's missing field alone, as if one record were bad
    other = tmp_path / "other.json"
    other.write_text('[{"foo": 1}]', encoding="utf-8")
    code, out, err = run(["score", "avhbench", str(other), "--json"], capsys)
    assert (code, out) == (2, "")
    assert (
        "record 1: field 'video_id': missing" in err
        and "matches no format tried: avhbench predictions" in err
    )
    assert "vlmevalkit" in err and err.count("\n") == 1
    # a file of the benchmark's own format with one bad record is told that record, nothing else
    records = (SAMPLES / "avhbench/predictions/balanced.json").read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(records.replace('"video_id"', '"vid"', 1), encoding="utf-8")
    code, _, err = run(["score", "avhbench", str(bad), "--gold", str(SAMPLES / "avhbench/QA.json")], capsys)
    assert code == 2 and "missing" in err and "format tried" not in err


def test_audit_with_a_media_folder_that_does_not_exist_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it exited 0 with every media file reported missing
    missing = tmp_path / "nowhere"
    code, out, err = run(
        ["audit", "avhbench", str(SAMPLES / "avhbench/QA.json"), "--media-root", str(missing)], capsys
    )
    assert (code, out) == (2, "") and f"--media-root {missing}: no such folder" in err


LEADERBOARD = {
    "_comment": "Leaderboard data: main results and domain-level results.",
    "models": [{"model": "m", "type": "open", "real": {"p": 0.1, "r": 0.2, "f1": 0.13}}],
}
"""The shape of a real release's project-page leaderboard.json: no benchmark's data file."""


@pytest.mark.parametrize("name", ["detailverifybench", "cmm", "avhbench", "cdh-bench", "vidhalluc"])
def test_a_leaderboard_file_is_no_benchmarks_file_and_is_not_given_one_s_role(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen on the real leaderboard.json: `audit detailverifybench` said "this is detailverifybench
    # predictions" (the role VidHalluc's detection guessed, with the benchmark asked for), `items`
    # "this is a vidhalluc file" (a text value made it a scene-change results file)
    import json

    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(LEADERBOARD, indent=2))
    for command in (["audit", name, str(path)], ["items", name, str(path), "--json"]):
        code, out, err = run(command, capsys)
        assert (code, out) == (2, ""), (command, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert "predictions" not in err.split(";")[0] and "vidhalluc file" not in err, err
