"""Four roles signed in at once, each in a browser context of their own (issue 19).

alice reviews, bob reviews blind, carol adjudicates, frank adjudicates blind. What each browser
receives and may do:

- alice's flag and note never reach bob's form (finding 1); bob is not offered the audit's queue
  (finding 3) and his pair list holds no VidHalluc actions (finding 2);
- a vote's Markdown reaches carol as text: no image loads in her browser (finding 7);
- carol's adjudication is settled state: alice's save becomes a vote that reopens the
  disagreement, and her undo cannot touch the adjudication (finding 4);
- frank, blind, is queued the reopened disagreement and settles it from the item itself: he
  receives no gold and no one's vote.

Screenshots of each role go to ``test-artifacts/screenshots/roles-*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SAMPLES, SHOTS, WAIT, open_items, running_app, sign_in_all

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

CS = "cdh-78ba53b03e01f25c"  # CDH-Bench Pair 11 commonsense qa, official gold "no"
USERS = [("alice", "pw-a"), ("bob", "pw-b"), ("carol", "pw-c"), ("frank", "pw-f")]
GOLD_COL, VERDICT_COL, ANSWER_COL = 8, 9, 6
PIXEL = "http://127.0.0.1:9/pixel.png"
T = WAIT


@pytest.fixture(scope="module")
def roles_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import app
    from analysis.load.catalog import load_manifest
    from analysis.store import open_store
    from components.review.context import ReviewContext

    catalog = load_manifest(SAMPLES)
    store = open_store(tmp_path_factory.mktemp("roles") / "labels.db")
    review = ReviewContext(
        catalog,
        store,
        tuple(name for name, _ in USERS),
        adjudicators=frozenset({"carol", "frank"}),
        blind=frozenset({"bob", "frank"}),
    )
    with running_app(catalog, lambda: app.build_app(catalog, review), auth=USERS) as url:
        yield url
    store.close()


def _open(page: Any, item_id: str) -> None:
    page.get_by_role("tab", name="Items").click()
    page.locator("#f-benchmark input").fill("cdh-bench")
    page.keyboard.press("Enter")
    first = page.locator("#items [data-row='0'][data-col='1']")
    expect(first).to_have_text(re.compile(r"^\s*cdh-"), timeout=T)
    page.locator("#jump textarea, #jump input").first.fill(item_id)
    page.keyboard.press("Enter")
    expect(page.locator("#item")).to_contain_text(item_id, timeout=T)
    expect(page.locator("#rv-panel").first).to_be_visible(timeout=T)


def _reopen(page: Any, item_id: str) -> None:
    """A fresh page on the item: the panel is filled when an item opens, so it reads what others did."""
    page.reload()
    open_items(page)
    _open(page, item_id)


def _fill(page: Any, elem: str, text: str) -> None:
    page.locator(f"#{elem} textarea, #{elem} input").first.fill(text)


def _save(page: Any, expected: str | re.Pattern[str]) -> None:
    page.locator("#rv-save-only").click()
    expect(page.locator("#rv-message")).to_contain_text(expected, timeout=T)


def _blind_dom(page: Any) -> None:
    for col in (ANSWER_COL, GOLD_COL, VERDICT_COL):
        cells = page.locator(f"#items [data-col='{col}']").all_inner_texts()
        assert not [c for c in cells[1:] if c.strip()], (col, cells[:3])
    expect(page.locator("#item")).to_contain_text("blind mode")
    assert "official" not in page.locator("#item").inner_text()


def _adjudicate(page: Any, value: str, reason: str) -> None:
    page.get_by_role("tab", name="Review").click()
    _fill(page, "rv-adj-value", value)
    _fill(page, "rv-adj-reason", reason)
    page.locator("#rv-adj").click()


def _disagreements(page: Any) -> Any:
    page.get_by_role("tab", name="Review").click()
    page.locator("#rv-queue label").filter(has_text="Disagreements").click()
    page.locator("#rv-queue-load").click()
    return page.locator("#rv-queue-items")


@pytest.mark.slow
def test_four_roles_at_once(browser: Any, roles_url: str) -> None:
    # alice through the login page, as a person does; the others by the same request, sent directly
    alice, bob, carol, frank = sign_in_all(browser, roles_url, USERS, width=1280, form=True)
    requested: list[str] = []
    carol.on("request", lambda r: requested.append(r.url))

    # alice (reviewer) corrects the gold, flags the item and writes a note
    _open(alice, CS)
    alice.locator("#rv-gold input[value='yes']").check()
    alice.locator("#rv-flags label").filter(has_text="ambiguous").click()
    _fill(alice, "rv-note", "alice thinks the candle is lit")
    _fill(alice, "rv-reason", "the flame is visible")
    _save(alice, "Saved as alice")

    # bob (blind): none of it reaches his form or his page
    _open(bob, CS)
    _blind_dom(bob)
    expect(bob.locator("#rv-note input")).to_have_value("")
    assert bob.locator("#rv-flags input:checked").count() == 0
    assert "alice" not in bob.locator("body").inner_text()
    bob.get_by_role("tab", name="Review").click()
    expect(bob.locator("#rv-queue")).to_contain_text("Disagreements", timeout=T)
    assert "Flagged by the audit" not in bob.locator("#rv-queue").inner_text()
    # a reviewer is shown no Adjudicate button (it refused on click), only who adjudicates
    expect(bob.locator("#rv-adj-target")).to_contain_text("Only adjudicators settle", timeout=T)
    expect(bob.locator("#rv-adj")).to_be_hidden()
    expect(bob.locator("#rv-queue-load")).to_be_visible()
    # his vote's reason holds Markdown that would load an image where it is rendered
    _open(bob, CS)
    bob.locator("#rv-gold input[value='no']").check()
    _fill(bob, "rv-reason", f"![p]({PIXEL}) no flame")
    _save(bob, "Saved as bob: your vote on gold")
    SHOTS.mkdir(parents=True, exist_ok=True)
    bob.screenshot(path=str(SHOTS / "roles-bob-blind.png"), full_page=True)

    # bob's pair list: pairs, but no action (the BQA and MCQ answer key)
    bob.get_by_role("tab", name="Pair validation").click()
    alice.get_by_role("tab", name="Pair validation").click()
    expect(alice.locator("#pairs-list")).to_contain_text(" | ", timeout=T)  # "walking | running"
    expect(bob.locator("#pairs-list")).to_contain_text(re.compile(r"\bs[0-9a-f]{7}\b"), timeout=T)
    actions = set(re.findall(r"\b[a-z]+ing\b", alice.locator("#pairs-list").inner_text()))
    assert actions, "alice's pair list names no action to compare against"
    assert not actions & set(re.findall(r"\b[a-z]+ing\b", bob.locator("#pairs-list").inner_text()))
    expect(alice.locator("#pairs-player")).to_contain_text("action:", timeout=T)
    assert "action:" not in bob.locator("#pairs-player").inner_text()  # the player names none either
    alice.get_by_role("tab", name="Items").click()

    # carol (adjudicator): the disagreement is queued, bob's vote shown as text
    _open(carol, CS)
    queue = _disagreements(carol)
    expect(queue).to_contain_text(CS, timeout=T)
    expect(carol.locator("#rv-adj-target")).to_contain_text("bob: no", timeout=T)
    # every side with its author and reason: alice's correction, then bob's vote (issue 20, item 1)
    expect(carol.locator("#rv-adj-target")).to_contain_text(
        "gold: yes (corrected by alice — “the flame is visible”)", timeout=T
    )
    expect(carol.locator("#rv-adj-target")).to_contain_text("no flame”", timeout=T)
    expect(carol.locator("#rv-adj")).to_be_visible()
    assert carol.locator("#rv-adj-target img").count() == 0
    _adjudicate(carol, "no", "the flame is a reflection")
    expect(carol.locator("#rv-tab-message")).to_contain_text(f"Adjudicated {CS} by carol", timeout=T)
    carol.screenshot(path=str(SHOTS / "roles-carol-adjudicated.png"), full_page=True)
    assert not [u for u in requested if u.startswith(PIXEL)], "a vote's image loaded in carol's browser"

    # alice (plain reviewer) cannot overturn it: her save is a vote, her undo touches no adjudication
    _reopen(alice, CS)
    expect(alice.locator("#rv-who")).to_contain_text("settled by an adjudication", timeout=T)
    alice.locator("#rv-gold input[value='yes']").check()
    _fill(alice, "rv-reason", "I still see a flame")
    _save(alice, "Saved as alice: your vote on gold")  # said to be a vote (it read "gold ∅ → yes")
    expect(alice.locator("#rv-message")).to_contain_text("the gold stays no, settled by carol")
    alice.locator("#rv-undo").click()
    expect(alice.locator("#rv-message")).to_contain_text("Undone by alice", timeout=T)  # her vote
    _reopen(carol, CS)
    expect(carol.locator("#rv-gold input[value='no']")).to_be_checked(timeout=T)  # still carol's gold
    assert "✎" not in carol.locator("#item").inner_text()  # "no" is the official gold again
    alice.screenshot(path=str(SHOTS / "roles-alice-settled.png"), full_page=True)

    # alice votes again, so the disagreement is open again; frank (blind adjudicator) settles it
    alice.locator("#rv-gold input[value='yes']").check()
    _fill(alice, "rv-reason", "the flame, again")
    _save(alice, "Saved as alice: your vote on gold")
    _open(frank, CS)
    _blind_dom(frank)
    queue = _disagreements(frank)
    expect(queue).to_contain_text(CS, timeout=T)
    # blind, frank settles from the item itself: no one's vote, no gold
    expect(frank.locator("#rv-adj-target")).to_contain_text("you adjudicate blind", timeout=T)
    assert "alice" not in frank.locator("body").inner_text()
    assert "official" not in frank.locator("body").inner_text()
    _adjudicate(frank, "yes", "alice is right, the flame is real")
    expect(frank.locator("#rv-tab-message")).to_contain_text(f"Adjudicated {CS} by frank", timeout=T)
    frank.screenshot(path=str(SHOTS / "roles-frank-blind-adjudicator.png"), full_page=True)
    _open(frank, CS)
    _blind_dom(frank)  # his own adjudication does not show him the gold column either
    _reopen(carol, CS)
    expect(carol.locator("#item")).to_contain_text("✎ yes", timeout=T)
    for page in (alice, bob, carol, frank):
        page.context.close()
