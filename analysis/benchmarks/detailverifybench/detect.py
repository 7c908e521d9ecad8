"""Telling DetailVerifyBench files apart by content: the pipeline output, or a gold set."""

from __future__ import annotations

from pathlib import Path

from analysis.benchmarks.base import Content, Detected


def recognise(path: Path, content: Content) -> Detected | None:
    """``tested_model_output_seed_N.json`` (predictions) or ``real_test`` / ``synthetic_test`` (gold)."""
    if not isinstance(content, list):
        return None
    keys = {k for record in content for k in record}
    if "gt_hallucinated_caption_with_tags" in keys:
        return Detected("detailverifybench", None, "predictions")
    if {"description_tag", "GT_description"} & keys:
        return Detected("detailverifybench", None, "gold")
    return None
