"""A review a team can trust, through the handlers and the API: blind is enforced on the server,
one gold on screen, a control for every kind of gold, drafts, queues and the adjudication target."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop

import app
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query import ALL, Filters
from analysis.store import Identity, events_frame, open_store
from components.browse import navigate
from components.browse.page import row_from_values, show_page
from components.review.context import Refused, ReviewContext
from components.review.extra import adjudication_target, build_exports, queue_frame
from components.review.gold import BLIND_ANSWERS, BLIND_CHARTS, MARK, ReviewerView
from components.review.panel import form_value, panel, save

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]
ALICE, BOB, CAROL = Identity("alice"), Identity("bob"), Identity("carol")
PAIR_11_QA_CS = "cdh-78ba53b03e01f25c"  # CDH-Bench commonsense qa, official gold "no"


def _blind(ctx: ReviewContext, who: Identity) -> ReviewContext:
    """``ctx`` with ``who`` reviewing blind (the role the operator gives with ``--blind``)."""
    return replace(ctx, blind=ctx.blind | {who.name})


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


def _ctx(catalog: Catalog, tmp_path: Path) -> ReviewContext:
    """alice reviews, bob reviews blind, carol adjudicates."""
    return ReviewContext(
        catalog,
        open_store(tmp_path / "labels.db"),
        ("alice", "bob", "carol"),
        adjudicators=frozenset({"carol"}),
        blind=frozenset({"bob"}),
    )


def _row(catalog: Catalog, item_id: str, model: str = "balanced") -> int:
    table = catalog.table
    return int(table.index[(table["item_id"] == item_id) & (table["model"] == model)][0])


def _first(catalog: Catalog, benchmark: str, task: str) -> int:
    table = catalog.table
    return int(table.index[(table["benchmark"] == benchmark) & (table["task"] == task)][0])


def test_a_blind_reviewers_table_inspector_and_charts_hold_no_gold(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    bob = ReviewerView(ctx, BOB)
    filters = Filters(benchmark="cdh-bench")
    frame, _, _ = show_page(bob, filters, 1)
    # the columns are not sent at all (shown empty, they read as answers missing); the row still opens
    assert len(frame) and list(frame.columns) == ["row", "item_id", "model", "task", "category", "question"]
    assert row_from_values(frame.iloc[0].tolist()) == int(frame["row"].iloc[0])
    plain, _, _ = show_page(ReviewerView(ctx, ALICE), filters, 1)
    assert (plain["gold"] != "").any()  # the same page for a reviewer who is not blind has gold
    row = _row(catalog, PAIR_11_QA_CS)
    _, _, item, spans, others = bob.inspect(row)
    assert "blind mode" in item and others == BLIND_ANSWERS and spans["visible"] is False
    assert "hs-facts" not in item and "balanced" not in item  # no verdict row, no model's answer
    note, *figures = bob.charts(filters)
    assert note == BLIND_CHARTS and all(f["visible"] is False and f["value"] is None for f in figures)
    # filters that sort rows by correctness do nothing for a blind reviewer; search reads questions only
    wrong = replace(filters, wrong_only=True)
    assert len(bob.rows(wrong)) == len(bob.rows(filters)) > len(ReviewerView(ctx, ALICE).rows(wrong))
    assert len(bob.rows(replace(filters, search="candle"))) >= 1
    assert len(bob.rows(replace(filters, search="wrong"))) == 0  # no verdict text to find


def test_a_blind_reviewer_is_not_told_which_items_the_audit_flagged(catalog: Catalog, tmp_path: Path) -> None:
    # the audit's findings quote gold (docs/review.md: no audit finding reaches a blind reviewer):
    # neither the table's flag mark nor the "flagged by the audit" filter may point at them
    ctx = _ctx(catalog, tmp_path)
    bob, alice = ReviewerView(ctx, BOB), ReviewerView(ctx, ALICE)
    filters = Filters(benchmark="cdh-bench")
    flagged = replace(filters, flagged_only=True)
    assert 0 < len(alice.rows(flagged)) < len(alice.rows(filters))  # the samples have flagged items
    assert len(bob.rows(flagged)) == len(bob.rows(filters))
    rows = alice.rows(flagged)[:50]
    assert (alice.frame(rows)["flag"] == "⚑").all()
    assert "flag" not in bob.frame(rows).columns


def test_a_blind_reviewers_api_answers_hold_no_gold(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_module = pytest.importorskip("gradio_client")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    ctx = _ctx(catalog, tmp_path)
    users = [("alice", "pa"), ("bob", "pb"), ("carol", "pc")]
    demo = app.build_app(catalog, ctx)
    public = {d.api_name for d in demo.fns.values() if getattr(d, "api_visibility", "public") != "private"}
    # every endpoint a browser or script can call; each one is checked for bob below
    assert public == {"view", "page", "next_item", "previous_item", "item", "relabel", "overview"}
    _, url, _ = demo.launch(
        prevent_thread_lock=True,
        server_name="127.0.0.1",
        server_port=_free_port(),
        quiet=True,
        auth=users,
        **app.launch_kwargs(catalog),
    )
    try:
        bob = client_module.Client(url, auth=users[1], verbose=False)
        alice = client_module.Client(url, auth=users[0], verbose=False)
        filters = ["cdh-bench", [], ALL, ALL, False, False, False, ""]
        table = bob.predict(*filters, api_name="/view")[0]
        hidden = {"answer", "parsed", "gold", "verdict", "flag"}
        assert table["data"] and not hidden & set(table["headers"])
        assert all(len(r) == len(table["headers"]) for r in table["data"])
        _, _, item, _, others = bob.predict(PAIR_11_QA_CS, *filters, api_name="/item")
        assert "blind mode" in item and others == BLIND_ANSWERS
        step = bob.predict(1, *filters, api_name="/next_item")
        assert "blind mode" in step[2] and "hs-facts" not in step[2]
        back = bob.predict(2, *filters, api_name="/previous_item")
        assert "blind mode" in back[2] and "hs-facts" not in back[2]
        second = bob.predict(2, *filters, api_name="/page")[0]
        assert second["data"] and not hidden & set(second["headers"])
        # the leaderboards are metrics over gold: bob gets the note and no board, chart or CSV
        boards, _, chart, csv = bob.predict("cdh-bench", api_name="/overview")
        assert "hidden while you review blind" in boards and "cf_acc" not in boards
        assert chart is None and not (csv or {}).get("value")
        assert "cf_acc" in alice.predict("cdh-bench", api_name="/overview")[0]
        # bob's /relabel of gold is his vote: the corrected gold does not move
        bob.predict(PAIR_11_QA_CS, "gold", "yes", "", api_name="/relabel")
        events = events_frame(ctx.store)  # type: ignore[arg-type]
        assert events[["reviewer", "scope"]].values.tolist() == [["bob", "vote"]]
        seen = alice.predict(*filters, api_name="/view")[0]
        assert seen["data"][0][seen["headers"].index("gold")] != ""  # alice's page has every column
        with pytest.raises(Exception, match="has no field 'pair_check:decision'"):
            alice.predict(PAIR_11_QA_CS, "pair_check:decision", "keep", "r", api_name="/relabel")
        with pytest.raises(Exception, match="a gold change needs a reason"):
            alice.predict(PAIR_11_QA_CS, "gold", "yes", "", api_name="/relabel")
    finally:
        demo.close()


def test_a_corrected_item_shows_one_gold_with_the_official_beside_it(
    catalog: Catalog, tmp_path: Path
) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    assert save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit in the image").startswith(
        "Saved as alice: gold no → yes"
    )
    alice = ReviewerView(ctx, ALICE)
    item = navigate.find_item(alice, PAIR_11_QA_CS, ["cdh-bench", [], ALL, ALL, False, False, False, ""])[3]
    assert f"{MARK} yes" in item and "official no" in item
    rows = alice.rows(Filters(benchmark="cdh-bench", search=PAIR_11_QA_CS))
    frame = alice.frame(rows)
    assert set(frame["gold"]) == {f"{MARK} yes (was no)"}
    # the verdicts follow the corrected gold: a model that answered "no" is now wrong
    table = catalog.table.iloc[rows]
    said_no = table["parsed"].astype(str).str.lower().eq("no").to_numpy()
    assert said_no.any() and (frame.loc[said_no, "verdict"] == "✗").all()
    assert panel(ctx, row, ALICE)[1]["value"] == "yes"
    # "wrong only" follows the gold on screen: exactly the rows the table marks wrong
    wrong = alice.rows(Filters(benchmark="cdh-bench", wrong_only=True, search=PAIR_11_QA_CS))
    assert wrong.tolist() == rows[(frame["verdict"] == "✗").to_numpy()].tolist()
    assert (
        wrong.tolist()
        != ReviewerView(replace(ctx, store=None), ALICE)
        .rows(Filters(benchmark="cdh-bench", wrong_only=True, search=PAIR_11_QA_CS))
        .tolist()
    )


def test_the_gold_radio_selects_a_capitalised_official_gold(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    table = catalog.table
    row = int(table.index[(table["benchmark"] == "avhbench") & table["gold"].isin(["Yes", "No"])][0])
    shown = panel(ctx, row, ALICE)
    assert shown[1]["value"] == str(table.at[row, "gold"]).lower()
    # labelled as the files spell the gold, valued as the store spells it (the keys pick by value)
    assert shown[1]["choices"] == [("Yes", "yes"), ("No", "no")]


def test_every_gold_kind_has_controls_that_the_save_reads(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    mcq = _first(catalog, "vidhalluc", "mcq")
    shown = panel(ctx, mcq, ALICE)
    letters, scene = shown[6], shown[7]
    assert letters["visible"] is True and letters["choices"][:2] == ["A", "B"]
    assert shown[2]["visible"] is False  # no free-text box for MCQ gold
    assert letters["value"] == list(str(catalog.table.at[mcq, "gold"]))
    assert scene["visible"] is False
    item = ctx.row(mcq)
    assert form_value(item, None, "", ["C", "A"], None, None) == "AC"
    sth = _first(catalog, "vidhalluc", "sth")
    shown = panel(ctx, sth, ALICE)
    assert shown[7]["visible"] is True and shown[7]["value"] in ("Yes", "No") and shown[8]["visible"] is True
    item = ctx.row(sth)
    assert (
        form_value(item, None, "", [], "Yes", "from a kitchen to a park.")
        == "Scene change: Yes, Locations: from a kitchen to a park."
    )
    tsh = _first(catalog, "vidhalluc", "tsh")
    assert panel(ctx, tsh, ALICE)[1]["choices"] == [("AB", "AB"), ("BA", "BA")]


def test_an_unsaved_draft_comes_back_when_the_item_is_reopened(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    draft = ["yes", "", ["ambiguous"], "half typed", "", [], None, ""]
    shown = panel(ctx, row, ALICE, drafts={row: draft})
    assert "unsaved draft restored" in shown[0]
    assert (shown[1]["value"], shown[3]["value"], shown[4]["value"]) == ("yes", ["ambiguous"], "half typed")
    assert shown[1]["choices"] == [("yes", "yes"), ("no", "no")]  # the controls of the item's gold kind
    assert "draft" not in panel(ctx, row, ALICE, drafts={row + 1: draft})[0]


def test_queues_votes_and_adjudication_respect_who_is_looking(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    save(ctx, row, BOB, "yes", "", [], "", "")  # bob is blind: this is his vote
    save(_blind(ctx, ALICE), row, ALICE, "no", "", [], "", "")  # alice votes in a round
    assert ctx.store is not None and events_frame(ctx.store)["scope"].tolist() == ["vote", "vote"]
    found = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS] and "candle" in found["question"].iloc[0].lower()
    assert "alice: no" in found["detail"].iloc[0] and "bob: yes" in found["detail"].iloc[0]
    target = adjudication_target(ctx, row, CAROL)
    assert PAIR_11_QA_CS in target and "alice: no" in target and "bob: yes" in target
    assert "gold: no (official)" in target  # every side: the gold too, with who set it
    assert "Only adjudicators" in adjudication_target(ctx, row, ALICE)
    # a reviewer who has not voted on the item sees neither the item in the queue nor its votes
    dave = Identity("dave")
    assert queue_frame(ctx, "Disagreements", "cdh-bench", dave).empty
    bob_panel = panel(ctx, row, BOB)
    assert "alice" in bob_panel[-4]  # bob voted: alice's vote is revealed to him
    assert "official" not in bob_panel[-4] and bob_panel[1]["value"] == "yes"  # his vote, not the gold
    assert "alice" not in panel(ctx, row, dave)[-4]


def test_a_blind_reviewers_disagreement_queue_does_not_tell_him_the_gold(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Listed with his vote alone, an item told bob that his vote differed from the gold."""
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)  # official gold: no
    save(ctx, row, BOB, "yes", "", [], "", "")  # bob (blind) votes against the gold, alone
    assert queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)["item_id"].tolist() == [PAIR_11_QA_CS]
    assert queue_frame(ctx, "Disagreements", "cdh-bench", BOB).empty
    # a vote that differs from his is a disagreement he may see (the votes are revealed to a voter)
    save(_blind(ctx, ALICE), row, ALICE, "no", "", [], "", "")
    found = queue_frame(ctx, "Disagreements", "cdh-bench", BOB)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS]
    assert "alice: no" in found["detail"].iloc[0] and "gold" not in found["detail"].iloc[0]
    # a blind adjudicator who voted alone is not told either; one who took no side gets a count
    blind_carol = ReviewContext(
        catalog,
        ctx.store,
        ("alice", "bob", "carol"),
        adjudicators=frozenset({"carol"}),
        blind=frozenset({"carol"}),
    )
    other = _row(
        catalog, str(catalog.table.loc[catalog.table["benchmark"] == "cdh-bench", "item_id"].iloc[0])
    )
    official = str(catalog.table.at[other, "gold"]).strip().lower()
    save(blind_carol, other, CAROL, "no" if official == "yes" else "yes", "", [], "", "")
    shown = queue_frame(blind_carol, "Disagreements", "cdh-bench", CAROL)
    assert str(catalog.table.at[other, "item_id"]) not in shown["item_id"].tolist()
    assert shown["detail"].tolist() == ["2 side(s) in dispute (hidden: you adjudicate blind)"]


def test_a_reviewer_who_set_the_gold_is_not_queued_a_vote_she_has_not_earned(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Seen in a two-reviewer walkthrough: alice corrected the gold, bob (blind) voted against it,
    and alice's Disagreements queue read "gold: no (set by alice), bob: yes": correcting the gold
    is no vote, and a vote stays hidden from her until she votes (her history hid it already)."""
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)  # official gold: no
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit")  # alice corrects the gold
    save(ctx, row, BOB, "no", "", [], "", "")  # bob, blind, votes against the correction
    assert queue_frame(ctx, "Disagreements", "cdh-bench", ALICE).empty
    assert "bob" in queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)["detail"].iloc[0]


def test_corrections_that_differ_are_queued_to_the_adjudicator_with_their_reasons(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Seen at stop 42: alice corrected a gold, dave corrected hers to another value, and no
    queue showed it: corrections are not votes. Now carol is queued it, and her panel names both."""
    ctx = replace(_ctx(catalog, tmp_path), reviewers=("alice", "bob", "carol", "dave"))
    dave = Identity("dave")
    row = _row(catalog, PAIR_11_QA_CS)  # official gold: no
    said = save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit")
    assert said == "Saved as alice: gold no → yes"  # nobody's correction replaced: nothing more said
    assert queue_frame(ctx, "Disagreements", "cdh-bench", CAROL).empty  # one correction: no dispute
    said = save(ctx, row, dave, "no", "", [], "", "the wick is bare")
    # replacing alice's correction is said to dave, not done in silence
    assert said == (
        "Saved as dave: gold yes → no (alice corrected it to yes: the corrections differ, "
        "so the item goes to an adjudicator)"
    )
    found = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS]
    detail = found["detail"].iloc[0]
    assert "alice corrected it to yes" in detail and "dave corrected it to no" in detail
    panel_text = adjudication_target(ctx, row, CAROL)
    assert "corrections in dispute" in panel_text and "the flame is lit" in panel_text
    assert "the wick is bare" in panel_text
    # alice, one of the two, is queued her dispute; bob (blind) is not, and is told nothing
    assert queue_frame(ctx, "Disagreements", "cdh-bench", ALICE)["item_id"].tolist() == [PAIR_11_QA_CS]
    assert queue_frame(ctx, "Disagreements", "cdh-bench", BOB).empty
    assert "corrections in dispute" not in adjudication_target(_blind(ctx, CAROL), row, CAROL)


def test_a_vote_equal_to_a_two_part_official_gold_is_no_disagreement(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Seen at stop 43: bob (blind) voted a scene change's published gold, scene change and
    locations, and carol was queued it as "gold: Yes (official), bob: Scene change: Yes,
    Locations: ...": the vote was compared with the table's "Yes" alone."""
    ctx = _ctx(catalog, tmp_path)
    table = catalog.table
    sth = (table["benchmark"] == "vidhalluc") & (table["task"] == "sth") & (table["gold"] == "Yes")
    row = int(table.index[sth][0])
    locations = json.loads(str(table.at[row, "extra"]))["gold_locations"]  # the published locations
    said = save(ctx, row, BOB, None, None, [], "", "", None, "Yes", locations)
    assert "your vote" in said
    assert queue_frame(ctx, "Disagreements", "vidhalluc", CAROL).empty
    # other locations are a vote against the published gold: queued, the gold shown whole
    save(ctx, row, BOB, None, None, [], "", "", None, "Yes", "from a street to a beach.")
    found = queue_frame(ctx, "Disagreements", "vidhalluc", CAROL)
    assert found["item_id"].tolist() == [str(table.at[row, "item_id"])]
    assert f"gold: Scene change: Yes, Locations: {locations} (official)" in found["detail"].iloc[0]


def test_exports_hold_only_what_the_reviewer_may_see(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    save(_blind(ctx, ALICE), row, ALICE, "no", "", [], "", "")
    save(ctx, row, BOB, "yes", "", [], "", "")
    first = catalog.table.loc[catalog.table["benchmark"] == "cdh-bench", "item_id"].iloc[0]
    other = _row(catalog, str(first))
    save(ctx, other, CAROL, None, "", ["ambiguous"], "", "")
    with pytest.raises(Refused):
        build_exports(ctx, "cdh-bench", None)
    files = build_exports(ctx, "cdh-bench", BOB)
    log = pd.read_csv(files[0])
    assert log["reviewer"].tolist() == ["alice", "bob"] and set(log["scope"]) == {"vote"}
    assert files[3:] == ["", "", "", ""]  # no final labels, no gold for a blind reviewer
    full = build_exports(ctx, "cdh-bench", CAROL)
    assert sorted(pd.read_csv(full[0])["reviewer"]) == ["alice", "bob", "carol"]
    carol_events = json.loads(Path(full[1]).read_text().splitlines()[-1])
    assert carol_events["field"] == "flag"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_adjudication_view_shows_every_side_with_its_author_and_reason(
    catalog: Catalog, tmp_path: Path
) -> None:
    """alice corrects, bob votes blind against her: carol sees both sides, who took them and why."""
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    save(ctx, row, ALICE, "yes", "", [], "", "the candle is lit in the image")
    save(ctx, row, BOB, "no", "", [], "", "I see no flame")
    target = adjudication_target(ctx, row, CAROL)
    assert "gold: yes (corrected by alice — “the candle is lit in the image”)" in target
    assert "bob: no — “I see no flame”" in target
    found = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS]  # a blind vote against a correction disagrees


def test_a_visitor_reads_the_public_queues_and_is_told_to_sign_in_for_the_others(
    catalog: Catalog, tmp_path: Path
) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    save(ctx, row, BOB, "yes", "", [], "", "")  # a vote a visitor must not read through a queue
    # the two queues made from public data answer a visitor (the audit flags AVHBench items)
    assert not queue_frame(ctx, "Flagged by the audit", "avhbench", None).empty
    assert not queue_frame(ctx, "Suspected wrong gold", "cdh-bench", None).empty
    # the others refuse, saying to sign in (not a blind reviewer's reason)
    for queue in ("My unreviewed items", "Disagreements"):
        with pytest.raises(Refused, match="Sign in to see the queue") as refused:
            queue_frame(ctx, queue, "cdh-bench", None)
        assert "gold" not in str(refused.value)
    # a blind reviewer is still refused the audit's queue with the reason
    with pytest.raises(Refused, match="audit findings quote gold"):
        queue_frame(ctx, "Flagged by the audit", "avhbench", BOB)


def test_the_keys_legend_names_only_the_keys_the_viewer_can_use(catalog: Catalog, tmp_path: Path) -> None:
    """A visitor was told the reviewing keys (which do nothing for them), a blind reviewer `r`."""
    import gradio as gr

    demo = app.build_app(catalog, _ctx(catalog, tmp_path))
    (legend,) = {d.fn for d in demo.fns.values() if getattr(d.fn, "__qualname__", "").endswith("legend_for")}
    shown = {
        name: legend(gr.Request(username=name, session_hash=f"legend-{name}"), None)
        for name in (None, "alice", "bob", "carol")
    }
    assert all("`j` next item" in text for text in shown.values())
    assert "Reviewing" not in shown[None] and "`y / n`" not in shown[None]
    for name in ("alice", "carol"):
        assert "`y / n`" in shown[name] and "`r` confirm the gold" in shown[name]
    assert "`y / n`" in shown["bob"] and "`r` " not in shown["bob"]  # bob reviews blind
    # a read-only demo (no label store): nobody is told the reviewing keys
    demo = app.build_app(catalog, ReviewContext(catalog, None, ("alice",)))
    (legend,) = {d.fn for d in demo.fns.values() if getattr(d.fn, "__qualname__", "").endswith("legend_for")}
    assert "Reviewing" not in legend(gr.Request(username="alice", session_hash="legend-ro"), None)


def test_a_blind_reviewer_is_not_offered_to_open_a_models_failures(catalog: Catalog, tmp_path: Path) -> None:
    """bob's picker had no board, and its button raised an error that marked the filters red."""
    import gradio as gr

    demo = app.build_app(catalog, _ctx(catalog, tmp_path))
    (picker,) = {
        d.fn for d in demo.fns.values() if getattr(d.fn, "__qualname__", "").endswith("wire.<locals>.picker")
    }
    for name, shown in (("bob", False), ("alice", True), (None, True)):
        target, button = picker(gr.Request(username=name, session_hash=f"picker-{name}"), None)
        assert target["visible"] is shown and button["visible"] is shown, name
