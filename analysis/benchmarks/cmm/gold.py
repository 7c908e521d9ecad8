"""CMM rescoring against corrected gold: the official rule and the alternative reading."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from analysis.benchmarks.base import Bools
from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.shared.corrected import set_verdicts
from analysis.benchmarks.shared.yesno import READERS


def rescore(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    """The official substring rule on ``pred[:5]`` and the table's alternative parser."""
    if not rows.any():
        return
    sub = out[rows]
    alt = str(sub["alt_parser"].iloc[0])
    reader = READERS.get(alt, READERS["negation-aware"])
    v = verdicts(sub["gold"].array, sub["raw_answer"].fillna("").array, reader)
    set_verdicts(out, "correct", rows, v.correct)
    set_verdicts(out, "alt_correct", rows, v.alt_correct)
