"""Corrected DetailVerifyBench files: tags rewritten, and the fields derived from them.

The gold sets (``real_test.jsonl`` / ``synthetic_test.jsonl``): ``description_tag``, ``Modify``
and ``hallucination_labels`` (:func:`.label_types.corrected_entries`); the pipeline output:
``gt_hallucinated_caption_with_tags``. Item ids hash the tagged gold, so a reloaded corrected file
has new ids for the items whose tags changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.detailverifybench.label_types import corrected_entries
from analysis.benchmarks.detailverifybench.tags import split_types, tagged_to_spans
from analysis.benchmarks.shared.corrected import dump, patch_by_source, read_for_patch


def write_corrected(path: Path, gold: Mapping[str, str], table: pd.DataFrame) -> str:
    """The corrected file (gold sets and pipeline outputs both carry the tagged gold)."""
    records, jsonl = read_for_patch(path)
    patch_by_source(path, records, table, gold, _patch)
    return dump(records.items, jsonl=jsonl)


def _patch(record: dict[str, Any], _row: pd.Series, value: str) -> None:
    plain, _ = split_types(value)  # the files carry official tags; a named type goes to the labels
    if "gt_hallucinated_caption_with_tags" in record:  # the pipeline output (no label entries)
        record["gt_hallucinated_caption_with_tags"] = plain
        return
    record["description_tag"] = plain
    record["Modify"] = "Yes" if tagged_to_spans(plain) else "No"
    labels = record.get("hallucination_labels")
    if isinstance(labels, list):
        record["hallucination_labels"] = corrected_entries(value, labels)
