"""What the review handlers share (the catalog, the store, reviewers), and the refusal they raise.

Kept apart from :mod:`components.review.panel` so that the panel and the span picker both use it
without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.catalog import Catalog
from analysis.store import Store


class Refused(Exception):
    """A write the app will not make (no reviewer, a bad value, nothing to change)."""


@dataclass
class ReviewContext:
    """What review handlers share: the catalog, the label store (None: read-only), reviewers."""

    catalog: Catalog
    store: Store | None = None
    reviewers: tuple[str, ...] = ()
    """Configured reviewer names (the password users), for round assignment."""
    k: int = 2
    oauth: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def row(self, row: int | None) -> pd.Series:
        """The server's table row (raises :class:`Refused` for no or an unknown row)."""
        if row is None or not 0 <= int(row) < len(self.catalog.table):
            raise Refused("Select an item first.")
        return self.catalog.table.iloc[int(row)]
