"""Reading and writing pair validations in the label store (private to :mod:`.validation`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from analysis.review.pairs.checks import (
    CLIP_CRITERIA,
    FIELDS,
    NOTE_FIELD,
    Check,
    Criterion,
    PairChecks,
    clip_item,
    pair_item,
    pair_owner,
    split_key,
)
from analysis.store import Event, Identity, InvalidLabel, ItemRef, Store, current_labels, events_frame
from analysis.store.agreement import OwnVote
from analysis.store.events import write_labels
from analysis.store.visibility import Viewer, visible_events

VALIDATION_COLUMNS: tuple[str, ...] = (
    "pair_id",
    "reviewer",
    "clips",
    "decision",
    "clear_action",
    "single_action",
    "actions_differ",
    "note",
    "time",
    "reason",
)
"""Columns of :func:`validations`: ``clips`` a tuple, ``clear_action`` / ``single_action`` dicts
clip -> bool, ``actions_differ`` a bool, ``time`` the latest label's time."""


def _writes(checks: PairChecks, note: str | None) -> list[tuple[ItemRef, str, object]]:
    if checks.decision is None or any(v is None for v in checks.values()):
        open_checks = sum(v is None for v in checks.values())
        raise InvalidLabel(f"pair {checks.pair_id}: {open_checks} check(s) not answered")
    writes: list[tuple[ItemRef, str, object]] = []
    for criterion in CLIP_CRITERIA:
        for clip, value in zip(checks.clips, getattr(checks, criterion), strict=True):
            writes.append((clip_item(checks.pair_id, clip), FIELDS[criterion], value))
    pair = pair_item(checks.pair_id)
    writes += [
        (pair, FIELDS["actions_differ"], checks.actions_differ),
        (pair, FIELDS["decision"], checks.decision),
    ]
    return writes + ([(pair, NOTE_FIELD, note)] if note is not None else [])


def save_validation(
    store: Store, checks: PairChecks, reviewer: Identity, note: str | None = ""
) -> list[Event]:
    """Store ``reviewer``'s complete checks (and note; None leaves the note as it is) at once.

    Returns the events written: checks that did not change write nothing.
    """
    return write_labels(store, _writes(checks, note), reviewer, scope="vote")


def adjudicate_pair(
    store: Store, checks: PairChecks, adjudicator: Identity, reason: str, note: str | None = None
) -> list[Event]:
    """Settle a pair: every check and the decision as ``final`` adjudication events, with a reason."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidLabel("an adjudication needs a reason")
    writes = _writes(checks, note)
    if validated(store, checks.pair_id, checks.clips, adjudicator):
        raise OwnVote(
            f"{adjudicator.name} validated pair {checks.pair_id}: another adjudicator must settle it"
        )
    return write_labels(store, writes, adjudicator, reason, scope="final", kind="adjudicate", allow_same=True)


def validated(store: Store, pair_id: str, clips: Sequence[str], reviewer: Identity) -> bool:
    """Whether ``reviewer`` validated the pair (any of its checks): then they may not settle it."""
    ids = {clip_item(pair_id, clip).item_id for clip in clips} | {pair_item(pair_id).item_id}
    mine = current_labels(store, pair_owner(), scope="vote", reviewer=reviewer.name)
    return bool(mine["item_id"].isin(ids).any())


def shown_labels(
    store: Store, viewer: Viewer | None, *, scope: str = "vote", reviewer: str | None = None
) -> pd.DataFrame:
    """The current labels of the pairs' benchmark (:func:`~analysis.store.current_labels`) ``viewer`` may see.

    A label is shown when the event that set it is one :func:`analysis.store.visibility.visible_events`
    keeps for ``viewer`` (the Items tab's rule): another reviewer's vote only once ``viewer`` voted
    on the same label or it was adjudicated; everything for an adjudicator. None: no filter (the
    owner's view: the CLI and the store's own exports).
    """
    labels = current_labels(store, pair_owner(), scope=scope, reviewer=reviewer)
    if viewer is None or labels.empty:
        return labels
    seen = visible_events(events_frame(store, pair_owner()), viewer)  # every scope: adjudications reveal
    return labels[labels["event_id"].isin(set(seen["event_id"]))].reset_index(drop=True)


def check_labels(
    store: Store, *, scope: str = "vote", reviewer: str | None = None, viewer: Viewer | None = None
) -> pd.DataFrame:
    """Current validation labels, one row per label (of each reviewer in the vote scope).

    Columns ``pair_id``, ``clip`` ("" for the pair), ``field``, ``value``, ``reviewer``, ``time``,
    ``reason``. ``viewer``: only the labels they may see (:func:`shown_labels`).
    """
    labels = shown_labels(store, viewer, scope=scope, reviewer=reviewer)
    keys = [split_key(k) for k in labels["item_id"].astype(str)]
    fields = (*FIELDS.values(), NOTE_FIELD)
    wanted = [k is not None and f in fields for k, f in zip(keys, labels["field"], strict=True)]
    labels = labels.loc[pd.Series(wanted, index=labels.index, dtype=bool)]
    parts = [k for k, w in zip(keys, wanted, strict=True) if w and k is not None]
    return pd.DataFrame(
        {
            "pair_id": [p for p, _ in parts],
            "clip": [c for _, c in parts],
            "field": labels["field"].tolist(),
            "value": labels["value"].tolist(),
            "reviewer": labels["reviewer"].tolist(),
            "time": labels["time"].tolist(),
            "reason": labels["reason"].tolist(),
        }
    )


def checks_from_labels(pair_id: str, clips: Sequence[str], labels: pd.DataFrame) -> PairChecks:
    """One pair's checks from :func:`check_labels` rows of one reviewer (or of the final scope)."""
    mine = labels[labels["pair_id"] == pair_id]
    value = {(c, f): v == "yes" for c, f, v in zip(mine["clip"], mine["field"], mine["value"], strict=True)}

    def per_clip(criterion: Criterion) -> tuple[Check, ...]:
        return tuple(value.get((clip, FIELDS[criterion])) for clip in clips)

    return PairChecks(
        pair_id,
        tuple(clips),
        per_clip("clear_action"),
        per_clip("single_action"),
        value.get(("", FIELDS["actions_differ"])),
    )


def my_validation(
    store: Store, pair_id: str, clips: Sequence[str], reviewer: Identity
) -> tuple[PairChecks, str]:
    """The reviewer's current checks of a pair (blank when none) and note: what the form loads."""
    labels = check_labels(store, reviewer=reviewer.name)
    labels = labels[labels["pair_id"] == pair_id]
    notes = labels.loc[(labels["clip"] == "") & (labels["field"] == NOTE_FIELD), "value"].tolist()
    return checks_from_labels(pair_id, clips, labels), (notes[0] if notes else "")


def validations(
    store: Store,
    *,
    scope: str = "vote",
    clips: Mapping[str, Sequence[str]] | None = None,
    viewer: Viewer | None = None,
) -> pd.DataFrame:
    """Every current validation, one row per (pair, reviewer): :data:`VALIDATION_COLUMNS`.

    ``scope="final"`` gives the adjudications (``reviewer`` is the adjudicator). ``clips`` (pair ->
    clip ids, e.g. from the catalogue) orders each pair's clips; else they are sorted. ``viewer``:
    only the labels they may see.
    """
    labels = check_labels(store, scope=scope, viewer=viewer)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for pair, clip, field, value, who, time, reason in labels.itertuples(index=False):
        row = rows.setdefault(
            (pair, who),
            {
                "pair_id": pair,
                "reviewer": who,
                "clear_action": {},
                "single_action": {},
                "actions_differ": None,
                "decision": None,
                "note": "",
                "time": "",
                "reason": "",
            },
        )
        row["time"] = max(row["time"], time)
        row["reason"] = reason or row["reason"]
        if field == NOTE_FIELD:
            row["note"] = value
        elif field == FIELDS["decision"]:
            row["decision"] = value
        elif field == FIELDS["actions_differ"]:
            row["actions_differ"] = value == "yes"
        else:
            row[field.split(":", 1)[1]][clip] = value == "yes"
    for row in rows.values():
        known = (clips or {}).get(row["pair_id"])
        order = tuple(known) if known else tuple(sorted(set(row["clear_action"]) | set(row["single_action"])))
        row["clips"] = order
        for criterion in CLIP_CRITERIA:
            row[criterion] = {c: row[criterion].get(c) for c in order}
    frame = pd.DataFrame(list(rows.values()), columns=list(VALIDATION_COLUMNS), dtype=object)
    return frame.sort_values(["pair_id", "reviewer"], kind="stable").reset_index(drop=True)
