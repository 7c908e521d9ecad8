"""DetailVerifyBench files: the pipeline output loader, gold files, audit, bad input and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_detailverifybench import H, pipeline_record, write

from analysis.benchmarks import detailverifybench as dvb
from analysis.cli.main import main
from analysis.errors import InputError

GOLD_A = f"A {H('red')} car. A dog."
GOLD_B = f"Two {H('cats')} sleep."


def sample_records() -> list[dict[str, Any]]:
    return [
        pipeline_record(GOLD_A, GOLD_A, id="a.png", image_path="./test/Chart/a.png"),
        pipeline_record(
            GOLD_B,
            "NO HALLUCINATION",
            id="b.png",
            image_path="./test/UI/b.png",
            is_use_original=True,
            original_caption="Two dogs sleep.",
        ),
        pipeline_record(
            GOLD_B,
            "garbage",
            id="c.png",
            image_path="c.png",
            validation_passed=False,
            validation_message="Word content does not match the original",
        ),
        pipeline_record(
            GOLD_A,
            None,
            id="d.png",
            image_path="./test/Nature/d.png",
            validation_passed=False,
            validation_message="",
        ),
    ]


def test_load_fills_the_item_table(tmp_path: Path) -> None:
    path = write(tmp_path / "tested_model_output_seed_42.json", sample_records())
    table = dvb.load(path)
    assert table["model"].tolist() == ["tested_model_output_seed_42"] * 4
    assert table["category"].tolist() == ["Chart", "UI", "Unknown", "Nature"]
    assert table["scored"].tolist() == [True, True, False, False]
    assert table["skip_reason"].tolist() == [
        "",
        "",
        "Word content does not match the original",
        "validation_passed is false",
    ]
    assert table["question"].tolist()[:2] == ["A red car. A dog.", "Two dogs sleep."]  # what the model saw
    assert table["gold"][0] == GOLD_A and table["raw_answer"][1] == "NO HALLUCINATION"
    assert table["raw_answer"].isna().tolist() == [False, False, False, True]
    assert (
        table["parsed"].tolist()[:2] == ["01000", "000"] and table["parsed"].isna().tolist()[2:] == [True] * 2
    )
    assert table["correct"].tolist()[:2] == [True, False]
    assert json.loads(table["media"][0]) == [{"kind": "image", "path": "./test/Chart/a.png", "role": "image"}]
    assert table["source"][2] == "tested_model_output_seed_42.json:record 3"
    extra = json.loads(table["extra"][0])
    assert {
        "id",
        "raw_output",
        "validation_message",
        "attempt",
        "seed",
        "data_source",
        "is_use_original",
    } <= set(extra)
    assert "gt_hallucinated_caption_with_tags" not in extra
    # ids: stable across models, different for the same image under another gold (real vs synthetic)
    again = dvb.load(path, model="other")
    assert again["item_id"].tolist() == table["item_id"].tolist() and again["model"][0] == "other"
    assert table["item_id"][1] != table["item_id"][2] and table["item_id"][0].startswith("a.png:")


def test_score_counts_only_valid_records(tmp_path: Path) -> None:
    report = dvb.score(dvb.load(write(tmp_path / "run.json", sample_records())))
    assert (report["n_scored"], report["n_skipped"]) == (2, 2)
    assert report["overall"]["n"] == 2
    # a.png: perfect (1, 1, 1, 1); b.png: NO HALLUCINATION on a tagged gold (0, 0, 0, 0)
    assert report["overall"]["token_f1"] == 0.5 and report["overall"]["token_iou"] == 0.5
    assert set(report["groups"]) == {"domain"}
    assert set(report["groups"]["domain"]) == {"Chart", "UI"}
    assert report["groups"]["domain"]["Chart"]["token_f1"] == 1.0
    assert report["groups"]["domain"]["UI"]["response_recall"] == 0.0


def test_repeated_id_keeps_the_last_record(tmp_path: Path) -> None:
    records = [
        pipeline_record(GOLD_A, "NO HALLUCINATION", id="x.png"),
        pipeline_record(GOLD_A, GOLD_A, id="x.png"),
    ]
    table = dvb.load(write(tmp_path / "run.json", records))
    assert table["scored"].tolist() == [False, True]
    assert "repeated id 'x.png'" in table["skip_reason"][0] and "record 2" in table["skip_reason"][0]
    assert dvb.score(table)["overall"]["token_f1"] == 1.0


def test_records_wrapped_in_data_are_read(tmp_path: Path) -> None:
    table = dvb.load(write(tmp_path / "run.json", [{"data": pipeline_record(GOLD_A, GOLD_A)}]))
    assert table["parsed"][0] == "01000"


def test_score_reparses_with_another_parser(tmp_path: Path) -> None:
    records = [pipeline_record(f"a {H('red')} car", f"a big {H('red')} car")]
    table = dvb.load(write(tmp_path / "run.json", records))
    assert dvb.score(table)["overall"]["token_f1"] == 0.0  # shifted by the inserted word
    aligned = dvb.score(table, parser="aligned")
    assert aligned["parser"] == "aligned" and aligned["overall"]["token_f1"] == 1.0
    with pytest.raises(ValueError, match="unknown parser"):
        dvb.score(table, parser="nope")


def gold_rows() -> list[dict[str, Any]]:
    return [
        {
            "filename": "a.png",
            "category": "Chart",
            "GT_description": "A blue car. A dog.",
            "Modify": "Yes",
            "description_tag": "A <Hallucination>red</Hallucination> car. A dog.",
            "hallucination_labels": [{"text": "red", "labels": ["Object Color Hallucination"]}],
        },
        {
            "filename": "b.png",
            "category": "UI",
            "GT_description": "Two dogs sleep.",
            "Modify": "Yes",
            "description_tag": GOLD_B,
            "hallucination_labels": [{"text": "cats", "labels": ["Object Category Hallucination"]}],
        },
    ]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_gold_labels_add_a_label_type_group(tmp_path: Path) -> None:
    gold = write_jsonl(tmp_path / "real_test.jsonl", gold_rows())
    table = dvb.load(write(tmp_path / "run.json", sample_records()), gold=gold)
    assert json.loads(table["extra"][0])["hallucination_labels"][0]["text"] == "red"
    report = dvb.score(table)
    assert set(report["groups"]) == {"domain", "label_type"}
    assert report["groups"]["label_type"] == {
        "Object Category Hallucination": {
            "token_recall": 0.0,
            "hits": 0,
            "n_tokens": 1,
        },  # b.png: NO HALLUCINATION
        "Object Color Hallucination": {"token_recall": 1.0, "hits": 1, "n_tokens": 1},
    }
    assert report["overall"] == dvb.score(dvb.load(write(tmp_path / "run.json", sample_records())))["overall"]


def test_gold_file_of_another_run_is_refused(tmp_path: Path) -> None:
    gold = write_jsonl(tmp_path / "synthetic_test.jsonl", [{**gold_rows()[0], "description_tag": "other"}])
    with pytest.raises(InputError, match=r"synthetic_test\.jsonl: no gold row"):
        dvb.load(write(tmp_path / "run.json", sample_records()), gold=gold)


def test_load_gold(tmp_path: Path) -> None:
    table = dvb.load_gold([write_jsonl(tmp_path / "real_test.jsonl", gold_rows())])
    assert table["gold"][0] == f"A {H('red')} car. A dog."  # <Hallucination> normalised
    assert table["question"][0] == "A red car. A dog."
    assert table["category"].tolist() == ["Chart", "UI"]
    assert not table["scored"].any() and table["raw_answer"].isna().all()
    assert json.loads(table["extra"][0])["set"] == "real_test"
    assert json.loads(table["media"][1])[0]["path"] == "UI/b.png"
    # the same item as in a pipeline output
    loaded = dvb.load(write(tmp_path / "run.json", sample_records()))
    assert table["item_id"].tolist() == loaded["item_id"].tolist()[:2]


def test_audit_finds_each_problem(tmp_path: Path) -> None:
    rows = [
        *gold_rows(),
        {
            "filename": "c.png",
            "category": "Chart",
            "Modify": "No",
            "description_tag": f"x {H('y')}",
            "hallucination_labels": [{"text": "zzz", "labels": ["Other Hallucination"]}],
        },
        {
            "filename": "d.png",
            "category": "Chart",
            "Modify": "Yes",
            "description_tag": "clean",
            "hallucination_labels": [],
        },
        {
            "filename": "e.png",
            "category": "Chart",
            "Modify": "Yes",
            "description_tag": f"{H('a')} {H('b')} <hallucination>c</HALLUCINATION>",
            "hallucination_labels": [{"text": "a", "labels": ["x"]}, {"text": "b", "labels": ["x"]}],
        },
        {**gold_rows()[1]},
    ]
    media = tmp_path / "media"
    (media / "Chart").mkdir(parents=True)
    Image.new("RGB", (4, 4)).save(media / "Chart" / "a.png")
    (media / "Chart" / "c.png").write_bytes(b"not an image")
    findings = dvb.audit([write_jsonl(tmp_path / "real_test.jsonl", rows)], media_root=media)
    got = {(f.check, f.where.split(" ")[-1].strip("()")) for f in findings}
    assert got == {
        ("unlabelled-tag", "c.png"),
        ("orphan-label", "c.png"),
        ("modify-mismatch", "c.png"),
        ("modify-mismatch", "d.png"),
        ("unrecognised-tag", "e.png"),  # its closing tag without an opening one: told inside it
        ("duplicate-record", "b.png"),
        ("unreadable-media", "c.png"),
        ("missing-media", "b.png"),
        ("missing-media", "d.png"),
        ("missing-media", "e.png"),
    }
    dup = next(f for f in findings if f.check == "duplicate-record")
    assert "lines 2" not in dup.detail and "line 2" in dup.detail and "line 6" in dup.detail
    typo = next(f for f in findings if f.check == "unrecognised-tag")
    assert typo.detail.startswith("tag spelling the scorer does not read: <hallucination>; so the scorer")


def test_a_misspelt_tag_is_one_finding_and_a_problem_of_its_own_stays_apart(tmp_path: Path) -> None:
    """A lower-case tag made three findings (the spelling, the label it left unmatched, "Modify
    is Yes but the caption has no tag"): one cause, now one finding; an unclosed tag elsewhere in
    the caption is no consequence of it and stays a finding of its own."""
    rows = [
        {
            "filename": "f.png",
            "category": "Chart",
            "Modify": "Yes",
            "description_tag": "<hallucination>a</hallucination> and <HALLUCINATION>b",
            "hallucination_labels": [{"text": "a", "labels": ["x"]}],
        },
        {
            "filename": "g.png",
            "category": "Chart",
            "Modify": "Yes",
            "description_tag": "<hallucination>a</hallucination> only",
            "hallucination_labels": [{"text": "a", "labels": ["x"]}],
        },
    ]
    findings = dvb.audit([write_jsonl(tmp_path / "real_test.jsonl", rows)], media_root=None)
    by_row = {name: [f for f in findings if name in f.where] for name in ("f.png", "g.png")}
    assert [f.check for f in by_row["g.png"]] == ["unrecognised-tag"]
    detail = by_row["g.png"][0].detail
    assert "label text that matches no tag: 'a'" in detail and "has no tag" in detail
    assert [f.check for f in by_row["f.png"]] == ["unrecognised-tag", "malformed-tags"]
    assert "matches no tag" in by_row["f.png"][0].detail


# ---------------------------------------------------------------- bad input

BAD_FILES = [
    (b"", "file is empty", None),
    (b'[{"id": "a"', "is the file truncated", None),
    (b"\xff\xfe[]", "is not UTF-8 text", None),  # a UTF-16 mark: named as not UTF-8, not as a bad byte
    (b'{"a": 1}\n{"b": 2}\n', "field 'id'", "line 1"),
    (b"[1, 2]", "expected a JSON object", "record 1"),
]


@pytest.mark.parametrize(("content", "message", "record"), BAD_FILES)
def test_bad_files(tmp_path: Path, content: bytes, message: str, record: str | None) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as err:
        dvb.load(path)
    assert err.value.path == str(path)
    if record:
        assert err.value.record == record


@pytest.mark.parametrize(
    ("change", "record", "field"),
    [
        ({"validation_passed": "yes"}, "record 2", "validation_passed"),
        ({"gt_hallucinated_caption_with_tags": None}, "record 2", "gt_hallucinated_caption_with_tags"),
        ({"hallucinated_caption_with_tags": 3}, "record 2", "hallucinated_caption_with_tags"),
        ({"hallucinated_caption_with_tags": None}, "record 2", "hallucinated_caption_with_tags"),
        ({"image_path": ["x"]}, "record 2", "image_path"),
        ({"id": None}, "record 2", "id"),
        ({"is_use_original": "no"}, "record 2", "is_use_original"),
    ],
)
def test_wrong_fields_are_named(tmp_path: Path, change: dict[str, Any], record: str, field: str) -> None:
    records = [pipeline_record(GOLD_A, GOLD_A), pipeline_record(GOLD_A, GOLD_A, **change)]
    with pytest.raises(InputError) as err:
        dvb.load(write(tmp_path / "run.json", records))
    assert (err.value.record, err.value.field) == (record, field)


def test_missing_key_is_named(tmp_path: Path) -> None:
    record = pipeline_record(GOLD_A, GOLD_A)
    del record["validation_passed"]
    with pytest.raises(InputError, match=r"run\.json: record 1: field .validation_passed.: missing"):
        dvb.load(write(tmp_path / "run.json", [record]))


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"filename": "a.png", "category": "Chart"}, "description_tag"),
        (
            {"filename": "a.png", "category": "Chart", "description_tag": "x", "hallucination_labels": "red"},
            "hallucination_labels",
        ),
        (
            {
                "filename": "a.png",
                "category": "Chart",
                "description_tag": "x",
                "hallucination_labels": [{"labels": []}],
            },
            "hallucination_labels[0].text",
        ),
        (
            {
                "filename": "a.png",
                "category": "Chart",
                "description_tag": "x",
                "hallucination_labels": [{"text": "x", "labels": "Color"}],
            },
            "hallucination_labels[0].labels",
        ),
    ],
)
def test_bad_gold_rows(tmp_path: Path, row: dict[str, Any], field: str) -> None:
    path = write_jsonl(tmp_path / "real_test.jsonl", [gold_rows()[0], row])
    with pytest.raises(InputError) as err:
        dvb.load_gold([path])
    assert (err.value.record, err.value.field) == ("line 2", field)


# ---------------------------------------------------------------- command line


def test_cli_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "run.json", sample_records())
    assert main(["score", "detailverifybench", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["overall"]) == [
        "token_precision",
        "token_recall",
        "token_f1",
        "token_iou",
        "sentence_precision",
        "sentence_recall",
        "sentence_f1",
        "response_precision",
        "response_recall",
        "response_f1",
        "n",
    ]
    assert (report["parser"], report["task"], report["n_scored"], report["n_skipped"]) == (
        "official",
        None,
        2,
        2,
    )
    assert main(["score", "detailverifybench", str(path), "--parser", "aligned", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parser"] == "aligned"
    gold = write_jsonl(tmp_path / "real_test.jsonl", gold_rows())
    assert main(["score", "detailverifybench", str(path), "--gold", str(gold), "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["groups"]) == {"domain", "label_type"}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--task", "x"], "takes no --task"),
        (["--parser", "first-word"], "unknown parser"),
    ],
)
def test_cli_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    path = write(tmp_path / "run.json", sample_records())
    assert main(["score", "detailverifybench", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = sample_records()
    records[1]["validation_passed"] = "true"
    path = write(tmp_path / "run.json", records)
    assert main(["score", "detailverifybench", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"halluscope: {path}: record 2: field 'validation_passed': expected a boolean, got a string\n"
    )


def test_cli_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = write_jsonl(tmp_path / "real_test.jsonl", [*gold_rows(), gold_rows()[0]])
    assert main(["audit", "detailverifybench", str(gold), "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["check"] for f in findings] == ["duplicate-record"]
    # two files of one name in two folders, each without a repeat: no repeat (it was keyed by the name)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_jsonl(tmp_path / "a" / "real_test.jsonl", gold_rows())
    other = write_jsonl(tmp_path / "b" / "real_test.jsonl", gold_rows())
    assert main(["audit", "detailverifybench", str(first), str(other), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_an_empty_list_scores_zero_items(tmp_path: Path) -> None:
    report = dvb.score(dvb.load(write(tmp_path / "run.json", [])))
    assert (report["n_scored"], report["n_skipped"], report["groups"]) == (0, 0, {"domain": {}})
    assert report["overall"]["n"] == 0 and report["overall"]["token_f1"] == 0.0  # the official empty mean
