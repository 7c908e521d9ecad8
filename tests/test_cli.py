"""``halluscope score`` / ``audit`` through the command line: exit codes and one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.cli.main import main

CMM_ROW = {
    "category": "inter-modality_spurious_correlation",
    "sub_category": "visual-language",
    "modality": "visual",
    "granularity": "object-level",
    "correlation_type": "global_frequency",
    "video_path": "./raw_files/a/1.mp4",
    "audio_path": None,
    "question": "Did you see river in the video? Answer with yes or no.",
    "answer": "yes",
    "pred": "Yes.",
}
CDH_ROW = {
    "ts": 1,
    "run": "r",
    "model_name": "m",
    "pair_id": "Pair 1",
    "category": "Counting Anomalies",
    "subcategory": "Body Parts",
    "task": "qa",
    "side": "counterfactual",
    "image_path": "x.png",
    "status": "ok",
    "latency_ms": 1,
    "question": "q?",
    "prompt": "q?",
    "gt": "no",
    "cf_gt": "no",
    "cs_gt": "yes",
    "pred": "no",
    "correct": True,
    "commonsense_error": False,
    "raw": "No.",
}
AVH_ROW = {
    "video_id": "00191",
    "task": "Video-driven Audio Hallucination",
    "text": "Is the man making sound in the audio?",
    "label": "Yes",
    "pred": "Yes",
}
DVB_ROW = {
    "id": 1,
    "image_path": "./test/Chart/a.png",
    "original_caption": "A red bar.",
    "hallucinated_caption": "A red bar.",
    "gt_hallucinated_caption_with_tags": "A <HALLUCINATION>red</HALLUCINATION> bar.",
    "hallucinated_caption_with_tags": "A <HALLUCINATION>red</HALLUCINATION> bar.",
    "data_source": "s",
    "is_use_original": False,
    "validation_passed": True,
    "validation_message": "",
    "attempt": 1,
    "seed": 42,
    "raw_output": "<result>x</result>",
}


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_line_error(err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# (benchmark, file name, content, extra args, what the one line must name)
BAD_INPUTS = [
    ("cmm", "trunc.jsonl", jsonl([CMM_ROW]) + '{"pred": "ye', [], ["trunc.jsonl", "line 2"]),
    ("cmm", "types.jsonl", jsonl([CMM_ROW, {**CMM_ROW, "pred": 5}]), [], ["types.jsonl", "line 2", "'pred'"]),
    (
        "cmm",
        "missing.jsonl",
        jsonl([{k: v for k, v in CMM_ROW.items() if k != "answer"}]),
        [],
        ["missing.jsonl", "line 1", "'answer'"],
    ),
    ("cmm", "empty.jsonl", "", [], ["empty.jsonl", "empty"]),
    (
        "cmm",
        "latin1.jsonl",
        jsonl([CMM_ROW]).encode() + b'{"pred": "caf\xe9"}\n',
        [],
        ["latin1.jsonl", "line 2", "UTF-8"],
    ),
    (
        "cdh-bench",
        "types.jsonl",
        jsonl([CDH_ROW, {**CDH_ROW, "status": ["ok"]}]),
        [],
        ["types.jsonl", "line 2", "'status'"],
    ),
    (
        "cdh-bench",
        "missing.jsonl",
        jsonl([{k: v for k, v in CDH_ROW.items() if k != "side"}]),
        [],
        ["missing.jsonl", "line 1", "'side'"],
    ),
    # a file no record of which has a field of a result (another harness's, or none) is refused,
    # never scored as every record skipped (which a record without status alone would be)
    (
        "cdh-bench",
        "foreign.jsonl",
        jsonl([{"foo": "bar"}, {"baz": 1}]),
        [],
        ["foreign.jsonl", "line 1", "'status'", "missing in every record", "records have baz, foo"],
    ),
    (
        "cdh-bench",
        "lmms.jsonl",
        jsonl([{"doc_id": 0, "resps": [["Yes"]], "filtered_resps": ["Yes"], "target": "yes"}]),
        [],
        ["lmms.jsonl", "missing in every record", "matches no format tried: cdh-bench predictions"],
    ),
    (
        "avhbench",
        "types.json",
        json.dumps([AVH_ROW, {**AVH_ROW, "text": 3}]),
        [],
        ["types.json", "record 2", "'text'"],
    ),
    (
        "detailverifybench",
        "types.json",
        json.dumps([DVB_ROW, {**DVB_ROW, "validation_passed": "yes"}]),
        [],
        ["types.json", "'validation_passed'"],
    ),
    ("detailverifybench", "trunc.json", json.dumps([DVB_ROW])[:-30], [], ["trunc.json", "line 1"]),
    (
        "vidhalluc",
        "tsh.json",
        json.dumps(
            {
                "0": {
                    "video": "v",
                    "Question": "Action A. x\nAction B. y\n",
                    "Correct Answer": "AB",
                    "Model Answer": 7,
                }
            }
        ),
        ["--task", "tsh"],
        ["tsh.json", "'0'", "'Model Answer'"],
    ),
    ("vidhalluc", "sth.json", json.dumps({"v1": 5}), ["--task", "sth", "--gold", "GOLD"], ["sth.json", "v1"]),
]


@pytest.mark.parametrize(
    ("bench", "name", "content", "extra", "needles"), BAD_INPUTS, ids=[f"{b}-{n}" for b, n, *_ in BAD_INPUTS]
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    bench: str,
    name: str,
    content: str | bytes,
    extra: list[str],
    needles: list[str],
) -> None:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    if "GOLD" in extra:
        gold = tmp_path / "sth_gold.json"
        gold.write_text(json.dumps({"v1": {"Scene change": "Yes", "Locations": "from a to b."}}))
        extra = [str(gold) if a == "GOLD" else a for a in extra]
    code, out, err = run(["score", bench, str(path), "--json", *extra], capsys)
    assert code == 2
    assert out == ""
    assert_one_line_error(err, *needles)


def test_a_50_mb_line_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("w") as handle:
        handle.write(json.dumps(CMM_ROW) + "\n")
        handle.write(json.dumps({**CMM_ROW, "pred": "y" * 50_000_000}) + "\n")
    code, _, err = run(["score", "cmm", str(path), "--json"], capsys)
    assert code == 2
    assert_one_line_error(err, "huge.jsonl", "line 2", "limit")


def test_a_50_mb_field_in_a_json_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps([AVH_ROW, {**AVH_ROW, "text": "Is it? " + "x" * 50_000_000}]))
    code, _, err = run(["score", "avhbench", str(path), "--json"], capsys)
    assert code == 2
    assert_one_line_error(err, "huge.json", "record 2", "'text'", "limit")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "cmmm", "x.jsonl"], "did you mean 'cmm'"),
        (["score", "vidhalluc", "x.json"], "needs --task"),
        (["score", "vidhalluc", "x.json", "--task", "bq"], "unknown task 'bq'"),
        (["score", "cmm", "x.jsonl", "--task", "bqa"], "takes no --task"),
        (["score", "cmm", "x.jsonl", "--parser", "magic"], "unknown parser 'magic'"),
        (["score"], "arguments"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    code, _, err = run(args, capsys)
    assert code == 2
    assert_one_line_error(err, needle)


def test_missing_prediction_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", "cmm", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2
    assert_one_line_error(err, "nope.jsonl", "no such file")


def test_vidhalluc_bqa_without_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bqa.json"
    path.write_text(json.dumps({"g": [{"q": "Is he running?", "a": {"c1": "Yes"}}]}))
    code, _, err = run(["score", "vidhalluc", str(path), "--task", "bqa"], capsys)
    assert code == 2
    assert_one_line_error(err, "gold")


def test_json_output_is_one_object_and_text_output_is_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "final_output.json"
    path.write_text(
        jsonl([CMM_ROW, {**CMM_ROW, "question": "Did you see a cat?", "answer": "no", "pred": "nothing"}])
    )
    code, out, err = run(["score", "cmm", str(path), "--json"], capsys)
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["overall"]["accuracy"] == 1.0  # "nothing"[:5] = "nothi" contains "no"
    assert report["parser"] == "official" and report["task"] is None
    code, out, _ = run(["score", "cmm", str(path)], capsys)
    assert code == 0 and "accuracy" in out and "visual-language" in out


def test_console_script_runs_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{")
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.cli", "score", "cmm", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, "bad.jsonl", "line 1")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "analysis.cli", *args]


def test_a_reader_that_is_gone_ends_the_command_quietly() -> None:
    # The read end is closed before the command writes a byte, so its first write meets EPIPE
    # every time: exit 141 (128 + SIGPIPE, as the shell reports for `cat big | head`), stderr silent.
    sample = "samples/cmm/predictions/balanced.jsonl"
    for args in (("score", "cmm", sample, "--json"), ("items", "cmm", sample, "--json")):
        with subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            err = proc.stderr.read()
            assert proc.wait(timeout=120) == 141, err
        assert err == b"", err


def test_items_piped_into_head_gives_the_first_bytes_and_no_noise() -> None:
    # `halluscope items ... --json | head -c 200` through a real pipe: the items of the sample
    # are larger than a pipe buffer, so the writer outlives its reader.
    sample = "samples/cmm/predictions/balanced.jsonl"
    full = subprocess.run(_cli("items", "cmm", sample, "--json"), capture_output=True, check=True).stdout
    assert len(full) > 200
    with subprocess.Popen(
        _cli("items", "cmm", sample, "--json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as writer:
        assert writer.stdout is not None and writer.stderr is not None
        with subprocess.Popen(["head", "-c", "200"], stdin=writer.stdout, stdout=subprocess.PIPE) as head:
            writer.stdout.close()  # only `head` reads the pipe now
            first, _ = head.communicate(timeout=120)
        err = writer.stderr.read()
        code = writer.wait(timeout=120)
    assert first == full[:200]
    assert err == b"", err
    assert code in (0, 141)  # 0 when everything fit in the pipe before head left


def test_warnings_are_lines_of_the_command_like_any_other(capsys: pytest.CaptureFixture[str]) -> None:
    # the STH scorer's warning (no sentence embedder here) was printed bare, by Python's fallback
    import logging

    from analysis.load.catalog import SAMPLE_MANIFEST

    sth = SAMPLE_MANIFEST.parent / "vidhalluc"
    args = ["score", "vidhalluc", str(sth / "predictions/sth/balanced.json"), "--gold", str(sth / "sth.json")]
    for _ in range(2):  # a second run adds no second way out
        assert main([*args, "--task", "sth", "--json"]) == 0
    err = capsys.readouterr().err
    assert all(line.startswith("halluscope: ") for line in err.splitlines()), err
    logging.getLogger("halluscope.vidhalluc").warning("a warning\nover two lines")
    assert capsys.readouterr().err == "halluscope: a warning over two lines\n"


def test_items_of_several_tasks_with_one_tasks_gold_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # Seen in a review of the CLI: the STH gold was read as BQA gold ("group ...: expected a list")
    vid = Path(__file__).resolve().parents[1] / "samples" / "vidhalluc"
    files = [vid / "predictions" / "sth" / "balanced.json", vid / "predictions" / "bqa" / "balanced.json"]
    code, out, err = run(
        ["items", "vidhalluc", *map(str, files), "--gold", str(vid / "sth.json"), "--json"], capsys
    )
    assert code == 2 and out == ""
    assert_one_line_error(err, "sth.json", "this is vidhalluc sth gold, but balanced.json is a bqa file")
    # each task with its own gold still reads
    code, out, _ = run(
        ["items", "vidhalluc", str(files[0]), "--gold", str(vid / "sth.json"), "--json"], capsys
    )
    assert code == 0 and out.count("\n") == 8
