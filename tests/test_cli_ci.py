"""``halluscope score --ci``: the report keeps every key and gains ``ci``; the same seed, the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.cli.main import main

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
RUNS = [
    ["cmm", str(SAMPLES / "cmm/predictions/balanced.jsonl")],
    [
        "vidhalluc",
        str(SAMPLES / "vidhalluc/predictions/bqa/balanced.json"),
        "--task",
        "bqa",
        "--gold",
        str(SAMPLES / "vidhalluc/ach_binaryqa.json"),
    ],
    ["cdh-bench", str(SAMPLES / "cdh-bench/predictions/yes-biased.jsonl")],
]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args", RUNS, ids=[r[0] for r in RUNS])
def test_ci_adds_one_key_and_changes_none(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, plain, _ = run(capsys, "score", *args, "--json")
    assert code == 0
    code, with_ci, _ = run(capsys, "score", *args, "--json", "--ci", "--n-boot", "300", "--seed", "5")
    assert code == 0
    report, extended = json.loads(plain), json.loads(with_ci)
    ci = extended.pop("ci")
    assert extended == report
    assert {"level", "n_boot", "seed", "method", "cluster", "n_clusters", "overall", "groups"} == set(ci)
    assert (ci["level"], ci["n_boot"], ci["seed"], ci["method"]) == (0.95, 300, 5, "percentile")
    assert set(ci["groups"]) == set(report["groups"])
    for name, interval in ci["overall"].items():
        value = report["overall"][name]
        assert interval is None or interval[0] <= value <= interval[1]


def test_same_seed_reproduces_exactly_and_the_text_form_shows_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outputs = [run(capsys, "score", *RUNS[0], "--json", "--ci", "--seed", "9")[1] for _ in range(2)]
    assert outputs[0] == outputs[1]
    other = run(capsys, "score", *RUNS[0], "--json", "--ci", "--seed", "10")[1]
    assert json.loads(other)["ci"]["seed"] == 10
    code, text, _ = run(capsys, "score", *RUNS[0], "--ci")
    assert code == 0 and "95% intervals: percentile bootstrap over 12 clip clusters" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", "3"], "--n-boot and --seed need --ci"),
        (["--ci", "--n-boot", "0"], "--n-boot must be between 1"),
        (["--ci", "--seed", "-1"], "--seed must be 0 or more"),
        (["--ci", "--n-boot", "many"], "invalid int value"),
    ],
)
def test_bad_ci_options_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, out, err = run(capsys, "score", *RUNS[0], *extra)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
