"""Telling AVHBench files apart by content: QA records (``video_id``/``id`` and ``task``/``text``...)."""

from __future__ import annotations

from pathlib import Path

from analysis.benchmarks.avhbench.read import PRED_KEYS, TEXT_KEYS, VIDEO_KEYS
from analysis.benchmarks.base import Content, Detected


def recognise(path: Path, content: Content) -> Detected | None:
    """Gold (``QA.json``) or predictions (the same records with ``pred`` / ``prediction`` / ``response``)."""
    if not isinstance(content, list):
        return None
    keys = {k for record in content for k in record}
    if not (set(VIDEO_KEYS) & keys and ({"task", "label", *TEXT_KEYS}) & keys):
        return None
    return Detected("avhbench", None, "predictions" if set(PRED_KEYS) & keys else "gold")
