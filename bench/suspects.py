"""Suspects: how well the ranking finds planted wrong gold, beside ranking by raw disagreement.

    python bench/suspects.py [--seeds 5] [--items 3000]

For every choice benchmark and task (``tests/suspects/planted.py``: 14 models, a trap slice where
every model fails on purpose, several questions a clip, 4% of gold flipped) and each seed: the
average precision and the precision at 50 of ``rank_suspects``, and the average precision of the
share of models against the gold, in the same run. Targets (issue 21): average precision >= 0.6,
precision at 50 >= 0.8 and at least twice the baseline's average precision, on every shape and seed.
Also the time of one ranking.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from suspects.planted import SHAPES, planted  # noqa: E402

from analysis.suspects.quality import average_precision, precision_at  # noqa: E402
from analysis.suspects.rank import disagreement, rank_suspects  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--items", type=int, default=3000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.seeds} seeds, {args.items} items a table")
    head = ("shape", "seed", "items", "wrong", "AP", "P@50", "AP raw", "ratio", "s")
    print(f"{head[0]:<16} " + " ".join(f"{h:>6}" for h in head[1:]) + "  met")
    failed = 0
    for name in SHAPES:
        for seed in range(args.seeds):
            p = planted(name, seed, items=args.items)
            bench = p.table["benchmark"].iloc[0]
            t0 = time.perf_counter()
            ranked = rank_suspects(bench, p.table)
            took = time.perf_counter() - t0
            ours = [s.item_id in p.wrong for s in ranked]
            raw = disagreement(bench, p.table)
            base = [i in p.wrong for i in sorted(raw, key=lambda i: (-raw[i], i))]
            ap, p50, ap_raw = (
                average_precision(ours, len(p.wrong)),
                precision_at(ours, 50),
                average_precision(base, len(p.wrong)),
            )
            met = ap >= 0.6 and p50 >= 0.8 and ap >= 2 * ap_raw
            failed += not met
            print(
                f"{name:<16} {seed:>6} {len(ranked):>6} {len(p.wrong):>6} {ap:>6.3f} {p50:>6.2f} "
                f"{ap_raw:>6.3f} {ap / ap_raw if ap_raw else float('inf'):>6.2f} {took:>6.2f}  "
                f"{'yes' if met else 'NO'}"
            )
    print(f"{failed} table(s) below a target")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
