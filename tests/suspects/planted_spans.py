"""Tagged captions with wrong gold spans planted, shaped like DetailVerifyBench (``docs/suspects.md``).

Each caption has 40 words and one to three hallucinated spans of one to three words. Ten models tag
each truly hallucinated word with their own recall (0.25 to 0.85) and each other word with their own
false-alarm rate (0.3% to 4%), a word at a time, and tag whole spans more often than not (a model
that finds one word of a span finds its neighbours with probability 0.8). In ``flip`` of the
captions the gold is wrong: a true span left out, or a span the image does not support added.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from analysis.benchmarks.detailverifybench.tagging import TAGGING

WORDS = 40
MODELS = 10


def planted_captions(
    seed: int, *, captions: int = 300, flip: float = 0.06
) -> tuple[pd.DataFrame, frozenset[str]]:
    """(an item table of ``captions`` captions x 10 models, the item ids whose gold is wrong)."""
    rng = np.random.default_rng([seed, 7])
    recall = np.linspace(0.25, 0.85, MODELS)
    false_alarm = np.linspace(0.04, 0.003, MODELS)
    rows, wrong = [], set()
    for c in range(captions):
        text = " ".join(f"w{c}x{i}" for i in range(WORDS)) + "."
        truth: set[int] = set()
        for _ in range(rng.integers(1, 4)):
            start = int(rng.integers(0, WORDS - 3))
            truth |= set(range(start, start + int(rng.integers(1, 4))))
        gold = set(truth)
        item = f"cap{seed}-{c}.png:{c:04d}"
        if rng.random() < flip:
            wrong.add(item)
            if rng.random() < 0.5:  # a true span left out of the gold
                first = min(truth)
                gold -= {t for t in truth if abs(t - first) < 3}
            else:  # a span added that nothing in the image supports
                start = int(rng.integers(0, WORDS - 2))
                gold |= set(range(start, start + 2)) - truth
        tokens = len(TAGGING.tokens(text))
        gold_tagged = TAGGING.tag_tokens(text, sorted(t for t in gold if t < tokens))
        for m in range(MODELS):
            tagged = set()
            for t in range(WORDS):
                p = recall[m] if t in truth else false_alarm[m]
                if t - 1 in tagged and (t in truth) == (t - 1 in truth):
                    p = max(p, 0.8) if t in truth else p
                if rng.random() < p:
                    tagged.add(t)
            answer = TAGGING.tag_tokens(text, sorted(t for t in tagged if t < tokens))
            rows.append(
                {
                    "benchmark": "detailverifybench",
                    "item_id": item,
                    "model": f"model-{m}",
                    "task": "",
                    "category": "",
                    "subcategory": "",
                    "gold": gold_tagged,
                    "raw_answer": answer,
                    "parsed": "",
                    "correct": False,
                    "scored": True,
                    "media": item.split(":")[0],
                    "extra": json.dumps({"data_source": "synthetic"}),
                    "side": "",
                    "pair_id": "",
                }
            )
    return pd.DataFrame(rows), frozenset(wrong)
