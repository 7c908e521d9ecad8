"""The final labels a paper cites: one row per item whose gold was corrected, with its provenance.

The event log (:mod:`analysis.store.export`) holds every write, undos and votes included; this file
holds the outcome: for each item of a benchmark whose current corrected gold differs from the
official one, the official and the corrected gold, who set it, when and why, every reviewer's
current vote and the adjudication that settled them (if any). Gold values are spelled like the
item's official gold (:func:`analysis.store.values.as_shown`): ``No`` beside ``Yes``.
"""

from __future__ import annotations

import orjson
import pandas as pd

from analysis.store.db import Store
from analysis.store.labels import current_labels, events_frame
from analysis.store.values import as_shown, official_value

FINAL_COLUMNS: tuple[str, ...] = (
    "benchmark",
    "item_id",
    "official_gold",
    "corrected_gold",
    "reviewer",
    "time",
    "reason",
    "votes",
    "adjudicated_by",
    "adjudication_reason",
    "adjudicated_at",
    "event_id",
)
"""Columns of :func:`final_labels`. ``votes`` is a JSON object ``{reviewer: value}`` (``{}``: none);
the ``adjudic*`` columns are empty when the gold was set by a plain relabel."""


def official_gold(events: pd.DataFrame, table: pd.DataFrame | None) -> dict[str, str | None]:
    """The published gold of each corrected item: the item table's, else the first correction's old value."""
    finals = events[(events["scope"] == "final") & (events["field"] == "gold")]
    found: dict[str, str | None] = {}
    for key, old in zip(finals["item_key"].astype(str), finals["old_value"], strict=True):
        found.setdefault(key, old)
    if table is not None and len(table):
        rows = table.drop_duplicates("item_id")
        rows = rows[rows["item_id"].astype(str).isin(found)]
        for _, row in rows.iterrows():  # the corrected items only: a few
            found[str(row["item_id"])] = official_value(row)  # whole, as the files spell it
    return found


def final_labels(store: Store, benchmark: str, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per corrected item of ``benchmark`` (see :data:`FINAL_COLUMNS`), in item order."""
    events = events_frame(store, benchmark)
    golds = current_labels(store, benchmark)
    golds = golds[golds["field"] == "gold"]
    official = official_gold(events, table)
    votes = current_labels(store, benchmark, scope="vote")
    votes = votes[votes["field"] == "gold"]
    adjudications = events[(events["kind"] == "adjudicate") & (events["field"] == "gold")]
    last_adjudication = adjudications.groupby("item_key").tail(1).set_index("item_key")
    rows = []
    for label in golds.itertuples(index=False):
        key = str(label.item_id)
        if _same_gold(official.get(key), str(label.value)):
            continue  # corrected back to the official value: nothing to cite
        mine = votes[votes["item_id"] == key]
        adj = last_adjudication.loc[key] if key in last_adjudication.index else None
        rows.append(
            (
                benchmark,
                key,
                official.get(key),
                as_shown("gold", str(label.value), official.get(key)),
                label.reviewer,
                label.time,
                label.reason,
                orjson.dumps(
                    {
                        r: as_shown("gold", v, official.get(key))
                        for r, v in zip(mine["reviewer"], mine["value"], strict=True)
                    },
                    option=orjson.OPT_SORT_KEYS,
                ).decode(),
                None if adj is None else adj["reviewer"],
                None if adj is None else adj["reason"],
                None if adj is None else adj["created_at"],
                label.event_id,
            )
        )
    frame = pd.DataFrame(rows, columns=list(FINAL_COLUMNS)).astype(object)
    frame = frame.where(frame.notna(), None)
    return frame.sort_values("item_id", kind="stable").reset_index(drop=True)


def _same_gold(official: str | None, corrected: str | None) -> bool:
    return (official or "").strip().lower() == (corrected or "").strip().lower()
