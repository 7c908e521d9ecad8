"""DINO-HEAL style saliency overlays: where DINOv2 looks in each sampled frame of a pair's clips.

The map (:meth:`analysis.review.pairs.embed.Encoder.saliency`) is drawn over the frame as a heat
map, scaled per frame from its lowest value (transparent) to its highest (full yellow over red),
so where a frame's attention sits shows even when it is spread thinly (``docs/pair-scores.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.review.pairs.embed import Encoder
from analysis.review.pairs.scores import sample_frames


def overlay(frame: Any, saliency: np.ndarray) -> Any:
    """``frame`` (a PIL image) with ``saliency`` (rows x cols) drawn over it as a heat map."""
    from PIL import Image

    low, high = float(saliency.min()), float(saliency.max())
    scaled = (saliency - low) / (high - low) if high > low else np.zeros_like(saliency)
    heat = Image.fromarray((scaled * 255).astype(np.uint8)).resize(frame.size, Image.Resampling.BILINEAR)
    level = np.asarray(heat, dtype=np.float32) / 255.0
    colour = np.stack([np.full_like(level, 255.0), 255.0 * level, np.zeros_like(level)], axis=-1)
    base = np.asarray(frame.convert("RGB"), dtype=np.float32)
    alpha = (0.65 * level)[..., None]
    mixed = base * (1 - alpha) + colour * alpha
    return Image.fromarray(mixed.astype(np.uint8))


def clip_overlays(path: Path, dino: Encoder, frames: int) -> list[Any]:
    """Every sampled frame of one clip with its saliency drawn over it."""
    sampled = sample_frames(path, frames)
    maps, _ = dino.saliency(sampled)
    return [overlay(f, m) for f, m in zip(sampled, maps, strict=True)]


def write_overlays(
    pairs: pd.DataFrame,
    resolve: Callable[[str], Path | None],
    dino: Encoder,
    out: Path,
    *,
    frames: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[str]]:
    """PNG files ``out/<pair>/<clip>_<k>.png``; (files written, each unreadable clip with why)."""
    written, problems = 0, []
    for done, (pair_id, clips, media) in enumerate(
        zip(pairs["pair_id"], pairs["clips"], pairs["media"], strict=True), start=1
    ):
        for clip_id in clips:
            path = resolve(str(media.get(clip_id, "")))
            try:
                if path is None:
                    raise FileNotFoundError(str(media.get(clip_id)))
                images = clip_overlays(path, dino, frames)
            except Exception as exc:  # a missing or broken clip is reported, the others still drawn
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                problems.append(f"{clip_id}: {first[:160]}")
                continue
            folder = out / _safe(str(pair_id))
            folder.mkdir(parents=True, exist_ok=True)
            for k, image in enumerate(images):
                image.save(folder / f"{_safe(str(clip_id))}_{k}.png")
                written += 1
        if progress is not None:
            progress(done, len(pairs))
    return written, problems


def _safe(name: str) -> str:
    """A file name from an id: letters, digits, ``-`` and ``_`` kept, anything else ``_``."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "_"


def overlay_at(path: Path, dino: Encoder, seconds: float) -> Any:
    """The frame of a clip at ``seconds`` (clamped to the clip) with its saliency drawn over it."""
    from PIL import Image

    from analysis.review.pairs.preview_media import last_time, open_clip

    with open_clip(path) as clip:
        t = min(max(0.0, float(seconds)), last_time(clip))
        frame = Image.fromarray(np.asarray(clip.get_frame(t))).convert("RGB")
    maps, _ = dino.saliency([frame])
    return overlay(frame, maps[0])
