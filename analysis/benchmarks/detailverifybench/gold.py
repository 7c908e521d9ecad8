"""DetailVerifyBench rescoring against corrected tags, and the columns its charts read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.base import Bools
from analysis.benchmarks.corrected import set_verdicts
from analysis.benchmarks.detailverifybench.scoring import compare, compare_prepared, prepare


def rescore(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str], alt_parser: str) -> None:
    """The token flags (``parsed`` / ``alt_parsed``) and exact-match verdicts of the new gold."""
    sel = rows & out["scored"].to_numpy(dtype=bool)
    if not sel.any():
        return
    golds = out["gold"][sel].fillna("").astype(str).tolist()
    preds = out["raw_answer"][sel].fillna("").astype(str).tolist()
    prepared = prepare(golds, preds)
    for parsed_col, correct_col, parser in (("parsed", "correct", "official"),
                                             ("alt_parsed", "alt_correct", alt_parser)):
        result = compare_prepared(prepared, parser)
        parsed = out[parsed_col].array.copy()
        parsed[sel] = pd.array(list(result.flags), dtype="string")
        out[parsed_col] = parsed
        set_verdicts(out, correct_col, sel, [bool(x) for x in result.exact])


def chart_columns(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """``_token_f1`` (official, per scored row) and ``_labels`` (gold label entries) at ``rows``."""
    token_f1 = np.full(len(rows), np.nan)
    labels: list[Any] = [None] * len(rows)
    scored = np.flatnonzero(table["scored"].to_numpy(dtype=bool)[rows])
    if scored.size:
        part = table.iloc[rows[scored]]
        # Score each distinct (gold, prediction) pair once: runs and re-runs repeat many of them.
        pairs = pd.MultiIndex.from_arrays([part["gold"].fillna(""), part["raw_answer"].fillna("")])
        codes, uniques = pairs.factorize()
        distinct = pd.MultiIndex.from_tuples(list(uniques))
        gold = [str(g) for g in distinct.get_level_values(0)]
        result = compare(gold, [str(p) for p in distinct.get_level_values(1)], "official")
        token_f1[scored] = result.token["f1"][codes]
        for k, found in zip(scored.tolist(), _labels(part["extra"]), strict=True):
            labels[k] = found
    return {"_token_f1": token_f1, "_labels": labels}


def _labels(extra: pd.Series) -> list[Any]:
    out: list[Any] = []
    for text in extra.fillna("").astype(str):
        found = json.loads(text).get("hallucination_labels") if '"hallucination_labels"' in text else None
        out.append(found if isinstance(found, list) else None)
    return out
