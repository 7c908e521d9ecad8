"""Opening a label store: the engine for a path or URL, the SQLite hooks, the schema migrated.

Apart from :mod:`analysis.store.db` so that the migrations can use the store's transactions
without the store module importing them back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from analysis.errors import ReadOnlyStore, StoreError, WriteRefused
from analysis.store.db import (
    EventSink,
    Store,
    assert_not_served,
    check_identifier,
    check_sqlite,
    is_read_only,
    read_only_connector,
    read_only_hooks,
    refuse_foreign_sqlite,
    resolve_url,
    sqlite_hooks,
)
from analysis.store.migrations import migrate as run_migrations
from analysis.store.migrations import missing_migrations


def open_store(
    target: str | Path | None = None,
    *,
    data_dir: Path | None = None,
    schema: str | None = None,
    mirror: EventSink | None = None,
    media_roots: Sequence[Path] = (),
    migrate: bool = True,
    read_only: bool = False,
) -> Store:
    """Open (creating if needed) the label store and bring its schema to the latest migration.

    A SQLite file is checked first (:func:`~analysis.store.db.check_sqlite`): a damaged one raises
    :class:`StoreError`, an unwritable one (or folder) :class:`ReadOnlyStore`, in one line.

    ``read_only``: open an existing store only to read it (the commands that read labels, on a file
    the user may read but not write): nothing is created or migrated, a SQLite file is opened by
    :func:`~analysis.store.db.read_only_connector`, and a schema older than this version's is
    refused in one line (:class:`ReadOnlyStore`), since reading it would need a migration.
    """
    url, path = resolve_url(target, data_dir)
    if read_only:
        return _open_read_only(url, path, schema, media_roots)
    if path is not None:
        assert_not_served(path, media_roots)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReadOnlyStore(f"{path.parent}: cannot create the data folder ({exc.strerror})") from None
        refuse_foreign_sqlite(path)
        engine = create_engine(url, pool_size=5, max_overflow=30, pool_timeout=60)
        sqlite_hooks(engine)
        check_sqlite(engine, path)
    else:
        connect_args = _server_args(url, schema)
        # no pre-ping (a round trip per checkout); connections are recycled instead
        engine = create_engine(
            url, pool_size=5, max_overflow=30, pool_timeout=60, pool_recycle=1800, connect_args=connect_args
        )
        if schema is not None:
            with engine.begin() as conn:
                conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    store = Store(engine, make_url(url).render_as_string(hide_password=True), path, mirror)
    if migrate:
        try:
            run_migrations(store)
        except WriteRefused as exc:
            store.close()
            where = path if path is not None else store.url
            if path is not None and is_read_only(exc, path):
                raise ReadOnlyStore(f"{where}: cannot be written ({exc.reason})") from None
            raise StoreError(f"{where}: cannot bring the schema up to date ({exc.reason})") from None
        except StoreError:  # a foreign database
            store.close()
            raise
    return store


def _server_args(url: str, schema: str | None) -> dict[str, Any]:
    """A database server's connection arguments: a timeout, and the schema to work in."""
    # a server that does not answer (not one that refuses) is given up after 10 s, not libpq's forever
    connect_args: dict[str, Any] = {} if "connect_timeout" in url else {"connect_timeout": 10}
    if schema is not None:
        check_identifier(schema)
        connect_args["options"] = f"-csearch_path={schema}"
    return connect_args


def _open_read_only(url: str, path: Path | None, schema: str | None, media_roots: Sequence[Path]) -> Store:
    if path is None:
        engine = create_engine(url, poolclass=NullPool, connect_args=_server_args(url, schema))
    else:
        assert_not_served(path, media_roots)
        if not path.is_file():
            raise StoreError(f"{path}: no such label store")
        refuse_foreign_sqlite(path)
        engine = create_engine("sqlite://", creator=read_only_connector(path), poolclass=NullPool)
        read_only_hooks(engine)
        check_sqlite(engine, path)
    store = Store(engine, make_url(url).render_as_string(hide_password=True), path)
    try:
        missing = missing_migrations(store)
    except StoreError:
        store.close()
        raise
    if missing:
        store.close()
        raise ReadOnlyStore(
            f"{path or store.url}: was written by an older version (missing {', '.join(missing)}); "
            "open it once where it can be written, so its schema is brought up to date"
        )
    return store


def check_early(target: str | None, data_dir: Path | None) -> None:
    """Refuse a damaged SQLite label store now, in one line (:class:`StoreError`).

    ``halluscope serve`` calls it before the files load: a million rows take a while, and a
    database that cannot be served should be said at once, not after the load (and not after the
    load's progress lines). Only a SQLite file is checked here (opened without migrating, then
    closed); a database that cannot be written, a server's, or one the Hugging Face mirror keeps
    are left to the store's opening when the app starts, which says what it does about them.
    """
    from analysis.store.db import default_data_dir

    if target is None and os.environ.get("HALLUSCOPE_HF_DATASET"):
        return
    folder = data_dir or default_data_dir()
    _, path = resolve_url(target, folder)
    if path is None or not path.exists():
        return
    try:
        store = open_store(target, data_dir=folder, migrate=False)
    except ReadOnlyStore:
        return
    store.close()
