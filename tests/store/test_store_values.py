"""Label values per benchmark and task, span offsets, and where the database may live."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from analysis.store import StoreError, assert_not_served, open_store
from analysis.store.db import default_db_path, resolve_url
from analysis.store.values import (
    InvalidLabel,
    gold_kind,
    normalize,
)


@pytest.mark.parametrize(
    ("bench", "task", "value", "expected"),
    [
        ("cmm", "", " Yes ", "yes"),
        ("avhbench", "Audio-driven Video Hallucination", "N", "no"),
        ("avhbench", "AV Captioning", "  A dog barks.  ", "A dog barks."),
        ("vidhalluc", "bqa", "TRUE", "yes"),
        ("vidhalluc", "mcq", "c, a, C", "AC"),
        ("vidhalluc", "tsh", "b a", "BA"),
        ("vidhalluc", "sth", "scene change: no", "Scene change: No"),
        (
            "vidhalluc",
            "sth",
            '{"Scene change": "Yes", "Locations": "from a to b."}',
            "Scene change: Yes, Locations: from a to b.",
        ),
        ("cdh-bench", "mc", "b", "B"),
        ("cdh-bench", "qa", "no", "no"),
    ],
)
def test_gold_values_are_canonical(bench: str, task: str, value: str, expected: str) -> None:
    assert normalize("gold", value, benchmark=bench, task=task) == expected


@pytest.mark.parametrize(
    ("bench", "task", "value"),
    [
        ("cmm", "", "maybe"),
        ("vidhalluc", "mcq", "E"),
        ("vidhalluc", "tsh", "AA"),
        ("vidhalluc", "sth", "Scene change: Yes"),  # a change needs its locations
        ("cdh-bench", "mc", "AB"),
        ("avhbench", "AV Captioning", "   "),
    ],
)
def test_gold_values_that_do_not_fit_are_refused(bench: str, task: str, value: str) -> None:
    with pytest.raises(InvalidLabel):
        normalize("gold", value, benchmark=bench, task=task)


def test_a_cdh_qa_gold_that_is_not_yes_no_stays_text() -> None:
    assert gold_kind("cdh-bench", "qa", "6").name == "text"
    assert normalize("gold", " 7 ", benchmark="cdh-bench", task="qa", original="6") == "7"


def test_flags_and_notes() -> None:
    assert normalize("flag", ["Wrong options", "broken_media"]) == "broken-media,wrong-options"
    assert normalize("flag", "") is None and normalize("flag", []) is None
    with pytest.raises(InvalidLabel):
        normalize("flag", ["spooky"])
    assert normalize("note", "  ") is None and normalize("note", " ok ") == "ok"
    with pytest.raises(InvalidLabel):
        normalize("note", "x" * 20_001)


def test_database_urls_and_the_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_url("postgresql://u@h:5/db") == ("postgresql+psycopg://u@h:5/db", None)
    assert resolve_url("postgres://u@h/db")[0] == "postgresql+psycopg://u@h/db"
    assert resolve_url("sqlite:////x/y.db") == ("sqlite:////x/y.db", Path("/x/y.db"))
    assert resolve_url(tmp_path / "a.db") == (f"sqlite:///{tmp_path / 'a.db'}", tmp_path / "a.db")
    with pytest.raises(StoreError, match="unsupported"):
        resolve_url("mysql://u:secret@h/db")
    monkeypatch.setenv("HALLUSCOPE_DATA_DIR", str(tmp_path / "d"))
    assert default_db_path() == tmp_path / "d" / "halluscope.db"


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    store = open_store(tmp_path / "data" / "x.db")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 30_000
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    store.close()


def test_the_database_is_never_inside_a_media_root(tmp_path: Path) -> None:
    media = tmp_path / "media"
    (media / "videos").mkdir(parents=True)
    assert_not_served(tmp_path / "data" / "labels.db", [media])
    for inside in (media / "labels.db", media / "videos" / ".." / "x.db", media):
        with pytest.raises(StoreError, match="media root"):
            assert_not_served(inside, [tmp_path / "elsewhere", media])
    (tmp_path / "link").symlink_to(media / "videos")
    with pytest.raises(StoreError):
        assert_not_served(tmp_path / "link" / "labels.db", [media])
    with pytest.raises(StoreError):
        open_store(media / "labels.db", media_roots=[media])
    assert not (media / "labels.db").exists()


def test_the_default_data_folder_is_per_user_and_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analysis.store.db import default_data_dir

    monkeypatch.delenv("HALLUSCOPE_DATA_DIR", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    assert default_data_dir() == tmp_path / "xdg" / "halluscope"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")  # the XDG spec says: ignore it
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "halluscope"
    monkeypatch.setenv("HALLUSCOPE_DATA_DIR", "")  # empty means unset
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "halluscope"
    monkeypatch.setenv("HALLUSCOPE_DATA_DIR", str(tmp_path / "team"))
    assert default_data_dir() == tmp_path / "team"
    assert default_db_path() == tmp_path / "team" / "halluscope.db"
