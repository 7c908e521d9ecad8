"""Thumbnails, side-by-side previews, the content-keyed cache, background jobs, broken media.

Inputs are the bundled VidHalluc sample clips (160x120, 10 fps, 2 s for ACH, 4 s for TSH) and
the sample's deliberately truncated clip; outputs are kept small (60 px high) so the whole file
runs in a few seconds.
"""

from __future__ import annotations

import gc
import json
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from analysis.review.pairs import previews
from analysis.review.pairs.preview_media import open_clip
from analysis.review.pairs.previews import MediaJobs, MediaResult, probe, side_by_side, thumbnails

SAMPLES = Path(__file__).parents[2] / "samples"
MEDIA = SAMPLES / "vidhalluc" / "media"
SHORT, LONG = MEDIA / "sf7026ba_clip_1.mp4", MEDIA / "t067731b_clip_1.mp4"  # 2 s and 4 s


@pytest.fixture(scope="module")
def broken() -> Path:
    manifest = SAMPLES / "manifest.json"
    if not manifest.exists() or not SHORT.exists():
        pytest.skip("the sample set is absent (run samples/generate.py)")
    bad = json.loads(manifest.read_text(encoding="utf-8"))["benchmarks"]["vidhalluc"]["known_bad_media"]
    return MEDIA / bad[0]


@pytest.fixture(autouse=True)
def _no_leaked_pipes() -> Iterator[None]:
    # A moviepy reader left open warns only when collected: collect inside the test, where
    # -W error turns the ResourceWarning into a failure.
    yield
    gc.collect()


def test_probe_reads_good_clips_and_names_missing_and_unreadable(broken: Path, tmp_path: Path) -> None:
    good = probe(SHORT)
    assert (good.status, good.duration, good.width, good.height, good.fps) == ("ok", 2.0, 160, 120, 10.0)
    bad = probe(broken)
    assert bad.status == "unreadable" and broken.name in bad.message and bad.duration is None
    gone = probe(tmp_path / "nope_clip_1.mp4")
    assert gone.status == "missing" and "nope_clip_1.mp4" in gone.message
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    assert probe(empty).status == "unreadable"


def test_thumbnails_first_middle_last_cached_by_content(broken: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = thumbnails(LONG, cache, width=48)
    assert first.status == "ok" and not first.cached and len(first.outputs) == 3
    for path in first.outputs:
        with Image.open(path) as image:
            assert image.format == "JPEG" and image.size == (48, 36)  # 160x120 scaled to 48 wide
    frames = [np.asarray(Image.open(p), dtype=float) for p in first.outputs]
    assert np.abs(frames[0] - frames[2]).mean() > 1  # the first and last frames differ
    copy = tmp_path / "renamed.mp4"
    shutil.copyfile(LONG, copy)
    again = thumbnails(copy, cache, width=48)  # same bytes under another name: a cache hit
    assert again.cached and again.outputs == first.outputs
    assert thumbnails(LONG, cache, width=64).outputs != first.outputs  # parameters are in the key
    other = thumbnails(SHORT, cache, width=48)
    assert not other.cached and set(other.outputs).isdisjoint(first.outputs)


def test_side_by_side_same_height_padded_to_the_longer_clip(tmp_path: Path) -> None:
    result = side_by_side([SHORT, LONG], tmp_path, height=60)
    assert result.status == "ok" and not result.cached
    info = probe(result.outputs[0])
    # each 160x120 clip at 60 px high is 80 wide; the 2 s clip is padded to 4 s
    assert (info.width, info.height, info.duration) == (160, 60, 4.0)
    with open_clip(result.outputs[0]) as clip:
        late = clip.get_frame(3.5)
    assert late[:, :80].mean() > 20  # the short clip holds its last frame, not black
    hit = side_by_side([SHORT, LONG], tmp_path, height=60)
    assert hit.cached and hit.outputs == result.outputs
    black = side_by_side([SHORT, LONG], tmp_path, height=60, pad="black")
    assert black.outputs != result.outputs
    with open_clip(black.outputs[0]) as clip:
        late = clip.get_frame(3.5)
    assert late[:, :76].mean() < 8 and late[:, 84:].mean() > 20  # black panel, then the long clip


def test_broken_and_missing_media_give_a_status_not_an_exception(broken: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bad = side_by_side([SHORT, broken], cache, height=60)
    assert bad == MediaResult("unreadable", message=bad.message) and broken.name in bad.message
    gone = side_by_side([tmp_path / "gone_clip_2.mp4", SHORT], cache, height=60)
    assert gone.status == "missing" and "gone_clip_2.mp4" in gone.message
    assert thumbnails(broken, cache).status == "unreadable"
    assert thumbnails(tmp_path / "gone.mp4", cache).status == "missing"
    assert side_by_side([], cache).status == "failed"
    assert not list(cache.rglob("*.mp4")) and not list(cache.rglob("*.jpg"))  # nothing half-written


def test_an_encoder_failure_is_reported_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(paths: Sequence[Path], target: Path, **_: Any) -> None:
        target.write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(previews, "write_side_by_side", explode)
    result = side_by_side([SHORT, LONG], tmp_path, height=60)
    assert result.status == "failed" and "disk full" in result.message
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_jobs_run_in_the_background_with_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = threading.Event(), threading.Event()

    def gated(videos: Sequence[Path], cache_dir: Path, **kwargs: Any) -> MediaResult:
        kwargs["progress"](0.5)
        started.set()
        assert release.wait(10)
        return MediaResult("ok", (cache_dir / "x.mp4",))

    monkeypatch.setattr(previews, "side_by_side", gated)
    with MediaJobs(tmp_path, workers=1) as jobs:
        job = jobs.submit_preview([SHORT, LONG], height=60)  # returns while the work is blocked
        assert started.wait(10)
        status = jobs.status(job)
        assert (status.state, status.progress, status.finished) == ("running", 0.5, False)
        assert jobs.submit_preview([SHORT, LONG], height=60) == job  # same request in flight: same job
        queued = jobs.submit_thumbnails(SHORT)
        assert jobs.status(queued).state == "queued"  # one worker, busy
        release.set()
        done = jobs.wait(job, timeout=10)
        assert (done.state, done.progress, done.outputs) == ("done", 1.0, (tmp_path / "x.mp4",))
        assert jobs.wait(queued, timeout=10).state == "done"
    assert jobs.status("no-such-job").state == "failed"


def test_jobs_build_real_previews_and_report_broken_media(broken: Path, tmp_path: Path) -> None:
    with MediaJobs(tmp_path, workers=2) as jobs:
        good = jobs.submit_preview([SHORT, LONG], height=60)
        bad = jobs.submit_preview([SHORT, broken], height=60)
        thumbs = jobs.submit_thumbnails(broken)
        result = jobs.wait(good, timeout=30)
        assert result.state == "done" and result.progress == 1.0 and result.outputs[0].is_file()
        assert jobs.wait(bad, timeout=30).state == "unreadable"
        assert jobs.wait(thumbs, timeout=30).state == "unreadable"
        again = jobs.wait(jobs.submit_preview([SHORT, LONG], height=60), timeout=30)
        assert again.cached and again.outputs == result.outputs
