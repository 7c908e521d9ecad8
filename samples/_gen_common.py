"""Shared helpers of the sample generator: seeded randomness, deterministic JSON writers, models.

Everything random goes through :func:`rng`, a ``random.Random`` seeded from a string (string
seeds are hashed with SHA-512 by ``random``, so they do not depend on ``PYTHONHASHSEED``).
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

MODELS: tuple[str, ...] = ("yes-biased", "balanced", "commonsense-prior")
"""The three simulated models every benchmark gets, each with a distinct failure pattern."""

SEED = "halluscope-samples-v1"
"""Root seed; change it and every sample changes."""

T = TypeVar("T")


def rng(*parts: str) -> random.Random:
    """A generator seeded by the root seed and ``parts`` (one stream per benchmark/model/purpose)."""
    return random.Random("/".join((SEED, *parts)))


def int_seed(*parts: str) -> int:
    """A 32-bit integer seed for numpy, stable across runs and platforms."""
    return zlib.crc32("/".join((SEED, *parts)).encode("utf-8"))


def pick(r: random.Random, options: Sequence[T]) -> T:
    """One element of ``options``; a named wrapper so call sites read as what they do."""
    return options[r.randrange(len(options))]


def write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented UTF-8 JSON with a final newline (byte-identical across runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one compact JSON object per line, as the benchmarks' own pipelines do."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")


def rel(path: Path, root: Path) -> str:
    """``path`` relative to the samples root, with forward slashes (manifest form)."""
    return path.relative_to(root).as_posix()


def prediction_entry(
    path: Path, root: Path, *, task: str | None = None, gold: Path | None = None
) -> dict[str, Any]:
    """One manifest prediction entry; the model is the file's stem by construction."""
    return {
        "path": rel(path, root),
        "model": path.stem,
        "task": task,
        "gold": rel(gold, root) if gold is not None else None,
    }


def video_info(duration: float, *, audio: bool, broken: bool = False) -> dict[str, Any]:
    """A media-index entry for a video: what a test (or the app) may expect of the file."""
    info: dict[str, Any] = {"kind": "video", "duration": duration, "audio": audio}
    if broken:
        info["broken"] = True
    return info


def audio_info(duration: float) -> dict[str, Any]:
    """A media-index entry for a wav file."""
    return {"kind": "audio", "duration": duration}


def image_info(size: tuple[int, int]) -> dict[str, Any]:
    """A media-index entry for an image."""
    return {"kind": "image", "width": size[0], "height": size[1]}
