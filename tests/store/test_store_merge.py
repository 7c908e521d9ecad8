"""The app's own exports read back: final labels and event logs through `import`, and `merge`.

A team member who worked on a store of their own hands over what the app let them download; the
receiving store must end with the same labels, each event once, and never an older value put back
over a newer one or a plain write over an adjudication.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import ALICE, BACKENDS, BOB, CAROL, backend_target, open_backend

from analysis.benchmarks import get
from analysis.cli.main import main
from analysis.cli.store_commands import known_items
from analysis.store import (
    ItemRef,
    Store,
    adjudicate,
    current_labels,
    events_frame,
    export_corrections,
    relabel,
    vote,
)
from analysis.store.export import write_frame
from analysis.store.final import final_labels

CMM_GOLD = Path(__file__).resolve().parents[2] / "samples" / "cmm" / "all_data_final_reorg.json"
FORMATS = ("csv", "jsonl", "parquet")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def source(tmp_path: Path) -> Iterator[Store]:
    """The store a reviewer worked on elsewhere (SQLite, as on a laptop)."""
    yield from open_backend("sqlite", tmp_path / "elsewhere")


def _items(n: int) -> list[ItemRef]:
    known = known_items(get("cmm"), [CMM_GOLD])
    return [ItemRef("cmm", key, task, gold) for key, (task, gold) in list(known.items())[:n]]


def _flip(gold: str | None) -> str:
    return "no" if (gold or "").lower().startswith("y") else "yes"


def _history(store: Store) -> list[ItemRef]:
    """Alice corrects two items, Bob votes against one of them, Carol settles it, Alice notes a third."""
    items = _items(3)
    relabel(store, items[0], "gold", _flip(items[0].gold), ALICE, "=the siren is heard, not seen")
    relabel(store, items[1], "gold", _flip(items[1].gold), ALICE, "no dog in the clip")
    vote(store, items[1], "gold", items[1].gold, BOB, "I see a dog at 0:03")
    adjudicate(store, items[1], "gold", _flip(items[1].gold), CAROL, "frame by frame: no dog")
    relabel(store, items[2], "note", "+1 audio clipped", ALICE)
    return items


def _labels(store: Store, scope: str = "final") -> list[tuple[str, str, str]]:
    frame = current_labels(store, "cmm", scope=scope)
    return sorted(zip(frame["item_id"], frame["field"], frame["value"].astype(str), strict=True))


def _db(backend: str, tmp_path: Path, name: str) -> list[str]:
    target, schema = backend_target(backend, tmp_path / name)
    if schema is None:
        return ["--db", target]
    pytest.skip("the CLI opens PostgreSQL by URL and its own schema: covered by the SQLite run")


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_event_log_the_app_wrote_imports_to_the_same_labels_once(
    source: Store, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(source)
    log = tmp_path / f"events-cmm.{fmt}"
    assert export_corrections(source, log, benchmark="cmm") == len(events_frame(source, "cmm"))
    db = ["--db", str(tmp_path / "team.db")]
    assert main(["import", "cmm", str(log), *db, "--reviewer", "dave"]) == 0
    assert "merged 5 new event(s) from 5 event(s)" in capsys.readouterr().out
    assert main(["merge", str(log), *db, "--reviewer", "dave"]) == 0  # again, through merge: nothing new
    assert "merged 0 new event(s)" in capsys.readouterr().out
    from analysis.store import open_store

    team = open_store(str(tmp_path / "team.db"))
    try:
        assert _labels(team) == _labels(source) and _labels(team, "vote") == _labels(source, "vote")
        merged = events_frame(team, "cmm")
        assert merged["reviewer"].tolist() == events_frame(source, "cmm")["reviewer"].tolist()
        assert merged["reason"].tolist()[0] == "=the siren is heard, not seen"  # formula-safe CSV undone
        assert set(merged["origin"]) == {f"merge by dave from {log.name}"}
    finally:
        team.close()


@pytest.mark.parametrize("fmt", FORMATS)
def test_final_labels_the_app_wrote_import_as_gold_corrections(
    source: Store, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _history(source)
    path = tmp_path / f"final-labels-cmm.{fmt}"
    write_frame(final_labels(source, "cmm"), path, fmt)  # type: ignore[arg-type]
    db = ["--db", str(tmp_path / "team.db")]
    args = ["import", "cmm", str(path), *db, "--reviewer", "dave", "--gold", str(CMM_GOLD)]
    assert main(args) == 0
    assert "imported 2 new event(s) from 2 row(s)" in capsys.readouterr().out
    assert main(args) == 0 and "imported 0 new event(s)" in capsys.readouterr().out
    from analysis.store import open_store

    team = open_store(str(tmp_path / "team.db"))
    try:
        golds = [(k, v) for k, f, v in _labels(team) if f == "gold"]
        assert golds == [(k, v) for k, f, v in _labels(source) if f == "gold"]
        reasons = dict(zip(events_frame(team)["item_key"], events_frame(team)["reason"], strict=True))
        assert reasons[items[1].item_id] == "frame by frame: no dog"  # the adjudication's reason
        assert set(events_frame(team)["reviewer"]) == {"dave"}
    finally:
        team.close()


def test_final_labels_of_another_benchmark_are_refused_naming_the_row(
    source: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(source)
    frame = final_labels(source, "cmm")
    frame.loc[0, "benchmark"] = "CMM"  # a spelling the registry takes: the same benchmark
    frame.loc[1, "benchmark"] = "avhbench"
    path = tmp_path / "final-labels.csv"
    write_frame(frame, path, "csv")
    db = tmp_path / "team.db"
    args = ["import", "cmm", str(path), "--db", str(db), "--reviewer", "dave", "--gold", str(CMM_GOLD)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "line 3" in err and "benchmark" in err and "avhbench" in err and len(err.splitlines()) == 1
    assert not db.exists()  # refused before the store was opened
    frame.loc[1, "benchmark"] = "no-such-bench"  # not a benchmark at all: the same one line
    write_frame(frame, path, "csv")
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "line 3" in err and "'no-such-bench' is not cmm" in err and len(err.splitlines()) == 1


def test_merging_an_older_event_over_a_newer_one_is_refused_and_writes_nothing(
    backend: str, source: Store, tmp_path: Path
) -> None:
    items = _items(2)
    relabel(source, items[0], "gold", _flip(items[0].gold), BOB, "bob's reading")
    relabel(source, items[1], "note", "bob was here", BOB)
    log = tmp_path / "events-bob.jsonl"
    export_corrections(source, log)
    time.sleep(0.01)
    for team in open_backend(backend, tmp_path / "team"):
        relabel(team, items[0], "gold", _flip(items[0].gold), ALICE, "alice found it after bob")
        before = len(events_frame(team))
        from analysis.errors import InputError
        from analysis.store.export import import_corrections

        with pytest.raises(InputError) as refused:
            import_corrections(team, log, ALICE)
        line = refused.value.line()
        assert "events-bob.jsonl" in line and "line 1" in line and "created_at" in line and "older" in line
        assert len(events_frame(team)) == before  # the note of line 2 was not written either
        assert _labels(team) == [(items[0].item_id, "gold", _flip(items[0].gold))]
        assert events_frame(team)["reason"].tolist() == ["alice found it after bob"]


def test_merging_a_plain_write_after_an_adjudication_is_refused(
    backend: str, source: Store, tmp_path: Path
) -> None:
    items = _items(1)
    for team in open_backend(backend, tmp_path / "team"):
        relabel(team, items[0], "gold", _flip(items[0].gold), ALICE, "alice")
        vote(team, items[0], "gold", items[0].gold, BOB, "bob disagrees")
        adjudicate(team, items[0], "gold", items[0].gold, CAROL, "carol settles it")
        time.sleep(0.01)
        relabel(source, items[0], "gold", _flip(items[0].gold), ALICE, "alice again, elsewhere")
        log = tmp_path / "events-later.csv"
        export_corrections(source, log)
        from analysis.errors import InputError
        from analysis.store.export import import_corrections

        with pytest.raises(InputError, match="settled by carol's adjudication") as refused:
            import_corrections(team, log, ALICE)
        assert "kind" in refused.value.line()
        assert _labels(team) == [(items[0].item_id, "gold", str(items[0].gold))]


def test_an_event_log_with_another_benchmark_is_refused_by_import_but_merged_by_merge(
    source: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    relabel(source, _items(1)[0], "note", "cmm note", ALICE)
    relabel(source, ItemRef("avhbench", "avh-0001", "", "Yes"), "note", "avh note", ALICE)
    log = tmp_path / "events-all.csv"
    export_corrections(source, log)
    db = ["--db", str(tmp_path / "team.db")]
    assert main(["import", "cmm", str(log), *db, "--reviewer", "dave"]) == 2
    err = capsys.readouterr().err
    assert "events-all.csv" in err and "benchmark" in err and "'avhbench' is not cmm" in err
    assert main(["merge", str(log), *db, "--reviewer", "dave"]) == 0
    assert "merged 2 new event(s) from 2 event(s)" in capsys.readouterr().out


def test_merge_refuses_a_file_that_is_not_an_event_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "corrections.csv"
    path.write_text("item_id,field,value,reason\nx,gold,yes,why\n", encoding="utf-8")
    assert main(["merge", str(path), "--db", str(tmp_path / "t.db"), "--reviewer", "dave"]) == 2
    assert "not an event log" in capsys.readouterr().err
