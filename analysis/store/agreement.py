"""How far reviewers agree, which items they disagree on, and adjudication.

Agreement is computed on the reviewers' current votes (``scope="vote"``) for one field:

- Cohen's kappa for each pair of reviewers over the items both voted on (scikit-learn's
  ``cohen_kappa_score``), with their raw agreement beside it;
- Krippendorff's alpha, nominal, over every reviewer and item at once (the ``krippendorff``
  package), which copes with reviewers who did not see every item;
- raw agreement: the share of items with two or more votes on which every vote is the same.

A statistic is None when undefined (fewer than two votes, or a single value used by everyone,
where chance agreement is already total). The disagreement queue lists items whose votes differ
and that no adjudication has settled since the last vote. :func:`adjudicate` settles one: a
``final`` gold event by the adjudicator, with a reason.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.store.db import Store
from analysis.store.events import Event, ItemRef, as_item, write_label
from analysis.store.identity import Identity
from analysis.store.labels import current_labels, events_frame
from analysis.store.values import InvalidLabel
from analysis.store.visibility import Viewer


def votes_matrix(
    store: Store, benchmark: str, field: str = "gold", items: Collection[str] | None = None
) -> pd.DataFrame:
    """Current votes as a table: one row per item, one column per reviewer, None where no vote.

    ``items``: only these items (what one reviewer may see), else all.
    """
    votes = current_labels(store, benchmark, scope="vote")
    votes = votes[votes["field"] == field]
    if items is not None:
        votes = votes[votes["item_id"].isin(list(items))]
    if votes.empty:
        return pd.DataFrame(index=pd.Index([], name="item_id"))
    wide = votes.pivot(index="item_id", columns="reviewer", values="value")
    return wide.astype(object).where(wide.notna(), None)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    """Cohen's kappa of two reviewers' labels on the same items; None when undefined."""
    if len(a) < 2 or len(set(a) | set(b)) < 2:
        return None
    sklearn_metrics: Any = importlib.import_module("sklearn.metrics")
    return float(sklearn_metrics.cohen_kappa_score(a, b, labels=sorted(set(a) | set(b))))


def pairwise(matrix: pd.DataFrame) -> pd.DataFrame:
    """Cohen's kappa and raw agreement for every pair of reviewers (columns of ``matrix``)."""
    rows = []
    for left, right in itertools.combinations(sorted(matrix.columns), 2):
        both = matrix[[left, right]].dropna()
        a, b = both[left].astype(str).tolist(), both[right].astype(str).tolist()
        same = sum(x == y for x, y in zip(a, b, strict=True))
        rows.append((left, right, len(a), cohen_kappa(a, b), same / len(a) if a else None))
    return pd.DataFrame(rows, columns=["reviewer_a", "reviewer_b", "n", "kappa", "agreement"])


def krippendorff_alpha(matrix: pd.DataFrame) -> float | None:
    """Krippendorff's alpha (nominal) over all reviewers and items; None when undefined."""
    values = sorted({str(v) for v in matrix.to_numpy().ravel() if not _missing(v)})
    pairable = int((matrix.notna().sum(axis=1) >= 2).sum()) if len(matrix.columns) else 0
    if len(values) < 2 or pairable == 0:
        return None
    code = {v: float(i) for i, v in enumerate(values)}
    data = np.array([[np.nan if _missing(v) else code[str(v)] for v in matrix[c]] for c in matrix.columns])
    kripp: Any = importlib.import_module("krippendorff")
    return float(kripp.alpha(reliability_data=data, level_of_measurement="nominal"))


def raw_agreement(matrix: pd.DataFrame) -> float | None:
    """Share of items with at least two votes on which all votes are the same."""
    unanimous, counted = 0, 0
    for row in matrix.itertuples(index=False):
        votes = [str(v) for v in row if not _missing(v)]
        if len(votes) >= 2:
            counted += 1
            unanimous += len(set(votes)) == 1
    return unanimous / counted if counted else None


def agreement_report(
    store: Store, benchmark: str, field: str = "gold", items: Collection[str] | None = None
) -> dict[str, Any]:
    """Every agreement figure for one field (over ``items`` only, when given), JSON-ready."""
    matrix = votes_matrix(store, benchmark, field, items)
    return {
        "benchmark": benchmark,
        "field": field,
        "n_items": len(matrix),
        "reviewers": sorted(str(c) for c in matrix.columns),
        "raw_agreement": raw_agreement(matrix),
        "krippendorff_alpha": krippendorff_alpha(matrix),
        "pairs": pairwise(matrix).to_dict("records"),
    }


def disagreements(
    store: Store, benchmark: str, field: str = "gold", official: Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """Items whose votes or corrections differ from each other or from the current gold, not settled since.

    The current gold is the label's corrected value where a correction set one, else the
    ``official`` value (item id -> gold, from the item table; unknown without it). A vote that
    differs from it is a disagreement as much as two votes that differ: a blind vote against a
    correction, or against the published gold, is what an adjudicator settles. So are two
    reviewers' corrections that differ (the later one replaced the earlier, with no vote cast):
    each reviewer's side is the value their latest correction (or undo) since the last
    adjudication left. An item is settled when an adjudication came after its last vote and its
    last correction.

    Columns: ``item_id``, ``votes`` ({reviewer: value}), ``n_votes``, ``gold`` (the current gold,
    or None when unknown), ``gold_by`` (who set it: a reviewer, ``official``, or None) and
    ``corrections`` ({reviewer: value} when corrections differ, else empty).
    """
    events = events_frame(store, benchmark)
    events = events[events["field"] == field]
    matrix = votes_matrix(store, benchmark, field)
    last_vote = events[events["scope"] == "vote"].groupby("item_key")["id"].max().to_dict()
    finals = events[events["scope"] == "final"]
    last_set = finals[finals["kind"] != "adjudicate"].groupby("item_key")["id"].max().to_dict()
    settled_at = finals[finals["kind"] == "adjudicate"].groupby("item_key")["id"].max().to_dict()
    sides_set = {k: {r: v for r, (v, _) in taken.items()} for k, taken in correction_sides(events).items()}
    current = current_labels(store, benchmark)
    current = current[current["field"] == field]
    corrected = dict(
        zip(
            current["item_id"].astype(str),
            zip(current["value"], current["reviewer"], strict=True),
            strict=True,
        )
    )
    voted = {str(item_id): row for item_id, row in matrix.iterrows()}
    rows = []
    for key in [*voted, *(k for k in sides_set if k not in voted)]:
        row = voted.get(key)
        votes = {} if row is None else {str(r): str(v) for r, v in row.items() if not _missing(v)}
        gold, by = _current_gold(key, corrected, official)
        sides = {_same(v) for v in votes.values()} | ({_same(gold)} if gold is not None and votes else set())
        corrections = sides_set.get(key, {})
        latest_change = max(last_vote.get(key, -1), last_set.get(key, -1))
        settled = key in settled_at and settled_at[key] > latest_change
        if (len(sides) > 1 or corrections) and not settled:
            rows.append((key, votes, len(votes), gold, by, corrections))
    return pd.DataFrame(rows, columns=["item_id", "votes", "n_votes", "gold", "gold_by", "corrections"])


def correction_sides(events: pd.DataFrame) -> dict[str, dict[str, tuple[str, str]]]:
    """Per item, every reviewer's last correction (value, reason) since the last adjudication, if they differ.

    ``events``: the events of one field (:func:`~analysis.store.labels.events_frame`, oldest
    first). A correction (``set``) or an undo leaves the label at its ``new_value``: that is the
    side the reviewer took last. Items where every reviewer who corrected left the same value
    are left out; so are reviewers' corrections made before the item's last adjudication.
    """
    finals = events[events["scope"] == "final"]
    settled_at = finals[finals["kind"] == "adjudicate"].groupby("item_key")["id"].max()
    changes = finals[finals["kind"] != "adjudicate"]
    if changes.empty:
        return {}
    after = changes["id"].to_numpy() > changes["item_key"].map(settled_at).fillna(-1).to_numpy()
    last = changes[after].groupby(["item_key", "reviewer"], sort=False).tail(1)
    found: dict[str, dict[str, tuple[str, str]]] = {}
    for key, group in last.groupby("item_key", sort=False):
        if group["reviewer"].nunique() < 2:
            continue
        rows = zip(group["reviewer"], group["new_value"], group["reason"], strict=True)
        taken = {str(r): ("" if _missing(v) else str(v), str(why or "")) for r, v, why in rows}
        if len({_same(v) for v, _ in taken.values()}) > 1:
            found[str(key)] = taken
    return found


def disagreements_seen(
    store: Store, benchmark: str, viewer: Viewer, official: Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """:func:`disagreements` as ``viewer`` may see them (``docs/review.md``, "Hidden votes").

    An adjudicator gets every disagreement; anyone else only the items they hold a vote on (having
    corrected the gold is no vote: another reviewer's vote stays hidden from the one who set the
    gold until they vote too), and the items where their correction and another's differ (with
    those corrections, not the votes). A blind reviewer is not listed an item for their vote alone
    (only the gold would differ, which tells them the gold), nor for corrections, which are gold;
    a blind adjudicator who took no side is listed the item with its sides hidden. Columns as
    :func:`disagreements`, plus ``hidden``: how many sides (votes and corrections) are withheld
    (their values never leave the store).
    """
    found = disagreements(store, benchmark, official=official)
    rows: list[tuple[Any, ...]] = []
    for key, votes, n, gold, by, corrections in zip(
        found["item_id"],
        found["votes"],
        found["n_votes"],
        found["gold"],
        found["gold_by"],
        found["corrections"],
        strict=True,
    ):
        mine = viewer.name in votes
        party = viewer.name in corrections and not viewer.blind
        if not viewer.adjudicator and not (mine or party):
            continue
        if viewer.blind and mine and not votes_differ(votes):
            continue
        if viewer.blind and not mine:  # a blind adjudicator who took no side
            rows.append((key, {}, n, None, None, {}, n + len(corrections)))
            continue
        shown = gold if not viewer.blind else None
        seen_votes = dict(votes) if (mine or viewer.adjudicator) else {}
        seen_corrections = dict(corrections) if not viewer.blind else {}
        rows.append((key, seen_votes, n, shown, by if shown is not None else None, seen_corrections, 0))
    columns = ["item_id", "votes", "n_votes", "gold", "gold_by", "corrections", "hidden"]
    return pd.DataFrame(rows, columns=columns)


def _current_gold(
    key: str, corrected: Mapping[str, tuple[Any, Any]], official: Mapping[str, str | None] | None
) -> tuple[str | None, str | None]:
    if key in corrected and not _missing(corrected[key][0]):
        value, reviewer = corrected[key]
        return str(value), str(reviewer)
    if official is not None and official.get(key) is not None:
        return str(official[key]), "official"
    return None, None


def votes_differ(votes: Mapping[str, Any]) -> bool:
    """Whether two of these votes differ (spellings of one value are the same vote).

    A disagreement is also a vote against the gold; one who may not see the gold (a blind
    reviewer) is shown only the disagreements these alone make (``docs/review.md``).
    """
    return len({_same(str(v)) for v in votes.values()}) > 1


def _same(value: str) -> str:
    """How two spellings of one value compare (``Yes`` / ``yes``, ``AC`` / ``ac``)."""
    return " ".join(str(value).split()).lower()


class OwnVote(InvalidLabel):
    """An adjudicator tried to settle a disagreement in which they took a side."""


def took_a_side(store: Store, ref: ItemRef, field: str, reviewer: str) -> str | None:
    """How ``reviewer`` took a side on a label (``voted on``, ``corrected``), else None.

    Every vote they ever cast counts, a cleared or undone one too, and every correction they made
    (an adjudication does not: an adjudicator may settle the same label again).
    """
    events = events_frame(store, ref.benchmark)
    mine = events[
        (events["item_key"] == ref.item_id) & (events["field"] == field) & (events["reviewer"] == reviewer)
    ]
    if (mine["scope"] == "vote").any():
        return "voted on"
    if ((mine["scope"] == "final") & (mine["kind"] == "set")).any():
        return "corrected"
    return None


def adjudicate(
    store: Store,
    item: ItemRef | Mapping[str, Any] | pd.Series,
    field: str,
    value: Any,
    adjudicator: Identity,
    reason: str,
    *,
    request_key: str | None = None,
) -> Event:
    """Set the final corrected value after a disagreement: a ``final`` event that needs a reason.

    Refused (:class:`OwnVote`) when the adjudicator ever voted on this label (a vote cleared or
    undone since still counts) or corrected it: a disagreement is settled by someone who took no
    side in it.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidLabel("an adjudication needs a reason")
    ref = as_item(item)
    side = took_a_side(store, ref, field, adjudicator.name)
    if side is not None:
        raise OwnVote(
            f"{adjudicator.name} {side} {field} of {ref.item_id}: another adjudicator must settle it"
        )
    return write_label(
        store,
        ref,
        field,
        value,
        adjudicator,
        reason,
        scope="final",
        kind="adjudicate",
        allow_same=True,
        request_key=request_key,
    )
