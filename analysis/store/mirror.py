"""An append-only JSONL copy of every event, for hosts whose disk does not last (Hugging Face Spaces).

Each process appends to its own file, ``events-<uuid>.jsonl``, in a mirror folder, so no two
writers ever share a file. On Spaces the folder is pushed to a dataset repository by
``huggingface_hub.CommitScheduler(repo_type="dataset", every=5)``, and only when one is
configured (``HALLUSCOPE_HF_DATASET``): tests and local runs never touch the network. Lines are
written under the scheduler's lock, so a push never uploads half a line, and synced to disk
before the database commits the event.

At start-up :func:`replay` reads every mirror file (a downloaded copy of the dataset repository
or the local folder) back into the database; events already there are skipped, so replaying
twice changes nothing.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import orjson

from analysis.errors import InputError
from analysis.store.connect import open_store
from analysis.store.db import Store
from analysis.store.merge import insert_events

ENV_REPO = "HALLUSCOPE_HF_DATASET"
"""Dataset repository (``user/name``) to push the mirror to; unset means no push."""
PATH_IN_REPO = "events"


class Lockable(Protocol):
    """What the mirror needs of a CommitScheduler: its lock."""

    lock: Any


class Mirror:
    """The append-only JSONL file of this process's events, inside ``folder``."""

    def __init__(self, folder: Path, scheduler: Lockable | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / f"events-{uuid.uuid4().hex}.jsonl"
        self.scheduler = scheduler
        self._lock: Any = scheduler.lock if scheduler is not None else threading.Lock()

    def append(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Append events, one JSON object a line, and sync them to disk."""
        data = b"".join(orjson.dumps(dict(row)) + b"\n" for row in rows)
        if not data:
            return
        with self._lock, self.path.open("ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


def read_mirror(folder: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every event in the ``*.jsonl`` files under ``folder``: ``(file, "line N", event)``.

    A last line without its newline is a write cut short by a crash (never acknowledged) and is
    skipped; any other unreadable line is an InputError naming the file and line.
    """
    for path in sorted(Path(folder).rglob("*.jsonl")):
        data = path.read_bytes()
        lines = data.split(b"\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                if number == len(lines):  # no newline after it: torn tail
                    break
                raise InputError(path, "invalid JSON", record=f"line {number}") from None
            if not isinstance(value, dict):
                raise InputError(path, "expected a JSON object", record=f"line {number}")
            yield str(path), f"line {number}", value


def replay(store: Store, folder: Path) -> int:
    """Load every mirrored event under ``folder`` into ``store``; returns how many were new."""
    added = 0
    by_file: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for source, where, event in read_mirror(folder):
        by_file.setdefault(source, []).append((where, event))
    for source, rows in by_file.items():
        # a recovery: every mirrored event comes back, whatever the store wrote since (a merge's
        # order check would refuse the older ones and lose them)
        added += insert_events(store, rows, source=source, origin="mirror", to_mirror=False, in_order=False)
    return added


def make_scheduler(repo_id: str, folder: Path, *, every: float = 5, token: str | None = None) -> Any:
    """A CommitScheduler pushing ``folder``'s JSONL files to the dataset ``repo_id`` (network!)."""
    from huggingface_hub import CommitScheduler

    return CommitScheduler(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=folder,
        every=every,
        path_in_repo=PATH_IN_REPO,
        token=token,
        allow_patterns=["*.jsonl"],
        private=True,
    )


def download(repo_id: str, into: Path, *, token: str | None = None) -> Path:
    """Fetch the mirrored events of ``repo_id`` into ``into`` (network!); returns the folder."""
    from huggingface_hub import snapshot_download

    snapshot_download(
        repo_id, repo_type="dataset", local_dir=into, token=token, allow_patterns=[f"{PATH_IN_REPO}/*.jsonl"]
    )
    return into


def open_mirrored_store(
    data_dir: Path, *, repo_id: str | None = None, token: str | None = None, target: str | Path | None = None
) -> Store:
    """The start-up path on Spaces: rebuild the local database from the mirror, then mirror on.

    ``repo_id`` defaults to ``$HALLUSCOPE_HF_DATASET``; without one nothing is pushed or
    downloaded and only the local mirror folder is replayed.
    """
    repo_id = repo_id or os.environ.get(ENV_REPO) or None
    mirror_dir, snapshot_dir = data_dir / "mirror", data_dir / "hub-snapshot"
    scheduler = None
    store = open_store(target, data_dir=data_dir)
    if repo_id:
        replay(store, download(repo_id, snapshot_dir, token=token))
        scheduler = make_scheduler(repo_id, mirror_dir, token=token)
    replay(store, mirror_dir)
    store.mirror = Mirror(mirror_dir, scheduler)
    return store
