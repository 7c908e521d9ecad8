"""Each finding of the attack on a running server (issue 19), as the test that failed before its fix.

alice reviews, bob reviews blind, carol adjudicates, frank adjudicates blind. Every call is the
handler the browser calls, with the server's own identity.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query import Filters
from analysis.store import Identity, ItemRef, events_frame, open_store, relabel
from analysis.store.agreement import OwnVote, adjudicate
from analysis.store.events import Settled
from analysis.store.values import InvalidLabel
from components.review.context import Refused, ReviewContext
from components.review.extra import adjudicate_item, adjudication_target, queue_frame
from components.review.panel import panel, save, undo_last

ALICE, BOB, CAROL, FRANK = Identity("alice"), Identity("bob"), Identity("carol"), Identity("frank")
PAIR_11_QA_CS = "cdh-78ba53b03e01f25c"  # CDH-Bench commonsense qa, official gold "no"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def ctx(catalog: Catalog, tmp_path: Path) -> ReviewContext:
    return ReviewContext(
        catalog,
        open_store(tmp_path / "labels.db"),
        ("alice", "bob", "carol", "frank"),
        adjudicators=frozenset({"carol", "frank"}),
        blind=frozenset({"bob", "frank"}),
    )


def _row(catalog: Catalog, item_id: str = PAIR_11_QA_CS, model: str = "balanced") -> int:
    table = catalog.table
    return int(table.index[(table["item_id"] == item_id) & (table["model"] == model)][0])


def test_1_a_blind_reviewer_gets_no_other_reviewers_note_or_flags(
    catalog: Catalog, ctx: ReviewContext
) -> None:
    row = _row(catalog)
    save(ctx, row, ALICE, None, "", ["ambiguous"], "alice's own doubt", "")
    shown = panel(ctx, row, BOB)
    # the panel's form: radio, text, flags, note, reason, letters, choice part, text part
    assert shown[3]["value"] == [] and shown[4]["value"] == ""
    assert "alice" not in json.dumps(shown, default=str)
    # bob's own flag is his vote: alice's flag and note stay the item's labels
    save(ctx, row, BOB, None, "", ["broken-media"], "", "")
    assert panel(ctx, row, BOB)[3]["value"] == ["broken-media"]
    assert panel(ctx, row, ALICE)[3]["value"] == ["ambiguous"]
    events = events_frame(ctx.store)  # type: ignore[arg-type]
    bobs = events[events["reviewer"] == "bob"]
    assert set(bobs["scope"]) == {"vote"}


def test_2_a_blind_reviewer_gets_no_pair_actions(catalog: Catalog, ctx: ReviewContext) -> None:
    from components.pairs.handlers import PairsContext, pair_list, show_pair

    assert ctx.store is not None
    pairs = PairsContext(catalog, ctx.store, adjudicators=ctx.adjudicators, blind=ctx.blind)
    seen = pair_list(pairs, ALICE)
    assert (seen["actions"] != "").any()  # the actions are there for a reviewer who sees gold
    blind = pair_list(pairs, BOB)
    assert "actions" not in blind.columns  # not sent at all (nor the team's status, decision, votes)
    pair_id = str(seen["pair_id"].iloc[0])
    screen = show_pair(pairs, pair_id, BOB)
    assert "action:" not in screen.player and "action:" in show_pair(pairs, pair_id, ALICE).player


def test_3_a_blind_reviewer_gets_no_audit_queue(ctx: ReviewContext) -> None:
    assert not queue_frame(ctx, "Flagged by the audit", "cdh-bench", ALICE).empty
    with pytest.raises(Refused, match="not offered"):
        queue_frame(ctx, "Flagged by the audit", "cdh-bench", BOB)
    with pytest.raises(Refused, match="not offered"):
        queue_frame(ctx, "Flagged by the audit", "cdh-bench", FRANK)


def test_4_an_adjudication_is_settled_state(catalog: Catalog, ctx: ReviewContext) -> None:
    row = _row(catalog)
    save(ctx, row, BOB, "yes", "", [], "", "")  # bob's blind vote against the official "no"
    found = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS]
    assert "gold: no (official)" in found["detail"].iloc[0] and "bob: yes" in found["detail"].iloc[0]
    adjudicate_item(ctx, row, CAROL, "yes", "the flame is lit")
    assert queue_frame(ctx, "Disagreements", "cdh-bench", CAROL).empty
    # alice cannot undo carol's decision, and her relabel is recorded as a vote that reopens it
    with pytest.raises(Refused, match="settled"):
        undo_last(ctx, row, ALICE)
    assert "settled by an adjudication" in panel(ctx, row, ALICE)[0]
    save(ctx, row, ALICE, "no", "", [], "", "I still read no")
    reopened = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert reopened["item_id"].tolist() == [PAIR_11_QA_CS] and "alice: no" in reopened["detail"].iloc[0]
    assert "gold: yes (set by carol)" in reopened["detail"].iloc[0]
    # the store refuses a plain write of settled gold from any writer (the CLI's import too)
    item = ItemRef("cdh-bench", PAIR_11_QA_CS, "qa", "no")
    with pytest.raises(Settled):
        relabel(ctx.store, item, "gold", "no", ALICE, "import")  # type: ignore[arg-type]


def test_5_any_vote_ever_cast_bars_its_author_from_settling(catalog: Catalog, ctx: ReviewContext) -> None:
    row = _row(catalog)
    save(ctx, row, FRANK, "yes", "", [], "", "")  # frank adjudicates blind: his save is a vote
    save(ctx, row, FRANK, None, "", [], "", "")  # nothing to change: his vote stands
    undo_last(ctx, row, FRANK)  # his vote undone
    assert "you voted on it" in adjudication_target(ctx, row, FRANK)
    with pytest.raises(Refused, match="another adjudicator"):
        adjudicate_item(ctx, row, FRANK, "no", "settling after withdrawing my vote")
    # a correction counts as a side too
    item = ItemRef("cdh-bench", PAIR_11_QA_CS, "qa", "no")
    relabel(ctx.store, item, "gold", "yes", CAROL, "fix")  # type: ignore[arg-type]
    with pytest.raises(OwnVote, match="carol corrected"):
        adjudicate(ctx.store, item, "gold", "no", CAROL, "and now I settle it")  # type: ignore[arg-type]


def test_7_markdown_from_a_vote_is_text_in_the_adjudication_panel(
    catalog: Catalog, ctx: ReviewContext
) -> None:
    row = _row(catalog)
    assert ctx.store is not None
    item = ItemRef("cdh-bench", PAIR_11_QA_CS, "qa", "no")
    from analysis.store.reviewers import vote

    with pytest.raises(InvalidLabel):  # a gold vote must be a value of the item's kind...
        vote(ctx.store, item, "gold", "![p](http://host/pixel.png)", BOB)
    vote(ctx.store, item, "gold", "yes", Identity("![p](http://host/p.png)"))  # ...but a name may be anything
    shown = adjudication_target(ctx, row, CAROL)
    assert "![p](" not in shown and "!\\[p\\]" in shown  # the image markup is escaped, not rendered


def test_8_chart_and_overview_csv_cells_never_run_as_formulas(tmp_path: Path) -> None:
    from analysis.boards.leaderboard import leaderboards
    from analysis.charts.boards import board_csv
    from analysis.load.catalog import load_paths
    from components.browse.charts import chart_csv

    source = Path(SAMPLE_MANIFEST).parent / "cmm" / "predictions" / "balanced.jsonl"
    hostile = tmp_path / "=cmd|' calc'!A0.jsonl"
    hostile.write_text(source.read_text())
    catalog = load_paths([hostile])
    shown = chart_csv(catalog, Filters(benchmark="cmm"), tmp_path / "out")
    text = Path(shown["value"]).read_text()
    assert "\n=cmd" not in text and "'=cmd" in text
    overview = board_csv(leaderboards(catalog.table, "cmm", n_boot=50, seed=1))
    assert "\n=cmd" not in overview and "'=cmd" in overview
    frame = pd.read_csv(Path(shown["value"]))
    assert pd.api.types.is_numeric_dtype(frame["accuracy"].dropna())  # numbers stay numbers


def test_9_a_request_key_reused_with_another_value_is_refused(catalog: Catalog, ctx: ReviewContext) -> None:
    from analysis.store.payload import submit

    assert ctx.store is not None
    row = catalog.table.iloc[_row(catalog)]
    first = submit(
        ctx.store, {"item_id": PAIR_11_QA_CS, "field": "note", "value": "one", "key": "k1"}, ALICE, row=row
    )
    again = submit(
        ctx.store, {"item_id": PAIR_11_QA_CS, "field": "note", "value": "one", "key": "k1"}, ALICE, row=row
    )
    assert again.event_id == first.event_id  # a retry of the same write answers with its event
    with pytest.raises(InvalidLabel, match="already used"):
        submit(
            ctx.store,
            {"item_id": PAIR_11_QA_CS, "field": "note", "value": "two", "key": "k1"},
            ALICE,
            row=row,
        )
    assert len(events_frame(ctx.store)) == 1


def test_14_on_a_space_only_the_listed_accounts_review(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any Hugging Face account that signed in on a Space used to write labels."""
    from components.identity import identity_of

    class Request:
        username = None

    stranger = {"preferred_username": "stranger", "orgs": [{"preferred_username": "other-lab"}]}
    member = {"preferred_username": "dana", "orgs": [{"preferred_username": "my-lab", "name": "My Lab"}]}
    monkeypatch.delenv("HALLUSCOPE_SPACE_REVIEWERS", raising=False)
    monkeypatch.delenv("HALLUSCOPE_SPACE_ORGS", raising=False)

    def profile(values: dict[str, object]) -> object:
        import gradio as gr

        return gr.OAuthProfile({"name": "", "profile": "", "picture": "", **values})

    assert identity_of(Request(), profile(stranger)) is None  # nobody listed: the read-only demo
    monkeypatch.setenv("HALLUSCOPE_SPACE_REVIEWERS", "erin")
    monkeypatch.setenv("HALLUSCOPE_SPACE_ORGS", "my-lab")
    assert identity_of(Request(), profile(stranger)) is None
    assert identity_of(Request(), profile(member)) == Identity("dana")  # a member of a listed organisation
    assert identity_of(Request(), profile({"preferred_username": "erin"})) == Identity("erin")

    class PasswordUser:
        username = "alice"  # made by the operator with --auth: always a reviewer

    assert identity_of(PasswordUser(), None) == ALICE


def test_10_a_store_that_cannot_be_written_is_said_so_not_sign_in(
    catalog: Catalog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app import open_review

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    ctx = open_review(catalog, data_dir=blocker / "data")
    assert ctx.store is None and "cannot create the data folder" in ctx.read_only
    assert "serving the read-only demo" in capsys.readouterr().err
    row = _row(catalog)
    with pytest.raises(Refused) as refused:
        save(ctx, row, ALICE, None, "", ["ambiguous"], "a note", "")
    said = str(refused.value)
    assert "cannot be written" in said and "cannot create the data folder" in said
    assert "sign in" not in said.lower()  # alice is signed in: that is not what stands in her way
    head = panel(ctx, row, ALICE)[0]
    assert "Signed in as **alice**" in head and "cannot be written" in head
    with pytest.raises(Refused, match="sign in"):  # a visitor is still told to sign in
        save(ctx, row, None, None, "", ["ambiguous"], "a note", "")


def test_a_blind_adjudicator_is_queued_disagreements_without_anyones_vote(
    catalog: Catalog, ctx: ReviewContext
) -> None:
    # found by the four-role browser test: frank's disagreement queue read "alice: yes, bob: no"

    row = _row(catalog)
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is visible")
    save(ctx, row, BOB, "no", "", [], "", "no flame")
    frame = queue_frame(ctx, "Disagreements", "cdh-bench", FRANK)
    assert frame["item_id"].tolist() == [PAIR_11_QA_CS]
    assert "alice" not in frame.to_json() and "bob" not in frame.to_json()
    assert "you adjudicate blind" in adjudication_target(ctx, row, FRANK)
    assert "alice" not in adjudication_target(ctx, row, FRANK)
    # carol, who is not blind, reads the sides she settles
    assert "bob: no" in queue_frame(ctx, "Disagreements", "cdh-bench", CAROL).to_json()
