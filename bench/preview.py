"""Side-by-side preview benchmark (issue 5): prints figures, asserts nothing.

Makes two synthetic 20-second 640x360 clips with moviepy in a temporary folder (25 and 30 fps,
20 s and 17 s, so one of them is padded), then times:

- the preview build (cold cache): probe both clips, decode, compose at 360 p, encode H.264;
- a cache hit: the same request again (hash both files, find the mp4);
- the same build through :class:`~analysis.review.pairs.previews.MediaJobs`, with how long
  ``submit`` took to return (the UI's wait) and how many progress updates a poller saw.

Run: ``python bench/preview.py [--seconds 20] [--height 360]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.review.pairs.previews import MediaJobs, probe, side_by_side  # noqa: E402


def make_clip(path: Path, seconds: float, fps: int, hue: int) -> None:
    """A moving gradient with a bouncing square: cheap to draw, not trivial to encode."""
    from moviepy import VideoClip

    h, w = 360, 640
    ramp = np.linspace(0, 255, w, dtype=np.float32)[None, :, None]

    def frame(t: float) -> np.ndarray:
        image = np.empty((h, w, 3), dtype=np.uint8)
        image[:] = ((ramp + 40 * t + np.array([0, hue, 2 * hue])) % 256).astype(np.uint8)
        x = int((w - 60) * (0.5 + 0.5 * np.sin(t * 1.3)))
        y = int((h - 60) * (0.5 + 0.5 * np.cos(t * 0.9)))
        image[y : y + 60, x : x + 60] = 255
        return image

    clip = VideoClip(frame_function=frame, duration=seconds)
    clip.write_videofile(str(path), fps=fps, codec="libx264", audio=False, preset="veryfast", logger=None)
    clip.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--height", type=int, default=360)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a, b = root / "a_clip_1.mp4", root / "a_clip_2.mp4"
        start = time.perf_counter()
        make_clip(a, args.seconds, 25, 60)
        make_clip(b, args.seconds * 0.85, 30, 120)
        sizes = [f"{p.name} {probe(p).duration:.2f} s {p.stat().st_size / 1e6:.2f} MB" for p in (a, b)]
        print(f"made 2 clips in {time.perf_counter() - start:.2f} s: " + ", ".join(sizes))
        print(f"cpus: {os.cpu_count()}")

        start = time.perf_counter()
        cold = side_by_side([a, b], root / "cache", height=args.height)
        build = time.perf_counter() - start
        out = probe(cold.outputs[0])
        print(
            f"preview build (cold): {build:.2f} s -> {cold.status}, {out.width}x{out.height}, "
            f"{out.duration:.2f} s, {cold.outputs[0].stat().st_size / 1e6:.2f} MB"
        )

        hits = []
        for _ in range(20):
            start = time.perf_counter()
            hit = side_by_side([a, b], root / "cache", height=args.height)
            hits.append(time.perf_counter() - start)
        print(
            f"cache hit: median {1000 * float(np.median(hits)):.2f} ms, max {1000 * max(hits):.2f} ms "
            f"(cached={hit.cached}, 20 runs)"
        )

        with MediaJobs(root / "cache-jobs") as jobs:
            start = time.perf_counter()
            job = jobs.submit_preview([a, b], height=args.height)
            submitted = time.perf_counter() - start
            seen = set()
            while not (status := jobs.status(job)).finished:
                seen.add(status.progress)
                time.sleep(0.05)
            total = time.perf_counter() - start
        print(
            f"background job: submit returned in {1000 * submitted:.2f} ms, done in {total:.2f} s, "
            f"{len(seen)} distinct progress values polled every 50 ms, state {status.state}"
        )


if __name__ == "__main__":
    main()
