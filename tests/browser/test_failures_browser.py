"""Where it fails: a model's significant slices and a comparison of two runs, in the browser.

On the samples, commonsense-prior fails CDH-Bench's counterfactual side (the sample generator
plants it); the tab shows that slice, the flip table against yes-biased, and opens a slice's item.
Screenshots in light and dark at 1280 px.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import BROKEN_WORDS, SHOTS, WAIT, open_items
from playwright.sync_api import expect

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]
T = WAIT


def _choose(page: Any, elem: str, name: str) -> None:
    page.locator(f"#{elem} input").click()
    page.get_by_role("option", name=name, exact=True).click()


@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 1280)])
def test_slices_and_two_runs_compared(browser: Any, app_url: str, scheme: str, width: int) -> None:
    page = browser.new_context(viewport={"width": width, "height": 1000}, color_scheme=scheme).new_page()
    page.goto(app_url + ("?__theme=dark" if scheme == "dark" else ""))
    open_items(page)
    _choose(page, "f-benchmark", "cdh-bench")
    page.get_by_role("tab", name="Where it fails").click()
    _choose(page, "fail-model", "commonsense-prior")
    expect(page.locator("#fail-line")).to_contain_text("commonsense-prior", timeout=T)
    expect(page.locator("#fail-slices")).to_contain_text("side = counterfactual", timeout=T)
    _choose(page, "fail-other", "yes-biased")
    expect(page.locator("#fail-flips")).to_contain_text("only commonsense-prior wrong", timeout=T)
    count = page.locator("#fail-flips [data-row='0'][data-col='1']")
    expect(count).to_be_visible(timeout=T)  # the cell's count is on screen beside its name
    box, cell = page.locator("#fail-flips").bounding_box(), count.bounding_box()
    assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 1  # not scrolled out of its table
    holm = page.locator("#fail-diffs [data-row='0'][data-col='6']")
    expect(holm).not_to_be_empty(timeout=T)
    box, cell = page.locator("#fail-diffs").bounding_box(), holm.bounding_box()
    assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 1  # the Holm p is on screen too
    expect(page.locator("#fail-diffs")).to_contain_text("CDH-Bench QA", timeout=T)
    # the comparison reads whole words: its metric and model names once broke inside them at 1280 px
    for table in ("#fail-diffs", "#fail-flips"):
        assert page.evaluate(BROKEN_WORDS, table) == [], table
    expect(page.locator("#fail-losses")).to_contain_text("loses to yes-biased", timeout=T)
    expect(page.locator("#fail-slices .progress-text")).to_have_count(0, timeout=T)
    page.screenshot(path=str(SHOTS / f"failures-{scheme}-{width}.png"), full_page=True)
    if width == 1280 and scheme == "light":
        expect(page.locator("#fail-group input")).to_have_value("slice: side = counterfactual", timeout=T)
        item = page.locator("#fail-item input").input_value()
        assert item.startswith("cdh-")
        page.locator("#fail-open").click()
        expect(page.locator("#item")).to_contain_text(item, timeout=T)
        # one click on a slice shows it in the Items tab: its model, that slice, the table cut to it
        page.get_by_role("tab", name="Where it fails").click()
        n = page.locator("#fail-slices [data-row='0'][data-col='1']").inner_text().strip()
        page.locator("#fail-slices [data-row='0'][data-col='0']").click()
        box = page.locator("#f-slice input, #f-slice textarea")
        expect(box).to_have_value("side = counterfactual", timeout=T)
        expect(page.get_by_role("tab", name="Items", exact=True)).to_have_attribute("aria-selected", "true")
        # every item of the slice is scored here (the handler test has one that is not)
        expect(page.locator("#page-info")).to_contain_text(f"of {n} ", timeout=T)
        expect(page.locator("#f-models")).to_contain_text("commonsense-prior")
        assert "slice=side+%3D+counterfactual" in page.url
        page.screenshot(path=str(SHOTS / "failures-slice-in-items-light-1280.png"), full_page=True)
        # a flip-table cell too: both models' answers to the items only A got wrong
        page.get_by_role("tab", name="Where it fails").click()
        flips = page.locator("#fail-flips")
        expect(flips).to_contain_text("only commonsense-prior wrong", timeout=T)
        count = flips.locator("[data-row='1'][data-col='1']").inner_text().strip()
        flips.locator("[data-row='1'][data-col='0']").click()
        cell = page.locator("#f-flip input, #f-flip textarea")
        expect(cell).to_have_value("only A wrong · A = commonsense-prior · B = yes-biased", timeout=T)
        expect(page.locator("#f-slice input, #f-slice textarea")).to_have_value("")
        expect(page.locator("#page-info")).to_contain_text(f"of {2 * int(count)} ", timeout=T)
        page.screenshot(path=str(SHOTS / "failures-cell-in-items-light-1280.png"), full_page=True)
        # back on the tab, a benchmark change while it is open is followed at once
        page.get_by_role("tab", name="Where it fails").click()
        _choose(page, "f-benchmark", "cmm")
        expect(page.locator("#fail-line")).to_contain_text("on cmm", timeout=T)
    page.context.close()


def test_the_tab_on_a_phone(browser: Any, app_url: str) -> None:
    """At 390 px the tab sits in Gradio's overflow menu; its tables scroll inside themselves."""
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    page.goto(app_url + "?benchmark=cmm")
    open_items(page)
    page.get_by_role("button", name="More tabs").click()
    page.locator(".overflow-dropdown button", has_text="Where it fails").click()
    _choose(page, "fail-model", "yes-biased")
    expect(page.locator("#fail-slices")).to_contain_text("gold = no", timeout=T)
    expect(page.locator("#fail-slices")).to_contain_text("HR", timeout=T)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1  # nothing pushes the page sideways
    # the comparison's columns are shares of the width: at 390 px they broke words a letter a
    # line ("b/e/n/c/h"); they keep a readable width and the table scrolls in its own box
    expect(page.locator("#fail-diffs")).to_contain_text("accuracy", timeout=T)
    narrowest, scrolls = page.evaluate(
        """() => { const box = document.querySelector('#fail-diffs .table-container');
        const cells = [...document.querySelectorAll('#fail-diffs tbody td')].filter(td => td.offsetWidth > 0);
        const widths = cells.map(td => td.getBoundingClientRect().width);
        return [Math.min(...widths), box.scrollWidth > box.clientWidth]; }"""
    )
    assert narrowest >= 70 and scrolls, (narrowest, scrolls)
    # two pickers side by side cut a model's name under the arrow ("commonsens▾"): each its own line
    for first, second in (("fail-model", "fail-other"), ("fail-group", "fail-item")):
        above = page.locator(f"#{first}").bounding_box()
        below = page.locator(f"#{second}").bounding_box()
        assert above and below and above["y"] + above["height"] <= below["y"] + 1, (first, above, below)
        assert below["width"] >= 300, below  # the whole row
    page.screenshot(path=str(SHOTS / "failures-light-390.png"), full_page=True)
    page.context.close()
