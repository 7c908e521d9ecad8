"""Synthetic CDH-Bench files for the cdh-bench tests (results.jsonl and benchmark.jsonl writers)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATEGORIES = ("Counting Anomalies", "Relational Anomalies", "Attribute Anomalies")
LETTERS = "ABCD"


@dataclass(frozen=True)
class TaskCounts:
    """Correct counterfactual / commonsense answers and commonsense errors out of ``pairs``."""

    cf_correct: int
    cs_correct: int
    commonsense_errors: int
    pairs: int = 300


def pair_fields(i: int) -> dict[str, str]:
    """Pair id, category and subcategory of synthetic pair ``i`` (100 pairs per category)."""
    return {
        "pair_id": f"Pair {i + 1}",
        "category": CATEGORIES[i * len(CATEGORIES) // 300 % len(CATEGORIES)],
        "subcategory": f"Sub/{i % 5} x",
    }


def mc_golds(i: int) -> tuple[str, str, str]:
    """(counterfactual gold, commonsense gold, a third letter) of pair ``i``."""
    return LETTERS[i % 4], LETTERS[(i + 1) % 4], LETTERS[(i + 2) % 4]


def record(i: int, task: str, side: str, pred: str, **over: Any) -> dict[str, Any]:
    """One official results record, verdict fields as the official script writes them."""
    cf, cs, _ = mc_golds(i) if task == "mc" else ("no", "yes", "")
    gt = cf if side == "counterfactual" else cs
    fields = pair_fields(i)
    rec: dict[str, Any] = {
        "ts": f"2026-03-19T09:41:{i % 60:02d}+00:00", "run": "f617b4287d96",
        "model_name": "Qwen3-VL-32B-Instruct", "backend": "api", "model": "Qwen3-VL-32B-Instruct",
        **fields, "task": task, "side": side,
        "image_path": f"/data/images/{fields['subcategory']}/{fields['pair_id']}/{side}.png",
        "status": "ok", "latency_ms": 100 + i, "question": f"Question {task} {i}?",
        "prompt": f"an image prompt {i}", "gt": gt, "cf_gt": cf, "cs_gt": cs, "pred": pred,
        "correct": None, "commonsense_error": None, "raw": {"choices": [{"message": {"content": pred}}]},
    }  # fmt: skip
    rec.update(over)
    return rec


def _qa_answer(right: bool, gold: str, style: int) -> str:
    word = gold if right else ("yes" if gold == "no" else "no")
    return ("{}", "{}.", "Let me check the image.\n</think>\n\n{}", "{}, clearly")[style % 4].format(
        word.capitalize() if style % 2 else word
    )


def _mc_answer(letter: str, style: int) -> str:
    return ("{}", "{}. the option", "Looking closely...\n</think>\n\n{}", "The answer is {}")[
        style % 4
    ].format(letter)


def task_records(task: str, counts: TaskCounts) -> list[dict[str, Any]]:
    """Records of one task realising ``counts``; errors that are not commonsense errors are
    unparsed yes/no answers (qa) or the third letter (mc)."""
    out = []
    for i in range(counts.pairs):
        cf_gold, cs_gold, other = mc_golds(i) if task == "mc" else ("no", "yes", "")
        cf_right = i < counts.cf_correct
        cf_ce = not cf_right and i - counts.cf_correct < counts.commonsense_errors
        cs_right = i < counts.cs_correct
        if task == "qa":
            cf_pred = (
                _qa_answer(True, cs_gold if cf_ce else cf_gold, i) if cf_right or cf_ce else "I cannot tell."
            )
            cs_pred = _qa_answer(cs_right, cs_gold, i)
        else:
            cf_pred = _mc_answer(cf_gold if cf_right else cs_gold if cf_ce else other, i)
            cs_pred = _mc_answer(cs_gold if cs_right else other, i)
        out.append(record(i, task, "commonsense", cs_pred, correct=cs_right))
        out.append(record(i, task, "counterfactual", cf_pred, correct=cf_right, commonsense_error=cf_ce))
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write rows as JSONL (non-ASCII kept as is) and return the path."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def gold_line(i: int, **over: Any) -> dict[str, Any]:
    """One benchmark.jsonl line for pair ``i``; key order varies with ``i`` as in the release."""
    fields = pair_fields(i)
    cf, cs, _ = mc_golds(i)
    n = i % 7 + 2
    qa = {
        "question": f"Does the hand have {n} fingers and not {n + 1} fingers?",
        "commonsense_gt": "yes",
        "counterfactual_gt": "no",
    }
    # The gold letters point at the counts the pair name gives (as in a consistent release):
    # the counterfactual letter at n + 1 fingers, the commonsense letter at n, the rest beyond.
    spare = iter(range(n + 2, n + 6))
    counts = {L: n + 1 if cf == L else n if cs == L else next(spare) for L in LETTERS}
    mc = {"question": "How many fingers are on the hand?",
          "options": [f"{L}. {counts[L]} fingers" for L in LETTERS],
          "commonsense_gt": cs, "counterfactual_gt": cf}  # fmt: skip
    line: dict[str, Any] = {
        **fields,
        "pair_name": f"{n + 1} fingers vs {n} fingers",
        "direct_qa": qa,
        "multiple_choice": mc,
    }
    line.update(over)
    keys = list(line)
    if i % 2:  # the release's key order varies from line to line
        keys.reverse()
        line = {
            k: (dict(reversed(list(v.items()))) if isinstance(v, dict) else v)
            for k, v in ((k, line[k]) for k in keys)
        }
    return line
