"""Suspects: how well the ranking finds planted wrong gold, beside ranking by raw disagreement.

    python bench/suspects.py [--seeds 5] [--items 3000]

For every choice benchmark and task (``tests/suspects/planted.py``: 14 models, a trap slice where
every model fails on purpose, several questions a clip, 4% of gold flipped) and each seed: the
average precision and the precision at 50 of ``rank_suspects``, and the average precision of the
share of models against the gold, in the same run. Targets (issue 21): average precision >= 0.6,
precision at 50 >= 0.8 and at least twice the baseline's average precision, on every shape and seed.
Also the time of one ranking; for TSH, the ceiling (the average precision of the Bayes-optimal
ranking that knows the fixture's true abilities and trap); and the null runs: how many items get a
``suggested`` value where no gold is wrong, and how many suggestions are right where 4% is.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from suspects.planted import SHAPES, planted, tsh_ceiling  # noqa: E402
from suspects.planted_spans import planted_captions  # noqa: E402

from analysis.benchmarks.detailverifybench.tagging import TAGGING  # noqa: E402
from analysis.suspects.quality import average_precision, precision_at  # noqa: E402
from analysis.suspects.rank import disagreement, rank_suspects  # noqa: E402
from analysis.suspects.spans import rank_spans  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--items", type=int, default=3000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.seeds} seeds, {args.items} items a table")
    head = ("shape", "seed", "items", "wrong", "AP", "P@50", "AP raw", "ratio", "s", "ceil")
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
            ceiling = f"{tsh_ceiling(p):>6.3f}" if name == "vidhalluc/tsh" else f"{'-':>6}"
            print(
                f"{name:<16} {seed:>6} {len(ranked):>6} {len(p.wrong):>6} {ap:>6.3f} {p50:>6.2f} "
                f"{ap_raw:>6.3f} {ap / ap_raw if ap_raw else float('inf'):>6.2f} {took:>6.2f} "
                f"{ceiling}  {'yes' if met else 'NO'}"
            )
    print(f"{failed} table(s) below a target")
    null_runs(args.seeds, args.items)
    failed += spans(args.seeds)
    return 1 if failed else 0


def null_runs(seeds: int, items: int) -> None:
    """Where ``suggested`` is set (the posterior passes one half).

    On tables without wrong gold every suggestion is a false alarm; where 4% of gold is wrong, the
    share of suggestions that name the true gold.
    """
    print("\nsuggestions: share of items suggested without wrong gold; right / made with 4% wrong")
    for name in SHAPES:
        cells = []
        for seed in range(seeds):
            clean = planted(name, seed, items=items, flip=0.0)
            bench = clean.table["benchmark"].iloc[0]
            ranked = rank_suspects(bench, clean.table)
            false_alarms = sum(s.suggested is not None for s in ranked) / max(1, len(ranked))
            p = planted(name, seed, items=items)
            made = [s for s in rank_suspects(bench, p.table) if s.suggested is not None]
            right = sum(s.item_id in p.wrong and p.true_gold[s.item_id] == s.suggested for s in made)
            cells.append(f"{false_alarms:5.1%} {right:>3}/{len(made):<3}")
        print(f"{name:<16} " + "  ".join(cells))


def spans(seeds: int) -> int:
    """Tagged captions (``tests/suspects/planted_spans.py``): spans against plain disagreement.

    Plain disagreement: the mean number of tokens a model tags differently from the gold.
    """
    print("\ntagged captions (300 a table, 10 models, 6% with a wrong gold span)")
    print(f"{'seed':>4} {'wrong':>6} {'AP':>6} {'P@10':>6} {'AP raw':>7} {'s':>6}")
    below = 0
    for seed in range(seeds):
        table, wrong = planted_captions(seed)
        t0 = time.perf_counter()
        ranked, _ = rank_spans("detailverifybench", table)
        took = time.perf_counter() - t0
        hits = [s.item_id in wrong for s in ranked]
        raw = {}
        for item, rows in table.groupby("item_id"):
            gold = TAGGING.selected_tokens(rows["gold"].iloc[0])
            raw[item] = sum(len(TAGGING.selected_tokens(a) ^ gold) for a in rows["raw_answer"]) / len(rows)
        base = [i in wrong for i in sorted(raw, key=lambda i: (-raw[i], i))]
        ap, ap_raw = average_precision(hits, len(wrong)), average_precision(base, len(wrong))
        below += not (ap >= 0.6 and ap >= 2 * ap_raw)
        print(
            f"{seed:>4} {len(wrong):>6} {ap:>6.3f} {precision_at(hits, 10):>6.2f} {ap_raw:>7.3f} {took:>6.2f}"
        )
    return below


if __name__ == "__main__":
    raise SystemExit(main())
