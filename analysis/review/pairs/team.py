"""A validation round as a team: assignment, progress, agreement, disagreements, final decisions.

Private to :mod:`analysis.review.pairs.validation`. Everything is computed from the store's current labels
(nothing is cached), so it survives restarts and sees every reviewer's writes. What a reviewer is
shown takes a ``viewer`` (:class:`analysis.store.visibility.Viewer`): agreement, the disagreement
queue and the decisions then hold only the votes the Items tab's rule lets them see (none of
another reviewer's until they voted on the pair or it was adjudicated); None is the owner's view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from analysis.review.pairs.checks import CLIP_CRITERIA, CRITERIA, FIELDS, pair_owner, split_key
from analysis.review.pairs.labels import check_labels, shown_labels
from analysis.store import Identity, Store, agreement_report, assign, disagreements
from analysis.store.visibility import Viewer

DECISION_COLUMNS: tuple[str, ...] = ("pair_id", "decision", "resolution", "n_votes", "keep", "drop")
"""Columns of :func:`decisions`."""
RESOLUTIONS: tuple[str, ...] = ("adjudicated", "unanimous", "disputed", "pending", "unreviewed")
"""How a pair's decision stands: settled by an adjudicator, by every vote agreeing (with at least
``required`` votes), votes that differ, fewer votes than required, no vote at all."""
QUEUE_COLUMNS: tuple[str, ...] = ("pair_id", "criteria", "clips", "decisions", "decision_split")
"""Columns of :func:`disagreement_queue`."""


def assign_pairs(pair_ids: Iterable[str], reviewers: Iterable[str], k: int) -> pd.DataFrame:
    """Deterministic, balanced assignment of ``k`` reviewers per pair: columns ``pair_id``, ``reviewer``.

    The store's :func:`~analysis.store.assign` (same pairs, reviewers and k give the same
    assignment, whatever their order), so it needs no table and survives restarts.
    """
    return assign(pair_ids, reviewers, k).rename(columns={"item_id": "pair_id"})


def _voted(store: Store, viewer: Viewer | None = None) -> pd.DataFrame:
    """(pair_id, reviewer, decision) of every reviewer's current decision vote (that ``viewer`` may see)."""
    labels = check_labels(store, viewer=viewer)
    labels = labels[labels["field"] == FIELDS["decision"]]
    return labels[["pair_id", "reviewer", "value"]].rename(columns={"value": "decision"})


def progress(store: Store, assignments: pd.DataFrame) -> dict[str, Any]:
    """Done / total validations, overall and per reviewer; pairs with every assigned review done.

    ``{"done", "total", "pairs_done", "pairs_total", "reviewers": {name: {"done", "total"}}}``.
    A validation is done once a reviewer saved a decision for the pair. A pair wants as many
    decisions as it has assigned reviewers, and each decision counts, whoever gave it, up to that
    number; a reviewer's pairs are those assigned to them and those they validated anyway. So the
    counts never fall back when the team grows and the assignment moves a validated pair to
    someone else (the tab once counted only the assigned reviewers' decisions, issue 20).
    """
    wanted = assignments.groupby("pair_id")["reviewer"].size()
    votes = _voted(store)
    votes = votes[votes["pair_id"].isin(wanted.index)].drop_duplicates(["pair_id", "reviewer"])
    given = votes.groupby("pair_id")["reviewer"].size().reindex(wanted.index, fill_value=0)
    counted = given.clip(upper=wanted)
    theirs = pd.concat([assignments[["pair_id", "reviewer"]], votes[["pair_id", "reviewer"]]])
    theirs = theirs.drop_duplicates()
    done_by = votes.groupby("reviewer")["pair_id"].size()
    total_by = theirs.groupby("reviewer")["pair_id"].size()
    return {
        "done": int(counted.sum()),
        "total": int(wanted.sum()),
        "pairs_done": int((counted >= wanted).sum()),
        "pairs_total": len(wanted),
        "reviewers": {
            str(r): {"done": int(done_by.get(r, 0)), "total": int(n)}
            for r, n in total_by.sort_index().items()
        },
    }


def my_queue(store: Store, assignments: pd.DataFrame, reviewer: Identity) -> list[str]:
    """Pairs assigned to ``reviewer`` that they have not validated yet, in assignment order."""
    mine = assignments.loc[assignments["reviewer"] == reviewer.name, "pair_id"].astype(str).tolist()
    voted = _voted(store)
    done = set(voted.loc[voted["reviewer"] == reviewer.name, "pair_id"])
    return [p for p in mine if p not in done]


def _shown_items(store: Store, viewer: Viewer | None, field: str) -> set[str] | None:
    """Items whose votes on ``field`` ``viewer`` may see (None: every item)."""
    if viewer is None or viewer.adjudicator:
        return None
    labels = shown_labels(store, viewer)
    return set(labels.loc[labels["field"] == field, "item_id"].astype(str))


def agreement(store: Store, viewer: Viewer | None = None) -> dict[str, dict[str, Any]]:
    """The store's agreement report for each criterion and for the decision.

    Per-clip criteria are pooled over clips (each clip is one rated unit), ``actions_differ`` and
    ``decision`` are rated once per pair. Each report has ``n_items``, ``raw_agreement``,
    ``krippendorff_alpha`` and ``pairs`` (Cohen's kappa per pair of reviewers). ``viewer``: over
    the items whose votes they may see only.
    """
    return {
        name: agreement_report(store, pair_owner(), field, items=_shown_items(store, viewer, field))
        for name, field in FIELDS.items()
    }


def agreement_summary(store: Store, viewer: Viewer | None = None) -> pd.DataFrame:
    """One row per criterion (and the decision): unit, items, raw agreement, alpha, mean kappa.

    ``kappa`` is the mean of the defined pairwise kappas (with two reviewers, their kappa); None
    when no pair of reviewers has one.
    """
    rows = []
    for name, report in agreement(store, viewer).items():
        kappas = [p["kappa"] for p in report["pairs"] if p["kappa"] is not None]
        rows.append(
            (
                name,
                "clip" if name in CLIP_CRITERIA else "pair",
                report["n_items"],
                report["raw_agreement"],
                report["krippendorff_alpha"],
                sum(kappas) / len(kappas) if kappas else None,
                len(report["pairs"]),
            )
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "criterion",
            "unit",
            "n_items",
            "raw_agreement",
            "krippendorff_alpha",
            "kappa",
            "reviewer_pairs",
        ],
        dtype=object,
    )  # undefined stays None
    return frame.astype({"n_items": "int64", "reviewer_pairs": "int64"})


def disagreement_queue(store: Store, viewer: Viewer | None = None) -> pd.DataFrame:
    """Pairs on which reviewers' current checks differ and no adjudication settled them since.

    Columns :data:`QUEUE_COLUMNS`: ``criteria`` (the criteria, and ``decision``, that differ),
    ``clips`` (clips whose checks differ), ``decisions`` ({reviewer: keep/drop}) and
    ``decision_split`` (the reviewers' decisions differ, not only their reasons). ``viewer``: only
    the disagreements over votes they may see.
    """
    found: dict[str, tuple[set[str], set[str]]] = {}
    for name, field in FIELDS.items():
        shown = _shown_items(store, viewer, field)
        for key in disagreements(store, pair_owner(), field)["item_id"]:
            if shown is not None and str(key) not in shown:
                continue
            parts = split_key(str(key))
            if parts is not None:
                criteria, clips = found.setdefault(parts[0], (set(), set()))
                criteria.add(name)
                if parts[1]:
                    clips.add(parts[1])
    voted = _voted(store, viewer)
    by_pair = {p: dict(zip(g["reviewer"], g["decision"], strict=True)) for p, g in voted.groupby("pair_id")}
    order = [*CRITERIA, "decision"]
    rows = [
        (
            pair,
            tuple(c for c in order if c in criteria),
            tuple(sorted(clips)),
            by_pair.get(pair, {}),
            "decision" in criteria,
        )
        for pair, (criteria, clips) in sorted(found.items())
    ]
    return pd.DataFrame(rows, columns=list(QUEUE_COLUMNS))


def decisions(
    store: Store, pair_ids: Iterable[str] | None = None, *, required: int = 1, viewer: Viewer | None = None
) -> pd.DataFrame:
    """Each pair's final decision and how it stands (:data:`RESOLUTIONS`): :data:`DECISION_COLUMNS`.

    An adjudicated decision wins; otherwise the reviewers' decision when at least ``required`` of
    them voted and all agree; otherwise None. ``pair_ids`` lists the pairs to report (in that
    order, unreviewed ones included); by default every pair with a vote or an adjudication.
    ``viewer``: from the votes and adjudications they may see only.
    """
    voted = _voted(store, viewer)
    labels = check_labels(store, scope="final", viewer=viewer)
    labels = labels[labels["field"] == FIELDS["decision"]]
    final = dict(zip(labels["pair_id"].astype(str), labels["value"].astype(str), strict=True))
    counts: dict[str, list[str]] = {}
    for pair, vote in zip(voted["pair_id"].astype(str), voted["decision"].astype(str), strict=True):
        counts.setdefault(pair, []).append(vote)
    pairs = list(pair_ids) if pair_ids is not None else sorted(set(counts) | set(final))
    rows = []
    for pair in pairs:
        votes = counts.get(pair, [])
        decision, resolution = _resolve(final.get(pair), votes, required)
        rows.append((pair, decision, resolution, len(votes), votes.count("keep"), votes.count("drop")))
    frame = pd.DataFrame(rows, columns=list(DECISION_COLUMNS), dtype=object)  # None stays None, not NaN
    return frame.astype({"n_votes": "int64", "keep": "int64", "drop": "int64"})


def _resolve(adjudicated: str | None, votes: list[str], required: int) -> tuple[str | None, str]:
    if adjudicated is not None:
        return adjudicated, "adjudicated"
    if not votes:
        return None, "unreviewed"
    if len(set(votes)) > 1:
        return None, "disputed"
    if len(votes) < required:
        return None, "pending"
    return votes[0], "unanimous"
