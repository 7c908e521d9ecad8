"""Telling CMM files apart by content: rows with ``sub_category`` and ``granularity`` / ``modality``."""

from __future__ import annotations

from pathlib import Path

from analysis.benchmarks.base import Content, Detected


def recognise(path: Path, content: Content) -> Detected | None:
    """Gold rows, or the same rows with the model's ``pred`` (the official scorer's input)."""
    if not isinstance(content, list):
        return None
    keys = {k for record in content for k in record}
    if "sub_category" not in keys or not {"granularity", "modality"} & keys:
        return None
    # "prediction": the answer column of a VLMEvalKit file (analysis.files.harness)
    return Detected("cmm", None, "predictions" if {"pred", "prediction"} & keys else "gold")
