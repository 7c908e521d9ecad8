"""The label store facing damaged files, read-only folders, a full disk and retried writes.

Issue 8's findings: a database failing ``PRAGMA integrity_check`` was served and written to; a
corrupt file made start-up print two lines (one a SQLAlchemy link) without naming the file; a
read-only data folder stopped even the read-only demo; a refused write on a full disk answered
``{"error": null}``; ``/relabel`` had no idempotency key, so a client whose connection dropped could
not tell whether its write had landed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from app_data import GRADIO_LOOP_WARNINGS
from fs_faults import fill, read_only_folder, small_disk
from http_app import launched
from store_support import ALICE, BACKENDS, BOB, cmm_item, open_backend

from analysis.store import (
    InvalidLabel,
    ReadOnlyStore,
    Store,
    StoreError,
    events_frame,
    open_store,
    relabel,
)

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]
ROOT = Path(__file__).resolve().parents[2]
USERS = [("alice", "pw1"), ("bob", "pw2")]


def _damaged(path: Path) -> Path:
    """A store whose item index disagrees with its table: it opens, but fails ``integrity_check``."""
    store = open_store(path)
    for n in range(50):
        relabel(store, cmm_item(n), "gold", "no", ALICE, "a reason")
    store.close()  # the last connection checkpoints the WAL into the file
    data = bytearray(path.read_bytes())
    # in the table a row's benchmark follows its 32-hex event id; in the index it follows the
    # record header: rename item0007 in the index only
    hexdigits = b"0123456789abcdef"
    at = [
        i for i in range(len(data)) if data.startswith(b"cmmitem0007gold", i) and data[i - 1] not in hexdigits
    ]
    assert at, "index entry not found"
    for i in at:
        data[i : i + 11] = b"cmmitem0099"
    path.write_bytes(bytes(data))
    return path


def test_a_database_failing_integrity_check_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    path = _damaged(tmp_path / "halluscope.db")
    with pytest.raises(StoreError) as caught:
        open_store(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "integrity_check" in message
    assert "\n" not in message and "sqlalche.me" not in message
    before = path.read_bytes()
    with pytest.raises(StoreError):
        open_store(path)
    assert path.read_bytes() == before  # refused before any write


def test_a_file_that_is_not_a_database_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "halluscope.db"
    path.write_bytes(b"this is not SQLite " * 500)
    with pytest.raises(StoreError) as caught:
        open_store(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a usable SQLite database (file is not a database)")
    assert "\n" not in message and "sqlalche.me" not in message


def _app_py(data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python app.py`` until it stops (a refused start) or 60 s (then it is serving)."""
    full = {
        **os.environ,
        "HALLUSCOPE_DATA_DIR": str(data_dir),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "PYTHONPATH": str(ROOT),
        **env,
    }
    full.pop("HALLUSCOPE_HF_DATASET", None)
    return subprocess.run(
        [sys.executable, "app.py"],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("damage", ["integrity", "garbage"])
def test_start_up_refuses_a_damaged_database_with_one_line(tmp_path: Path, damage: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "halluscope.db"
    if damage == "integrity":
        _damaged(db)
    else:
        db.write_bytes(os.urandom(8192))
    done = _app_py(data)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"halluscope: {db}: ") and "sqlalche.me" not in lines[0]


def test_halluscope_serve_refuses_a_damaged_database_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from analysis.cli.main import main

    db = _damaged(tmp_path / "labels.db")
    assert main(["serve", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(db) in err and "integrity_check" in err


def test_a_read_only_data_folder_opens_as_read_only(tmp_path: Path) -> None:
    with read_only_folder(tmp_path / "ro") as folder, pytest.raises(ReadOnlyStore) as caught:
        open_store(folder / "halluscope.db")
    assert str(folder) in str(caught.value) and "\n" not in str(caught.value)


def test_a_read_only_data_folder_serves_the_read_only_demo(tmp_path: Path) -> None:
    from gradio_client import Client

    import app
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    catalog = load_manifest(SAMPLE_MANIFEST)
    with read_only_folder(tmp_path / "ro") as folder:
        ctx = app.open_review(catalog, data_dir=folder, users=USERS)
        assert ctx.store is None  # the read-only demo
        with launched(app.build_app(catalog, ctx), auth=USERS, **app.launch_kwargs(catalog)) as url:
            client = Client(url, auth=USERS[0], verbose=False)
            item = str(catalog.table["item_id"].iloc[0])
            # alice is signed in: she is told the store cannot be written, not to sign in
            with pytest.raises(Exception, match="Refused: the label store cannot be written"):
                client.predict(item, "gold", "no", "r", api_name="/relabel")
            assert httpx.get(url, timeout=30).status_code == 200  # the demo is served


def test_a_write_refused_on_a_full_disk_says_why_in_one_line(tmp_path: Path) -> None:
    from gradio_client import Client

    import app
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    catalog = load_manifest(SAMPLE_MANIFEST)
    rows = catalog.table[catalog.table["benchmark"] == "cmm"].drop_duplicates("item_id")
    with small_disk(tmp_path / "disk") as folder:
        ctx = app.open_review(catalog, data_dir=folder, users=USERS)
        assert ctx.store is not None
        with launched(app.build_app(catalog, ctx), auth=USERS, **app.launch_kwargs(catalog)) as url:
            client = Client(url, auth=USERS[0], verbose=False)
            fill(folder)
            message = ""
            for n in range(400):  # the WAL's spare pages go first, then the disk is full
                item, gold = str(rows["item_id"].iloc[n % len(rows)]), str(rows["gold"].iloc[n % len(rows)])
                flip = "no" if gold.lower() == "yes" else "yes"
                value = flip if (n // len(rows)) % 2 == 0 else gold.lower()
                try:
                    client.predict(item, "gold", value, f"fill {n} " + "x" * 500, api_name="/relabel")
                except Exception as exc:  # the refusal, as the client sees it
                    message = str(exc)
                    break
        ctx.store.close()
    assert "Not saved: the label store refused the write: database or disk is full" in message, message
    assert "\n" not in message and "None" not in message


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


def test_a_retry_with_the_same_key_returns_the_first_event(store: Store) -> None:
    first = relabel(store, cmm_item(1), "gold", "no", ALICE, "r", request_key="alice-1")
    again = relabel(store, cmm_item(1), "gold", "no", ALICE, "r", request_key="alice-1")
    assert again.event_id == first.event_id and len(events_frame(store)) == 1
    # the key is the reviewer's: bob's same key is another write
    bob = relabel(store, cmm_item(2), "gold", "no", BOB, "r", request_key="alice-1")
    assert bob.event_id != first.event_id and len(events_frame(store)) == 2
    with pytest.raises(InvalidLabel, match="already used for another write"):
        relabel(store, cmm_item(3), "gold", "no", ALICE, "r", request_key="alice-1")


def test_concurrent_retries_with_one_key_store_one_event(store: Store) -> None:
    results: list[Any] = []
    errors: list[BaseException] = []

    def attempt() -> None:
        try:
            results.append(relabel(store, cmm_item(5), "gold", "no", ALICE, "r", request_key="k-5"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert len({e.event_id for e in results}) == 1 and len(events_frame(store)) == 1


def test_relabel_over_http_with_a_key_never_doubles(tmp_path: Path) -> None:
    from gradio_client import Client

    import app
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    catalog = load_manifest(SAMPLE_MANIFEST)
    row = catalog.table[catalog.table["benchmark"] == "cmm"].iloc[0]
    flip = "no" if str(row["gold"]).lower() == "yes" else "yes"
    ctx = app.open_review(catalog, data_dir=tmp_path / "data", users=USERS)
    assert ctx.store is not None
    with launched(app.build_app(catalog, ctx), auth=USERS, **app.launch_kwargs(catalog)) as url:
        client = Client(url, auth=USERS[0], verbose=False)
        ids = [
            client.predict(str(row["item_id"]), "gold", flip, "r", "retry-1", api_name="/relabel")
            for _ in range(3)
        ]
        back = str(row["gold"]).lower()
        plain = client.predict(str(row["item_id"]), "gold", back, "r", api_name="/relabel")
    events = events_frame(ctx.store)
    ctx.store.close()
    assert len(set(ids)) == 1 and len(events) == 2 and plain != ids[0]
