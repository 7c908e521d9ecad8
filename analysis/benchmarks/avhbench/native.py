"""Corrected AVHBench files: ``label`` (or ``ground_truth`` / ``answer``) rewritten, all else kept."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from analysis.benchmarks.avhbench.read import LABEL_KEYS
from analysis.benchmarks.shared.corrected import dump, patch_by_source, read_for_patch, yes_no_patch

PATCH = yes_no_patch(LABEL_KEYS)


def write_corrected(path: Path, gold: Mapping[str, str], table: pd.DataFrame) -> str | None:
    """The file with corrected labels; None for a prediction file without labels (its gold is elsewhere)."""
    records, jsonl = read_for_patch(path)
    if not any(k in r for r in records.items for k in LABEL_KEYS):
        return None
    patch_by_source(path, records, table, gold, PATCH)
    return dump(records.items, jsonl=jsonl)
