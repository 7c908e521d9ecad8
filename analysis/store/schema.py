"""The tables at the latest migration, as SQLAlchemy Core objects the queries are written against.

The migrations (:mod:`analysis.store.migrations`) build these tables step by step; this module
only describes the result, so queries never depend on how a database got there.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, MetaData, String, Table, Text

metadata = MetaData()

EVENT_ID = BigInteger().with_variant(Integer(), "sqlite")
"""64-bit ids on PostgreSQL; SQLite's rowid alias must be declared INTEGER."""

label_events = Table(
    "label_events",
    metadata,
    Column("id", EVENT_ID, primary_key=True, autoincrement=True),
    Column("event_id", String(64), nullable=False, unique=True),
    Column("benchmark", String(64), nullable=False),
    Column("item_key", String(256), nullable=False),
    Column("field", String(32), nullable=False),
    Column("old_value", Text, nullable=True),
    Column("new_value", Text, nullable=True),
    Column("reviewer", String(128), nullable=False),
    Column("reason", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("scoring_version", String(32), nullable=False),
    Column("scope", String(8), nullable=False, server_default="final"),
    Column("kind", String(16), nullable=False, server_default="set"),
    Column("undo_of", String(64), nullable=True),
    Column("origin", String(256), nullable=False, server_default=""),
    Column("request_key", String(128), nullable=True),
    sqlite_autoincrement=True,
)
"""Every label ever written, insert-only. The current value of a label is its latest row.

``request_key`` is the writer's idempotency key, unique per reviewer (migration
``0004_request_key``): a retried write with the same key returns the event the first one stored.
It stays local (not in :data:`EVENT_COLUMNS`): imports and the mirror carry ``event_id``."""

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("name", String(128), primary_key=True),
    Column("applied_at", String(32), nullable=False),
)
"""One row per migration applied, by name."""

EVENT_COLUMNS: tuple[str, ...] = (
    "event_id",
    "benchmark",
    "item_key",
    "field",
    "old_value",
    "new_value",
    "reviewer",
    "reason",
    "created_at",
    "scoring_version",
    "scope",
    "kind",
    "undo_of",
    "origin",
)
"""The columns an event carries from one store to another (exports, mirror, imports), as plain
strings (SQLAlchemy's column names are a ``str`` subclass that some JSON encoders refuse)."""
