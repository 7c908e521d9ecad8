"""Bringing events from elsewhere into a store: imports and mirror replays, idempotently.

An event is known by its ``event_id``: merging the same file twice, or a file that overlaps the
store, adds each event once. Incoming events are checked field by field (a bad row is an
:class:`~analysis.errors.InputError` naming the source, the row and the field) and inserted
oldest first, so each label's events keep their order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from analysis.errors import InputError
from analysis.store.db import Store, insert_ignoring_duplicates, write_tx
from analysis.store.events import KINDS, SCOPES
from analysis.store.schema import EVENT_COLUMNS, label_events
from analysis.store.values import ALL_FIELDS

_REQUIRED = ("event_id", "benchmark", "item_key", "field", "reviewer", "created_at")
_CHUNK = 500


def _text(value: Any) -> str | None:
    """Text or None; NaN (a missing cell in CSV or Parquet) and empty strings count as None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


def _time(value: str) -> str:
    stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_event(row: Mapping[str, Any], source: str, where: str, origin: str) -> dict[str, Any]:
    """One incoming event as a row of ``label_events``, or an InputError saying what is wrong."""
    out: dict[str, Any] = {name: _text(row.get(name)) for name in EVENT_COLUMNS}
    for name, value in out.items():
        if value is not None and "\x00" in value:  # PostgreSQL refuses it in text: refused on both
            raise InputError(source, "holds a NUL character (\\x00)", record=where, field=name)
    for name in _REQUIRED:
        if not out[name]:
            raise InputError(source, "missing", record=where, field=name)
    checks = (("field", ALL_FIELDS), ("scope", SCOPES), ("kind", KINDS))
    out["scope"] = out["scope"] or "final"
    out["kind"] = out["kind"] or "set"
    for name, allowed in checks:
        if out[name] not in allowed:
            problem = f"{out[name]!r} is not one of {', '.join(allowed)}"
            raise InputError(source, problem, record=where, field=name)
    if not 8 <= len(out["event_id"]) <= 64:
        raise InputError(source, "must be 8 to 64 characters", record=where, field="event_id")
    try:
        out["created_at"] = _time(out["created_at"])
    except ValueError:
        raise InputError(source, "not an ISO 8601 time", record=where, field="created_at") from None
    out["reason"] = out["reason"] or ""
    out["scoring_version"] = out["scoring_version"] or ""
    out["origin"] = origin  # how the event reached *this* store
    return out


def insert_events(
    store: Store,
    rows: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    source: str,
    origin: str,
    to_mirror: bool = True,
) -> int:
    """Insert events not yet in the store; returns how many were new.

    ``rows`` are ``(where, event)`` pairs, ``where`` naming the row in ``source`` for errors.
    New events also go to the store's mirror unless ``to_mirror`` is False (a mirror replay).
    """
    checked = [check_event(row, source, where, origin) for where, row in rows]
    checked.sort(key=lambda r: (r["created_at"], r["event_id"]))
    added = 0
    with write_tx(store) as conn:
        for start in range(0, len(checked), _CHUNK):
            chunk = checked[start : start + _CHUNK]
            ids = [r["event_id"] for r in chunk]
            present = set(
                conn.execute(
                    select(label_events.c.event_id).where(label_events.c.event_id.in_(ids))
                ).scalars()
            )
            fresh = list({r["event_id"]: r for r in chunk if r["event_id"] not in present}.values())
            insert_ignoring_duplicates(conn, label_events, fresh)
            if to_mirror and store.mirror is not None:
                store.mirror.append(fresh)
            added += len(fresh)
    return added
