"""Who may see and do what: decided here once, asked by the app, the command line and the exports.

Five kinds of viewer: a **visitor** (nobody signed in: the public data, the corrected gold, no
reviewer's notes, flags or votes, no writes), a **reviewer** (corrects gold: a save sets the
current gold), a **blind reviewer** (votes without seeing gold, verdicts, readings, model answers,
metrics, charts, audit findings, or another reviewer's label), an **adjudicator** (settles
disagreements and sees every vote) and a **blind adjudicator** (votes blind, and may settle only
what they never voted on). ``docs/review.md`` tells it as a reviewer reads it.

An :class:`Access` is a small immutable value built per request from the server's own identity and
the roles the operator gave (``--adjudicator``, ``--blind``); nothing of it comes from the browser.
The Gradio handlers ask it (``access.sees_gold``, ``access.filters(f)``...) and never decide.
Which events a viewer may read is :mod:`analysis.store.visibility`'s rule (:attr:`Access.viewer`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from analysis.query import Filters
from analysis.store.visibility import Viewer

HIDDEN_COLUMNS: tuple[str, ...] = ("answer", "parsed", "gold", "verdict", "flag")
"""Columns of the item table page a blind reviewer does not receive (the flag marks an audit
finding, which quotes gold). The last ones of the page, so the others keep their places."""

SEARCHED_BLIND: tuple[str, ...] = ("item_id", "question")
"""What a blind reviewer's search looks in (not the answers, which would sort rows by them)."""

Queue = Literal["flagged", "suspects", "unreviewed", "disagreements"]


@dataclass(frozen=True)
class Roles:
    """Who adjudicates and who reviews blind (everyone else signed in is a reviewer)."""

    adjudicators: frozenset[str] = frozenset()
    blind: frozenset[str] = frozenset()
    accounts: frozenset[str] = frozenset()
    """Hugging Face accounts that may sign in as reviewers (on a Space)."""
    orgs: frozenset[str] = frozenset()
    """Hugging Face organisations whose members may sign in as reviewers (on a Space)."""


def may_review(roles: Roles, account: str, orgs: frozenset[str] = frozenset(), *, listed_only: bool) -> bool:
    """Whether a signed-in account is a reviewer (else it gets the read-only demo).

    ``listed_only``: the sign-in is open to anyone (a Hugging Face account on a public Space), so
    only the accounts and organisations the operator lists review; a password user of ``--auth``
    was made by the operator and always does.
    """
    if not listed_only:
        return True
    return account in roles.accounts or bool(orgs & roles.orgs)


@dataclass(frozen=True)
class Access:
    """What one viewer may see and do (see the module docstring)."""

    name: str = ""
    """The signed-in reviewer; empty for a visitor."""
    blind: bool = False
    adjudicator: bool = False
    writable: bool = False
    """A label store is open and takes writes."""

    @classmethod
    def of(cls, name: str | None, roles: Roles, *, writable: bool) -> Access:
        """The access of ``name`` (None or empty: a visitor, who is never blind nor an adjudicator)."""
        if not name:
            return cls(writable=False)
        return cls(name, name in roles.blind, name in roles.adjudicators, writable)

    @property
    def signed_in(self) -> bool:
        """A reviewer is signed in."""
        return bool(self.name)

    @property
    def viewer(self) -> Viewer:
        """The store's visibility rule for this viewer (which events and votes they may read)."""
        return Viewer(self.name, blind=self.blind, adjudicator=self.adjudicator)

    # -- seeing -------------------------------------------------------------------------------

    @property
    def sees_gold(self) -> bool:
        """Gold, verdicts, readings, model answers, metrics, charts and audit findings."""
        return not self.blind

    @property
    def sees_team(self) -> bool:
        """Other reviewers' work on an item: its current flags and note, the agreement figures."""
        return self.signed_in and not self.blind

    @property
    def hidden_columns(self) -> tuple[str, ...]:
        """Columns of the table page left out."""
        return HIDDEN_COLUMNS if self.blind else ()

    def filters(self, wanted: Filters) -> Filters:
        """The filters this viewer's view applies.

        A blind reviewer's drop every filter that would sort rows by verdict, parser or audit
        finding, and any slice or flip-table cell (both cut by verdict or gold); the search is
        narrowed by :attr:`searched`.
        """
        if not self.blind:
            return wanted
        return replace(
            wanted, wrong_only=False, parser_dependent=False, flagged_only=False, slice=(), flip=()
        )

    @property
    def searched(self) -> tuple[str, ...] | None:
        """Columns a search looks in; None: the prepared search text (question, answer, ids)."""
        return SEARCHED_BLIND if self.blind else None

    def queues(self) -> tuple[Queue, ...]:
        """The review queues offered.

        A visitor reads the two made from the public data (the audit's findings and the suspected
        wrong gold, both on the overview already); a reviewer's own queue and the disagreements
        need a signed-in reviewer.
        """
        if not self.signed_in:
            return ("flagged", "suspects")
        if self.blind:  # the suspects without their scores and reasons (:attr:`sees_gold`)
            return ("suspects", "unreviewed", "disagreements")
        return ("flagged", "suspects", "unreviewed", "disagreements")

    # -- doing --------------------------------------------------------------------------------

    @property
    def may_write(self) -> bool:
        """Save labels (gold, flags, note), undo their own saves, validate pairs."""
        return self.signed_in and self.writable

    def refusal(self, action: str, why_read_only: str = "") -> str | None:
        """One line saying why this viewer cannot ``action`` (None when they may write).

        A visitor is told to sign in; a signed-in reviewer of a store that cannot be written is told
        that (``why_read_only``: what opening it said), never to sign in again.
        """
        if not self.signed_in:
            return f"Refused: sign in to {action} (this app is read-only without a reviewer)."
        if not self.writable:
            why = why_read_only or "no label store is open"
            return f"Refused: the label store cannot be written ({why}); nothing was saved."
        return None

    @property
    def gold_scope(self) -> Literal["vote", "final"]:
        """What a saved gold is: a blind reviewer's vote, anyone else's correction of the gold."""
        return "vote" if self.blind else "final"

    @property
    def may_adjudicate(self) -> bool:
        """Settle disagreements (their own votes excepted: :mod:`analysis.store.agreement`)."""
        return self.may_write and self.adjudicator

    @property
    def may_export_team(self) -> bool:
        """Export the final labels and corrected gold files (a blind reviewer exports their own events)."""
        return self.signed_in and not self.blind


__all__ = ["HIDDEN_COLUMNS", "SEARCHED_BLIND", "Access", "Queue", "Roles", "may_review"]
