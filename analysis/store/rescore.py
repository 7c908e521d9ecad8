"""Verdicts against a new gold: one small hook per benchmark, on whole columns.

``rescore_with_gold(table, new_gold)`` returns a copy of an item table whose ``gold`` is
``new_gold`` and whose ``correct`` / ``alt_correct`` are recomputed, with each benchmark's own
rules, on the rows whose gold changed (and, for CDH-Bench, the counterfactual rows whose pair's
commonsense gold changed). The model's answer and its readings (``raw_answer``, ``parsed``,
``alt_parsed``) are never touched: none of them depends on the gold, except where noted.

Each hook calls the benchmark module's own rule, so a corrected score is the official scorer's
arithmetic on corrected gold:

- avhbench: the parsed yes/no against the gold, both lower-cased (unparsed is wrong);
- cmm: the official substring rule on ``pred[:5]`` and the alternative reading (``_cmm_parse``);
- vidhalluc: each task's ``verdicts`` (STH also takes the corrected locations into ``extra``);
- cdh-bench: the official re-parse and the strict reader against the new gold; ``extra``'s
  ``correct``, ``commonsense_error``, ``cs_gt`` and ``cf_gt`` follow, because the official
  summary reads the stored verdicts;
- detailverifybench: the token flags and exact-match verdict of the new tagged gold.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

Bools = npt.NDArray[np.bool_]
Hook = Callable[[pd.DataFrame, Bools, Mapping[str, str]], None]


def rescore_with_gold(table: pd.DataFrame, new_gold: pd.Series | list[Any],
                      *, gold_labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A copy of ``table`` with ``gold`` = ``new_gold`` (table spelling) and verdicts recomputed.

    ``gold_labels`` (item id -> corrected gold) lets a hook look up items that are not rows of
    this table (a CDH-Bench pair's commonsense side).
    """
    out = table.copy(deep=False)
    if isinstance(new_gold, pd.Series):
        gold = new_gold.astype("string").set_axis(table.index)
    else:
        gold = pd.Series(pd.array(list(new_gold), dtype="string"), index=table.index)
    changed = (gold != table["gold"]).fillna(True).to_numpy(dtype=bool)
    out["gold"] = gold
    names = [str(n) for n in out["benchmark"].unique()] if len(out) else []
    for name in names:
        hook = HOOKS.get(name)
        if hook is None:
            continue
        # one benchmark per table is the rule; a mixed table is split by a (slower) mask
        in_bench = changed if len(names) == 1 else changed & (out["benchmark"] == name).to_numpy(dtype=bool)
        hook(out, in_bench, gold_labels or {})
    return out


def _set(out: pd.DataFrame, column: str, rows: Bools, values: Any) -> None:
    """Set verdicts on ``rows``, keeping null where the official scorer does not count a row."""
    scored = out["scored"].to_numpy(dtype=bool)[rows]
    column_values = out[column].astype("boolean").array.copy()
    new = pd.array([bool(v) if s else None for v, s in zip(values, scored, strict=True)], dtype="boolean")
    column_values[rows] = new
    out[column] = column_values


def _yes_no(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    if not rows.any():
        return
    gold = out["gold"][rows].str.strip().str.lower()
    for parsed, correct in (("parsed", "correct"), ("alt_parsed", "alt_correct")):
        said = out[parsed][rows].str.strip().str.lower()
        _set(out, correct, rows, (said == gold).fillna(False).to_numpy(dtype=bool))


def _cmm(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    if not rows.any():
        return
    from analysis.benchmarks.cmm.parse import verdicts
    from analysis.yesno import READERS

    sub = out[rows]
    alt = str(sub["alt_parser"].iloc[0])
    reader = READERS.get(alt, READERS["negation-aware"])
    v = verdicts(sub["gold"].array, sub["raw_answer"].fillna("").array, reader)
    _set(out, "correct", rows, v.correct)
    _set(out, "alt_correct", rows, v.alt_correct)


def _vidhalluc(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    from analysis.benchmarks.vidhalluc import bqa as _vidhalluc_bqa
    from analysis.benchmarks.vidhalluc import mcq as _vidhalluc_mcq
    from analysis.benchmarks.vidhalluc import sth as _vidhalluc_sth
    from analysis.benchmarks.vidhalluc import tsh as _vidhalluc_tsh

    tasks: dict[str, Any] = {"bqa": _vidhalluc_bqa, "mcq": _vidhalluc_mcq, "tsh": _vidhalluc_tsh,
                             "sth": _vidhalluc_sth}
    task_of = out["task"].astype(str).to_numpy()
    if rows.any() and (task_of[rows] == "sth").any():
        _sth_split(out, rows & (task_of == "sth"))
    for task, module in tasks.items():
        sel = rows & (task_of == task)
        if not sel.any():
            continue
        sub = out[sel]
        official, lenient = module.verdicts(sub, "official"), module.verdicts(sub, "lenient")
        _set(out, "correct", sel, official[1])
        _set(out, "alt_correct", sel, lenient[1])


def _sth_split(out: pd.DataFrame, rows: Bools) -> None:
    """STH labels read ``Scene change: Yes, Locations: from X to Y.``; the table keeps the two apart."""
    gold = out["gold"].array.copy()
    extra = out["extra"].astype("string").array.copy()
    for i in np.flatnonzero(rows).tolist():
        text = str(gold[i])
        if not text.startswith("Scene change: "):
            continue
        change, _, locations = text[len("Scene change: "):].partition(", Locations: ")
        record = json.loads(extra[i]) if extra[i] else {}
        record["gold_locations"] = locations or None
        gold[i], extra[i] = change, json.dumps(record, ensure_ascii=False)
    out["gold"], out["extra"] = gold, extra


def _cdh(out: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    from analysis.benchmarks.cdh_bench import parse as _cdh_parse
    from analysis.benchmarks.cdh_bench import read as _cdh_load

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
        label = labels.get(_cdh_load.item_id(pair, task, "commonsense"))
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
    _, ok = _cdh_parse.read_rows(tasks, texts, golds, _cdh_parse.READERS["reparse"])
    _, alt_ok = _cdh_parse.read_rows(tasks, texts, golds, _cdh_parse.READERS["strict"])
    _, vs_cs = _cdh_parse.read_rows(tasks, texts, cs, _cdh_parse.READERS["reparse"])
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
    _set(out, "correct", touched, ok)
    _set(out, "alt_correct", touched, alt_ok)


def _texts(column: pd.Series, idx: npt.NDArray[np.intp]) -> list[str | None]:
    """The texts of some rows of a string column, None for null."""
    return [None if v is None or v is pd.NA else str(v) for v in column.iloc[idx].tolist()]


def _dvb(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    sel = rows & out["scored"].to_numpy(dtype=bool)
    if not sel.any():
        return
    from analysis.benchmarks import detailverifybench
    from analysis.benchmarks.detailverifybench import scoring as _dvb_metrics

    golds = out["gold"][sel].fillna("").astype(str).tolist()
    preds = out["raw_answer"][sel].fillna("").astype(str).tolist()
    prepared = _dvb_metrics.prepare(golds, preds)
    for parsed_col, correct_col, parser in (("parsed", "correct", "official"),
                                             ("alt_parsed", "alt_correct", detailverifybench.ALT_PARSER)):
        result = _dvb_metrics.compare_prepared(prepared, parser)
        parsed = out[parsed_col].array.copy()
        parsed[sel] = pd.array(list(result.flags), dtype="string")
        out[parsed_col] = parsed
        _set(out, correct_col, sel, [bool(x) for x in result.exact])


HOOKS: dict[str, Hook] = {
    "avhbench": _yes_no,
    "cmm": _cmm,
    "vidhalluc": _vidhalluc,
    "cdh-bench": _cdh,
    "detailverifybench": _dvb,
}
"""Rescoring hook of each benchmark."""
