"""The Suspects queue as reviewers use it: alice opens the most suspect item from the queue, says
its gold is right with one key, and sees the measured precision; bob, blind, gets ranks only.
The Overview shows the suspect count and the three-gold table. Light and dark at 1280, a phone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SAMPLES, SHOTS, WAIT, running_app, signed_in_page

pw = pytest.importorskip("playwright.sync_api")
expect = pw.expect

USERS = [("alice", "pw-alice"), ("bob", "pw-bob")]


@pytest.fixture(scope="module")
def suspects_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import app
    from analysis.load.catalog import load_manifest
    from analysis.store import open_store
    from components.review.context import ReviewContext

    catalog = load_manifest(SAMPLES)
    store = open_store(tmp_path_factory.mktemp("suspects") / "labels.db")
    review = ReviewContext(catalog, store, ("alice", "bob"), blind=frozenset({"bob"}))
    with running_app(catalog, lambda: app.build_app(catalog, review), auth=USERS) as url:
        yield url


def _sign_in(
    browser: Any,
    url: str,
    user: str,
    password: str,
    *,
    width: int = 1280,
    dark: bool = False,
    form: bool = False,
) -> Any:
    page = signed_in_page(
        browser, url, user, password, viewport={"width": width, "height": 1000}, dark=dark, form=form
    )
    _on_overview(page)
    return page


def _on_overview(page: Any) -> None:
    expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true", timeout=WAIT)


def _queue(page: Any) -> None:
    tab = page.get_by_role("tab", name="Review")
    if tab.count() and tab.first.is_visible():
        tab.first.click()
    else:  # on a phone the later tabs sit in Gradio's overflow menu
        page.get_by_role("button", name="More tabs").click()
        page.locator(".overflow-dropdown button", has_text="Review").click()
    page.locator("#rv-queue").get_by_label("Suspected wrong gold").check()
    page.locator("#rv-queue-load").click()


@pytest.mark.slow
def test_alice_confirms_the_top_suspect_with_one_key_and_bob_sees_ranks_only(
    browser: Any, suspects_url: str
) -> None:
    # both start up side by side: each page is opened, then each waited for
    viewport = {"width": 1280, "height": 1000}
    alice = signed_in_page(browser, suspects_url, *USERS[0], viewport=viewport, form=True)
    bob = signed_in_page(browser, suspects_url, *USERS[1], viewport=viewport)
    _on_overview(alice)
    _on_overview(bob)
    expect(alice.locator("#suspects-summary")).to_contain_text("Suspected wrong gold", timeout=WAIT)
    expect(alice.locator("#gold-changes")).to_contain_text("What the corrections change", timeout=WAIT)
    alice.locator("#gold-changes summary").click()  # folded while nothing is corrected
    expect(alice.locator("#gold-changes")).to_contain_text("without suspects", timeout=WAIT)
    alice.screenshot(path=str(SHOTS / "suspects-overview-light-1280.png"), full_page=True)

    _queue(alice)
    queue = alice.locator("#rv-queue-items")
    expect(queue).to_contain_text("#1 · score", timeout=WAIT)
    expect(queue).to_contain_text("none checked yet", timeout=WAIT)
    alice.screenshot(path=str(SHOTS / "suspects-queue-light-1280.png"), full_page=True)
    first_id = queue.locator("[data-row='0'][data-col='0']").inner_text().strip()
    queue.locator("[data-row='0'][data-col='0']").click()
    expect(alice.locator("#item")).to_contain_text(first_id, timeout=WAIT)
    expect(alice.locator("#rv-confirm")).to_be_visible(timeout=WAIT)
    alice.locator("body").click(position={"x": 5, "y": 5})
    alice.keyboard.press("r")
    expect(alice.locator("#rv-message")).to_contain_text("confirmed as right", timeout=WAIT)
    _queue(alice)
    expect(alice.locator("#rv-queue-items")).to_contain_text(
        "top 10: 0 of 1 checked had wrong gold", timeout=WAIT
    )
    expect(alice.locator("#rv-queue-items")).to_contain_text(" · confirmed · ", timeout=WAIT)

    # bob reviews blind: the same queue as ranks, no score, gold or reason; no "Confirm gold"
    _queue(bob)
    expect(bob.locator("#rv-queue-items [data-row='0'][data-col='2']")).to_have_text("#1", timeout=WAIT)
    text = bob.locator("#rv-queue-items").inner_text()
    assert "score" not in text and "checked" not in text and "confirmed" not in text
    bob.locator("#rv-queue-items [data-row='0'][data-col='0']").click()
    expect(bob.locator("#rv-panel").first).to_be_visible(timeout=WAIT)
    expect(bob.locator("#rv-confirm")).to_be_hidden()
    assert bob.locator("#suspects-summary").inner_text().strip() == ""
    bob.screenshot(path=str(SHOTS / "suspects-queue-blind-1280.png"), full_page=True)
    for page in (alice, bob):
        page.context.close()


@pytest.mark.parametrize(("width", "dark"), [(1280, True), (390, False)])
def test_the_queue_and_overview_read_in_dark_mode_and_on_a_phone(
    browser: Any, suspects_url: str, width: int, dark: bool
) -> None:
    page = _sign_in(browser, suspects_url, *USERS[0], width=width, dark=dark)
    expect(page.locator("#gold-changes")).to_contain_text("Kendall", timeout=WAIT)
    if page.locator("#gold-changes details:not([open])").count():
        page.locator("#gold-changes summary").click()
    tag = f"{'dark' if dark else 'light'}-{width}"
    page.screenshot(path=str(SHOTS / f"suspects-overview-{tag}.png"), full_page=True)
    _queue(page)
    expect(page.locator("#rv-queue-items")).to_contain_text("#1 · score", timeout=WAIT)
    # the item id keeps a readable width (at 390 px it broke five letters a line in its fifth of
    # the width); a queue wider than the phone scrolls sideways in its own box
    widest_id = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('#rv-queue-items tbody tr')]
        .map((tr) => [...tr.querySelectorAll('td')].filter((td) => td.offsetWidth > 0)[0])
        .filter(Boolean).map((td) => td.getBoundingClientRect().width))"""
    )
    assert widest_id >= 140, widest_id
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    page.screenshot(path=str(SHOTS / f"suspects-queue-{tag}.png"), full_page=True)
    page.context.close()
