"""cdh-bench: bad results files raise located InputErrors; the CLI prints one line and exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cdh_bench_synth import TaskCounts, record, task_records, write_jsonl

from analysis.benchmarks import cdh_bench
from analysis.cli.main import main
from analysis.errors import InputError


def _line(rec: dict[str, Any]) -> str:
    return json.dumps(rec, ensure_ascii=False)


GOOD = _line(record(0, "qa", "commonsense", "yes", correct=True))

NO_TASK = {k: v for k, v in record(1, "mc", "commonsense", "A").items() if k != "task"}
BAD_FILES = {
    # name: (file content, expected pieces of the one-line message)
    "truncated": (GOOD + "\n" + GOOD[:40] + "\n", ["line 2", "invalid JSON"]),
    "empty": ("\n\n", ["file is empty"]),
    "not an object": (GOOD + "\n[1, 2]\n", ["line 2", "expected a JSON object"]),
    "correct not bool": (_line(record(0, "qa", "commonsense", "yes", correct="yes")),
                         ["line 1", "'correct'", "a boolean"]),
    "pair_id number": (_line(record(0, "qa", "commonsense", "yes", pair_id=7)), ["line 1", "'pair_id'"]),
    "ok without task": (GOOD + "\n" + _line(NO_TASK), ["line 2", "'task'", "missing"]),
    "ok with unknown side": (_line(record(0, "qa", "left", "yes")), ["line 1", "'side'", "'left'"]),
    "pred not text": (_line(record(0, "qa", "commonsense", "yes") | {"pred": ["yes"]}), ["line 1", "'pred'"]),
    "options not strings": (_line(record(0, "mc", "commonsense", "A", options=["A. x", 2])),
                            ["line 1", "'options'"]),
}  # fmt: skip


def test_records_of_a_task_halluscope_does_not_score_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lab's extended evaluator also writes ``caption`` records (no side, free text): the file
    is read, its qa and mc records scored as without them, the captions counted in n_skipped
    (before, the whole file was refused: ``'caption' is not one of qa, mc``)."""
    scored = task_records("qa", TaskCounts(pairs=4, cf_correct=2, cs_correct=3, commonsense_errors=1))
    plain = write_jsonl(tmp_path / "plain.jsonl", scored)
    captions = []
    for i in range(3):
        caption = record(i, "caption", "commonsense", "A hand with six fingers on a table.")
        del caption["side"]
        caption["gt"] = None
        captions.append(caption)
    mixed = write_jsonl(tmp_path / "results.jsonl", [*captions[:2], *scored, captions[2]])
    assert main(["score", "cdh-bench", str(plain), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    for extra, skipped_too in (
        ([], 3),
        (["--task", "qa"], 0),
    ):  # with --task, other tasks are not its records
        assert main(["score", "cdh-bench", str(mixed), "--json", *extra]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["groups"]["task"] == expected["groups"]["task"]
        assert got["n_skipped"] == expected["n_skipped"] + skipped_too
    table = cdh_bench.load(mixed)
    skipped = table[table["task"] == "caption"]
    assert len(skipped) == 3 and not skipped["scored"].any()
    assert set(skipped["skip_reason"]) == {"task 'caption': not scored (halluscope scores qa and mc)"}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_results_raise_located_input_error(tmp_path: Path, name: str) -> None:
    content, pieces = BAD_FILES[name]
    path = tmp_path / "results.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        cdh_bench.load(path)
    message = err.value.line()
    assert "results.jsonl" in message and "\n" not in message
    for piece in pieces:
        assert piece in message


def test_non_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + GOOD.encode().replace(b"yes", b"\xff\xfe", 1) + b"\n")
    with pytest.raises(InputError, match="UTF-8"):
        cdh_bench.load(path)


def test_failed_records_may_lack_fields(tmp_path: Path) -> None:
    # an error record with no task or side is kept (unscored); only ok records must name them
    path = write_jsonl(
        tmp_path / "r.jsonl", [{"status": "error", "pred": "timeout"}, record(0, "qa", "commonsense", "yes")]
    )
    table = cdh_bench.load(path)
    assert table["scored"].tolist() == [False, True] and table["task"].tolist() == ["", "qa"]
    assert cdh_bench.score(table)["n_skipped"] == 1


def test_cli_bad_input_prints_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(BAD_FILES["truncated"][0], encoding="utf-8")
    assert main(["score", "cdh-bench", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "line 2" in err and "Traceback" not in err


def test_cli_refuses_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", [record(0, "qa", "commonsense", "yes", correct=True)])
    assert main(["score", "cdh-bench", str(path), "--gold", str(path)]) == 2
    assert "no --gold" in capsys.readouterr().err


def test_cli_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = task_records("qa", TaskCounts(167, 280, 133, pairs=300))
    path = write_jsonl(tmp_path / "results.jsonl", rows)
    assert main(["score", "cdh-bench", str(path), "--task", "qa", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"benchmark", "task", "parser", "n_scored", "n_skipped", "overall", "groups"}
    assert (report["benchmark"], report["task"], report["parser"]) == ("cdh-bench", "qa", "official")
    assert (report["n_scored"], report["n_skipped"], report["overall"]) == (600, 0, {})
    assert report["groups"]["task"]["qa"]["cf_acc"] == 167 / 300
    assert main(["score", "cdh-bench", str(path), "--parser", "strict"]) == 0
    assert "task/category" in capsys.readouterr().out
    assert main(["score", "cdh-bench", str(path), "--parser", "nope"]) == 2
