"""Commands that only read labels work on a store the user may read but not write.

Seen at stop 41: ``score --corrected``, ``items --db``, ``suspects --db`` and ``export`` refused a
store on a read-only file system ("cannot be opened for writing"), though none of them writes to it.
They now open it read-only (:func:`analysis.store.connect.open_store` with ``read_only``); commands
that write (``import``, ``merge``) are still refused in one line, and a store whose schema is older
than this version's is refused in one line too (reading it would need a migration, a write).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corrections_support import corrections, sample_runs, write_jsonl, wrong_first
from fs_faults import frozen_later
from store_support import ALICE, BACKENDS, backend_target, cmm_item, drop_schema

from analysis.cli.main import main
from analysis.store import ReadOnlyStore, events_frame, open_store, relabel
from analysis.store.migrations import MIGRATIONS, migrate

NAME, _TASK, PRED, _GOLD, _ = next(r for r in sample_runs() if r[0] == "cmm")


def _run(args: list[object], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _labelled_store(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["items", NAME, PRED, "--json"], capsys)
    assert code == 0, err
    items = [json.loads(line) for line in out.splitlines()]
    fixes = write_jsonl(db.parent.parent / "fixes.jsonl", corrections(items, wrong_first(items, 2)))
    code, _, err = _run(["import", NAME, fixes, "--db", db, "--reviewer", "alice", "--gold", PRED], capsys)
    assert code == 0, err


def test_reading_commands_work_on_a_read_only_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with frozen_later(tmp_path / "ro") as freeze:
        db = tmp_path / "ro" / "labels.db"
        _labelled_store(db, capsys)
        score = ["score", NAME, PRED, "--db", db, "--corrected", "--json"]
        code, before, err = _run(score, capsys)
        assert code == 0 and "2 gold correction(s) applied" in err
        code, items_before, _ = _run(["items", NAME, PRED, "--db", db, "--json"], capsys)
        assert code == 0
        files = sorted(p.name for p in (tmp_path / "ro").iterdir())
        freeze()
        with pytest.raises(OSError):
            (tmp_path / "ro" / "probe").write_text("x")  # the folder really is read-only now

        code, after, err = _run(score, capsys)
        assert code == 0, err
        assert json.loads(after) == json.loads(before)  # the same corrected numbers
        assert "2 gold correction(s) applied" in err
        code, items_after, err = _run(["items", NAME, PRED, "--db", db, "--json"], capsys)
        assert code == 0, err
        assert items_after == items_before
        runs = sorted(PRED.parent.glob("*.jsonl"))
        code, out, err = _run(["suspects", NAME, *runs, "--db", db, "--json"], capsys)
        assert code == 0, err
        assert out.strip()
        code, out, err = _run(["export", NAME, "--db", db, "--out", tmp_path / "events.jsonl"], capsys)
        assert code == 0, err
        assert out.startswith("wrote 2 event(s)")
        assert len((tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()) == 2

        # a command that writes is refused, in one line naming the store
        fixes = tmp_path / "fixes.jsonl"
        code, out, err = _run(
            ["import", NAME, fixes, "--db", db, "--reviewer", "bob", "--gold", PRED], capsys
        )
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and str(db) in err
        assert sorted(p.name for p in (tmp_path / "ro").iterdir()) == files  # nothing written beside it


def test_a_read_only_store_of_an_older_schema_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with frozen_later(tmp_path / "ro") as freeze:
        db = tmp_path / "ro" / "labels.db"
        store = open_store(db, migrate=False)
        migrate(store, upto=MIGRATIONS[-2].name)
        store.close()
        freeze()
        with pytest.raises(ReadOnlyStore, match="older version") as caught:
            open_store(db, read_only=True)
        assert MIGRATIONS[-1].name in str(caught.value) and "\n" not in str(caught.value)
        code, out, err = _run(["score", NAME, PRED, "--db", db, "--corrected", "--json"], capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and "older version" in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_read_only_open_reads_what_a_writer_just_wrote(backend: str, tmp_path: Path) -> None:
    """SQLite: a server writing meanwhile keeps recent events in the write-ahead log; they are read too."""
    target, schema = backend_target(backend, tmp_path)
    writer = open_store(target, schema=schema)
    try:
        relabel(writer, cmm_item(1), "gold", "no", ALICE, reason="the audio has no dog")
        if backend == "sqlite":
            assert Path(f"{target}-wal").stat().st_size > 0  # in the log, not yet in the file
        reader = open_store(target, schema=schema, read_only=True)
        try:
            assert list(events_frame(reader, "cmm")["new_value"]) == ["no"]
        finally:
            reader.close()
    finally:
        writer.close()
        if schema is not None:
            drop_schema(target, schema)


def test_a_missing_store_is_not_created_by_a_read_only_open(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such label store"):
        open_store(tmp_path / "none.db", read_only=True)
    assert not (tmp_path / "none.db").exists()
