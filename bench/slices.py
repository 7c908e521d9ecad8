"""Slices: false-alarm and detection rates over seeds, and the time at a million rows.

    python bench/slices.py [--seeds 100] [--rows 1000000]

Prints, for null runs (nothing planted) at three strengths of clustering, how many seeds report
any slice, and how often the planted slice comes first; then the time of ``find_slices`` for one
model at depth 2 over ``--rows`` rows beside a plain pandas group-by (count and mean) over the same
column combinations in the same run (target: under 5 s on 2 cores).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from failures.planted import PLANTED, planted_table  # noqa: E402

from analysis.benchmarks.slicing import slice_columns  # noqa: E402
from analysis.failures.slices import find_slices  # noqa: E402


def rates(seeds: int) -> None:
    for sd in (0.0, 1.0, 1.8):
        false = sum(
            bool(find_slices("cmm", planted_table(s, planted=None, clip_sd=sd))[0]) for s in range(seeds)
        )
        first = 0
        for s in range(seeds):
            found = find_slices("cmm", planted_table(s, clip_sd=sd))[0]
            first += bool(found) and found[0].conditions == PLANTED
        print(
            f"clip sd {sd}: null runs reporting a slice {false}/{seeds} ({false / seeds:.1%}, target <= 5%); "
            f"planted slice first {first}/{seeds}"
        )


def timing(rows: int) -> None:
    table = planted_table(0, clips=rows // 4)
    print(f"{len(table):,} rows, one model, depth 2; load average {os.getloadavg()[0]:.2f}")
    for run in range(3):
        t0 = time.perf_counter()
        found, tested = find_slices("cmm", table, max_depth=2)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        _, columns = slice_columns("cmm", table)
        frame = table[["correct"]].assign(**{k: v for k, v in columns.items()})
        names = sorted(columns)
        for depth in (1, 2):
            for combo in itertools.combinations(names, depth):
                frame.groupby(list(combo), observed=True)["correct"].agg(["count", "mean"])
        plain = time.perf_counter() - t0
        print(
            f"  run {run + 1}: find_slices {ours:.2f} s ({tested} slices tested, {len(found)} shown; "
            f"target < 5 s) | plain pandas group-by, count and mean only: {plain:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    rates(args.seeds)
    timing(args.rows)


if __name__ == "__main__":
    main()
