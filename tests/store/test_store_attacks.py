"""Finding 10 of issue 19 at the store: what it refuses, on both backends, in one line.

A foreign database (another program's tables, no migrations) was adopted and written to; a NUL
in a note was stored by SQLite and refused by PostgreSQL with ``{"error": null}``; a read while
PostgreSQL was down raised the driver's error instead of one line saying so.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from store_support import ALICE, BACKENDS, cmm_item, drop_schema, open_backend, pg_url

from analysis.errors import InputError, StoreError
from analysis.store import InvalidLabel, Store, events_frame, open_store, relabel
from analysis.store.merge import insert_events


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [("note", "before\x00after", ""), ("gold", "no", "why\x00not"), ("gold", "n\x00o", "r")],
    ids=["note", "reason", "value"],
)
def test_a_nul_is_refused_the_same_on_both_stores(store: Store, field: str, value: str, reason: str) -> None:
    with pytest.raises(InvalidLabel, match="NUL"):
        relabel(store, cmm_item(0), field, value, ALICE, reason)
    assert events_frame(store).empty


def test_a_nul_in_an_imported_event_names_the_row(store: Store) -> None:
    row = {
        "event_id": uuid.uuid4().hex,
        "benchmark": "cmm",
        "item_key": "x",
        "field": "note",
        "new_value": "a\x00b",
        "reviewer": "alice",
        "created_at": "2026-01-01T00:00:00Z",
    }
    with pytest.raises(InputError, match=r"line 3.*new_value.*NUL") as caught:
        insert_events(store, [("line 3", row)], source="events.jsonl", origin="test")
    assert "events.jsonl" in str(caught.value)
    assert events_frame(store).empty


def test_a_foreign_sqlite_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        conn.execute("INSERT INTO invoices VALUES (1, 9.5)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"theirs\.db: holds tables of another program \(invoices\)"):
        open_store(path)
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


def test_a_store_from_before_the_migrations_is_still_ours(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = open_store(path)
    relabel(store, cmm_item(0), "note", "kept", ALICE)
    store.close()
    store = open_store(path)  # schema_migrations and label_events: ours, opened again
    assert events_frame(store)["new_value"].tolist() == ["kept"]
    store.close()


def test_a_foreign_postgresql_schema_is_refused() -> None:
    url = pg_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        conn.execute(text(f'CREATE TABLE "{schema}".orders (id integer)'))
    engine.dispose()
    try:
        with pytest.raises(StoreError, match=r"holds tables of another program \(orders\)"):
            open_store(url, schema=schema)
    finally:
        drop_schema(url, schema)


def test_reads_and_writes_while_postgresql_is_down_say_so_in_one_line() -> None:
    down = open_store("postgresql://halluscope@127.0.0.1:9/halluscope", migrate=False)
    with pytest.raises(StoreError) as read:
        events_frame(down)
    with pytest.raises(StoreError) as write:
        relabel(down, cmm_item(0), "note", "x", ALICE)
    for caught in (read, write):
        message = str(caught.value)
        assert "\n" not in message and "label store" in message and "refused" in message.lower()
    down.close()
