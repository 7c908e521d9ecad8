"""Corrected CMM files: the JSONL with ``answer`` rewritten (spelled like the original), all else kept."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from analysis.benchmarks.shared.corrected import dump, patch_by_source, read_for_patch, yes_no_patch

PATCH = yes_no_patch(("answer",))


def write_corrected(path: Path, gold: Mapping[str, str], table: pd.DataFrame) -> str:
    """The file with corrected ``answer`` values (every CMM file carries its gold)."""
    records, jsonl = read_for_patch(path)
    patch_by_source(path, records, table, gold, PATCH)
    return dump(records.items, jsonl=jsonl)
