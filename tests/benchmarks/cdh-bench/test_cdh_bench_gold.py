"""cdh-bench: reading benchmark.jsonl and auditing it (each check on a set built to trip it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cdh_bench_synth import gold_line, record, write_jsonl

from analysis.benchmarks import cdh_bench
from analysis.cli.main import main
from analysis.errors import InputError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16


def test_load_gold_300_pairs(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "benchmark.jsonl", [gold_line(i) for i in range(300)])
    table = cdh_bench.load_gold([path])
    assert len(table) == 1200 and table["item_id"].is_unique
    assert set(table["model"].astype(str)) == {""} and not table["scored"].any()
    assert table["raw_answer"].isna().all()
    # pair 2 (index 1) was written with its keys in reverse order
    rows = table[table["pair_id"] == "Pair 2"].set_index(["task", "side"])
    assert (
        rows.loc[("qa", "counterfactual"), "gold"] == "no"
        and rows.loc[("qa", "commonsense"), "gold"] == "yes"
    )
    assert (rows.loc[("mc", "counterfactual"), "gold"], rows.loc[("mc", "commonsense"), "gold"]) == ("B", "C")
    assert rows.loc[("mc", "commonsense"), "question"] == "How many fingers are on the hand?"
    # n = 3: the counterfactual gold B says 4 fingers, the commonsense gold C says 3, A the spare 5
    options = json.loads(rows.loc[("mc", "commonsense"), "options"])
    assert options[:3] == ["A. 5 fingers", "B. 4 fingers", "C. 3 fingers"]
    assert rows.loc[("qa", "commonsense"), "options"] == ""
    media = json.loads(rows.loc[("qa", "counterfactual"), "media"])
    assert media == [
        {"kind": "image", "path": "images/Sub_1_x/Pair_2/counterfactual.png", "role": "counterfactual"}
    ]
    assert json.loads(rows.loc[("qa", "counterfactual"), "extra"]) == {"pair_name": "4 fingers vs 3 fingers"}
    assert rows.loc[("qa", "counterfactual"), "source"] == "benchmark.jsonl:line 2"


def test_gold_item_ids_join_the_results(tmp_path: Path) -> None:
    gold = cdh_bench.load_gold([write_jsonl(tmp_path / "benchmark.jsonl", [gold_line(i) for i in range(3)])])
    sides = ("commonsense", "counterfactual")
    keys = [(i, task, side) for i in range(3) for task in ("qa", "mc") for side in sides]
    results = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", [record(*key, "x") for key in keys]))
    assert sorted(gold["item_id"]) == sorted(results["item_id"])
    joined = results.merge(gold[["item_id", "gold"]], on="item_id", suffixes=("", "_file"))
    assert (joined["gold"] == joined["gold_file"]).all()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"direct_qa": None}, "'direct_qa'"),
        ({"direct_qa": {"question": "q?", "commonsense_gt": "yes"}}, "'direct_qa.counterfactual_gt'"),
        (
            {
                "multiple_choice": {
                    "question": "q",
                    "options": 4,
                    "commonsense_gt": "A",
                    "counterfactual_gt": "B",
                }
            },
            "'multiple_choice.options'",
        ),
        ({"pair_id": 5}, "'pair_id'"),
    ],
)
def test_bad_gold_raises_located_input_error(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    path = write_jsonl(tmp_path / "benchmark.jsonl", [gold_line(0), gold_line(1, **change)])
    with pytest.raises(InputError) as err:
        cdh_bench.load_gold([path])
    assert (
        "benchmark.jsonl" in err.value.line() and "line 2" in err.value.line() and field in err.value.line()
    )


def _problem_set() -> list[dict[str, Any]]:
    """Ten clean pairs (CF no / CS yes) and one pair per problem."""
    lines = [gold_line(i) for i in range(100, 110)]  # Pair 101 .. Pair 110
    lines.append(
        gold_line(
            10,
            pair_id="Pair 236",
            pair_name="hot ice vs cold ice",
            direct_qa={
                "question": "Is the ice cold and not hot?",
                "commonsense_gt": "no",
                "counterfactual_gt": "yes",
            },
        )
    )
    mc = {"question": "How many thumbs are on the hands?", "commonsense_gt": "A", "counterfactual_gt": "C"}
    lines.append(
        gold_line(
            11,
            pair_id="Pair 9",
            pair_name="3 thumbs vs 2 thumbs",
            multiple_choice={
                **mc,
                "options": [
                    "A. Each hand has 1 thumb",
                    "B. Each hand has 2 thumbs",
                    "C. One hand has 3 thumbs",
                    "D. One hand has 3 thumbs",
                ],
            },
        )
    )
    lines.append(
        gold_line(
            12,
            pair_id="Pair 56",
            multiple_choice={**mc, "options": ["A. 2 fingers • B. 1 finger • C. 3 fingers • D. 4 fingers"]},
        )
    )
    lines.append(
        gold_line(13, pair_id="Pair 57", multiple_choice={**mc, "options": "A. 1, B. 2, C. 3, D. 4 fingers"})
    )
    lines.append(
        gold_line(
            14,
            pair_id="Pair 171",
            pair_name="cat is building-sized, bed is tiny vs normal cat",
            direct_qa={
                "question": "Is the cat normal-sized?",
                "commonsense_gt": "yes",
                "counterfactual_gt": "no",
            },
            multiple_choice={
                **mc,
                "question": "How do the cat and bed sizes compare?",
                "options": [
                    "A. Bed is larger than cat",
                    "B. Cat and bed are proportional",
                    "C. No cat",
                    "D. Cat is building-sized",
                    "bed is tiny",
                ],
            },
        )
    )
    lines.append(
        gold_line(
            15,
            pair_id="Pair 222",
            pair_name="a cube moon vs a round moon",  # no count: the name cannot be compared
            multiple_choice={
                **mc,
                "options": ["A. 5 fingers", "B. 6 fingers", "C. 4 fingers", "D. 7 fingers"],
                "commonsense_gt": "B",
                "counterfactual_gt": "B",
            },
        )
    )
    lines.append(
        gold_line(
            16,
            pair_id="Pair 77",
            pair_name="6 wheels vs 4 wheels",
            direct_qa={
                "question": "Does the car have 4 wheels and not 6 wheels?",
                "commonsense_gt": "yes",
                "counterfactual_gt": "no",
            },
            multiple_choice={
                "question": "How many blades do these scissors have?",
                "commonsense_gt": "C",
                "counterfactual_gt": "A",
                "options": ["A. 6 wheels", "B. 2 wheels", "C. 4 wheels", "D. 8 wheels"],
            },
        )
    )
    lines.append(
        gold_line(
            17,
            pair_id="Pair 400",
            multiple_choice={
                **mc,
                "options": ["A. 5 fingers", "B. 6 fingers", "C. 4 fingers", "D. 7 fingers"],
                "counterfactual_gt": "E",
            },
        )
    )
    # a generic question fits any pair: no question-mismatch
    lines.append(
        gold_line(
            18,
            pair_id="Pair 185",
            pair_name="footprints generating feet vs feet creating footprints",
            direct_qa={
                "question": "Are feet creating footprints?",
                "commonsense_gt": "yes",
                "counterfactual_gt": "no",
            },
            multiple_choice={
                **mc,
                "question": "What is the causal relationship?",
                "options": [
                    "A. Neither causes the other",
                    "B. Feet create footprints",
                    "C. Both at once",
                    "D. Footprints generate feet",
                ],
            },
        )
    )
    lines.append(gold_line(19, pair_id="Pair 103"))  # repeats gold_line(102)'s id
    return lines


EXPECTED = {
    ("inverted-polarity", "Pair 236"),
    ("duplicate-options", "Pair 9"),
    ("malformed-options", "Pair 56"),
    ("malformed-options", "Pair 57"),
    ("malformed-options", "Pair 171"),
    ("same-gold-both-sides", "Pair 222"),
    ("question-mismatch", "Pair 77"),
    ("invalid-gold", "Pair 400 counterfactual"),
    ("duplicate-record", "Pair 103"),
}  # fmt: skip


def test_audit_finds_each_planted_problem_and_nothing_else(tmp_path: Path) -> None:
    findings = cdh_bench.audit([write_jsonl(tmp_path / "benchmark.jsonl", _problem_set())])
    assert {(f.check, f.where) for f in findings} == EXPECTED
    by_where = {f.where: f for f in findings}
    assert (
        "'C. One hand has 3 thumbs'" not in by_where["Pair 9"].detail
        and "C and D" in by_where["Pair 9"].detail
    )
    assert "run together" in by_where["Pair 56"].detail
    assert "one string" in by_where["Pair 57"].detail
    assert "5 entries" in by_where["Pair 171"].detail and "'bed is tiny'" in by_where["Pair 171"].detail
    assert by_where["Pair 77"].severity == "warning" and "never mention" in by_where["Pair 77"].detail
    assert by_where["Pair 222"].severity == "error"
    # Pair 103 twice with different content: its items would get two golds (an exact repeat is a warning)
    assert by_where["Pair 103"].severity == "error" and "different content" in by_where["Pair 103"].detail
    assert {(x.field, x.value) for x in by_where["Pair 103"].fix} == {("flag", "ambiguous")}
    assert len(by_where["Pair 103"].fix) == 4  # each of the pair's items
    # the name ("hot ice vs cold ice") says the question states the commonsense side first, so
    # commonsense should be yes: an error, and the fix swaps the two sides' gold
    inverted = by_where["Pair 236"]
    assert inverted.severity == "error" and "Is the ice cold" in inverted.detail
    assert len(inverted.item_ids) == 2  # the two qa rows
    assert sorted((f.field, f.value) for f in inverted.fix) == [("gold", "no"), ("gold", "yes")]
    gold_ids = set(cdh_bench.load_gold([tmp_path / "benchmark.jsonl"])["item_id"])
    assert all(set(f.item_ids) <= gold_ids and f.item_ids for f in findings)


def test_a_pair_repeated_exactly_is_a_warning(tmp_path: Path) -> None:
    lines = [gold_line(i) for i in range(4)] + [gold_line(2)]
    findings = cdh_bench.audit([write_jsonl(tmp_path / "benchmark.jsonl", lines)])
    repeated = [f for f in findings if f.check == "duplicate-record"]
    assert [(f.where, f.severity) for f in repeated] == [("Pair 3", "warning")]
    assert "repeated exactly" in repeated[0].detail and "line 3, benchmark.jsonl:line 5" in repeated[0].detail
    assert repeated[0].fix == ()  # nothing to correct


def test_polarity_follows_the_majority_of_the_set(tmp_path: Path) -> None:
    # Most pairs here run CF yes / CS no: then the CF no / CS yes pair is the odd one out.
    flipped = {"question": "Does the hand have fingers?", "commonsense_gt": "no", "counterfactual_gt": "yes"}
    lines = [gold_line(i, direct_qa=flipped) for i in range(5)] + [gold_line(5)]
    findings = cdh_bench.audit([write_jsonl(tmp_path / "benchmark.jsonl", lines)])
    assert [(f.check, f.where) for f in findings] == [("inverted-polarity", "Pair 6")]
    # a tie says nothing
    tie = [gold_line(0, direct_qa=flipped), gold_line(1)]
    assert cdh_bench.audit([write_jsonl(tmp_path / "tie.jsonl", tie)]) == []


def test_audit_images(tmp_path: Path) -> None:
    lines = [gold_line(i) for i in range(4)]
    gold = write_jsonl(tmp_path / "benchmark.jsonl", lines)
    root = tmp_path / "data"
    files = {  # pair index -> (commonsense bytes, counterfactual bytes); None = no file
        0: (PNG, JPEG),
        1: (PNG, None),
        2: (b"", PNG),
        3: (b"GIF89a....", PNG),
    }
    for i, contents in files.items():
        for side, data in zip(("commonsense", "counterfactual"), contents, strict=True):
            if data is not None:
                path = root / "images" / f"Sub_{i}_x" / f"Pair_{i + 1}" / f"{side}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
    expected = {
        ("missing-media", "Pair 2 counterfactual"),
        ("unreadable-media", "Pair 3 commonsense"),
        ("unreadable-media", "Pair 4 commonsense"),
    }
    for media_root in (root, root / "images"):  # the data folder or the images folder itself
        findings = cdh_bench.audit([gold], media_root=media_root)
        assert {(f.check, f.where) for f in findings} == expected
    details = {f.where: f.detail for f in cdh_bench.audit([gold], media_root=root)}
    assert "empty" in details["Pair 3 commonsense"] and "PNG or JPEG" in details["Pair 4 commonsense"]
    assert cdh_bench.audit([gold]) == []  # no media root: images are not checked


def test_cli_audit_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "benchmark.jsonl", _problem_set())
    assert main(["audit", "cdh-bench", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"] == "cdh-bench"
    assert {(f["check"], f["where"]) for f in out["findings"]} == EXPECTED
