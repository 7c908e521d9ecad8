"""What one reviewer's review form shows of an item, and what each save writes: decided here, once.

The review panel asks :func:`form_of` what to fill its controls with and :func:`write_scope` what
a changed field becomes; the rules (``docs/review.md``):

- a **blind** reviewer's form starts from their own votes only (gold, flags, note): nobody else's
  label, and not the official gold, reaches it; everything they save is a vote;
- anyone else's form starts from the item's current labels (the corrected gold, or the official
  one); a save corrects the gold (a ``final`` event), except on a gold an adjudication settled:
  there it is recorded as a vote, which reopens the disagreement for an adjudicator, since only an
  adjudication changes settled gold (:class:`analysis.store.events.Settled`);
- a save writes only the fields the reviewer changed on the form since it opened (:func:`edit`): a
  form opened before another reviewer's save never undoes it unseen. A changed field that someone
  else changed meanwhile is not written; the reviewer is shown the new value first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from analysis.review.access import Access
from analysis.store.visibility import visible_events

Scope = Literal["vote", "final"]


@dataclass(frozen=True)
class Form:
    """The values a reviewer's form starts from."""

    gold: str | None
    """The gold to show: the viewer's own vote when blind, else the current (or official) gold."""
    flags: tuple[str, ...]
    note: str
    settled: bool
    """The item's gold was settled by an adjudication (the viewer's gold save becomes a vote)."""

    def value(self, field: str) -> str | None:
        """The form's value of one of :data:`FIELDS` as stored text (flags comma-joined)."""
        if field == "gold":
            return self.gold
        if field == "flag":
            return ",".join(self.flags)
        if field == "note":
            return self.note
        raise ValueError(f"no field {field!r} on a review form (fields: {', '.join(FIELDS)})")


FIELDS = ("gold", "flag", "note")
"""The fields one save may write, in the order a save writes them."""


def settled(events: pd.DataFrame, field: str = "gold") -> bool:
    """Whether the latest ``final`` event of ``field`` is an adjudication (``events``: one item's)."""
    finals = events[(events["scope"] == "final") & (events["field"] == field)]
    return bool(len(finals)) and str(finals.iloc[-1]["kind"]) == "adjudicate"


def latest(events: pd.DataFrame, scope: str, reviewer: str | None = None) -> dict[str, str | None]:
    """The latest value of each field among ``events`` of one scope (of one reviewer, if given)."""
    rows = events[events["scope"] == scope]
    if reviewer is not None:
        rows = rows[rows["reviewer"] == reviewer]
    return {str(f): v for f, v in zip(rows["field"], rows["new_value"], strict=True)}


def form_of(events: pd.DataFrame, access: Access, official: str | None) -> Form:
    """The form of one item (``events``: every event on it, oldest first) as ``access`` sees it."""
    seen = visible_events(events, access.viewer)
    if access.blind:
        mine = latest(seen, "vote", access.name)
        values, gold = mine, mine.get("gold")
    else:
        values = latest(seen, "final")
        gold = values.get("gold") or official
    flags = tuple(f for f in str(values.get("flag") or "").split(",") if f)
    return Form(gold, flags, str(values.get("note") or ""), settled(events))


def write_scope(access: Access, field: str, form: Form) -> Scope:
    """What a save of ``field`` writes: a vote (blind, or a settled gold) or a correction."""
    if access.blind or (field == "gold" and form.settled):
        return "vote"
    return "final"


def changed_by(events: pd.DataFrame, access: Access, field: str) -> str | None:
    """Who wrote the value of ``field`` the viewer's form shows now (None: nobody, the official gold).

    Only events the viewer may see count; a blind reviewer's form shows their own votes only.
    """
    seen = visible_events(events, access.viewer)
    rows = seen[(seen["field"] == field) & (seen["scope"] == ("vote" if access.blind else "final"))]
    if access.blind:
        rows = rows[rows["reviewer"] == access.name]
    return str(rows.iloc[-1]["reviewer"]) if len(rows) else None


@dataclass(frozen=True)
class Edit:
    """What a save writes, given the form as it was opened (``base``) and the item as it is now."""

    writes: tuple[str, ...]
    """The fields the reviewer changed on the form and nobody changed meanwhile."""
    conflicts: tuple[str, ...]
    """The fields the reviewer changed that someone else (or another tab) changed since the form
    opened: never written over without the reviewer seeing the new value first."""
    moved: tuple[str, ...] = ()
    """The fields the reviewer left as they were opened that someone changed since: not written
    (the other's value stands), but the reviewer is told, since the form they saved showed the old."""


def edit(base: Form, now: Form, typed: Form, same: Callable[[str, str | None, str | None], bool]) -> Edit:
    """Which of the fields ``gold``, ``flag``, ``note`` a save writes, and which it must refuse.

    ``typed``: what the form holds at the save (a gold of None: none given, so none written).
    ``same(field, a, b)``: whether two values of ``field`` are one (a gold may be spelled two ways).
    A field the reviewer left as it was opened is not written, so a form opened before someone
    else's save does not undo it; one they changed is written unless its value moved meanwhile (to
    anything but the reviewer's own value, which needs no write).
    """
    writes: list[str] = []
    conflicts: list[str] = []
    moved: list[str] = []
    for field in FIELDS:
        was, is_now, mine = base.value(field), now.value(field), typed.value(field)
        if (field == "gold" and not mine) or same(field, mine, is_now):
            continue  # no gold given, or already what the reviewer wants: nothing to write or say
        if same(field, mine, was):  # untouched: not written, said when it moved meanwhile
            if not same(field, is_now, was):
                moved.append(field)
            continue
        (writes if same(field, is_now, was) else conflicts).append(field)
    return Edit(tuple(writes), tuple(conflicts), tuple(moved))


__all__ = [
    "FIELDS",
    "Edit",
    "Form",
    "Scope",
    "changed_by",
    "edit",
    "form_of",
    "latest",
    "settled",
    "write_scope",
]
