"""Corrected DetailVerifyBench files: tags rewritten, and the fields derived from them.

The gold sets (``real_test.jsonl`` / ``synthetic_test.jsonl``): ``description_tag``, ``Modify``
and the ``hallucination_labels`` whose text is still tagged; the pipeline output:
``gt_hallucinated_caption_with_tags``. Item ids hash the tagged gold, so a reloaded corrected file
has new ids for the items whose tags changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.benchmarks.detailverifybench.tags import tagged_to_spans, untag
from analysis.benchmarks.shared.corrected import dump, patch_by_source, read_for_patch

_WORDS = re.compile(r"\W+")


def write_corrected(path: Path, gold: Mapping[str, str], table: pd.DataFrame) -> str:
    """The corrected file (gold sets and pipeline outputs both carry the tagged gold)."""
    records, jsonl = read_for_patch(path)
    patch_by_source(path, records, table, gold, _patch)
    return dump(records.items, jsonl=jsonl)


def _patch(record: dict[str, Any], _row: pd.Series, value: str) -> None:
    if "gt_hallucinated_caption_with_tags" in record:  # the pipeline output
        record["gt_hallucinated_caption_with_tags"] = value
        return
    record["description_tag"] = value
    spans = tagged_to_spans(value)
    record["Modify"] = "Yes" if spans else "No"
    clean = untag(value)
    tagged = {_WORDS.sub("", clean[s:e].lower()) for s, e in spans}
    labels = record.get("hallucination_labels")
    if isinstance(labels, list):
        record["hallucination_labels"] = [
            entry
            for entry in labels
            if isinstance(entry, dict) and _WORDS.sub("", str(entry.get("text", "")).lower()) in tagged
        ]
