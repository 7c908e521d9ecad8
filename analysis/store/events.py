"""Labels are events: insert-only rows; the current value of a label is its latest event.

A label is identified by (benchmark, item, field, scope, owner). ``scope`` is ``final`` for the
shared corrected value (relabels, undos, adjudications: any reviewer's latest event wins) or
``vote`` for one reviewer's independent judgement in a multi-reviewer round (the owner is that
reviewer; votes never change the corrected gold until adjudicated).

Nothing here ever updates or deletes an event (the database refuses it too, see migration
``0003_insert_only``). Undo is a new event that restores the value before the event it undoes;
undoing again steps further back. Each event carries a unique ``event_id`` so a retried write or
an imported file never adds it twice. A client that cannot choose the event id gives a
``request_key`` instead (its idempotency key, unique per reviewer, stored with the event): a retry
with the same key returns the first event, and a key reused for a different write is refused.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from analysis.store.db import Store, lock_label, read_tx, write_tx
from analysis.store.identity import Identity, as_identity
from analysis.store.schema import label_events
from analysis.store.values import InvalidLabel, check_reason, normalize, official_value

SCOPES = ("final", "vote")
KINDS = ("set", "undo", "adjudicate")

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


class NoChange(ValueError):
    """A relabel to the value the label already has."""


class Settled(InvalidLabel):
    """A plain write or undo of a label an adjudication settled: only another adjudication changes it."""


class NothingToUndo(ValueError):
    """An undo on a label with no event left to undo."""


@dataclass(frozen=True)
class ItemRef:
    """Which item a label is about (a row of the item table gives all of it)."""

    benchmark: str
    item_id: str
    task: str = ""
    gold: str | None = None
    """The official gold, when known: it is the ``old_value`` of the first correction."""


@dataclass(frozen=True)
class Event:
    """One row of ``label_events``."""

    event_id: str
    benchmark: str
    item_key: str
    field: str
    old_value: str | None
    new_value: str | None
    reviewer: str
    reason: str
    created_at: str
    scoring_version: str
    scope: str = "final"
    kind: str = "set"
    undo_of: str | None = None
    origin: str = ""
    request_key: str | None = None
    """The writer's idempotency key (local to this store; see the module docstring)."""
    id: int | None = None

    def as_row(self) -> dict[str, Any]:
        """The event's portable columns (everything but the local ``id``)."""
        row = asdict(self)
        row.pop("id")
        return row


def as_item(item: ItemRef | Mapping[str, Any] | pd.Series) -> ItemRef:
    """An :class:`ItemRef` from itself, or from an item-table row (a Series or a mapping)."""
    if isinstance(item, ItemRef):
        return item
    get = item.get
    benchmark, item_id = get("benchmark"), get("item_id")
    if not benchmark or not item_id:
        raise InvalidLabel("an item needs its benchmark and item_id")
    return ItemRef(str(benchmark), str(item_id), str(get("task") or ""), official_value(item))


_ANY: Any = object()
"""The ``intended`` of a write whose value a retry need not match (an undo decides its own)."""


def relabel(
    store: Store,
    item: ItemRef | Mapping[str, Any] | pd.Series,
    field: str,
    new: Any,
    reviewer: Identity,
    reason: str = "",
    *,
    event_id: str | None = None,
    request_key: str | None = None,
    require_reason: bool = False,
) -> Event:
    """Set the corrected value of ``field`` for ``item`` (``None`` clears it); returns the event.

    ``require_reason``: a change (not a write of the current value) without a reason is refused.
    """
    return write_label(
        store,
        as_item(item),
        field,
        new,
        reviewer,
        reason,
        scope="final",
        kind="set",
        event_id=event_id,
        request_key=request_key,
        require_reason=require_reason,
    )


def undo(
    store: Store,
    item: ItemRef | Mapping[str, Any] | pd.Series,
    field: str,
    reviewer: Identity,
    reason: str = "",
    *,
    scope: str = "final",
    event_id: str | None = None,
    request_key: str | None = None,
) -> Event:
    """Undo the latest event not yet undone on this label, as a new event restoring its old value.

    In the ``vote`` scope a reviewer undoes only their own votes.
    """
    ref, who = as_item(item), as_identity(reviewer)

    def decide(history: list[Event]) -> tuple[str | None, str | None, str | None]:
        target = undo_target(history)
        if target is None:
            raise NothingToUndo(f"nothing to undo on {field} of {ref.item_id}")
        return target.old_value, history[-1].new_value, target.event_id

    return _write(store, ref, field, who, reason, scope, "undo", event_id, decide, request_key)


def write_label(
    store: Store,
    ref: ItemRef,
    field: str,
    new: Any,
    reviewer: Identity,
    reason: str,
    *,
    scope: str,
    kind: str,
    event_id: str | None = None,
    allow_same: bool = False,
    request_key: str | None = None,
    require_reason: bool = False,
) -> Event:
    """Write a new value (the shared path of relabel, vote and adjudicate).

    A value equal to the current one is refused (:class:`NoChange`) unless ``allow_same``: an
    adjudication that confirms the current value is still a decision worth recording.
    """
    who = as_identity(reviewer)
    value = normalize(field, new, benchmark=ref.benchmark, task=ref.task, original=ref.gold)
    why = reason.strip() if isinstance(reason, str) else "x"
    return _write(
        store,
        ref,
        field,
        who,
        reason,
        scope,
        kind,
        event_id,
        _set_to(ref, field, value, scope, allow_same, need_reason=require_reason and not why),
        request_key,
        value,
    )


def _canonical(field: str, value: str | None, ref: ItemRef) -> str | None:
    """A stored or official value in canonical spelling (``Yes`` -> ``yes``), as is if it has none."""
    try:
        return normalize(field, value, benchmark=ref.benchmark, task=ref.task, original=ref.gold)
    except InvalidLabel:
        return value


Decide = Callable[[list[Event]], tuple[str | None, str | None, str | None]]


def _write(
    store: Store,
    ref: ItemRef,
    field: str,
    who: Identity,
    reason: str,
    scope: str,
    kind: str,
    event_id: str | None,
    decide: Decide,
    request_key: str | None = None,
    intended: Any = _ANY,
) -> Event:
    if scope not in SCOPES:
        raise InvalidLabel(f"unknown scope {scope!r}")
    check_reason(reason)
    eid = _check_event_id(event_id)
    key = _check_request_key(request_key)
    try:
        with write_tx(store) as conn:
            return _insert(
                conn,
                store,
                ref,
                field,
                who,
                reason,
                scope,
                kind,
                eid,
                decide,
                key,
                known_id=event_id is not None,
                intended=intended,
            )
    except IntegrityError:
        # the same key or event id committed by a concurrent attempt (PostgreSQL: both missed it)
        with read_tx(store) as conn:
            existing = _retried(conn, eid if event_id is not None else None, who, key)
        if existing is None:
            raise
        return _same_write(existing, ref, field, kind, intended)


def _retried(conn: Connection, event_id: str | None, who: Identity, key: str | None) -> Event | None:
    """The event a previous attempt of this write stored (by event id, or by reviewer and key)."""
    if event_id is not None:
        found = _by_event_id(conn, event_id)
        if found is not None:
            return found
    if key is None:
        return None
    e = label_events
    row = conn.execute(select(e).where(e.c.reviewer == who.name, e.c.request_key == key)).first()
    return None if row is None else Event(**row._asdict())


def _same_write(event: Event, ref: ItemRef, field: str, kind: str, intended: Any = _ANY) -> Event:
    """The first event of a retried write; InvalidLabel when the key was used for another write.

    ``intended``: the value this attempt writes (canonical); a retry must write the same one, or
    the client would take its second value for saved.
    """
    if (event.benchmark, event.item_key, event.field, event.kind) != (
        ref.benchmark,
        ref.item_id,
        field,
        kind,
    ):
        raise InvalidLabel(
            f"request key {event.request_key!r} was already used for another write "
            f"({event.kind} of {event.field} on {event.item_key})"
        )
    if intended is not _ANY and intended != event.new_value:
        raise InvalidLabel(
            f"request key {event.request_key!r} was already used to write {event.field} = "
            f"{event.new_value!r} on {event.item_key}, not {intended!r}: use a new key for a new value"
        )
    return event


def _check_request_key(key: str | None) -> str | None:
    if key is None or key == "":
        return None
    if not isinstance(key, str) or len(key) > 128 or not key.isprintable():
        raise InvalidLabel("a request key must be printable text of at most 128 characters")
    return key


def _insert(
    conn: Connection,
    store: Store,
    ref: ItemRef,
    field: str,
    who: Identity,
    reason: str,
    scope: str,
    kind: str,
    eid: str,
    decide: Decide,
    request_key: str | None = None,
    *,
    known_id: bool = False,
    intended: Any = _ANY,
) -> Event:
    """Lock the label, read its history, decide and insert the event (inside a write transaction).

    A retried write (``known_id``: the caller chose the event id, or a ``request_key``) is looked
    up after the lock: a concurrent first attempt has committed by then (on PostgreSQL, looking
    before the lock let the retry see the first event as the current value and fail as NoChange).
    """
    owner = who.name if scope == "vote" else ""
    lock_label(conn, ref.benchmark, ref.item_id, field, scope, owner)
    if known_id or request_key is not None:
        existing = _retried(conn, eid if known_id else None, who, request_key)
        if existing is not None:  # a retried write: the first one stands
            return _same_write(existing, ref, field, kind, intended)
    history = _history(conn, ref.benchmark, ref.item_id, field, scope, owner, latest_only=kind != "undo")
    if scope == "final" and kind in ("set", "undo") and history and history[-1].kind == "adjudicate":
        raise Settled(
            f"{field} of {ref.item_id} was settled by {history[-1].reviewer}'s adjudication: "
            "only another adjudication changes it (record a vote to reopen it)"
        )
    new, old, undo_of = decide(history)
    event = Event(
        eid,
        ref.benchmark,
        ref.item_id,
        field,
        old,
        new,
        who.name,
        reason.strip(),
        _time_after(history[-1].created_at if history else None),
        _scoring_version(ref.benchmark),
        scope,
        kind,
        undo_of,
        "local",
        request_key,
    )
    result = conn.execute(insert(label_events).values(**event.as_row()))
    key = result.inserted_primary_key
    event = Event(**{**event.as_row(), "id": int(key[0]) if key is not None else None})
    if store.mirror is not None:  # before commit: the mirror may hold more, never less
        store.mirror.append([{k: v for k, v in event.as_row().items() if k != "request_key"}])
    return event


def write_labels(
    store: Store,
    writes: Sequence[tuple[ItemRef, str, Any]],
    reviewer: Identity,
    reason: str = "",
    *,
    scope: str,
    kind: str = "set",
    allow_same: bool = False,
) -> list[Event]:
    """Write several labels in one transaction: all of them are stored, or none.

    ``writes`` are ``(item, field, value)``. A value equal to the label's current one is skipped
    (not an error) unless ``allow_same``; returns the events written. Labels are locked in a
    fixed order (item, field) so two batches over the same labels cannot deadlock.
    """
    return write_label_rows(
        store,
        [(ref, field, value, reason) for ref, field, value in writes],
        reviewer,
        scope=scope,
        kind=kind,
        allow_same=allow_same,
    )


def write_label_rows(
    store: Store,
    writes: Sequence[tuple[ItemRef, str, Any, str]],
    reviewer: Identity,
    *,
    scope: str,
    kind: str = "set",
    allow_same: bool = False,
) -> list[Event]:
    """:func:`write_labels` with a reason per write (``(item, field, value, reason)``), one transaction."""
    who = as_identity(reviewer)
    if scope not in SCOPES or kind not in KINDS or kind == "undo":
        raise InvalidLabel(f"write_labels takes a scope of {', '.join(SCOPES)} and kind set or adjudicate")
    for *_, reason in writes:
        check_reason(reason)
    planned = sorted(
        (
            (
                ref,
                field,
                normalize(field, value, benchmark=ref.benchmark, task=ref.task, original=ref.gold),
                reason,
            )
            for ref, field, value, reason in writes
        ),
        key=lambda w: (w[0].item_id, w[1]),
    )
    events: list[Event] = []
    with write_tx(store) as conn:
        for ref, field, value, reason in planned:
            try:
                events.append(
                    _insert(
                        conn,
                        store,
                        ref,
                        field,
                        who,
                        reason,
                        scope,
                        kind,
                        uuid.uuid4().hex,
                        _set_to(ref, field, value, scope, allow_same),
                    )
                )
            except NoChange:
                continue
    return events


def _set_to(
    ref: ItemRef, field: str, value: str | None, scope: str, allow_same: bool, *, need_reason: bool = False
) -> Decide:
    """The decision of a plain write: the new value, and the current one as the old value."""

    def decide(history: list[Event]) -> tuple[str | None, str | None, str | None]:
        official = ref.gold if field == "gold" and scope == "final" else None
        old = history[-1].new_value if history else official
        if _canonical(field, old, ref) == value and not allow_same:
            raise NoChange(f"{field} of {ref.item_id} is already {value!r}")
        if need_reason:
            raise InvalidLabel(f"a {field} change needs a reason ({ref.item_id})")
        return value, old, None

    return decide


def undo_target(history: Sequence[Event]) -> Event | None:
    """The event an undo would revert: the latest one that is neither an undo nor undone."""
    stack: list[Event] = []
    for event in history:
        if event.kind == "undo":
            stack = [e for e in stack if e.event_id != event.undo_of]
        else:
            stack.append(event)
    return stack[-1] if stack else None


def _history(
    conn: Connection,
    benchmark: str,
    item: str,
    field: str,
    scope: str,
    owner: str,
    *,
    latest_only: bool = False,
) -> list[Event]:
    """The label's events, oldest first (only the latest one when that is all a write needs)."""
    e = label_events
    query = select(e).where(
        e.c.benchmark == benchmark, e.c.item_key == item, e.c.field == field, e.c.scope == scope
    )
    if scope == "vote":
        query = query.where(e.c.reviewer == owner)
    if latest_only:
        query = query.order_by(e.c.id.desc()).limit(1)
        return [Event(**row._asdict()) for row in conn.execute(query)]
    return [Event(**row._asdict()) for row in conn.execute(query.order_by(e.c.id))]


def _by_event_id(conn: Connection, event_id: str) -> Event | None:
    row = conn.execute(select(label_events).where(label_events.c.event_id == event_id)).first()
    return None if row is None else Event(**row._asdict())


def _check_event_id(event_id: str | None) -> str:
    if event_id is None:
        return uuid.uuid4().hex
    if not isinstance(event_id, str) or not 8 <= len(event_id) <= 64:
        raise InvalidLabel("event_id must be text of 8 to 64 characters")
    return event_id


def _time_after(previous: str | None) -> str:
    # Per label, times only go forward, so sorting a mirror by time replays each label in order.
    now = datetime.now(UTC)
    if previous is not None:
        before = datetime.strptime(previous, _TIME_FORMAT).replace(tzinfo=UTC)
        if now <= before:
            now = before + timedelta(microseconds=1)
    return now.strftime(_TIME_FORMAT)


def _scoring_version(benchmark: str) -> str:
    from analysis.benchmarks import get

    return get(benchmark).VERSION


__all__ = [
    "KINDS",
    "SCOPES",
    "Event",
    "ItemRef",
    "NoChange",
    "NothingToUndo",
    "as_item",
    "relabel",
    "undo",
    "undo_target",
    "write_label",
    "write_label_rows",
    "write_labels",
]
