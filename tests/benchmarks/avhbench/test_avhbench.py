"""AVHBench: parsers, metrics, repeated keys, the three prediction shapes, audit, bad input."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.benchmarks import avhbench
from analysis.cli import main as cli
from analysis.errors import InputError
from analysis.files import readers
from analysis.table.columns import COLUMN_NAMES, item_key

avh_read = importlib.import_module("analysis.benchmarks.avhbench.read")  # the package's name is the function
CASES = Path(__file__).parents[2] / "cases" / "avhbench.jsonl"
A2V = "Audio-driven Video Hallucination"
V2A = "Video-driven Audio Hallucination"
AVM = "AV Matching"
CAP = "AV Captioning"
WORD = {1: "yes", 0: "no", -1: None, 2: "both"}


def rec(video_id: str, task: str, text: str, label: str, **more: Any) -> dict[str, Any]:
    return {"video_id": video_id, "task": task, "text": text, "label": label, **more}


def write(path: Path, records: list[dict[str, Any]], *, jsonl: bool = False) -> Path:
    if jsonl:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


def cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


def words(column: pd.Series) -> list[str | None]:
    return [None if v is pd.NA else v for v in column]


# --- parsers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c['parser']}: {c['why'][:50]}")
def test_case_file_rule(case: dict[str, Any]) -> None:
    assert WORD[avhbench.READERS[case["parser"]](case["raw"])] == case["expected_parse"]


@pytest.mark.parametrize("parser", avhbench.PARSERS)
def test_case_file_through_load_and_score(parser: str, tmp_path: Path) -> None:
    mine = [c for c in cases() if c["parser"] == parser]
    records = [
        rec(f"{i:05d}", A2V, f"Is thing {i} visible in the video?", c["gold"], pred=c["raw"])
        for i, c in enumerate(mine)
    ]
    table = avhbench.load(write(tmp_path / "cases.json", records))
    column = {"first-word": "parsed", "negation-aware": "alt_parsed"}.get(parser)
    if column is not None:
        assert words(table[column]) == [c["expected_parse"] for c in mine]
        verdicts = table["correct" if column == "parsed" else "alt_correct"].astype(bool).tolist()
        assert verdicts == [c["expected_correct"] for c in mine]
    report = avhbench.score(table, parser=parser)
    assert report["parser"] == parser
    assert report["overall"]["accuracy"] == sum(c["expected_correct"] for c in mine) / len(mine)
    assert report["overall"]["unparsed"] == sum(c["expected_parse"] is None for c in mine)


# --- metrics ----------------------------------------------------------------------------------


def test_hand_sized_scores(tmp_path: Path) -> None:
    records = [
        rec("00001", A2V, "Is the dog visible in the video?", "Yes", pred="Yes."),  # TP
        rec("00001", A2V, "Is the cat visible in the video?", "No", pred="Yes, a cat."),  # FP
        rec("00002", A2V, "Is the man visible in the video?", "No", pred="No"),  # TN
        rec("00002", V2A, "Is the man making sound in the audio?", "Yes", pred="No sound."),  # FN
        rec("00003", V2A, "Is the car making sound in the audio?", "Yes", pred="Maybe"),  # unparsed
        rec("00003", AVM, "Are the contexts of audio and visual content matching?", "No", pred="no"),  # TN
        rec("00003", CAP, "Describe what you see and hear in a single sentence.", "A car.", pred="A car."),
    ]
    report = avhbench.score(avhbench.load(write(tmp_path / "m.json", records)))
    # n = 6 binary rows (the caption is shown but neither scored nor skipped).
    # TP 1, FP 1, TN 2, FN 1, unparsed 1 (gold yes). Correct = TP + TN = 3 -> accuracy 3/6.
    # Predicted yes 2 -> precision 1/2, yes ratio 2/6. Gold yes 3 -> recall = PA = 1/3.
    # F1 = 2 * (1/2) * (1/3) / (1/2 + 1/3) = 0.4. Gold no 3, TN 2 -> HR 2/3.
    o = report["overall"]
    assert o["n"] == 6 and o["unparsed"] == 1
    assert o["accuracy"] == 0.5 and o["precision"] == 0.5 and o["recall"] == 1 / 3 and o["pa"] == 1 / 3
    assert o["f1"] == pytest.approx(0.4, abs=1e-15) and o["yes_ratio"] == 2 / 6 and o["hr"] == 2 / 3
    assert (report["n_scored"], report["n_skipped"]) == (6, 0)
    groups = report["groups"]["task"]
    assert list(groups) == [A2V, V2A, AVM]
    # A->V: TP, FP, TN -> acc 2/3, P 1/2, R 1/1, HR 1/2. V->A: FN, unparsed -> P undefined: null.
    assert groups[A2V]["accuracy"] == 2 / 3 and groups[A2V]["recall"] == 1.0 and groups[A2V]["hr"] == 0.5
    assert groups[V2A]["precision"] is None and groups[V2A]["f1"] is None and groups[V2A]["hr"] is None
    assert groups[V2A]["unparsed"] == 1 and groups[V2A]["accuracy"] == 0.0
    assert set(o) == {"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n", "unparsed"}


# The README leaderboard (percent: Acc / P / R / F1 / Yes%) and integer counts that realize each
# row under this module's definitions: TP, FN (gold yes answered no), FP, TN, U (gold no,
# unparsed). Found by searching all counts whose ratios round to the published one-decimal values.
# A->V has 1,136 items, but two rows are only reachable with fewer: Video-LLaMA2 needs N = 1,132
# (568 yes / 564 no; at 1,136 no integer count gives P 73.6 and Yes% 53.6 with R 78.7), PandaGPT
# N = 1,130 with 3 unparsed (564 yes / 566 no). Gemini-Flash A->V holds only with Acc and F1
# swapped: the counts give Acc 83.7 and F1 83.3, the README prints them the other way round.
LEADERBOARD = [
    ("A2V Video-LLaMA2", (75.2, 73.6, 78.7, 76.1, 53.6), (447, 121, 160, 404, 0)),
    ("A2V Video-SALMONN", (78.1, 74.9, 84.5, 79.4, 56.4), (480, 88, 161, 407, 0)),
    ("A2V Gemini-Flash (Acc/F1 swapped)", (83.7, 85.7, 81.0, 83.3, 47.3), (460, 108, 77, 491, 0)),
    ("A2V PandaGPT", (58.5, 55.3, 91.1, 68.8, 82.3), (514, 50, 416, 147, 3)),
    ("V2A Video-LLaMA2", (74.2, 69.4, 86.6, 77.0, 62.4), (991, 154, 437, 708, 0)),
    ("V2A Gemini-Flash", (63.0, 57.9, 94.7, 71.9, 81.7), (1084, 61, 787, 358, 0)),
]


@pytest.mark.parametrize(("name", "published", "counts"), LEADERBOARD, ids=[r[0] for r in LEADERBOARD])
def test_leaderboard_rows_are_consistent(
    name: str, published: tuple[float, ...], counts: tuple[int, ...], tmp_path: Path
) -> None:
    tp, fn, fp, tn, unparsed = counts
    answers = [("Yes", "Yes")] * tp + [("Yes", "No")] * fn + [("No", "Yes")] * fp + [("No", "No")] * tn
    answers += [("No", "I cannot tell.")] * unparsed
    task = A2V if name.startswith("A2V") else V2A
    records = [
        rec(f"{i:05d}", task, f"Is thing {i} there?", gold, pred=pred)
        for i, (gold, pred) in enumerate(answers)
    ]
    o = avhbench.score(avhbench.load(write(tmp_path / "lb.json", records)))["overall"]
    got = [o["accuracy"], o["precision"], o["recall"], o["f1"], o["yes_ratio"]]
    for value, expected in zip(got, published, strict=True):
        assert value is not None and abs(value * 100 - expected) <= 0.05 + 1e-9, (got, published)


# --- repeated keys ----------------------------------------------------------------------------


def release_like() -> list[dict[str, Any]]:
    """12 distinct yes/no items, then 5 exact repeats and 2 repeats with the other label, 2 captions."""
    items = [
        rec(f"{i:05d}", [A2V, V2A, AVM][i % 3], f"Question {i}?", "Yes" if i % 2 else "No") for i in range(12)
    ]
    repeats = [dict(items[i]) for i in (0, 2, 4, 6, 8)]
    conflicts = [dict(items[i], label="No" if items[i]["label"] == "Yes" else "Yes") for i in (1, 3)]
    captions = [
        rec("00000", CAP, "Describe what you see and hear in a single sentence.", "A dog."),
        rec("00001", CAP, "Describe what you see and hear in a single sentence.", "A cat."),
    ]
    return items[:6] + repeats[:2] + conflicts[:1] + captions + items[6:] + repeats[2:] + conflicts[1:]


def test_repeated_keys_keep_the_first(tmp_path: Path) -> None:
    records = [dict(r, pred="Yes") for r in release_like()]
    table = avhbench.load(write(tmp_path / "m.json", records))
    report = avhbench.score(table)
    # 19 yes/no records, 7 repeating an earlier key -> n 12, n_skipped 7; captions are neither.
    assert (report["n_scored"], report["n_skipped"], report["overall"]["n"]) == (12, 7, 12)
    # Answers are all "Yes": correct exactly on the 6 yes-labelled first occurrences (items 1,3,...,11).
    assert report["overall"]["accuracy"] == 0.5
    skipped = table[~table["scored"]]
    assert (skipped["skip_reason"].str.startswith("repeated key: first asked at record")).sum() == 7
    assert (skipped["skip_reason"] == "captioning: not a yes/no task").sum() == 2
    assert skipped["correct"].isna().all()
    first = table[(table["question"] == "Question 1?") & table["scored"]]
    assert first["gold"].tolist() == ["Yes"]  # the conflicting later "No" is not scored


def test_audit_reports_duplicates_and_conflicts(tmp_path: Path) -> None:
    findings = avhbench.audit([write(tmp_path / "QA.json", release_like())])
    checks = sorted((f.check, f.severity) for f in findings)
    assert checks == [("conflicting-duplicate", "error")] * 2 + [("duplicate-record", "warning")] * 5
    conflict = next(f for f in findings if f.where == "00001 'Question 1?'")
    # labels beside their records, in file order: the first named is the one scored
    expected = "labelled Yes at QA.json:record 2, No at QA.json:record 9; the first (Yes) is scored"
    assert conflict.item_ids == (item_key("00001", "Question 1?"),) and expected in conflict.detail
    # which label is right, the data cannot say: the item is flagged for a reviewer (it had no fix)
    fixed = [(x.item_id, x.field, x.value) for x in conflict.fix]
    assert fixed == [(conflict.item_ids[0], "flag", "ambiguous")]
    assert all(not f.fix for f in findings if f.check == "duplicate-record")  # exact repeats: nothing to fix


def test_a_repeated_caption_is_said_to_be_kept_not_scored(tmp_path: Path) -> None:
    # captioning is never scored: "the first is scored" said otherwise of a repeated caption record
    caption = rec("00000", CAP, "Describe what you see and hear in a single sentence.", "A dog.")
    findings = avhbench.audit([write(tmp_path / "QA.json", [caption, dict(caption)])])
    assert [f.check for f in findings] == ["duplicate-record"]
    assert "the first is kept (captioning is not scored)" in findings[0].detail


def test_audit_gold_tasks_and_media(tmp_path: Path) -> None:
    media = tmp_path / "videos"
    media.mkdir()
    (media / "00001.mp4").write_bytes(b"\x00\x00\x00\x20ftypisom" + b"\x00" * 20)
    (media / "00002.mp4").write_bytes(b"")
    (media / "00003.mp4").write_text("<html>not a video</html>")
    gold = [
        rec("00001", A2V, "Q1?", "Yes"),
        rec("00002", A2V, "Q2?", "Maybe"),
        rec("00003", "Audio Captioning", "Q3?", "No"),
        rec("00004", V2A, "Q4?", "No"),
    ]
    findings = avhbench.audit([write(tmp_path / "QA.json", gold)], media_root=media)
    got = {(f.check, f.where) for f in findings}
    assert got == {
        ("gold-not-yes-no", "QA.json:record 2"),
        ("unknown-task", "QA.json:record 3"),
        ("unreadable-media", "00002.mp4"),
        ("unreadable-media", "00003.mp4"),
        ("missing-media", "00004.mp4"),
    }
    table = avhbench.load(write(tmp_path / "m.json", [dict(g, pred="Yes") for g in gold]))
    report = avhbench.score(table)
    # the "Maybe" gold is not scored and counts as skipped; the unknown task is scored in its own group
    assert (report["n_scored"], report["n_skipped"]) == (3, 1)
    assert list(report["groups"]["task"]) == [A2V, "Audio Captioning", V2A]


# --- the three shapes ---------------------------------------------------------------------------


def test_three_prediction_shapes_agree(tmp_path: Path) -> None:
    gold = [
        rec("00191", V2A, "Is the sleeping man making sound in the audio?", "Yes"),
        rec("00191", A2V, "Is the dog visible in the video?", "No"),
        rec("00200", AVM, "Are the contexts of audio and visual content matching?", "No"),
        rec("00200", CAP, "Describe what you see and hear in a single sentence.", "A man sleeps."),
    ]
    preds = ["Yes, he snores.", "No dog.", "No, they do not match.", "A man sleeping."]
    qa = write(tmp_path / "QA.json", gold)
    shape_a = write(tmp_path / "a.json", [dict(g, response=p) for g, p in zip(gold, preds, strict=True)])
    shape_b = write(
        tmp_path / "b.jsonl",
        [
            {"id": f"{g['video_id']}.mp4", "question": g["text"], "answer": g["label"], "pred": p}
            for g, p in zip(gold, preds, strict=True)
        ],
        jsonl=True,
    )
    shape_c = write(
        tmp_path / "c.json",
        [
            {
                "video_id": g["video_id"],
                "task": g["task"],
                "question": g["text"],
                "ground_truth": g["label"],
                "prediction": p,
            }
            for g, p in zip(gold, preds, strict=True)
        ],
    )
    tables = [avhbench.load(shape_a), avhbench.load(shape_b, gold=qa), avhbench.load(shape_c)]
    for table in tables[1:]:
        for name in ("item_id", "task", "question", "gold", "raw_answer", "parsed", "scored", "media"):
            assert table[name].tolist() == tables[0][name].tolist(), name
    reports = [avhbench.score(t) for t in tables]
    assert reports[0] == reports[1] == reports[2]
    assert reports[0]["overall"]["accuracy"] == 1.0 and reports[0]["n_scored"] == 3
    assert tables[1]["source"][0] == "b.jsonl:line 1" and tables[0]["source"][0] == "a.json:record 1"
    assert json.loads(tables[0]["media"][0]) == [
        {"kind": "video", "path": "00191.mp4", "role": "video+audio"}
    ]


def test_gold_matching_errors(tmp_path: Path) -> None:
    qa = write(tmp_path / "QA.json", [rec("00191", A2V, "Is the dog visible in the video?", "No")])
    unmatched = write(
        tmp_path / "b.jsonl",
        [
            {"id": "00191.mp4", "question": "Is the dog visible in the video?", "answer": "No", "pred": "No"},
            {"id": "00999.mp4", "question": "Is a cat visible?", "answer": "No", "pred": "No"},
        ],
        jsonl=True,
    )
    with pytest.raises(
        InputError, match=r"b\.jsonl: line 2: field 'text': no record in QA\.json has video_id '00999'"
    ):
        avhbench.load(unmatched, gold=qa)
    with pytest.raises(InputError, match=r"line 1: field 'task': missing; pass --gold QA\.json"):
        avhbench.load(unmatched)


def test_other_table_details(tmp_path: Path) -> None:
    records = [
        rec("00001", A2V, "  Q?  ", "Yes", pred=None, model="gpt-x", note=3),
        rec("00002", A2V, "R?", "No", pred="no", model="gpt-x"),
    ]
    table = avhbench.load(write(tmp_path / "run.json", records))
    assert list(table.columns) == list(COLUMN_NAMES)
    assert set(table["model"]) == {"gpt-x"}  # named by the file's own model field
    assert table["item_id"][0] == item_key("00001", "Q?")  # the key uses the stripped text
    assert table["raw_answer"].isna()[0] and table["parsed"].isna()[0]
    assert table["correct"].tolist() == [False, True]
    assert json.loads(table["extra"][0]) == {"model": "gpt-x", "note": 3}
    assert avhbench.score(table)["overall"]["unparsed"] == 1  # a null answer is unparsed and wrong
    assert set(avhbench.load(write(tmp_path / "run2.json", records), model="mine")["model"]) == {"mine"}
    gold = avhbench.load_gold([write(tmp_path / "QA.json", [rec("00001", A2V, "Q?", "Yes")])])
    assert gold["raw_answer"].isna().all() and gold["parsed"].isna().all() and set(gold["model"]) == {""}


# --- bad input ----------------------------------------------------------------------------------


GOOD = rec("00001", A2V, "Q?", "Yes", pred="Yes")
BAD: list[tuple[str, bytes, str]] = [
    ("truncated", json.dumps([GOOD, GOOD]).encode()[:-20], "invalid JSON"),
    ("label-number", json.dumps([GOOD, dict(GOOD, label=1)]).encode(), "record 2: field 'label'"),
    (
        "text-missing",
        json.dumps([{k: v for k, v in GOOD.items() if k != "text"}]).encode(),
        "record 1: field 'text'",
    ),
    (
        "pred-missing",
        # one record has an answer, so this is a prediction file (none: a gold file, refused as such)
        json.dumps([GOOD, {k: v for k, v in GOOD.items() if k != "pred"}]).encode(),
        "record 2: field 'pred'",
    ),
    ("video-id-number", json.dumps([dict(GOOD, video_id=191)]).encode(), "record 1: field 'video_id'"),
    ("not-a-list", b'"QA"', "expected a JSON list"),
    ("list-of-numbers", b"[1, 2]", "record 1"),
    ("empty", b"", "file is empty"),
    ("empty-list", b"[]", "no records"),
    ("not-utf8", json.dumps([GOOD]).encode().replace(b"Q?", b"Q\xff"), "UTF-8"),
    (
        "jsonl-bad-line",
        (json.dumps(GOOD) + "\n" + json.dumps(dict(GOOD, task=["x"])) + "\n").encode(),
        "line 2: field 'task'",
    ),
]


@pytest.mark.parametrize(("name", "data", "where"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_file_record_and_field(
    name: str, data: bytes, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        avhbench.load(path)
    message = str(info.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message
    assert cli.main(["score", "avhbench", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and where in captured.err


def test_cli_with_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qa = write(tmp_path / "QA.json", [rec("00191", A2V, "Is the dog visible in the video?", "No")])
    preds = write(
        tmp_path / "p.jsonl",
        [{"id": "00191.mp4", "question": "Is the dog visible in the video?", "pred": "No."}],
        jsonl=True,
    )
    assert cli.main(["score", "avhbench", str(preds), "--gold", str(qa), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["parser"] == "first-word" and report["overall"]["accuracy"] == 1.0
    assert report["groups"] == {"task": {A2V: report["overall"]}}
    assert (
        cli.main(["score", "avhbench", str(preds), "--gold", str(qa), "--parser", "substring", "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["parser"] == "substring"
    assert cli.main(["score", "avhbench", str(preds), "--task", "x"]) == 2


def test_a_given_gold_file_wins_over_labels_inside_the_records(tmp_path: Path) -> None:
    """Issue 9: ``--gold <corrected QA.json>`` gave the official numbers when records carry labels."""
    samples = Path(__file__).resolve().parents[3] / "samples" / "avhbench"
    if not (samples / "QA.json").exists():
        pytest.skip("samples not generated")
    gold = json.loads((samples / "QA.json").read_text(encoding="utf-8"))
    flipped = 0
    for record in gold[:6]:
        if record["label"] in ("Yes", "No"):
            record["label"] = "No" if record["label"] == "Yes" else "Yes"
            flipped += 1
    corrected = tmp_path / "QA.json"
    corrected.write_text(json.dumps(gold), encoding="utf-8")
    predictions = samples / "predictions" / "balanced.json"
    assert "label" in json.loads(predictions.read_text(encoding="utf-8"))[0]  # the records carry labels
    official = avhbench.score(avhbench.load(predictions, gold=samples / "QA.json"))
    table = avhbench.load(predictions, gold=corrected)
    assert flipped and (table["gold"] != avhbench.load(predictions)["gold"]).sum() >= flipped
    assert avhbench.score(table)["overall"] != official["overall"]


# --- reading a column at a time -------------------------------------------------------------------


def _varied_records() -> list[dict[str, Any]]:
    """Records in every shape the column reading must treat as the record-by-record reading does."""
    out: list[dict[str, Any]] = []
    for i in range(300):
        pred = ("Yes", "no.", None, "ERROR: timeout", " error: x", "Maybe")[i % 6]
        task, label = (A2V, V2A, AVM, CAP)[i % 4], ("Yes", "No")[i % 2]
        r = rec(f"{i % 40:05d}", task, f"Is thing {i % 70} visible?", label, pred=pred)
        if i % 9 == 0:
            r["text"] += (" Answer yes or no.", " please ANSWER only 'Yes' or 'No'.", " Anſwer yes.")[
                i // 9 % 3
            ]
        if i % 10 == 0:
            r = {("response" if k == "pred" else k): v for k, v in r.items()}
        if i % 12 == 0:
            r["label"] = (" yes ", "Maybe", "")[i % 3]
        if i % 15 == 0:
            r["note"] = {"ü": [1, 2.5]}
        if i % 8 == 0:
            r = dict(reversed(r.items()))
        out.append(r)
    return out


@pytest.mark.parametrize("jsonl", [False, True])
def test_column_reading_equals_record_by_record(jsonl: bool, tmp_path: Path) -> None:
    path = write(tmp_path / "m.json", _varied_records(), jsonl=jsonl)
    records = readers.read_records(path)
    fields = avh_read._columns(records.items, True)
    assert fields is not None  # every field well typed: read a column at a time
    assert avh_read._by_column(records, fields, True, None) == avh_read._by_record(records, True, None)
    table = avhbench.load(path)
    assert table["question"][9] == "Is thing 9 visible?" and "prompt" in json.loads(table["extra"][9])
    assert table["question"][18] == "Is thing 18 visible?"  # the suffix "Anſwer yes." (ſ folds to s)


def test_column_reading_with_gold_fills_task_and_label(tmp_path: Path) -> None:
    gold = [rec(f"{i:05d}", A2V, f"Q{i}?", ("Yes", "No")[i % 2]) for i in range(20)]
    qa = write(tmp_path / "QA.json", gold)
    shape_b = [{"id": f"v/{g['video_id']}.MP4", "question": g["text"] + " Answer yes or no.", "pred": "Yes"}
               for g in gold]  # fmt: skip
    path = write(tmp_path / "b.jsonl", shape_b, jsonl=True)
    records = readers.read_records(path)
    fields = avh_read._columns(records.items, True)
    assert fields is not None
    assert avh_read._by_column(records, fields, True, qa) == avh_read._by_record(records, True, qa)
    assert avhbench.load(path, gold=qa)["gold"].tolist() == [g["label"] for g in gold]


def test_a_model_field_that_is_not_text_names_the_model_by_the_file(tmp_path: Path) -> None:
    # the loader used to crash with "unhashable type: 'list'" when gathering the model names
    records = [
        rec("00001", A2V, "Q?", "Yes", pred="Yes", model=["x"]),
        rec("00002", A2V, "R?", "No", pred="No"),
    ]
    assert set(avhbench.load(write(tmp_path / "run.json", records))["model"]) == {"run"}


def test_the_collector_is_paused_only_while_loading(tmp_path: Path) -> None:
    import gc

    good = write(tmp_path / "m.json", [rec("00001", A2V, "Q?", "Yes", pred="Yes")])
    avhbench.load(good)
    assert gc.isenabled()
    with pytest.raises(InputError):
        avhbench.load(write(tmp_path / "bad.json", [rec("00001", A2V, "Q?", "Yes", pred=3)]))
    assert gc.isenabled()  # resumed after a refused file too
    gc.disable()
    try:
        avhbench.load(good)
        assert not gc.isenabled()  # a collector paused by the caller stays paused
    finally:
        gc.enable()
