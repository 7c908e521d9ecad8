"""Ordered, named migrations: from a blank database and from the first shipped schema."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from store_support import ALICE, BACKENDS, backend_target, drop_schema

from analysis.store import ItemRef, Store, current_labels, events_frame, open_store, relabel, undo
from analysis.store.migrations import HEAD, MIGRATIONS, applied_migrations, migrate


@pytest.fixture(params=BACKENDS)
def blank(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    target, schema = backend_target(request.param, tmp_path)
    store = open_store(target, schema=schema, migrate=False)
    yield store
    store.close()
    if schema is not None:
        drop_schema(target, schema)


def test_migrations_are_named_numbered_and_in_order() -> None:
    names = [m.name for m in MIGRATIONS]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"\d{4}_[a-z_]+", n) for n in names)
    assert names == sorted(names) and names[-1] == HEAD


def test_a_blank_database_migrates_to_the_head(blank: Store) -> None:
    assert migrate(blank) == [m.name for m in MIGRATIONS]
    assert applied_migrations(blank) == [m.name for m in MIGRATIONS]
    assert migrate(blank) == []  # a second run has nothing to do
    columns = {c["name"] for c in inspect(blank.engine).get_columns("label_events")}
    assert {"scope", "kind", "undo_of", "origin", "event_id", "scoring_version"} <= columns


def test_data_written_at_the_first_schema_survives_the_migrations(blank: Store) -> None:
    assert migrate(blank, upto="0001_label_events") == ["0001_label_events"]
    columns = {c["name"] for c in inspect(blank.engine).get_columns("label_events")}
    assert "scope" not in columns  # really the old schema
    with blank.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO label_events (event_id, benchmark, item_key, field, old_value, new_value,"
                " reviewer, reason, created_at, scoring_version) VALUES (:e, 'cmm', 'old-item', 'gold',"
                " 'yes', 'no', 'alice', 'written before 0002', '2025-01-02T03:04:05.000000Z', '1')"
            ),
            {"e": "e" * 32},
        )
    assert migrate(blank) == [m.name for m in MIGRATIONS[1:]]
    old = events_frame(blank, "cmm").iloc[0]
    assert (old["event_id"], old["new_value"], old["scope"], old["kind"], old["origin"]) == (
        "e" * 32,
        "no",
        "final",
        "set",
        "",
    )
    assert current_labels(blank, "cmm")["value"].tolist() == ["no"]
    item = ItemRef("cmm", "old-item", "", "yes")
    relabel(blank, item, "note", "still here", ALICE)
    undo(blank, item, "gold", ALICE)  # undoes the pre-migration event
    labels = current_labels(blank, "cmm")
    current = sorted(zip(labels["field"], labels["value"], strict=True))
    assert current == [("gold", "yes"), ("note", "still here")]


def test_an_unknown_target_is_refused(blank: Store) -> None:
    with pytest.raises(ValueError, match="unknown migration"):
        migrate(blank, upto="9999_nope")
    assert applied_migrations(blank) == []
