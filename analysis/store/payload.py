"""One entry point for writes that arrive as data (a form, an API call), keyed by action.

The author is always the ``identity`` the caller authenticated; :func:`submit` refuses a payload
that names anyone else, and never reads a reviewer from it. The item is best given as the
item-table row the app holds (``row=``), so the official gold comes from the server's table,
not from the payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from analysis.store.agreement import adjudicate
from analysis.store.db import Store
from analysis.store.events import Event, ItemRef, as_item, relabel, undo
from analysis.store.identity import Identity, as_identity, check_payload
from analysis.store.reviewers import vote
from analysis.store.values import FIELDS, NEEDS_REASON, InvalidLabel, gold_kind, option_count

ACTIONS = ("relabel", "undo", "vote", "undo-vote", "adjudicate")


def submit(
    store: Store,
    payload: Mapping[str, Any],
    identity: Identity,
    *,
    row: Mapping[str, Any] | pd.Series | None = None,
) -> Event:
    """Carry out ``payload["action"]`` (default ``relabel``) as ``identity``."""
    who = as_identity(identity)
    check_payload(payload, who)
    action = str(payload.get("action") or "relabel")
    if action not in ACTIONS:
        raise InvalidLabel(f"unknown action {action!r} (known: {', '.join(ACTIONS)})")
    item = as_item(row) if row is not None else _item(payload)
    if row is not None and str(payload.get("item_id", item.item_id)) != item.item_id:
        raise InvalidLabel("the payload's item_id is not the row's")
    field = str(payload.get("field") or "gold")
    reason = str(payload.get("reason") or "")
    if row is not None and action != "undo-vote" and action != "undo":
        check_item_write(row, field, payload.get("value"))
    value = payload.get("value")
    event_id = payload.get("event_id")
    key = payload.get("key") or None  # the client's idempotency key: a retry returns the first event
    if action == "relabel":  # every gold change needs a reason (a write of the current value does not)
        return relabel(
            store,
            item,
            field,
            value,
            who,
            reason,
            event_id=event_id,
            request_key=key,
            require_reason=field in NEEDS_REASON,
        )
    if action == "vote":
        return vote(store, item, field, value, who, reason, event_id=event_id, request_key=key)
    if action == "adjudicate":
        return adjudicate(store, item, field, value, who, reason, request_key=key)
    scope = "vote" if action == "undo-vote" else "final"
    return undo(store, item, field, who, reason, scope=scope, event_id=event_id, request_key=key)


def check_item_write(row: Mapping[str, Any] | pd.Series, field: str, value: Any) -> None:
    """Refuse a field the item does not have, or an option letter beyond the item's options."""
    item = as_item(row)
    if field not in FIELDS:
        raise InvalidLabel(
            f"{item.benchmark} item {item.item_id} has no field {field!r} (its fields: {', '.join(FIELDS)})"
        )
    if field != "gold" or not isinstance(value, str):
        return
    kind = gold_kind(item.benchmark, item.task, item.gold)
    n = option_count(row.get("options"))
    if kind.form in ("options", "multi-options") and n:
        allowed = {chr(ord("A") + i) for i in range(n)}
        extra = sorted({c for c in value.upper() if c.isalpha()} - allowed)
        if extra:
            raise InvalidLabel(
                f"{item.item_id} has options {', '.join(sorted(allowed))}, not {', '.join(extra)}"
            )


def _item(payload: Mapping[str, Any]) -> ItemRef:
    benchmark, item_id = payload.get("benchmark"), payload.get("item_id")
    if not isinstance(benchmark, str) or not isinstance(item_id, str) or not benchmark or not item_id:
        raise InvalidLabel("the payload needs a benchmark and an item_id")
    return ItemRef(benchmark, item_id, str(payload.get("task") or ""))
