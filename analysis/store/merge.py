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

from sqlalchemy import Connection, select

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
    in_order: bool = True,
) -> int:
    """Insert events not yet in the store; returns how many were new.

    ``rows`` are ``(where, event)`` pairs, ``where`` naming the row in ``source`` for errors.
    New events also go to the store's mirror unless ``to_mirror`` is False (a mirror replay).
    With ``in_order`` (imports and merges), an event that would not be its label's latest by
    time, or a plain write after an adjudication, is refused (:func:`_refuse_out_of_order`):
    the current value of a label is its last event stored, so merging an older event would
    silently put an older value back. The whole merge is refused then, nothing written.
    """
    checked = [(check_event(row, source, where, origin), where) for where, row in rows]
    checked.sort(key=lambda pair: (pair[0]["created_at"], pair[0]["event_id"]))
    added = 0
    with write_tx(store) as conn:
        present = _present(conn, [r["event_id"] for r, _ in checked])
        fresh = list({r["event_id"]: (r, w) for r, w in checked if r["event_id"] not in present}.values())
        if in_order:
            _refuse_out_of_order(conn, fresh, source)
        for start in range(0, len(fresh), _CHUNK):
            chunk = [r for r, _ in fresh[start : start + _CHUNK]]
            insert_ignoring_duplicates(conn, label_events, chunk)
            if to_mirror and store.mirror is not None:
                store.mirror.append(chunk)
            added += len(chunk)
    return added


def _present(conn: Connection, ids: list[str]) -> set[str]:
    """The event ids of ``ids`` the store already holds."""
    found: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        found |= set(
            conn.execute(select(label_events.c.event_id).where(label_events.c.event_id.in_(chunk))).scalars()
        )
    return found


def _label(event: Mapping[Any, Any]) -> tuple[str, ...]:
    """The label an event writes: (benchmark, item, field, scope), and the reviewer for a vote."""
    voter = event["reviewer"] if event["scope"] == "vote" else ""
    return (event["benchmark"], event["item_key"], event["field"], event["scope"], voter)


def _refuse_out_of_order(conn: Connection, fresh: list[tuple[dict[str, Any], str]], source: str) -> None:
    """Refuse new events that would not come last in time on their label, or would undo an adjudication.

    The store's latest event of each label (by insertion, as :func:`.labels.current_labels`
    reads it) is the one a new event follows; new events follow each other by time. A plain
    write or undo of the final gold after an adjudication is refused as in the app.
    """
    latest: dict[tuple[str, ...], dict[str, Any]] = {}
    e = label_events
    items = sorted({(r["benchmark"], r["item_key"]) for r, _ in fresh})
    for start in range(0, len(items), _CHUNK):
        chunk = items[start : start + _CHUNK]
        query = (
            select(e.c.benchmark, e.c.item_key, e.c.field, e.c.scope, e.c.reviewer, e.c.created_at, e.c.kind)
            .where(e.c.item_key.in_([key for _, key in chunk]))
            .order_by(e.c.id)
        )
        for row in conn.execute(query).mappings():
            latest[_label(row)] = dict(row)
    for event, where in fresh:
        label = _label(event)
        before = latest.get(label)
        if before is not None and event["created_at"] < before["created_at"]:
            raise InputError(
                source,
                f"this event ({event['created_at']}) is older than the latest {event['field']} event of "
                f"{event['item_key']} in the store ({before['created_at']}): merging it would make an "
                "older value current",
                record=where,
                field="created_at",
            )
        settled = before is not None and before["kind"] == "adjudicate" and event["scope"] == "final"
        if before is not None and settled and event["kind"] in ("set", "undo"):
            raise InputError(
                source,
                f"{event['field']} of {event['item_key']} was settled by "
                f"{before['reviewer']}'s adjudication: "
                "only another adjudication changes it",
                record=where,
                field="kind",
            )
        latest[label] = event
