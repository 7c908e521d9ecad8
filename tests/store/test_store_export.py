"""Corrections out and in (CSV, JSONL, Parquet), formula-safe CSV, idempotent imports, the CLI."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from store_support import ALICE, BACKENDS, BOB, cmm_item, open_backend

from analysis.cli.main import main
from analysis.errors import InputError
from analysis.files.csv_cells import csv_safe, csv_unsafe
from analysis.store import (
    Store,
    current_labels,
    events_frame,
    export_corrections,
    import_corrections,
    relabel,
    replay,
    undo,
)
from analysis.store.export import EXPORT_COLUMNS


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from open_backend(request.param, tmp_path)


@pytest.fixture
def other(tmp_path: Path) -> Iterator[Store]:
    yield from open_backend("sqlite", tmp_path / "other")


def _history(store: Store) -> None:
    relabel(store, cmm_item(1), "gold", "no", ALICE, '=HYPERLINK("http://x")')
    relabel(store, cmm_item(1), "note", "+1 blurry, -2 dark, @here", BOB, "-1 for this gold")
    relabel(store, cmm_item(2, gold="no"), "gold", "yes", BOB, "it's there")
    undo(store, cmm_item(2, gold="no"), "gold", ALICE, "'quoted' reason")
    relabel(store, cmm_item(3), "flag", ["ambiguous"], ALICE, "two readings")


def test_csv_cells_that_start_a_formula_are_neutralised(store: Store, tmp_path: Path) -> None:
    _history(store)
    path = tmp_path / "corrections.csv"
    assert export_corrections(store, path, benchmark="cmm") == 5
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == EXPORT_COLUMNS
    cells = [cell for row in rows[1:] for cell in row]
    assert '\'=HYPERLINK("http://x")' in cells and "'+1 blurry, -2 dark, @here" in cells
    assert "'-1 for this gold" in cells and "''quoted' reason" in cells
    assert csv_safe("\tcmd") == "'\tcmd" and csv_safe("\r=1") == "'\r'=1"
    assert csv_safe("@SUM(A1)") == "'@SUM(A1)" and csv_safe("plain") == "plain"
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)


@given(st.text(max_size=30))
def test_csv_safe_round_trips_any_text(text: str) -> None:
    cell = csv_safe(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert csv_unsafe(cell) == (text or None)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_then_import_rebuilds_the_same_labels_and_twice_is_once(
    store: Store, other: Store, tmp_path: Path, fmt: str
) -> None:
    _history(store)
    path = tmp_path / f"corrections.{fmt}"
    export_corrections(store, path)
    assert import_corrections(other, path, BOB) == 5
    assert import_corrections(other, path, BOB) == 0  # importing twice = once
    assert len(events_frame(other)) == 5
    assert replay(events_frame(other)) == replay(events_frame(store))
    mine, theirs = current_labels(store, "cmm"), current_labels(other, "cmm")
    assert mine.values.tolist() == theirs.values.tolist()
    imported = events_frame(other)
    assert set(imported["reviewer"]) == {"alice", "bob"}  # authors are kept
    assert imported["origin"].str.startswith("import by bob from corrections.").all()
    same = [c for c in EXPORT_COLUMNS if c not in ("origin", "item_id")]
    assert imported[same].values.tolist() == events_frame(store)[same].values.tolist()


def test_an_import_overlapping_local_events_adds_only_the_new_ones(store: Store, tmp_path: Path) -> None:
    _history(store)
    path = tmp_path / "c.jsonl"
    export_corrections(store, path)
    assert import_corrections(store, path, ALICE) == 0
    rows = path.read_text().splitlines()
    extra = json.loads(rows[0]) | {
        "event_id": "f" * 32,
        "created_at": "2030-01-01T00:00:00Z",
        "new_value": "yes",
        "old_value": "no",
    }
    path.write_text("\n".join([*rows, json.dumps(extra)]) + "\n")
    assert import_corrections(store, path, ALICE) == 1
    assert len(events_frame(store)) == 6


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"event_id": "x"}\n', "missing"),
        (
            '{"event_id": "abcdefgh12", "benchmark": "cmm", "item_id": "i", "field": "colour", '
            '"reviewer": "a", "created_at": "2025-01-01T00:00:00Z"}\n',
            "'colour' is not one of",
        ),
        (
            '{"event_id": "abcdefgh12", "benchmark": "cmm", "item_id": "i", "field": "gold", "reviewer": "a",'
            ' "created_at": "yesterday"}\n',
            "not an ISO 8601 time",
        ),
        ('{"event_id": ', "invalid JSON"),
    ],
)
def test_a_bad_corrections_file_names_the_row_and_field(
    store: Store, tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=problem) as info:
        import_corrections(store, path, ALICE)
    assert "bad.jsonl" in str(info.value) and "line 1" in str(info.value)
    assert events_frame(store).empty


def test_cli_export_formats_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gen = open_backend("sqlite", tmp_path)
    store = next(gen)
    _history(store)
    db = str(store.path)
    for fmt in ("csv", "jsonl", "parquet"):
        out = tmp_path / f"out.{fmt}"
        assert main(["export", "cmm", "--db", db, "--format", fmt, "--out", str(out)]) == 0
        assert out.is_file()
    assert "wrote 5 event(s)" in capsys.readouterr().out
    missing = str(tmp_path / "missing.db")
    assert main(["export", "cmm", "--db", missing, "--out", str(tmp_path / "x.csv")]) == 2
    assert "no such database file" in capsys.readouterr().err
    assert main(["export", "cmm", "--db", db, "--format", "native", "--out", str(tmp_path / "n")]) == 2
    assert "--gold" in capsys.readouterr().err
    assert main(["export", "cnm", "--db", db, "--out", str(tmp_path / "x.csv")]) == 2
    assert "did you mean 'cmm'" in capsys.readouterr().err
    gen.close()


def test_cli_native_export_writes_files_the_scorer_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from analysis.benchmarks import cmm

    rows = [
        {
            "category": "c",
            "sub_category": "visual-language",
            "modality": "visual",
            "granularity": "event-level",
            "correlation_type": "x",
            "video_path": f"./raw_files/{i}.mp4",
            "audio_path": None,
            "question": f"Q{i}?",
            "answer": "yes",
            "pred": "no",
        }
        for i in range(3)
    ]
    source = tmp_path / "final_output.json"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    gen = open_backend("sqlite", tmp_path)
    store = next(gen)
    relabel(store, cmm.load(source).iloc[1], "gold", "no", ALICE, "not in the clip")
    gen.close()
    out = tmp_path / "corrected"
    args = [
        "export",
        "cmm",
        "--db",
        str(store.path),
        "--format",
        "native",
        "--gold",
        str(source),
        "--out",
        str(out),
    ]
    assert main(args) == 0
    assert "1 corrected gold value" in capsys.readouterr().out
    assert main(["score", "cmm", str(out / "final_output.json"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["accuracy"] == 1 / 3  # the corrected row is right
