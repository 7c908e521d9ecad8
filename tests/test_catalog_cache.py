"""The app's content-keyed table cache: a restart gives the same catalog, a changed file misses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.load import catalog_cache
from analysis.load.catalog import load_manifest, load_paths, start_loading

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "manifest.json"


def _rows(n: int, pred: str) -> str:
    rows = [
        {
            "category": "c",
            "sub_category": "visual-language",
            "modality": "visual",
            "granularity": "object-level",
            "correlation_type": "g",
            "video_path": f"./raw_files/{i}.mp4",
            "audio_path": None,
            "question": f"Did you see {i}?",
            "answer": "yes" if i % 2 else "no",
            "pred": pred,
        }
        for i in range(n)
    ]
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def test_restart_from_cache_equals_a_fresh_load(tmp_path: Path) -> None:
    messages: list[str] = []
    fresh = load_manifest(SAMPLES)
    first = load_manifest(SAMPLES, cache_dir=tmp_path, progress=messages.append)
    entry = first.saved_entry()  # written behind the load: a start before it ends loads the files
    again = load_manifest(SAMPLES, cache_dir=tmp_path, progress=messages.append)
    assert entry is not None and entry == again.cache_entry == again.saved_entry()
    assert any(m == f"cached for the next start: {entry}" for m in messages)
    assert any("from the cache" in m for m in messages)
    for loaded in (first, again):
        pd.testing.assert_frame_equal(loaded.table, fresh.table)
        assert loaded.errors == fresh.errors
        assert loaded.findings == fresh.findings
    # Flags come from the audits, which run at every start: some sample items are flagged.
    assert again.table["_flagged"].any()


def test_changed_bytes_miss_the_cache(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "m.jsonl"
    path.write_text(_rows(4, "Yes"))
    cache = tmp_path / "cache"
    before = load_paths([path], cache_dir=cache)
    path.write_text(_rows(4, "No!"))
    after = load_paths([path], cache_dir=cache)
    assert None is not before.saved_entry() != after.saved_entry() is not None
    assert set(after.table["parsed"]) == {"no"} and set(before.table["parsed"]) == {"yes"}


def test_torn_entry_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(_rows(3, "Yes"))
    cache = tmp_path / "cache"
    first = load_paths([path], cache_dir=cache)
    entry = first.saved_entry()
    assert entry is not None
    entry.write_bytes(entry.read_bytes()[:100])
    assert catalog_cache.restore(entry) is None
    again = load_paths([path], cache_dir=cache)
    pd.testing.assert_frame_equal(again.table, first.table)


def test_load_errors_are_kept_with_the_entry(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(_rows(2, "Yes"))
    bad = tmp_path / "bad.json"
    bad.write_text("[")
    cache = tmp_path / "cache"
    first = load_paths([good, bad], cache_dir=cache)
    first.saved_entry()
    again = load_paths([good, bad], cache_dir=cache)
    assert again.errors == first.errors and len(first.errors) == 1
    assert again.cache_entry is not None  # the errors came from the entry, not a second load


def test_unwritable_cache_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(_rows(2, "Yes"))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    loaded = load_paths([path], cache_dir=blocker / "cache")
    assert loaded.saved_entry() is None and len(loaded.table) == 2


def test_the_entry_is_written_behind_the_load_and_finished_before_the_process_exits(tmp_path: Path) -> None:
    # The catalog comes back while its entry is still being written; a process that exits at once
    # (the write's thread is not a daemon) still leaves the whole entry, which a restart reads.
    path = tmp_path / "m.jsonl"
    path.write_text(_rows(200, "Yes"))
    cache = tmp_path / "cache"
    script = (
        "import sys; from pathlib import Path; from analysis.load.catalog import load_paths; "
        "c = load_paths([Path(sys.argv[1])], cache_dir=Path(sys.argv[2])); "
        "print(c.saving is not None, c.cache_entry)"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", script, str(path), str(cache)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert out.stdout.split() == ["True", "None"]
    assert out.stderr == ""  # no progress was asked for; an error in the write's thread would show
    [entry] = cache.glob("catalog-*.arrow")
    restored = catalog_cache.restore(entry)
    assert restored is not None
    again = load_paths([path], cache_dir=cache)
    assert again.cache_entry == entry and again.saving is None
    pd.testing.assert_frame_equal(again.table, load_paths([path]).table)


def test_only_the_newest_entries_are_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for k in range(catalog_cache.KEEP + 2):
        path = tmp_path / f"m{k}.jsonl"
        path.write_text(_rows(k + 1, "Yes"))
        load_paths([path], cache_dir=cache).saved_entry()
    assert len(list(cache.glob("catalog-*.arrow"))) == catalog_cache.KEEP


@pytest.mark.parametrize("cached", [False, True])
def test_start_loading_hands_the_table_over(tmp_path: Path, cached: bool) -> None:
    data = tmp_path / "data"
    shutil.copytree(SAMPLES.parent, data, ignore=shutil.ignore_patterns("media"))
    manifest = data / "manifest.json"
    cache = tmp_path / "cache" if cached else None
    loaded = start_loading([manifest], cache_dir=cache)()
    fresh = load_manifest(manifest)
    pd.testing.assert_frame_equal(loaded.table, fresh.table)
    assert (loaded.saved_entry() is not None) == cached


def test_files_load_in_workers_and_are_reused_in_another_set(tmp_path: Path) -> None:
    paths = []
    for k in range(3):
        path = tmp_path / f"model{k}.jsonl"
        path.write_text(_rows(5 + k, ["Yes", "No", "Nothing"][k]))
        paths.append(path)
    bad = tmp_path / "bad.jsonl"  # told apart as CMM predictions, refused at line 3 by the loader
    lines = _rows(2, "Yes").splitlines()
    bad.write_text("\n".join([*lines, lines[0].replace('"pred": "Yes"', '"pred": 5')]) + "\n")
    cache = tmp_path / "cache"
    messages: list[str] = []
    two = load_paths([paths[0], bad, paths[1]], cache_dir=cache, progress=messages.append)
    plain = load_paths([paths[0], bad, paths[1]])
    pd.testing.assert_frame_equal(two.table, plain.table)
    assert two.errors == plain.errors and len(two.errors) == 1 and "line 3" in two.errors[0]
    assert any("processes" in m for m in messages)
    assert len(list(cache.glob("file-*.arrow"))) == 2
    three = load_paths(paths, cache_dir=cache)
    assert len(list(cache.glob("file-*.arrow"))) == 3  # the first two were reused, one added
    pd.testing.assert_frame_equal(three.table, load_paths(paths).table)


def test_indexing_with_the_search_text_made_aside_equals_prepare_then_derive() -> None:
    from analysis.charts.common import derive_columns
    from analysis.load.catalog import _index
    from analysis.query import prepare
    from analysis.table.columns import concat_tables

    plain = load_manifest(SAMPLES).table
    stacked = concat_tables([plain[[c for c in plain.columns if not c.startswith("_")]]])
    indexed = _index(stacked)
    pd.testing.assert_frame_equal(indexed, derive_columns(prepare(stacked)))
    assert indexed["_text"].str.contains("\n").all()  # the search text is there, in its place


def test_a_load_of_more_files_than_the_cache_keeps_still_stacks_them_all(tmp_path: Path) -> None:
    # Workers used to prune the per-file entries after each write (keeping the newest 64): with
    # more prediction files than that in one load, entries of the same load were removed before
    # they were stacked, and the load failed on a missing cache file.
    paths = []
    for k in range(catalog_cache.KEEP_FILES + 3):
        path = tmp_path / f"model{k}.jsonl"
        path.write_text(_rows(2, ["Yes", "No"][k % 2]))
        paths.append(path)
    cache = tmp_path / "cache"
    loaded = load_paths(paths, cache_dir=cache)
    assert loaded.errors == [] and len(loaded.table) == 2 * len(paths)
    pd.testing.assert_frame_equal(loaded.table, load_paths(paths).table)
    assert len(list(cache.glob("file-*.arrow"))) == len(paths)  # every entry of the load is kept
    others = []
    for k in range(2):  # a later load of two other files: back to the newest KEEP_FILES entries
        path = tmp_path / f"other{k}.jsonl"
        path.write_text(_rows(3, "Yes"))
        others.append(path)
    assert len(load_paths(others, cache_dir=cache).table) == 6
    assert len(list(cache.glob("file-*.arrow"))) == catalog_cache.KEEP_FILES


def test_workers_start_ahead_only_for_files_never_detected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analysis.load import catalog

    started: list[object] = []
    real = catalog.start_pool

    def counted() -> object:
        started.append(real())
        return started[-1]

    monkeypatch.setattr(catalog, "start_pool", counted)
    paths = []
    for k in range(3):
        path = tmp_path / f"model{k}.jsonl"
        path.write_text(_rows(4, ["Yes", "No", "Nothing"][k]))
        paths.append(path)
    cache = tmp_path / "cache"
    assert catalog.may_warm(paths, cache, catalog_cache.Digests())  # never seen: start them early
    first = load_paths(paths[:2], cache_dir=cache)
    first.saved_entry()
    assert len(started) == 1  # once the second prediction file was told apart
    # the same files again (a restart from the cache): no worker is started for nothing
    assert not catalog.may_warm(paths[:2], cache, catalog_cache.Digests())
    again = load_paths(paths[:2], cache_dir=cache)
    assert again.cache_entry is not None and len(started) == 1
    pd.testing.assert_frame_equal(again.table, first.table)
    assert catalog.may_warm(paths, cache, catalog_cache.Digests())  # one file never seen
    # one prediction file loads in this process: no worker is started for it
    load_paths([paths[2], tmp_path / "missing.json"], cache_dir=tmp_path / "other")
    assert len(started) == 1


def test_a_worker_keys_its_entry_with_the_digests_the_loader_took(tmp_path: Path) -> None:
    # Detection hashed every file already: a worker takes those digests instead of reading each
    # file again for its entry's key (0.5 s of 18 files at a million rows). A digest handed in is
    # the one used; none handed in, the worker hashes the file and finds the same entry.
    from analysis.load.read import _load_to_file
    from analysis.load.sources import Source

    path = tmp_path / "model.jsonl"
    path.write_text(_rows(4, "Yes"))
    source = Source(path, "cmm", "predictions")
    cache = tmp_path / "cache"
    entry, problem, rows, _ = _load_to_file(source, {}, cache, {})
    assert problem is None and rows == 4 and isinstance(entry, Path)
    assert entry == catalog_cache.file_entry(cache, source, [], catalog_cache.Digests())
    told = catalog_cache.Digests({path: "taken-by-detection"})
    handed, _, _, _ = _load_to_file(source, {}, cache, told.taken([path, None]))
    assert handed == catalog_cache.file_entry(cache, source, [], told) and handed != entry
