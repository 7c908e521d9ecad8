"""CMM: the official scorer's rule, its quirks, the groups, the fast and slow readers, the audit."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.benchmarks import cmm
from analysis.benchmarks.cmm.columns import combine, first_rows, quote
from analysis.benchmarks.cmm.parse import official_code, official_correct
from analysis.benchmarks.shared.yesno import READERS
from analysis.cli import main as cli
from analysis.errors import InputError
from analysis.table.columns import COLUMN_NAMES, extra_json, media_json

CASES = Path(__file__).parents[2] / "cases" / "cmm.jsonl"
WORD = {1: "yes", 0: "no", -1: None}
SUBS = (
    "overrely_visual_ignore_audio",
    "overrely_audio_ignore_visual",
    "overrely_language_ignore_visual",
    "visual-language",
    "audio-language",
    "visual-audio-language",
)


def row(i: int, answer: str, pred: Any, *, null_pred: bool = False, **over: Any) -> dict[str, Any]:
    """One CMM row; clip ``i // 2`` so that two rows share a clip, as in the release.

    ``pred=None`` leaves the field out (a gold row) unless ``null_pred`` asks for ``"pred": null``.
    """
    rec: dict[str, Any] = {
        "category": "inter-modality_spurious_correlation",
        "sub_category": "visual-language",
        "modality": "visual",
        "granularity": "object-level",
        "correlation_type": "global_frequency",
        "video_path": f"./raw_files/vl/obj/{i // 2:05d}.mp4",
        "audio_path": None,
        "question": f"Did you see thing{i} in the video? Answer with yes or no.",
        "answer": answer,
        "pred": pred,
    }
    rec.update(over)
    if pred is None and not null_pred:
        del rec["pred"]
    return rec


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- the rule, case by case -------------------------------------------------------------------


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["why"][:60])
def test_case_file_rule(case: dict[str, Any]) -> None:
    if case["parser"] == "official":
        assert WORD[official_code(case["raw"])] == case["expected_parse"]
        assert official_correct(case["gold"], case["raw"]) is case["expected_correct"]
    else:
        assert WORD[READERS[case["parser"]](case["raw"])] == case["expected_parse"]


def test_case_file_through_the_loader(tmp_path: Path) -> None:
    """The whole-column path gives every case the same reading and verdict as the scalar rule."""
    official = [c for c in cases() if c["parser"] == "official"]
    path = write_jsonl(
        tmp_path / "cases.jsonl", [row(i, c["gold"], c["raw"]) for i, c in enumerate(official)]
    )
    table = cmm.load(path)
    assert [None if v is pd.NA else v for v in table["parsed"]] == [c["expected_parse"] for c in official]
    assert table["correct"].astype(bool).tolist() == [c["expected_correct"] for c in official]
    alt = [c for c in cases() if c["parser"] == "negation-aware"]
    path = write_jsonl(tmp_path / "alt.jsonl", [row(i, c["gold"], c["raw"]) for i, c in enumerate(alt)])
    table = cmm.load(path)
    assert [None if v is pd.NA else v for v in table["alt_parsed"]] == [c["expected_parse"] for c in alt]
    assert table["alt_correct"].astype(bool).tolist() == [c["expected_correct"] for c in alt]


# --- the official numbers -----------------------------------------------------------------------


def test_template_fixture_scores_70_100_40(tmp_path: Path) -> None:
    # The repository's 10-row template: 5 yes-gold rows all answered "Yes, ...", 5 no-gold rows
    # of which 2 are answered "No, ..." and 3 "Yes, ...".
    # Acc = (5 + 2) / 10 = 0.70; PA = 5 / 5 = 1.00; HR = 2 / 5 = 0.40.
    # Precision = 5 / 8 (8 yes answers); recall = PA = 1; F1 = 2 * 0.625 / 1.625 = 10/13;
    # yes ratio = 8 / 10.
    preds = ["Yes, there is one."] * 5 + ["No, I did not see it."] * 2 + ["Yes, it is there."] * 3
    answers = ["yes"] * 5 + ["no"] * 5
    order = [0, 5, 1, 6, 2, 7, 3, 8, 4, 9]  # yes/no probes alternate, as in the file
    rows = [row(k, answers[i], preds[i]) for k, i in enumerate(order)]
    report = cmm.score(cmm.load(write_jsonl(tmp_path / "final_output.json", rows)))
    o = report["overall"]
    assert (o["accuracy"], o["pa"], o["hr"], o["n"]) == (0.7, 1.0, 0.4, 10)
    assert o["precision"] == 5 / 8 and o["recall"] == 1.0 and o["yes_ratio"] == 0.8
    assert o["f1"] == pytest.approx(10 / 13, abs=1e-15)
    assert set(o) == {"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n"}
    assert report["n_scored"] == 10 and report["n_skipped"] == 0 and report["parser"] == "official"


def test_hand_sized_groups_and_zero_denominators(tmp_path: Path) -> None:
    rows = [
        # visual-language, object-level: yes->"Yes" (TP), no->"Nothing." (TN, official no)
        row(0, "yes", "Yes", sub_category="visual-language", granularity="object-level"),
        row(1, "no", "Nothing.", sub_category="visual-language", granularity="object-level"),
        # audio-language, event-level: yes->"Sure, yes" (unparsed, wrong), no->"yesno" (reads yes,
        # yet correct for the no gold because 'no' is in pred[:5])
        row(2, "yes", "Sure, yes", sub_category="audio-language", granularity="event-level"),
        row(3, "no", "yesno", sub_category="audio-language", granularity="event-level"),
        # audio-language, an odd granularity: only no-gold rows; answered "No."
        row(4, "no", "No.", sub_category="audio-language", granularity="clip-level"),
    ]
    report = cmm.score(cmm.load(write_jsonl(tmp_path / "p.jsonl", rows)))
    o = report["overall"]
    # n 5; correct: rows 0, 1, 3, 4 -> 4/5. Yes readings: rows 0 and 3 -> yes ratio 2/5.
    # TP (gold yes & read yes) = row 0 -> precision 1/2, recall = PA = 1/2 (gold yes: rows 0, 2).
    # HR: gold no = rows 1, 3, 4; 'no' in pred[:5] on all three -> 3/3.
    assert o == {
        "accuracy": 0.8,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "yes_ratio": 0.4,
        "pa": 0.5,
        "hr": 1.0,
        "n": 5,
    }
    subs = report["groups"]["sub_category"]
    assert list(subs) == ["visual-language", "audio-language"]  # order of first appearance
    # audio-language: rows 2, 3, 4. correct 3, 4 -> 2/3; gold yes row 2 unread -> PA 0;
    # one yes reading (row 3, gold no) -> precision 0/1 = 0; F1 from 0 and 0 -> 0 (official zero).
    assert subs["audio-language"] == {
        "accuracy": 2 / 3,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "yes_ratio": 1 / 3,
        "pa": 0.0,
        "hr": 1.0,
        "n": 3,
    }
    gran = report["groups"]["granularity"]
    assert list(gran) == ["object-level", "event-level"]  # "clip-level" is left out of this group
    assert gran["event-level"]["n"] == 2 and gran["event-level"]["accuracy"] == 0.5
    table = cmm.load(tmp_path / "p.jsonl")
    both = cmm.granularity_by_sub_category(table)
    assert list(both) == ["object-level/visual-language", "event-level/audio-language"]
    assert both["event-level/audio-language"]["accuracy"] == 0.5  # rows 2 (wrong) and 3 (right)
    # a group with no gold-yes rows: PA's denominator is 0 -> 0, as the official script prints
    only_no = [r for r in rows if r["answer"] == "no"]
    report = cmm.score(cmm.load(write_jsonl(tmp_path / "no.jsonl", only_no)))
    assert report["overall"]["pa"] == 0.0 and report["overall"]["recall"] == 0.0


def official_script(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float, float]]:
    """The official calculate_score.py semantics, written out plainly: key -> (PA, HR, Acc)."""
    tallies: dict[str, list[int]] = {}

    def add(key: str, answer: str, pred: str) -> None:
        t = tallies.setdefault(key, [0, 0, 0, 0, 0, 0])  # yes_hit, yes, no_hit, no, correct, total
        t[5] += 1
        t[4] += answer in pred[:5]
        if "yes" in answer[:5]:
            t[1] += 1
            t[0] += "yes" in pred[:5]
        elif "no" in answer[:5]:
            t[3] += 1
            t[2] += "no" in pred[:5]

    for r in rows:
        answer, pred = r["answer"].strip().lower(), r["pred"].strip().lower()
        add("overall", answer, pred)
        add(r["sub_category"], answer, pred)
        if r["granularity"] in ("object-level", "event-level"):
            add(f"{r['granularity']}/{r['sub_category']}", answer, pred)
    return {
        k: (t[0] / t[1] if t[1] else 0, t[2] / t[3] if t[3] else 0, t[4] / t[5] if t[5] else 0)
        for k, t in tallies.items()
    }


def test_parity_with_the_official_script_on_messy_answers(tmp_path: Path) -> None:
    rng = random.Random(7)
    answers = ["yes", "no", "Yes", " no", "NO", "yes.", "No!", "maybe"]
    preds = [c["raw"] for c in cases()] + ["yes/no", "No/yes", "  nOpe", "ye s", "n o", "İyes", "ÿes"]
    rows = [
        row(
            i,
            rng.choice(answers),
            rng.choice(preds),
            sub_category=rng.choice(SUBS),
            granularity=rng.choice(["object-level", "event-level", "other"]),
        )
        for i in range(600)
    ]
    expected = official_script(rows)
    table = cmm.load(write_jsonl(tmp_path / "messy.jsonl", rows))
    report = cmm.score(table)
    got = {
        "overall": report["overall"],
        **report["groups"]["sub_category"],
        **cmm.granularity_by_sub_category(table),
    }
    assert set(got) == set(expected)
    for key, (pa, hr, acc) in expected.items():
        assert (got[key]["pa"], got[key]["hr"], got[key]["accuracy"]) == (pa, hr, acc), key


def test_other_parsers(tmp_path: Path) -> None:
    rows = [row(0, "no", "I did not see it."), row(1, "yes", "Sure, yes."), row(2, "no", "Nothing.")]
    table = cmm.load(write_jsonl(tmp_path / "p.jsonl", rows))
    # official: "i did" and "sure," unread -> only row 2 correct
    assert cmm.score(table)["overall"]["accuracy"] == 1 / 3
    # negation-aware (the table's alternative): all three read right
    assert cmm.score(table, parser="negation-aware")["overall"]["accuracy"] == 1.0
    # first-word: only "Sure" / "I" / "Nothing" first words -> nothing parsed
    fw = cmm.score(table, parser="first-word")
    assert fw["parser"] == "first-word" and fw["overall"]["accuracy"] == 0.0
    with pytest.raises(ValueError, match="unknown parser"):
        cmm.score(table, parser="substring")


# --- the item table ---------------------------------------------------------------------------


def test_item_table_columns(tmp_path: Path) -> None:
    rows = [
        row(0, "yes", "Yes", modality="visual+audio", audio_path="./raw_files/a/00000.wav"),
        row(
            1, "no", "No", video_path="None", modality="audio", audio_path="./raw_files/a/x.wav", note="kept"
        ),
        row(2, "yes", "Yes", video_path='./raw_files/we"ird\\.mp4', correlation_type=None),
    ]
    table = cmm.load(write_jsonl(tmp_path / "model-x.jsonl", rows), model=None)
    assert list(table.columns) == list(COLUMN_NAMES)
    assert set(table["model"]) == {"model-x"} and set(table["benchmark"]) == {"cmm"}
    assert table["category"].tolist() == ["visual-language"] * 3
    assert table["subcategory"].tolist() == ["object-level"] * 3
    assert table["source"].tolist() == [
        "model-x.jsonl:line 1",
        "model-x.jsonl:line 2",
        "model-x.jsonl:line 3",
    ]
    assert json.loads(table["media"][0]) == [
        {"kind": "video", "path": "./raw_files/vl/obj/00000.mp4", "role": "silent video"},
        {"kind": "audio", "path": "./raw_files/a/00000.wav", "role": "audio track"},
    ]
    assert table["media"][0] == media_json(
        [
            ("video", "./raw_files/vl/obj/00000.mp4", "silent video"),
            ("audio", "./raw_files/a/00000.wav", "audio track"),
        ]
    )
    assert table["media"][1] == media_json([("audio", "./raw_files/a/x.wav", "audio")])
    assert table["media"][2] == media_json([("video", './raw_files/we"ird\\.mp4', "video")])
    assert table["extra"][1] == extra_json(
        {
            "category": "inter-modality_spurious_correlation",
            "modality": "audio",
            "correlation_type": "global_frequency",
            "note": "kept",
        },
        (),
    )
    assert json.loads(table["extra"][2]) == {
        "category": "inter-modality_spurious_correlation",
        "modality": "visual",
    }  # null fields left out
    assert table["item_id"].tolist() == [
        cmm.item_id(r["video_path"], r["audio_path"], r["question"]) for r in rows
    ]
    assert table["scored"].all() and (table["skip_reason"] == "").all()


def test_media_text_is_media_json_on_both_paths(tmp_path: Path) -> None:
    """Arrow joins (plain paths) and the clip-by-clip path (a path needing escapes) agree."""
    rows = [
        row(0, "yes", "Yes", modality="visual+audio", audio_path="./raw_files/a/0.wav"),
        row(1, "no", "No", modality="visual+audio", audio_path="./raw_files/a/0.wav"),
        row(2, "yes", "Yes", modality="audio", video_path="None", audio_path="./raw_files/a/1.wav"),
        row(4, "yes", "Yes", modality=None, video_path=None),
        row(6, "yes", "Yes", video_path="", audio_path="é/ü 中.wav"),
    ]
    expected = [
        media_json(
            [
                ("video", "./raw_files/vl/obj/00000.mp4", "silent video"),
                ("audio", "./raw_files/a/0.wav", "audio track"),
            ]
        ),
        media_json(
            [
                ("video", "./raw_files/vl/obj/00000.mp4", "silent video"),
                ("audio", "./raw_files/a/0.wav", "audio track"),
            ]
        ),
        media_json([("audio", "./raw_files/a/1.wav", "audio")]),
        media_json([]),
        media_json([("audio", "é/ü 中.wav", "audio")]),
    ]
    plain = cmm.load(write_jsonl(tmp_path / "plain.jsonl", rows))
    assert plain["media"].tolist() == expected
    odd = row(8, "no", "No", video_path='./raw_files/a "quoted"\\name.mp4')
    escaped = cmm.load(write_jsonl(tmp_path / "escaped.jsonl", [*rows, odd]))
    assert escaped["media"].tolist() == [*expected, media_json([("video", odd["video_path"], "video")])]


def test_model_named_by_the_file(tmp_path: Path) -> None:
    rows = [row(0, "yes", "Yes", model="gemini-2.0"), row(1, "no", "No", model="gemini-2.0")]
    path = write_jsonl(tmp_path / "out.jsonl", rows)
    assert set(cmm.load(path)["model"]) == {"gemini-2.0"}
    assert set(cmm.load(path, model="mine")["model"]) == {"mine"}
    mixed = write_jsonl(tmp_path / "mixed.jsonl", [rows[0], row(1, "no", "No", model="other")])
    assert set(cmm.load(mixed)["model"]) == {"mixed"}  # no single name: the file's stem


def test_item_id_is_pinned() -> None:
    """Ids key reviewers' labels: this value must never change (bump nothing, fix the code)."""
    assert cmm.item_id("./raw_files/a.mp4", None, "Did you see a dog?") == "56fa1c8bf9ee0843"
    assert cmm.item_id("./raw_files/a.mp4", "", "Did you see a dog?") == cmm.item_id(
        "./raw_files/a.mp4", None, "Did you see a dog?"
    )
    assert cmm.item_id("./raw_files/a.mp4", None, "Did you see a cat?") != cmm.item_id(
        "./raw_files/a.mp4", None, "Did you see a dog?"
    )
    assert cmm.item_id("x", "y", "q") != cmm.item_id("y", "x", "q")


@pytest.mark.parametrize(
    "text", ["plain", 'a"b', "a\\b", "tab\there", "nl\n", "\x00", "é ü 中", "\u2028", "\x7f"]
)
def test_quote_matches_json_dumps(text: str) -> None:
    assert quote(text) == json.dumps(text, ensure_ascii=False)


@pytest.mark.parametrize("big", [1, 2**40])
def test_combine_codes(big: int) -> None:
    """Distinct combinations get codes 0..k-1 in order of first appearance (also when the
    mixed-radix key would overflow, and with nulls coded -1)."""
    a = np.array([0, 1, 0, -1, big, 0], dtype=np.intp)
    b = np.array([5, 5, 5, -1, big, 6], dtype=np.intp)
    codes = combine([a, b, b])
    assert codes.tolist() == [0, 1, 0, 2, 3, 4]
    assert first_rows(codes).tolist() == [0, 1, 3, 4, 5]


def test_fast_and_slow_readers_agree(tmp_path: Path) -> None:
    rows = [row(i, "yes" if i % 2 == 0 else "no", p) for i, p in enumerate(["Yes", "No.", "nothing", "Sure"])]
    fast = cmm.load(write_jsonl(tmp_path / "m.jsonl", rows))
    as_list = tmp_path / "m.json"
    as_list.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    slow = cmm.load(as_list)
    gaps = tmp_path / "m2.jsonl"  # a blank line: Arrow would renumber, so the slow path reads it
    gaps.write_text(json.dumps(rows[0]) + "\n\n" + "".join(json.dumps(r) + "\n" for r in rows[1:]))
    gappy = cmm.load(gaps)
    for other in (slow, gappy):
        for name in COLUMN_NAMES:
            if name not in ("source", "model"):
                assert fast[name].tolist() == other[name].tolist(), name
    assert slow["source"][0] == "m.json:record 1"
    assert gappy["source"].tolist()[:2] == ["m2.jsonl:line 1", "m2.jsonl:line 3"]


def test_load_gold_has_no_answers(tmp_path: Path) -> None:
    rows = [row(0, "yes", None), row(1, "no", None)]
    table = cmm.load_gold([write_jsonl(tmp_path / "gold.jsonl", rows)])
    assert len(table) == 2 and table["raw_answer"].isna().all() and table["correct"].isna().all()
    assert set(table["model"]) == {""}


# --- media paths --------------------------------------------------------------------------------


def test_candidate_paths_both_spellings(tmp_path: Path) -> None:
    root = tmp_path
    assert cmm.candidate_paths("./raw_files/a/b.mp4", root) == (
        root / "raw_files/a/b.mp4",
        root / "reorg_raw_files/a/b.mp4",
        root / "a/b.mp4",
    )
    assert cmm.candidate_paths("reorg_raw_files/a/b.wav", root) == (
        root / "reorg_raw_files/a/b.wav",
        root / "raw_files/a/b.wav",
        root / "a/b.wav",
    )
    assert cmm.candidate_paths("clips/c.mp4", root) == (root / "clips/c.mp4",)


@pytest.mark.parametrize(
    "bad", ["None", "", "/etc/passwd", "./raw_files/../../x.mp4", "../x.mp4", "a/../../b"]
)
def test_candidate_paths_never_leave_the_root(bad: str, tmp_path: Path) -> None:
    for candidate in cmm.candidate_paths(bad, tmp_path):
        assert candidate.resolve().is_relative_to(tmp_path.resolve())
    assert cmm.candidate_paths(bad, tmp_path) == ()


# --- audit --------------------------------------------------------------------------------------


def test_audit_finds_probe_and_key_problems(tmp_path: Path) -> None:
    rows = [
        row(0, "yes", None),
        row(1, "no", None),  # clip 0: fine
        row(2, "yes", None),
        row(3, "yes", None),  # clip 1: two yes-probes
        row(4, "yes", None),
        row(4, "no", None),  # clip 2: one question, two answers
        row(6, "yes", None),
        row(7, "no", None),
        row(7, "no", None),  # clip 3: a repeated key
        row(8, "maybe", None),
        row(9, "no", None, video_path="None", audio_path="./raw_files/a/9.wav"),
        # the release's audio-language rows: "None" is their video by design, no finding
        row(10, "yes", None, modality="audio", video_path="None", audio_path="./raw_files/a/10.wav"),
    ]
    findings = cmm.audit([write_jsonl(tmp_path / "gold.jsonl", rows)])
    by_check: dict[str, list[Any]] = {}
    for f in findings:
        by_check.setdefault(f.check, []).append(f)
    assert [f.severity for f in by_check["conflicting-duplicate"]] == ["error"]
    assert "line 5" in by_check["conflicting-duplicate"][0].detail
    assert (
        len(by_check["duplicate-key"]) == 1
        and "line 8, gold.jsonl:line 9" in by_check["duplicate-key"][0].detail
    )
    assert by_check["gold-not-yes-no"][0].where == "gold.jsonl:line 10"
    imbalanced = {f.where: f.detail for f in by_check["probe-imbalance"]}
    assert "2 yes-probe(s) and 0 no-probe(s)" in imbalanced["./raw_files/vl/obj/00001.mp4"]
    assert "./raw_files/vl/obj/00000.mp4" not in imbalanced
    assert [f.where for f in by_check["video-path-none"]] == ["audio ./raw_files/a/9.wav"]
    assert "missing-media" not in by_check  # no media root given


def test_the_probe_rule_stays_silent_on_the_full_releases_one_clip_a_row_layout(tmp_path: Path) -> None:
    """The 2,400-row release gives every question its own clip (the template pairs a yes- and a
    no-probe on one clip): the paired rule does not apply there and must not flag 2,400 rows; the
    other checks still run."""
    own = "./raw_files/vl/obj/{:05d}.mp4"
    rows = [row(i, "yes" if i % 3 else "no", None, video_path=own.format(i)) for i in range(2400)]
    rows.append(row(5, "no", None, video_path=own.format(5)))  # a real problem the other checks still find
    findings = cmm.audit([write_jsonl(tmp_path / "all_data_final_reorg.json", rows)])
    checks = [f.check for f in findings]
    assert "probe-imbalance" not in checks
    assert checks.count("conflicting-duplicate") == 1
    # the same rule on the paired layout still flags an unbalanced clip
    paired = [
        row(0, "yes", None, video_path="./raw_files/c/0.mp4"),
        row(1, "yes", None, video_path="./raw_files/c/0.mp4"),
    ]
    paired += [
        row(i, "yes" if i % 2 else "no", None, video_path=f"./raw_files/c/{i // 2}.mp4") for i in range(2, 8)
    ]
    found = cmm.audit([write_jsonl(tmp_path / "template.jsonl", paired)])
    assert [f.where for f in found if f.check == "probe-imbalance"] == ["./raw_files/c/0.mp4"]


def test_audit_media_under_either_spelling(tmp_path: Path) -> None:
    root = tmp_path / "media"
    (root / "reorg_raw_files/vl/obj").mkdir(parents=True)
    (root / "reorg_raw_files/vl/obj/00000.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 16)
    (root / "reorg_raw_files/vl/obj/00001.mp4").write_bytes(b"")
    rows = [
        row(0, "yes", None),
        row(1, "no", None),
        row(2, "yes", None),
        row(3, "no", None),
        row(4, "yes", None),
        row(5, "no", None),
    ]
    (root / "raw_files/vl/obj").mkdir(parents=True)
    (root / "raw_files/vl/obj/00002.mp4").write_text("not a video")
    findings = cmm.audit([write_jsonl(tmp_path / "gold.jsonl", rows)], media_root=root)
    media = {f.where: (f.check, f.severity) for f in findings if "media" in f.check}
    assert media == {
        "./raw_files/vl/obj/00001.mp4": ("unreadable-media", "error"),
        "./raw_files/vl/obj/00002.mp4": ("unreadable-media", "error"),
    }
    (root / "reorg_raw_files/vl/obj/00001.mp4").unlink()
    findings = cmm.audit([write_jsonl(tmp_path / "gold.jsonl", rows)], media_root=root)
    assert {f.where: f.check for f in findings if "media" in f.check}[
        "./raw_files/vl/obj/00001.mp4"
    ] == "missing-media"


# --- bad input ----------------------------------------------------------------------------------


BAD: list[tuple[str, bytes, str]] = [
    (
        "truncated",
        b'{"sub_category": "a", "granularity": "b", "question": "q", "answer": "yes", "pred": "y"}\n{"sub_ca',
        "line 2",
    ),
    (
        "pred-number",
        (json.dumps(row(0, "yes", "Yes")) + "\n" + json.dumps(row(1, "no", 3)) + "\n").encode(),
        "line 2: field 'pred'",
    ),
    (
        "answer-missing",
        (
            json.dumps(row(0, "yes", "Yes"))
            + "\n"
            + json.dumps({k: v for k, v in row(1, "no", "No").items() if k != "answer"})
            + "\n"
        ).encode(),
        "line 2: field 'answer'",
    ),
    (
        "pred-null",
        (
            json.dumps(row(0, "yes", "Yes")) + "\n" + json.dumps(row(1, "no", None, null_pred=True)) + "\n"
        ).encode(),
        "line 2: field 'pred'",
    ),
    ("pred-missing-everywhere", (json.dumps(row(0, "yes", None)) + "\n").encode(), "line 1: field 'pred'"),
    (
        "sub-category-list",
        (json.dumps(row(0, "yes", "Yes", sub_category=["a"])) + "\n").encode(),
        "line 1: field 'sub_category'",
    ),
    ("empty", b"", "file is empty"),
    ("blank", b"\n  \n", "file is empty"),
    ("not-utf8", (json.dumps(row(0, "yes", "Yes")) + "\n").encode().replace(b"Yes", b"Y\xffs"), "UTF-8"),
    ("array-line", (json.dumps(row(0, "yes", "Yes")) + "\n[1, 2]\n").encode(), "line 2"),
    ("empty-list", b"[]", "no records"),
]


@pytest.mark.parametrize(("name", "data", "where"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_file_line_and_field(
    name: str, data: bytes, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        cmm.load(path)
    message = str(info.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message
    assert cli.main(["score", "cmm", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and where in captured.err and "Traceback" not in captured.err


def test_missing_file_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match=r"nope\.jsonl: no such file"):
        cmm.load(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="is a folder"):
        cmm.load(tmp_path)
    assert cli.main(["score", "cmm", str(tmp_path / "nope.jsonl")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [row(0, "yes", "Yes"), row(1, "no", "Yes")])
    assert cli.main(["score", "cmm", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["benchmark"] == "cmm" and report["task"] is None and report["parser"] == "official"
    assert report["overall"]["accuracy"] == 0.5 and report["overall"]["hr"] == 0.0
    assert set(report["groups"]) == {"sub_category", "granularity"}
    assert cli.main(["score", "cmm", str(path), "--gold", str(path)]) == 2
    assert "takes no --gold" in capsys.readouterr().err


def test_the_template_spelling_of_media_finds_the_released_folder(tmp_path: Path) -> None:
    """CMM's template writes ``./raw_files/``; its released archive unpacks to ``reorg_raw_files/``."""
    from analysis.benchmarks import get
    from analysis.files.media import MediaResolver

    clip = tmp_path / "reorg_raw_files" / "visual" / "tree" / "1.mp4"
    clip.parent.mkdir(parents=True)
    clip.write_bytes(b"x")
    resolver = MediaResolver([tmp_path], get("cmm").MEDIA_ALIASES)
    assert resolver.resolve("./raw_files/visual/tree/1.mp4") == clip.resolve()


def test_a_line_nested_too_deeply_is_refused_by_name_not_a_crash(tmp_path: Path) -> None:
    # Arrow's JSON parser recurses without a limit: a line nested 100,000 deep crashed the process
    # (exit 139, nothing said). Run in a child process, so that a crash fails this test only.
    import subprocess
    import sys

    deep = tmp_path / "deep.jsonl"
    rec = json.dumps(row(0, "yes", "Yes"))
    deep.write_text(rec + "\n" + '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "analysis.cli", "score", "cmm", str(deep), "--json"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[3],
        timeout=120,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "deep.jsonl: line 2: invalid JSON (depth limit exceeded)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_line_with_many_lists_is_read_the_validating_way_with_the_same_rows(tmp_path: Path) -> None:
    # more brackets on a line than the fast reader is given (a bound on nesting, not nesting
    # itself): the validating reader reads it, with the same table
    plain = [row(i, "yes" if i % 2 else "no", "Yes") for i in range(6)]
    listed = [{**r, "tags": [[] for _ in range(600)]} if i == 3 else r for i, r in enumerate(plain)]
    a = cmm.load(write_jsonl(tmp_path / "plain.jsonl", plain))
    b = cmm.load(write_jsonl(tmp_path / "listed.jsonl", listed))
    assert len(a) == len(b) == 6
    assert a["correct"].tolist() == b["correct"].tolist() and a["question"].tolist() == b["question"].tolist()
    assert "tags" in str(b.loc[3, "extra"]) and "tags" not in str(a.loc[3, "extra"])
