"""Verdicts against a new gold, through each benchmark's own ``rescore``, on whole columns.

``rescore_with_gold(table, new_gold)`` returns a copy of an item table whose ``gold`` is
``new_gold`` and whose ``correct`` / ``alt_correct`` are recomputed, with each benchmark's own
rules, on the rows whose gold changed (a benchmark may also touch rows whose verdict depends on
another item's gold, such as one side of a pair judged against the other's). The model's answer and its
readings (``raw_answer``, ``parsed``, ``alt_parsed``) are never touched by a gold change, except
where a benchmark's parsed value is a comparison with the gold (a flag per token of a tagged gold).

A corrected score is therefore the official scorer's arithmetic on corrected gold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from analysis import benchmarks


def rescore_with_gold(
    table: pd.DataFrame, new_gold: pd.Series | list[Any], *, gold_labels: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """A copy of ``table`` with ``gold`` = ``new_gold`` (table spelling) and verdicts recomputed.

    ``gold_labels`` (item id -> corrected gold) lets a benchmark look up items that are not rows
    of this table (the other side of a pair). An unknown benchmark is an error.
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
        bench = benchmarks.get(name)
        # one benchmark per table is the rule; a mixed table is split by a (slower) mask
        in_bench = changed if len(names) == 1 else changed & (out["benchmark"] == name).to_numpy(dtype=bool)
        bench.rescore(out, in_bench, gold_labels or {})
    return out
