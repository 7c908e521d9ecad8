"""Reading labels: every event, the current value of each label, and the pure fold behind it.

The current value of a label is its latest event (by the local, increasing ``id``). The SQL of
:func:`current_labels` and the Python fold of :func:`replay` must always agree; a property test
checks that they do on random sequences of relabels and undos.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from sqlalchemy import func, select

from analysis.store.db import Store, read_tx
from analysis.store.schema import EVENT_COLUMNS, label_events

LABEL_COLUMNS = ("item_id", "field", "value", "reviewer", "time", "reason", "event_id")
"""Columns of :func:`current_labels`."""


def events_frame(store: Store, benchmark: str | None = None, *, scope: str | None = None) -> pd.DataFrame:
    """Every event (of one benchmark, one scope), oldest first, as a DataFrame."""
    e = label_events
    query = select(e).order_by(e.c.id)
    if benchmark is not None:
        query = query.where(e.c.benchmark == benchmark)
    if scope is not None:
        query = query.where(e.c.scope == scope)
    with read_tx(store) as conn:
        rows = conn.execute(query).all()
    return _with_none(pd.DataFrame([r._asdict() for r in rows], columns=["id", *EVENT_COLUMNS]))


def current_labels(
    store: Store,
    benchmark: str,
    *,
    scope: str = "final",
    reviewer: str | None = None,
    include_cleared: bool = False,
) -> pd.DataFrame:
    """The current value of every label of ``benchmark``: columns :data:`LABEL_COLUMNS`.

    In the ``final`` scope one row per (item, field) and ``reviewer`` is who set it; in the
    ``vote`` scope one row per (item, field, reviewer). ``reviewer=`` keeps only that reviewer's
    rows (a blind view). Cleared labels (value None) are left out unless ``include_cleared``.
    """
    e = label_events
    keys = [e.c.item_key, e.c.field] + ([e.c.reviewer] if scope == "vote" else [])
    latest = select(func.max(e.c.id).label("id")).where(e.c.benchmark == benchmark, e.c.scope == scope)
    if reviewer is not None:
        latest = latest.where(e.c.reviewer == reviewer)
    sub = latest.group_by(*keys).subquery()
    query = (
        select(e.c.item_key, e.c.field, e.c.new_value, e.c.reviewer, e.c.created_at, e.c.reason, e.c.event_id)
        .join(sub, e.c.id == sub.c.id)
        .order_by(e.c.id)
    )
    with read_tx(store) as conn:
        rows = conn.execute(query).all()
    frame = _with_none(pd.DataFrame([tuple(r) for r in rows], columns=list(LABEL_COLUMNS)))
    if not include_cleared:
        frame = frame[frame["value"].notna()].reset_index(drop=True)
    return frame


LabelKey = tuple[str, str, str, str, str]
"""(benchmark, item, field, scope, owner): owner is the reviewer in the vote scope, else empty."""


def _with_none(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as Python objects with None for null (not NaN), as the database has them."""
    text = [c for c in frame.columns if c != "id"]
    frame[text] = frame[text].astype(object).where(frame[text].notna(), None)
    return frame


def replay(events: pd.DataFrame | Iterable[Mapping[str, Any]]) -> dict[LabelKey, str | None]:
    """Fold events (oldest first) into current values: {(benchmark, item, field, scope, owner): value}.

    The pure counterpart of :func:`current_labels`, used to rebuild and to check a store.
    """
    rows = events.to_dict("records") if isinstance(events, pd.DataFrame) else events
    state: dict[LabelKey, str | None] = {}
    for row in rows:
        scope = str(row.get("scope") or "final")
        owner = str(row["reviewer"]) if scope == "vote" else ""
        value = row.get("new_value")
        state[(str(row["benchmark"]), str(row["item_key"]), str(row["field"]), scope, owner)] = (
            None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
        )
    return state
