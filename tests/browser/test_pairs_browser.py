"""The pair-validation tab in a real browser: synchronised players, and two reviewers on the keyboard.

Its own small server (just the tab, ``auth`` for alice and bob, only the VidHalluc media root
served) so that the shared app fixture stays as it is.
"""

from __future__ import annotations

import json
import os
import socket
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import BROKEN_WORDS, CONTRAST_JS, SHOTS, WAIT, signed_in_page
from playwright.sync_api import Browser, Page, expect

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

TIMEOUT = WAIT
PAIR = "sf7026ba"
USERS = {"alice": "pw1", "bob": "pw2"}


@pytest.fixture(scope="module")
def pairs_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import gradio as gr
    from app_data import release_gradio_loops

    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.store import Identity, open_store
    from components.pairs.tab import build_pairs_tab

    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    folder = tmp_path_factory.mktemp("pairs")
    catalog = load_manifest(SAMPLE_MANIFEST)
    store = open_store(folder / "labels.db")

    def identity_of(request: gr.Request) -> Identity | None:
        name = getattr(request, "username", None)
        return Identity(name) if name else None

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        with gr.Blocks(title="pairs") as demo:
            with gr.Tab("Pairs"):
                build_pairs_tab(
                    catalog, store, identity_of, k=2, preview_dir=folder / "previews", reviewers=tuple(USERS)
                )
            with gr.Tab("Other"):
                gr.Markdown("another tab: the pair keys must not act here")
        roots = [str(r) for r in catalog.media_roots["vidhalluc"]]
        _, url, _ = demo.launch(
            prevent_thread_lock=True,
            server_name="127.0.0.1",
            server_port=port,
            quiet=True,
            auth=list(USERS.items()),
            allowed_paths=roots,
        )
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield url
    demo.close()
    store.engine.dispose()
    release_gradio_loops()


def _sign_in(browser: Browser, url: str, user: str, *, form: bool = False) -> Page:
    page = signed_in_page(
        browser, url, user, USERS[user], viewport={"width": 1440, "height": 1000}, form=form
    )
    expect(page.locator("#pairs-who")).to_contain_text(f"Signed in as {user}", timeout=TIMEOUT)
    expect(page.locator("#pairs-player video")).to_have_count(2, timeout=TIMEOUT)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#pairs-player video')].every((v) => v.readyState >= 2)",
        timeout=TIMEOUT,
    )
    return page


def _times(page: Page) -> list[float]:
    return [float(t) for t in page.evaluate("() => window.hsPairPlayer.times()")]


def test_both_videos_play_and_stay_within_a_tenth_of_a_second(browser: Browser, pairs_url: str) -> None:
    page = _sign_in(browser, pairs_url, "alice")
    page.locator("#pairs-player .hs-sync-play").click()
    page.wait_for_function("() => window.hsPairPlayer.times().every((t) => t > 0.2)", timeout=TIMEOUT)
    a, b = _times(page)
    assert abs(a - b) <= 0.1, (a, b)
    # seek with the shared slider while playing: the follower comes along
    page.locator("#pairs-player .hs-sync-seek").fill("250")  # 1/4 of the 2 s clips
    page.wait_for_function(
        "() => { const [a, b] = window.hsPairPlayer.times();"
        " return a >= 0.5 && a < 1.2 && Math.abs(a - b) <= 0.1; }",
        timeout=TIMEOUT,
    )
    a, b = _times(page)
    assert 0.5 <= a < 1.9 and abs(a - b) <= 0.1, (a, b)
    page.screenshot(path=str(SHOTS / "pairs_player.png"), full_page=True)
    # paused, the player's own seek puts both clips at the same frame
    page.evaluate("() => { window.hsPairPlayer.pause(); window.hsPairPlayer.seek(1.3); }")
    page.wait_for_function(
        "() => window.hsPairPlayer.videos().every((v) => v.paused && !v.seeking)", timeout=TIMEOUT
    )
    a, b = _times(page)
    assert abs(a - 1.3) < 0.05 and abs(a - b) <= 0.1, (a, b)
    page.context.close()


def _validate(page: Page, keys: str, decision: str) -> None:
    page.locator("#pairs-info").click()  # focus outside any field: keys go to the tab's listener
    toggles = {
        "1": "#pairs-clear-0",
        "2": "#pairs-clear-1",
        "3": "#pairs-single-0",
        "4": "#pairs-single-1",
        "5": "#pairs-differ",
    }
    seen: dict[str, int] = {}
    for key in keys:
        page.keyboard.press(key)
        seen[key] = seen.get(key, 0) + 1
        answer = "yes" if seen[key] % 2 else "no"  # open -> yes, then yes <-> no
        expect(page.locator(toggles[key]).get_by_label(answer, exact=True)).to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#pairs-decision")).to_contain_text(f"Decision: {decision.upper()}", timeout=TIMEOUT)
    page.keyboard.press("Enter")
    expect(page.locator("#pairs-message")).to_contain_text(f"Saved {PAIR} ({decision})", timeout=TIMEOUT)
    expect(page.locator("#pairs-pick input")).not_to_have_value(PAIR, timeout=TIMEOUT)  # moved on


def test_two_reviewers_validate_a_pair_with_the_keyboard_alone(browser: Browser, pairs_url: str) -> None:
    alice = _sign_in(browser, pairs_url, "alice", form=True)  # as a person does
    expect(alice.locator("#pairs-keys")).to_contain_text("Enter save & next", timeout=TIMEOUT)
    _validate(alice, "12345", "keep")  # the legend's answer on load left its keys working
    alice.screenshot(path=str(SHOTS / "pairs_keyboard.png"), full_page=True)
    bob = _sign_in(browser, pairs_url, "bob")
    _validate(bob, "123455", "drop")  # bob: both clips show the same action
    # the list shows how each pair stands: its status and decision columns inside the list's box
    # (the list once showed "dec" at its edge, the rest of the column hidden past it)
    expect(bob.locator("#pairs-list")).to_contain_text("disputed", timeout=TIMEOUT)
    edges = bob.evaluate(
        """() => { const box = document.querySelector('#pairs-list .table-container').getBoundingClientRect();
        const heads = [...document.querySelectorAll('#pairs-list thead th')];
        const right = (name) =>
          heads.find((h) => h.textContent.trim().startsWith(name)).getBoundingClientRect().right;
        return [box.right, right('status'), right('decision')]; }"""
    )
    assert edges[1] <= edges[0] + 1 and edges[2] <= edges[0] + 1, edges
    bob.locator("#pairs-team").get_by_text("Team: progress").click()
    expect(bob.locator("#pairs-progress")).to_contain_text("2 / 16", timeout=TIMEOUT)
    expect(bob.locator("#pairs-disagreements")).to_contain_text(PAIR, timeout=TIMEOUT)
    bob.screenshot(path=str(SHOTS / "pairs_team.png"), full_page=True)
    # the export is built when clicked, so it holds both validations saved after the page loaded
    bob.locator("#pairs-exports").get_by_text("Exports").click()
    bob.locator("#pairs-export").click()
    expect(bob.locator("#pairs-export-status")).to_contain_text("Built", timeout=TIMEOUT)
    with bob.expect_download() as download:
        bob.locator("#pairs-export-json").click()
    exported = json.loads(Path(download.value.path()).read_text())
    pair = next(p for p in exported["pairs"] if p["pair_id"] == PAIR)
    assert pair["resolution"] == "disputed" and len(pair["reviews"]) == 2, pair
    for page in (alice, bob):
        page.context.close()


def test_keys_act_only_on_the_visible_tab_and_never_while_typing(browser: Browser, pairs_url: str) -> None:
    page = _sign_in(browser, pairs_url, "alice")
    page.locator("#pairs-pick input").click()
    page.get_by_role("option", name="s7da0ff0", exact=True).click()
    expect(page.locator("#pairs-info")).to_contain_text("s7da0ff0", timeout=TIMEOUT)
    page.locator("#pairs-note textarea, #pairs-note input").first.fill("")
    page.locator("#pairs-note textarea, #pairs-note input").first.type("1 5")
    page.get_by_role("tab", name="Other").click()
    page.locator("body").press("2")
    page.get_by_role("tab", name="Pairs").click()
    page.locator("#pairs-info").click()
    page.keyboard.press("3")  # this one counts: the tab is visible and no field has the focus
    expect(page.locator("#pairs-single-0").get_by_label("yes", exact=True)).to_be_checked(timeout=TIMEOUT)
    for toggle in ("#pairs-clear-0", "#pairs-clear-1", "#pairs-differ"):
        expect(page.locator(toggle).get_by_label("yes", exact=True)).not_to_be_checked()
    expect(page.locator("#pairs-decision")).to_contain_text("4 check(s) open")
    # a group of three with a truncated clip: a box says so, the form grows to 3 + 3 + 1 toggles
    page.locator("#pairs-pick input").click()
    page.get_by_role("option", name="s208d8d2", exact=True).click()
    broken = page.locator("#pairs-player [data-status=unreadable]")
    expect(broken).to_contain_text("unreadable", timeout=TIMEOUT)
    expect(page.locator("#pairs-player video")).to_have_count(2)
    expect(page.locator("#pairs-clear-2")).to_contain_text("3 · clear action in C")
    expect(page.locator("#pairs-differ")).to_contain_text("7 · the clips show different actions")
    # the three clips at one size (the third once sat alone on a row, twice as wide as the others)
    widths = page.locator("#pairs-player .hs-pair-clip").evaluate_all(
        "(clips) => clips.map((c) => c.getBoundingClientRect().width)"
    )
    assert len(widths) == 3 and max(widths) - min(widths) <= 2, widths
    page.screenshot(path=str(SHOTS / "pairs_group.png"), full_page=True)
    page.context.close()


def test_the_preview_is_made_in_the_background_then_offered(browser: Browser, pairs_url: str) -> None:
    page = _sign_in(browser, pairs_url, "alice")
    expect(page.locator("#pairs-thumbs img")).to_have_count(6, timeout=60_000)  # first/middle/last x 2
    page.locator("#pairs-preview").click()
    expect(page.locator("#pairs-preview-status")).to_contain_text("Preview", timeout=TIMEOUT)
    page.locator("#pairs-note textarea, #pairs-note input").first.fill("still usable while it runs")
    expect(page.locator("#pairs-preview-file")).to_be_visible(timeout=120_000)
    expect(page.locator("#pairs-preview-status")).to_contain_text("ready")
    with page.expect_download() as download:
        page.locator("#pairs-preview-file").click()
    assert download.value.suggested_filename.endswith(".mp4")
    page.screenshot(path=str(SHOTS / "pairs_preview.png"), full_page=True)
    page.context.close()


@pytest.fixture(scope="module")
def visitor_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The pair tab of a read-only demo: a label store, nobody signed in."""
    import gradio as gr
    from conftest import running_app

    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.store import open_store
    from components.pairs.tab import build_pairs_tab

    catalog = load_manifest(SAMPLE_MANIFEST)
    store = open_store(tmp_path_factory.mktemp("pairs-visitor") / "labels.db")

    def build() -> gr.Blocks:
        with gr.Blocks(title="pairs") as demo:
            build_pairs_tab(catalog, store, lambda request: None, k=2, reviewers=tuple(USERS))
        return demo

    with running_app(catalog, build) as url:
        yield url
    store.engine.dispose()


def test_a_visitor_reads_the_pair_and_its_answers_and_is_offered_no_save(
    browser: Browser, visitor_url: str
) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(visitor_url)
    expect(page.locator("#pairs-who")).to_contain_text("Read-only", timeout=TIMEOUT)
    expect(page.locator("#pairs-player video")).to_have_count(2, timeout=TIMEOUT)
    grid = page.locator("#pairs-answers")
    expect(grid).to_contain_text("Is the person", timeout=TIMEOUT)
    # the answers take the tab's whole width and read whole words ("bqa" once broke a letter a line)
    assert grid.bounding_box()["width"] > page.locator("#pairs-player").bounding_box()["width"]
    assert page.evaluate(BROKEN_WORDS, "#pairs-answers") == []
    # no button the server would only refuse (issue 20: the read-only demo offered them)
    for hidden in ("#pairs-save", "#pairs-reason", "#pairs-adjudicate"):
        expect(page.locator(hidden)).to_be_hidden()
    # nor a key that saves: the legend tells a visitor to sign in instead
    expect(page.locator("#pairs-keys")).to_contain_text("sign in to save", timeout=TIMEOUT)
    assert "save & next" not in page.locator("#pairs-keys").inner_text()
    page.screenshot(path=str(SHOTS / "pairs-visitor-1280.png"), full_page=True)
    page.context.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_players_controls_read_and_fit_on_a_phone(browser: Browser, pairs_url: str, dark: bool) -> None:
    # Seen in a walkthrough: in dark mode the speed menu was light text on white (unreadable), and
    # at 390 px it stuck out past the page's edge, clipped, its "play" button on two lines
    page = signed_in_page(
        browser, pairs_url, "alice", USERS["alice"], viewport={"width": 390, "height": 844}, dark=dark
    )
    expect(page.locator(".hs-sync-rate").first).to_be_visible(timeout=TIMEOUT)
    page.locator(".hs-sync-controls").first.scroll_into_view_if_needed()
    found = page.evaluate(CONTRAST_JS, [".hs-sync-rate", ".hs-sync-play"])
    assert set(found) == {".hs-sync-rate", ".hs-sync-play"}
    low = {sel: round(ratio, 2) for sel, ratio in found.items() if ratio < 4.5}
    assert not low, f"contrast under 4.5:1 ({'dark' if dark else 'light'}): {low}"
    boxes = page.evaluate(
        """() => ['.hs-sync-rate', '.hs-sync-play'].map((s) => {
             const r = document.querySelector(s).getBoundingClientRect();
             return [r.right, r.height, document.documentElement.clientWidth]; })"""
    )
    assert all(right <= width for right, _, width in boxes), boxes  # nothing past the page's edge
    assert boxes[1][1] < 2 * boxes[0][1], boxes  # the play button on one line, as tall as the menu
    scheme = "dark" if dark else "light"
    page.locator(".hs-sync-controls").first.screenshot(path=str(SHOTS / f"pair-controls-{scheme}-390.png"))
    page.context.close()
