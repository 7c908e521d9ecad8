"""Corrected gold applied to item tables, metric changes, and native files that read back.

The round trip: relabel some gold, write the benchmark's own files with the corrections, load
them with the module's own loader: the gold reflects the change, and scoring the reloaded file
gives exactly the metrics of ``apply_corrections`` on the original table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from store_support import ALICE, BOB, open_backend

from analysis.benchmarks import cdh_bench, cmm, get, vidhalluc
from analysis.cli.main import main
from analysis.review.corrected import gold_map, write_native
from analysis.store import (
    ItemRef,
    Store,
    apply_corrections,
    current_labels,
    metric_changes,
    relabel,
    rescore_with_gold,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from open_backend("sqlite", tmp_path)  # native files do not depend on the backend


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# --- CMM -----------------------------------------------------------------------------------------


def _cmm_rows() -> list[dict[str, Any]]:
    cases = [("yes", "Yes, there is."), ("no", "No."), ("yes", "no"), ("no", "yes it is"), ("no", "nothing")]
    return [
        {
            "category": "inter-modality",
            "sub_category": "visual-language",
            "modality": "visual",
            "granularity": "object-level",
            "correlation_type": "global",
            "video_path": f"./raw_files/{i}.mp4",
            "audio_path": None,
            "question": f"Did you see thing {i}?",
            "answer": gold,
            "pred": pred,
        }
        for i, (gold, pred) in enumerate(cases)
    ]


def test_cmm_corrections_rescore_and_round_trip(store: Store, tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "final_output.json", _cmm_rows())
    table = cmm.load(source)
    before = cmm.score(table)
    # row 2: gold yes, answer "no" -> wrong; the reviewer says the gold is no -> right
    relabel(store, table.iloc[2], "gold", "no", ALICE, "no thing in the clip")
    labels = current_labels(store, "cmm")
    corrected = apply_corrections(table, labels)
    assert table["gold"].tolist() == ["yes", "no", "yes", "no", "no"]  # the input is untouched
    assert corrected["gold"].tolist() == ["yes", "no", "no", "no", "no"]
    assert corrected["official_gold"].tolist() == table["gold"].tolist()
    assert corrected["raw_answer"].tolist() == table["raw_answer"].tolist()
    assert corrected["correct"].tolist() == [True, True, True, False, True]
    assert corrected["official_correct"].tolist() == [True, True, False, False, True]
    assert corrected["gold_corrected"].tolist() == [False, False, True, False, False]
    after = cmm.score(corrected)
    changes = dict((path, (b, a)) for path, b, a in metric_changes(before, after))
    # accuracy 3/5 -> 4/5; PA: gold yes 2 -> 1, hit 1 -> 1.0; HR: gold no 3 -> 4, 'no' in pred[:5]: 2 -> 3
    assert changes["overall.accuracy"] == (0.6, 0.8)
    assert changes["overall.pa"] == (0.5, 1.0)
    assert changes["overall.hr"] == (2 / 3, 0.75)
    assert "overall.n" not in changes
    written = write_native("cmm", [source], gold_map(labels), tmp_path / "corrected")
    reloaded = cmm.load(written[0])
    assert reloaded["gold"].tolist() == corrected["gold"].tolist()
    assert reloaded["item_id"].tolist() == table["item_id"].tolist()
    assert cmm.score(reloaded) == after


def test_flags_and_notes_ride_along_and_flagged_items_can_be_left_out(store: Store, tmp_path: Path) -> None:
    table = cmm.load(_jsonl(tmp_path / "cmm.jsonl", _cmm_rows()))
    relabel(store, table.iloc[3], "flag", ["invalid question"], ALICE)
    relabel(store, table.iloc[4], "note", "audio is silent", BOB)
    labels = current_labels(store, "cmm")
    kept = apply_corrections(table, labels)
    assert kept["flags"].tolist()[3] == "invalid-question" and kept["note"].tolist()[4] == "audio is silent"
    assert kept["scored"].all()
    dropped = apply_corrections(table, labels, exclude_flags=["invalid-question"])
    assert dropped["scored"].tolist() == [True, True, True, False, True]
    assert "invalid-question" in str(dropped["skip_reason"].iloc[3])
    assert cmm.score(dropped)["n_scored"] == 4


def test_an_empty_label_set_changes_nothing(tmp_path: Path) -> None:
    table = cmm.load(_jsonl(tmp_path / "cmm.jsonl", _cmm_rows()))
    empty = pd.DataFrame(columns=["item_id", "field", "value", "reviewer", "time", "reason", "event_id"])
    corrected = apply_corrections(table, empty)
    assert corrected["correct"].tolist() == table["correct"].tolist()
    assert metric_changes(cmm.score(table), cmm.score(corrected)) == []


# --- CDH-Bench ------------------------------------------------------------------------------------


def _cdh_pair(n: int, category: str) -> dict[str, Any]:
    return {
        "pair_id": f"Pair {n}",
        "pair_name": f"thing {n}",
        "category": category,
        "subcategory": "Body Parts",
        "direct_qa": {"question": f"Is it normal {n}?", "commonsense_gt": "yes", "counterfactual_gt": "no"},
        "multiple_choice": {
            "question": f"How many {n}?",
            "options": ["A. 5", "B. 6", "C. 4", "D. 7"],
            "commonsense_gt": "A",
            "counterfactual_gt": "B",
        },
    }


def _cdh_result(pair: dict[str, Any], task: str, side: str, pred: str, status: str = "ok") -> dict[str, Any]:
    block = pair["direct_qa" if task == "qa" else "multiple_choice"]
    cs, cf = block["commonsense_gt"], block["counterfactual_gt"]
    gt = cs if side == "commonsense" else cf
    from analysis.benchmarks.cdh_bench.parse import READERS

    ok = READERS["reparse"](task, pred, gt)[1]
    ce = side == "counterfactual" and not ok and READERS["reparse"](task, pred, cs)[1]
    return {
        "ts": "2026-03-19T09:41:00+00:00",
        "model_name": "m",
        "pair_id": pair["pair_id"],
        "category": pair["category"],
        "subcategory": pair["subcategory"],
        "task": task,
        "side": side,
        "image_path": f"images/x/{side}.png",
        "status": status,
        "question": block["question"],
        "gt": gt,
        "cf_gt": cf,
        "cs_gt": cs,
        "pred": pred,
        "correct": ok if status == "ok" else None,
        "commonsense_error": ce if status == "ok" else None,
    }


def test_cdh_corrections_round_trip_through_both_files_and_the_cli(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = [_cdh_pair(1, "Counting Anomalies"), _cdh_pair(2, "Attribute Anomalies")]
    gold_file = _jsonl(tmp_path / "benchmark.jsonl", pairs)
    results = _jsonl(
        tmp_path / "results.jsonl",
        [
            _cdh_result(pairs[0], "qa", "commonsense", "Yes."),
            _cdh_result(pairs[0], "qa", "counterfactual", "Yes, it is."),  # commonsense error
            _cdh_result(pairs[1], "qa", "commonsense", "No"),
            _cdh_result(pairs[1], "qa", "counterfactual", "no"),
            _cdh_result(pairs[0], "mc", "commonsense", "A"),
            _cdh_result(pairs[0], "mc", "counterfactual", "A. 5"),  # commonsense error
            _cdh_result(pairs[1], "mc", "commonsense", "C", status="error"),
            _cdh_result(pairs[1], "mc", "commonsense", "A"),
            _cdh_result(pairs[1], "mc", "counterfactual", "B"),
        ],
    )
    table = cdh_bench.load(results)
    before = cdh_bench.score(table)
    gold_rows = cdh_bench.load_gold([gold_file]).set_index(["pair_id", "task", "side"])
    # Pair 2's commonsense qa gold is wrong: the picture shows "no"; Pair 1's counterfactual mc
    # gold should be A. The second changes Pair 1's mc counterfactual verdict to right.
    cs_qa = gold_rows.loc[("Pair 2", "qa", "commonsense")]
    relabel(store, ItemRef("cdh-bench", cs_qa["item_id"], "qa", cs_qa["gold"]), "gold", "no", ALICE)
    pair1_mc = (table["pair_id"] == "Pair 1") & (table["task"] == "mc")
    cf_mc = table[pair1_mc & (table["side"] == "counterfactual")]
    relabel(store, cf_mc.iloc[0], "gold", "A", BOB, "six fingers is option A in this image")
    labels = current_labels(store, "cdh-bench")
    corrected = apply_corrections(table, labels)
    after = cdh_bench.score(corrected)
    changes = {p: (b, a) for p, b, a in metric_changes(before, after)}
    # qa: CS-Acc 1/2 -> 2/2 (Pair 2 said "No"); CF-Acc stays 1/2; CFAD 0 -> 0.5
    assert changes["groups.task.qa.cs_acc"] == (0.5, 1.0)
    assert changes["groups.task.qa.cfad"] == (0.0, 0.5)
    # mc: CF-Acc 1/2 -> 2/2; no counterfactual error is left, so CCR 1.0 -> undefined
    assert changes["groups.task.mc.cf_acc"] == (0.5, 1.0)
    assert changes["groups.task.mc.ccr"] == (1.0, None)
    assert all(
        v == before["groups"]["task"]["mc"][k]
        for k, v in after["groups"]["task"]["mc"].items()
        if k in ("cs_acc", "n_cf", "n_cs")
    )
    out = tmp_path / "corrected"
    write_native("cdh-bench", [gold_file, results], gold_map(labels), out)
    regold = cdh_bench.load_gold([out / "benchmark.jsonl"]).set_index(["pair_id", "task", "side"])
    assert regold.loc[("Pair 2", "qa", "commonsense"), "gold"] == "no"
    assert regold.loc[("Pair 1", "mc", "counterfactual"), "gold"] == "A"
    assert (regold["gold"] != gold_rows["gold"]).sum() == 2
    for parser in cdh_bench.PARSERS:
        assert cdh_bench.score(cdh_bench.load(out / "results.jsonl"), parser=parser) == cdh_bench.score(
            corrected, parser=parser
        )
    capsys.readouterr()
    assert main(["score", "cdh-bench", str(out / "results.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == after


# --- VidHalluc ------------------------------------------------------------------------------------


def test_vidhalluc_corrections_in_all_four_gold_files(store: Store, tmp_path: Path) -> None:
    files = {
        "ach_binaryqa.json": {"g1": [{"q": "Is the man running?", "a": {"c1": "Yes", "c2": "No"}}]},
        "ach_mcq.json": {
            "g1": {
                "c1": {
                    "Question": "What?",
                    "Correct Answer": "A",
                    "Choices": {"A": "run", "B": "walk", "C": "sit", "D": "jump"},
                }
            }
        },
        "tsh.json": {"0": {"video": "v1", "Question": "Action A. x\nAction B. y\n", "Correct Answer": "AB"}},
        "sth.json": {"s1": {"Scene change": "No", "Locations": "None"}},
    }
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        paths.append(tmp_path / name)
    table = vidhalluc.load_gold(paths)
    scene = "Scene change: Yes, Locations: from a kitchen to a park."
    new = {"bqa": "no", "mcq": "B, D", "tsh": "ba", "sth": scene.lower()}
    for task, value in new.items():
        row = table[table["task"] == task].iloc[0]
        relabel(store, row, "gold", value, ALICE)
    labels = current_labels(store, "vidhalluc")
    assert sorted(labels["value"]) == ["BA", "BD", scene, "no"]  # each in its canonical spelling
    out = tmp_path / "corrected"
    reloaded = vidhalluc.load_gold(write_native("vidhalluc", paths, gold_map(labels), out))
    golds = dict(zip(reloaded["item_id"], reloaded["gold"], strict=True))
    for task, expected in {"bqa": "No", "mcq": "BD", "tsh": "BA", "sth": "Yes"}.items():
        row = table[table["task"] == task].iloc[0]
        assert golds[row["item_id"]] == expected
    sth = json.loads((out / "sth.json").read_text(encoding="utf-8"))
    assert sth["s1"] == {"Scene change": "Yes", "Locations": "from a kitchen to a park."}
    assert json.loads((out / "ach_binaryqa.json").read_text())["g1"][0]["a"] == {"c1": "No", "c2": "No"}


def test_vidhalluc_mcq_rescore_uses_the_official_set_rule(tmp_path: Path) -> None:
    combined = {
        "g1": {
            "c1": {
                "Question": "Q",
                "Choices": {"A": "run", "B": "walk", "C": "sit", "D": "jump"},
                "Correct Answer": "A",
                "Model Answer": "B and D",
            },
            "c2": {
                "Question": "Q",
                "Choices": {"A": "run", "B": "walk", "C": "sit", "D": "jump"},
                "Correct Answer": "C",
                "Model Answer": "C",
            },
        }
    }
    path = tmp_path / "mcq_out.json"
    path.write_text(json.dumps(combined), encoding="utf-8")
    table = vidhalluc.load(path, task="mcq")
    assert table["correct"].tolist() == [False, True]
    rescored = rescore_with_gold(table, ["BD", "C"])
    assert rescored["correct"].tolist() == [True, True]  # {B, D} == {B, D}
    assert vidhalluc.score(rescored, task="mcq")["overall"]["accuracy"] == 1.0


# --- DetailVerifyBench and AVHBench ----------------------------------------------------------------


def test_dvb_gold_tags_move_and_the_labels_follow(store: Store, tmp_path: Path) -> None:
    dvb = get("detailverifybench")
    tagged = "A man in a <HALLUCINATION>red</HALLUCINATION> coat stands by a blue door."
    rows = [
        {
            "filename": "1.png",
            "category": "Nature",
            "GT_description": "A man in a grey coat.",
            "Modify": "Yes",
            "description_tag": tagged,
            "hallucination_labels": [{"text": "red", "labels": ["Object Color Hallucination"]}],
        }
    ]
    source = _jsonl(tmp_path / "real_test.jsonl", rows)
    table = dvb.load_gold([source])
    clean = "A man in a red coat stands by a blue door."
    start = clean.index("blue")
    spans = json.dumps({"spans": [[start, start + 4]]})
    relabel(store, table.iloc[0], "gold", spans, ALICE, "the door is green")
    labels = current_labels(store, "detailverifybench")
    assert labels["value"].tolist() == [
        "A man in a red coat stands by a <HALLUCINATION>blue</HALLUCINATION> door."
    ]
    written = write_native("detailverifybench", [source], gold_map(labels), tmp_path / "corrected")
    record = json.loads(written[0].read_text(encoding="utf-8"))
    assert record["description_tag"] == labels["value"].iloc[0]
    assert record["hallucination_labels"] == [] and record["Modify"] == "Yes"
    assert dvb.load_gold(written)["gold"].tolist() == labels["value"].tolist()


def test_avhbench_round_trip(store: Store, tmp_path: Path) -> None:
    avh = get("avhbench")
    if not hasattr(avh, "load_gold"):
        pytest.skip("the avhbench module is still a placeholder (no load_gold)")
    qa = [
        {
            "video_id": "00191",
            "task": "Video-driven Audio Hallucination",
            "text": "Is the sleeping man making sound in the audio?",
            "label": "Yes",
        },
        {
            "video_id": "00192",
            "task": "Audio-driven Video Hallucination",
            "text": "Is the car visible in the video?",
            "label": "No",
        },
    ]
    source = tmp_path / "QA.json"
    source.write_text(json.dumps(qa), encoding="utf-8")
    table = avh.load_gold([source])
    relabel(store, table.iloc[0], "gold", "no", ALICE, "the man is silent")
    labels = current_labels(store, "avhbench")
    written = write_native("avhbench", [source], gold_map(labels), tmp_path / "corrected")
    assert json.loads(written[0].read_text(encoding="utf-8"))[0]["label"] == "No"
    reloaded = avh.load_gold(written)
    assert reloaded["gold"].tolist()[:2] == ["No", "No"]
    assert reloaded["item_id"].tolist() == table["item_id"].tolist()


def test_native_export_never_overwrites_its_input(store: Store, tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "cmm.jsonl", _cmm_rows())
    relabel(store, ItemRef("cmm", cmm.load(source)["item_id"].iloc[0], "", "yes"), "gold", "no", ALICE)
    from analysis.errors import InputError

    with pytest.raises(InputError, match="output folder"):
        write_native("cmm", [source], gold_map(current_labels(store, "cmm")), tmp_path)
    assert json.loads(source.read_text().splitlines()[0])["answer"] == "yes"
