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
    """Items whose votes differ from each other or from the current gold, not settled since.

    The current gold is the label's corrected value where a correction set one, else the
    ``official`` value (item id -> gold, from the item table; unknown without it). A vote that
    differs from it is a disagreement as much as two votes that differ: a blind vote against a
    correction, or against the published gold, is what an adjudicator settles. An item is settled
    when an adjudication came after its last vote and its last correction.

    Columns: ``item_id``, ``votes`` ({reviewer: value}), ``n_votes``, ``gold`` (the current gold,
    or None when unknown) and ``gold_by`` (who set it: a reviewer, ``official``, or None).
    """
    events = events_frame(store, benchmark)
    events = events[events["field"] == field]
    matrix = votes_matrix(store, benchmark, field)
    last_vote = events[events["scope"] == "vote"].groupby("item_key")["id"].max().to_dict()
    finals = events[events["scope"] == "final"]
    last_set = finals[finals["kind"] != "adjudicate"].groupby("item_key")["id"].max().to_dict()
    settled_at = finals[finals["kind"] == "adjudicate"].groupby("item_key")["id"].max().to_dict()
    current = current_labels(store, benchmark)
    current = current[current["field"] == field]
    corrected = dict(
        zip(
            current["item_id"].astype(str),
            zip(current["value"], current["reviewer"], strict=True),
            strict=True,
        )
    )
    rows = []
    for item_id, row in matrix.iterrows():
        key = str(item_id)
        votes = {str(r): str(v) for r, v in row.items() if not _missing(v)}
        gold, by = _current_gold(key, corrected, official)
        sides = {_same(v) for v in votes.values()} | ({_same(gold)} if gold is not None else set())
        latest_change = max(last_vote.get(key, -1), last_set.get(key, -1))
        settled = key in settled_at and settled_at[key] > latest_change
        if len(sides) > 1 and not settled:
            rows.append((key, votes, len(votes), gold, by))
    return pd.DataFrame(rows, columns=["item_id", "votes", "n_votes", "gold", "gold_by"])


def disagreements_seen(
    store: Store, benchmark: str, viewer: Viewer, official: Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """:func:`disagreements` as ``viewer`` may see them (``docs/review.md``, "Hidden votes").

    An adjudicator gets every disagreement; anyone else only the items they hold a vote on (having
    corrected the gold is no vote: another reviewer's vote stays hidden from the one who set the
    gold until they vote too). A blind reviewer is not listed an item for their vote alone (only
    the gold would differ, which tells them the gold), and a blind adjudicator who took no side is
    listed the item with its votes hidden. Columns as :func:`disagreements`, plus ``hidden``: how
    many votes are withheld (their values never leave the store).
    """
    found = disagreements(store, benchmark, official=official)
    rows: list[tuple[Any, ...]] = []
    for key, votes, n, gold, by in zip(
        found["item_id"], found["votes"], found["n_votes"], found["gold"], found["gold_by"], strict=True
    ):
        mine = viewer.name in votes
        if not viewer.adjudicator and not mine:
            continue
        if viewer.blind and mine and not votes_differ(votes):
            continue
        if viewer.blind and not mine:  # a blind adjudicator who took no side
            rows.append((key, {}, n, None, None, n))
            continue
        shown = gold if not viewer.blind else None
        rows.append((key, dict(votes), n, shown, by if shown is not None else None, 0))
    return pd.DataFrame(rows, columns=["item_id", "votes", "n_votes", "gold", "gold_by", "hidden"])


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
