"""Pair scores: seconds per clip pair at 8 frames with the tiny CLIP and DINOv2 checkpoints.

    python bench/pair_scores.py [--pairs 100] [--frames 8]

Builds the tiny random-weight checkpoints of the tests, then scores ``--pairs`` pairs made of the
bundled VidHalluc clips (each pair two different clips, cycling through them): once with no cache
(every clip decoded and embedded), once into an empty cache, and once more from that cache. Prints
seconds per pair for each, with the load average (issue 23).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import pandas as pd  # noqa: E402
from pair_validation.tiny_encoders import build  # noqa: E402

from analysis.benchmarks.base import PairRule  # noqa: E402
from analysis.review.pairs.embed import load_encoder  # noqa: E402
from analysis.review.pairs.scores import EmbeddingCache, score_pairs  # noqa: E402

MEDIA = ROOT / "samples" / "vidhalluc" / "media"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--frames", type=int, default=8)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="halluscope-bench-pairs-"))
    clip, dino = (load_encoder(p, k) for p, k in zip(build(folder), ("clip", "dino"), strict=True))
    videos = sorted(str(p) for p in MEDIA.glob("*.mp4") if p.stat().st_size > 1000)
    rows = []
    for i in range(args.pairs):
        a, b = videos[i % len(videos)], videos[(i + 1) % len(videos)]
        rows.append({"pair_id": f"p{i}", "clips": ("a", "b"), "media": {"a": a, "b": b}})
    pairs = pd.DataFrame(rows)
    rule = PairRule(0.9, 0.6)
    print(
        f"{args.pairs} pairs over {len(videos)} distinct clips, {args.frames} frames a clip, "
        f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores"
    )
    cache = EmbeddingCache(folder / "cache")
    for label, store in (("no cache", EmbeddingCache(None)), ("empty cache", cache), ("warm cache", cache)):
        hits, misses = store.hits, store.misses
        t0 = time.perf_counter()
        scored = list(score_pairs(pairs, Path, clip, dino, rule, frames=args.frames, cache=store))
        took = time.perf_counter() - t0
        problems = sum(s.problem is not None for s in scored)
        print(
            f"  {label:<12} {took:7.2f} s  {took / args.pairs:.3f} s/pair  (embeddings from the cache "
            f"{store.hits - hits}, computed {store.misses - misses}; pairs with a problem {problems})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
