"""Labels as insert-only events: relabel, undo, current values, identity, idempotency, replay."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from store_support import ALICE, BACKENDS, BOB, cmm_item, open_backend

from analysis.store import (
    Identity,
    IdentityMismatch,
    InvalidLabel,
    ItemRef,
    NoChange,
    NotAuthenticated,
    NothingToUndo,
    Store,
    current_labels,
    events_frame,
    identity_from,
    relabel,
    replay,
    undo,
    vote,
)
from analysis.store.labels import LABEL_COLUMNS
from analysis.store.payload import submit

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


def test_relabel_sets_the_current_value_with_the_official_gold_as_old(store: Store) -> None:
    item = cmm_item(1, gold="yes")
    event = relabel(store, item, "gold", "No", ALICE, "the river is not in the clip")
    assert (event.old_value, event.new_value, event.reviewer, event.kind) == ("yes", "no", "alice", "set")
    assert event.scoring_version == "1" and event.id is not None
    labels = current_labels(store, "cmm")
    assert list(labels.columns) == list(LABEL_COLUMNS)
    assert labels[["item_id", "field", "value", "reviewer", "reason"]].values.tolist() == [
        ["item0001", "gold", "no", "alice", "the river is not in the clip"]
    ]


def test_latest_event_wins_and_undo_steps_back_one_event_at_a_time(store: Store) -> None:
    item = cmm_item(2, gold="yes")
    relabel(store, item, "gold", "no", ALICE)
    relabel(store, item, "note", "blurry", ALICE)
    relabel(store, item, "gold", "yes", BOB, "looked again")
    assert _value(store, "item0002", "gold") == "yes"
    first_undo = undo(store, item, "gold", ALICE, "bob was wrong")
    assert (first_undo.kind, first_undo.old_value, first_undo.new_value) == ("undo", "yes", "no")
    assert _value(store, "item0002", "gold") == "no"
    undo(store, item, "gold", ALICE)
    assert _value(store, "item0002", "gold") == "yes"  # the official gold again
    with pytest.raises(NothingToUndo):
        undo(store, item, "gold", ALICE)
    assert _value(store, "item0002", "note") == "blurry"  # other fields untouched
    assert len(events_frame(store, "cmm")) == 5  # nothing was removed


def test_a_relabel_to_the_current_value_is_refused(store: Store) -> None:
    item = cmm_item(3, gold="no")
    with pytest.raises(NoChange):
        relabel(store, item, "gold", "no", ALICE)
    with pytest.raises(NoChange):  # the official "Yes" of AVHBench is the same as "yes"
        relabel(store, ItemRef("avhbench", "a1", "AV Matching", "Yes"), "gold", "yes", ALICE)
    relabel(store, item, "gold", "yes", ALICE)
    with pytest.raises(NoChange):
        relabel(store, item, "gold", "YES", BOB)
    assert len(events_frame(store)) == 1


def test_clearing_a_flag_leaves_it_out_of_current_labels(store: Store) -> None:
    item = cmm_item(4)
    relabel(store, item, "flag", ["broken media", "ambiguous"], ALICE)
    assert _value(store, "item0004", "flag") == "ambiguous,broken-media"
    relabel(store, item, "flag", None, ALICE)
    assert current_labels(store, "cmm").empty
    cleared = current_labels(store, "cmm", include_cleared=True)
    assert cleared["value"].isna().tolist() == [True]


def test_bad_values_are_refused_before_anything_is_written(store: Store) -> None:
    with pytest.raises(InvalidLabel):
        relabel(store, cmm_item(5), "gold", "maybe", ALICE)
    with pytest.raises(InvalidLabel):
        relabel(store, cmm_item(5), "flag", "looks-odd", ALICE)
    with pytest.raises(InvalidLabel):
        relabel(store, cmm_item(5), "colour", "red", ALICE)
    with pytest.raises(InvalidLabel):
        relabel(store, cmm_item(5), "gold", "no", ALICE, "x" * 5000)
    assert events_frame(store).empty


def test_writes_need_an_authenticated_identity(store: Store) -> None:
    item = cmm_item(6)
    with pytest.raises(NotAuthenticated):
        relabel(store, item, "gold", "no", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        relabel(store, item, "gold", "no", "alice")  # type: ignore[arg-type]
    with pytest.raises(NotAuthenticated):
        Identity("  ")
    with pytest.raises(NotAuthenticated):
        identity_from(None, None)
    assert identity_from(None, SimpleNamespace(username="hf-user")) == Identity("hf-user")
    assert identity_from("alice") == ALICE
    assert events_frame(store).empty


def test_a_payload_cannot_write_as_another_reviewer(store: Store) -> None:
    payload = {
        "benchmark": "cmm",
        "item_id": "item0007",
        "field": "gold",
        "value": "no",
        "reviewer": "bob",
        "reason": "not in the clip",
    }
    with pytest.raises(IdentityMismatch):
        submit(store, payload, ALICE)
    assert events_frame(store).empty
    # the same payload without the forged name is written as the signed-in reviewer
    event = submit(store, {k: v for k, v in payload.items() if k != "reviewer"}, ALICE)
    assert event.reviewer == "alice"
    # naming yourself is harmless; the author still comes from the identity
    event = submit(store, {**payload, "value": "yes", "reviewer": "alice"}, ALICE)
    assert event.reviewer == "alice"
    with pytest.raises(NotAuthenticated):
        submit(store, payload, None)  # type: ignore[arg-type]


def test_submit_takes_the_item_from_the_servers_row(store: Store) -> None:
    row = pd.Series({"benchmark": "cmm", "item_id": "item0008", "task": "", "gold": "no"})
    event = submit(
        store, {"item_id": "item0008", "value": "yes", "gold": "yes", "reason": "seen"}, ALICE, row=row
    )
    assert event.old_value == "no"  # the row's official gold, not the payload's
    with pytest.raises(InvalidLabel):
        submit(store, {"item_id": "other", "value": "yes"}, ALICE, row=row)


def test_a_retried_write_with_the_same_event_id_is_stored_once(store: Store) -> None:
    item = cmm_item(9)
    key = uuid.uuid4().hex
    first = relabel(store, item, "gold", "no", ALICE, event_id=key)
    again = relabel(store, item, "gold", "no", ALICE, event_id=key)
    assert again == first
    assert len(events_frame(store)) == 1


def test_votes_are_per_reviewer_and_leave_the_final_value_alone(store: Store) -> None:
    item = cmm_item(10, gold="yes")
    vote(store, item, "gold", "no", ALICE)
    vote(store, item, "gold", "yes", BOB)
    assert current_labels(store, "cmm").empty
    votes = current_labels(store, "cmm", scope="vote")
    assert sorted(zip(votes["reviewer"], votes["value"], strict=True)) == [("alice", "no"), ("bob", "yes")]
    undo(store, item, "gold", BOB, scope="vote")
    with pytest.raises(NothingToUndo):  # alice's undo never touches bob's votes
        undo(store, item, "gold", BOB, scope="vote")
    mine = current_labels(store, "cmm", scope="vote", reviewer="alice")
    assert mine["value"].tolist() == ["no"]


def test_times_only_go_forward_for_one_label(store: Store) -> None:
    item = cmm_item(11)
    for value in ("no", "yes", "no", "yes"):
        relabel(store, item, "gold", value, ALICE)
    times = events_frame(store)["created_at"].tolist()
    assert times == sorted(times) and len(set(times)) == len(times)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", t) for t in times)


def test_the_database_refuses_to_change_or_remove_an_event(store: Store) -> None:
    relabel(store, cmm_item(12), "gold", "no", ALICE)
    for statement in ("UPDATE label_events SET new_value = 'yes'", "DELETE FROM label_events"):
        with pytest.raises(DBAPIError, match="insert-only"), store.engine.begin() as conn:
            conn.execute(text(statement))
    assert events_frame(store)["new_value"].tolist() == ["no"]


def test_the_code_has_no_update_or_delete_of_events() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "analysis" / "store").glob("*.py"))
    code = re.sub(r'""".*?"""', "", source, flags=re.S)  # docstrings may talk about it
    assert not re.search(r"\b(update|delete)\s*\(", code, re.I)
    assert not re.search(r"\b(UPDATE\s+label_events|DELETE\s+FROM)\b", code, re.I)
    assert "label_events" in code and "insert(" in code  # the scan reads the real module


# --- replaying events gives the current values (property) ---------------------------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(["relabel", "undo"]),
        st.integers(0, 2),
        st.sampled_from(["gold", "note"]),
        st.sampled_from(["yes", "no", "n1", "n2", None]),
        st.sampled_from([0, 1]),
    ),
    max_size=25,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_replaying_events_gives_the_current_values(
    store: Store, ops: list[tuple[str, int, str, str | None, int]]
) -> None:
    prefix = uuid.uuid4().hex[:8]  # examples share the store; each has its own items
    golds = {n: ("yes" if n % 2 else "no") for n in range(3)}
    stacks: dict[tuple[int, str], list[tuple[str | None, str | None]]] = {}
    model: dict[tuple[int, str], str | None] = {}
    for action, n, field, raw, who in ops:
        item = ItemRef("cmm", f"{prefix}-{n}", "", golds[n])
        key = (n, field)
        value = raw if field == "note" else (raw if raw in ("yes", "no") else None)
        current = model.get(key, golds[n] if field == "gold" else None)
        reviewer = (ALICE, BOB)[who]
        if action == "relabel":
            if value == current:
                with pytest.raises(NoChange):
                    relabel(store, item, field, value, reviewer)
                continue
            relabel(store, item, field, value, reviewer)
            stacks.setdefault(key, []).append((current, value))
            model[key] = value
        elif stacks.get(key):
            undo(store, item, field, reviewer)
            model[key] = stacks[key].pop()[0]
        else:
            with pytest.raises(NothingToUndo):
                undo(store, item, field, reviewer)
    events = events_frame(store, "cmm")
    events = events[events["item_key"].str.startswith(prefix)]
    folded = {(k[1], k[2]): v for k, v in replay(events).items()}
    labels = current_labels(store, "cmm", include_cleared=True)
    labels = labels[labels["item_id"].str.startswith(prefix)]
    from_sql = dict(
        zip(
            zip(labels["item_id"], labels["field"], strict=True),
            labels["value"].astype(object).where(labels["value"].notna(), None),
            strict=True,
        )
    )
    expected = {(f"{prefix}-{n}", f): v for (n, f), v in model.items()}
    assert folded == from_sql == expected


def _value(store: Store, item_id: str, field: str) -> str | None:
    labels = current_labels(store, "cmm", include_cleared=True)
    row = labels[(labels["item_id"] == item_id) & (labels["field"] == field)]
    return None if row.empty else row["value"].iloc[0]
