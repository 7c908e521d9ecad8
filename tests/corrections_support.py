"""Helpers of the correction-loop tests: the bundled sample runs and corrections that move them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analysis.benchmarks import get
from analysis.benchmarks.detailverifybench.tags import CLOSE, OPEN, untag

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


def sample_runs() -> list[tuple[str, str | None, Path, Path | None, list[Path]]]:
    """(benchmark, task, predictions, gold for --gold, gold files of that task) per benchmark and task.

    One model per benchmark and task (the first the manifest lists).
    """
    manifest = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))
    out = []
    for name, entry in manifest["benchmarks"].items():
        seen: set[str | None] = set()
        golds = [SAMPLES / g for g in entry.get("gold", [])]
        for pred in entry["predictions"]:
            task = pred.get("task")
            if task in seen:
                continue
            seen.add(task)
            gold = SAMPLES / pred["gold"] if pred.get("gold") else None
            mine = [g for g in golds if _gold_task(name, g) in (task, None)]
            out.append((name, task, SAMPLES / pred["path"], gold, mine))
    return out


def _gold_task(name: str, path: Path) -> str | None:
    from analysis.load.detect import detect

    return detect(path).task if name == "vidhalluc" else None


def other_value(benchmark: str, task: str, gold: str, k: int = 0) -> str | None:
    """A gold value of the item's kind that differs from ``gold`` (``k`` picks among several)."""
    kind = get(benchmark).gold_kind(task, gold).name
    if kind == "yesno":
        return "no" if gold.strip().lower() == "yes" else "yes"
    if kind in ("letter", "letters"):
        options = [c for c in "ABCD" if c != gold.strip().upper()]
        return options[k % len(options)]
    if kind == "order":
        return "BA" if gold.strip().upper() == "AB" else "AB"
    if kind == "scene":
        if gold.lower().startswith(("yes", "scene change: yes")):
            return "Scene change: No"
        return "Scene change: Yes, Locations: from the kitchen to the garden."
    if kind == "tagged":
        clean = untag(gold)
        if clean != gold:
            return clean  # no hallucination at all
        words = clean.split(" ")
        at = k % max(1, len(words))
        words[at] = f"{OPEN}{words[at]}{CLOSE}"
        return " ".join(words)
    return None


def agreeing_value(item: dict[str, Any]) -> str | None:
    """The model's own reading as gold, where it is a valid gold of the item's kind (else None)."""
    from analysis.errors import InvalidLabel
    from analysis.store.values import normalize

    if item["parsed"] is None:
        return None
    kind = get(item["benchmark"]).gold_kind(item["task"] or "", item["gold"])
    if kind.name not in ("yesno", "letter", "letters", "order"):
        return None
    try:
        return normalize(
            "gold",
            str(item["parsed"]),
            benchmark=item["benchmark"],
            task=item["task"] or "",
            original=item["gold"],
        )
    except InvalidLabel:
        return None


def wrong_first(items: list[dict[str, Any]], n: int) -> list[int]:
    """Up to ``n`` scored rows, wrong ones first (a fix of a wrong answer moves every metric kind)."""
    scored = [i for i, item in enumerate(items) if item["scored"]]
    return ([i for i in scored if item_wrong(items[i])] + [i for i in scored if not item_wrong(items[i])])[:n]


def item_wrong(item: dict[str, Any]) -> bool:
    """The model's answer is judged wrong."""
    return item["correct"] is False


def corrections(items: list[dict[str, Any]], chosen: list[int], k: int = 0) -> list[dict[str, Any]]:
    """Correction rows (as ``halluscope import`` reads them) for the chosen scored items.

    A wrong answer gets its own reading as gold where that is a valid value (it becomes right);
    otherwise the gold becomes another value of its kind.
    """
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i in chosen:
        item = items[i]
        if item["item_id"] in seen or item["gold"] is None:
            continue
        value = agreeing_value(item) if item_wrong(item) else None
        if value is None:
            value = other_value(item["benchmark"], item["task"] or "", item["gold"], k + i)
        if value is None:
            continue
        seen.add(item["item_id"])
        rows.append(
            {
                "item_id": item["item_id"],
                "field": "gold",
                "value": value,
                "reason": "test fix",
                "task": item["task"],
                "gold": item["gold"],
            }
        )
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` one JSON object a line."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def copy_of(path: Path, out: Path, base: Path) -> Path:
    """Where ``export --format native`` puts the copy of ``path`` (relative to the common ``base``)."""
    return out / path.resolve().relative_to(base.resolve())
