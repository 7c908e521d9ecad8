"""Bootstrap benchmark: prints figures, asserts nothing.

Target (issue 12): 2,000 cluster resamples of a 100,000-item table well under a second. Printed
beside a baseline in the same process: the textbook loop (per replicate, draw cluster indices and
sum their statistics with numpy), on the same statistics, timed over fewer replicates and scaled.

- CMM, 100,000 rows (50,000 clips), every metric of every group (9 scopes x 7 counts);
- DetailVerifyBench-like, 100,000 captions with float statistics (per-caption F1...), which no
  merging of identical clusters can shrink: the worst case.

Run: ``python bench/intervals.py [--rows 100000] [--n-boot 2000]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from score import write_cmm  # noqa: E402

from analysis.benchmarks import get  # noqa: E402
from analysis.benchmarks.detailverifybench.scoring import STAT_NAMES, metrics_of  # noqa: E402
from analysis.stats.clusters import ClusterStats, tally  # noqa: E402
from analysis.stats.intervals import intervals  # noqa: E402


def loop_baseline(values: np.ndarray, n_boot: int, seed: int) -> float:
    """Seconds per replicate of the plain loop: draw indices, gather rows, sum."""
    rng = np.random.default_rng(seed)
    n = values.shape[0]
    start = time.perf_counter()
    for _ in range(n_boot):
        values[rng.integers(0, n, size=n)].sum(axis=0)
    return (time.perf_counter() - start) / n_boot


def timed(stats: ClusterStats, n_boot: int) -> tuple[float, dict[str, object]]:
    best = float("inf")
    ci: dict[str, object] = {}
    for _ in range(3):
        start = time.perf_counter()
        ci = intervals(stats, n_boot=n_boot, seed=0)
        best = min(best, time.perf_counter() - start)
    return best, ci


def report(label: str, stats: ClusterStats, n_boot: int) -> None:
    seconds, ci = timed(stats, n_boot)
    per_rep = loop_baseline(stats.values, 50, seed=0)
    print(f"{label}: {len(stats.keys):,} clusters x {stats.values.shape[1]} statistics")
    print(f"  intervals(), {n_boot:,} replicates, every metric: {seconds:.3f} s (best of 3)")
    print(
        f"  plain loop baseline: {per_rep * 1e3:.2f} ms per replicate -> {per_rep * n_boot:.2f} s "
        f"for {n_boot:,} ({per_rep * n_boot / seconds:.0f}x slower)"
    )
    overall = ci["overall"]
    assert isinstance(overall, dict)
    first = next(iter(overall.items()))
    print(f"  e.g. {first[0]} interval {first[1]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--n-boot", type=int, default=2000)
    args = parser.parse_args()

    cmm = get("cmm")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cmm.jsonl"
        write_cmm(path, args.rows)
        table = cmm.load(path)
    start = time.perf_counter()
    stats = cmm.cluster_stats(table)
    print(f"CMM cluster_stats over {len(table):,} rows: {time.perf_counter() - start:.3f} s")
    report(f"CMM {len(table):,} rows", stats, args.n_boot)

    rng = np.random.default_rng(0)
    n = args.rows
    columns: dict[str, np.ndarray] = {"n": np.ones(n)}
    for name in STAT_NAMES[1:8]:
        columns[name] = rng.random(n)
    gold, pred = rng.random(n) < 0.6, rng.random(n) < 0.5
    columns |= {"gold_any": gold, "pred_any": pred, "tp": gold & pred}
    domains = rng.integers(0, 6, n)
    scopes = [(None, np.ones(n, dtype=bool)), *((("domain", str(d)), domains == d) for d in range(6))]
    keys, values = tally(np.arange(n), columns, scopes)
    dvb = ClusterStats(
        "caption", keys, STAT_NAMES, tuple(s for s, _ in scopes), values, metrics_of, ("domain",)
    )
    report(f"DetailVerifyBench-like {n:,} captions", dvb, args.n_boot)


if __name__ == "__main__":
    main()
