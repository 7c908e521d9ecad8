"""The one access policy: what each kind of viewer may see and do, and that the app never decides it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis.query import Filters
from analysis.query.pages import DISPLAY_COLUMNS
from analysis.review.access import HIDDEN_COLUMNS, Access, Roles

ROOT = Path(__file__).resolve().parents[2]
ROLES = Roles(adjudicators=frozenset({"carol", "frank"}), blind=frozenset({"bob", "frank"}))


@pytest.mark.parametrize(
    ("name", "signed_in", "blind", "adjudicator"),
    [
        (None, False, False, False),  # a visitor
        ("alice", True, False, False),  # a reviewer
        ("bob", True, True, False),  # a blind reviewer
        ("carol", True, False, True),  # an adjudicator
        ("frank", True, True, True),  # a blind adjudicator
    ],
)
def test_each_role_is_read_from_the_operators_roles(
    name: str | None, signed_in: bool, blind: bool, adjudicator: bool
) -> None:
    access = Access.of(name, ROLES, writable=True)
    assert (access.signed_in, access.blind, access.adjudicator) == (signed_in, blind, adjudicator)
    assert access.sees_gold is not blind
    assert access.sees_team == (signed_in and not blind)
    assert access.may_write == signed_in
    assert access.may_adjudicate == (signed_in and adjudicator)
    assert access.gold_scope == ("vote" if blind else "final")
    assert access.hidden_columns == (HIDDEN_COLUMNS if blind else ())
    # the last columns of the page: the ones kept keep their places (and their widths)
    assert DISPLAY_COLUMNS[-len(HIDDEN_COLUMNS) :] == HIDDEN_COLUMNS
    seen = access.viewer
    assert (seen.name, seen.blind, seen.adjudicator) == (name or "", blind, adjudicator)


def test_a_visitor_is_never_blind_nor_an_adjudicator_and_never_writes() -> None:
    visitor = Access.of("", Roles(frozenset({""}), frozenset({""})), writable=True)
    assert not (visitor.blind or visitor.adjudicator or visitor.may_write)


def test_without_a_store_nobody_writes() -> None:
    assert not Access.of("carol", ROLES, writable=False).may_write
    assert not Access.of("carol", ROLES, writable=False).may_adjudicate


def test_a_blind_reviewers_filters_cannot_sort_rows_by_verdict_or_audit() -> None:
    wanted = Filters(benchmark="b", wrong_only=True, parser_dependent=True, flagged_only=True, search="x")
    assert Access.of("bob", ROLES, writable=True).filters(wanted) == Filters(benchmark="b", search="x")
    assert Access.of("alice", ROLES, writable=True).filters(wanted) == wanted
    assert Access.of("bob", ROLES, writable=True).searched == ("item_id", "question")
    # the suspects without scores or reasons (docs/suspects.md); never the audit's queue
    assert Access.of("bob", ROLES, writable=True).queues() == ("suspects", "unreviewed", "disagreements")
    assert "flagged" in Access.of("alice", ROLES, writable=True).queues()
    # a visitor: the queues made from the public data only (one's own queue needs a reviewer)
    assert Access.of(None, ROLES, writable=True).queues() == ("flagged", "suspects")


def _role_decisions(path: Path) -> list[str]:
    """``x in <something>.blind`` / ``.adjudicators`` tests: a role decided outside the core."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            for right in node.comparators:
                if isinstance(right, ast.Attribute) and right.attr in ("blind", "adjudicators"):
                    found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_gradio_module_decides_a_role() -> None:
    paths = [*ROOT.glob("components/**/*.py"), ROOT / "app.py"]
    assert [hit for p in paths for hit in _role_decisions(p)] == []


def test_the_role_check_finds_a_decision(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("def f(me, ctx):\n    return me.name in ctx.blind\n", encoding="utf-8")
    assert _role_decisions(planted) == ["planted.py:2"]
