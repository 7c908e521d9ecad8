"""Review rounds: assignment, queues, blind views, agreement, disagreements and adjudication."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from store_support import ALICE, BACKENDS, BOB, CAROL, cmm_item, open_backend

from analysis.store import (
    Identity,
    InvalidLabel,
    Store,
    adjudicate,
    agreement_report,
    assign,
    blind_view,
    current_labels,
    disagreements,
    my_unreviewed,
    vote,
)
from analysis.store.agreement import cohen_kappa, krippendorff_alpha, raw_agreement

DAVE = Identity("dave")  # the adjudicator: holds no vote (voters may not settle their own disagreement)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


def test_assignment_is_deterministic_balanced_and_k_distinct() -> None:
    items = [f"item{i}" for i in range(10)]
    people = ["carol", "alice", "bob", "dan"]
    plan = assign(items, people, k=2)
    assert len(plan) == 20
    assert plan.groupby("item_id")["reviewer"].nunique().eq(2).all()
    loads = plan["reviewer"].value_counts().to_dict()
    assert sorted(loads) == sorted(people) and max(loads.values()) - min(loads.values()) <= 1
    assert sum(loads.values()) == 20  # 10 items x 2 = 20 slots over 4 people: 5 each
    shuffled = assign(list(reversed(items)) + items[:3], list(reversed(people)), k=2)
    assert shuffled.equals(plan)  # input order and repeats do not matter
    with pytest.raises(ValueError):
        assign(items, ["alice"], k=2)


def test_my_unreviewed_items_shrink_as_i_vote(store: Store) -> None:
    items = [cmm_item(i) for i in range(6)]
    plan = assign([i.item_id for i in items], ["alice", "bob", "carol"], k=2)
    mine = plan.loc[plan["reviewer"] == "alice", "item_id"].tolist()
    assert my_unreviewed(store, "cmm", plan, ALICE) == mine
    by_id = {i.item_id: i for i in items}
    vote(store, by_id[mine[0]], "gold", "no", ALICE)
    vote(store, by_id[mine[1]], "gold", "yes", BOB)  # bob's vote does not count for alice
    assert my_unreviewed(store, "cmm", plan, ALICE) == mine[1:]


def test_a_blind_view_hides_the_gold_the_verdicts_and_other_votes(store: Store) -> None:
    row = pd.Series(
        {
            "benchmark": "cmm",
            "item_id": "item0001",
            "model": "m",
            "task": "",
            "category": "c",
            "subcategory": "s",
            "question": "Did you see a river?",
            "options": "",
            "media": "[]",
            "pair_id": "",
            "side": "",
            "gold": "yes",
            "raw_answer": "Yes",
            "parsed": "yes",
            "correct": True,
            "alt_correct": True,
            "extra": '{"cs_gt": "yes"}',
        }
    )
    vote(store, row, "gold", "no", BOB)
    vote(store, row, "note", "hard to see", ALICE)
    view = blind_view(row, store, ALICE)
    assert view["question"] == "Did you see a river?"
    assert view["my_labels"] == {"note": "hard to see"}
    for hidden in ("gold", "correct", "alt_correct", "parsed", "extra", "raw_answer"):
        assert hidden not in view
    assert "yes" not in {str(v) for k, v in view.items() if k != "my_labels"}


def test_kappa_alpha_and_raw_agreement_by_hand() -> None:
    # 2 raters, 4 items: yes/yes, no/no, yes/no, no/no. observed 3/4; expected: a yes 2/4, b yes 1/4
    # -> pe = .5*.25 + .5*.75 = .5; kappa = (.75 - .5) / .5 = .5
    assert cohen_kappa(["yes", "no", "yes", "no"], ["yes", "no", "no", "no"]) == pytest.approx(0.5)
    assert cohen_kappa(["yes", "yes"], ["yes", "yes"]) is None  # one value used: undefined
    matrix = pd.DataFrame(
        {"a": ["yes", "no", "yes", "no"], "b": ["yes", "no", "no", "no"]}, index=["i1", "i2", "i3", "i4"]
    ).astype(object)
    # alpha nominal: 8 values, 3 yes / 5 no; Do = 2 disagreeing pairs / 8 = .25 (coincidences
    # o_yn = o_ny = 1); De = 2*3*5 / (8*7) = 30/56; alpha = 1 - .25 / (30/56) = 1 - 14/30
    assert krippendorff_alpha(matrix) == pytest.approx(1 - 14 / 30)
    assert raw_agreement(matrix) == 0.75
    matrix.loc["i5"] = ["yes", None]  # one vote: not pairable, left out of raw agreement
    assert raw_agreement(matrix) == 0.75


def test_agreement_report_disagreement_queue_and_adjudication(store: Store) -> None:
    items = [cmm_item(i, gold="yes") for i in range(4)]
    votes = {
        ALICE: ["yes", "no", "yes", "no"],
        BOB: ["yes", "no", "no", "no"],
        CAROL: ["yes", None, "no", None],
    }
    for who, values in votes.items():
        for item, value in zip(items, values, strict=True):
            if value is not None:
                vote(store, item, "gold", value, who)
    report = agreement_report(store, "cmm")
    assert report["reviewers"] == ["alice", "bob", "carol"] and report["n_items"] == 4
    assert report["raw_agreement"] == 0.75  # only item 2 has differing votes
    pair = next(p for p in report["pairs"] if (p["reviewer_a"], p["reviewer_b"]) == ("alice", "bob"))
    assert pair["n"] == 4 and pair["kappa"] == pytest.approx(0.5) and pair["agreement"] == 0.75
    queue = disagreements(store, "cmm")
    assert queue["item_id"].tolist() == [items[2].item_id]
    assert queue["votes"].iloc[0] == {"alice": "yes", "bob": "no", "carol": "no"}
    assert current_labels(store, "cmm").empty  # votes never set the corrected gold
    with pytest.raises(InvalidLabel):
        adjudicate(store, items[2], "gold", "no", DAVE, "  ")
    event = adjudicate(store, items[2], "gold", "no", DAVE, "two of three, and the clip agrees")
    assert (event.kind, event.scope, event.old_value, event.new_value) == ("adjudicate", "final", "yes", "no")
    assert disagreements(store, "cmm").empty
    assert current_labels(store, "cmm")["value"].tolist() == ["no"]
    vote(store, items[2], "gold", "no", ALICE)  # a vote after the adjudication reopens the item
    vote(store, items[2], "gold", "yes", ALICE)
    assert disagreements(store, "cmm")["item_id"].tolist() == [items[2].item_id]
    confirm = adjudicate(store, items[0], "gold", "yes", DAVE, "unanimous: the official gold stands")
    assert confirm.new_value == confirm.old_value == "yes"  # confirming is recorded too


def test_no_votes_gives_undefined_agreement(store: Store) -> None:
    report = agreement_report(store, "cmm")
    assert report["raw_agreement"] is None and report["krippendorff_alpha"] is None and report["pairs"] == []
    assert disagreements(store, "cmm").empty
