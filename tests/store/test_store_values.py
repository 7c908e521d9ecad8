"""Label values per benchmark and task, span offsets, and where the database may live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

from analysis.store import StoreError, assert_not_served, open_store
from analysis.store.db import default_db_path, resolve_url
from analysis.store.values import (
    InvalidLabel,
    gold_kind,
    normalize,
    spans_to_tagged,
    tagged_to_spans,
    untag,
)


@pytest.mark.parametrize(("bench", "task", "value", "expected"), [
    ("cmm", "", " Yes ", "yes"),
    ("avhbench", "Audio-driven Video Hallucination", "N", "no"),
    ("avhbench", "AV Captioning", "  A dog barks.  ", "A dog barks."),
    ("vidhalluc", "bqa", "TRUE", "yes"),
    ("vidhalluc", "mcq", "c, a, C", "AC"),
    ("vidhalluc", "tsh", "b a", "BA"),
    ("vidhalluc", "sth", "scene change: no", "Scene change: No"),
    ("vidhalluc", "sth", '{"Scene change": "Yes", "Locations": "from a to b."}',
     "Scene change: Yes, Locations: from a to b."),
    ("cdh-bench", "mc", "b", "B"),
    ("cdh-bench", "qa", "no", "no"),
])
def test_gold_values_are_canonical(bench: str, task: str, value: str, expected: str) -> None:
    assert normalize("gold", value, benchmark=bench, task=task) == expected


@pytest.mark.parametrize(("bench", "task", "value"), [
    ("cmm", "", "maybe"),
    ("vidhalluc", "mcq", "E"),
    ("vidhalluc", "tsh", "AA"),
    ("vidhalluc", "sth", "Scene change: Yes"),  # a change needs its locations
    ("cdh-bench", "mc", "AB"),
    ("avhbench", "AV Captioning", "   "),
])
def test_gold_values_that_do_not_fit_are_refused(bench: str, task: str, value: str) -> None:
    with pytest.raises(InvalidLabel):
        normalize("gold", value, benchmark=bench, task=task)


def test_a_cdh_qa_gold_that_is_not_yes_no_stays_text() -> None:
    assert gold_kind("cdh-bench", "qa", "6") == "text"
    assert normalize("gold", " 7 ", benchmark="cdh-bench", task="qa", original="6") == "7"


def test_dvb_gold_may_move_tags_but_not_change_the_caption() -> None:
    original = "A <Hallucination>red</Hallucination> car."
    moved = normalize("gold", "A red <hallucination>car</hallucination>.", benchmark="detailverifybench",
                      original=original)
    assert moved == "A red <HALLUCINATION>car</HALLUCINATION>."
    with pytest.raises(InvalidLabel, match="caption text differs"):
        normalize("gold", "A blue <HALLUCINATION>car</HALLUCINATION>.", benchmark="detailverifybench",
                  original=original)
    with pytest.raises(InvalidLabel, match="not closed"):
        normalize("gold", "A <HALLUCINATION>red car.", benchmark="detailverifybench", original=original)
    with pytest.raises(InvalidLabel, match="nested"):
        tagged_to_spans("<HALLUCINATION>a <HALLUCINATION>b</HALLUCINATION></HALLUCINATION>")
    spans = json.dumps({"spans": [[0, 1], [6, 9]]})
    assert normalize("gold", spans, benchmark="detailverifybench", original=original) == (
        "<HALLUCINATION>A</HALLUCINATION> red <HALLUCINATION>car</HALLUCINATION>.")
    with pytest.raises(InvalidLabel, match="outside"):
        normalize("gold", json.dumps({"spans": [[5, 99]]}), benchmark="detailverifybench", original=original)


@given(st.text(alphabet="ab <>/.", max_size=40), st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)),
                                                          max_size=5))
def test_spans_and_tags_round_trip(clean: str, raw_spans: list[tuple[int, int]]) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in raw_spans if min(a, b) < max(a, b) <= len(clean)]
    if "<" in clean:  # a caption that already looks like tags is not a clean caption
        return
    tagged = spans_to_tagged(clean, spans)
    assert untag(tagged) == clean
    found = tagged_to_spans(tagged)
    assert all(0 <= s < e <= len(clean) for s, e in found)
    covered = {i for s, e in spans for i in range(s, e)}
    assert {i for s, e in found for i in range(s, e)} == covered


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
