"""Item tables shaped like each choice benchmark, with wrong gold planted (``docs/suspects.md``).

Every table has 14 models of different ability and answer bias (a yes-bias on yes/no items, a
preferred letter or order elsewhere), several questions on each clip or image pair (each clip and
each question with its own difficulty), a *trap* slice in which every model, the strongest too,
fails on purpose as these benchmarks intend (CMM's visual-dominance no-probes, AVHBench's
video-driven audio probes, VidHalluc's second clip of a pair and TSH's reversed orders, CDH-Bench's
counterfactual side, where the wrong answer is the commonsense one), and ``flip`` of the items'
recorded gold changed to another value while the models answer by the true gold. 3% of answers are
unreadable. Used by the tests and by ``bench/suspects.py``; the seeds change everything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.suspects.quality import average_precision

MODELS = 14
EFFECT_SD = 0.8
"""The spread of each clip's and each question's own difficulty on the logit scale."""


@dataclass(frozen=True)
class Shape:
    """How one benchmark's items look."""

    benchmark: str
    task: str
    values: tuple[str, ...]
    """The choices, spelled as the gold files spell them."""
    per_cluster: int
    """Questions on one clip or pair."""
    binary_bias: bool
    """Whether models lean toward the first value (a yes-bias) rather than a letter of their own."""


SHAPES: dict[str, Shape] = {
    "cmm": Shape("cmm", "", ("yes", "no"), 4, True),
    "avhbench": Shape("avhbench", "", ("Yes", "No"), 4, True),
    "vidhalluc/bqa": Shape("vidhalluc", "bqa", ("Yes", "No"), 4, True),
    "vidhalluc/mcq": Shape("vidhalluc", "mcq", ("A", "B", "C", "D"), 2, False),
    "vidhalluc/tsh": Shape("vidhalluc", "tsh", ("AB", "BA"), 1, False),
    "cdh-bench/qa": Shape("cdh-bench", "qa", ("yes", "no"), 2, True),
    "cdh-bench/mc": Shape("cdh-bench", "mc", ("A", "B", "C", "D"), 2, False),
}
AVH_TASKS = ("Audio-driven Video Hallucination", "Video-driven Audio Hallucination", "Audio-visual Matching")
CMM_CATEGORIES = ("overrely_visual_ignore_audio", "overrely_audio_ignore_visual", "visual_audio_language")


@dataclass(frozen=True)
class Planted:
    table: pd.DataFrame
    wrong: frozenset[str]
    """Item ids whose recorded gold was changed."""
    true_gold: dict[str, str]
    ability: tuple[float, ...] = ()
    """Each model's ability on the logit scale, ``model-00`` first (for a ceiling computed from the
    true parameters: ``bench/suspects.py``)."""
    trap: float = 0.0
    """How far the trap slice lowers every model's logit."""


def planted(
    shape_name: str, seed: int, *, items: int = 3000, flip: float = 0.04, trap: float = 3.5
) -> Planted:
    """One benchmark-shaped table of about ``items`` items (whole clips or pairs), every model's answers."""
    s = SHAPES[shape_name]
    clusters = max(1, items // s.per_cluster)
    rng = np.random.default_rng([seed, sum(map(ord, shape_name))])
    n = clusters * s.per_cluster
    cluster = np.repeat(np.arange(clusters), s.per_cluster)
    place = np.tile(np.arange(s.per_cluster), clusters)
    k = len(s.values)
    truth = rng.integers(0, k, n)
    if s.per_cluster % 2 == 0 and k == 2:  # a yes- and a no-probe per pair of questions, as the files have
        truth = np.where(place % 2 == 0, rng.integers(0, 2, n), 0)
        truth[1::2] = 1 - truth[0::2]
    columns, in_trap = _attributes(s, rng, cluster, place, truth, clusters)
    recorded = truth.copy()
    wrong = rng.random(n) < flip
    shift = rng.integers(1, k, n)
    recorded[wrong] = (truth[wrong] + shift[wrong]) % k
    distractor = (truth + rng.integers(1, k, n)) % k  # the one tempting wrong answer of each item

    ability = np.sort(rng.uniform(-0.3, 3.2, MODELS))
    bias = rng.uniform(-0.8, 1.6, MODELS) if s.binary_bias else np.zeros(MODELS)
    favourite = rng.integers(0, k, MODELS)
    clip_effect = rng.normal(0.0, EFFECT_SD, clusters)[cluster]
    item_effect = rng.normal(0.0, EFFECT_SD, n)
    prefix = {"vidhalluc": s.task + "-", "cdh-bench": "cdh-"}.get(s.benchmark, "")
    item_ids = np.array(
        [f"{prefix}{shape_name.replace('/', '-')}-{seed}-{i}" for i in range(n)], dtype=object
    )
    frames = []
    for m in range(MODELS):
        logit = ability[m] + clip_effect + item_effect - trap * in_trap
        if s.binary_bias:
            logit = logit + np.where(truth == 0, bias[m], -bias[m])
        right = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))
        other = (truth + rng.integers(1, k, n)) % k
        pull = np.where(in_trap, 0.85, 0.5)
        if not s.binary_bias:
            liked = rng.random(n) < 0.25
            other = np.where(liked & (favourite[m] != truth), favourite[m], other)
        wrong_answer = np.where(rng.random(n) < pull, distractor, other)
        answer = np.where(right, truth, wrong_answer)
        values = np.array(s.values, dtype=object)
        parsed = values[answer]
        parsed[rng.random(n) < 0.03] = ""
        frames.append(
            pd.DataFrame(
                {
                    "benchmark": s.benchmark,
                    "item_id": item_ids,
                    "model": f"model-{m:02d}",
                    "task": s.task,
                    "gold": values[recorded],
                    "parsed": parsed,
                    "correct": (parsed == values[recorded]),
                    "scored": True,
                    **columns,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    truth_values = np.array(s.values, dtype=object)[truth]
    return Planted(
        table,
        frozenset(item_ids[wrong].tolist()),
        dict(zip(item_ids.tolist(), truth_values.tolist(), strict=True)),
        tuple(float(a) for a in ability),
        trap,
    )


def _attributes(
    s: Shape,
    rng: np.random.Generator,
    cluster: np.ndarray,
    place: np.ndarray,
    truth: np.ndarray,
    clusters: int,
) -> tuple[dict[str, object], np.ndarray]:
    """The benchmark's columns (what its ``slicing`` reads) and which items are in the trap slice."""
    n = cluster.size
    empty = np.full(n, "", dtype=object)
    media = np.array([f"clips/{c}.mp4" for c in cluster], dtype=object)
    columns: dict[str, object] = {
        "category": empty,
        "subcategory": empty,
        "media": media,
        "extra": "{}",
        "side": empty,
        "pair_id": empty,
    }
    if s.benchmark == "cmm":
        sub = np.array(CMM_CATEGORIES, dtype=object)[rng.integers(0, 3, clusters)][cluster]
        modality = np.array(["visual", "audio", "visual+audio"], dtype=object)[rng.integers(0, 3, clusters)][
            cluster
        ]
        columns["category"] = sub
        columns["extra"] = [
            json.dumps({"modality": m, "correlation_type": "visual_dominance"}) for m in modality
        ]
        return columns, (sub == CMM_CATEGORIES[0]) & (truth == 1)
    if s.benchmark == "avhbench":
        task = np.array(AVH_TASKS, dtype=object)[rng.integers(0, 3, clusters)][cluster]
        columns["task"] = task  # type: ignore[assignment]
        return columns, (task == AVH_TASKS[1]) & (truth == 1)
    pair = np.array([f"pair{c}" for c in cluster], dtype=object)
    if s.benchmark == "vidhalluc":
        if s.task == "tsh":
            return columns, truth == 1
        side = np.array(
            [f"pair{c}_clip_{1 + p % 2}" for c, p in zip(cluster, place, strict=True)], dtype=object
        )
        columns.update(pair_id=pair, side=side)
        return columns, (place % 2 == 1)
    sides = np.where(place % 2 == 0, "commonsense", "counterfactual").astype(object)
    columns.update(
        pair_id=pair,
        side=sides,
        category=np.array(["Counting Anomalies", "Color Anomalies"], dtype=object)[cluster % 2],
    )
    return columns, sides == "counterfactual"


def tsh_ceiling(p: Planted) -> float:
    """The average precision of the best ranking any method could reach on a planted TSH table.

    TSH tables have one question a video, so an item's whole difficulty is one normal effect (clip
    and question, :data:`EFFECT_SD` each), and two choices, so a wrong answer is the other order.
    Knowing every model's true ability and the trap (the reversed order, "BA"), the likelihood of an
    item's answers under each true order is exact once that effect is integrated out (40-point
    Gauss-Hermite quadrature). Ranking by the ratio of the other order against the recorded gold is
    then Bayes-optimal, since every item has the same prior.
    """

    t = p.table[p.table["parsed"] != ""]
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    effect = nodes * np.sqrt(2.0) * EFFECT_SD
    weights = weights / weights.sum()
    ability = np.asarray(p.ability)
    scores: dict[str, float] = {}
    for item, rows in t.groupby("item_id", sort=False):
        m = rows["model"].str[-2:].astype(int).to_numpy()
        says_reversed = (rows["parsed"] == "BA").to_numpy()
        like = []
        for reversed_ in (False, True):
            logit = ability[m][None, :] + effect[:, None] - p.trap * reversed_
            right = 1.0 / (1.0 + np.exp(-logit))
            each = np.where(says_reversed[None, :] == reversed_, right, 1.0 - right)
            like.append(float(np.log(np.prod(each, axis=1) @ weights)))
        recorded_reversed = bool(rows["gold"].iloc[0] == "BA")
        scores[str(item)] = like[not recorded_reversed] - like[recorded_reversed]
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return average_precision([i in p.wrong for i in order], len(p.wrong))
