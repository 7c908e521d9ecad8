"""VidHalluc gold a reviewer may give, per task, and rescoring with each task's own verdicts."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.benchmarks.base import Bools, GoldKind
from analysis.benchmarks.shared.corrected import set_verdicts
from analysis.benchmarks.shared.kinds import LETTERS, TEXT, YES_NO
from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc.kinds import ORDER, SCENE

KINDS: dict[str, GoldKind] = {"bqa": YES_NO, "mcq": LETTERS, "tsh": ORDER, "sth": SCENE}
_TASKS: dict[str, Any] = {"bqa": bqa, "mcq": mcq, "tsh": tsh, "sth": sth}


def gold_kind(task: str, original: str | None) -> GoldKind:
    """BQA yes/no, MCQ a set of letters, TSH an order, STH a scene change (text for anything else)."""
    return KINDS.get(task, TEXT)


def rescore(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    """Each task's official and lenient verdicts on the rows whose gold changed."""
    task_of = out["task"].astype(str).to_numpy()
    if rows.any() and (task_of[rows] == "sth").any():
        _sth_split(out, rows & (task_of == "sth"))
    for task, module in _TASKS.items():
        sel = rows & (task_of == task)
        if not sel.any():
            continue
        sub = out[sel]
        official, lenient = module.verdicts(sub, "official"), module.verdicts(sub, "lenient")
        set_verdicts(out, "correct", sel, official[1])
        set_verdicts(out, "alt_correct", sel, lenient[1])


def _sth_split(out: pd.DataFrame, rows: Bools) -> None:
    """STH labels read ``Scene change: Yes, Locations: from X to Y.``; the table keeps the two apart."""
    gold = out["gold"].array.copy()
    extra = out["extra"].astype("string").array.copy()
    for i in np.flatnonzero(rows).tolist():
        text = str(gold[i])
        if not text.startswith("Scene change: "):
            continue
        change, _, locations = text[len("Scene change: ") :].partition(", Locations: ")
        record = json.loads(extra[i]) if extra[i] else {}
        record["gold_locations"] = locations or None
        gold[i], extra[i] = change, json.dumps(record, ensure_ascii=False)
    out["gold"], out["extra"] = gold, extra
