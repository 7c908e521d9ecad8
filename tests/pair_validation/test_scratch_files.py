"""Files made for download buttons do not pile up: scratch folders and the preview cache are bounded.

Issue 8's finding: 100 anonymous pair exports left 300 ``/tmp/halluscope-pairs-*`` folders (and
previews more), never removed. Here the exports run against a real server, clicked over HTTP the
way the page clicks them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest
from app_data import GRADIO_LOOP_WARNINGS
from http_app import click, launched

from analysis.review.pairs.previews import bound_cache
from components import scratch

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]
EXPORTS = 100


def test_a_hundred_pair_exports_leave_a_bounded_number_of_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gradio as gr

    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.store import Identity, open_store
    from components.pairs.tab import build_pairs_tab

    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    root = tmp_path / "scratch"
    monkeypatch.setenv(scratch.SCRATCH_ENV, str(root))
    catalog = load_manifest(SAMPLE_MANIFEST)
    store = open_store(tmp_path / "labels.db")
    with gr.Blocks() as demo:
        # a signed-in reviewer: visitors may export no reviewer's data at all (issue 10)
        build_pairs_tab(catalog, store, lambda request: Identity("alice"), k=2)
    with (
        launched(demo, allowed_paths=[str(r) for r in catalog.media_roots["vidhalluc"]]) as url,
        httpx.Client(timeout=60) as client,
    ):
        for _ in range(EXPORTS):
            done = click(client, url, "pairs-export")
            assert done["success"], done
        files = [o["value"] for o in done["output"]["data"] if isinstance(o, dict) and o.get("value")]
        assert len(files) == 3  # JSON, CSV and the kept-pair gold zip
        for served in files:  # the last export still downloads (from Gradio's copy)
            reply = client.get(f"{url}/gradio_api/file={served['path']}")
            assert reply.status_code == 200 and reply.content
    store.close()
    left = [p for p in root.iterdir() if p.is_dir()]
    assert len(left) <= scratch.KEEP, f"{len(left)} folders left after {EXPORTS} exports (3 each)"


def test_prune_removes_old_folders_and_all_but_the_newest(tmp_path: Path) -> None:
    now = time.time()
    for age in range(12):  # folder_0 is the newest
        folder = tmp_path / f"folder_{age}"
        folder.mkdir()
        (folder / "f.csv").write_text("x")
        os.utime(folder, (now - age * 100, now - age * 100))
    assert scratch.prune(tmp_path, keep=8, max_age_s=650, now=now) == 5  # 6 is 600 s old: kept
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"folder_{i}" for i in range(7)]


def test_the_preview_cache_keeps_to_its_budget_least_recently_used_first(tmp_path: Path) -> None:
    now = time.time()
    paths = []
    for n in range(5):
        path = tmp_path / "previews" / "ab" / f"{n}.mp4"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * 1000)
        os.utime(path, (now - 100 + n, now - 100 + n))  # 0 is the least recently used
        paths.append(path)
    os.utime(paths[0], (now, now))  # 0 was just used again
    assert bound_cache(tmp_path, 2500, keep=[paths[1]]) == 3
    assert sorted(p.name for p in (tmp_path / "previews" / "ab").iterdir()) == ["0.mp4", "1.mp4"]
