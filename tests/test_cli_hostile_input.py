"""Hostile files through ``halluscope score``: exit 2 and one line naming file, record and field.

Each case here was a finding of issue 8 (882 malformed files over every benchmark): an unreadable
file exited 1 as an internal error, a key repeated inside one JSON record was read silently with
the last value winning (AVHBench accuracy moved 0.651 -> 0.628), and STH with nothing to score
gave ``mcc: null`` where the contract says 0.
"""

from __future__ import annotations

import io as stdio
import json
from pathlib import Path
from typing import Any

import pytest

from analysis.cli.main import main

AVH_ROWS = [
    {
        "video_id": "00191",
        "task": "Video-driven Audio Hallucination",
        "text": "Is the man making sound in the audio?",
        "label": "Yes",
        "pred": "Yes",
    },
    {
        "video_id": "00192",
        "task": "Video-driven Audio Hallucination",
        "text": "Is a dog barking in the audio?",
        "label": "No",
        "pred": "No",
    },
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_an_unreadable_file_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(AVH_ROWS), encoding="utf-8")
    real_open = stdio.open

    def refuse(file: Any, *args: Any, **kwargs: Any) -> Any:
        # chmod 000 does not stop root (these tests may run as root): refuse the file's opening the
        # way the kernel does for anyone else
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(stdio, "open", refuse)
    code, out, err = run(["score", "avhbench", str(path), "--json"], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "internal error" not in err
    assert str(path) in err and "Permission denied" in err


@pytest.mark.parametrize("layout", ["json", "jsonl"])
def test_a_key_given_twice_in_a_record_exits_2_naming_file_record_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    first = json.dumps(AVH_ROWS[0])
    # record 2 says "label" twice; a parser keeping the last value scores it against "Yes"
    second = json.dumps(AVH_ROWS[1])[:-1] + ', "label": "Yes"}'
    path = tmp_path / f"preds.{layout}"
    path.write_text(f"[{first},\n{second}]" if layout == "json" else f"{first}\n{second}\n", encoding="utf-8")
    code, out, err = run(["score", "avhbench", str(path), "--json"], capsys)
    assert (code, out) == (2, "")
    record = "record 2" if layout == "json" else "line 2"  # counted from 1, like every other error
    assert (
        err == f"halluscope: {path}: {record}: field 'label': key given twice in one record "
        "(which value is meant is ambiguous)\n"
    )


def test_a_key_given_twice_deep_inside_a_keyed_file_names_the_top_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "sth.json"
    gold.write_text(
        '{"a": {"Scene change": "No", "Locations": "None"},\n'
        ' "b": {"Scene change": "Yes", "Scene change": "No", "Locations": "None"}}',
        encoding="utf-8",
    )
    pred = tmp_path / "p.json"
    pred.write_text('{"a": "Scene change: No", "b": "Scene change: No"}', encoding="utf-8")
    code, _, err = run(
        ["score", "vidhalluc", str(pred), "--gold", str(gold), "--task", "sth", "--json"], capsys
    )
    assert code == 2
    assert f"{gold}: key 'b': field 'Scene change': key given twice" in err


def test_distinct_keys_at_different_depths_are_not_duplicates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{**row, "extra": {"label": "x", "pred": {"label": "y"}}} for row in AVH_ROWS]
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    code, out, _ = run(["score", "avhbench", str(path), "--json"], capsys)
    assert code == 0 and json.loads(out)["overall"]["accuracy"] == 1.0


def test_sth_with_nothing_to_score_gives_mcc_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "sth.json"
    gold.write_text(json.dumps({"a": {"Scene change": "No", "Locations": "None"}}), encoding="utf-8")
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps({"zzz": "Scene change: No"}), encoding="utf-8")  # no id in both files
    code, out, _ = run(
        ["score", "vidhalluc", str(pred), "--gold", str(gold), "--task", "sth", "--json"], capsys
    )
    assert code == 0
    report = json.loads(out)
    assert report["n_scored"] == 0
    # MCC 0 (cli.md), classification ((0 + 1) / 2)^2 = 0.25, description 0 (no both-yes), score 0.15
    assert report["overall"] == {
        "mcc": 0.0,
        "classification_score": 0.25,
        "description_score": 0.0,
        "score": 0.15,
        "n": 0,
    }


SAMPLES = Path(__file__).resolve().parents[1] / "samples"


IMPORT_CMM = ["import", "cmm", "{corrections}", "--db", "{db}", "--reviewer", "x", "--gold"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        # each was told as a bad record or invalid JSON of a file that is well formed (a review of
        # the contract: "a line saying ... what the file lacks"), while score said what it was
        (
            [*IMPORT_CMM, "vidhalluc/ach_binaryqa.json"],
            "vidhalluc gold, not cmm",
        ),
        (
            [*IMPORT_CMM, "avhbench/QA.json"],
            "avhbench gold, not cmm",
        ),
        (
            [
                "items",
                "avhbench",
                "avhbench/predictions/balanced.json",
                "--gold",
                "cmm/all_data_final_reorg.json",
            ],
            "cmm gold, not avhbench",
        ),
        (
            [
                "pairs",
                "score",
                "cmm/predictions/balanced.jsonl",
                "--media-root",
                "{media}",
                "--clip",
                "{db}",
                "--dino",
                "{db}",
                "--out",
                "{out}",
            ],
            "cmm predictions, not vidhalluc",
        ),
    ],
)
def test_another_benchmarks_file_is_named_as_such(
    args: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corrections = tmp_path / "corrections.csv"
    corrections.write_text("item_id,field,value,reason\nx,gold,yes,checked\n")
    filled = {
        "corrections": str(corrections),
        "db": str(tmp_path / "labels.db"),
        "out": str(tmp_path / "o.json"),
        "media": f"vidhalluc={SAMPLES / 'vidhalluc' / 'media'}",
    }
    argv = [a.format(**filled) if "{" in a else (str(SAMPLES / a) if "/" in a else a) for a in args]
    code, out, err = run(argv, capsys)
    assert code == 2 and not out and err.count("\n") == 1, err
    assert f"this looks like {named}" in err and "Traceback" not in err
    assert not (tmp_path / "labels.db").exists()  # nothing written


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("avhbench/media/00191.mp4", "an MP4 or MOV video"),
        ("detailverifybench/media/Poster/poster_12.png", "a PNG image"),
        ("detailverifybench/media/Nature/test_00101.jpg", "a JPEG image"),
        ("cmm/media/reorg_raw_files/audio-language/birdsong/60218845.wav", "a WAV audio file"),
    ],
)
def test_a_media_file_given_as_results_says_what_it_is(
    name: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a PNG was refused as "not UTF-8 text (UTF-16 or UTF-32, by its bytes)": its NUL bytes
    path = SAMPLES / name  # media the sample generator makes
    code, out, err = run(["score", "cmm", str(path)], capsys)
    assert code == 2 and not out and f"is {kind}, not a text file" in err and "UTF" not in err


def test_a_real_release_file_of_no_format_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # DetailVerifyBench's leaderboard.json (an object with a "_comment", in the shape of its
    # release) looks like an {id: text} results file: its missing field was told without
    # "matches no format tried"
    path = tmp_path / "leaderboard.json"
    board = {
        "_comment": "Leaderboard data.",
        "models": [{"model": "A", "type": "open", "overall": {"f1": 0.5}}],
    }
    path.write_text(json.dumps(board))
    code, _, err = run(["score", "detailverifybench", str(path)], capsys)
    assert code == 2 and "the file matches no format tried: detailverifybench predictions" in err
