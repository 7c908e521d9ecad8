"""Shared helpers of the store tests (no tests here): a store on each backend, fresh per test.

SQLite: a file in the test's tmp_path. PostgreSQL: a schema of its own in the database named by
``HALLUSCOPE_TEST_PG_URL`` (start one with ``eval "$(bash scripts/pg.sh start)"``), dropped after
the test; skipped with that reason when the variable is unset.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from analysis.store import Identity, ItemRef, Store, open_store

BACKENDS = ["sqlite", "postgresql"]
PG_ENV = "HALLUSCOPE_TEST_PG_URL"
PG_SKIP = f'{PG_ENV} is not set: start PostgreSQL with `eval "$(bash scripts/pg.sh start)"`'

ALICE, BOB, CAROL = Identity("alice"), Identity("bob"), Identity("carol")


def pg_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(PG_SKIP)
    return url


def backend_target(backend: str, tmp_path: Path) -> tuple[str, str | None]:
    """(target, schema) for ``open_store``; PostgreSQL gets a fresh schema name."""
    if backend == "sqlite":
        return str(tmp_path / "data" / "labels.db"), None
    return pg_url(), f"t_{uuid.uuid4().hex[:16]}"


def drop_schema(url: str, schema: str) -> None:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


def open_backend(backend: str, tmp_path: Path, **kwargs: object) -> Iterator[Store]:
    """Yield a migrated store on ``backend``; clean it up afterwards."""
    target, schema = backend_target(backend, tmp_path)
    store = open_store(target, schema=schema, **kwargs)  # type: ignore[arg-type]
    try:
        yield store
    finally:
        store.close()
        if schema is not None:
            drop_schema(target, schema)


def cmm_item(n: int = 0, gold: str = "yes") -> ItemRef:
    return ItemRef("cmm", f"item{n:04d}", "", gold)
