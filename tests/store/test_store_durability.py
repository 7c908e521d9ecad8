"""Durability and concurrency: a killed writer loses no acknowledged label; concurrent writers
give exactly N x M events, none lost or doubled, and one label's history stays a clean chain."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from store_support import BACKENDS, backend_target, drop_schema, open_backend

from analysis.store import Identity, ItemRef, Store, events_frame, open_store, relabel
from analysis.store.mirror import read_mirror
from analysis.store.schema import EVENT_COLUMNS, label_events

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from analysis.store import Identity, ItemRef, open_store, relabel
    from analysis.store.mirror import Mirror

    target, schema, mirror, name, count = sys.argv[1:6]
    store = open_store(target, schema=schema or None, mirror=Mirror(Path(mirror)) if mirror else None)
    me = Identity(name)
    for i in range(int(count)):
        event = relabel(store, ItemRef("cmm", f"{name}-{i % 7}", "", None), "note", f"{name} {i}", me)
        sys.stdout.write(event.event_id + "\\n")
        sys.stdout.flush()
    print("done", flush=True)
""")


def _writer(
    target: str, schema: str | None, mirror: Path | None, name: str, count: int
) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-c", WRITER, target, schema or "", str(mirror or ""), name, str(count)]
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    where, schema = backend_target(request.param, tmp_path)
    store = open_store(where, schema=schema)  # migrate once, before the writers race
    store.close()
    yield where, schema
    if schema is not None:
        drop_schema(where, schema)


def test_a_killed_writer_loses_no_acknowledged_label(target: tuple[str, str | None], tmp_path: Path) -> None:
    where, schema = target
    child = _writer(where, schema, tmp_path / "mirror", "killed", 100_000)
    assert child.stdout is not None
    acknowledged = []
    for line in child.stdout:
        acknowledged.append(line.strip())
        if len(acknowledged) == 60:
            child.send_signal(signal.SIGKILL)  # in the middle of its writes
            break
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    acknowledged += [line.strip() for line in child.stdout if line.strip()]  # acknowledged before the kill
    child.stdout.close()
    assert child.stderr is not None
    child.stderr.close()
    store = open_store(where, schema=schema)
    stored = set(events_frame(store)["event_id"])
    assert set(acknowledged) <= stored and len(acknowledged) >= 60
    mirrored = {event["event_id"] for _, _, event in read_mirror(tmp_path / "mirror")}
    assert set(acknowledged) <= mirrored
    if store.dialect == "sqlite":
        with store.engine.connect() as conn:
            assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
    relabel(store, ItemRef("cmm", "after", "", None), "note", "still takes writes", Identity("x"))
    store.close()


def test_concurrent_threads_write_exactly_n_times_m_events(target: tuple[str, str | None]) -> None:
    where, schema = target
    store = open_store(where, schema=schema)
    n, m = 5, 40
    shared = ItemRef("cmm", "shared", "", None)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            me = Identity(f"t{k}")
            for i in range(m):
                item = shared if i % 4 == 0 else ItemRef("cmm", f"t{k}-{i % 5}", "", None)
                relabel(store, item, "note", f"t{k} write {i}", me)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    events = events_frame(store)
    assert len(events) == n * m and events["event_id"].is_unique
    # the shared label: 50 writes from 5 threads, each event's old value is the previous new value
    chain = events[events["item_key"] == "shared"]
    assert len(chain) == n * m // 4
    assert chain["old_value"].tolist()[1:] == chain["new_value"].tolist()[:-1]
    assert chain["created_at"].is_monotonic_increasing
    store.close()


def test_concurrent_processes_write_exactly_n_times_m_events(tmp_path: Path) -> None:
    where, _ = backend_target("sqlite", tmp_path)
    open_store(where).close()
    n, m = 3, 30
    children = [_writer(where, None, None, f"p{k}", m) for k in range(n)]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert out.splitlines()[-1] == "done"
    gen = open_backend("sqlite", tmp_path)
    store = next(gen)
    events = events_frame(store)
    assert len(events) == n * m and events["event_id"].is_unique
    assert events.groupby("reviewer").size().tolist() == [m] * n
    gen.close()


def test_event_columns_match_the_table() -> None:
    # request_key (the writer's idempotency key) is local to a store: not carried by exports or imports
    local = ("id", "request_key")
    assert tuple(c.name for c in label_events.columns if c.name not in local) == EVENT_COLUMNS


def test_an_empty_store_reads_as_empty(tmp_path: Path) -> None:
    gen = open_backend("sqlite", tmp_path)
    store: Store = next(gen)
    assert events_frame(store).empty
    gen.close()
