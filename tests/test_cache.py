"""The content-keyed item-table cache (``load_cached``): same table back, changed bytes miss."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analysis.benchmarks import get
from analysis.load.cache import FORMAT, load_cached, read_frame, write_frame

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "cmm" / "predictions"


def test_reopen_gives_the_loaded_table(tmp_path: Path) -> None:
    cmm = get("cmm")
    path = sorted(SAMPLES.glob("*.jsonl"))[0]
    fresh = cmm.load(path)
    first = load_cached(cmm, path, cache_dir=tmp_path)
    again = load_cached(cmm, path, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("cmm-*.arrow"))) == 1
    for table in (first, again):
        pd.testing.assert_frame_equal(table, fresh)
    assert cmm.score(again) == cmm.score(fresh)


def test_changed_bytes_and_torn_entries_are_rebuilt(tmp_path: Path) -> None:
    cmm = get("cmm")
    rows = [json.loads(line) for line in sorted(SAMPLES.glob("*.jsonl"))[0].read_text().splitlines()]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    cache = tmp_path / "cache"
    load_cached(cmm, path, cache_dir=cache)
    (entry,) = cache.glob("*.arrow")
    entry.write_bytes(entry.read_bytes()[:64])
    assert read_frame(entry) is None
    pd.testing.assert_frame_equal(load_cached(cmm, path, cache_dir=cache), cmm.load(path))
    rows[0]["pred"] = "definitely not" if rows[0]["pred"] != "definitely not" else "yes"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    pd.testing.assert_frame_equal(load_cached(cmm, path, cache_dir=cache), cmm.load(path))
    assert len(list(cache.glob("*.arrow"))) == 2


def test_an_entry_of_another_format_is_not_trusted(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": pd.array(["x", None], dtype="string")})
    entry = tmp_path / "e.arrow"
    assert write_frame(entry, frame, {"note": 1})
    back = read_frame(entry)
    assert back is not None and back[1] == {"format": FORMAT, "note": 1}
    pd.testing.assert_frame_equal(back[0], frame)
    assert write_frame(entry, frame, {"format": "table-1"})  # as an older halluscope would have
    assert read_frame(entry) is None
