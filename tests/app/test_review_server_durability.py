"""The real app server SIGKILLed in the middle of relabels loses no acknowledged label.

``python app.py`` runs as a subprocess on the samples with password users and its label store in
the test's folder; three authenticated clients relabel through the public ``/relabel`` endpoint,
and once 30 calls have returned the server is killed with writes still in flight. Every event id a
client got back must be in the database, in order, the database must pass ``integrity_check``, and
a restarted server on the same folder must see the stored labels (it refuses a "change" to the
value a label already has) and take new writes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from app_data import GRADIO_LOOP_WARNINGS
from sqlalchemy import text

from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.store import current_labels, events_frame, open_store

pytestmark = list(GRADIO_LOOP_WARNINGS)
ROOT = Path(__file__).resolve().parents[2]
USERS = [("alice", "pw1"), ("bob", "pw2"), ("carol", "pw3")]
FLIP = {"yes": "no", "no": "yes"}
ACKNOWLEDGED_BEFORE_KILL = 30
START_TIMEOUT = 90.0  # Gradio's import alone takes seconds on a busy two-core machine


@pytest.fixture(scope="module")
def cmm_items() -> list[tuple[str, str]]:
    """(item id, official gold) of three cmm sample items, one per reviewer."""
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    table = load_manifest(SAMPLE_MANIFEST).table
    rows = table[table["benchmark"] == "cmm"].drop_duplicates("item_id").head(len(USERS))
    return list(zip(rows["item_id"].astype(str), rows["gold"].str.lower(), strict=True))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python app.py`` on a free port with its output in a log file."""

    def __init__(self, data_dir: Path, log: Path) -> None:
        self.data_dir = data_dir
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "HALLUSCOPE_AUTH": ",".join(f"{u}:{p}" for u, p in USERS),
            "HALLUSCOPE_DATA_DIR": str(data_dir),
            "GRADIO_ANALYTICS_ENABLED": "False",
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(self.port),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("HALLUSCOPE_HF_DATASET", None)  # no mirror: the local store only
        self.log: IO[bytes] = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "app.py"], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode} before answering")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)  # polling with a deadline
        raise AssertionError(f"server did not answer within {START_TIMEOUT}s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        self.proc.wait(timeout=30)
        self.log.close()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Servers started by the test; any still running at the end are killed."""
    started: list[Server] = []
    yield started
    for server in started:
        if not server.log.closed:
            server.stop(signal.SIGKILL)


def _start(servers: list[Server], tmp_path: Path) -> Server:
    server = Server(tmp_path / "data", tmp_path / "server.log")
    servers.append(server)
    server.wait_ready()
    return server


def _client(url: str, user: tuple[str, str]) -> Any:
    from gradio_client import Client

    return Client(url, auth=user, verbose=False)


def test_a_killed_server_loses_no_acknowledged_label(
    cmm_items: list[tuple[str, str]], servers: list[Server], tmp_path: Path
) -> None:
    pytest.importorskip("gradio_client")
    server = _start(servers, tmp_path)
    acked: list[tuple[str, str, str, str]] = []  # (event id, reviewer, item, value), as returned
    lock, killed = threading.Lock(), threading.Event()
    failures: list[BaseException] = []

    def work(k: int) -> None:
        item, official = cmm_items[k]
        try:
            client = _client(server.url, USERS[k])
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)
            return
        n = 0
        while True:
            value = FLIP[official] if n % 2 == 0 else official  # every call is a real change
            try:
                event_id = client.predict(item, "gold", value, f"kill run {n}", api_name="/relabel")
            except BaseException as exc:  # after the kill: this call was not acknowledged
                if not killed.is_set():
                    failures.append(exc)
                return
            with lock:
                acked.append((str(event_id), USERS[k][0], item, value))
            n += 1

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(len(USERS))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acked) < ACKNOWLEDGED_BEFORE_KILL and not failures and time.monotonic() < deadline:
        time.sleep(0.01)  # polling with a deadline
    assert not failures, failures
    assert len(acked) >= ACKNOWLEDGED_BEFORE_KILL, f"only {len(acked)} relabels acknowledged in 60 s"
    killed.set()
    server.stop(signal.SIGKILL)  # the three clients are mid-call
    assert server.proc.returncode == -signal.SIGKILL
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a client hung after the kill"
    assert not failures, failures
    with lock:
        acknowledged = list(acked)
    current = _check_store(tmp_path / "data" / "halluscope.db", acknowledged)
    _check_restart(_start(servers, tmp_path), current)


def _check_store(db: Path, acknowledged: list[tuple[str, str, str, str]]) -> dict[str, str]:
    """Every acknowledged event stored as returned and in order; the current gold of each item."""
    store = open_store(db)
    try:
        with store.engine.connect() as conn:
            assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        events = events_frame(store).set_index("event_id", drop=False)
        ids = [event_id for event_id, *_ in acknowledged]
        assert set(ids) <= set(events.index), "an acknowledged label is missing after the kill"
        assert events["event_id"].is_unique
        stored = events.loc[ids, ["reviewer", "item_key", "new_value"]].to_records(index=False).tolist()
        assert stored == [(who, item, value) for _, who, item, value in acknowledged]
        for item, chain in events.groupby("item_key", sort=False):
            # acknowledged order is the stored order, and each event continues the previous one
            mine = [i for i, (_, _, it, _) in zip(ids, acknowledged, strict=True) if it == item]
            assert [i for i in chain["event_id"] if i in set(mine)] == mine
            assert chain["old_value"].tolist()[1:] == chain["new_value"].tolist()[:-1]
        labels = current_labels(store, "cmm")
        gold = labels[labels["field"] == "gold"]
        current = dict(zip(gold["item_id"], gold["value"], strict=True))
        last = events.groupby("item_key")["new_value"].last().to_dict()
        assert current == last and len(current) == len(USERS)
        return current
    finally:
        store.close()


def _check_restart(server: Server, current: dict[str, str]) -> None:
    """The restarted app sees each stored label and takes new writes on top of it."""
    client = _client(server.url, USERS[0])
    written = []
    for item, value in current.items():
        with pytest.raises(Exception, match="Not saved"):  # already the stored value
            client.predict(item, "gold", value, "restart", api_name="/relabel")
        written.append(client.predict(item, "gold", FLIP[value], "restart", api_name="/relabel"))
    server.stop()
    store = open_store(server.data_dir / "halluscope.db")
    try:
        events = events_frame(store)
        assert events["event_id"].tolist()[-len(written) :] == written
        labels = current_labels(store, "cmm")
        assert dict(zip(labels["item_id"], labels["value"], strict=True)) == {
            item: FLIP[value] for item, value in current.items()
        }
    finally:
        store.close()
