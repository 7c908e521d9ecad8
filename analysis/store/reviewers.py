"""Review rounds: k reviewers per item, each reviewer's queue, and blind views.

:func:`assign` is a pure function: the same items, reviewers and k always give the same
assignment, whatever order they come in, so it needs no table of its own and survives restarts.
Items are put in a fixed pseudo-random order (a hash of the item id) and dealt round-robin, k at a
time, over the sorted reviewers: every item gets k different reviewers (k <= number of
reviewers) and reviewers' loads differ by at most one.

In a round, reviewers *vote* (``scope="vote"``): a vote records one reviewer's judgement and
never changes the corrected gold; an adjudicator sets that (:func:`analysis.store.agreement.adjudicate`).
A blind view shows an item without its gold, its verdicts or anyone else's votes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from analysis.store.db import Store
from analysis.store.events import Event, ItemRef, as_item, write_label
from analysis.store.identity import Identity, as_identity
from analysis.store.labels import current_labels

BLIND_COLUMNS = (
    "benchmark",
    "item_id",
    "model",
    "task",
    "category",
    "subcategory",
    "question",
    "options",
    "media",
    "pair_id",
    "side",
)
"""Item-table columns a blind reviewer may see. Everything else (gold, parsed/correct verdicts,
``extra`` with gold-bearing fields, such as the other side's gold) stays hidden."""


REVIEWERS_PER_ITEM = 2
"""How many reviewers each item and each pair is assigned to (the app's ``k``), and how many agreeing
votes decide a pair when no adjudication does."""


def _order_key(item_id: str) -> bytes:
    return hashlib.blake2b(item_id.encode("utf-8"), digest_size=8).digest()


def assign(item_ids: Iterable[str], reviewers: Iterable[str], k: int) -> pd.DataFrame:
    """Deterministic, balanced assignment of ``k`` distinct reviewers to each item.

    Returns a DataFrame with columns ``item_id``, ``reviewer`` (k rows per item).
    """
    people = sorted({str(r).strip() for r in reviewers} - {""})
    if not 1 <= k <= len(people):
        raise ValueError(f"k must be between 1 and the number of reviewers ({len(people)}), got {k}")
    items = sorted({str(i) for i in item_ids}, key=lambda i: (_order_key(i), i))
    slots = [(item, people[(n * k + j) % len(people)]) for n, item in enumerate(items) for j in range(k)]
    return pd.DataFrame(slots, columns=["item_id", "reviewer"])


def round_team(configured: Iterable[str], voters: Iterable[str], me: str | None = None) -> list[str]:
    """Who a round is dealt over: the configured reviewers, else everyone who voted; and ``me``.

    One rule for the Review tab's queue and the pair validation: with configured reviewers the
    team, and so the assignment, does not move when someone else votes.
    """
    names = {str(n) for n in configured} or {str(n) for n in voters}
    return sorted(names | ({me} if me else set()))


def vote(
    store: Store,
    item: ItemRef | Mapping[str, Any] | pd.Series,
    field: str,
    value: Any,
    reviewer: Identity,
    reason: str = "",
    *,
    event_id: str | None = None,
    request_key: str | None = None,
) -> Event:
    """Record the signed-in reviewer's own judgement of ``field`` for ``item``."""
    return write_label(
        store,
        as_item(item),
        field,
        value,
        reviewer,
        reason,
        scope="vote",
        kind="set",
        event_id=event_id,
        request_key=request_key,
    )


def my_unreviewed(store: Store, benchmark: str, assignments: pd.DataFrame, reviewer: Identity) -> list[str]:
    """Items assigned to ``reviewer`` on which they have no current vote yet, in assignment order."""
    who = as_identity(reviewer)
    mine = assignments.loc[assignments["reviewer"] == who.name, "item_id"].astype(str).tolist()
    done = set(current_labels(store, benchmark, scope="vote", reviewer=who.name)["item_id"])
    return [item for item in mine if item not in done]


def blind_view(row: Mapping[str, Any] | pd.Series, store: Store, reviewer: Identity) -> dict[str, Any]:
    """What a reviewer sees of an item in a blind round: no gold, no verdicts, only their own votes."""
    who = as_identity(reviewer)
    ref = as_item(row)
    view = {name: _plain(row.get(name)) for name in BLIND_COLUMNS}
    mine = current_labels(store, ref.benchmark, scope="vote", reviewer=who.name)
    mine = mine[mine["item_id"] == ref.item_id]
    view["my_labels"] = dict(zip(mine["field"], mine["value"], strict=True))
    return view


def _plain(value: Any) -> Any:
    if value is None or (not isinstance(value, (str, Sequence)) and pd.isna(value)):
        return None
    return value if isinstance(value, (str, int, float, bool)) else str(value)
