"""A review a team can trust: adjudication by someone else, reasons, per-item fields, hidden votes,
and the final-labels file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pandas as pd
import pytest
from store_support import ALICE, BACKENDS, BOB, CAROL, cmm_item, open_backend

from analysis.store import InvalidLabel, Store, adjudicate, events_frame, relabel, vote
from analysis.store.agreement import OwnVote
from analysis.store.export import write_frame
from analysis.store.final import FINAL_COLUMNS, final_labels
from analysis.store.payload import submit
from analysis.store.visibility import Viewer, shown_votes, visible_events


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


def _row(
    n: int = 1, gold: str = "Yes", benchmark: str = "cmm", task: str = "", options: str = ""
) -> pd.Series:
    return pd.Series(
        {"benchmark": benchmark, "item_id": f"item{n:04d}", "task": task, "gold": gold, "options": options}
    )


def test_an_adjudicator_never_settles_a_disagreement_holding_their_own_vote(store: Store) -> None:
    item = cmm_item(1)
    vote(store, item, "gold", "yes", ALICE)
    vote(store, item, "gold", "no", BOB)
    with pytest.raises(OwnVote, match="alice voted on gold of item0001"):
        adjudicate(store, item, "gold", "no", ALICE, "I looked again")
    assert adjudicate(store, item, "gold", "no", CAROL, "the clip has no river").reviewer == "carol"


def test_a_gold_change_through_submit_needs_a_reason(store: Store) -> None:
    row = _row()
    with pytest.raises(InvalidLabel, match="a gold change needs a reason"):
        submit(
            store,
            {"action": "relabel", "field": "gold", "value": "no", "item_id": "item0001"},
            ALICE,
            row=row,
        )
    event = submit(
        store,
        {"action": "relabel", "field": "gold", "value": "no", "reason": "no river", "item_id": "item0001"},
        ALICE,
        row=row,
    )
    assert (event.old_value, event.new_value) == ("Yes", "no")
    # a vote is a judgement, not a gold change: no reason needed
    submit(store, {"action": "vote", "field": "gold", "value": "yes", "item_id": "item0001"}, BOB, row=row)


def test_a_field_the_item_does_not_have_is_refused(store: Store) -> None:
    with pytest.raises(InvalidLabel, match=r"cmm item item0001 has no field 'pair_check:decision'"):
        submit(
            store, {"field": "pair_check:decision", "value": "keep", "item_id": "item0001"}, ALICE, row=_row()
        )
    assert events_frame(store).empty


def test_an_option_letter_beyond_the_items_options_is_refused(store: Store) -> None:
    row = _row(2, gold="A", benchmark="cdh-bench", task="mc", options='["red", "blue", "green"]')
    with pytest.raises(InvalidLabel, match="has options A, B, C, not D"):
        submit(store, {"field": "gold", "value": "D", "reason": "r", "item_id": "item0002"}, ALICE, row=row)
    assert (
        submit(
            store, {"field": "gold", "value": "c", "reason": "r", "item_id": "item0002"}, ALICE, row=row
        ).new_value
        == "C"
    )


def test_a_vote_is_hidden_until_the_viewer_votes_or_it_is_adjudicated(store: Store) -> None:
    one, two = cmm_item(1), cmm_item(2)
    vote(store, one, "gold", "no", ALICE)
    vote(store, two, "gold", "no", ALICE)
    events = events_frame(store, "cmm")
    bob, carol = Viewer("bob"), Viewer("carol", adjudicator=True)
    assert shown_votes(events, bob, "item0001") == {}
    assert shown_votes(events, carol, "item0001") == {"alice": "no"}  # the adjudicator reads them
    vote(store, one, "gold", "yes", BOB)
    adjudicate(store, two, "gold", "no", CAROL, "the audio is silent")
    events = events_frame(store, "cmm")
    assert shown_votes(events, bob, "item0001") == {"alice": "no", "bob": "yes"}  # bob voted
    assert shown_votes(events, bob, "item0002") == {"alice": "no"}  # adjudicated
    assert visible_events(events, Viewer("")).empty  # a visitor sees no reviewer's data


def test_a_blind_reviewer_sees_only_their_own_events_and_no_gold(store: Store) -> None:
    item = cmm_item(1)
    relabel(store, item, "gold", "no", CAROL, "fixed")
    vote(store, item, "gold", "no", ALICE)
    events = events_frame(store, "cmm")
    blind_bob = Viewer("bob", blind=True)
    assert visible_events(events, blind_bob).empty
    vote(store, item, "gold", "yes", BOB)
    seen = visible_events(events_frame(store, "cmm"), blind_bob)
    assert set(seen["scope"]) == {"vote"}  # alice's vote now, never carol's corrected gold
    assert sorted(seen["reviewer"]) == ["alice", "bob"]


def test_final_labels_one_row_per_corrected_item_with_votes_and_adjudication(
    store: Store, tmp_path: Path
) -> None:
    one, two, three = cmm_item(1), cmm_item(2), cmm_item(3)
    vote(store, one, "gold", "no", ALICE)
    vote(store, one, "gold", "yes", BOB)
    adjudicate(store, one, "gold", "no", CAROL, "no river in the clip")
    relabel(store, two, "gold", "no", ALICE, "typo")
    relabel(store, two, "gold", "yes", ALICE, "typo undone by hand")  # back to official: not listed
    relabel(store, three, "gold", "no", BOB, "barking is off screen")
    relabel(store, three, "note", "checked twice", BOB)
    table = pd.DataFrame({"item_id": ["item0001", "item0003"], "gold": ["Yes", "Yes"]})
    frame = final_labels(store, "cmm", table)
    assert list(frame.columns) == list(FINAL_COLUMNS)
    assert frame["item_id"].tolist() == ["item0001", "item0003"]
    first = frame.iloc[0]
    # gold values spelled like the official one, as the app and the corrected files spell them
    assert (first["official_gold"], first["corrected_gold"], first["reviewer"]) == ("Yes", "No", "carol")
    assert orjson.loads(first["votes"]) == {"alice": "No", "bob": "Yes"}
    assert (first["adjudicated_by"], first["adjudication_reason"]) == ("carol", "no river in the clip")
    third = frame.iloc[1]
    assert (third["reason"], third["votes"], third["adjudicated_by"]) == ("barking is off screen", "{}", None)
    for fmt in ("csv", "jsonl", "parquet"):
        path = tmp_path / f"final.{fmt}"
        assert write_frame(final_labels(store, "cmm", table), path, fmt) == 2  # type: ignore[arg-type]
    back = pd.read_parquet(tmp_path / "final.parquet")
    assert back["corrected_gold"].tolist() == ["No", "No"]
    assert (tmp_path / "final.csv").read_text(encoding="utf-8").splitlines()[0] == ",".join(FINAL_COLUMNS)


def test_the_disagreement_queue_hides_a_vote_from_whoever_set_the_gold_until_they_vote(store: Store) -> None:
    # Seen in a two-reviewer walkthrough: alice corrected the gold, bob (blind) voted against it,
    # and alice's Disagreements queue read "gold: No (set by alice), bob: Yes", though the vote is
    # hidden from her everywhere else (she has not voted on the item)
    from analysis.store.agreement import disagreements_seen

    item = cmm_item(1)
    relabel(store, item, "gold", "No", ALICE, "no river in the clip")
    vote(store, item, "gold", "Yes", BOB)
    official = {"item0001": "Yes"}
    alice = disagreements_seen(store, "cmm", Viewer("alice"), official)
    assert alice.empty  # no vote of hers: bob's stays out of her sight, in the queue too
    assert "bob" not in visible_events(events_frame(store, "cmm"), Viewer("alice"))["reviewer"].tolist()
    carol = disagreements_seen(store, "cmm", Viewer("carol", adjudicator=True), official)
    assert carol["votes"].tolist() == [{"bob": "yes"}] and carol["gold_by"].tolist() == ["alice"]  # as stored
    blind_carol = disagreements_seen(store, "cmm", Viewer("carol", blind=True, adjudicator=True), official)
    assert blind_carol["votes"].tolist() == [{}] and blind_carol["hidden"].tolist() == [1]
    assert blind_carol["gold"].tolist() == [None]
    # bob, blind, voted against the gold alone: listing it would tell him the gold differs
    assert disagreements_seen(store, "cmm", Viewer("bob", blind=True), official).empty
    # once alice votes, she sees bob's vote beside hers
    vote(store, item, "gold", "No", ALICE)
    alice = disagreements_seen(store, "cmm", Viewer("alice"), official)
    assert alice["votes"].tolist() == [{"alice": "no", "bob": "yes"}]


def test_two_reviewers_corrections_that_differ_reach_the_adjudicator(store: Store) -> None:
    # Seen at stop 42: alice corrected B -> C, bob then C -> D; no vote was cast, so the
    # Disagreements queue stayed empty and bob's correction replaced alice's unseen by anyone.
    from analysis.store import undo
    from analysis.store.agreement import disagreements, disagreements_seen

    item = cmm_item(1)
    official = {"item0001": "Yes"}
    relabel(store, item, "gold", "No", ALICE, "no river in the clip")
    assert disagreements(store, "cmm", official=official).empty  # one correction is no dispute
    relabel(store, item, "gold", "Yes", BOB, "the river is there at 0:04")
    found = disagreements(store, "cmm", official=official)
    assert found["item_id"].tolist() == ["item0001"] and found["n_votes"].tolist() == [0]
    assert found["corrections"].tolist() == [{"alice": "no", "bob": "yes"}]
    assert found["gold"].tolist() == ["yes"] and found["gold_by"].tolist() == ["bob"]
    # who is told: the adjudicator and both correctors, never a blind reviewer or a bystander
    seen = {
        name: disagreements_seen(store, "cmm", viewer, official)
        for name, viewer in {
            "carol": Viewer("carol", adjudicator=True),
            "alice": Viewer("alice"),
            "dave": Viewer("dave"),
            "bob_blind": Viewer("bob", blind=True),
            "carol_blind": Viewer("carol", blind=True, adjudicator=True),
        }.items()
    }
    assert seen["carol"]["corrections"].tolist() == [{"alice": "no", "bob": "yes"}]
    assert seen["alice"]["corrections"].tolist() == [{"alice": "no", "bob": "yes"}]
    assert seen["dave"].empty and seen["bob_blind"].empty
    blind = seen["carol_blind"]
    assert blind["corrections"].tolist() == [{}] and blind["hidden"].tolist() == [2]
    assert blind["gold"].tolist() == [None] and blind["votes"].tolist() == [{}]
    # bob takes his correction back: the label is alice's again, and both sides are the same
    undo(store, item, "gold", BOB, "alice was right")
    assert disagreements(store, "cmm", official=official).empty
    # a new dispute is settled by an adjudication, and stays settled
    relabel(store, item, "gold", "Yes", BOB, "looked again: the river is there")
    assert disagreements(store, "cmm", official=official)["item_id"].tolist() == ["item0001"]
    adjudicate(store, item, "gold", "yes", CAROL, "the river shows at 0:04")
    assert disagreements(store, "cmm", official=official).empty
