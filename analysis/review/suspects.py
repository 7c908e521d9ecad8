"""The Suspects queue: the ranking, the team's verdicts, and the precision they measure.

The queue ranks the items against their official gold (``docs/suspects.md``): the ranking's job
is to find wrong official gold, and a corrected item keeps its place, marked, so the verdicts
measure the precision of one fixed list. A verdict is a label: ``suspect:gold = right`` (a
reviewer confirmed the gold) or a current gold correction (the gold was wrong). Both are events
in the store like every label, so the precision shown is that of the labels as they stand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from analysis.review.access import Access
from analysis.store import Store, current_labels
from analysis.store.values import SUSPECT_FIELD
from analysis.suspects.quality import wilson
from analysis.suspects.rank import MIN_MODELS, Suspect
from analysis.suspects.spans import rank_any

CONFIRMED = "confirmed"
CORRECTED = "corrected"
SHOWN = 200
"""Items the queue lists, most suspect first."""
CHECKED_AT = (10, 50, 100)
"""The ranks at which the measured precision is shown."""


def verdicts(store: Store | None, benchmark: str) -> dict[str, str]:
    """Item id -> ``corrected`` (a current gold label) or ``confirmed`` (judged right, not corrected)."""
    if store is None:
        return {}
    labels = current_labels(store, benchmark)
    out: dict[str, str] = {}
    for item, field, value in zip(labels["item_id"], labels["field"], labels["value"], strict=True):
        if field == SUSPECT_FIELD and value == "right":
            out.setdefault(str(item), CONFIRMED)
        elif field == "gold":
            out[str(item)] = CORRECTED
    return out


def ranked(table: pd.DataFrame, benchmark: str) -> list[Suspect]:
    """The benchmark's items ranked against their official gold (the table as loaded)."""
    return rank_any(benchmark, table[(table["benchmark"] == benchmark).to_numpy(dtype=bool)])


@dataclass(frozen=True)
class Precision:
    """How many of the top ``k`` a reviewer judged, and how many of those had wrong gold."""

    k: int
    checked: int
    wrong: int

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the share wrong among the checked."""
        return wilson(self.wrong, self.checked)

    def line(self) -> str:
        """``top 50: 9 of 12 checked had wrong gold (75%, 95% CI 47-91%)``."""
        if not self.checked:
            return f"top {self.k}: none checked yet"
        low, high = self.interval
        return (
            f"top {self.k}: {self.wrong} of {self.checked} checked had wrong gold "
            f"({self.wrong / self.checked:.0%}, 95% CI {low:.0%}–{high:.0%})"
        )


def precision(
    found: Sequence[Suspect], judged: Mapping[str, str], ks: Sequence[int] = CHECKED_AT
) -> list[Precision]:
    """The ranking's measured precision at each ``k``: corrected items over judged items in the top k.

    A ``k`` past the ranking's end is its length (43 ranked items: top 10, top 43; never "top 100").
    """
    out = []
    for k in sorted({min(k, len(found)) for k in ks if len(found)}):
        top = [s.item_id for s in found[:k]]
        checked = [judged[i] for i in top if i in judged]
        out.append(Precision(k, len(checked), sum(v == CORRECTED for v in checked)))
    return out


def queue_detail(s: Suspect, judged: Mapping[str, str], access: Access) -> str:
    """The queue's detail cell: rank, score, gold and suggestion, the first reason.

    A blind reviewer gets the rank only: scores and reasons quote the gold and the answers.
    """
    mark = f" · {judged[s.item_id]}" if s.item_id in judged and access.sees_gold else ""
    if not access.sees_gold:
        return f"#{s.rank}"
    alternative = s.suggested or s.alternative or "–"
    return f"#{s.rank} · score {s.score:.1f} · gold {s.gold} → {alternative}{mark} · {s.reasons[0]}"


def suspect_ids(rows: pd.DataFrame, benchmark: str | None = None) -> set[str]:
    """Items whose gold the ranking suggests changing (none with fewer than three models)."""
    names = rows["benchmark"].astype(str).unique() if benchmark is None else [benchmark]
    out: set[str] = set()
    for name in names:
        mine = rows[(rows["benchmark"].astype(str) == name).to_numpy(dtype=bool)]
        models = {m for m in mine["model"].astype(str) if m}
        if len(models) >= MIN_MODELS:
            out |= {s.item_id for s in rank_any(str(name), mine) if s.suggested is not None}
    return out


def queued(found: Sequence[Suspect]) -> list[Suspect]:
    """The queue's items: the most suspect first, up to :data:`SHOWN`, while the evidence is against the gold.

    That is a score above 0. An item the models' answers support is no suspect: listed, it read as
    one (a queue of every item where all models agreed with the gold).
    """
    return [s for s in found[:SHOWN] if s.score > 0]


def suspect_count(found: Sequence[Suspect]) -> int:
    """Items whose evidence makes wrong gold more likely than not (a ``suggested`` value)."""
    return sum(s.suggested is not None for s in found)
