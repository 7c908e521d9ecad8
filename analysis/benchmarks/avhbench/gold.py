"""AVHBench gold a reviewer may give (yes/no; captioning references are text) and rescoring."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from analysis.benchmarks.avhbench.table import CAPTIONING
from analysis.benchmarks.base import Bools, GoldKind
from analysis.benchmarks.shared.corrected import set_verdicts
from analysis.benchmarks.shared.kinds import TEXT, YES_NO


def gold_kind(task: str, original: str | None) -> GoldKind:
    """Yes/no, except the captioning references (text)."""
    return TEXT if task == CAPTIONING else YES_NO


def rescore(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str]) -> None:
    """The parsed yes/no against the gold, both lower-cased (unparsed is wrong), for both readings."""
    if not rows.any():
        return
    gold = out["gold"][rows].str.strip().str.lower()
    for parsed, correct in (("parsed", "correct"), ("alt_parsed", "alt_correct")):
        said = out[parsed][rows].str.strip().str.lower()
        set_verdicts(out, correct, rows, (said == gold).fillna(False).to_numpy(dtype=bool))
