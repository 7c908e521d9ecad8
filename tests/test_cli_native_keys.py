"""``halluscope items`` prints each record's native key fields, and they find the record in its file.

Each case reads a bundled native file with the standard library, takes the key of every record
as the benchmark's own files spell it, and compares it with the keys ``items`` printed for that
file: the same set, so a script can join ``items`` back to the file it came from.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from analysis import benchmarks
from analysis.cli.items import FIELDS, item_lines, load_files
from analysis.table.columns import media_json, media_paths, media_refs

SAMPLES = Path(__file__).resolve().parents[1] / "samples"

Key = tuple[Any, ...]


def _records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    return data if isinstance(data, list) else [data]


def _path_or_none(value: Any) -> Any:
    return None if value in (None, "None", "") else value


def avh_keys(path: Path) -> set[Key]:
    return {(r["video_id"], r["text"]) for r in _records(path)}


def cmm_keys(path: Path) -> set[Key]:
    paths = [(_path_or_none(r["video_path"]), _path_or_none(r["audio_path"])) for r in _records(path)]
    return {(*p, r["question"]) for p, r in zip(paths, _records(path), strict=True)}


def cdh_keys(path: Path) -> set[Key]:
    return {(r["pair_id"], r["task"], r["side"]) for r in _records(path)}


def dvb_ids(path: Path) -> set[Key]:
    return {(r["id"],) for r in _records(path)}


def dvb_filenames(path: Path) -> set[Key]:
    return {(r["filename"],) for r in _records(path)}


def bqa_keys(path: Path) -> set[Key]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(group, q["q"], clip) for group, questions in data.items() for q in questions for clip in q["a"]}


def mcq_keys(path: Path) -> set[Key]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(group, clip) for group, clips in data.items() for clip in clips}


def tsh_keys(path: Path) -> set[Key]:
    return {(entry["video"],) for entry in json.loads(path.read_text(encoding="utf-8")).values()}


def sth_keys(path: Path) -> set[Key]:
    return {(video,) for video in json.loads(path.read_text(encoding="utf-8"))}


CASES: list[tuple[str, str, str | None, str | None, tuple[str, ...], Callable[[Path], set[Key]]]] = [
    # (benchmark, file, gold, task, the key fields printed, the file's own keys)
    ("avhbench", "avhbench/predictions/balanced.json", None, None, ("video_id", "text"), avh_keys),
    ("cmm", "cmm/predictions/balanced.jsonl", None, None, ("video_path", "audio_path", "question"), cmm_keys),
    ("cdh-bench", "cdh-bench/predictions/balanced.jsonl", None, None, ("pair_id", "task", "side"), cdh_keys),
    ("detailverifybench", "detailverifybench/predictions/balanced.json", None, None, ("id",), dvb_ids),
    ("detailverifybench", "detailverifybench/real_test.jsonl", None, None, ("filename",), dvb_filenames),
    (
        "vidhalluc",
        "vidhalluc/predictions/bqa/balanced.json",
        "vidhalluc/ach_binaryqa.json",
        "bqa",
        ("group", "q", "clip_id"),
        bqa_keys,
    ),
    ("vidhalluc", "vidhalluc/predictions/mcq/balanced.json", None, "mcq", ("group", "clip_id"), mcq_keys),
    ("vidhalluc", "vidhalluc/predictions/tsh/balanced.json", None, "tsh", ("video",), tsh_keys),
    (
        "vidhalluc",
        "vidhalluc/predictions/sth/balanced.json",
        "vidhalluc/sth.json",
        "sth",
        ("video_id",),
        sth_keys,
    ),
    ("vidhalluc", "vidhalluc/ach_mcq.json", None, None, ("group", "clip_id"), mcq_keys),
]


@pytest.mark.parametrize(
    ("bench_id", "name", "gold", "task", "fields", "own"), CASES, ids=[c[1] for c in CASES]
)
def test_items_print_the_key_of_each_record_as_its_file_writes_it(
    bench_id: str,
    name: str,
    gold: str | None,
    task: str | None,
    fields: tuple[str, ...],
    own: Callable[[Path], set[Key]],
) -> None:
    bench = benchmarks.get(bench_id)
    path = SAMPLES / name
    table = load_files(bench, [path], gold=SAMPLES / gold if gold else None, task=task)
    printed = [json.loads(line) for line in item_lines(bench, table)]
    assert printed
    assert all(list(obj)[: len(FIELDS)] == list(FIELDS) for obj in printed)  # the contract's keys first
    assert {tuple(obj[f] for f in fields) for obj in printed} == own(path)


def test_native_keys_match_the_columns_of_the_same_name_row_for_row() -> None:
    # A native key named like an item-table column (CDH-Bench's pair_id, CMM's question) must
    # say the same: items prints the column once, so a differing key would be lost.
    for bench_id, name, gold, task, _, _ in CASES:
        bench = benchmarks.get(bench_id)
        table = load_files(bench, [SAMPLES / name], gold=SAMPLES / gold if gold else None, task=task)
        keys = bench.native_keys(table)
        assert len(keys) == len(table)
        for key, (_, row) in zip(keys, table.iterrows(), strict=True):
            for field in set(key) & set(table.columns):
                assert key[field] == str(row[field]), (name, field)


def test_media_paths_reads_back_what_media_json_writes() -> None:
    text = media_json([("video", "a/b.mp4", "silent video"), ("audio", 'c "d".wav', "audio track")])
    assert media_paths(text) == {"video": "a/b.mp4", "audio": 'c "d".wav'}
    assert media_paths("") == {} and media_paths(None) == {}
    # the first path of a kind is the one kept (a second video is a side view, not the key)
    assert media_paths(media_json([("video", "1.mp4", "x"), ("video", "2.mp4", "y")])) == {"video": "1.mp4"}
    # the one reader of media texts (the inspector's and the pairs' too): every reference in order,
    # nothing from a text that is not a list of references
    assert media_refs(text) == [("video", "a/b.mp4", "silent video"), ("audio", 'c "d".wav', "audio track")]
    assert (
        media_refs("not json") == []
        and media_refs('{"path": "x"}') == []
        and media_refs('[{"kind": "x"}]') == []
    )
