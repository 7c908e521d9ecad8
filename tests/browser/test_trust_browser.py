"""Two blind reviewers and an adjudicator signed in at once, each in a browser context of their own.

alice and bob review blind (bob may also adjudicate, just not his own disagreements); carol
adjudicates. Checks what each browser receives: the blind DOM has no gold, verdict, metric or
other vote; votes appear only after voting; bob cannot settle the disagreement he is part of;
carol's adjudication shows one gold everywhere; the legend's keys work after clicks on controls;
one undo reverts one save. Screenshots (light and dark, 1280 px and a 390 px phone) go to
``test-artifacts/screenshots/trust-*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import (
    SAMPLES,
    SHOTS,
    WAIT,
    once_more_on_reset,
    open_items,
    running_app,
    sign_in_all,
    signed_in_page,
)

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

CS = "cdh-78ba53b03e01f25c"  # CDH-Bench Pair 11 commonsense qa, official gold "no"
USERS = [("alice", "pw-a"), ("bob", "pw-b"), ("carol", "pw-c")]
T = WAIT
GOLD_COL, VERDICT_COL, ANSWER_COL = 8, 9, 6
VIDHALLUC: dict[str, str] = {}
"""A VidHalluc item id per task (mcq, tsh, sth), filled by the app fixture."""
SIZES = {"1280": {"width": 1280, "height": 1000}, "390": {"width": 390, "height": 900}}
STATE: dict[str, Any] = {}
"""The module's label store and catalog, for a test that needs state another test makes."""


@pytest.fixture(scope="module")
def trust_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import app
    from analysis.load.catalog import load_manifest
    from analysis.store import open_store
    from components.review.context import ReviewContext

    catalog = load_manifest(SAMPLES)
    store = open_store(tmp_path_factory.mktemp("trust") / "labels.db")
    review = ReviewContext(
        catalog,
        store,
        ("alice", "bob", "carol"),
        adjudicators=frozenset({"bob", "carol"}),
        blind=frozenset({"alice", "bob"}),
    )
    STATE.update(store=store, catalog=catalog)
    table = catalog.table
    for task in ("mcq", "tsh", "sth"):
        first = table[(table["benchmark"] == "vidhalluc") & (table["task"] == task)]["item_id"].iloc[0]
        VIDHALLUC[task] = str(first)
    with running_app(catalog, lambda: app.build_app(catalog, review), auth=USERS) as url:
        yield url


def _sign_in(
    browser: Any,
    url: str,
    user: str,
    password: str,
    *,
    size: str = "1280",
    dark: bool = False,
    form: bool = False,
) -> Any:
    page = signed_in_page(browser, url, user, password, viewport=SIZES[size], dark=dark, form=form)
    open_items(page)  # the app opens on the overview; the review panel is on the Items tab
    expect(page.locator("#rv-who")).to_contain_text(f"Signed in as {user}", timeout=WAIT)
    return page


_ID_FORM = {"cdh-bench": re.compile(r"^\s*cdh-"), "vidhalluc": re.compile(r"^\s*(bqa|mcq|tsh|sth)-")}
"""How the ids of the benchmarks these tests open begin (the first id tells whose rows are shown)."""


def _open(page: Any, item_id: str, benchmark: str = "cdh-bench") -> None:
    page.locator("#f-benchmark input").fill(benchmark)
    page.keyboard.press("Enter")
    # jump once the benchmark's rows are shown: a filter change still under way when the jump
    # lands once cleared the inspector after it (seen in a full run at 2 cores: "No item
    # selected" after the item had opened); the app now keeps such a jump, and the test keeps
    # its own order plain
    expect(page.locator("#items [data-row='0'][data-col='1']")).to_have_text(_ID_FORM[benchmark], timeout=T)
    page.locator("#jump textarea, #jump input").first.fill(item_id)
    page.keyboard.press("Enter")
    expect(page.locator("#item")).to_contain_text(item_id, timeout=T)
    expect(page.locator("#rv-panel").first).to_be_visible(timeout=T)


def _shoot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"trust-{name}.png"), full_page=True)


def _assert_blind_dom(page: Any) -> None:
    expect(page.locator("#items [data-row='0'][data-col='1']")).not_to_have_text("", timeout=T)
    for col in (ANSWER_COL, GOLD_COL, VERDICT_COL):  # the columns over gold are not there at all
        assert page.locator(f"#items [data-col='{col}']").count() == 0, col
    headers = page.locator("#items thead").inner_text().split()
    assert headers[-1] == "question" and not {"answer", "parsed", "gold", "verdict", "flag"} & set(headers)
    item = page.locator("#item")
    expect(item).to_contain_text("blind mode")
    assert page.locator("#item .hs-facts, #others table, #item .hs-answer").count() == 0
    assert "✓" not in page.locator("#items").inner_text() and "✗" not in page.locator("#items").inner_text()


@pytest.mark.slow
def test_blind_votes_reveal_adjudication_and_one_gold(browser: Any, trust_url: str) -> None:
    alice, bob, carol = sign_in_all(browser, trust_url, USERS, 1280, height=1000, form=True)  # SIZES["1280"]

    _open(alice, CS)
    _assert_blind_dom(alice)
    alice.locator("#rv-gold input[value='no']").click()  # a click on a control, then keys
    alice.keyboard.press("y")
    expect(alice.locator("#rv-gold input[value='yes']")).to_be_checked(timeout=T)
    alice.keyboard.press("Enter")
    voted = "Saved as alice: your vote on gold ∅ → yes"
    expect(alice.locator("#rv-message")).to_contain_text(voted, timeout=T)

    _open(bob, CS)
    _assert_blind_dom(bob)
    expect(bob.locator("#rv-history")).to_contain_text("No labels on this item yet")  # alice's vote hidden
    expect(bob.locator("#rv-gold input[value='yes']")).not_to_be_checked()  # nor the gold in the radio
    bob.get_by_role("tab", name="Charts").click()
    # the Charts tab says so (the Items tab's model answers say so too, now off screen)
    hidden = bob.locator("#metric-changes, .prose").filter(
        has_text=re.compile("(Charts|Metrics) are hidden in blind")
    )
    expect(hidden.first).to_be_visible(timeout=T)
    bob.get_by_label("corrected").check()
    expect(bob.locator("#metric-changes")).to_contain_text("Metrics are hidden in blind mode", timeout=T)
    assert bob.locator("#chart-accuracy .js-plotly-plot").count() == 0
    _shoot(bob, "blind-charts-1280-light")
    bob.get_by_role("tab", name="Items").click()
    _shoot(bob, "blind-before-vote-1280-light")
    bob.locator("#rv-gold input[value='yes']").click()
    bob.keyboard.press("n")
    bob.keyboard.press("Enter")
    expect(bob.locator("#rv-message")).to_contain_text("Saved as bob: your vote on gold ∅ → no", timeout=T)
    expect(bob.locator("#rv-history")).to_contain_text("alice", timeout=T)  # revealed once bob voted
    _shoot(bob, "votes-revealed-1280-light")

    bob.get_by_role("tab", name="Review").click()
    expect(bob.locator("#rv-adj-target")).to_contain_text("you voted on it", timeout=T)
    # the store refuses his adjudication (tests/app); the button asks the same rule first:
    # disabled, the panel above it saying why
    expect(bob.locator("#rv-adj-target")).to_contain_text("another adjudicator must settle it")
    expect(bob.locator("#rv-adj")).to_be_disabled(timeout=T)
    _shoot(bob, "own-adjudication-refused-1280-light")

    _open(carol, CS)
    carol.get_by_role("tab", name="Review").click()
    carol.locator("#rv-queue label").filter(has_text="Disagreements").click()
    carol.locator("#rv-queue-load").click()
    expect(carol.locator("#rv-queue-items")).to_contain_text(CS, timeout=T)
    expect(carol.locator("#rv-queue-items")).to_contain_text("candle")  # the question text
    expect(carol.locator("#rv-queue-items")).to_contain_text("Disagreements: 1 item(s)")
    expect(carol.locator("#rv-adj-target")).to_contain_text(CS)
    expect(carol.locator("#rv-adj-target")).to_contain_text("alice: yes, bob: no")
    carol.locator("#rv-adj-value textarea, #rv-adj-value input").first.fill("yes")
    carol.locator("#rv-adj-reason textarea, #rv-adj-reason input").first.fill("the candle is lit")
    carol.locator("#rv-adj").click()
    expect(carol.locator("#rv-tab-message")).to_contain_text(f"Adjudicated {CS} by carol", timeout=T)
    _shoot(carol, "adjudicated-1280-light")
    carol.get_by_role("tab", name="Items").click()
    _open(carol, CS)
    expect(carol.locator("#item")).to_contain_text("✎ yes", timeout=T)
    expect(carol.locator("#item")).to_contain_text("official no")
    expect(carol.locator("#rv-gold input[value='yes']")).to_be_checked()
    carol.locator("#f-search textarea, #f-search input").first.fill(CS)
    carol.keyboard.press("Enter")
    gold_cell = carol.locator(f"#items [data-row='0'][data-col='{GOLD_COL}']")
    expect(gold_cell).to_have_text("✎ yes (was no)", timeout=T)
    # at 1280 px the cell shows all of it, the official value too (it showed "✎ ye..." once)
    assert gold_cell.locator("span.text").evaluate("e => e.scrollWidth <= e.clientWidth")
    _shoot(carol, "one-gold-1280-light")

    # blind reviewers still see no gold after the adjudication, and no other vote appears for alice
    alice.reload()
    open_items(alice)
    expect(alice.locator("#rv-who")).to_contain_text("Signed in as alice", timeout=WAIT)
    _open(alice, CS)
    _assert_blind_dom(alice)
    assert "official" not in alice.locator("body").inner_text()
    for page in (alice, bob, carol):
        page.context.close()


def test_keys_work_after_clicks_and_one_undo_reverts_one_save(browser: Any, trust_url: str) -> None:
    carol = _sign_in(browser, trust_url, *USERS[2])
    _open(carol, "cdh-117e4c011cc91328")  # Pair 11 counterfactual qa, official gold "yes"
    status = carol.locator("#item-status")
    carol.locator("#rv-flags input").first.click()  # a checkbox: keys must still work
    carol.keyboard.press("n")
    expect(carol.locator("#rv-gold input[value='no']")).to_be_checked(timeout=T)
    carol.locator("#rv-reason textarea, #rv-reason input").first.fill("counterfactual: no flame")
    carol.locator("#rv-gold input[value='no']").click()  # leave the text field by clicking a radio
    carol.keyboard.press("Enter")
    expect(carol.locator("#rv-message")).to_contain_text("Saved as carol: gold yes → no; flag", timeout=T)
    _shoot(carol, "saved-gold-and-flag-1280-light")
    carol.locator("#rv-save-only").click()  # a button has the focus now
    expect(carol.locator("#rv-message")).to_contain_text("Nothing changed", timeout=T)
    carol.keyboard.press("u")
    expect(carol.locator("#rv-message")).to_contain_text("Undone by carol: flag", timeout=T)
    expect(carol.locator("#rv-message")).to_contain_text("gold no → yes")  # both fields, one press
    expect(carol.locator("#rv-gold input[value='yes']")).to_be_checked(timeout=T)
    expect(carol.locator("#rv-flags input").first).not_to_be_checked()
    carol.keyboard.press("u")
    expect(carol.locator("#rv-message")).to_contain_text("Nothing to undo on this item", timeout=T)
    expect(carol.locator("#rv-message")).not_to_contain_text("Undone")
    _shoot(carol, "undo-once-1280-light")
    expect(status).to_contain_text(re.compile(r"item \d+ of"), timeout=T)
    here = int(re.search(r"item (\d+) of", status.inner_text()).group(1))  # type: ignore[union-attr]
    there = re.compile(rf"item {here + 1} of")  # the status line, not its loading timer, says we moved
    back = re.compile(rf"item {here} of")
    carol.locator("#rv-gold input[value='yes']").click()
    # a checkbox clicked before moving on: keys must still work. Clicked here, not on the next
    # item: its status line comes before its form, so a click there went to whichever form was
    # showing, and the next item kept a draft (or not) by timing
    carol.locator("#rv-flags input").first.click()
    carol.keyboard.press("j")
    expect(status).to_contain_text(there, timeout=T)
    carol.keyboard.press("k")
    expect(status).to_contain_text(back, timeout=T)
    carol.keyboard.press("f")
    assert carol.evaluate("document.activeElement.closest('#rv-flags') !== null")

    # an unsaved edit survives moving on and coming back
    carol.locator("#rv-gold input[value='no']").click()
    carol.locator("#rv-note textarea, #rv-note input").first.fill("draft: check the flame again")
    carol.locator("#rv-gold input[value='no']").click()  # leaves the note field (its draft is kept)
    carol.keyboard.press("j")
    expect(status).to_contain_text(there, timeout=T)
    expect(carol.locator("#rv-who")).not_to_contain_text("draft", timeout=T)
    carol.keyboard.press("k")
    expect(status).to_contain_text(back, timeout=T)
    expect(carol.locator("#rv-who")).to_contain_text("unsaved draft restored", timeout=T)
    expect(carol.locator("#rv-gold input[value='no']")).to_be_checked()
    note = carol.locator("#rv-note textarea, #rv-note input").first
    expect(note).to_have_value("draft: check the flame again")
    _shoot(carol, "draft-restored-1280-light")

    # VidHalluc MCQ: letters toggle; TSH: a / b pick the order; STH: y / n and l for the locations
    for task, check in (("mcq", _mcq_keys), ("tsh", _tsh_keys), ("sth", _sth_keys)):
        _open(carol, VIDHALLUC[task], "vidhalluc")
        check(carol)
    carol.context.close()


def _mcq_keys(page: Any) -> None:
    letters = page.locator("#rv-letters")
    expect(letters).to_be_visible(timeout=T)
    before = letters.locator("input[name='C']").is_checked()
    letters.locator("input").first.click()  # toggles A by mouse
    page.keyboard.press("c")
    expect(letters.locator("input[name='C']")).to_be_checked(checked=not before, timeout=T)
    _shoot(page, "mcq-letters-1280-light")


def _tsh_keys(page: Any) -> None:
    expect(page.locator("#rv-gold input[value='AB']")).to_be_attached(timeout=T)
    page.locator("#rv-gold input[value='AB']").click()
    page.keyboard.press("b")
    expect(page.locator("#rv-gold input[value='BA']")).to_be_checked(timeout=T)
    page.keyboard.press("1")
    expect(page.locator("#rv-gold input[value='AB']")).to_be_checked(timeout=T)


def _sth_keys(page: Any) -> None:
    scene = page.locator("#rv-part-choice")
    expect(scene).to_be_visible(timeout=T)
    scene.locator("input[value='Yes']").click()
    page.keyboard.press("n")
    expect(scene.locator("input[value='No']")).to_be_checked(timeout=T)
    page.keyboard.press("y")
    expect(scene.locator("input[value='Yes']")).to_be_checked(timeout=T)
    page.keyboard.press("l")
    assert page.evaluate("document.activeElement.closest('#rv-part-text') !== null")
    _shoot(page, "sth-keys-1280-light")


SCREENS = [("1280", "light"), ("1280", "dark"), ("390", "light"), ("390", "dark")]
"""Each screen of a view is taken in one signed-in session: the page is reloaded at its size and
theme with the item in the URL (a sign-in for each cost about 9 s)."""


def _reopen(page: Any, url: str, size: str, theme: str) -> None:
    page.set_viewport_size(SIZES[size])
    page.goto(f"{url}?__theme={theme}&benchmark=cdh-bench&item={CS}")
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=T)
    expect(page.locator("#item")).to_contain_text(CS, timeout=T)


def _settled_as_the_first_test_leaves_it() -> None:
    """alice votes yes, bob no, carol settles yes: written through the store when the test that
    does it in the browser has not run in this process (one test alone, or the tests split
    between pytest-xdist workers, each with a store of its own)."""
    from analysis.store import Identity
    from analysis.store.agreement import adjudicate
    from analysis.store.labels import current_labels
    from analysis.store.reviewers import vote

    store, table = STATE["store"], STATE["catalog"].table
    final = current_labels(store, "cdh-bench")
    if ((final["item_id"] == CS) & (final["field"] == "gold")).any():
        return
    row = table[table["item_id"] == CS].iloc[0]
    vote(store, row, "gold", "yes", Identity("alice"))
    vote(store, row, "gold", "no", Identity("bob"))
    adjudicate(store, row, "gold", "yes", Identity("carol"), "the candle is lit")


@pytest.mark.slow
def test_screens_of_the_blind_and_the_corrected_views(browser: Any, trust_url: str) -> None:
    _settled_as_the_first_test_leaves_it()
    bob = _sign_in(browser, trust_url, *USERS[1])
    _open(bob, CS)
    # audit findings quote gold: none reach a blind reviewer
    bob.get_by_role("tab", name="Data problems").click()
    expect(bob.locator("#findings-line")).to_contain_text("hidden in blind mode", timeout=T)
    assert "inverted" not in bob.locator("#findings").inner_text()
    assert "inverted-polarity" not in bob.content()
    config = once_more_on_reset(lambda: bob.request.get(trust_url.rstrip("/") + "/config")).text()
    assert "is_template" in config or "components" in config  # the app's page config was read
    assert "inverted-polarity" not in config and "gold is" not in config
    for size, theme in SCREENS:
        _reopen(bob, trust_url, size, theme)
        _assert_blind_dom(bob)
        _shoot(bob, f"blind-{size}-{theme}")
    bob.context.close()
    carol = _sign_in(browser, trust_url, *USERS[2])
    _open(carol, CS)
    carol.get_by_role("tab", name="Data problems").click()
    expect(carol.locator("#findings")).to_contain_text("inverted-polarity", timeout=T)
    for size, theme in SCREENS:
        _reopen(carol, trust_url, size, theme)
        expect(carol.locator("#item")).to_contain_text("official", timeout=T)
        _shoot(carol, f"corrected-{size}-{theme}")
    carol.context.close()
