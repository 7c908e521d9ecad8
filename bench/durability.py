"""Load held and faults survived: reviewers relabel through the running app while it is SIGKILLed.

``halluscope serve`` runs as its own process over the samples with N password reviewers and a
fresh label store (SQLite file, or a fresh PostgreSQL database with ``--pg URL``). N client
processes (gradio_client) each make M relabels of their own CMM item through ``/relabel``, every
call with an idempotency key (``reviewer-n``). When half the relabels are acknowledged the
server is SIGKILLed with calls in flight, and restarted on the same store; each client retries
its unacknowledged call with the same key until the new server answers, then goes on. At the end
the store must hold every acknowledged event (acknowledged = stored) and no write twice.

Prints, per backend: events/s over the whole run (restart included) and before the kill, latency
p50 / p95 / p99 of acknowledged calls, acknowledged, stored, doubled (events beyond one per key),
lost (acknowledged event ids missing), retried (calls repeated after the kill, and how many of
those had in fact been stored before it), and the restart time.

Run: ``python bench/durability.py [--clients 20] [--labels 250] [--pg postgresql://...]``
(``--pg`` also takes ``$HALLUSCOPE_TEST_PG_URL``; without one only SQLite runs).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

START_TIMEOUT = 180.0
RETRY_DEADLINE = 300.0

_acked: Any = None  # a shared counter, set in each client process by _init


def _init(counter: Any) -> None:
    import threading

    global _acked
    _acked = counter
    # gradio_client's stream threads print the kill's connection resets; the calls report them
    threading.excepthook = lambda _args: None


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Outcome:
    """What one client saw."""

    user: str
    acked: list[tuple[str, str]] = field(default_factory=list)
    """(request key, event id) of every acknowledged call."""
    latencies: list[float] = field(default_factory=list)
    """Seconds per acknowledged first attempt (retries after the kill are not latency)."""
    retried: list[str] = field(default_factory=list)
    """Keys of calls that failed (the kill) and were sent again."""
    failures: list[str] = field(default_factory=list)


def backoff(attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): 0.2 s doubling to 5 s, with jitter.

    A fixed 0.2 s made 20 clients on 2 cores rebuild a gradio Client (several requests each) five
    times a second against a server still starting: the restart starved and the run gave up at
    180 s. Backing off leaves the restarting server the CPU; the jitter spreads the clients out.
    """
    return min(5.0, 0.2 * 2.0**attempt) * random.uniform(0.5, 1.0)


def _ready(url: str) -> bool:
    """The page answers: one cheap request, before a client (several requests) is built."""
    try:
        with urllib.request.urlopen(url + "/", timeout=5) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _connect(url: str, user: tuple[str, str], deadline: float) -> Any:
    from gradio_client import Client

    attempt = 0
    while True:
        try:
            if _ready(url):
                return Client(url, auth=user, verbose=False, httpx_kwargs={"timeout": 60})
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer {user[0]} in time")
        time.sleep(backoff(attempt))  # the server is restarting
        attempt += 1


def client(job: tuple[str, tuple[str, str], str, str, int]) -> Outcome:
    """One reviewer: ``labels`` relabels of one item, each with its own idempotency key."""
    url, user, item_id, official, labels = job
    other = {"yes": "no", "no": "yes"}[official]
    out = Outcome(user[0])
    api = _connect(url, user, time.monotonic() + START_TIMEOUT)
    for n in range(labels):
        key = f"{user[0]}-{n}"
        value = other if n % 2 == 0 else official
        start, attempt = time.perf_counter(), 0
        deadline = time.monotonic() + RETRY_DEADLINE
        while True:
            try:
                event_id = api.predict(item_id, "gold", value, f"bench {n}", key, api_name="/relabel")
                break
            except Exception as exc:  # the server died under this call, or is not back yet
                if time.monotonic() > deadline:
                    out.failures.append(f"{key}: {type(exc).__name__}: {exc}")
                    return out
                if attempt == 0:
                    out.retried.append(key)
                time.sleep(backoff(attempt))
                attempt += 1
                try:
                    api = _connect(url, user, deadline)
                except TimeoutError as exc:
                    out.failures.append(f"{key}: {exc}")
                    return out
        if attempt == 0:
            out.latencies.append(time.perf_counter() - start)
        out.acked.append((key, str(event_id)))
        with _acked.get_lock():
            _acked.value += 1
    return out


class Server:
    """``halluscope serve`` on a port, as a process of its own."""

    def __init__(self, db: str, users: list[tuple[str, str]], port: int, log: Path) -> None:
        self.db, self.users, self.port, self.log = db, users, port, log
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start and wait until the page answers; returns the seconds it took."""
        begin = time.monotonic()
        env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(ROOT)}
        env.pop("HALLUSCOPE_HF_DATASET", None)
        auth = ",".join(f"{u}:{p}" for u, p in self.users)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "analysis.cli",
                    "serve",
                    "--db",
                    self.db,
                    "--auth",
                    auth,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        while time.monotonic() - begin < START_TIMEOUT:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited with {self.proc.returncode}; see {self.log}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as reply:
                    if reply.status == 200:
                        return time.monotonic() - begin
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        raise SystemExit(f"server did not answer within {START_TIMEOUT:.0f} s; see {self.log}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` and wait for the process to end."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
            self.proc.wait(timeout=60)


def _pg_database(admin_url: str) -> tuple[str, str]:
    """A fresh database on the server of ``admin_url``: (its URL, its name)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"halluscope_bench_{uuid.uuid4().hex[:8]}"
    url = make_url(admin_url.replace("postgresql://", "postgresql+psycopg://", 1))
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False), name


def _drop_pg(admin_url: str, name: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(admin_url.replace("postgresql://", "postgresql+psycopg://", 1))
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def run(label: str, db: str, clients: int, labels: int, tmp: Path) -> None:
    """One backend: load, kill at half, restart, retries, then the checks; prints the figures."""
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.store import events_frame, open_store

    items = load_manifest(SAMPLE_MANIFEST).table
    items = items[items["benchmark"] == "cmm"].drop_duplicates("item_id")
    if len(items) < clients:
        raise SystemExit(f"only {len(items)} CMM items for {clients} clients")
    users = [(f"r{i}", f"pw{i}") for i in range(clients)]
    server = Server(db, users, _port(), tmp / f"{label}-server.log")
    first_start = server.start()
    jobs = [
        (server.url, users[i], str(items.iloc[i]["item_id"]), str(items.iloc[i]["gold"]).lower(), labels)
        for i in range(clients)
    ]
    context = multiprocessing.get_context("spawn")
    counter = context.Value("i", 0)
    total = clients * labels
    start = time.perf_counter()
    # one process per reviewer: in-process clients would share the server's GIL and measure it
    with context.Pool(clients, initializer=_init, initargs=(counter,)) as pool:
        pending = pool.map_async(client, jobs)
        while counter.value < total // 2 and not pending.ready():
            time.sleep(0.01)
        acked_at_kill, killed_at = counter.value, time.perf_counter()
        server.kill()  # calls are in flight
        restart = server.start()
        results: list[Outcome] = pending.get()
    wall = time.perf_counter() - start
    server.kill(signal.SIGTERM)

    store = open_store(db)
    events = events_frame(store)
    from sqlalchemy import text

    with store.engine.connect() as conn:
        keys = conn.execute(text("SELECT reviewer, request_key FROM label_events")).all()
        sqlite = store.dialect == "sqlite"
        check = conn.execute(text("PRAGMA integrity_check")).scalar() if sqlite else "n/a"
    store.close()
    acked = [event_id for r in results for _, event_id in r.acked]
    stored_ids = set(events["event_id"])
    lost = [e for e in acked if e not in stored_ids]
    doubled = len(keys) - len(set(keys))
    retried = [k for r in results for k in r.retried]
    stored_before = sum(
        1
        for r in results
        for k, e in r.acked
        if k in set(r.retried) and e in stored_ids and _before(events, e, killed_at, start)
    )
    ms = sorted(x * 1000 for r in results for x in r.latencies)
    failures = [f for r in results for f in r.failures]
    print(
        f"== {label}: {clients} reviewers x {labels} relabels = {total}, "
        f"SIGKILL at {acked_at_kill} acknowledged"
    )
    print(
        f"acknowledged {len(acked)} · stored {len(events)} · doubled {doubled} · lost {len(lost)} · "
        f"retried {len(retried)} · failures {len(failures)} · integrity_check {check}"
    )
    print(
        f"events/s {len(acked) / wall:.1f} over {wall:.1f} s (restart included); "
        f"{acked_at_kill / (killed_at - start):.1f} before the kill"
    )
    if ms:
        print(
            f"latency ms p50 {statistics.median(ms):.0f} · p95 {_pct(ms, 0.95):.0f} "
            f"· p99 {_pct(ms, 0.99):.0f} · max {ms[-1]:.0f}"
        )
    print(
        f"server start {first_start:.1f} s · restart after the kill {restart:.1f} s"
        f" · retried calls whose first attempt had been stored: {stored_before}"
    )
    for line in failures[:5]:
        print("failure:", line)
    ok = len(acked) == len(events) == total and not lost and doubled == 0 and not failures
    print("OK: acknowledged = stored, none doubled" if ok else "FAILED")
    if not ok:
        raise SystemExit(1)


def _before(events: Any, event_id: str, killed_at: float, start: float) -> bool:
    # Stored events carry their wall-clock time; a retried key whose event exists was either
    # stored by the first attempt (before the kill) or by the retry: the event id tells nothing,
    # so compare with the wall clock at the kill.
    row = events[events["event_id"] == event_id]
    if row.empty:
        return False
    from datetime import datetime

    created = datetime.strptime(str(row["created_at"].iloc[0]), "%Y-%m-%dT%H:%M:%S.%fZ")
    kill_wall = time.time() - (time.perf_counter() - killed_at)
    return created.replace(tzinfo=UTC).timestamp() <= kill_wall


def _pct(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * q))]


def main() -> None:
    """Run SQLite, then PostgreSQL when a server URL is given."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--labels", type=int, default=250)
    parser.add_argument(
        "--pg",
        default=os.environ.get("HALLUSCOPE_TEST_PG_URL"),
        help="a PostgreSQL server URL (a fresh database is made there and dropped)",
    )
    parser.add_argument("--only", choices=("sqlite", "postgresql"), default=None)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="halluscope-durability-"))
    if args.only != "postgresql":
        run("sqlite", str(tmp / "labels.db"), args.clients, args.labels, tmp)
    if args.only != "sqlite":
        if not args.pg:
            print("== postgresql: skipped (no --pg URL and no $HALLUSCOPE_TEST_PG_URL)")
            return
        url, name = _pg_database(args.pg)
        try:
            run("postgresql", url, args.clients, args.labels, tmp)
        finally:
            _drop_pg(args.pg, name)


if __name__ == "__main__":
    main()
