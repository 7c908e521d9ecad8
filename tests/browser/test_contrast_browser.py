"""Readable in light and dark mode: text and highlight contrast at least 4.5:1 (WCAG AA), computed
in the browser from the rendered colours; screenshots at 1280 px and 390 px in both modes."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import CONTRAST_JS, LUMINANCE_JS, SHOTS, WAIT
from playwright.sync_api import Browser, expect

from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

TIMEOUT = WAIT
SELECTORS = (
    ".hs-hit",
    ".hs-fa",
    ".hs-miss",
    "mark.hs-parsed",
    ".hs-correct",
    ".hs-wrong",
    ".hs-board .hs-ci",
    ".hs-board td.hs-model",
    ".hs-meta",
)


def _urls(app_url: str) -> dict[str, str]:
    table = load_manifest(SAMPLE_MANIFEST).table
    dvb = table[(table["benchmark"] == "detailverifybench") & (table["model"] == "balanced")]
    wrong = table["correct"].eq(False)  # a wrong answer, so .hs-wrong shows
    cmm = table[(table["benchmark"] == "cmm") & (table["model"] == "yes-biased") & wrong]
    return {
        "spans": f"{app_url}?benchmark=detailverifybench&models=balanced&item={dvb['item_id'].iloc[0]}",
        "parsed": f"{app_url}?benchmark=cmm&models=yes-biased&wrong=1&item={cmm['item_id'].iloc[0]}",
        "overview": app_url,
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_and_highlights_reach_4_5_to_1(browser: Browser, app_url: str, scheme: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    found: dict[str, float] = {}
    for name, url in _urls(app_url).items():
        page.goto(url)
        if name == "overview":
            expect(page.locator("#leaderboards .hs-board").first).to_be_visible(timeout=TIMEOUT)
        else:
            expect(page.locator("#item")).to_contain_text(url.rsplit("item=", 1)[1], timeout=TIMEOUT)
        if name == "spans":
            expect(page.locator("#spans .hs-hit, #spans .hs-fa, #spans .hs-miss").first).to_be_visible(
                timeout=TIMEOUT
            )
        found.update(page.evaluate(CONTRAST_JS, list(SELECTORS)))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"contrast-{name}-{scheme}-1280.png"), full_page=False)
    assert {".hs-correct", "mark.hs-parsed", ".hs-board .hs-ci"} <= set(found)
    assert {".hs-hit", ".hs-fa", ".hs-miss"} & set(found)
    low = {sel: round(ratio, 2) for sel, ratio in found.items() if ratio < 4.5}
    assert not low, f"contrast under 4.5:1 in {scheme} mode: {low}"
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_item_at_390_px(browser: Browser, app_url: str, scheme: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    url = _urls(app_url)["parsed"]
    page.goto(url)
    expect(page.locator("#item")).to_contain_text(url.rsplit("item=", 1)[1], timeout=TIMEOUT)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    page.locator("#item").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"item-{scheme}-390.png"), full_page=False)
    assert overflow <= 1  # nothing pushes the page sideways
    # the item's place in the view reads on one line under the two buttons (it was once squeezed
    # beside them into a 30 px column, a few letters a line)
    status = page.locator("#item-status")
    expect(status).to_contain_text("item 1 of", timeout=TIMEOUT)
    box, button = status.bounding_box(), page.locator("#next-item").bounding_box()
    assert box is not None and button is not None
    assert box["width"] >= 300 and box["height"] < 40 and box["y"] >= button["y"] + button["height"], box
    # every table of the item ends within the screen (what is wider scrolls in its own box): the
    # page clips what overflows, and every model's answer once lost its verdict columns there
    expect(page.locator("#others table.hs-others")).to_be_attached(timeout=TIMEOUT)
    assert page.evaluate(CUT_TABLES) == []
    context.close()


CUT_TABLES = """() => [...document.querySelectorAll('#item table, #others table')]
    .filter((t) => t.getClientRects().length && t.getBoundingClientRect().right > window.innerWidth + 1)
    .map((t) => t.className || t.outerHTML.slice(0, 80))"""
"""The item's tables whose right edge lies past the screen (cut: the page does not scroll sideways)."""


CHART_JS = (
    """() => {"""
    + LUMINANCE_JS
    + """
  const shown = [...document.querySelectorAll('.js-plotly-plot .xaxislayer-above text')]
    .find((t) => t.getBoundingClientRect().width > 0);
  const plot = shown.closest('.js-plotly-plot');
  const bg = behind(plot);
  const svg = getComputedStyle(plot.querySelector('.main-svg')).backgroundColor;
  const ratio = (el) => contrast(getComputedStyle(el).fill, bg);
  const tick = shown, title = plot.querySelector('.infolayer text');
  return {svg, tick: ratio(tick), title: ratio(title)};
}"""
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_sit_on_the_page_and_their_text_reads(browser: Browser, app_url: str, scheme: Any) -> None:
    # Issue 20: every plotly chart was a white box in dark mode, its text dark on dark once lifted.
    page = _started(browser, app_url, scheme)
    page.get_by_role("tab", name="Charts").click()
    expect(page.locator(".js-plotly-plot .xaxislayer-above text").first).to_be_attached(timeout=TIMEOUT)
    found = page.evaluate(CHART_JS)
    page.screenshot(path=str(SHOTS / f"charts-{scheme}-1280.png"), full_page=True)
    if scheme == "dark":
        assert found["svg"] in ("rgba(0, 0, 0, 0)", "transparent"), found  # no white box
    assert found["tick"] >= 4.5 and found["title"] >= 4.5, found
    page.context.close()


def _started(browser: Browser, app_url: str, scheme: Any) -> Any:
    """A page of the app at 1280 px in ``scheme``, once it has started up."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme).new_page()
    page.goto(app_url)
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    return page


ERROR_BAR_JS = (
    """() => {"""
    + LUMINANCE_JS
    + """
  const bar = [...document.querySelectorAll('.js-plotly-plot g.errorbar path')]
    .find((p) => p.getBoundingClientRect().height > 0);
  return bar ? contrast(getComputedStyle(bar).stroke, behind(bar.closest('.js-plotly-plot'))) : null;
}"""
)
"""Contrast of the first drawn interval bar with the page behind its chart."""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_intervals_show_on_the_page(browser: Browser, app_url: str, scheme: Any) -> None:
    # seen on a phone in dark mode: the overview chart's 95% intervals, dark grey on the dark page
    page = _started(browser, app_url, scheme)
    expect(page.locator(".js-plotly-plot g.errorbar path").first).to_be_attached(timeout=TIMEOUT)
    ratio = page.evaluate(ERROR_BAR_JS)
    assert ratio is not None and ratio >= 3, ratio  # WCAG's 3:1 for graphics
    page.context.close()
