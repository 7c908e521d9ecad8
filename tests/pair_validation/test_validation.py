"""Pair validation: the decision table, keys, storing checks, restarts, agreement, adjudication."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd
import pytest
from store_support import ALICE, BACKENDS, BOB, CAROL, open_backend

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc.pairs import catalogue
from analysis.review.pairs.validation import (
    Check,
    PairChecks,
    adjudicate_pair,
    agreement,
    agreement_summary,
    assign_pairs,
    check_keys,
    clip_item,
    decisions,
    disagreement_queue,
    my_queue,
    my_validation,
    pair_item,
    press,
    progress,
    save_validation,
    split_key,
    validations,
)
from analysis.store import (
    InvalidLabel,
    Store,
    events_frame,
    export_corrections,
    import_corrections,
    open_store,
)
from analysis.store.events import write_labels
from analysis.store.values import normalize

SAMPLE = Path(__file__).parents[2] / "samples" / "vidhalluc"
CLIPS = ("g_clip_1", "g_clip_2")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


def checks(
    pair: str,
    clear: Sequence[Check],
    single: Sequence[Check],
    differ: Check,
    clips: Sequence[str] | None = None,
) -> PairChecks:
    members = tuple(clips) if clips is not None else tuple(f"{pair}_clip_{i + 1}" for i in range(len(clear)))
    return PairChecks(pair, members, tuple(clear), tuple(single), differ)


@pytest.mark.parametrize("combo", list(itertools.product((True, False, None), repeat=5)))
def test_decision_for_every_combination_of_the_five_checks(combo: tuple[Check, ...]) -> None:
    clear_a, clear_b, single_a, single_b, differ = combo
    pair = PairChecks("g", CLIPS, (clear_a, clear_b), (single_a, single_b), differ)
    # the rule as VidHalluc states it: drop if either clip lacks a clear action, either clip shows
    # several actions, or both show the same action; keep only when all five checks pass
    if False in combo:
        expected = "drop"
    elif combo == (True,) * 5:
        expected = "keep"
    else:
        expected = None
    assert pair.decision == expected
    reasons = pair.failures()
    assert len(reasons) == combo.count(False)
    assert ("g_clip_1: no clear action" in reasons) == (clear_a is False)
    assert ("g_clip_2: several actions" in reasons) == (single_b is False)
    assert ("the clips show the same action" in reasons) == (differ is False)


def test_keys_toggle_each_check_then_save() -> None:
    assert [(k, c, i) for k, c, i in check_keys(2)] == [
        ("1", "clear_action", 0),
        ("2", "clear_action", 1),
        ("3", "single_action", 0),
        ("4", "single_action", 1),
        ("5", "actions_differ", None),
    ]
    assert [k for k, _, _ in check_keys(3)] == [str(n) for n in range(1, 8)]
    blank = PairChecks.blank("g", CLIPS)
    assert blank.decision is None and blank.values() == (None,) * 5
    once = press(blank, "2")  # unanswered -> yes
    assert once.clear_action == (None, True)
    assert press(once, "2").clear_action == (None, False)  # yes -> no
    assert press(press(once, "2"), "2").clear_action == (None, True)  # no -> yes
    assert press(blank, "x") == blank
    all_yes = blank
    for key in "12345":
        all_yes = press(all_yes, key)
    assert all_yes.decision == "keep" and press(all_yes, "5").decision == "drop"


def test_a_malformed_record_is_refused() -> None:
    with pytest.raises(InvalidLabel):
        PairChecks("g", CLIPS, (True,), (True, True), True)
    with pytest.raises(InvalidLabel):
        PairChecks("g", ("a", "a"), (True, True), (True, True), True)
    with pytest.raises(InvalidLabel):
        PairChecks("g", ("a|b", "c"), (True, True), (True, True), True)
    with pytest.raises(InvalidLabel):
        PairChecks.blank("g", CLIPS).set("single_action", True)  # per-clip checks need a clip


def test_item_keys_round_trip() -> None:
    assert split_key(pair_item("-Ab_c").item_id) == ("-Ab_c", "")
    assert split_key(clip_item("-Ab_c", "-Ab_c_clip_2").item_id) == ("-Ab_c", "-Ab_c_clip_2")
    assert split_key("bqa-0123456789abcdef") is None


def test_choice_fields_are_store_values() -> None:
    assert normalize("pair_check:clear_action", True) == "yes"
    assert normalize("pair_check:single_action", " N ") == "no"
    assert normalize("pair_check:decision", "KEEP") == "keep"
    with pytest.raises(InvalidLabel):
        normalize("pair_check:decision", "yes")
    with pytest.raises(InvalidLabel):
        normalize("pair_check:actions_differ", 1)


def test_saving_writes_every_check_at_once_and_only_changes(store: Store) -> None:
    with pytest.raises(InvalidLabel):  # an open check: nothing is written
        save_validation(store, checks("g", [True, None], [True, True], True), ALICE)
    assert events_frame(store).empty
    first = checks("g", [True, True], [True, True], True)
    events = save_validation(store, first, ALICE, "clear enough")
    # 2 clear + 2 single on the clips, differ + decision + note on the pair
    assert len(events) == 7 and {e.scope for e in events} == {"vote"}
    assert save_validation(store, first, ALICE, "clear enough") == []  # nothing changed
    second = save_validation(store, first.set("single_action", False, 1), ALICE, None)
    assert sorted(e.field for e in second) == ["pair_check:decision", "pair_check:single_action"]
    assert my_validation(store, "g", first.clips, ALICE) == (
        first.set("single_action", False, 1),
        "clear enough",
    )
    assert my_validation(store, "g", first.clips, BOB) == (PairChecks.blank("g", first.clips), "")


def test_a_batch_with_a_bad_value_writes_nothing(store: Store) -> None:
    good, bad = (pair_item("g"), "pair_check:decision", "keep"), (pair_item("g"), "pair_check:decision", "?")
    with pytest.raises(InvalidLabel):
        write_labels(store, [good, bad], ALICE, scope="vote")
    assert events_frame(store).empty


def test_validations_persist_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "data" / "labels.db"
    store = open_store(db)
    save_validation(store, checks("p1", [True, True], [True, True], True), ALICE, "fine")
    save_validation(store, checks("p1", [True, False], [True, True], True), BOB)
    save_validation(store, checks("p2", [True, True, True], [True, True, False], True), ALICE)
    adjudicate_pair(store, checks("p1", [True, True], [True, True], True), CAROL, "clip 2 is clear")
    before = (validations(store), validations(store, scope="final"), decisions(store, required=2))
    store.close()

    store = open_store(db)  # a new process would see exactly this
    try:
        after = (validations(store), validations(store, scope="final"), decisions(store, required=2))
        for old, new in zip(before, after, strict=True):
            pd.testing.assert_frame_equal(old, new)
        # p1 adjudicated; p2 has one vote of the two required
        assert after[2].set_index("pair_id")["decision"].to_dict() == {"p1": "keep", "p2": None}
        assert after[2]["resolution"].tolist() == ["adjudicated", "pending"]
        assert my_validation(store, "p1", ("p1_clip_1", "p1_clip_2"), ALICE)[1] == "fine"
        row = after[0][(after[0]["pair_id"] == "p2")].iloc[0]
        assert row["single_action"] == {"p2_clip_1": True, "p2_clip_2": True, "p2_clip_3": False}
    finally:
        store.close()


def test_agreement_per_criterion_by_hand(store: Store) -> None:
    # 3 pairs x 2 clips. clear_action over the 6 clips: alice y y | y y | n y, bob y y | n y | n y.
    #   observed 5/6; alice yes 5/6, bob yes 4/6 -> pe = 5/6*4/6 + 1/6*2/6 = 22/36;
    #   kappa = (30/36 - 22/36) / (14/36) = 4/7.
    #   alpha: 12 values, 9 yes / 3 no; one unit disagrees -> Do = 2/12; De = 2*9*3 / (12*11) = 54/132;
    #   alpha = 1 - (2/12) / (54/132) = 1 - 11/27 = 16/27.
    # single_action all yes: one value only -> alpha and kappa undefined (None); raw agreement 1.
    # actions_differ: alice y y y, bob y n y -> observed 2/3, pe = 1*2/3 = 2/3 -> kappa 0.
    # decision: alice keep keep drop, bob keep drop drop -> observed 2/3;
    #   pe = 2/3*1/3 + 1/3*2/3 = 4/9 -> kappa = (6/9 - 4/9) / (5/9) = 2/5.
    plan = {
        ALICE: [([True, True], True), ([True, True], True), ([False, True], True)],
        BOB: [([True, True], True), ([False, True], False), ([False, True], True)],
    }
    for who, pairs in plan.items():
        for n, (clear, differ) in enumerate(pairs):
            save_validation(store, checks(f"p{n}", clear, [True, True], differ), who)
    report = agreement(store)
    clear = report["clear_action"]
    assert clear["n_items"] == 6 and clear["raw_agreement"] == pytest.approx(5 / 6)
    assert clear["pairs"][0]["kappa"] == pytest.approx(4 / 7)
    assert clear["krippendorff_alpha"] == pytest.approx(16 / 27)
    single = report["single_action"]
    assert single["raw_agreement"] == 1 and single["krippendorff_alpha"] is None
    assert single["pairs"][0]["kappa"] is None
    assert report["actions_differ"]["pairs"][0]["kappa"] == pytest.approx(0)
    assert report["decision"]["pairs"][0]["kappa"] == pytest.approx(2 / 5)
    summary = agreement_summary(store).set_index("criterion")
    assert summary.loc["clear_action", "unit"] == "clip" and summary.loc["decision", "n_items"] == 3
    assert summary.loc["decision", "kappa"] == pytest.approx(2 / 5)
    assert summary.loc["single_action", "kappa"] is None


def test_two_reviewers_on_the_sample_pairs_then_adjudication(store: Store) -> None:
    if not (SAMPLE / "ach_binaryqa.json").exists():
        pytest.skip("samples/vidhalluc is absent (run samples/generate.py)")
    pairs = catalogue(vidhalluc.load_gold([SAMPLE / "ach_binaryqa.json", SAMPLE / "ach_mcq.json"]))
    members = dict(zip(pairs["pair_id"], pairs["clips"], strict=True))
    plan = assign_pairs(members, ["alice", "bob"], k=2)
    assert progress(store, plan) == {
        "done": 0,
        "total": 16,
        "pairs_done": 0,
        "pairs_total": 8,
        "reviewers": {"alice": {"done": 0, "total": 8}, "bob": {"done": 0, "total": 8}},
    }
    for who in (ALICE, BOB):
        for pair in my_queue(store, plan, who):
            clips = members[pair]
            verdict = PairChecks(pair, clips, (True,) * len(clips), (True,) * len(clips), True)
            if pair == "s208d8d2":  # its third clip is the truncated video: no clear action
                verdict = verdict.set("clear_action", False, 2)
            if pair == "s4ac761d" and who == BOB:  # "jogging / running": bob sees two actions
                verdict = verdict.set("single_action", False, 0)
            save_validation(store, verdict, who)
        assert my_queue(store, plan, who) == []
    assert progress(store, plan)["pairs_done"] == 8
    queue = disagreement_queue(store)
    assert queue["pair_id"].tolist() == ["s4ac761d"]
    row = queue.iloc[0]
    assert row["criteria"] == ("single_action", "decision") and row["clips"] == ("s4ac761d_clip_1",)
    assert row["decisions"] == {"alice": "keep", "bob": "drop"} and row["decision_split"]
    table = decisions(store, list(members), required=2).set_index("pair_id")
    assert table.loc["s4ac761d", "resolution"] == "disputed" and table.loc["s4ac761d", "decision"] is None
    assert table.loc["s208d8d2", "decision"] == "drop" and (table["resolution"] != "pending").all()

    clips = members["s4ac761d"]
    settled = PairChecks("s4ac761d", clips, (True,) * 3, (True,) * 3, True)
    with pytest.raises(InvalidLabel):
        adjudicate_pair(store, settled, CAROL, " ")
    events = adjudicate_pair(store, settled, CAROL, "jogging and running are one action")
    assert {(e.scope, e.kind) for e in events} == {("final", "adjudicate")} and len(events) == 8
    assert disagreement_queue(store).empty
    table = decisions(store, list(members), required=2).set_index("pair_id")
    assert (table.loc["s4ac761d", "decision"], table.loc["s4ac761d", "resolution"]) == ("keep", "adjudicated")
    assert (table["decision"] == "keep").sum() == 7
    final = validations(store, scope="final")
    assert final["reviewer"].tolist() == ["carol"] and final.iloc[0]["reason"].startswith("jogging")


def test_validations_travel_through_a_corrections_file(store: Store, tmp_path: Path) -> None:
    save_validation(store, checks("p1", [True, True], [True, False], True), ALICE, "=two actions")
    adjudicate_pair(store, checks("p1", [True, True], [True, True], True), CAROL, "one action")
    for fmt in ("jsonl", "csv"):
        path = tmp_path / f"corrections.{fmt}"
        export_corrections(store, path, benchmark="vidhalluc")
        other = open_store(tmp_path / f"{fmt}.db")
        try:
            assert import_corrections(other, path, CAROL) == len(events_frame(store))
            pd.testing.assert_frame_equal(validations(other), validations(store))
            pd.testing.assert_frame_equal(decisions(other), decisions(store))
        finally:
            other.close()


def test_progress_never_falls_back_when_the_team_grows(store: Store) -> None:
    """alice validates three pairs alone; bob and carol join, the assignment is dealt again: her
    three decisions still count, for the pairs and for her (they once dropped out of the count)."""
    from analysis.store.reviewers import round_team

    if not (SAMPLE / "ach_binaryqa.json").exists():
        pytest.skip("samples/vidhalluc is absent (run samples/generate.py)")
    pairs = catalogue(vidhalluc.load_gold([SAMPLE / "ach_binaryqa.json", SAMPLE / "ach_mcq.json"]))
    members = dict(zip(pairs["pair_id"], pairs["clips"], strict=True))
    alone = assign_pairs(members, round_team([], [], "alice"), k=1)
    validated = my_queue(store, alone, ALICE)[:3]
    for pair in validated:
        clips = members[pair]
        save_validation(
            store, PairChecks(pair, clips, (True,) * len(clips), (True,) * len(clips), True), ALICE
        )
    before = progress(store, alone)
    assert (before["done"], before["total"], before["pairs_done"]) == (3, 8, 3)
    team = round_team([], ["alice", "bob"], "carol")  # bob voted elsewhere, carol opens the tab
    grown = assign_pairs(members, team, k=1)
    # the case that miscounted: some pair alice validated is dealt to someone else now
    assert set(validated) - set(grown.loc[grown["reviewer"] == "alice", "pair_id"])
    after = progress(store, grown)
    assert (after["done"], after["total"], after["pairs_done"]) == (3, 8, 3)
    assert after["reviewers"]["alice"]["done"] == 3
    assert sum(r["done"] for r in after["reviewers"].values()) == 3
    # with configured reviewers the team is theirs: a stranger's vote does not deal the round again
    assert round_team(["alice", "bob"], ["alice", "zed"], "bob") == ["alice", "bob"]
    assert round_team([], ["alice", "zed"], "bob") == ["alice", "bob", "zed"]
