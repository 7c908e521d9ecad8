"""Corrected CDH-Bench files: ``benchmark.jsonl`` question blocks, or ``results.jsonl`` with its verdicts.

``results.jsonl`` gets ``gt``, ``cs_gt``, ``cf_gt`` and, on ok records, ``correct`` and
``commonsense_error`` recomputed with the official rules, so that ``halluscope score cdh-bench``
on the copy gives the corrected metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.cdh_bench import parse, read
from analysis.benchmarks.shared.corrected import dump, patch_by_source, read_for_patch
from analysis.files.readers import Records


def write_corrected(path: Path, gold: Mapping[str, str], table: Callable[[], pd.DataFrame]) -> str:
    """The corrected file (both kinds carry gold); ``table`` loads it as the app does."""
    records, jsonl = read_for_patch(path)
    if records.items and "direct_qa" not in records.items[0] and "multiple_choice" not in records.items[0]:
        _results(records, gold)
    else:
        patch_by_source(path, records, table(), gold, _gold_block)
    return dump(records.items, jsonl=jsonl)


def _gold_block(record: dict[str, Any], row: pd.Series, value: str) -> None:
    block = {"qa": "direct_qa", "mc": "multiple_choice"}[str(row["task"])]
    record[block][f"{row['side']}_gt"] = value


def _results(records: Records, gold: Mapping[str, str]) -> None:
    reparse = parse.READERS["reparse"]
    for record in records.items:
        pair, task, side = (str(record.get(k) or "") for k in ("pair_id", "task", "side"))
        own, cs, cf = (gold.get(read.item_id(pair, task, s)) for s in (side, "commonsense", "counterfactual"))
        if own is None and cs is None and cf is None:
            continue
        record["gt"] = own if own is not None else record.get("gt")
        record["cs_gt"] = cs if cs is not None else record.get("cs_gt")
        record["cf_gt"] = cf if cf is not None else record.get("cf_gt")
        if record.get("status") != "ok" or task not in read.TASKS:
            continue
        text = record.get("pred") if isinstance(record.get("pred"), str) else ""
        correct = reparse(task, str(text), str(record["gt"] or ""))[1]
        record["correct"] = correct
        if side == "counterfactual":
            against_cs = reparse(task, str(text), str(record["cs_gt"] or ""))[1]
            record["commonsense_error"] = (not correct) and against_cs
