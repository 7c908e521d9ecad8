"""The append-only JSONL mirror: every event written, replayed at start-up, pushed only when configured.

No test touches the network: the CommitScheduler and the download are replaced by a local
folder standing in for the dataset repository.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_support import ALICE, BACKENDS, BOB, cmm_item, open_backend

from analysis.errors import InputError
from analysis.store import (
    Store,
    current_labels,
    events_frame,
    export_corrections,
    import_corrections,
    relabel,
    undo,
)
from analysis.store import mirror as mirror_module
from analysis.store.mirror import Mirror, open_mirrored_store, read_mirror, replay


class CountingLock:
    """Stands in for CommitScheduler.lock and counts how often the mirror takes it."""

    def __init__(self) -> None:
        self.inner = threading.Lock()
        self.taken = 0

    def __enter__(self) -> None:
        self.inner.acquire()
        self.taken += 1

    def __exit__(self, *exc: Any) -> None:
        self.inner.release()


class FakeScheduler:
    def __init__(self) -> None:
        self.lock = CountingLock()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path, mirror=Mirror(tmp_path / "mirror"))


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [event for _, _, event in read_mirror(folder)]


def test_every_event_goes_to_this_processs_own_file(store: Store, tmp_path: Path) -> None:
    relabel(store, cmm_item(1), "gold", "no", ALICE)
    undo(store, cmm_item(1), "gold", BOB)
    files = list((tmp_path / "mirror").iterdir())
    assert len(files) == 1 and re.fullmatch(r"events-[0-9a-f]{32}\.jsonl", files[0].name)
    mirrored = _lines(tmp_path / "mirror")
    assert [e["event_id"] for e in mirrored] == events_frame(store)["event_id"].tolist()
    assert [e["kind"] for e in mirrored] == ["set", "undo"]
    assert "id" not in mirrored[0]  # local ids are not portable


def test_a_fresh_store_replays_the_mirror_idempotently(store: Store, tmp_path: Path) -> None:
    relabel(store, cmm_item(1), "gold", "no", ALICE)
    relabel(store, cmm_item(2), "note", "dark", BOB)
    relabel(store, cmm_item(1), "gold", "yes", BOB)
    fresh_gen = open_backend("sqlite", tmp_path / "fresh")
    fresh = next(fresh_gen)
    assert replay(fresh, tmp_path / "mirror") == 3
    assert replay(fresh, tmp_path / "mirror") == 0
    assert current_labels(fresh, "cmm").values.tolist() == current_labels(store, "cmm").values.tolist()
    assert set(events_frame(fresh)["origin"]) == {"mirror"}
    fresh_gen.close()


def test_a_replay_brings_back_events_older_than_the_store_s_own(store: Store, tmp_path: Path) -> None:
    # The mirror is the recovery path: a store that has written since (a newer event on the same
    # label) still gets every mirrored event back; only imports and merges check the order.
    relabel(store, cmm_item(1), "gold", "no", ALICE)
    fresh_gen = open_backend("sqlite", tmp_path / "fresh")
    fresh = next(fresh_gen)
    relabel(fresh, cmm_item(1), "gold", "no", BOB, "written after the mirror's event")
    assert replay(fresh, tmp_path / "mirror") == 1
    assert len(events_frame(fresh)) == 2
    fresh_gen.close()


def test_imported_events_are_mirrored_too(store: Store, tmp_path: Path) -> None:
    source_gen = open_backend("sqlite", tmp_path / "source")
    source = next(source_gen)
    relabel(source, cmm_item(5), "gold", "no", ALICE)
    export_corrections(source, tmp_path / "c.jsonl")
    source_gen.close()
    assert import_corrections(store, tmp_path / "c.jsonl", BOB) == 1
    assert [e["item_key"] for e in _lines(tmp_path / "mirror")] == ["item0005"]


def test_a_torn_last_line_is_skipped_and_a_bad_middle_line_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    good = {
        "event_id": "a" * 32,
        "benchmark": "cmm",
        "item_key": "i",
        "field": "gold",
        "new_value": "no",
        "reviewer": "alice",
        "created_at": "2025-01-01T00:00:00.000000Z",
    }
    (folder / "events-1.jsonl").write_text(json.dumps(good) + "\n" + '{"event_id": "b')
    assert [e["event_id"] for e in _lines(folder)] == ["a" * 32]
    (folder / "events-2.jsonl").write_text('{"oops"\n' + json.dumps(good) + "\n")
    with pytest.raises(InputError, match=r"events-2\.jsonl: line 1"):
        _lines(folder)


def test_writes_take_the_schedulers_lock(tmp_path: Path) -> None:
    scheduler = FakeScheduler()
    gen = open_backend("sqlite", tmp_path, mirror=Mirror(tmp_path / "mirror", scheduler))
    store = next(gen)
    relabel(store, cmm_item(1), "gold", "no", ALICE)
    relabel(store, cmm_item(2), "gold", "no", ALICE)
    assert scheduler.lock.taken == 2
    gen.close()


def test_start_up_without_a_repository_never_touches_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(mirror_module.ENV_REPO, raising=False)

    def no_network(*_: Any, **__: Any) -> Any:
        raise AssertionError("the network was used")

    monkeypatch.setattr(mirror_module, "download", no_network)
    monkeypatch.setattr(mirror_module, "make_scheduler", no_network)
    store = open_mirrored_store(tmp_path / "data")
    assert store.mirror is not None and store.mirror.scheduler is None
    relabel(store, cmm_item(1), "gold", "no", ALICE)
    store.close()
    again = open_mirrored_store(tmp_path / "data", target=tmp_path / "elsewhere.db")  # a new, empty db
    assert current_labels(again, "cmm")["value"].tolist() == ["no"]  # rebuilt from the local mirror
    again.close()


def test_start_up_on_spaces_rebuilds_from_the_downloaded_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A previous Space run left its mirror in the dataset repository; here a local folder stands in.
    earlier_gen = open_backend("sqlite", tmp_path / "earlier", mirror=Mirror(tmp_path / "repo" / "events"))
    earlier = next(earlier_gen)
    relabel(earlier, cmm_item(1), "gold", "no", ALICE)
    relabel(earlier, cmm_item(2), "flag", ["ambiguous"], BOB)
    earlier_gen.close()
    calls: dict[str, Any] = {}

    def fake_download(repo_id: str, into: Path, *, token: str | None = None) -> Path:
        calls["download"] = repo_id
        return tmp_path / "repo"

    def fake_scheduler(repo_id: str, folder: Path, **_: Any) -> FakeScheduler:
        calls["scheduler"] = (repo_id, folder)
        return FakeScheduler()

    monkeypatch.setattr(mirror_module, "download", fake_download)
    monkeypatch.setattr(mirror_module, "make_scheduler", fake_scheduler)
    monkeypatch.setenv(mirror_module.ENV_REPO, "team/halluscope-labels")
    store = open_mirrored_store(tmp_path / "space")
    assert calls["download"] == "team/halluscope-labels"
    assert calls["scheduler"] == ("team/halluscope-labels", tmp_path / "space" / "mirror")
    assert sorted(current_labels(store, "cmm")["value"]) == ["ambiguous", "no"]
    relabel(store, cmm_item(1), "gold", "yes", BOB, "restarted Space, new edit")
    assert [e["new_value"] for e in _lines(tmp_path / "space" / "mirror")] == ["yes"]  # only new events
    store.close()
