"""Exports of a pair validation: JSON and CSV pair lists, native gold files of kept pairs."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from store_support import ALICE, BOB, CAROL

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc.pairs import catalogue
from analysis.errors import InputError
from analysis.review.pairs.export import (
    export_kept_gold,
    export_pairs_csv,
    export_pairs_json,
    filter_gold,
    kept_pairs,
)
from analysis.review.pairs.validation import PairChecks, adjudicate_pair, save_validation
from analysis.store import Store, open_store
from analysis.store.export import csv_unsafe

SAMPLE = Path(__file__).parents[2] / "samples" / "vidhalluc"
GOLD = [SAMPLE / "ach_binaryqa.json", SAMPLE / "ach_mcq.json"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "data" / "labels.db")
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def pairs() -> pd.DataFrame:
    if not GOLD[0].exists():
        pytest.skip("samples/vidhalluc is absent (run samples/generate.py)")
    return catalogue(vidhalluc.load_gold(GOLD))


def validate_sample(store: Store, pairs: pd.DataFrame) -> None:
    """alice and bob keep every pair but two; they disagree on s4ac761d, carol settles it (keep)."""
    for who in (ALICE, BOB):
        for pair, clips in zip(pairs["pair_id"], pairs["clips"], strict=True):
            if pair == "s5aa86f2" and who == BOB:
                continue  # bob has not reached it yet: one vote of two, undecided
            ok = PairChecks(pair, clips, (True,) * len(clips), (True,) * len(clips), True)
            if pair == "s208d8d2":
                ok = ok.set("clear_action", False, 2)  # the truncated clip
            if pair == "s1a05226":
                ok = ok.set("actions_differ", False)
            if pair == "s4ac761d" and who == BOB:
                ok = ok.set("single_action", False, 0)
            save_validation(store, ok, who, '=HYPERLINK("x")' if who == BOB else "")
    clips = pairs.set_index("pair_id").loc["s4ac761d", "clips"]
    adjudicate_pair(store, PairChecks("s4ac761d", clips, (True,) * 3, (True,) * 3, True), CAROL, "one action")


KEPT = ["sf7026ba", "se1b2123", "s7da0ff0", "s592530b", "s4ac761d"]  # file order


def test_filtered_gold_round_trips_through_the_loaders(
    store: Store, pairs: pd.DataFrame, tmp_path: Path
) -> None:
    validate_sample(store, pairs)
    assert sorted(kept_pairs(store, required=2)) == sorted(KEPT)
    written = export_kept_gold(store, GOLD, tmp_path / "out", required=2)
    out = tmp_path / "out"
    assert written == {"bqa": out / "ach_binaryqa.json", "mcq": out / "ach_mcq.json"}
    for task, path in written.items():
        original = json.loads((SAMPLE / path.name).read_text(encoding="utf-8"))
        filtered = json.loads(path.read_text(encoding="utf-8"))
        assert list(filtered) == KEPT  # kept groups only, in the file's order
        assert all(filtered[g] == original[g] for g in KEPT), task  # copied as they were
    gold = vidhalluc.load_gold(list(written.values()))
    assert set(gold["pair_id"].astype(str)) == set(KEPT)
    assert catalogue(gold)["pair_id"].tolist() == KEPT
    # model outputs score against the filtered gold as against the original
    bqa = vidhalluc.load(SAMPLE / "predictions/bqa/balanced.json", gold=written["bqa"], task="bqa")
    report = vidhalluc.score(bqa, task="bqa")
    full = vidhalluc.load(SAMPLE / "predictions/bqa/balanced.json", gold=GOLD[0], task="bqa")
    subset = vidhalluc.score(full[full["pair_id"].astype(str).isin(KEPT)], task="bqa")
    assert report["overall"] == subset["overall"] and report["n_scored"] == subset["n_scored"] > 0
    mcq = vidhalluc.load(SAMPLE / "predictions/mcq/balanced.json", gold=written["mcq"], task="mcq")
    assert set(mcq.loc[mcq["scored"], "pair_id"].astype(str)) == set(KEPT)


def test_nothing_decided_gives_empty_files_that_still_load(store: Store, tmp_path: Path) -> None:
    if not GOLD[0].exists():
        pytest.skip("samples/vidhalluc is absent")
    written = export_kept_gold(store, GOLD, tmp_path)
    assert all(json.loads(p.read_text(encoding="utf-8")) == {} for p in written.values())
    assert vidhalluc.load_gold(list(written.values())).empty


def test_pair_list_json_has_every_pair_and_review(store: Store, pairs: pd.DataFrame, tmp_path: Path) -> None:
    validate_sample(store, pairs)
    path = tmp_path / "pairs.json"
    assert export_pairs_json(store, pairs, path, required=2) == 8
    body = json.loads(path.read_text(encoding="utf-8"))  # strict JSON: no NaN anywhere
    assert body["counts"] == {"keep": 5, "drop": 2, "undecided": 1}
    by_id = {p["pair_id"]: p for p in body["pairs"]}
    assert [p["pair_id"] for p in body["pairs"]] == pairs["pair_id"].tolist()
    assert (by_id["s5aa86f2"]["decision"], by_id["s5aa86f2"]["resolution"]) == (None, "pending")
    disputed = by_id["s4ac761d"]
    assert (disputed["decision"], disputed["resolution"]) == ("keep", "adjudicated")
    settled = disputed["adjudication"]
    assert (settled["reviewer"], settled["reason"], settled["decision"]) == ("carol", "one action", "keep")
    bob = next(r for r in disputed["reviews"] if r["reviewer"] == "bob")
    assert bob["decision"] == "drop" and bob["single_action"]["s4ac761d_clip_1"] is False
    assert bob["clips"] == ["s4ac761d_clip_1", "s4ac761d_clip_2", "s4ac761d_clip_3"]
    assert by_id["s1a05226"]["reviews"][0]["actions_differ"] is False


def test_pair_list_csv_has_every_reviewers_checks_and_is_formula_safe(
    store: Store, pairs: pd.DataFrame, tmp_path: Path
) -> None:
    validate_sample(store, pairs)
    path = tmp_path / "pairs.csv"
    # 7 pairs x 2 reviewers + s5aa86f2 (1 review) + carol's adjudication of s4ac761d = 16 rows
    assert export_pairs_csv(store, pairs, path, required=2) == 16
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    # the pair's scores come last (empty here: the sample files carry none; docs/pair-scores.md)
    assert list(rows[0])[-5:] == ["clip_3", "clear_action_3", "single_action_3", "semantic", "visual"]
    bob = next(r for r in rows if r["pair_id"] == "s4ac761d" and r["reviewer"] == "bob")
    assert (bob["role"], bob["decision"], bob["single_action_1"], bob["single_action_2"]) == (
        "vote",
        "drop",
        "no",
        "yes",
    )
    assert bob["final_decision"] == "keep" and bob["resolution"] == "adjudicated"
    assert bob["note"] == '\'=HYPERLINK("x")' and csv_unsafe(bob["note"]) == '=HYPERLINK("x")'
    pair_rows = [r for r in rows if r["pair_id"] == "sf7026ba"]
    assert [r["clip_3"] for r in pair_rows] == ["", ""]  # a two-clip pair leaves the third slot empty
    assert [r["role"] for r in rows if r["pair_id"] == "s4ac761d"] == ["vote", "vote", "adjudication"]


def test_filter_gold_refuses_what_it_cannot_filter(tmp_path: Path) -> None:
    if not GOLD[0].exists():
        pytest.skip("samples/vidhalluc is absent")
    with pytest.raises(InputError, match="overwrite"):
        filter_gold(GOLD[0], [], GOLD[0])
    with pytest.raises(InputError, match="tsh"):
        filter_gold(SAMPLE / "tsh.json", [], tmp_path / "tsh.json")
    broken = tmp_path / "ach_mcq.json"
    broken.write_text('{"g": {', encoding="utf-8")
    with pytest.raises(InputError, match=r"ach_mcq\.json"):
        filter_gold(broken, [], tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()


def test_kept_gold_carries_the_item_corrections(store: Store, pairs: pd.DataFrame, tmp_path: Path) -> None:
    """Issue 9: the kept-pair ach_binaryqa.json / ach_mcq.json ignored gold corrections of their items."""
    from analysis.store import ItemRef, relabel

    validate_sample(store, pairs)
    gold = vidhalluc.load_gold(GOLD)
    bqa_row = gold[(gold["task"] == "bqa") & (gold["pair_id"].astype(str) == KEPT[0])].iloc[0]
    mcq_row = gold[(gold["task"] == "mcq") & (gold["pair_id"].astype(str) == KEPT[0])].iloc[0]
    new_bqa = "no" if str(bqa_row["gold"]).lower() == "yes" else "yes"
    new_mcq = "D" if str(mcq_row["gold"]) != "D" else "A"
    for row, value in ((bqa_row, new_bqa), (mcq_row, new_mcq)):
        ref = ItemRef("vidhalluc", str(row["item_id"]), str(row["task"]), str(row["gold"]))
        relabel(store, ref, "gold", value, ALICE, "wrong gold")
    written = export_kept_gold(store, GOLD, tmp_path / "out", required=2)
    reloaded = vidhalluc.load_gold(list(written.values())).set_index("item_id")
    assert str(reloaded.at[str(bqa_row["item_id"]), "gold"]).lower() == new_bqa
    assert str(reloaded.at[str(mcq_row["item_id"]), "gold"]) == new_mcq
    assert set(reloaded["pair_id"].astype(str)) == set(KEPT)
