"""Handlers of the VidHalluc pair-validation tab, called as plain functions over the samples."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop  # noqa: F401 - a fixture

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.review.pairs.previews import MediaJobs
from analysis.review.pairs.validation import PairChecks, check_labels
from analysis.store import Identity, open_store
from components.pairs import handlers as ph
from components.pairs import media as pm
from components.pairs.sync_player import PLAYER_JS

ALICE, BOB, CAROL = Identity("alice"), Identity("bob"), Identity("carol")
PAIR, TRIPLE = "sf7026ba", "s208d8d2"  # a clean pair; a group of three whose third clip is truncated


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def ctx(catalog: Catalog, tmp_path: Path) -> Iterator[ph.PairsContext]:
    store = open_store(tmp_path / "labels.db")
    yield ph.PairsContext(catalog, store, k=2, reviewers=("alice", "bob"))
    store.engine.dispose()


def _all(checks: PairChecks, value: bool) -> PairChecks:
    n = len(checks.clips)
    return PairChecks(checks.pair_id, checks.clips, (value,) * n, (value,) * n, value)


def test_pair_screen_shows_both_players_the_answers_and_a_blank_form(ctx: ph.PairsContext) -> None:
    screen = ph.show_pair(ctx, PAIR, ALICE)
    assert screen.player.count("<video") == 2
    assert "sf7026ba_clip_1" in screen.player and "2.00 s" in screen.player and "walking" in screen.player
    assert screen.checks == PairChecks.blank(PAIR, ("sf7026ba_clip_1", "sf7026ba_clip_2"))
    # 2 binary questions x 2 clips + 1 MCQ per clip; one raw answer column and one mark per model
    assert len(screen.grid) == 6 and list(screen.grid["clip"][:2]) == ["A", "B"]
    assert screen.grid.loc[1, "yes-biased"] == "✗ Yes, the person is walking."
    assert screen.grid.loc[4, "options"] == "A. jumping · B. walking · C. spinning · D. running"
    assert screen.grid.loc[0, "balanced"] == "✗ (no answer)"  # wrong, and said why: not a bare mark


def test_an_unreadable_clip_is_shown_as_such_not_as_a_broken_player(ctx: ph.PairsContext) -> None:
    screen = ph.show_pair(ctx, TRIPLE, None)
    assert screen.player.count("<video") == 2  # clips 1 and 2 only
    assert 'data-status="unreadable"' in screen.player and "s208d8d2_clip_3" in screen.player
    assert "Invalid data" in screen.player


def test_the_decision_follows_the_toggles_and_the_keys(ctx: ph.PairsContext) -> None:
    blank = ph.show_pair(ctx, PAIR, ALICE).checks
    assert "undecided" in ph.decision_text(blank) and "5 check(s) open" in ph.decision_text(blank)
    kept = ph.set_checks(blank, ["yes", "yes", None], ["yes", "yes", None], "yes")  # 3rd toggle hidden
    assert kept.decision == "keep" and "KEEP" in ph.decision_text(kept)
    same = ph.set_checks(blank, ["yes", "yes"], ["yes", "yes"], "no")
    assert "DROP" in ph.decision_text(same) and "the clips show the same action" in ph.decision_text(same)
    pressed = blank
    for key in "12345":
        pressed = ph.on_key(pressed, key)
    assert pressed == kept
    pressed = ph.on_key(pressed, "2")  # yes -> no: clip B has no clear action
    assert pressed.decision == "drop" and "sf7026ba_clip_2: no clear action" in ph.decision_text(pressed)
    assert ph.on_key(pressed, "9") == pressed


def test_writes_are_refused_without_a_signed_in_reviewer(ctx: ph.PairsContext) -> None:
    checks = _all(ph.show_pair(ctx, PAIR, None).checks, True)
    with pytest.raises(ph.Refused, match="Sign in"):
        ph.save(ctx, checks, "looks fine", None)
    with pytest.raises(ph.Refused, match="Sign in"):
        ph.adjudicate(ctx, checks, "settled", None)
    assert check_labels(ctx.store).empty and check_labels(ctx.store, scope="final").empty


def test_an_incomplete_form_is_refused_with_the_reason(ctx: ph.PairsContext) -> None:
    half = ph.on_key(ph.show_pair(ctx, PAIR, ALICE).checks, "1")
    with pytest.raises(ph.Refused, match="4 check"):
        ph.save(ctx, half, "", ALICE)


def test_save_persists_across_a_store_reopen_and_moves_to_the_next_pair(
    catalog: Catalog, tmp_path: Path
) -> None:
    store = open_store(tmp_path / "labels.db")
    ctx = ph.PairsContext(catalog, store, k=2, reviewers=("alice", "bob"))
    queue = ph.pair_list(ctx, ALICE)
    mine = queue.loc[queue["mine"] == "●", "pair_id"].tolist()
    assert len(mine) == 8  # k = 2 of 2 reviewers: everyone reviews every pair
    checks = ph.set_checks(ph.show_pair(ctx, mine[0], ALICE).checks, ["yes"] * 3, ["yes"] * 3, "no")
    following = ph.save(ctx, checks, "same action twice", ALICE)
    assert following == mine[1]
    store.engine.dispose()
    reopened = ph.PairsContext(catalog, open_store(tmp_path / "labels.db"), k=2, reviewers=("alice", "bob"))
    again = ph.show_pair(reopened, mine[0], ALICE)
    assert again.checks == checks and again.note == "same action twice"
    assert ph.show_pair(reopened, mine[0], BOB).checks == PairChecks.blank(mine[0], checks.clips)
    listed = ph.pair_list(reopened, ALICE).set_index("pair_id")
    assert listed.at[mine[0], "mine"] == "" and listed.at[mine[0], "status"] == "pending"
    reopened.store.engine.dispose()


def test_team_view_shows_progress_agreement_and_the_disagreement_to_adjudicate(ctx: ph.PairsContext) -> None:
    blank = ph.show_pair(ctx, PAIR, ALICE).checks
    ph.save(ctx, _all(blank, True), "", ALICE)
    ph.save(ctx, ph.on_key(_all(blank, True), "5"), "", BOB)  # bob: same action -> drop
    line, people, agree, split = ph.team(ctx, ALICE)
    assert line.startswith("**2 / 16** validations done") and "my queue: 7 left" in line
    assert dict(zip(people["reviewer"], people["done"], strict=True)) == {"alice": 1, "bob": 1}
    assert list(agree["criterion"]) == ["clear_action", "single_action", "actions_differ", "decision"]
    assert split["pair_id"].tolist() == [PAIR] and "decision" in split.at[0, "criteria"]
    assert split.at[0, "decisions"] == "alice: keep, bob: drop"
    with pytest.raises(ph.Refused, match="reason"):
        ph.adjudicate(ctx, _all(blank, True), "  ", CAROL)
    with pytest.raises(ph.Refused, match=r"alice validated pair .*another adjudicator must settle it"):
        ph.adjudicate(ctx, _all(blank, True), "mine is right", ALICE)  # alice holds a vote on it
    ph.adjudicate(ctx, _all(blank, True), "both actions are clearly different", CAROL)
    assert ph.team(ctx, ALICE)[3].empty
    listed = ph.pair_list(ctx, ALICE).set_index("pair_id")
    assert listed.at[PAIR, "decision"] == "keep" and listed.at[PAIR, "status"] == "adjudicated"


def test_exports_hold_the_decisions_and_only_kept_pairs(ctx: ph.PairsContext) -> None:
    blank = ph.show_pair(ctx, PAIR, ALICE).checks
    for me in (ALICE, BOB):
        ph.save(ctx, _all(blank, True), "", me)
    pairs = json.loads(Path(ph.export_json(ctx, ALICE)).read_text())
    decided = {p["pair_id"]: p["decision"] for p in pairs["pairs"]}
    assert decided[PAIR] == "keep" and len(decided) == 8
    assert "sf7026ba" in Path(ph.export_csv(ctx, ALICE)).read_text()
    with pytest.raises(ph.Refused, match="Sign in"):
        ph.export_json(ctx, None)
    with zipfile.ZipFile(ph.export_gold_zip(ctx, ALICE)) as archive:
        assert sorted(archive.namelist()) == ["ach_binaryqa.json", "ach_mcq.json"]
        mcq = json.loads(archive.read("ach_mcq.json"))
    assert list(mcq) == [PAIR]


def test_media_jobs_give_thumbnails_and_a_preview(ctx: ph.PairsContext, tmp_path: Path) -> None:
    with pytest.raises(ph.Refused, match="off"):
        pm.start_preview(ctx, PAIR)
    with MediaJobs(tmp_path / "previews") as jobs:
        ctx.jobs = jobs
        started = pm.start_thumbnails(ctx, TRIPLE)
        assert sorted(started) == ["s208d8d2_clip_1", "s208d8d2_clip_2"]  # the unreadable clip is skipped
        job = pm.start_preview(ctx, PAIR)
        jobs.wait(job, timeout=120)
        for job_id in started.values():
            jobs.wait(job_id, timeout=60)
        line, path, finished = pm.poll_preview(ctx, job)
        strip, done = pm.poll_thumbnails(ctx, started)
    assert finished and path is not None and Path(path).suffix == ".mp4" and Path(path).stat().st_size > 0
    assert "ready" in line
    assert done and strip.count("data:image/jpeg;base64,") == 6


def test_player_script_keeps_followers_within_the_drift_limit() -> None:
    assert "const MAX_DRIFT = 0.1;" in PLAYER_JS
    for event in ("'play'", "'pause'", "'seeked'", "'ratechange'", "setInterval"):
        assert event in PLAYER_JS


def test_roles_in_the_pair_tab_adjudicators_settle_blind_reviewers_see_no_gold(
    catalog: Catalog, tmp_path: Path
) -> None:
    store = open_store(tmp_path / "labels.db")
    ctx = ph.PairsContext(
        catalog,
        store,
        k=2,
        reviewers=("alice", "bob"),
        adjudicators=frozenset({"carol"}),
        blind=frozenset({"bob"}),
    )
    blank = ph.show_pair(ctx, PAIR, ALICE).checks
    ph.save(ctx, _all(blank, True), "", ALICE)
    shown = ph.show_pair(ctx, PAIR, BOB)
    assert list(shown.grid.columns) == ["task", "clip", "question", "options"]  # no gold, no verdicts
    assert "gold" in ph.show_pair(ctx, PAIR, ALICE).grid.columns
    listed = ph.pair_list(ctx, BOB).set_index("pair_id")
    # alice's vote is hidden: no status, decision or vote count at all (a 0 read as "no votes"), no actions
    assert list(listed.columns) == ["mine"]
    assert list(ph.pair_list(ctx, None).columns) == ["pair_id", "actions"]  # a visitor: no queue either
    # but his own queue is marked, as the legend says (it stood empty for a blind reviewer)
    assert listed.at[PAIR, "mine"] == "●" and (listed["mine"] == "●").sum() == len(listed)  # k=2 of 2
    with pytest.raises(ph.Refused, match="bob is not an adjudicator"):
        ph.adjudicate(ctx, _all(blank, True), "both differ", BOB)
    ph.adjudicate(ctx, _all(blank, True), "both differ", CAROL)
    # the tab shows the Adjudicate button to exactly those it does not refuse
    assert [ctx.may_adjudicate(me) for me in (None, ALICE, BOB, CAROL)] == [False, False, False, True]
    anyone = ph.PairsContext(catalog, store, k=2, reviewers=("alice", "bob"))
    assert [anyone.may_adjudicate(me) for me in (None, ALICE, BOB)] == [False, True, True]
    # an adjudicator who validated a pair is told on it that another settles it (the store refuses
    # them; the button was shown without a word, seen in a walkthrough)
    assert ph.OWN_VALIDATION in ph.show_pair(anyone, PAIR, ALICE).info
    assert ph.OWN_VALIDATION not in ph.show_pair(anyone, TRIPLE, ALICE).info
    assert ph.OWN_VALIDATION not in ph.show_pair(ctx, PAIR, ALICE).info  # alice does not adjudicate there
    with pytest.raises(ph.Refused, match="alice validated pair"):
        ph.adjudicate(anyone, _all(blank, True), "mine", ALICE)
    store.engine.dispose()


def _pairs_tab_answers(ctx: ph.PairsContext, me: Identity) -> dict[str, str]:
    """Every pairs-tab answer ``me`` gets that could hold a validation, as text."""
    line, people, agree, split = ph.team(ctx, me)
    with zipfile.ZipFile(ph.export_gold_zip(ctx, me)) as archive:
        kept = archive.read("ach_mcq.json").decode()
    return {
        "team": line + people.to_csv() + agree.to_csv(),
        "split": split.to_csv(),
        "list": ph.pair_list(ctx, me).to_csv(),
        "json": Path(ph.export_json(ctx, me)).read_text(),
        "csv": Path(ph.export_csv(ctx, me)).read_text(),
        "kept": kept,
    }


def _pair_json(ctx: ph.PairsContext, me: Identity, pair: str) -> dict[str, Any]:
    found = json.loads(Path(ph.export_json(ctx, me)).read_text())["pairs"]
    return next(p for p in found if p["pair_id"] == pair)


def test_a_reviewer_who_has_not_voted_sees_no_other_reviewers_validation_until_they_vote(
    catalog: Catalog, tmp_path: Path
) -> None:
    """Issue 10: the pairs tab applies the Items tab's rule (analysis.store.visibility)."""
    store = open_store(tmp_path / "labels.db")
    dave = Identity("dave")
    ctx = ph.PairsContext(
        catalog, store, k=2, reviewers=("alice", "bob", "carol"), adjudicators=frozenset({"dave"})
    )
    blank, triple = ph.show_pair(ctx, PAIR, ALICE).checks, ph.show_pair(ctx, TRIPLE, ALICE).checks
    ph.save(ctx, _all(blank, True), "alice thinks keep", ALICE)
    ph.save(ctx, ph.on_key(_all(blank, True), "5"), "bob thinks drop", BOB)  # same action -> drop
    for me in (ALICE, BOB):
        ph.save(ctx, _all(triple, True), "", me)  # unanimous keep on the triple

    hidden = _pairs_tab_answers(ctx, CAROL)  # carol is not blind, has not voted
    for name, text in hidden.items():  # the team panel names who is done (no decision); nothing else does
        for secret in ("thinks", *(() if name == "team" else ("alice", "bob"))):
            assert secret not in text, f"{secret!r} leaks to carol through {name}"
    for name in ("split", "list", "csv", "kept"):
        assert "keep" not in hidden[name] and "drop" not in hidden[name], name
    listed_json = json.loads(hidden["json"])
    assert all(p["decision"] is None and not p["reviews"] for p in listed_json["pairs"])
    assert listed_json["counts"] == {"keep": 0, "drop": 0, "undecided": 8}
    assert ph.team(ctx, CAROL)[3].empty and ph.team(ctx, CAROL)[2]["items"].eq(0).all()
    listed = ph.pair_list(ctx, CAROL).set_index("pair_id")
    assert listed.at[PAIR, "votes"] == 0 and listed.at[TRIPLE, "status"] == "unreviewed"
    assert json.loads(hidden["kept"]) == {}  # the triple is kept, but carol cannot know it

    seen = _pairs_tab_answers(ctx, dave)  # the adjudicator sees every vote
    assert ph.team(ctx, dave)[3].at[0, "decisions"] == "alice: keep, bob: drop"
    assert "alice thinks keep" in seen["json"] and "bob thinks drop" in seen["csv"]
    assert list(json.loads(seen["kept"])) == [TRIPLE]
    assert ph.pair_list(ctx, dave).set_index("pair_id").at[TRIPLE, "decision"] == "keep"

    ph.save(ctx, _all(blank, True), "", CAROL)  # carol votes on the pair: its votes are revealed
    split = ph.team(ctx, CAROL)[3]
    assert split["pair_id"].tolist() == [PAIR]
    assert split.at[0, "decisions"] == "alice: keep, bob: drop, carol: keep"
    assert {r["reviewer"] for r in _pair_json(ctx, CAROL, PAIR)["reviews"]} == {"alice", "bob", "carol"}
    assert _pair_json(ctx, CAROL, TRIPLE)["reviews"] == []  # still not voted there
    assert ph.pair_list(ctx, CAROL).set_index("pair_id").at[PAIR, "votes"] == 3

    ph.adjudicate(ctx, _all(triple, True), "both clips differ", dave)  # settled: revealed to everyone
    settled = _pair_json(ctx, CAROL, TRIPLE)
    assert settled["decision"] == "keep" and settled["resolution"] == "adjudicated"
    assert {r["reviewer"] for r in settled["reviews"]} == {"alice", "bob"}
    store.engine.dispose()


def test_the_pair_screen_shows_the_corrected_gold_and_verdicts(ctx: ph.PairsContext) -> None:
    # Issue 20: the tab showed the official gold after a correction, unlike every other view.
    from analysis.store import relabel

    before = ph.show_pair(ctx, PAIR, ALICE).grid
    table = ctx.catalog.table
    rows = table.iloc[ctx.catalog.pair_rows("vidhalluc", PAIR)]
    binary = rows[rows["task"] == "bqa"].iloc[0]
    new = "No" if str(binary["gold"]) == "Yes" else "Yes"
    relabel(ctx.store, binary, "gold", new, ALICE, "the clip shows otherwise")
    after = ph.show_pair(ctx, PAIR, ALICE).grid
    changed = (before["gold"].astype(str) != after["gold"].astype(str)).to_numpy()
    assert changed.sum() >= 1 and {g.lower() for g in after.loc[changed, "gold"]} == {new.lower()}
    # the verdict marks follow the corrected gold too
    assert any((before.loc[changed, m] != after.loc[changed, m]).any() for m in ("balanced", "yes-biased"))


def test_the_catalogue_is_made_on_first_use_once_for_every_thread(catalog: Catalog, tmp_path: Path) -> None:
    # building the tab needs the ids only (half of a million-row build went to the catalogue);
    # the first handler to ask makes it, and handlers asking at once all get that one catalogue
    from concurrent.futures import ThreadPoolExecutor

    store = open_store(tmp_path / "labels.db")
    ctx = ph.PairsContext(catalog, store, k=2, reviewers=("alice", "bob"), scores={PAIR: {"semantic": 0.5}})
    assert ctx._catalogue is None and PAIR in ctx.ids
    with ThreadPoolExecutor(8) as pool:
        seen = list(pool.map(lambda _: ctx.pairs, range(8)))
    assert all(pairs is seen[0] for pairs in seen)
    assert seen[0]["pair_id"].tolist() == ctx.ids
    assert seen[0].set_index("pair_id").loc[PAIR, "similarity"]["semantic"] == 0.5  # the scores given
    ctx.set_scores({PAIR: {"semantic": 0.25}})
    assert ctx.pairs.set_index("pair_id").loc[PAIR, "similarity"]["semantic"] == 0.25
    store.engine.dispose()


@pytest.mark.usefixtures("close_gradio_loop")
@GRADIO_LOOP_WARNINGS[0]
@GRADIO_LOOP_WARNINGS[1]
@GRADIO_LOOP_WARNINGS[2]
def test_a_thumbnail_tick_sent_before_another_pair_was_shown_changes_nothing(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Seen in a screenshot: a poll started on one pair answered after the next pair was shown; its
    # strip (the first pair's frames, labelled with its clip ids) replaced the new pair's and its
    # stop ended the polling, so the new pair's frames never came until it was opened again.
    import gradio as gr

    from components.pairs.tab import build_pairs_tab

    store = open_store(tmp_path / "labels.db")
    with gr.Blocks() as demo:
        tab = build_pairs_tab(catalog, store, lambda request: None, preview_dir=tmp_path / "previews")
    assert tab.jobs is not None
    handlers = {getattr(d.fn, "__qualname__", ""): d.fn for d in demo.fns.values()}
    open_pair, tick = handlers["_wire.<locals>.open_pair"], handlers["_wire.<locals>.tick"]
    page, other = gr.Request(session_hash="page-1"), gr.Request(session_hash="page-2")
    first = open_pair(PAIR, page)
    jobs, ticket = first[-3], first[-2]
    assert jobs and ticket == 1
    second = open_pair(TRIPLE, page)
    assert second[-2] == 2 and set(second[-3]) == {"s208d8d2_clip_1", "s208d8d2_clip_2"}
    late = tick("", jobs, ticket, page)  # the first pair's poll, answered now
    assert late[2] == gr.skip() and late[4] == gr.skip(), late
    ours = tick("", second[-3], second[-2], page)
    assert ours[2] != gr.skip() and "s208d8d2_clip_1" in ours[2] and "sf7026ba" not in ours[2]
    assert ours[4] != gr.skip()
    # another page's pairs do not make this page's tick stale
    open_pair(PAIR, other)
    assert tick("", second[-3], second[-2], page)[2] != gr.skip()
    for job_id in [*jobs.values(), *second[-3].values()]:
        tab.jobs.wait(job_id, timeout=60)
    tab.jobs.close()
    store.engine.dispose()


@pytest.mark.usefixtures("close_gradio_loop")
@GRADIO_LOOP_WARNINGS[0]
@GRADIO_LOOP_WARNINGS[1]
@GRADIO_LOOP_WARNINGS[2]
def test_the_team_section_tells_a_blind_reviewer_why_it_is_hidden(catalog: Catalog, tmp_path: Path) -> None:
    """bob, signed in and blind, was told to sign in, above three empty tables headed "1 2 3"."""
    import gradio as gr

    from analysis.store import Identity
    from components.pairs.tab import TEAM_HIDDEN_BLIND, TEAM_HIDDEN_VISITOR, build_pairs_tab

    store = open_store(tmp_path / "labels.db")
    with gr.Blocks() as demo:
        tab = build_pairs_tab(
            catalog,
            store,
            lambda request: Identity(request.username) if request.username else None,
            preview_dir=tmp_path / "previews",
            reviewers=("alice", "bob"),
            blind=frozenset({"bob"}),
        )
    handlers = {getattr(d.fn, "__qualname__", ""): d.fn for d in demo.fns.values()}
    teams = handlers["_wire.<locals>.teams"]
    said = {
        name: teams(False, "file order", gr.Request(username=name, session_hash=f"t-{name}"))
        for name in ("bob", None, "alice")
    }
    assert said["bob"][0] == TEAM_HIDDEN_BLIND and said[None][0] == TEAM_HIDDEN_VISITOR
    for name in ("bob", None):
        assert all(frame["visible"] is False for frame in said[name][1:4]), name
    assert "validations done" in said["alice"][0] and all(f["visible"] is True for f in said["alice"][1:4])
    if tab.jobs is not None:
        tab.jobs.close()
    store.engine.dispose()
