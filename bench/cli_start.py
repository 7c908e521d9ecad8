"""How fast the command line answers when it has nothing to load: ``--help`` and a usage error.

    python bench/cli_start.py [--runs 5]

Each figure is the wall time of a fresh process, the median of ``--runs``, printed beside two
baselines timed in the same run: a bare ``python -c pass`` (the interpreter's own start) and
``python -c "import pandas"`` (what every command paid before its imports were made lazy).
Target (issue 24): ``--help`` and a usage error under 0.3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "python -c 'import pandas' (the old cost)": [sys.executable, "-c", "import pandas"],
    "halluscope --help": [sys.executable, "-m", "analysis.cli", "--help"],
    "halluscope score (usage error)": [sys.executable, "-m", "analysis.cli", "score"],
    "halluscope slices --help": [sys.executable, "-m", "analysis.cli", "slices", "--help"],
    # usage errors argparse cannot see: told before any heavy import
    "halluscope score cdhbnch x (unknown benchmark)": [
        sys.executable,
        "-m",
        "analysis.cli",
        "score",
        "cdhbnch",
        "x",
    ],
    "halluscope slices cmm x --alpha 0": [
        sys.executable,
        "-m",
        "analysis.cli",
        "slices",
        "cmm",
        "x",
        "--alpha",
        "0",
    ],
    "halluscope export cmm --out x.txt": [
        sys.executable,
        "-m",
        "analysis.cli",
        "export",
        "cmm",
        "--out",
        "x.txt",
    ],
    # one that needs the benchmark's tasks: its package (and pandas) is imported first
    "halluscope score cmm x --task qa (no such task)": [
        sys.executable,
        "-m",
        "analysis.cli",
        "score",
        "cmm",
        "x",
        "--task",
        "qa",
    ],
}


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.runs} runs")
    for name, command in CASES.items():
        print(f"{name:50s} {median_seconds(command, args.runs):6.3f} s")


if __name__ == "__main__":
    main()
