"""How good a ranking is: average precision, precision at k, and a Wilson interval for a share.

Used by ``bench/suspects.py`` on planted fixtures and by the app on reviewers' verdicts (the
ranker's precision at k as measured by the people who checked its top items).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def average_precision(hits: Sequence[bool], positives: int | None = None) -> float:
    """Mean of the precision at each hit's rank, over ``positives`` (default: the hits seen)."""
    total = sum(hits) if positives is None else positives
    if not total:
        return 0.0
    found, acc = 0, 0.0
    for rank, hit in enumerate(hits, start=1):
        if hit:
            found += 1
            acc += found / rank
    return acc / total


def precision_at(hits: Sequence[bool], k: int) -> float:
    """Share of hits among the first ``k`` (fewer when the ranking is shorter)."""
    top = list(hits[:k])
    return sum(top) / len(top) if top else 0.0


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of ``successes / n`` (95% by default); (0, 1) when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
