"""An item's official gold as its files spell it, from its item-table row (any benchmark)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis import benchmarks
from analysis.errors import InvalidLabel


def official_value(row: Any) -> str | None:
    """An item-table row's official gold as its files spell it (None when it has none).

    Most golds are the table's ``gold``. A kind with a ``native`` spelling keeps part of the gold
    apart, in ``extra`` (a scene change's locations, say): joined back, the official value is the
    whole published one, not only the part the table's ``gold`` holds. It is what a correction
    records as the value it replaces, and what the final labels call official.
    """
    get = row.get
    gold = get("gold")
    if gold is None or gold is pd.NA or (isinstance(gold, float) and gold != gold):
        return None
    text = str(gold)
    benchmark = get("benchmark")
    if not benchmark:
        return text
    try:
        kind = benchmarks.get(str(benchmark)).gold_kind(str(get("task") or ""), text)
    except (benchmarks.UnknownBenchmark, InvalidLabel):
        return text
    if kind.native is None:
        return text
    try:
        extra = json.loads(str(get("extra") or "") or "{}")
    except ValueError:
        extra = {}
    return kind.native(text, extra if isinstance(extra, dict) else {})
