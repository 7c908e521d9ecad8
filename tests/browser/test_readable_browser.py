"""Readable at 1280 px: the item table's key columns fit, and the Data problems tab opens items."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ROOT, SHOTS, WAIT, open_items
from playwright.sync_api import expect

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]
T = WAIT
KEY_COLUMNS = {"model": 2, "question": 5, "answer": 6, "parsed": 7, "gold": 8, "verdict": 9}


def _page(browser: Any, url: str) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(url)
    open_items(page)
    expect(page.locator("#page-info")).to_contain_text("rows 1", timeout=T)
    return page


def test_key_columns_show_without_scrolling_at_1280(browser: Any, app_url: str) -> None:
    page = _page(browser, app_url)
    expect(page.locator("#items [data-row='0'][data-col='9']")).not_to_be_empty(timeout=T)
    table = page.locator("#items").bounding_box()
    right = table["x"] + table["width"]
    for name, col in KEY_COLUMNS.items():
        cell = page.locator(f"#items [data-row='0'][data-col='{col}']").bounding_box()
        assert cell["x"] + cell["width"] <= right + 1, f"{name} ends at {cell['x'] + cell['width']} > {right}"
    page.screenshot(path=str(SHOTS / "items-1280.png"))
    page.context.close()


def test_data_problems_follow_the_benchmark_and_open_an_item(browser: Any, app_url: str) -> None:
    page = _page(browser, app_url)
    page.locator("#f-benchmark input").click()
    page.get_by_role("option", name="cdh-bench", exact=True).click()
    page.get_by_role("tab", name="Data problems").click()
    expect(page.locator("#findings-line")).to_contain_text("in cdh-bench", timeout=T)
    findings = page.locator("#findings").inner_text()
    assert "inverted-polarity" in findings and str(ROOT) not in findings
    chosen = page.locator("#finding-item input").input_value()
    item_id = chosen.split(" · ")[0]
    page.screenshot(path=str(SHOTS / "data-problems-1280.png"))
    page.locator("#open-finding").click()
    expect(page.locator("#item")).to_contain_text(item_id, timeout=T)
    expect(page.locator("#jump textarea, #jump input").first).to_have_value(item_id, timeout=T)
    page.context.close()
