"""Yes/no readers shared by the yes/no benchmarks, applied to whole columns.

Each reader maps one text to a code (1 yes, 0 no, -1 unparsed, as in :mod:`analysis.stats.metrics`).
:func:`read_column` applies a reader to a column by parsing each distinct text once: model
answers repeat a great deal, so a million rows rarely hold more than a few thousand texts.

- ``first-word``: lower-case, drop punctuation, the first word decides (yes or no), anything else
  is unparsed. Strict: "Yes, there is" is yes, "There is no cat" is unparsed.
- ``negation-aware``: the first explicit answer word (yes/yeah/yep/true/correct vs.
  no/nope/false) decides; without one, a negation ("not", "n't", "never", "none", "nothing",
  "neither", "cannot", "without", "absent", "no <noun>") reads as no, an affirmation ("there is",
  "i can see", "visible", "audible", "present", "i hear") as yes, else unparsed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.stats.metrics import NO, UNPARSED, YES

Reader = Callable[[str], int]

_WORDS = re.compile(r"[a-z0-9']+")
_YES_WORDS = frozenset({"yes", "yeah", "yep", "true", "correct"})
_NO_WORDS = frozenset({"no", "nope", "false", "incorrect"})
_NEGATION = re.compile(r"\b(?:not|never|none|nothing|neither|nor|cannot|without|absent|no)\b|n't\b")
_AFFIRMATION = re.compile(
    r"\b(?:there (?:is|are)|i (?:can )?(?:see|hear)|(?:is|are) (?:visible|audible|present)"
    r"|visible|audible|present|making (?:a )?sound)\b"
)


def first_word(text: str) -> int:
    """Read the first word of the lower-cased, punctuation-free text as yes or no."""
    words = _WORDS.findall(text.lower().replace("'", ""))
    if not words:
        return UNPARSED
    if words[0] == "yes":
        return YES
    if words[0] == "no":
        return NO
    return UNPARSED


def negation_aware(text: str) -> int:
    """Read an explicit answer word, else a negation as no, else an affirmation as yes."""
    low = text.lower().replace("\u2019", "'")
    for word in _WORDS.findall(low):
        if word in _YES_WORDS:
            return YES
        if word in _NO_WORDS:
            return NO
    if _NEGATION.search(low):
        return NO
    if _AFFIRMATION.search(low):
        return YES
    return UNPARSED


READERS: dict[str, Reader] = {"first-word": first_word, "negation-aware": negation_aware}


def read_column(texts: pd.Series, reader: Reader) -> npt.NDArray[np.int8]:
    """Apply ``reader`` to every text of a column (nulls are unparsed), parsing each distinct text once."""
    codes, uniques = pd.factorize(texts, use_na_sentinel=True)
    table = np.fromiter((reader(str(u)) for u in uniques), dtype=np.int8, count=len(uniques))
    out = np.full(len(codes), UNPARSED, dtype=np.int8)
    present = codes >= 0
    out[present] = table[codes[present]]
    return out


def code_to_word(codes: npt.NDArray[np.int8]) -> pd.Series:
    """Codes as the ``parsed`` column's words: "yes", "no", or null."""
    words = np.array([None, "no", "yes"], dtype=object)[codes.astype(np.int64) + 1]
    return pd.Series(words, dtype="string")
