"""Review handlers as plain functions, then through a running app with password users."""

from __future__ import annotations

import socket
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop

import app
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.store import Identity, events_frame, open_store
from analysis.store.identity import IdentityMismatch
from analysis.store.payload import submit
from components.identity import AuthError, identity_of, parse_auth
from components.review.context import Refused, ReviewContext
from components.review.extra import metric_lines, queue_frame
from components.review.panel import Behind, panel, save, undo_last

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]
ALICE, BOB, CAROL = Identity("alice"), Identity("bob"), Identity("carol")
PAIR_11_QA_CS = "cdh-78ba53b03e01f25c"  # seeded inverted polarity: commonsense qa gold "no"


def _blind(ctx: ReviewContext, who: Identity) -> ReviewContext:
    """``ctx`` with ``who`` reviewing blind (the role the operator gives with ``--blind``)."""
    return replace(ctx, blind=ctx.blind | {who.name})


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


def _ctx(catalog: Catalog, tmp_path: Path) -> ReviewContext:
    return ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice", "bob"))


def _row(catalog: Catalog, item_id: str, model: str = "balanced") -> int:
    table = catalog.table
    return int(table.index[(table["item_id"] == item_id) & (table["model"] == model)][0])


def test_auth_entries_parse_and_bad_ones_are_refused() -> None:
    pairs = parse_auth(["alice:pw1,bob:p:w2", "carol:x"])
    assert pairs == [("alice", "pw1"), ("bob", "p:w2"), ("carol", "x")]
    with pytest.raises(AuthError):
        parse_auth(["alice"])


def test_identity_comes_from_the_request_only() -> None:
    class Req:
        username = "alice"

    assert identity_of(Req()) == ALICE  # type: ignore[arg-type]
    assert identity_of(None) is None


def test_writes_without_identity_are_refused(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    with pytest.raises(Refused, match="sign in"):
        save(ctx, row, None, "yes", "", [], "", "")
    with pytest.raises(Refused, match="sign in"):
        undo_last(ctx, row, None)
    assert events_frame(ctx.store).empty  # type: ignore[arg-type]
    # the panel stays hidden for a visitor and says why
    assert "Read-only" in panel(ctx, row, None)[0]


def test_a_payload_cannot_name_another_reviewer(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    item = catalog.table.iloc[_row(catalog, PAIR_11_QA_CS)]
    with pytest.raises(IdentityMismatch):
        submit(
            ctx.store,
            {"item_id": PAIR_11_QA_CS, "value": "yes", "reviewer": "bob"},  # type: ignore[arg-type]
            ALICE,
            row=item,
        )


def test_relabel_shows_the_corrected_metric_change_and_undo_restores(
    catalog: Catalog, tmp_path: Path
) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    message = save(ctx, row, ALICE, "yes", "", ["ambiguous"], "polarity <b>inverted</b>", "audit")
    assert message.startswith("Saved as alice: gold no → yes; flag")
    lines = metric_lines(ctx, "cdh-bench")
    # balanced answered nothing parseable on the commonsense side: with gold "yes" the qa cs side
    # still counts 12 items, the commonsense-prior model now gets it wrong (9/12 -> 8/12 style changes)
    assert "1 gold correction(s)" in lines and "cs_acc" in lines
    history = panel(ctx, row, ALICE)[-4]
    assert "alice" in history and "no → yes" in history and "&lt;b&gt;inverted" in history
    assert (
        save(ctx, row, ALICE, "yes", "", ["ambiguous"], "polarity <b>inverted</b>", "") == "Nothing changed."
    )
    # one save of gold, flag and note is one undoable action; a second undo says there is nothing left
    assert undo_last(ctx, row, BOB) == "Undone by bob: note cleared; flag ambiguous → ∅; gold yes → no"
    assert "No gold corrections" in metric_lines(ctx, "cdh-bench")
    with pytest.raises(Refused, match="Nothing to undo"):
        undo_last(ctx, row, BOB)


def test_invalid_gold_is_shown_not_raised(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    with pytest.raises(Refused, match="Not saved"):
        save(ctx, _row(catalog, PAIR_11_QA_CS), ALICE, "maybe", "", [], "", "")


def test_votes_fill_the_disagreement_queue_and_my_queue_shrinks(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    mine = queue_frame(ctx, "My unreviewed items", "cdh-bench", ALICE)
    theirs = queue_frame(ctx, "My unreviewed items", "cdh-bench", BOB)
    n_items = catalog.table.loc[catalog.table["benchmark"] == "cdh-bench", "item_id"].nunique()
    assert len(mine) == len(theirs) == n_items  # k=2 of 2 reviewers: everyone sees every item
    row = _row(catalog, PAIR_11_QA_CS)
    save(_blind(ctx, ALICE), row, ALICE, "yes", "", [], "", "")
    save(_blind(ctx, BOB), row, BOB, "no", "", [], "", "")
    assert len(queue_frame(ctx, "My unreviewed items", "cdh-bench", ALICE)) == n_items - 1
    found = queue_frame(ctx, "Disagreements", "cdh-bench", ALICE)
    assert found["item_id"].tolist() == [PAIR_11_QA_CS] and "alice: yes" in found["detail"][0]
    # a queue is of one benchmark: of every benchmark at once it is empty (the suspects' queue raised)
    from analysis.query import ALL

    for queue in ("Suspected wrong gold", "Disagreements", "Flagged by the audit"):
        assert queue_frame(ctx, queue, ALL, ALICE).empty
    # a vote never changes the corrected gold
    assert "No gold corrections" in metric_lines(ctx, "cdh-bench")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_five_clients_relabel_concurrently_through_the_app(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_module = pytest.importorskip("gradio_client")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    users = [(f"r{i}", f"pw{i}") for i in range(5)]
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), tuple(u for u, _ in users))
    demo = app.build_app(catalog, ctx)
    _, url, _ = demo.launch(
        prevent_thread_lock=True,
        server_name="127.0.0.1",
        server_port=_free_port(),
        quiet=True,
        auth=users,
        **app.launch_kwargs(catalog),
    )
    rows = catalog.table[catalog.table["benchmark"] == "cmm"].drop_duplicates("item_id").head(5)
    cmm, official = rows["item_id"].tolist(), rows["gold"].str.lower().tolist()
    errors: list[BaseException] = []
    flip = {"yes": "no", "no": "yes"}

    def work(i: int) -> None:
        try:
            client = client_module.Client(url, auth=users[i], verbose=False)
            for n in range(20):
                value = flip[official[i]] if n % 2 == 0 else official[i]
                client.predict(str(cmm[i]), "gold", value, f"run {n}", api_name="/relabel")
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        anonymous = client_module.Client(url, auth=("r0", "pw0"), verbose=False)
        with pytest.raises(Exception, match=r"Refused|Not saved"):
            anonymous.predict(str(cmm[0]), "reviewer", "x", "", api_name="/relabel")
    finally:
        demo.close()
    assert not errors, errors
    events = events_frame(ctx.store)  # type: ignore[arg-type]
    assert len(events) == 100
    assert sorted(events["reviewer"].value_counts().tolist()) == [20] * 5


def test_blind_mode_says_which_clip_is_asked_about_and_lists_the_options(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Seen in a two-reviewer walkthrough: a blind reviewer saw both clips of a VidHalluc pair and
    # nothing saying which one the yes/no question asks about; the MCQ options came as a JSON list
    from components.review.blind import blind_html

    ctx = _ctx(catalog, tmp_path)
    table = catalog.table
    for task in ("bqa", "mcq"):
        row = int(table.index[(table["benchmark"] == "vidhalluc") & (table["task"] == task)][0])
        html = blind_html(ctx, row, ALICE)
        side, pair = str(table.at[row, "side"]), str(table.at[row, "pair_id"])
        assert f"This item asks about <b>{side}</b> of pair <code>{pair}</code>." in html
        assert "Gold, verdicts and other reviewers' labels are hidden" in html
        if task == "mcq":
            assert '<ul class="hs-options"><li>A. ' in html and '["' not in html


def test_blind_mode_hides_gold_and_other_reviewers(catalog: Catalog, tmp_path: Path) -> None:
    from components.review.blind import blind_html

    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    save(_blind(ctx, BOB), row, BOB, "no", "", [], "", "bob's secret reason")
    html = blind_html(ctx, row, ALICE)
    assert "candle flame" in html and "My votes: none yet" in html
    assert "gold" not in html.replace("Gold, verdicts", "") and "bob" not in html
    shown = panel(_blind(ctx, ALICE), row, ALICE)
    assert shown[1]["value"] is None  # the gold radio starts empty, not at the official "no"
    assert "No labels" in shown[-4]  # bob's vote is not in alice's blind history
    # her gold is a vote, which needs no reason: the box says so (it asked for one, as for a change)
    from components.review.panel import CHANGE_REASON, VOTE_REASON

    assert shown[5]["label"] == VOTE_REASON and panel(ctx, row, ALICE)[5]["label"] == CHANGE_REASON
    save(_blind(ctx, ALICE), row, ALICE, "yes", "", [], "", "")
    assert "My votes: gold: yes" in blind_html(ctx, row, ALICE)


def test_adjudication_needs_a_reason_and_settles_the_disagreement(catalog: Catalog, tmp_path: Path) -> None:
    from components.review.extra import adjudicate_item, agreement_markdown

    ctx = replace(_ctx(catalog, tmp_path), adjudicators=frozenset({"alice", "carol"}))
    row = _row(catalog, PAIR_11_QA_CS)
    save(_blind(ctx, ALICE), row, ALICE, "yes", "", [], "", "")
    save(_blind(ctx, BOB), row, BOB, "no", "", [], "", "")
    assert "raw agreement 0.000" in agreement_markdown(ctx, "cdh-bench", ALICE)
    with pytest.raises(Refused, match="reason"):
        adjudicate_item(ctx, row, CAROL, "yes", " ")
    with pytest.raises(Refused, match="sign in"):
        adjudicate_item(ctx, row, None, "yes", "checked the image")
    with pytest.raises(Refused, match="bob is not an adjudicator"):
        adjudicate_item(ctx, row, BOB, "no", "mine is right")
    with pytest.raises(Refused, match=r"alice voted on gold .*another adjudicator must settle it"):
        adjudicate_item(ctx, row, ALICE, "yes", "mine is right")  # her own disagreement
    assert (
        adjudicate_item(ctx, row, CAROL, "yes", "checked the image")
        == f"Adjudicated <code>{PAIR_11_QA_CS}</code> by carol: gold = yes"
    )
    assert queue_frame(ctx, "Disagreements", "cdh-bench", CAROL).empty
    assert "1 gold correction(s)" in metric_lines(ctx, "cdh-bench")


def test_the_adjudication_form_belongs_to_the_item_it_was_typed_for(catalog: Catalog, tmp_path: Path) -> None:
    """A final gold and a reason typed for one item were settled on the next one opened."""
    import gradio as gr

    ctx = _ctx(catalog, tmp_path)
    ctx = replace(ctx, adjudicators=frozenset({"carol"}))
    demo = app.build_app(catalog, ctx)
    ids = {d.fn: d for d in demo.fns.values()}
    (emptied,) = {f for f in ids if getattr(f, "__qualname__", "") == "_wire_tab.<locals>.emptied_form"}
    (settle,) = [
        f
        for f, d in ids.items()
        if getattr(f, "__qualname__", "") == "with_identity.<locals>.handler" and len(d.inputs) == 4
    ]
    row, other = _row(catalog, PAIR_11_QA_CS), _row(catalog, PAIR_11_QA_CS) + 1
    save(_blind(ctx, ALICE), row, ALICE, "yes", "", [], "", "")
    save(_blind(ctx, BOB), row, BOB, "no", "", [], "", "")
    carol = gr.Request(username="carol", session_hash="carol-1")
    # opening another item empties the form (and the last result line) and notes whose it is
    assert emptied(other) == (other, "", "", "")
    # a press that came before the emptied form: the form was typed while ``row`` was open
    said = settle(carol, None, other, row, "yes", "typed for the other item")
    assert said.startswith("⚠ Not adjudicated: another item was opened")
    assert ctx.store is not None and (events_frame(ctx.store)["kind"] != "adjudicate").all()
    assert settle(carol, None, row, row, "yes", "checked the image").startswith("Adjudicated")


def test_exports_hold_every_event_and_corrected_native_gold(catalog: Catalog, tmp_path: Path) -> None:
    import json
    import zipfile

    import pandas as pd

    from components.review.extra import build_exports

    ctx = _ctx(catalog, tmp_path)
    save(ctx, _row(catalog, PAIR_11_QA_CS), ALICE, "yes", "", [], "", "=cmd|' /C calc'!A0")
    with pytest.raises(Refused):
        build_exports(ctx, "cdh-bench", None)
    csv, jsonl, parquet, *final, native = build_exports(ctx, "cdh-bench", ALICE)
    assert pd.read_csv(final[0])["corrected_gold"].tolist() == ["yes"]
    assert len(pd.read_csv(csv)) == len(pd.read_parquet(parquet)) == 1
    assert json.loads(Path(jsonl).read_text().splitlines()[0])["new_value"] == "yes"
    with zipfile.ZipFile(native) as archive:
        # every loaded file that carries gold, at its path under the files' common folder
        assert sorted(archive.namelist()) == [
            "benchmark.jsonl",
            "predictions/balanced.jsonl",
            "predictions/commonsense-prior.jsonl",
            "predictions/yes-biased.jsonl",
        ]
        text = archive.read("benchmark.jsonl").decode()
    original = (SAMPLE_MANIFEST.parent / "cdh-bench/benchmark.jsonl").read_text()
    assert text.count('"Pair 11"') >= 1 and text != original


def test_the_database_is_never_under_a_media_root(catalog: Catalog, tmp_path: Path) -> None:
    from analysis.store import StoreError

    root = Path(catalog.allowed_paths()[0])
    with pytest.raises(StoreError, match="media root"):
        app.open_review(catalog, db=str(root / "labels.db"))
    ctx = app.open_review(catalog, data_dir=tmp_path, users=[("alice", "pw")])
    assert ctx.store is not None and ctx.store.path == tmp_path / "halluscope.db"
    assert ctx.reviewers == ("alice",)


def test_on_a_space_the_app_offers_hugging_face_sign_in(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gradio as gr

    from components.identity import on_spaces

    pytest.importorskip("authlib", reason="Gradio's Hugging Face sign-in needs gradio[oauth] (authlib)")
    monkeypatch.setenv("SPACE_ID", "someone/halluscope")
    monkeypatch.setenv("SYSTEM", "spaces")  # else Gradio mocks sign-in with a local token
    import gradio.oauth

    # What a Space with `hf_oauth: true` sets; Gradio reads them when it registers the OAuth routes
    # (registering fetches nothing).
    for name, value in (
        ("OAUTH_CLIENT_ID", "test-client"),
        ("OAUTH_CLIENT_SECRET", "test-secret"),
        ("OAUTH_SCOPES", "openid profile"),
        ("OPENID_PROVIDER_URL", "https://hf.invalid"),
    ):
        monkeypatch.setattr(gradio.oauth, name, value)
    assert on_spaces()
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), oauth=True)
    demo = app.build_app(catalog, ctx)
    assert demo.expects_oauth
    assert not app.build_app(catalog, _ctx(catalog, tmp_path)).expects_oauth
    assert any(isinstance(b, gr.LoginButton) for b in demo.blocks.values())


def test_the_read_only_demo_says_how_to_sign_in(catalog: Catalog, tmp_path: Path) -> None:
    here = panel(_ctx(catalog, tmp_path), None, None)[0]  # served without reviewers: who is None
    assert "Read-only demo" in here and "halluscope serve --auth USER:PASS" in here and "--auth-file" in here
    space = panel(replace(_ctx(catalog, tmp_path), oauth=True), None, None)[0]
    assert "Sign in with Hugging Face" in space and "--auth" not in space


def test_a_gold_is_spelled_alike_in_messages_history_table_queue_and_final_labels(
    catalog: Catalog, tmp_path: Path
) -> None:
    """AVHBench spells its gold ``Yes``/``No``: every place that shows a corrected one spells it so."""
    import re

    import numpy as np

    from analysis.store.final import final_labels
    from components.review.extra import adjudicate_item, adjudication_target
    from components.review.gold import ReviewerView

    table = catalog.table
    row = int(table.index[(table["benchmark"] == "avhbench") & (table["gold"] == "Yes")][0])
    ctx = replace(_ctx(catalog, tmp_path), adjudicators=frozenset({"carol"}), blind=frozenset({"bob"}))
    assert save(ctx, row, ALICE, "no", "", [], "", "nothing is heard") == "Saved as alice: gold Yes → No"
    history = re.sub(r"<[^>]+>", " ", panel(ctx, row, ALICE)[9])
    assert "Yes → No" in history and "→ no" not in history
    assert ReviewerView(ctx, ALICE).frame(np.array([row]))["gold"].tolist() == ["✎ No (was Yes)"]
    assert ReviewerView(ctx, ALICE).detail(row).fields["gold"] == "No"
    final = final_labels(ctx.store, "avhbench", table[table["benchmark"] == "avhbench"])  # type: ignore[arg-type]
    assert final[["official_gold", "corrected_gold"]].values.tolist() == [["Yes", "No"]]
    save(ctx, row, BOB, "yes", "", [], "", "")  # bob's blind vote disagrees with alice's correction
    assert "My votes: gold: Yes" in ReviewerView(ctx, BOB).inspect(row)[2]  # his own vote, spelled alike
    queue = queue_frame(ctx, "Disagreements", "avhbench", CAROL)["detail"].tolist()
    assert queue == ["gold: No (set by alice), bob: Yes"]
    target = adjudication_target(ctx, row, CAROL)
    assert "gold: No (corrected by alice" in target and "bob: Yes" in target
    assert adjudicate_item(ctx, row, CAROL, "yes", "a voice answers").endswith("gold = Yes")


def _opened(shown: tuple[object, ...]) -> object:
    """The labels a panel's form was filled with (its last output)."""
    return shown[-1]


def test_a_form_opened_before_another_reviewers_save_does_not_undo_it(
    catalog: Catalog, tmp_path: Path
) -> None:
    # seen in a two-browser session: bob's page still showed the old gold; his note-only save was
    # refused with "a gold change needs a reason" (his stale gold read as a change), and with a
    # reason it would have put the old gold back unseen
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)  # official gold "no"
    bobs = _opened(panel(ctx, row, BOB))
    alices = _opened(panel(ctx, row, ALICE))
    save(ctx, row, ALICE, "yes", "", ["ambiguous"], "", "the flame is lit", opened=alices)
    # bob's form still says gold "no" and no flag; he types a note only, and a reason
    line = save(ctx, row, BOB, "no", "", [], "bob's note", "a reason", opened=bobs)
    assert line.startswith(
        "Saved as bob: note updated. Changed since you opened the item, and not by this save"
    )
    # his form showed "no" and no flag: he is told what alice set (the panel now shows it)
    assert "gold: alice set it to “yes” (your form showed “no”)" in line
    assert "flag: alice set it to “ambiguous” (your form showed “nothing”)" in line
    shown = panel(ctx, row, ALICE)
    assert shown[1]["value"] == "yes" and shown[3]["value"] == ["ambiguous"]  # alice's gold and flag stand
    assert shown[4]["value"] == "bob's note"


def test_a_save_of_an_untouched_form_says_what_changed_meanwhile(catalog: Catalog, tmp_path: Path) -> None:
    """bob kept "no" and saved; alice had set "yes" meanwhile: "Nothing changed." and the radio flipped."""
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)  # official gold "no"
    bobs = _opened(panel(ctx, row, BOB))
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit", opened=_opened(panel(ctx, row, ALICE)))
    line = save(ctx, row, BOB, "no", "", [], "", "", opened=bobs)
    assert line.startswith("Nothing changed by you. Changed since you opened the item")
    assert "gold: alice set it to “yes” (your form showed “no”)" in line
    assert panel(ctx, row, BOB)[1]["value"] == "yes"  # alice's gold stands until bob sets his again
    # reopened as it is, a save of the untouched form is plainly nothing
    again = save(ctx, row, BOB, "yes", "", [], "", "", opened=_opened(panel(ctx, row, BOB)))
    assert again == "Nothing changed."


def test_a_change_to_a_field_someone_changed_meanwhile_is_refused_then_made_knowingly(
    catalog: Catalog, tmp_path: Path
) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    bobs = _opened(panel(ctx, row, BOB))
    save(
        ctx,
        row,
        ALICE,
        "yes",
        "",
        [],
        "alice's note",
        "the flame is lit",
        opened=_opened(panel(ctx, row, ALICE)),
    )
    # bob writes a note too, sets a flag nobody touched, and the gold alice already set: the flag
    # is saved, the gold needs no write, his note is refused (alice's is kept, and named to him)
    with pytest.raises(
        Refused, match=r"changed since you opened the item: note: alice set it to “alice's note”"
    ) as refused:
        save(ctx, row, BOB, "yes", "", ["ambiguous"], "bob's note", "agreed", opened=bobs)
    assert str(refused.value).startswith("Saved as bob: flag")
    assert "(yours: “bob's note”)" in str(refused.value)  # what he typed is not lost
    shown = panel(ctx, row, BOB)
    assert (shown[1]["value"], shown[3]["value"], shown[4]["value"]) == ("yes", ["ambiguous"], "alice's note")
    # reopened, bob sees alice's note; writing his again is a knowing change
    line = save(ctx, row, BOB, "yes", "", ["ambiguous"], "bob's note", "", opened=_opened(shown))
    assert line == "Saved as bob: note updated"
    assert panel(ctx, row, ALICE)[4]["value"] == "bob's note"


def test_a_draft_keeps_the_labels_it_began_from(catalog: Catalog, tmp_path: Path) -> None:
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    began = _opened(panel(ctx, row, BOB))
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit", opened=_opened(panel(ctx, row, ALICE)))
    draft = ["no", "", [], "bob typed this", "", [], None, "", began]
    restored = panel(ctx, row, BOB, drafts={row: draft})
    assert "unsaved draft restored" in restored[0]
    assert _opened(restored) is began  # the draft's untouched gold "no" is not bob's change
    assert save(ctx, row, BOB, "no", "", [], "bob typed this", "", opened=began).startswith(
        "Saved as bob: note"
    )
    assert panel(ctx, row, ALICE)[1]["value"] == "yes"


def _other_row(catalog: Catalog, row: int) -> int:
    """The next CDH-Bench row of the same model: another item (what ``j`` opens)."""
    table = catalog.table
    same = table.index[(table["benchmark"] == "cdh-bench") & (table["model"] == "balanced")]
    return int(next(r for r in same if table.at[r, "item_id"] != table.at[row, "item_id"]))


def test_a_save_pressed_before_the_next_items_form_came_writes_nothing(
    catalog: Catalog, tmp_path: Path
) -> None:
    # ``j`` opens the next item at once, its form comes one answer later: Enter pressed between the
    # two sent the item before's form for the new item, and its differences were saved to it
    ctx = _ctx(catalog, tmp_path)
    row = _row(catalog, PAIR_11_QA_CS)
    following = _other_row(catalog, row)
    before = _opened(panel(ctx, row, ALICE))
    assert ctx.store is not None
    written = len(events_frame(ctx.store))
    with pytest.raises(Behind, match=r"Not saved: the form still showed cdh-78ba53b03e01f25c when"):
        save(ctx, following, ALICE, "yes", "", ["ambiguous"], "about the item before", "", opened=before)
    assert len(events_frame(ctx.store)) == written  # nothing written, to either item
    # the form of the item it now shows saves as always
    now = _opened(panel(ctx, following, ALICE))
    assert save(ctx, following, ALICE, None, "", ["ambiguous"], "", "", opened=now).startswith(
        "Saved as alice: flag"
    )


def test_a_draft_goes_with_the_item_its_form_shows(catalog: Catalog, tmp_path: Path) -> None:
    # the same window: a flag clicked on the form still showing the item before was kept as a draft
    # of the new item, and restoring it there offered the item before's labels for the new one
    ctx = _ctx(catalog, tmp_path)
    demo = app.build_app(catalog, ctx)
    (keep,) = {d.fn for d in demo.fns.values() if getattr(d.fn, "__qualname__", "").endswith("keep_draft")}
    row = _row(catalog, PAIR_11_QA_CS)
    following = _other_row(catalog, row)
    shown = panel(ctx, row, ALICE)
    form = ["no", "", ["ambiguous"], "", "", [], None, "", _opened(shown)]
    drafts = keep(following, {}, *form)  # the open row is already the next one
    assert list(drafts) == [row] and drafts[row] == form
    assert "unsaved draft restored" not in panel(ctx, following, ALICE, drafts=drafts)[0]
    assert "unsaved draft restored" in panel(ctx, row, ALICE, drafts=drafts)[0]


def test_drafts_kept_while_a_save_runs_neither_undo_it_nor_come_back(
    catalog: Catalog, tmp_path: Path
) -> None:
    # A session's state is read when an event starts and written when it ends (Gradio hands each
    # event the session's one dict). A draft kept while a save ran returned a copy made before the
    # save: written last, it brought the saved item's draft back; written first, the save's copy
    # dropped the new draft. Seen as a note typed and lost in a browser story.
    from components.review.tab import DRAFTS, _without_draft

    ctx = _ctx(catalog, tmp_path)
    demo = app.build_app(catalog, ctx)
    keeps = [d for d in demo.fns.values() if getattr(d.fn, "__qualname__", "").endswith("keep_draft")]
    # the drafts are kept one at a time, in the order sent: the radio's draft (note still empty)
    # never ends after the note's draft of the same form
    assert keeps and all(
        (d.concurrency_id, d.concurrency_limit) == (DRAFTS["concurrency_id"], 1) for d in keeps
    )
    keep = keeps[0].fn
    row = _row(catalog, PAIR_11_QA_CS)
    other = _other_row(catalog, row)
    old = ["no", "", [], "", "", [], None, "", _opened(panel(ctx, row, ALICE))]
    session: dict[int, list[Any]] = {row: old}  # the session's drafts: row's is being saved
    typed = ["yes", "", [], "a note", "", [], None, "", _opened(panel(ctx, other, ALICE))]
    by_keep = keep(other, session, *typed)  # began with the session's dict, as the save did
    by_save = _without_draft(session, row)
    for written_last in (by_keep, by_save):  # either order Gradio writes them in
        assert written_last == {other: typed}


def test_an_adjudicator_is_not_told_she_took_a_side_by_her_own_adjudication(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Seen in a walkthrough: after carol settled the gold and bob voted against it, her queue
    # said "you took a side: another adjudicator settles it" (the gold was set by her), while the
    # store let her settle it again: an adjudication is no side (analysis/store/agreement.py)
    from components.review.extra import adjudicate_item

    ctx = replace(_ctx(catalog, tmp_path), adjudicators=frozenset({"carol"}))
    row = _row(catalog, PAIR_11_QA_CS)
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit")
    save(ctx, row, BOB, "no", "", [], "", "it is not")
    adjudicate_item(ctx, row, CAROL, "yes", "checked the image")
    # a vote now, and said to be one, with the gold that stays (it read "Saved as bob: gold ∅ → no")
    said = save(ctx, row, BOB, "no", "", [], "", "still not")
    assert said.startswith("Saved as bob: your vote on gold ∅ → no"), said  # his first vote
    assert "(the gold stays yes, settled by carol: a vote against it reopens the disagreement)" in said
    queue = queue_frame(ctx, "Disagreements", "cdh-bench", CAROL)
    assert len(queue) == 1
    assert "you took a side" not in " ".join(queue.astype(str).to_numpy().ravel())
    # alice, were she an adjudicator, corrected it: that is a side, and her queue says so
    other = replace(ctx, adjudicators=frozenset({"alice", "carol"}))
    text = " ".join(queue_frame(other, "Disagreements", "cdh-bench", ALICE).astype(str).to_numpy().ravel())
    assert "you took a side" in text
    assert adjudicate_item(ctx, row, CAROL, "yes", "checked again").endswith("gold = yes")


def test_the_adjudicate_button_is_disabled_where_the_adjudicator_took_a_side(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Seen in a walkthrough: carol had corrected the item, the panel said another adjudicator
    # settles it, and the button beside it was still offered (the store refused the click)
    import gradio as gr

    from components.review.extra import adjudicate_item, may_settle

    ctx = replace(_ctx(catalog, tmp_path), adjudicators=frozenset({"carol"}))
    demo = app.build_app(catalog, ctx)
    by_id = {b.elem_id: b for b in demo.blocks.values() if getattr(b, "elem_id", None)}
    settled = [by_id["rv-adj-target"], by_id["rv-adj"]]
    (target,) = {d.fn for d in demo.fns.values() if list(d.outputs) == settled}
    carol = gr.Request(username="carol", session_hash="carol-1")
    row = _row(catalog, PAIR_11_QA_CS)
    other = _other_row(catalog, row)
    save(ctx, row, ALICE, "yes", "", [], "", "the flame is lit")
    save(ctx, row, BOB, "no", "", [], "", "it is not")
    assert may_settle(ctx, row, CAROL) and target(carol, None, row)[1]["interactive"] is True
    assert adjudicate_item(ctx, row, CAROL, "yes", "checked the image").endswith("gold = yes")
    assert may_settle(ctx, row, CAROL)  # an adjudication is no side: she may settle it again
    save(ctx, other, CAROL, "no", "", [], "", "her own correction")
    text, button = target(carol, None, other)
    assert "another adjudicator must settle it" in text and button["interactive"] is False
    with pytest.raises(Refused):  # the store's rule, which the button follows
        adjudicate_item(ctx, other, CAROL, "yes", "settling my own")
    assert not may_settle(ctx, row, ALICE)  # not an adjudicator
    assert not may_settle(ctx, None, CAROL)  # no item open


def test_the_adjudication_sides_are_shown_again_with_the_queue_and_the_tab(
    catalog: Catalog, tmp_path: Path
) -> None:
    """After another reviewer voted, the panel kept the votes it was first shown (only a reload helped)."""
    ctx = replace(_ctx(catalog, tmp_path), adjudicators=frozenset({"carol"}))
    demo = app.build_app(catalog, ctx)
    by_id = {b.elem_id: b for b in demo.blocks.values() if getattr(b, "elem_id", None)}
    panel_id = by_id["rv-adj-target"]._id
    refreshed_by = {  # the panel, and its button (disabled where she took a side)
        (block, event)
        for d in demo.fns.values()
        if [o._id for o in d.outputs] == [panel_id, by_id["rv-adj"]._id]
        for block, event in d.targets
    }
    assert (by_id["rv-queue-load"]._id, "click") in refreshed_by  # Show queue
    import gradio as gr

    (tab,) = [b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id == "review-tab"]
    assert (tab._id, "select") in refreshed_by  # the Review tab opened


def _caption_tagged_deep_inside(catalog: Catalog) -> tuple[int, str, int, int, str]:
    """A long DetailVerifyBench gold whose last tag starts past 150 characters: (row, gold, where
    its last tag opens and closes, the text it tags)."""
    table = catalog.table
    dvb = table[(table["benchmark"] == "detailverifybench") & table["gold"].astype(str).str.len().gt(300)]
    row = next(int(r) for r in dvb.index if str(table.at[r, "gold"]).rfind("<HALLUCINATION>") > 150)
    gold = str(table.at[row, "gold"])
    at = gold.rfind("<HALLUCINATION>")
    end = gold.index("</HALLUCINATION>", at)
    return row, gold, at, end, gold[at + len("<HALLUCINATION>") : end]


def test_a_long_gold_change_is_shown_where_the_two_values_differ(catalog: Catalog, tmp_path: Path) -> None:
    # Seen in a walkthrough: a DetailVerifyBench caption with one tag removed deep inside was told
    # as "gold The image shows … Four <HALLUCINATION>green‹/HA… → The image shows … (the same)",
    # in the save's message and in the history: both cut at 120 characters, before the change
    import html
    import re

    from components.review.panel import history_html, item_events

    ctx = _ctx(catalog, tmp_path)
    row, gold, at, end, tagged = _caption_tagged_deep_inside(catalog)
    fixed = gold[:at] + tagged + gold[end + len("</HALLUCINATION>") :]
    said = save(ctx, row, ALICE, fixed, fixed, [], "", "not a hallucination")
    before, _, after = said.partition(" → ")
    assert before != after.replace(";", "").strip()  # the two sides no longer read alike
    shown = html.unescape(re.sub(r"\\(.)", r"\1", said))  # Markdown-escaped, entities for < and >
    assert f"<HALLUCINATION>{tagged}</HALLUCINATION>" in shown.partition(" → ")[0]  # the tag removed
    assert f"<HALLUCINATION>{tagged}" not in shown.partition(" → ")[2]
    history = history_html(item_events(ctx, ctx.row(row)), ctx.access(ALICE))
    cell = re.search(r"<td>([^<]*?) → ([^<]*?)</td>", history.replace("&lt;", "‹").replace("&gt;", "›"))
    assert cell is not None and cell.group(1) != cell.group(2)
    assert f"‹HALLUCINATION›{tagged}" in cell.group(1) and f"‹HALLUCINATION›{tagged}" not in cell.group(2)


def test_a_long_value_changed_meanwhile_is_told_where_it_differs_from_yours(
    catalog: Catalog, tmp_path: Path
) -> None:
    # Seen in a read of the code: the "changed since you opened" refusal cut both captions at 120
    # characters, so two captions that differ deep inside were told as the same text twice
    import html
    import re

    ctx = _ctx(catalog, tmp_path)
    row, gold, at, end, tagged = _caption_tagged_deep_inside(catalog)
    untagged = gold[:at] + tagged + gold[end + len("</HALLUCINATION>") :]
    words = gold[:at].split()
    retagged = " ".join([*words[:-1], f"<HALLUCINATION>{words[-1]}</HALLUCINATION>"]) + " " + gold[at:]
    bobs = _opened(panel(ctx, row, BOB))
    save(
        ctx,
        row,
        ALICE,
        untagged,
        untagged,
        [],
        "",
        "not a hallucination",
        opened=_opened(panel(ctx, row, ALICE)),
    )
    with pytest.raises(Refused) as refused:
        save(ctx, row, BOB, retagged, retagged, [], "", "one more word", opened=bobs)
    told = html.unescape(re.sub(r"\\(.)", r"\1", str(refused.value)))
    theirs = re.search(r"set it to “(.*?)” \(yours: “(.*?)”\)", told, re.S)
    assert theirs is not None
    alices, bobs_text = theirs.group(1), theirs.group(2)
    assert alices != bobs_text  # the two no longer read alike
    assert f"<HALLUCINATION>{tagged}" not in alices  # alice's: the tag removed
    assert f"<HALLUCINATION>{words[-1]}</HALLUCINATION>" in bobs_text  # bob's: his new tag, in view
