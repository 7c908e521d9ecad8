"""CMM's official answer rule, one text at a time and over whole columns.

The official script lower-cases and strips the gold and the prediction (``strip()`` first, then
``lower()``) and looks only at the first five characters of the prediction:

- correct iff the whole normalised gold is a substring of ``pred[:5]``;
- perception accuracy counts gold-yes rows (``'yes' in gold[:5]``) with ``'yes' in pred[:5]``;
- hallucination resistance counts gold-no rows (otherwise ``'no' in gold[:5]``) with
  ``'no' in pred[:5]``.

For precision, F1 and the yes ratio, which the script lacks, a prediction reads as yes when
``yes`` is in its first five characters, else no when ``no`` is, else it is unparsed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.cmm.columns import factorize
from analysis.benchmarks.shared.yesno import Reader
from analysis.stats.metrics import NO, UNPARSED, YES

Int8s = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]

YES_HIT = 1
NO_HIT = 2
"""Bits of :func:`official_hits`: ``yes`` / ``no`` found in the first five characters."""


def official_hits(pred: str) -> int:
    """Which of ``yes`` (bit 1) and ``no`` (bit 2) occur in the normalised ``pred[:5]``."""
    head = pred.strip().lower()[:5]
    return (YES_HIT if "yes" in head else 0) | (NO_HIT if "no" in head else 0)


def official_correct(gold: str, pred: str) -> bool:
    """The official verdict: the normalised gold is a substring of the normalised ``pred[:5]``."""
    return gold.strip().lower() in pred.strip().lower()[:5]


def official_code(pred: str) -> int:
    """The reading used for precision, F1 and yes ratio: yes, else no, else unparsed."""
    return hits_to_code(official_hits(pred))


def hits_to_code(hits: int) -> int:
    """Yes when ``yes`` was found, else no when ``no`` was, else unparsed."""
    if hits & YES_HIT:
        return YES
    if hits & NO_HIT:
        return NO
    return UNPARSED


def gold_class(gold: str) -> int:
    """Which PA / HR denominator a gold answer falls in: yes, no, or neither (unparsed)."""
    head = gold.strip().lower()[:5]
    if "yes" in head:
        return YES
    if "no" in head:
        return NO
    return UNPARSED


_CODE_OF_HITS = np.array([UNPARSED, YES, NO, YES], dtype=np.int8)


@dataclass
class Verdicts:
    """Per-row readings of one CMM prediction column."""

    hits: Int8s
    """Official :func:`official_hits` bits."""
    code: Int8s
    """Official reading (yes / no / unparsed)."""
    correct: Bools
    """Official verdict."""
    gold_class: Int8s
    alt_code: Int8s
    """Reading by the alternative parser."""
    alt_correct: Bools
    """Alternative reading equals the gold class."""


def verdicts(
    gold: pd.api.extensions.ExtensionArray, pred: pd.api.extensions.ExtensionArray, alt: Reader
) -> Verdicts:
    """Apply the official rule and ``alt`` to whole columns, reading each distinct text once."""
    p_codes, p_texts, _ = factorize(pred)
    g_codes, g_texts, _ = factorize(gold)
    g_norm = [g.strip().lower() for g in g_texts]
    hits = _per_unique(official_hits, p_texts)[p_codes]
    g_class = _per_unique(gold_class, g_norm)[g_codes]
    alt_code = _per_unique(alt, p_texts)[p_codes]
    kind = np.array([{"yes": YES_HIT, "no": NO_HIT}.get(g, 0) for g in g_norm], dtype=np.int8)[g_codes]
    correct = (hits & kind) != 0
    other = np.flatnonzero(kind == 0)
    if other.size:
        # A gold other than "yes"/"no" (never in the release): compare the texts themselves.
        pairs = list(zip(g_codes[other].tolist(), p_codes[other].tolist(), strict=True))
        verdict = {(g, p): g_norm[g] in p_texts[p].strip().lower()[:5] for g, p in set(pairs)}
        correct[other] = [verdict[pair] for pair in pairs]
    return Verdicts(
        hits=hits,
        code=_CODE_OF_HITS[hits],
        correct=correct,
        gold_class=g_class,
        alt_code=alt_code,
        alt_correct=(alt_code == g_class) & (g_class != UNPARSED),
    )


def _per_unique(reader: Reader, texts: list[str]) -> Int8s:
    return np.fromiter((reader(t) for t in texts), dtype=np.int8, count=len(texts))
