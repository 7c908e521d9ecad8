"""Who may see which labels: blind reviewers, hidden votes, and the adjudicator's view.

Two rules, applied to the event log before anything leaves the server (item history, queues,
agreement, exports):

- a **blind** reviewer sees only their own events, plus other reviewers' votes on a label they
  have voted on themselves; never a ``final`` event (a corrected gold is gold);
- a **vote** stays hidden from every other reviewer until they have voted on the same label
  (item and field) or the label has been adjudicated. Adjudicators see every vote: settling a
  disagreement means reading it.

Pure functions over :func:`analysis.store.labels.events_frame`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Viewer:
    """Who is looking, and in which role (a visitor is ``Viewer("")``: sees no reviewer's data)."""

    name: str
    blind: bool = False
    adjudicator: bool = False


def _keys(frame: pd.DataFrame) -> pd.Series:
    return frame["item_key"].astype(str) + "\x00" + frame["field"].astype(str)


def voted_keys(events: pd.DataFrame, name: str) -> set[str]:
    """(item, field) keys on which ``name`` holds a current (not cleared) vote."""
    votes = events[(events["scope"] == "vote") & (events["reviewer"] == name)]
    if votes.empty:
        return set()
    latest = votes.assign(_key=_keys(votes)).groupby("_key").tail(1)
    return set(latest.loc[latest["new_value"].notna(), "_key"])


def adjudicated_keys(events: pd.DataFrame) -> set[str]:
    """(item, field) keys some adjudication has settled."""
    done = events[events["kind"] == "adjudicate"]
    return set(_keys(done)) if not done.empty else set()


def visible_events(events: pd.DataFrame, viewer: Viewer) -> pd.DataFrame:
    """The events of ``events`` that ``viewer`` may see (same columns, same order)."""
    if events.empty:
        return events
    if not viewer.name:
        return events.iloc[0:0]
    mine = (events["reviewer"] == viewer.name).to_numpy(dtype=bool)
    is_vote = (events["scope"] == "vote").to_numpy(dtype=bool)
    keys = _keys(events)
    revealed = keys.isin(voted_keys(events, viewer.name)).to_numpy(dtype=bool)
    if viewer.blind:
        keep = mine | (is_vote & revealed)
    elif viewer.adjudicator:
        keep = np.ones(len(events), dtype=bool)
    else:
        settled = keys.isin(adjudicated_keys(events)).to_numpy(dtype=bool)
        keep = mine | ~is_vote | revealed | settled
    return events[keep]


def shown_votes(events: pd.DataFrame, viewer: Viewer, item_id: str, field: str = "gold") -> dict[str, str]:
    """The current votes on one label that ``viewer`` may see: ``{reviewer: value}``."""
    return {r: value for r, (value, _) in _latest_votes(events, viewer, item_id, field).items()}


def shown_reasons(events: pd.DataFrame, viewer: Viewer, item_id: str, field: str = "gold") -> dict[str, str]:
    """The reason of each current vote ``viewer`` may see (``{reviewer: reason}``, as :func:`shown_votes`)."""
    return {r: why for r, (_, why) in _latest_votes(events, viewer, item_id, field).items()}


def _latest_votes(
    events: pd.DataFrame, viewer: Viewer, item_id: str, field: str
) -> dict[str, tuple[str, str]]:
    """Reviewer -> (value, reason) of their latest vote on one label that ``viewer`` may see."""
    seen = visible_events(events, viewer)
    rows = seen[
        (seen["scope"] == "vote") & (seen["item_key"].astype(str) == item_id) & (seen["field"] == field)
    ]
    latest = rows.groupby("reviewer").tail(1)
    return {
        str(r): (str(v), str(why or ""))
        for r, v, why in zip(latest["reviewer"], latest["new_value"], latest["reason"], strict=True)
        if v is not None
    }


def current_final(
    events: pd.DataFrame, item_id: str, field: str = "gold"
) -> tuple[str, str, str, str] | None:
    """(value, who, reason, kind) of the label's latest ``final`` event.

    None when it has none, or when that event cleared it (the item is back at its official value).
    """
    rows = events[
        (events["scope"] == "final")
        & (events["item_key"].astype(str) == item_id)
        & (events["field"] == field)
    ]
    if not len(rows):
        return None
    last = rows.iloc[-1]
    if last["new_value"] is None or last["new_value"] is pd.NA:
        return None
    return str(last["new_value"]), str(last["reviewer"]), str(last["reason"] or ""), str(last["kind"])
