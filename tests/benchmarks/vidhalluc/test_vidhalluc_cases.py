"""Every extraction rule of VidHalluc (docs/benchmarks/vidhalluc.md), one case per line of the case file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh

CASES = [
    json.loads(line)
    for line in (Path(__file__).parents[2] / "cases" / "vidhalluc.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]


def _id(case: dict[str, Any]) -> str:
    return f"{case['task']}-{case['parser']}-{case['raw'][:40]!r}"


def test_case_file_covers_every_task_and_parser() -> None:
    seen = {(c["task"], c["parser"]) for c in CASES}
    assert seen == {(t, p) for t in ("bqa", "mcq", "tsh", "sth") for p in ("official", "lenient")}
    assert all(c["why"] for c in CASES)
    assert sum(c["task"] == "tsh" for c in CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_case(case: dict[str, Any]) -> None:
    task, parser, raw, gold = case["task"], case["parser"], case["raw"], case["gold"]
    if task == "tsh":
        parse, judge = tsh.PARSE[parser]
        parsed = parse(raw)
        correct = judge(parsed, gold)
    elif task == "mcq":
        letters = mcq.PARSE[parser](raw, case["choices"])
        parsed = mcq.letters_text(letters)
        correct = letters == mcq.gold_letters(gold)
    elif task == "bqa":
        parsed = bqa.PARSE[parser](raw)
        correct = parsed is not None and parsed == gold.strip().upper()
    else:
        yes, parsed, locations = sth.PARSE[parser](raw)
        assert locations == case["expected_locations"], case["why"]
        assert yes == (parsed == "yes")
        correct = yes == sth.gold_yes(gold, parser)
    assert parsed == case["expected_parse"], case["why"]
    assert correct == case["expected_correct"], case["why"]
