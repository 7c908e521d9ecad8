"""The command line answers ``--help`` and a usage error without importing anything heavy.

Timing is measured in ``bench/cli_start.py``; this checks the cause, which cannot flake: the
modules a fresh interpreter has loaded when the answer is printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "numpy", "pyarrow", "scipy", "plotly", "gradio", "sqlalchemy", "duckdb")

PROBE = """
import json, sys
from analysis.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:  # --help exits from argparse
    code = e.code
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if "." not in m)}), file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--help"], 0),
        (["score"], 2),
        (["slices", "--help"], 0),
        (["no-such-command"], 2),
        # usage errors argparse cannot see, each once told only after pandas (and more) loaded:
        # 0.3-3.3 s where argparse's own take 0.05 s (a review of the contract, 2026-12-04)
        (["score", "cdhbnch", "x.json"], 2),  # an unknown benchmark
        (["score", "cmm", "x.jsonl", "--corrected"], 2),  # --corrected without --db (after loading)
        (["score", "cmm", "x.jsonl", "--n-boot", "5"], 2),  # --n-boot without --ci
        (["slices", "cmm", "x.jsonl", "--alpha", "0"], 2),
        (["slices", "cmm", "x.jsonl", "--max-depth", "9"], 2),
        (["suspects", "cmm", "a", "b", "c", "--top", "0"], 2),
        (["export", "cmm", "--out", "corrections.txt"], 2),  # no format by that extension
        (["export", "cmm", "--format", "native", "--out", "folder"], 2),  # native without --gold
        # a task or parser the benchmark lacks: checked against its names.py, the package not imported
        (["score", "cmm", "x.jsonl", "--task", "qa"], 2),
        (["score", "vidhalluc", "x.json"], 2),  # vidhalluc needs --task
        (["score", "cmm", "x.jsonl", "--parser", "nope"], 2),
        (["items", "cdh-bench", "x.jsonl", "--task", "bqa"], 2),
        (["slices", "vidhalluc", "x.json", "--task", "qa"], 2),
        (["suspects", "cmm", "a", "b", "c", "--task", "qa"], 2),
    ],
)
def test_help_and_usage_errors_import_nothing_heavy(args: list[str], code: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60, check=False
    )
    last = done.stderr.strip().splitlines()[-1]
    report = json.loads(last)
    assert report["code"] == code, done.stderr
    loaded = set(report["modules"]) & set(HEAVY)
    assert not loaded, f"{args}: {sorted(loaded)} imported before the answer"
    if code == 0:
        assert "halluscope" in done.stdout


def test_a_command_that_needs_pandas_still_gets_it() -> None:
    # the other side: the lazy imports are there when a benchmark is asked for
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from analysis.benchmarks import get, Benchmark; get('cmm'); print(Benchmark)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Benchmark" in done.stdout, done.stderr


def test_the_app_is_built_without_scipy_which_the_first_statistic_imports() -> None:
    # scipy.stats was a second of the served app's import (issue 24's first page): the app is
    # built without it, and the first paired test, slice test or rank correlation imports it
    probe = """
import sys
import app
from analysis.load.catalog import load_paths
from pathlib import Path
import json
manifest = json.loads(Path("samples/manifest.json").read_text())
first = next(iter(manifest["benchmarks"].values()))["predictions"][0]["path"]
catalog = load_paths([Path("samples") / first])
app.build_app(catalog, app.open_review(catalog))
before = "scipy.stats" in sys.modules
import pandas as pd
from analysis.stats.paired import mcnemar
p, counts = mcnemar(pd.Series([True, True, False]), pd.Series([False, False, False]))
print(before, "scipy.stats" in sys.modules, round(p, 4), counts)
"""
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    # exact McNemar: 2 discordant pairs, both one way: two-sided p = 2 * 0.5**2
    assert done.stdout.split() == ["False", "True", "0.5", "(2,", "0)"]
