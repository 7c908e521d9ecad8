"""Item tables shaped like an audio-visual yes/no benchmark, with failure slices planted on purpose.

Questions hang together on a clip (each clip has its own difficulty, so verdicts are clustered as
in the real benchmarks); every clip carries a sub-category, a modality and a correlation type, and
each question a granularity and a gold answer. ``planted`` names a two-condition slice whose
accuracy is pushed down for one model; with ``planted=None`` nothing is planted (a null run).
Used by the tests and by ``bench/slices.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

SUBCATEGORIES = ("visual-language", "audio-language", "visual-audio", "visual-audio-language")
MODALITIES = ("audio", "visual", "visual+audio")
CORRELATIONS = ("visual_dominance", "audio_dominance", "language_dominance", "co_occurrence")
GRANULARITIES = ("object-level", "event-level")
PLANTED = (("category", "audio-language"), ("gold", "no"))
"""The slice planted by default: audio-language probes whose gold is no."""


def planted_table(
    seed: int,
    *,
    clips: int = 300,
    models: tuple[str, ...] = ("model-a",),
    planted: tuple[tuple[str, str], ...] | None = PLANTED,
    drop: float = 2.5,
    clip_sd: float = 1.0,
) -> pd.DataFrame:
    """One CMM-shaped item table: ``clips`` clips x 4 questions x each model.

    A model answers right with probability ``logistic(1.2 + clip effect + model effect)``; in the
    planted slice the first model's logit is lowered by ``drop``.
    """
    rng = np.random.default_rng(seed)
    clip_effect = rng.normal(0.0, clip_sd, clips)
    sub = rng.choice(SUBCATEGORIES, clips)
    modality = rng.choice(MODALITIES, clips)
    correlation = rng.choice(CORRELATIONS, clips)
    frames = []
    for m, model in enumerate(models):
        clip = np.repeat(np.arange(clips), 4)
        granularity = np.tile(np.repeat(GRANULARITIES, 2), clips)
        gold = np.tile(["yes", "no"], 2 * clips)
        logit = 1.2 + clip_effect[clip] + rng.normal(0.0, 0.3)
        columns = {"category": sub[clip], "subcategory": granularity, "gold": gold}
        if planted is not None and m == 0:
            inside = np.ones(clip.size, dtype=bool)
            for column, value in planted:
                inside &= columns[column] == value
            logit = logit - drop * inside
        right = rng.random(clip.size) < 1.0 / (1.0 + np.exp(-logit))
        parsed = np.where(right, gold, np.where(gold == "yes", "no", "yes"))
        extra = [
            json.dumps({"modality": str(modality[c]), "correlation_type": str(correlation[c])}) for c in clip
        ]
        frames.append(
            pd.DataFrame(
                {
                    "benchmark": "cmm",
                    "item_id": [f"clip{c}-q{i % 4}" for i, c in enumerate(clip)],
                    "model": model,
                    "task": "",
                    "category": columns["category"],
                    "subcategory": granularity,
                    "gold": gold,
                    "parsed": parsed,
                    "correct": right,
                    "scored": True,
                    "media": [f"clips/{c}.mp4" for c in clip],
                    "extra": extra,
                    "side": "",
                    "pair_id": "",
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
