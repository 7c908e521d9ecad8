"""Finding 11 of issue 19: the command line under hostile input keeps its contract.

Each case failed before: a FIFO as input hung ``score``, ``items`` and ``audit`` forever; ``import``
wrote events for ids of no file (or of another benchmark), read a CSV cut inside a quote as one
long cell, recorded a gold change without a reason and with no old value; ``export --db`` on an
empty file made it a store; an error in a JSON list counted records from 0; a UTF-8 byte order mark
was read by ``score cmm`` but refused by ``items cmm`` and ``score avhbench``. Every case: exit 2,
one line on stderr naming the file (and the row and field where there is one), nothing written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CMM_PRED = SAMPLES / "cmm" / "predictions" / "yes-biased.jsonl"
AVH_GOLD = SAMPLES / "avhbench" / "QA.json"
AVH_PRED = SAMPLES / "avhbench" / "predictions" / "balanced.json"
BOM = b"\xef\xbb\xbf"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "command",
    [
        ["score", "cmm", "{fifo}", "--json"],
        ["items", "cmm", "{fifo}", "--json"],
        ["audit", "cmm", "{fifo}"],
        ["score", "avhbench", "{fifo}", "--gold", str(AVH_GOLD)],
        # the label store's readers: they hung (a first read before any check)
        ["import", "cmm", "{fifo}", "--db", "{dir}/a.db", "--reviewer", "x", "--gold", str(CMM_PRED)],
        ["merge", "{fifo}", "--db", "{dir}/m.db", "--reviewer", "x"],
    ],
    ids=["score", "items", "audit", "score-gold", "import", "merge"],
)
def test_a_pipe_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "preds.jsonl"
    os.mkfifo(fifo)
    args = [a.replace("{fifo}", str(fifo)).replace("{dir}", str(tmp_path)) for a in command]
    # a subprocess: the hang this guards against would otherwise stop the whole suite
    done = subprocess.run(
        [sys.executable, "-m", "analysis.cli", *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert str(fifo) in one_line(done.stderr) and "not a regular file" in done.stderr


def test_a_byte_order_mark_is_read_past_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmm = tmp_path / CMM_PRED.name  # items names the model and the source after the file
    cmm.write_bytes(BOM + CMM_PRED.read_bytes())
    avh_gold, avh_pred = tmp_path / "QA.json", tmp_path / "pred.json"
    avh_gold.write_bytes(BOM + AVH_GOLD.read_bytes())
    avh_pred.write_bytes(BOM + AVH_PRED.read_bytes())
    cases = [
        (["score", "cmm", cmm, "--json"], ["score", "cmm", CMM_PRED, "--json"]),
        (["items", "cmm", cmm, "--json"], ["items", "cmm", CMM_PRED, "--json"]),
        (
            ["score", "avhbench", avh_pred, "--gold", avh_gold, "--json"],
            ["score", "avhbench", AVH_PRED, "--gold", AVH_GOLD, "--json"],
        ),
        (["audit", "avhbench", avh_gold, "--json"], ["audit", "avhbench", AVH_GOLD, "--json"]),
    ]
    for marked, plain in cases:
        code, out, err = run(marked, capsys)
        assert code == 0, err
        code, expected, err = run(plain, capsys)
        assert code == 0, err
        if marked[0] == "audit":  # findings name the file
            out = out.replace(str(avh_gold), str(AVH_GOLD))
        assert out == expected, marked


def test_json_list_errors_count_records_from_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = json.loads(AVH_PRED.read_text(encoding="utf-8"))
    text = json.dumps(rows[:2])
    # the first record (record 1) says "label" twice
    path = tmp_path / "preds.json"
    path.write_text("[" + json.dumps(rows[0])[:-1] + ', "label": "No"},' + text[1:], encoding="utf-8")
    code, _, err = run(["score", "avhbench", path, "--gold", AVH_GOLD], capsys)
    assert code == 2 and f"{path}: record 1: field 'label'" in one_line(err)


def items_of(capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    code, out, err = run(["items", "cmm", CMM_PRED, "--json"], capsys)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def flip(gold: str) -> str:
    return "no" if gold.lower() == "yes" else "yes"


def write_jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def importing(fixes: Path, db: Path, *more: object) -> list[object]:
    return ["import", "cmm", fixes, "--db", db, "--reviewer", "alice", *more]


def test_import_checks_every_id_against_the_given_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = items_of(capsys)
    good = {"item_id": items[0]["item_id"], "field": "gold", "value": flip(items[0]["gold"]), "reason": "r"}
    db = tmp_path / "labels.db"
    code, avh, _ = run(["items", "avhbench", AVH_PRED, "--gold", AVH_GOLD, "--json"], capsys)
    avh_id = json.loads(avh.splitlines()[0])["item_id"]
    for stranger, why in (("0123456789abcdef", "an id of no file"), (avh_id, "an AVHBench item")):
        fixes = write_jsonl(tmp_path / "fixes.jsonl", [good, {**good, "item_id": stranger}])
        code, out, err = run(importing(fixes, db, "--gold", CMM_PRED), capsys)
        assert (code, out) == (2, ""), why
        assert f"{fixes}: line 2: field 'item_id': '{stranger}' is not an item" in one_line(err)
        assert not db.exists(), why  # every row is checked before the store opens
    # without the files (the contract's synopsis) the ids are taken as given, and the user is told
    # so; a value that fits no kind of the benchmark's gold is still refused before anything is written
    bad = write_jsonl(tmp_path / "bad.jsonl", [good, {**good, "value": "maybe"}])
    code, _, err = run(importing(bad, db), capsys)
    assert code == 2 and f"{bad}: line 2: field 'value'" in one_line(err) and not db.exists()
    fixes = write_jsonl(tmp_path / "fixes.jsonl", [good])
    code, out, err = run(importing(fixes, tmp_path / "unchecked.db"), capsys)
    assert code == 0 and out.startswith("imported 1 new event(s)")
    assert "not checked against cmm's files" in one_line(err) and "--gold" in one_line(err)
    # a prediction file that is read only beside its gold cannot vouch for ids either
    code, _, err = run(
        [
            "import",
            "vidhalluc",
            fixes,
            "--db",
            db,
            "--reviewer",
            "a",
            "--gold",
            SAMPLES / "vidhalluc" / "predictions" / "sth" / "yes-biased.json",
        ],
        capsys,
    )
    assert code == 2 and "no gold of its own" in one_line(err) and not db.exists()


def test_import_without_files_refuses_a_value_only_the_items_task_could_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``BA`` is the set ``AB`` to VidHalluc's multiple choice and the order ``BA`` to its TSH."""
    db = tmp_path / "labels.db"
    row = {"item_id": "clip-7", "field": "gold", "value": "BA", "reason": "r"}
    code, out, err = run(
        ["import", "vidhalluc", write_jsonl(tmp_path / "f.jsonl", [row]), "--db", db, "--reviewer", "a"],
        capsys,
    )
    assert (code, out) == (2, "") and "give --gold" in one_line(err) and "mcq reads it as 'AB'" in err
    assert not db.exists()
    # an id that names its task (as VidHalluc's own ids do) is read by that task alone
    row = {**row, "item_id": "tsh-0123456789abcdef"}
    code, out, err = run(
        ["import", "vidhalluc", write_jsonl(tmp_path / "g.jsonl", [row]), "--db", db, "--reviewer", "a"],
        capsys,
    )
    assert code == 0 and out.startswith("imported 1 new event(s)"), err


def test_import_records_the_gold_it_replaces_and_needs_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = items_of(capsys)
    item = items[0]
    row = {"item_id": item["item_id"], "field": "gold", "value": flip(item["gold"]), "reason": " "}
    db = tmp_path / "labels.db"
    fixes = write_jsonl(tmp_path / "fixes.jsonl", [row])
    code, _, err = run(importing(fixes, db, "--gold", CMM_PRED), capsys)
    assert code == 2 and "line 1: field 'reason': a gold correction needs a reason" in one_line(err)
    assert not db.exists()
    fixes = write_jsonl(tmp_path / "fixes.jsonl", [{**row, "reason": "the clip has no rain"}])
    code, out, err = run(importing(fixes, db, "--gold", CMM_PRED), capsys)
    assert code == 0 and out.startswith("imported 1 new event(s)"), err
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT old_value, new_value, reason FROM label_events").fetchall()
    assert stored == [(item["gold"].lower(), flip(item["gold"]), "the clip has no rain")]
    # a note needs no reason
    note = write_jsonl(tmp_path / "note.jsonl", [{"item_id": item["item_id"], "field": "note", "value": "x"}])
    code, out, err = run(importing(note, db, "--gold", CMM_PRED), capsys)
    assert code == 0 and out.startswith("imported 1 new event(s)"), err


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ('item_id,field,value,reason\r\n{id},gold,{v},"cut off\r\n', 2, "a file cut inside a quoted cell"),
        ('item_id,field,value,reason\r\n{id},gold,{v},a"b"c,\r\n', 2, "a row with a cell too many"),
        ("item_id,field,value,reason\r\n{id},gold,{v},ok\r\n{id},gold\r\n", 3, "a row cut short"),
    ],
    ids=["cut-quote", "extra-cell", "short-row"],
)
def test_import_refuses_a_broken_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, why: str
) -> None:
    item = items_of(capsys)[0]
    fixes = tmp_path / "fixes.csv"
    fixes.write_bytes(text.format(id=item["item_id"], v=flip(item["gold"])).encode())
    db = tmp_path / "labels.db"
    code, _, err = run(importing(fixes, db, "--gold", CMM_PRED), capsys)
    assert code == 2, why
    assert f"{fixes}: line {line}:" in one_line(err), why
    assert not db.exists(), why


def test_export_refuses_an_empty_or_foreign_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    out = tmp_path / "events.jsonl"
    for db, said in (
        (empty, "is empty, not a label store"),
        (foreign, "holds tables of another program (users)"),
    ):
        before = db.read_bytes()
        code, _, err = run(["export", "cmm", "--db", db, "--format", "jsonl", "--out", out], capsys)
        assert code == 2 and str(db) in one_line(err) and said in err
        assert db.read_bytes() == before and not out.exists()
    # import opens (and would create) a store: a foreign database is refused there too, untouched
    item = items_of(capsys)[0]
    fixes = write_jsonl(
        tmp_path / "fixes.jsonl",
        [{"item_id": item["item_id"], "field": "gold", "value": flip(item["gold"]), "reason": "r"}],
    )
    code, _, err = run(importing(fixes, foreign, "--gold", CMM_PRED), capsys)
    assert code == 2 and "holds tables of another program" in one_line(err)
    # without --gold too: the warning that ids go unchecked comes only after an import (it came
    # first, so exit 2 printed two lines)
    code, _, err = run(importing(fixes, foreign), capsys)
    assert code == 2 and "holds tables of another program" in one_line(err)
    with sqlite3.connect(foreign) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"users"}


@pytest.mark.parametrize(
    "command",
    [["score", "cmm"], ["score", "avhbench"], ["items", "cmm"], ["suspects", "cmm"], ["score", "cdh-bench"]],
    ids=["score-cmm", "score-avhbench", "items", "suspects", "score-cdh"],
)
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_file_saved_as_utf_16_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], encoding: str
) -> None:
    # It was read as a table: "a table without a 'prediction' column (header: ...)" with the
    # header's NUL bytes printed to the terminal.
    wide = tmp_path / "preds.jsonl"
    wide.write_text(CMM_PRED.read_text(encoding="utf-8"), encoding=encoding)
    code, out, err = run([*command, wide, "--json"], capsys)
    assert (code, out) == (2, "")
    assert "not valid UTF-8" in one_line(err) or "is not UTF-8 text" in err, err
    assert "\x00" not in err and "table" not in err


DEAD_SERVER = "postgresql://halluscope@127.0.0.1:9/halluscope"
"""A PostgreSQL URL nothing listens on: a stopped server, as the commands see it."""


@pytest.mark.parametrize(
    "command",
    [
        ["audit", "cmm", str(SAMPLES / "cmm" / "all_data_final_reorg.json")],
        ["score", "cmm", str(CMM_PRED), "--corrected"],
        ["items", "cmm", str(CMM_PRED), "--json"],
        ["slices", "cmm", str(CMM_PRED)],
        ["suspects", "cmm", *(str(p) for p in sorted((SAMPLES / "cmm" / "predictions").iterdir()))],
        ["import", "cmm", "{tmp}/fix.jsonl", "--reviewer", "alice"],
        ["export", "cmm", "--out", "{tmp}/labels.csv"],
    ],
    ids=lambda c: c[0],
)
def test_a_store_server_that_cannot_be_reached_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen in a review: every command that reads the store said "internal error: OperationalError"
    # with SQLAlchemy's text and a link (exit 1); the schema check connected outside read_tx
    row = {"item_id": "b94177c4cec57ba3", "field": "gold", "value": "no", "reason": "heard it"}
    (tmp_path / "fix.jsonl").write_text(json.dumps(row) + "\n")
    assert main([*(c.replace("{tmp}", str(tmp_path)) for c in command), "--db", DEAD_SERVER]) == 2
    err = capsys.readouterr().err.strip()
    assert "the label store cannot be read" in err and "127.0.0.1:9" in err
    assert len(err.splitlines()) == 1 and "internal error" not in err and "sqlalche.me" not in err
