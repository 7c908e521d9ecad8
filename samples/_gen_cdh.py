"""CDH-Bench samples: ``benchmark.jsonl`` (key order varies by line), images, official ``results.jsonl``.

``correct`` and ``commonsense_error`` in the results are computed here with a small, independent
implementation of the official extraction (text after the last ``</think>``; yes/no from the
first word, else "yes"/是/对 anywhere, else "no"/否/不; letters from four regexes on the upper-cased
text), so the loader's re-parse can be checked against the stored verdicts.
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from _gen_cdh_pairs import PAIRS, Pair, folder
from _gen_common import MODELS, image_info, pick, prediction_entry, rel, rng, write_jsonl

ID = "cdh-bench"
SIDES = ("commonsense", "counterfactual")
YES_FIRST, NO_FIRST = {"yes", "y", "true", "是", "对"}, {"no", "n", "false", "否", "不", "不是", "错"}
LETTER_RES = [
    re.compile(p)
    for p in (
        r"^([A-D])(?:\.|\)|$|\s)",
        r"(?:ANSWER|答案)(?:IS|是|为)?\s*([A-D])",
        r"\s([A-D])(?:\.|\)|$|\s)",
        r"\b([A-D])\b",
    )
]


# ---------------------------------------------------------------- official extraction


def _final(text: str) -> str:
    return text.rsplit("</think>", 1)[-1].strip()


def read_yes_no(text: str) -> str | None:
    """Official yes/no reading."""
    norm = " ".join("".join(c for c in _final(text).lower() if c.isalnum() or c.isspace()).split())
    words = norm.split()
    if not words:
        return None
    if words[0] in YES_FIRST or words[0] in NO_FIRST:
        return "yes" if words[0] in YES_FIRST else "no"
    if "yes" in words or "是" in norm or "对" in norm:
        return "yes"
    return "no" if "no" in words or "否" in norm or "不" in norm else None


def read_letter(text: str) -> str | None:
    """Official letter reading: the first regex that hits the upper-cased answer."""
    upper = _final(text).upper()
    for pattern in LETTER_RES:
        m = pattern.search(upper)
        if m:
            return m.group(1)
    return None


def verdict(task: str, text: str, gold: str) -> bool:
    """Official verdict for the golds used here (yes/no for qa, A-D for mc)."""
    return (read_yes_no(text) if task == "qa" else read_letter(text)) == gold


# ---------------------------------------------------------------- gold


def gold_line(pair: Pair, r: random.Random) -> dict[str, Any]:
    """One ``benchmark.jsonl`` line with its keys (and the blocks' keys) in a seeded order."""
    qa = {"question": pair.qa, "commonsense_gt": pair.qa_gt[0], "counterfactual_gt": pair.qa_gt[1]}
    mc = {
        "question": pair.mc,
        "options": list(pair.options),
        "commonsense_gt": pair.mc_gt[0],
        "counterfactual_gt": pair.mc_gt[1],
    }
    line = {
        "pair_id": pair.pair_id,
        "pair_name": pair.name,
        "category": pair.category,
        "subcategory": pair.subcategory,
        "direct_qa": _shuffled(qa, r),
        "multiple_choice": _shuffled(mc, r),
    }
    return _shuffled(line, r)


def _shuffled(d: dict[str, Any], r: random.Random) -> dict[str, Any]:
    keys = list(d)
    r.shuffle(keys)
    return {k: d[k] for k in keys}


# ---------------------------------------------------------------- model answers


def _qa_text(r: random.Random, yes: bool) -> str:
    if r.random() < 0.15:
        # Official quirks: 不是，... reads yes (punctuation glued away, 是 found before 不);
        # "The answer is no" reads no; "Nope" and "I don't think so" read nothing.
        return pick(
            r,
            ("是的。", "Definitely yes, as expected.")
            if yes
            else ("不是，不是这样。", "The answer is no.", "Nope.", "I don't think so."),
        )
    return (
        pick(r, ("Yes.", "Yes", "yes", "Yes, it does."))
        if yes
        else pick(r, ("No.", "No", "no", "No, it does not."))
    )


def _mc_text(r: random.Random, letter: str, options: tuple[str, ...]) -> str:
    body = next((o.split(". ", 1)[-1] for o in options if o.startswith(letter + ".")), "")
    if r.random() < 0.15:
        # " A " (an article) is read as option A by the third regex.
        return pick(r, (f"Looking at the image, a careful look gives {letter}.", f"I think it's ({letter})"))
    return pick(
        r, (letter, f"{letter}.", f"The answer is {letter}.", f"Answer: {letter}", f"{letter}. {body}")
    )


def _choose(model: str, task: str, pair: Pair, side: int, r: random.Random) -> str:
    """The answer the model means (yes/no or a letter), before it is worded."""
    golds = pair.qa_gt if task == "qa" else pair.mc_gt
    gt, cs = golds[side], golds[0]
    others = ["yes", "no"] if task == "qa" else ["A", "B", "C", "D"]
    wrong = [o for o in others if o != gt]
    if model == "yes-biased":
        if task == "qa":
            return "yes" if r.random() < 0.85 else "no"
        roll = r.random()
        return cs if roll < 0.5 else gt if roll < 0.85 else pick(r, others)
    if model == "balanced":
        return gt if r.random() < 0.85 else pick(r, wrong)
    return cs if r.random() < 0.9 else gt  # commonsense prior: answers what is usual, not what is shown


def answer(model: str, task: str, pair: Pair, side: int, r: random.Random) -> str:
    """The model's raw text for one query."""
    meant = _choose(model, task, pair, side, r)
    text = _qa_text(r, meant == "yes") if task == "qa" else _mc_text(r, meant, pair.options)
    if model == "commonsense-prior" and r.random() < 0.4:
        usual = pair.name.split(" vs ")[1].capitalize()
        text = f"<think>{usual} is the usual case, so I answer accordingly.</think>\n{text}"
    return text


# ---------------------------------------------------------------- run output

RETRIED = {"yes-biased": (4, "mc", 1), "commonsense-prior": (2, "qa", 0)}
"""(pair, task, side) whose first query failed and was appended again, per model."""
MISSING = {"balanced": 7}
"""Pair whose counterfactual image was missing in that model's run (both tasks)."""
START = datetime(2026, 3, 2, 10, 0, 0)


def _prompt(pair: Pair, task: str) -> str:
    if task == "qa":
        return f"{pair.qa}\nAnswer with yes or no."
    return "\n".join(
        (pair.mc, *pair.options, "Answer with the option's letter from the given choices directly.")
    )


class _Run:
    """Accumulates one model's records with a running clock."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.r = rng(ID, "results", model)
        self.clock = START
        self.rows: list[dict[str, Any]] = []

    def add(self, pair: Pair, task: str, side: int, status: str, text: str | None) -> None:
        golds = pair.qa_gt if task == "qa" else pair.mc_gt
        gt = golds[side]
        latency = (
            0
            if status == "missing_image"
            else self.r.randint(350, 2400) * (4 if text and "<think>" in text else 1)
        )
        self.clock += timedelta(milliseconds=latency + 40)
        ok = status == "ok" and text is not None
        correct = ok and verdict(task, text or "", gt)
        cs_error = ok and side == 1 and not correct and verdict(task, text or "", golds[0])
        raw = None
        if ok:
            raw = {
                "id": f"resp-{len(self.rows):04d}",
                "model": self.model,
                "finish_reason": "stop",
                "content": text,
                "usage": {
                    "prompt_tokens": 310 + len(_prompt(pair, task)) // 4,
                    "completion_tokens": max(1, len(text or "") // 4),
                },
            }
        self.rows.append(
            {
                "ts": self.clock.isoformat(timespec="milliseconds"),
                "run": f"{self.model}_20260302_100000",
                "model_name": self.model,
                "pair_id": pair.pair_id,
                "category": pair.category,
                "subcategory": pair.subcategory,
                "task": task,
                "side": SIDES[side],
                "image_path": f"{folder(pair)}/{SIDES[side]}.png",
                "status": status,
                "latency_ms": latency,
                "question": pair.qa if task == "qa" else pair.mc,
                "prompt": _prompt(pair, task),
                "gt": gt,
                "cf_gt": golds[1],
                "cs_gt": golds[0],
                "pred": text,
                "correct": correct,
                "commonsense_error": cs_error,
                "raw": raw,
            }
        )


def results(model: str) -> list[dict[str, Any]]:
    """The official run output of one model, with its failed and retried queries."""
    run = _Run(model)
    for pair in PAIRS:
        for task in ("qa", "mc"):
            for side in (0, 1):
                if MISSING.get(model) == pair.number and side == 1:
                    run.add(pair, task, side, "missing_image", None)
                    continue
                if RETRIED.get(model) == (pair.number, task, side):
                    run.add(pair, task, side, "error", "Error code: 429 - Rate limit reached, retry later")
                run.add(pair, task, side, "ok", answer(model, task, pair, side, run.r))
    return run.rows


def build(root: Path, media: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Write the CDH-Bench sample set under ``root/cdh-bench``; return its manifest entry and media index."""
    base = root / ID
    r = rng(ID, "keys")
    gold = base / "benchmark.jsonl"
    write_jsonl(gold, [gold_line(p, r) for p in PAIRS])
    entries = []
    for model in MODELS:
        path = base / "predictions" / f"{model}.jsonl"
        write_jsonl(path, results(model))
        entries.append(prediction_entry(path, root))
    index: dict[str, dict[str, Any]] = {}
    for pair in PAIRS:
        for side in (0, 1):
            path = base / "media" / folder(pair) / f"{SIDES[side]}.png"
            if media:
                path.parent.mkdir(parents=True, exist_ok=True)
                pair.image(side == 1).save(path, optimize=True)
            index[rel(path, root)] = image_info((224, 224))
    return {"media_root": f"{ID}/media", "gold": [rel(gold, root)], "predictions": entries}, index
