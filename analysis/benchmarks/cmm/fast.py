r"""Scoring a CMM file without building its item table: DuckDB counts, the official rule in Python.

``halluscope score`` needs four fields of each row (sub-category, granularity, gold, prediction),
not the item table (ids, media, extra JSON) the app shows. DuckDB reads the file with all cores and
returns one row per distinct (sub-category, granularity, gold, prediction) with its count
(:mod:`.early`, which says when that read declines a file); the official rule then runs on each
distinct text once, in Python, with exactly the functions :func:`.table.build` uses, and every
metric is counted from those weighted rows with the same :mod:`.scoring` code. So the numbers are
the same as ``load`` then ``score``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.benchmarks.cmm.early import Counted, read
from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.cmm.scoring import flags, grouped
from analysis.benchmarks.shared.yesno import READERS, code_to_word
from analysis.stats.metrics import MetricDict

_GROUPED = ("sub", "gran", "gold", "pred")
"""The grouped fields, as :func:`.early.read` names them."""


NOT_READ: Any = object()
"""``early`` of :func:`counts` when the file was not read early."""


def counts(path: Path, early: Counted | None = NOT_READ) -> pd.DataFrame | None:
    """One row per distinct (sub, gran, gold, pred) with its ``n`` rows, sub-categories first-seen first.

    ``early``: what :func:`.early.read` of ``path`` returned, when it ran already; else it runs here.
    None declines: the caller then loads the file the validating way.
    """
    counted = read(path) if early is NOT_READ else early
    if counted is None:
        return None
    frame = pd.DataFrame.from_records(counted.rows, columns=counted.columns)
    required = frame[list(_GROUPED)].notna().all(axis=1).all()
    if frame.empty or not required or frame["no_question"].sum() or frame["not_text"].sum():
        return None
    if not all(frame[f"{name}_json"].astype(str).str.startswith('"').all() for name in _GROUPED):
        return None  # a number or a boolean where the template wants text: DuckDB would cast it
    rank = {text: i for i, text in enumerate(counted.seen)}
    order = np.argsort(frame["sub_json"].map(rank).to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def score_counts(
    frame: pd.DataFrame, parser: str, alt_parser: str
) -> tuple[MetricDict, dict[str, dict[str, MetricDict]]]:
    """Overall metrics and groups from :func:`counts`, with the rule and code the item table uses."""
    gold = pd.array(frame["gold"].astype(str).tolist(), dtype="string")
    pred = pd.array(frame["pred"].astype(str).tolist(), dtype="string")
    v = verdicts(gold, pred, READERS[alt_parser])
    table = pd.DataFrame(
        {
            "category": pd.Categorical(frame["sub"].astype(str)),
            "subcategory": pd.Categorical(frame["gran"].astype(str)),
            "gold": gold,
            "raw_answer": pred,
            "parsed": code_to_word(v.code).array,
            "correct": pd.array(v.correct, dtype="boolean"),
            "alt_parsed": code_to_word(v.alt_code).array,
        }
    )
    weights = frame["n"].to_numpy(dtype=np.int64)
    return grouped(table, flags(table, parser, alt_parser), detail=False, weights=weights)
