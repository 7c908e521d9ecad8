"""Telling CDH-Bench files apart by content: ``pair_id`` with the question blocks, or with the results."""

from __future__ import annotations

from pathlib import Path

from analysis.benchmarks.base import Content, Detected


def recognise(path: Path, content: Content) -> Detected | None:
    """``benchmark.jsonl`` (gold: ``direct_qa`` / ``multiple_choice``) or ``results.jsonl``."""
    if not isinstance(content, list):
        return None
    keys = {k for record in content for k in record}
    if "pair_id" not in keys:
        return None
    if {"direct_qa", "multiple_choice"} & keys:
        return Detected("cdh-bench", None, "gold")
    if {"side", "status", "cf_gt"} & keys:
        return Detected("cdh-bench", None, "predictions")
    return None
