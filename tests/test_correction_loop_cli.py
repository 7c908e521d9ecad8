"""The correction loop from the command line, for every benchmark and task of the bundled samples.

``items`` -> ``import`` (twice: the second adds nothing) -> ``score --corrected`` -> ``export
--format native`` -> ``score`` on the copies: the same numbers as ``--corrected``, and different
from the official ones (the corrections move the numbers).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corrections_support import copy_of, corrections, sample_runs, write_jsonl, wrong_first

from analysis.cli.main import main
from analysis.review.corrected import common_folder

RUNS = sample_runs()
EACH_RUN = pytest.mark.parametrize(
    ("name", "task", "pred", "gold", "golds"), RUNS, ids=[f"{n}-{t}" if t else n for n, t, *_ in RUNS]
)
"""One test per benchmark and task of the bundled samples."""


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_every_benchmark_and_task_is_covered() -> None:
    from analysis.benchmarks import REGISTRY

    expected = {(n, t) for n, b in REGISTRY.items() for t in (b.TASKS if b.TASK_REQUIRED else (None,))}
    assert {(n, t) for n, t, *_ in RUNS} == expected
    assert len(expected) >= len(REGISTRY)  # a run per benchmark, per task where a file holds one task


@EACH_RUN
def test_items_import_score_export_score(
    name: str,
    task: str | None,
    pred: Path,
    gold: Path | None,
    golds: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    opts = [*(["--gold", gold] if gold else []), *(["--task", task] if task else [])]
    items = [json.loads(line) for line in run(["items", name, pred, *opts, "--json"], capsys).splitlines()]
    assert items and {"item_id", "benchmark", "model", "task", "gold", "parsed", "correct", "scored"} <= set(
        items[0]
    )
    rows = corrections(items, wrong_first(items, 3))
    assert len(rows) == 3
    fixes = write_jsonl(tmp_path / "fixes.jsonl", rows)
    db = tmp_path / "labels.db"
    ids = golds or [pred]  # the ids are checked against the files they come from
    code = main([str(a) for a in ["import", name, fixes, "--db", db, "--reviewer", "alice", "--gold", *ids]])
    first, told = capsys.readouterr()
    assert code == 0 and "not checked against" not in told, told  # checked against the files: no warning
    again = run(["import", name, fixes, "--db", db, "--reviewer", "alice", "--gold", *ids], capsys)
    assert first.startswith("imported 3 new event(s)")
    assert again.startswith("imported 0 new event(s)")

    # items --db: the same objects, each ending with the gold that score --corrected uses
    listed = [
        json.loads(line)
        for line in run(["items", name, pred, *opts, "--db", db, "--json"], capsys).splitlines()
    ]
    assert [{k: v for k, v in r.items() if k != "corrected_gold"} for r in listed] == items
    assert all(list(r)[-1] == "corrected_gold" for r in listed)
    changed = [r for r in listed if r["corrected_gold"] != r["gold"]]
    assert {r["item_id"] for r in changed} == {r["item_id"] for r in rows}
    # printed in the form a correction takes: importing them back is the labels' current value
    back = write_jsonl(
        tmp_path / "back.jsonl",
        [
            {
                "item_id": r["item_id"],
                "field": "gold",
                "value": r["corrected_gold"],
                "reason": "same",
                "task": r["task"],
                "gold": r["gold"],
            }
            for r in changed
        ],
    )
    assert run(["import", name, back, "--db", db, "--reviewer", "alice", "--gold", *ids], capsys).startswith(
        "imported 0 new event(s)"
    )

    official = json.loads(run(["score", name, pred, *opts, "--json"], capsys))
    checked_score = run(["score", name, pred, *opts, "--db", db, "--corrected", "--json"], capsys)
    corrected = json.loads(checked_score)
    # the import as the contract writes it (no --gold): the ids are taken as given, and stderr says
    # so; the values are still checked, and the corrected score is the same to the last digit
    unchecked = tmp_path / "unchecked.db"
    code = main([str(a) for a in ["import", name, fixes, "--db", unchecked, "--reviewer", "alice"]])
    out, told = capsys.readouterr()
    assert code == 0 and out.startswith("imported 3 new event(s)") and "not checked against" in told, told
    assert (
        run(["score", name, pred, *opts, "--db", unchecked, "--corrected", "--json"], capsys) == checked_score
    )
    # what the corrections change, board by board: not part of a score, so not in the copies' score
    changes = corrected.pop("gold_changes")
    assert changes and all(len(c["models"]) == 1 for c in changes)  # one run: one model a board
    moved = [c for c in changes if c["models"][0]["corrected"] != c["models"][0]["official"]]
    assert moved and all(c["corrections"] for c in moved)
    assert corrected != official, "the corrections do not move the numbers"

    files = [pred, *golds]
    out = tmp_path / "native"
    run(["export", name, "--db", db, "--format", "native", "--out", out, "--gold", *files], capsys)
    base = common_folder(files)
    pred_copy = copy_of(pred, out, base)
    gold_copy = copy_of(gold, out, base) if gold else None
    rescored_pred = pred_copy if pred_copy.is_file() else pred  # a prediction file without gold stays
    copy_opts = [*(["--gold", gold_copy] if gold_copy else []), *(["--task", task] if task else [])]
    again_scored = json.loads(run(["score", name, rescored_pred, *copy_opts, "--json"], capsys))
    assert again_scored == corrected


def test_import_is_atomic_and_names_the_bad_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cmm")
    items = [json.loads(line) for line in run(["items", name, pred, "--json"], capsys).splitlines()]
    rows = corrections(items, wrong_first(items, 2))
    rows.append({"item_id": items[0]["item_id"], "field": "gold", "value": "maybe", "reason": "bad"})
    fixes = write_jsonl(tmp_path / "fixes.jsonl", rows)
    db = tmp_path / "labels.db"
    assert (
        main(["import", name, str(fixes), "--db", str(db), "--reviewer", "alice", "--gold", str(pred)]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "fixes.jsonl" in err and "line 3" in err and "value" in err
    assert not db.exists()  # every row is checked before the store is even opened: nothing written
    good = write_jsonl(tmp_path / "good.jsonl", rows[:-1])
    assert run(["import", name, good, "--db", db, "--reviewer", "alice", "--gold", pred], capsys).startswith(
        "imported 2 new"
    )
    assert (
        main(["import", name, str(fixes), "--db", str(db), "--reviewer", "alice", "--gold", str(pred)]) == 2
    )
    capsys.readouterr()
    out = tmp_path / "e.jsonl"
    run(["export", name, "--db", db, "--format", "jsonl", "--out", out], capsys)
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2  # the bad file added nothing


def test_items_with_a_database_that_does_not_exist_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cmm")
    missing = tmp_path / "nope.db"
    assert main(["items", name, str(pred), "--db", str(missing), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "nope.db" in err
    assert not missing.exists()


def test_corrected_needs_a_database(capsys: pytest.CaptureFixture[str]) -> None:
    name, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cmm")
    assert main(["score", name, str(pred), "--corrected", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--corrected and --db go together" in err


def _store_with_two_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    name, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cmm")
    items = [json.loads(line) for line in run(["items", name, pred, "--json"], capsys).splitlines()]
    fixes = write_jsonl(tmp_path / "fixes.jsonl", corrections(items, wrong_first(items, 2)))
    db = tmp_path / "labels.db"
    run(["import", name, fixes, "--db", db, "--reviewer", "alice", "--gold", pred], capsys)
    return db


def test_export_without_format_follows_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    db = _store_with_two_events(tmp_path, capsys)
    for name in ("e.jsonl", "e.csv", "e.parquet", "forced.jsonl"):
        fmt = ["--format", "csv"] if name == "forced.jsonl" else []
        assert run(["export", "cmm", "--db", db, "--out", tmp_path / name, *fmt], capsys).startswith(
            "wrote 2 event(s)"
        )
    rows = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2 and rows[0]["field"] == "gold"
    assert (tmp_path / "e.csv").read_text(encoding="utf-8").startswith("event_id,benchmark,item_id,")
    assert len(pd.read_parquet(tmp_path / "e.parquet")) == 2
    # an explicit --format wins over the extension
    assert (tmp_path / "forced.jsonl").read_text(encoding="utf-8").startswith("event_id,")


def test_export_to_an_unknown_extension_without_format_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store_with_two_events(tmp_path, capsys)
    for name in ("e.txt", "noext"):
        assert main(["export", "cmm", "--db", str(db), "--out", str(tmp_path / name)]) == 2
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert out == "" and len(lines) == 1, err
        assert name in lines[0] and "--format" in lines[0], lines[0]
        assert not (tmp_path / name).exists()


def test_export_of_another_benchmarks_file_says_whose_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said "line 1: field 'sub_category': missing", where items says whose file it is
    db = _store_with_two_events(tmp_path, capsys)
    other = Path(__file__).resolve().parents[1] / "samples" / "cdh-bench" / "predictions" / "balanced.jsonl"
    args = ["export", "cmm", "--db", str(db), "--format", "native", "--out", str(tmp_path / "out")]
    assert main([*args, "--gold", str(other)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "this looks like cdh-bench predictions, not cmm" in err
    assert not (tmp_path / "out").exists()


def test_export_refuses_a_file_score_refuses_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen in a review of the CLI: a results file with a record whose `correct` was a string was
    # exported (exit 0, "0 corrected gold value(s)", the bad value rewritten), where score says exit 2
    name, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cdh-bench")
    items = [json.loads(line) for line in run(["items", name, pred, "--json"], capsys).splitlines()]
    fixes = write_jsonl(tmp_path / "fixes.jsonl", corrections(items, wrong_first(items, 2)))
    db = tmp_path / "labels.db"
    run(["import", name, fixes, "--db", db, "--reviewer", "alice", "--gold", pred], capsys)
    lines = Path(pred).read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[3])
    lines[3] = json.dumps({**record, "correct": "yes"})
    bad = tmp_path / "runs" / "results.jsonl"
    bad.parent.mkdir()
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["export", name, "--db", str(db), "--format", "native", "--out", str(tmp_path / "out")]
    assert main([*args, "--gold", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert (
        out == ""
        and err.strip() == f"halluscope: {bad}: line 4: field 'correct': expected a boolean, got a string"
    )
    assert not (tmp_path / "out").exists()
    # the good file exports, and says the corrections it carries
    said = run([*args, "--gold", pred], capsys)
    assert said.startswith("wrote 1 file(s) with 2 corrected gold value(s)"), said


def test_native_export_into_an_existing_file_says_it_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said "cannot be read (File exists)": the file is where the copies would be written
    db = _store_with_two_events(tmp_path, capsys)
    target = tmp_path / "copies.jsonl"
    target.write_text("mine\n", encoding="utf-8")
    _, _task, pred, _gold, _ = next(r for r in RUNS if r[0] == "cmm")
    args = ["export", "cmm", "--db", str(db), "--format", "native", "--out", str(target), "--gold", str(pred)]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == (
        f"halluscope: error: --out {target}: is a file; --format native writes its copies into a folder"
    )
    assert target.read_text(encoding="utf-8") == "mine\n"
