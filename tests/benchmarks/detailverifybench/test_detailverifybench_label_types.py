"""Label types named in corrected tags: the tag syntax, the entries rule, and the round trip to files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.benchmarks.detailverifybench.label_types import (
    LABEL_TYPES,
    corrected_entries,
    tag_types,
    type_choices,
)
from analysis.benchmarks.detailverifybench.tagging import TAGGED
from analysis.benchmarks.detailverifybench.tags import split_types, tagged_to_spans, typed_spans, untag
from analysis.errors import InvalidLabel

CASES_FILE = Path(__file__).resolve().parents[2] / "cases" / "detailverifybench.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
TYPE_CASES = [c for c in CASES if c["kind"] == "label_types"]
ORIGINAL = "A <HALLUCINATION>red</HALLUCINATION> car and a blue sky."


def test_the_case_file_has_label_type_cases() -> None:
    assert len(TYPE_CASES) >= 8


@pytest.mark.parametrize("case", TYPE_CASES, ids=lambda c: c["why"][:40])
def test_each_tag_gets_the_type_of_the_case(case: dict) -> None:
    assert tag_types(case["raw_answer"], case["labels"]) == case["expected_parse"], case["why"]


@pytest.mark.parametrize("case", TYPE_CASES, ids=lambda c: c["why"][:40])
def test_written_entries_give_the_same_types_when_read_back_officially(case: dict) -> None:
    """The entries the export writes, matched by the official rule against the plain tags, give the types."""
    from analysis.benchmarks.detailverifybench.spans import match_labels

    plain, _ = split_types(case["raw_answer"])
    clean = untag(plain)
    texts = [clean[s:e] for s, e in tagged_to_spans(plain)]
    written = json.loads(json.dumps(corrected_entries(case["raw_answer"], case["labels"])))
    assert match_labels(texts, written) == case["expected_parse"]
    assert "type=" not in plain


def test_a_typed_tag_is_stored_in_one_spelling() -> None:
    typed = 'A <hallucination  TYPE = " OCR   Hallucination ">red car</Hallucination> and a blue sky.'
    assert TAGGED.normalize(typed, ORIGINAL) == (
        'A <HALLUCINATION type="OCR Hallucination">red car</HALLUCINATION> and a blue sky.'
    )
    spans = '{"spans": [[2, 5, "Object Color Hallucination"], [16, 20]]}'
    assert TAGGED.normalize(spans, ORIGINAL) == (
        'A <HALLUCINATION type="Object Color Hallucination">red</HALLUCINATION> car and a '
        "<HALLUCINATION>blue</HALLUCINATION> sky."
    )


def test_unknown_or_empty_type_names_nothing() -> None:
    for name in ("Unknown", "unknown", "", "  "):
        value = f'A <HALLUCINATION type="{name}">red</HALLUCINATION> car and a blue sky.'
        assert TAGGED.normalize(value, ORIGINAL) == ORIGINAL


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ('A <HALLUCINATION type="' + "x" * 81 + '">red</HALLUCINATION> car and a blue sky.', "too long"),
        ("A <HALLUCINATION type=\"a'>red</HALLUCINATION> car and a blue sky.", "unquoted attribute"),
        ('A red car and a <HALLUCINATION type="OCR">blue sky.', "not closed"),
    ],
)
def test_a_malformed_type_is_refused(value: str, why: str) -> None:
    with pytest.raises(InvalidLabel):
        TAGGED.normalize(value, ORIGINAL)


@pytest.mark.parametrize(
    "spans",
    [
        '"x"',
        "[[2]]",
        '[["a", 5]]',
        "[2, 5]",
        "[[2, 5, 7]]",
        "[[2, 5, true]]",
        "[[true, 5]]",
        "[[2, 5, 1, 2]]",
    ],
)
def test_malformed_spans_are_refused_by_name(spans: str) -> None:
    """Not a crash (an IndexError reached ``import`` as an internal error): a refusal that says why."""
    with pytest.raises(InvalidLabel, match=r"spans? .*(start, end|list)"):
        TAGGED.normalize('{"spans": ' + spans + "}", ORIGINAL)


def test_import_names_the_file_line_and_field_of_a_malformed_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corrections_support import SAMPLES

    from analysis.cli.main import main
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    table = load_manifest(SAMPLE_MANIFEST).table
    item = str(table.loc[table["benchmark"] == "detailverifybench", "item_id"].iloc[0])
    fixes = tmp_path / "fixes.jsonl"
    row = {"item_id": item, "field": "gold", "value": json.dumps({"spans": [[2]]}), "reason": "r"}
    fixes.write_text(json.dumps(row) + "\n", encoding="utf-8")
    gold = SAMPLES / "detailverifybench" / "real_test.jsonl"
    code = main(["import", "detailverifybench", str(fixes), "--db", str(tmp_path / "l.db"), "--reviewer", "a",
                 "--gold", str(gold)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "fixes.jsonl: line 1: field 'value': span 0 must be" in err


def test_the_text_still_may_not_change_under_a_typed_tag() -> None:
    with pytest.raises(InvalidLabel, match="only the tags may change"):
        TAGGED.normalize('A <HALLUCINATION type="OCR Hallucination">blue</HALLUCINATION> car.', ORIGINAL)


def test_split_types_leaves_untyped_captions_as_they_are() -> None:
    assert split_types(ORIGINAL) == (ORIGINAL, [])
    plain, kinds = split_types('A <HALLUCINATION type="OCR Hallucination">red</HALLUCINATION> car.')
    assert plain == "A <HALLUCINATION>red</HALLUCINATION> car." and kinds == ["OCR Hallucination"]
    assert typed_spans('<HALLUCINATION type="X Y"></HALLUCINATION>a') == []  # an empty pair goes


def test_choices_are_the_benchmark_types_then_those_seen() -> None:
    assert len(LABEL_TYPES) == 13 and len(set(LABEL_TYPES)) == 13
    assert type_choices(["Weird Hallucination", "Unknown", "OCR Hallucination"]) == [
        *LABEL_TYPES,
        "Weird Hallucination",
    ]


def test_named_types_survive_the_export_and_score_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A merged tag and a new one, each with a named type: ``score --corrected`` equals the export's score."""
    from corrections_support import SAMPLES, copy_of, write_jsonl

    from analysis.cli.main import main
    from analysis.review.corrected import common_folder

    def run(args: list[object]) -> str:
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert code == 0, err
        return out

    pred = SAMPLES / "detailverifybench" / "predictions" / "balanced.json"
    gold = SAMPLES / "detailverifybench" / "real_test.jsonl"
    items = [
        json.loads(x)
        for x in run(["items", "detailverifybench", pred, "--gold", gold, "--json"]).splitlines()
    ]
    tagged = [i for i in items if i["scored"] and len(tagged_to_spans(i["gold"])) >= 2]
    assert len(tagged) >= 2
    first, second = tagged[0], tagged[1]
    # the first item: its first two tags merged into one, typed
    clean = untag(first["gold"])
    (a, _), (_, b), *rest = tagged_to_spans(first["gold"])
    merged = json.dumps({"spans": [[a, b, "Camera Hallucination"], *[[s, e] for s, e in rest]]})
    # the second: every tag kept, and a new typed tag on the caption's last word
    clean2 = untag(second["gold"])
    last = clean2.rstrip(". ").rsplit(" ", 1)[1]
    at = clean2.rindex(last)
    added = json.dumps(
        {
            "spans": [
                *[[s, e] for s, e in tagged_to_spans(second["gold"])],
                [at, at + len(last), "Scene Hallucination"],
            ]
        }
    )
    fixes = write_jsonl(
        tmp_path / "fixes.jsonl",
        [
            {"item_id": first["item_id"], "field": "gold", "value": merged, "reason": "one claim, one span"},
            {
                "item_id": second["item_id"],
                "field": "gold",
                "value": added,
                "reason": "the last word is wrong too",
            },
        ],
    )
    db = tmp_path / "labels.db"
    run(["import", "detailverifybench", fixes, "--db", db, "--reviewer", "alice", "--gold", gold])
    official = json.loads(run(["score", "detailverifybench", pred, "--gold", gold, "--json"]))
    corrected = json.loads(
        run(["score", "detailverifybench", pred, "--gold", gold, "--db", db, "--corrected", "--json"])
    )
    corrected.pop("gold_changes")
    types = corrected["groups"]["label_type"]
    assert "Unknown" not in types  # the merged tag took its named type, not Unknown
    assert "Scene Hallucination" in types and "Scene Hallucination" not in official["groups"]["label_type"]
    assert (
        types["Camera Hallucination"]["n_tokens"]
        > official["groups"]["label_type"]["Camera Hallucination"]["n_tokens"]
    )
    assert clean == untag(first["gold"])

    out = tmp_path / "native"
    run(["export", "detailverifybench", "--db", db, "--format", "native", "--out", out, "--gold", pred, gold])
    base = common_folder([pred, gold])
    gold_copy, pred_copy = copy_of(gold, out, base), copy_of(pred, out, base)
    assert "type=" not in gold_copy.read_text(encoding="utf-8")  # the files carry official tags only
    assert "type=" not in pred_copy.read_text(encoding="utf-8")
    again = json.loads(run(["score", "detailverifybench", pred_copy, "--gold", gold_copy, "--json"]))
    assert again == corrected
