"""CDH-Bench gold a reviewer may give, and rescoring: verdicts, the pair's CCR, the stored flags."""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.base import Bools, GoldKind
from analysis.benchmarks.cdh_bench import parse, read
from analysis.benchmarks.shared.corrected import set_verdicts
from analysis.benchmarks.shared.kinds import LETTER, TEXT, YES_NO


def gold_kind(task: str, original: str | None) -> GoldKind:
    """``mc``: one option letter; ``qa``: yes/no where the official gold is yes/no, else text."""
    if task == "mc":
        return LETTER
    if task == "qa" and (original is None or original.strip().lower() in ("yes", "no")):
        return YES_NO
    return TEXT


def rescore(out: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """Verdicts of the changed rows and of the counterfactual rows whose commonsense gold changed."""
    in_bench = (out["benchmark"].astype(str) == "cdh-bench").to_numpy(dtype=bool)
    keys = (out["pair_id"].astype(str) + "\x1f" + out["task"].astype(str)).to_numpy(dtype=object)
    sides = out["side"].astype(str).to_numpy(dtype=object)
    # The commonsense gold of each (pair, task): a label where there is one (its row may not be in
    # this table), else the commonsense row's gold in this table.
    cs_gold: dict[str, str] = {}
    for i in np.flatnonzero(rows & in_bench & (sides == "commonsense")).tolist():
        cs_gold[keys[i]] = str(out["gold"].iat[i])
    for key in pd.unique(keys[in_bench]):
        pair, _, task = str(key).partition("\x1f")
        label = labels.get(read.item_id(pair, task, "commonsense"))
        if label is not None:
            cs_gold[str(key)] = label
    touched = in_bench & (rows | np.isin(keys, list(cs_gold)))
    if not touched.any():
        return
    idx = np.flatnonzero(touched)
    extras = [json.loads(e) if e else {} for e in _texts(out["extra"], idx)]
    cs = [cs_gold.get(keys[i], e.get("cs_gt")) for i, e in zip(idx.tolist(), extras, strict=True)]
    tasks = out["task"].astype(str).to_numpy()[idx].tolist()
    texts = _texts(out["raw_answer"], idx)
    golds = [g or "" for g in _texts(out["gold"], idx)]
    _, ok = parse.read_rows(tasks, texts, golds, parse.READERS["reparse"])
    _, alt_ok = parse.read_rows(tasks, texts, golds, parse.READERS["strict"])
    _, vs_cs = parse.read_rows(tasks, texts, cs, parse.READERS["reparse"])
    scored = out["scored"].to_numpy(dtype=bool)[idx]
    new_extra = out["extra"].astype("string").array.copy()
    for k, i in enumerate(idx.tolist()):
        record = extras[k]
        record["cs_gt"] = cs[k]
        if sides[i] == "counterfactual":
            record["cf_gt"] = golds[k]
        if scored[k]:
            record["correct"] = bool(ok[k])
            if sides[i] == "counterfactual":
                record["commonsense_error"] = (not ok[k]) and bool(vs_cs[k])
        new_extra[i] = json.dumps(record, ensure_ascii=False)
    out["extra"] = new_extra
    set_verdicts(out, "correct", touched, ok)
    set_verdicts(out, "alt_correct", touched, alt_ok)


def _texts(column: pd.Series, idx: npt.NDArray[np.intp]) -> list[str | None]:
    """The texts of some rows of a string column, None for null."""
    return [None if v is None or v is pd.NA else str(v) for v in column.iloc[idx].tolist()]
