"""Schema changes as ordered, named migrations, recorded in ``schema_migrations``.

Each migration runs once, in its own write transaction together with the row that records it,
so a crash leaves either the old schema or the new one. Migrations are append-only: never edit
or reorder one that has shipped; add the next. ``tests/store/test_store_migrations.py`` builds a
database at the first migration, writes to it, and migrates it to the head.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import (
    Column,
    Connection,
    Index,
    MetaData,
    String,
    Table,
    Text,
    insert,
    inspect,
    select,
)
from sqlalchemy.schema import CreateIndex, CreateTable

from analysis.store.db import Store, lock_label, read_tx, refuse_foreign, write_tx
from analysis.store.schema import EVENT_ID, schema_migrations


@dataclass(frozen=True)
class Migration:
    """One named schema change."""

    name: str
    apply: Callable[[Connection], None]


def _m1_label_events(conn: Connection) -> None:
    # The first shipped schema, spelled out here (not taken from schema.py, which moves on).
    meta = MetaData()
    table = Table(
        "label_events",
        meta,
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
        sqlite_autoincrement=True,
    )
    conn.execute(CreateTable(table))
    conn.execute(
        CreateIndex(Index("ix_label_events_item", table.c.benchmark, table.c.item_key, table.c.field))
    )


def _m2_scope_kind_undo(conn: Connection) -> None:
    # Reviewer votes beside final labels, undo links and where an event came from. Defaults
    # give rows written before this migration their meaning: final labels set directly.
    for ddl in (
        "ALTER TABLE label_events ADD COLUMN scope VARCHAR(8) NOT NULL DEFAULT 'final'",
        "ALTER TABLE label_events ADD COLUMN kind VARCHAR(16) NOT NULL DEFAULT 'set'",
        "ALTER TABLE label_events ADD COLUMN undo_of VARCHAR(64)",
        "ALTER TABLE label_events ADD COLUMN origin VARCHAR(256) NOT NULL DEFAULT ''",
        "CREATE INDEX ix_label_events_scope ON label_events (benchmark, scope, field, item_key, id)",
    ):
        conn.exec_driver_sql(ddl)


def _m3_insert_only(conn: Connection) -> None:
    # The database itself refuses to change or remove an event, whatever code talks to it.
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "CREATE FUNCTION label_events_insert_only() RETURNS trigger LANGUAGE plpgsql AS "
            "$body$ BEGIN RAISE EXCEPTION 'label_events is insert-only'; END $body$"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER label_events_no_change BEFORE UPDATE OR DELETE ON label_events "
            "FOR EACH ROW EXECUTE FUNCTION label_events_insert_only()"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER label_events_no_truncate BEFORE TRUNCATE ON label_events "
            "FOR EACH STATEMENT EXECUTE FUNCTION label_events_insert_only()"
        )
        return
    for action in ("UPDATE", "DELETE"):
        conn.exec_driver_sql(
            f"CREATE TRIGGER label_events_no_{action.lower()} BEFORE {action} ON label_events "
            "BEGIN SELECT RAISE(ABORT, 'label_events is insert-only'); END"
        )


def _m4_request_key(conn: Connection) -> None:
    # A client's idempotency key, unique per reviewer: a write retried after a lost answer (a
    # dropped connection, a killed server) finds the event its first attempt stored. NULLs (writes
    # without a key, every older row) are distinct under a unique index in SQLite and PostgreSQL.
    conn.exec_driver_sql("ALTER TABLE label_events ADD COLUMN request_key VARCHAR(128)")
    conn.exec_driver_sql(
        "CREATE UNIQUE INDEX ux_label_events_request_key ON label_events (reviewer, request_key)"
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_label_events", _m1_label_events),
    Migration("0002_scope_kind_undo", _m2_scope_kind_undo),
    Migration("0003_insert_only", _m3_insert_only),
    Migration("0004_request_key", _m4_request_key),
)
"""Every migration, in the order they run."""

HEAD = MIGRATIONS[-1].name


def _ensure_table(conn: Connection) -> None:
    schema_migrations.create(conn, checkfirst=True)


def _refuse_foreign(store: Store) -> None:
    with read_tx(store) as conn:  # a server that cannot be reached: one line, not an internal error
        names = inspect(conn).get_table_names()
    refuse_foreign(names, store.path or store.url)


def applied_migrations(store: Store) -> list[str]:
    """Names of the migrations this database has, in the order they ran."""
    with write_tx(store) as conn:
        lock_label(conn, "schema_migrations")
        _ensure_table(conn)
        rows = conn.execute(select(schema_migrations.c.name)).scalars().all()
    order = {m.name: i for i, m in enumerate(MIGRATIONS)}
    return sorted(rows, key=lambda n: order.get(n, len(order)))


def missing_migrations(store: Store) -> list[str]:
    """The migrations this database lacks, read without writing (every one for a database without them).

    A database holding another program's tables is refused (:class:`StoreError`), as on opening.
    """
    _refuse_foreign(store)
    with read_tx(store) as conn:
        if not inspect(conn).has_table("schema_migrations"):
            return [m.name for m in MIGRATIONS]
        have = set(conn.execute(select(schema_migrations.c.name)).scalars())
    return [m.name for m in MIGRATIONS if m.name not in have]


def migrate(store: Store, upto: str | None = None) -> list[str]:
    """Apply every migration not yet applied, up to and including ``upto`` (default: all).

    Returns the names applied now. Safe when several processes start at once: each migration is
    applied under the database's write lock and checked again inside it.
    """
    names = [m.name for m in MIGRATIONS]
    if upto is not None and upto not in names:
        raise ValueError(f"unknown migration {upto!r} (known: {', '.join(names)})")
    last = names.index(upto) if upto is not None else len(names) - 1
    _refuse_foreign(store)
    done: list[str] = []
    for migration in MIGRATIONS[: last + 1]:
        with write_tx(store) as conn:
            lock_label(conn, "schema_migrations")
            _ensure_table(conn)
            present = conn.execute(
                select(schema_migrations.c.name).where(schema_migrations.c.name == migration.name)
            ).first()
            if present is not None:
                continue
            migration.apply(conn)
            conn.execute(
                insert(schema_migrations).values(
                    name=migration.name, applied_at=datetime.now(UTC).isoformat()
                )
            )
            done.append(migration.name)
    return done


__all__ = ["HEAD", "MIGRATIONS", "Migration", "applied_migrations", "migrate", "missing_migrations"]
