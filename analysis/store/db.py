"""Where labels live: one SQLAlchemy Core engine over SQLite (the default) or PostgreSQL (teams).

One code path serves both dialects. The few places where they differ are here and nowhere else:

- SQLite is a file in a data folder, opened in WAL mode with a busy timeout and
  ``synchronous=FULL``; write transactions start with ``BEGIN IMMEDIATE`` so two writers queue
  on the busy timeout instead of failing when a read lock would have to be upgraded.
- PostgreSQL (``postgresql://...``, driven by psycopg 3) serialises writers of one label with a
  transaction-scoped advisory lock (:func:`lock_label`); ``schema=`` puts every table in a schema
  of its own (tests use a fresh one each).

The database file must never be reachable through the media server:
:func:`assert_not_served` refuses a path inside any media root.

Opening a SQLite file checks it first (``PRAGMA integrity_check``): a damaged or foreign file is
refused with one line naming it (:class:`StoreError`), never served or written to; a folder or
file that cannot be written gives :class:`ReadOnlyStore` (the app then serves its read-only demo).
A write the database refuses (disk full, read-only, any ``OperationalError``) raises
:class:`WriteRefused` saying why, in one line.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError

from analysis.errors import ReadOnlyStore, StoreError, WriteRefused

try:
    import fcntl
except ImportError:  # Windows: SQLite's busy timeout alone serialises writers
    fcntl = None  # type: ignore[assignment]


class EventSink(Protocol):
    """Where written events are also appended (:class:`analysis.store.mirror.Mirror`)."""

    def append(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Append event rows."""
        ...


DATA_DIR_ENV = "HALLUSCOPE_DATA_DIR"
"""The environment variable naming the data folder (the default store and the mirror live there)."""
DEFAULT_DB_NAME = "halluscope.db"
BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for another one before giving up."""


@dataclass
class Store:
    """An open label store: the engine, where it points, and the optional append-only mirror."""

    engine: Engine
    url: str
    """The URL with any password hidden, for messages."""
    path: Path | None = None
    """The SQLite file, or None for PostgreSQL."""
    mirror: EventSink | None = None
    """When set, every event written is also appended to the mirror's JSONL file."""
    write_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Writers of this process take turns before taking the file lock (SQLite)."""
    lock_file: IO[bytes] | None = field(default=None, repr=False)
    """The open lock file beside a SQLite database, kept for the store's life."""

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    def close(self) -> None:
        """Release every pooled connection (and the SQLite lock file)."""
        self.engine.dispose()
        if self.lock_file is not None:
            self.lock_file.close()
            self.lock_file = None


def default_data_dir() -> Path:
    """The data folder of the app and of every command, whatever the working directory.

    ``$HALLUSCOPE_DATA_DIR`` when set, else the per-user data folder: ``$XDG_DATA_HOME/halluscope``
    (``~/.local/share/halluscope``) on Linux, ``~/Library/Application Support/halluscope`` on
    macOS, ``halluscope`` under ``%LOCALAPPDATA%`` on Windows. Not a folder beside the code: an installed
    ``app.py`` sits in site-packages, and ``data/`` under the working directory differs per shell.
    """
    given = os.environ.get(DATA_DIR_ENV)
    if given:
        return Path(given).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME")  # the XDG spec ignores a relative value
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "halluscope"


def default_db_path(data_dir: Path | None = None) -> Path:
    """The SQLite file used when no URL is given: ``halluscope.db`` in :func:`default_data_dir`."""
    return (data_dir or default_data_dir()) / DEFAULT_DB_NAME


def resolve_url(target: str | Path | None, data_dir: Path | None = None) -> tuple[str, Path | None]:
    """Turn a path, a ``sqlite:///`` URL or a ``postgresql://`` URL into an engine URL and file."""
    if target is None:
        target = default_db_path(data_dir)
    raw = str(target)
    if raw.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + raw.split("://", 1)[1], None
    if raw.startswith("postgresql+"):
        return raw, None
    if raw.startswith("sqlite:///"):
        path = Path(raw[len("sqlite:///") :])
    elif "://" in raw:
        raise StoreError(
            f"unsupported database URL {make_url(raw).render_as_string()!r}: "
            "use a file path, sqlite:///PATH or postgresql://..."
        )
    else:
        path = Path(raw)
    return f"sqlite:///{path}", path


def reason_of(exc: BaseException) -> str:
    """The database's own one-line reason for an error (no SQLAlchemy wrapping, no links)."""
    inner = getattr(exc, "orig", None) or exc
    text_ = str(inner).strip().splitlines()
    return text_[0] if text_ else type(inner).__name__


def is_read_only(exc: BaseException, path: Path) -> bool:
    """The error (or the file's folder) says the SQLite file cannot be written."""
    words = str(getattr(exc, "reason", exc)).lower()
    if "readonly" in words or "read-only" in words or "unable to open" in words:
        return True
    folder_writable = os.access(path.parent, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))
    return not folder_writable


OUR_TABLES = frozenset({"schema_migrations", "label_events"})
"""The tables a label store holds (``label_events`` alone: a store from before the migrations)."""


def refuse_foreign(tables: Iterable[str], where: object) -> None:
    """Refuse a database holding tables of another program: a label store is never grown into one."""
    names = set(tables)
    foreign = sorted(names - OUR_TABLES)
    if foreign and "schema_migrations" not in names:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise StoreError(
            f"{where}: holds tables of another program ({shown}), not a halluscope label store; "
            "give a new file, a new database or a schema of its own"
        )


def refuse_foreign_sqlite(path: Path) -> None:
    """:func:`refuse_foreign` on a SQLite file, read without writing a byte of it.

    Before the engine connects: its hooks switch the journal to WAL, which rewrites the header.
    A file SQLite cannot read is left to :func:`check_sqlite`, which says so.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return
    refuse_foreign((str(name) for (name,) in rows if not str(name).startswith("sqlite_")), path)


def check_sqlite(engine: Engine, path: Path) -> None:
    """Refuse a file that is not a healthy SQLite database, in one line naming it."""
    try:
        with engine.connect() as conn:
            found = [str(r) for r in conn.exec_driver_sql("PRAGMA integrity_check").scalars()]
    except DBAPIError as exc:
        engine.dispose()
        reason = reason_of(exc)
        if is_read_only(exc, path):
            raise ReadOnlyStore(f"{path}: cannot be opened for writing ({reason})") from None
        raise StoreError(
            f"{path}: not a usable SQLite database ({reason}); move it aside, or restore "
            "it from a backup or the mirror"
        ) from None
    if found != ["ok"]:
        engine.dispose()
        shown = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
        raise StoreError(
            f"{path}: fails PRAGMA integrity_check ({shown}); refusing to serve or write "
            "it: restore it from a backup or the mirror"
        ) from None


def sqlite_hooks(engine: Engine) -> None:
    """WAL, busy timeout, full sync; and transactions begun by us, not by the driver."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # isolation_level None: the sqlite3 module stops issuing its own BEGIN, so the "begin"
        # hook below decides between a deferred and an immediate transaction.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("halluscope_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def read_only_connector(path: Path) -> Any:
    """A connection factory reading the SQLite file ``path`` without writing a byte, here or beside it.

    ``mode=ro`` first: it reads the write-ahead log of a server writing the file meanwhile, but
    SQLite must be able to make the ``-shm`` index beside the file. In a folder that cannot be
    written and with no log beside the file, that fails; the file is then opened as immutable
    (``immutable=1``: no index, no locks), which is exact only because every committed write is
    then in the file itself. A log that is there but cannot be read refuses the open
    (:class:`ReadOnlyStore`): the file alone would be missing its latest writes.
    """
    uri = path.resolve().as_uri()

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if not is_read_only(exc, path):
                raise
            wal = path.with_name(path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise ReadOnlyStore(
                    f"{path}: cannot be read: it is being written (its log {wal.name} is there) and "
                    f"SQLite cannot read that log from a folder it may not write ({reason_of(exc)})"
                ) from None
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    return connect


def read_only_hooks(engine: Engine) -> None:
    """The busy timeout and transactions begun by us, for a store opened only to read."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        dbapi_conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN")


@contextmanager
def write_tx(store: Store) -> Iterator[Connection]:
    """A write transaction: committed when the block ends, rolled back on an exception.

    SQLite writers first queue on an advisory file lock beside the database: the kernel wakes the
    next writer the moment the lock is free, where SQLite's own busy handler polls with growing
    sleeps (20 processes at once gave a 3.4 s p99 that way). ``BEGIN IMMEDIATE`` and the busy
    timeout still guard against writers that do not take the file lock.
    """
    try:
        with _writer_turn(store), store.engine.connect() as conn:
            conn = conn.execution_options(halluscope_write=True)
            with conn.begin():
                yield conn
    except (IntegrityError, ProgrammingError):
        raise  # a concurrent duplicate (the caller looks it up), or a bug: not the store's refusal
    except DBAPIError as exc:  # disk full, read-only, locked past the busy timeout, server gone...
        raise WriteRefused(f"the label store refused the write: {reason_of(exc)}", reason_of(exc)) from None


@contextmanager
def _writer_turn(store: Store) -> Iterator[None]:
    if store.path is None or fcntl is None:
        yield
        return
    with store.write_lock:
        if store.lock_file is None:
            lock_path = store.path.with_name(store.path.name + ".writelock")
            try:
                store.lock_file = open(lock_path, "a+b")  # noqa: SIM115
            except OSError as exc:
                raise WriteRefused(
                    f"the label store refused the write: {lock_path}: {exc.strerror}", str(exc.strerror)
                ) from None
            weakref.finalize(store, store.lock_file.close)
        fcntl.flock(store.lock_file.fileno(), fcntl.LOCK_EX)  # also released if the process dies
        try:
            yield
        finally:
            fcntl.flock(store.lock_file.fileno(), fcntl.LOCK_UN)


@contextmanager
def read_tx(store: Store) -> Iterator[Connection]:
    """A read-only transaction (one consistent snapshot).

    A database that cannot be read (PostgreSQL down, a SQLite file damaged under the running server)
    raises :class:`StoreError` in one line; a bug (:class:`ProgrammingError`) is not dressed as one.
    """
    try:
        with store.engine.connect() as conn, conn.begin():
            yield conn
    except ProgrammingError:
        raise
    except DBAPIError as exc:
        raise StoreError(f"the label store cannot be read ({store.url}): {reason_of(exc)}") from None


def lock_label(conn: Connection, *parts: str) -> None:
    """Serialise writers of one label until the transaction ends.

    SQLite's ``BEGIN IMMEDIATE`` already lets one writer in at a time; PostgreSQL takes an
    advisory lock keyed by a 64-bit hash of the parts.
    """
    if conn.dialect.name != "postgresql":
        return
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def assert_not_served(db_path: Path | str, media_roots: Sequence[Path | str]) -> None:
    """Refuse a database file that lies inside a folder the app serves media from.

    Both sides are resolved (symlinks followed) before comparing, so ``media/../media/x.db`` and
    a link into a media root are caught too.
    """
    db = Path(db_path).expanduser().resolve()
    for root in media_roots:
        base = Path(root).expanduser().resolve()
        if db == base or base in db.parents:
            raise StoreError(
                f"database {db} is inside the media root {base}, which the app serves; "
                "keep it in a data folder of its own"
            )


def check_identifier(name: str) -> None:
    """Refuse a schema name that is not a plain SQL identifier (it is spliced into SQL)."""
    if (
        not name
        or not (name[0].isalpha() or name[0] == "_")
        or not all(c.isalnum() or c == "_" for c in name)
    ):
        raise StoreError(f"invalid schema name {name!r}")


def insert_ignoring_duplicates(conn: Connection, table: Any, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows, silently skipping those whose unique key is already present."""
    if not rows:
        return
    from sqlalchemy.dialects import postgresql, sqlite

    if conn.dialect.name == "postgresql":
        conn.execute(postgresql.insert(table).on_conflict_do_nothing(), list(rows))
    else:
        conn.execute(sqlite.insert(table).on_conflict_do_nothing(), list(rows))
