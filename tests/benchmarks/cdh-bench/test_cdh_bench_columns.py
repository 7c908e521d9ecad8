"""cdh-bench: the column-at-a-time loader writes exactly what the record-by-record definitions do.

The loader reads fields a column at a time and writes ``extra`` with Arrow (``cdh_bench.columns``);
these tests hold it to the plain definitions: ``json.dumps`` of each record's other fields,
``item_id`` and ``media_json`` of each record, and the first bad record named on bad input.
"""

from __future__ import annotations

import gc
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from cdh_bench_synth import record

from analysis.benchmarks import cdh_bench
from analysis.benchmarks.cdh_bench import read as cdh_read
from analysis.benchmarks.cdh_bench.columns import Columns, dumps_each
from analysis.errors import InputError
from analysis.table.columns import media_json

TRICKY: list[Any] = [
    "", "plain", 'a "quote"', "back\\slash", "line\nbreak\r\n", "tab\t", "\b\f", "\x00\x01\x1f", "\x7f",
    "\u2028\u2029", "ünï 不是的", "emoji 😀", "ſ", 0, -7, 2**63 - 1, -(2**63), 2**63, 2**70, 0.1, -0.0, 1e-7,
    1e20, 3.0, True, False, None, [], [1, "x\n", None], {}, {"k\"q": [{}]},
]  # fmt: skip


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def test_each_value_is_written_as_json_dumps_writes_it() -> None:
    values = TRICKY * 3  # repeats take the path that quotes each distinct string once
    assert dumps_each(values).to_pylist() == [_dumps(v) for v in values]
    strings = [v for v in TRICKY if isinstance(v, str)] * 4
    assert dumps_each(strings).to_pylist() == [_dumps(v) for v in strings]
    assert dumps_each([]).to_pylist() == []


def test_every_control_character_is_escaped_as_json_dumps_escapes_it() -> None:
    rng = random.Random(3)
    alphabet = [chr(c) for c in range(0x21)] + list('"\\aü😀\u2028')
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(6))) for _ in range(3000)]
    assert dumps_each(strings).to_pylist() == [_dumps(s) for s in strings]


def test_deeply_nested_objects_and_mixed_kinds() -> None:
    deep: Any = 1
    for depth in range(20):
        deep = {f"d{depth}": deep, "s": "x"}
    values = [deep, {"a": 1}, {"a": None}, {"b": 1, "a": 2}, None, "s", [deep]]
    assert dumps_each(values).to_pylist() == [_dumps(v) for v in values]


@pytest.mark.parametrize("shapes", [1, 3, 500])
def test_objects_without_some_keys(shapes: int) -> None:
    rng = random.Random(shapes)
    keys = ["pair_id", "run", "raw", "ü", "note", "pred"]
    objects = []
    for i in range(1000):
        chosen = keys[: 1 + i % 6] if shapes > 1 else keys
        if shapes == 500:  # key orders of their own: too many to group, written one by one
            chosen = rng.sample(keys, rng.randrange(len(keys) + 1))
        objects.append({k: rng.choice(TRICKY) for k in chosen})
    fields = Columns(objects)
    drop = {"pair_id", "pred"}
    assert fields.texts_without(drop).to_pylist() == [
        _dumps({k: v for k, v in o.items() if k not in drop}) for o in objects
    ]
    for key in [*keys, "absent"]:
        assert fields.get(key) == [o.get(key) for o in objects]
    assert Columns([]).texts_without(drop).to_pylist() == []


def test_item_ids_are_item_id_of_each_row() -> None:
    rows = [("Pair 1", "qa", "commonsense"), ("", "", ""), ("ü \x1f x", "mc", "counterfactual")]
    pairs, tasks, sides = (list(c) for c in zip(*rows, strict=True))
    assert cdh_read.item_ids(pairs, tasks, sides) == [cdh_read.item_id(*r) for r in rows]


def _hostile_records() -> list[dict[str, Any]]:
    rng = random.Random(11)
    out = []
    for i in range(400):
        rec = record(i, "qa" if i % 3 else "mc", "counterfactual" if i % 2 else "commonsense",
                     rng.choice(["Yes", "no.", "B", "", "A \"dog\"\n"]))  # fmt: skip
        if i % 7 == 0:
            rec.update(status=rng.choice(["error", "missing_image", None]), pair_id=None, task="other")
        if i % 5 == 0:
            rec.update(category=rng.choice(["", None]), image_path=rng.choice(["", None, "a\\b.png"]))
        if i % 11 == 0:
            rec.update(options=[rng.choice(["A. x", 'B. "y"', "ü"]) for _ in range(3)])
            rec.update(note=rng.choice(TRICKY))
        if i % 13 == 0:
            rec = dict(reversed(rec.items()))  # another key order
        if i % 17 == 0:
            rec.pop("raw")
            rec.pop("model_name")
        out.append(rec)
    return out


def test_load_matches_the_record_by_record_definitions(tmp_path: Path) -> None:
    records = _hostile_records()
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=bool(i % 2)) + "\n" for i, r in enumerate(records)),
                    encoding="utf-8")  # fmt: skip
    table = cdh_bench.load(path)
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]  # as read (2**70: a float)
    own = set(cdh_read._RESULT_COLUMNS)
    assert table["extra"].tolist() == [_dumps({k: v for k, v in r.items() if k not in own}) for r in records]
    assert table["item_id"].tolist() == [
        cdh_read.item_id(r.get("pair_id") or "", r.get("task") or "", r.get("side") or "") for r in records
    ]
    assert table["media"].tolist() == [
        media_json([("image", r["image_path"], r.get("side") or "")]) if r.get("image_path") else ""
        for r in records
    ]
    assert table["options"].tolist() == [
        json.dumps(r["options"], ensure_ascii=False) if r.get("options") else "" for r in records
    ]
    assert table["category"].tolist() == [r.get("category") or cdh_read.UNKNOWN for r in records]
    assert table["model"].tolist() == [r.get("model_name") or "results" for r in records]
    assert table["source"].tolist() == [f"results.jsonl:line {i + 1}" for i in range(len(records))]
    assert list(table["category"].cat.categories) == sorted(set(table["category"]))


def test_the_first_bad_record_is_named(tmp_path: Path) -> None:
    records = [record(i, "qa", "commonsense", "yes") for i in range(6)]
    records[2]["question"] = 3
    records[4]["question"] = ["x"]
    records[1]["gt"] = 5  # fields are checked one at a time, gt before question: its record is named
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: field 'gt'"):
        cdh_bench.load(path)
    records[1]["gt"] = "yes"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 3: field 'question': expected a string, got a number"):
        cdh_bench.load(path)


def test_the_collector_is_paused_only_while_loading(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(record(0, "qa", "commonsense", "yes")) + "\n", encoding="utf-8")
    cdh_bench.load(path)
    assert gc.isenabled()
    path.write_text('{"status": "ok", "task": 3}\n', encoding="utf-8")
    with pytest.raises(InputError):
        cdh_bench.load(path)
    assert gc.isenabled()  # resumed after a refused file too
    gc.disable()
    try:
        path.write_text(json.dumps(record(0, "qa", "commonsense", "yes")) + "\n", encoding="utf-8")
        cdh_bench.load(path)
        assert not gc.isenabled()  # a collector paused by the caller stays paused
    finally:
        gc.enable()
