"""What the review handlers share (the catalog, the store, reviewers), and the refusal they raise.

Kept apart from :mod:`components.review.panel` so that the panel and the span picker both use it
without importing each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.load.catalog import Catalog
from analysis.review.access import Access, Roles
from analysis.store import Identity, Store
from analysis.store.reviewers import REVIEWERS_PER_ITEM
from analysis.store.values import official_value
from analysis.suspects.rank import Suspect
from components.browse.item_changes import ItemChanges, SessionCounts


class Refused(Exception):
    """A write the app will not make (no reviewer, a bad value, nothing to change)."""


@dataclass
class ReviewContext:
    """What review handlers share: the catalog, the label store (None: read-only), reviewers."""

    catalog: Catalog
    store: Store | None = None
    reviewers: tuple[str, ...] = ()
    """Configured reviewer names (the password users), for round assignment."""
    k: int = REVIEWERS_PER_ITEM
    oauth: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    adjudicators: frozenset[str] = frozenset()
    """Who may settle disagreements (``--adjudicator NAME`` / ``$HALLUSCOPE_ADJUDICATORS``)."""
    blind: frozenset[str] = frozenset()
    """Reviewers who review blind (``--blind NAME`` / ``$HALLUSCOPE_BLIND``): the server sends them
    no gold, verdict, metric or other reviewer's label, whatever the browser asks for."""
    item_changes: ItemChanges = field(default_factory=ItemChanges)
    """Per session, how often a handler set the inspected item (a filter's clearing stands down
    when an item was opened while it ran)."""
    queue_fills: SessionCounts = field(default_factory=SessionCounts)
    """Per session, the Review tab's queue fills started (*Show queue*, the tab's opening, a
    benchmark change): a fill that finishes after a newer one has started stands down, so the
    queue shown is the one asked for last."""

    read_only: str = ""
    """Why no store could be opened for writing (what opening it said); "" when none was refused."""
    ranked: dict[str, list[Suspect]] = field(default_factory=dict)
    """The suspect ranking per benchmark, computed on first request (the catalog never changes)."""
    gold_changes_shown: dict[str, tuple[tuple[int, int, int], str]] = field(default_factory=dict)
    """Per benchmark, the overview's three-gold table with the corrections it was made for (a
    switch back, or a save that corrects nothing there, reuses it)."""

    def suspects(self, benchmark: str) -> list[Suspect]:
        """The benchmark's items ranked by how likely their official gold is wrong."""
        from analysis.review.suspects import ranked

        if benchmark not in self.ranked:
            self.ranked[benchmark] = ranked(self.catalog.table, benchmark)
        return self.ranked[benchmark]

    @property
    def roles(self) -> Roles:
        """Who adjudicates and who reviews blind."""
        return Roles(self.adjudicators, self.blind)

    def access(self, who: Identity | None) -> Access:
        """What ``who`` may see and do (:mod:`analysis.review.access` decides; a visitor: None)."""
        return Access.of(who.name if who is not None else None, self.roles, writable=self.store is not None)

    def refuse(self, who: Identity | None, action: str) -> None:
        """Raise :class:`Refused` with the one line :meth:`Access.refusal` gives, unless ``who`` may write."""
        why = self.access(who).refusal(action, self.read_only)
        if why is not None:
            raise Refused(why)

    def row(self, row: int | None) -> pd.Series:
        """The server's table row (raises :class:`Refused` for no or an unknown row)."""
        if row is None or not 0 <= int(row) < len(self.catalog.table):
            raise Refused("Select an item first.")
        return self.catalog.table.iloc[int(row)]


def official_of(item: pd.Series) -> str | None:
    """The item's official gold as its files spell it (None when it has none).

    The store's :func:`~analysis.store.values.official_value`: a message says what a correction
    replaced, whole.
    """
    return official_value(item)


def extra_of(item: pd.Series) -> dict[str, Any]:
    """The item's ``extra`` fields as an object (``{}`` when it holds none or is not JSON)."""
    try:
        found = json.loads(str(item.get("extra") or "{}"))
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
