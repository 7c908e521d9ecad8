"""The overview in a real browser: the app opens on the leaderboards, whose numbers are score's.

Screenshots of the overview in light and dark mode at 1280 px and 390 px go to
``test-artifacts/screenshots/overview-*.png``.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SHOTS, WAIT
from playwright.sync_api import Browser, expect

from analysis.boards.leaderboard import fmt, fmt_interval, leaderboards
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.query import PAGE_SIZE, Filters

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

TIMEOUT = WAIT


def _page(browser: Browser, url: str, width: int, scheme: Any = "light") -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(url)
    expect(page.locator("#leaderboards .hs-board").first).to_be_visible(timeout=TIMEOUT)
    return page


def test_the_app_opens_on_leaderboards_with_the_score_numbers(browser: Browser, app_url: str) -> None:
    page = _page(browser, app_url, 1280)
    expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true")
    (first,) = [lb for lb in leaderboards(load_manifest(SAMPLE_MANIFEST).table, "avhbench")[:1]]
    table = page.locator("#leaderboards .hs-board").first
    expect(table.locator("h3")).to_have_text(first.board.title)
    for i, entry in enumerate(first.entries):
        row = table.locator("tbody tr").nth(i)
        expect(row.locator("td.hs-model")).to_have_text(entry.model)
        metric = first.board.metrics[0]
        cell = row.locator("td").nth(3)
        expect(cell).to_contain_text(fmt(entry.values[metric]))
        expect(cell.locator(".hs-ci")).to_have_text(fmt_interval(entry.intervals[metric]))


def test_a_model_s_failures_open_in_the_items_tab(browser: Browser, app_url: str) -> None:
    page = _page(browser, app_url, 1280)
    page.locator("#failures-of input").click()
    page.get_by_role("option", name="AV Matching · balanced", exact=True).click()
    page.locator("#open-failures").click()
    expect(page.get_by_role("tab", name="Items")).to_have_attribute("aria-selected", "true", timeout=TIMEOUT)
    expect(page.locator("#f-wrong input")).to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#items [data-row='0'][data-col='9']")).to_have_text("✗", timeout=TIMEOUT)
    models = page.locator("#items [data-col='2']")
    expect(models.first).to_have_text("balanced", timeout=TIMEOUT)
    texts = set(page.locator("#items [data-row][data-col='2']").all_inner_texts())
    assert texts == {"balanced"}
    tasks = set(page.locator("#items [data-row][data-col='3']").all_inner_texts())
    assert tasks == {"AV Matching"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_overview_screenshots(browser: Browser, app_url: str, scheme: str, width: int) -> None:
    page = _page(browser, app_url, width, scheme)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"overview-{scheme}-{width}.png"), full_page=False)
    page.locator("#leaderboards").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"overview-{scheme}-{width}-boards.png"), full_page=False)
    # the board table fits the viewport or scrolls inside its own box, never the whole page
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1


def test_the_official_chart_has_error_bars_and_its_numbers_download(browser: Browser, app_url: str) -> None:
    page = _page(browser, app_url, 1280)
    chart = page.locator("#chart-official")
    chart.scroll_into_view_if_needed()
    expect(chart.locator("g.errorbar").first).to_be_attached(timeout=TIMEOUT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    chart.screenshot(path=str(SHOTS / "overview-official-chart.png"))
    with page.expect_download(timeout=TIMEOUT) as info:
        page.locator("#boards-csv").click()
    text = Path(info.value.path()).read_text(encoding="utf-8").splitlines()
    assert text[0].startswith("benchmark,board,task,model,metric,value,ci_low,ci_high,n")
    boards = leaderboards(load_manifest(SAMPLE_MANIFEST).table, "avhbench")
    assert len(text) == 1 + sum(len(lb.entries) * len(lb.board.metrics) for lb in boards)


def test_a_shared_url_opens_its_view_and_back_steps_back(browser: Browser, app_url: str) -> None:
    table = load_manifest(SAMPLE_MANIFEST).table
    rows = table[(table["benchmark"] == "cmm") & (table["model"] == "balanced")]
    item = str(rows["item_id"].iloc[2])
    shared = f"{app_url}?benchmark=cmm&models=balanced&item={item}"
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()  # a fresh browser
    page.goto(shared)
    expect(page.get_by_role("tab", name="Items")).to_have_attribute("aria-selected", "true", timeout=TIMEOUT)
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    expect(page.locator("#f-benchmark input")).to_have_value("cmm")
    expect(page.locator("#items [data-row='0'][data-col='2']")).to_have_text("balanced", timeout=TIMEOUT)
    # the view follows the filters into the URL, one history entry per change
    page.get_by_label("Wrong only").check()
    expect(page).to_have_url(re.compile(r"[?&]wrong=1"), timeout=TIMEOUT)
    assert f"item={item}" in page.url and "models=balanced" in page.url
    page.reload()
    expect(page.locator("#f-wrong input")).to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"wrong=1"), timeout=TIMEOUT)
    expect(page.locator("#f-wrong input")).not_to_be_checked(timeout=TIMEOUT)
    page.context.close()


def test_back_and_forward_put_views_back_in_place_without_a_reload(browser: Browser, app_url: str) -> None:
    # Issue 20, item 2: Back reloaded the whole page (10-28 s a step on a loaded server). Now the
    # address's view is put back by one answer: the page (and a marker set in it) survives, the
    # filters, the open row and the benchmark follow the address, and Forward comes back.
    table = load_manifest(SAMPLE_MANIFEST).table
    cmm = table[(table["benchmark"] == "cmm") & (table["model"] == "balanced")]
    item = str(cmm["item_id"].iloc[2])
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{app_url}?benchmark=cmm&models=balanced&item={item}")
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    page.evaluate("() => { window.__hsMarker = 'same page'; }")
    steps = page.evaluate("() => window.history.length")
    page.get_by_label("Wrong only").check()
    expect(page).to_have_url(re.compile(r"[?&]wrong=1"), timeout=TIMEOUT)
    # another benchmark: the cmm row closes (nothing of one benchmark stays open in another)
    page.locator("#f-benchmark input").click()
    page.get_by_role("option", name="cdh-bench", exact=True).click()
    expect(page).to_have_url(re.compile(r"benchmark=cdh-bench"), timeout=TIMEOUT)
    expect(page.locator("#item")).not_to_contain_text(item, timeout=TIMEOUT)

    page.go_back()  # to cmm, wrong only, the row open again
    expect(page.locator("#f-benchmark input")).to_have_value("cmm", timeout=TIMEOUT)
    expect(page.locator("#f-wrong input")).to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    expect(page.locator("#items [data-row='0'][data-col='2']")).to_have_text("balanced", timeout=TIMEOUT)
    page.go_back()  # the shared link's own view: wrong only off
    expect(page.locator("#f-wrong input")).not_to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    page.go_forward()
    expect(page.locator("#f-wrong input")).to_be_checked(timeout=TIMEOUT)
    page.go_forward()
    expect(page.locator("#f-benchmark input")).to_have_value("cdh-bench", timeout=TIMEOUT)
    expect(page.locator("#items [data-row='0'][data-col='1']")).to_contain_text("cdh-", timeout=TIMEOUT)
    assert page.evaluate("() => window.__hsMarker") == "same page"  # never reloaded
    # putting a view back added no step of its own: the history is the three views, in order
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    assert page.evaluate("() => window.history.length") == steps + 2  # the two views after the link's
    assert "benchmark=cdh-bench" in page.url
    # Back twice at once: the second waits for the first view to land, then its own view comes
    # (it reloaded the page when it came while the first was being put back)
    page.go_back()
    page.go_back()
    expect(page.locator("#f-benchmark input")).to_have_value("cmm", timeout=TIMEOUT)
    expect(page.locator("#f-wrong input")).not_to_be_checked(timeout=TIMEOUT)
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    assert page.evaluate("() => window.__hsMarker") == "same page"
    page.context.close()


def test_a_shared_row_opens_the_answer_of_the_model_it_named(browser: Browser, app_url: str) -> None:
    # Issue 20: the URL named the item only, so a link to one model's failure opened another's answer.
    table = load_manifest(SAMPLE_MANIFEST).table
    rows = table[table["benchmark"] == "cmm"]
    item = str(rows["item_id"].iloc[0])
    last = str(rows.loc[rows["item_id"] == item, "model"].iloc[-1])  # not the first row's model
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{app_url}?benchmark=cmm&item={item}&model={last}")
    expect(page.locator("#item")).to_contain_text(item, timeout=TIMEOUT)
    expect(page.locator("#item .hs-meta")).to_contain_text(last, timeout=TIMEOUT)
    # and the URL the app writes for an open row names its model
    expect(page).to_have_url(re.compile(rf"[?&]model={re.escape(last)}(&|$)"), timeout=TIMEOUT)
    steps = page.evaluate("() => window.history.length")  # a link already complete: no step added
    page.context.close()
    # a link naming the item only opens the first model's answer, and the address gains that
    # model at once, in the link's own step of history (it stayed without it until a change)
    first = str(rows.loc[rows["item_id"] == item, "model"].iloc[0])
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{app_url}?benchmark=cmm&item={item}")
    expect(page.locator("#item .hs-meta")).to_contain_text(first, timeout=TIMEOUT)
    expect(page).to_have_url(re.compile(rf"[?&]model={re.escape(first)}(&|$)"), timeout=TIMEOUT)
    assert page.evaluate("() => window.history.length") == steps
    page.context.close()


def test_a_phone_opens_on_the_numbers_and_reaches_the_filters_in_one_tap(
    browser: Browser, app_url: str
) -> None:
    # At 390 px the two columns stack: the tabs (the per-model numbers) come first, where the
    # filter column used to fill the whole first screen; a button at the top scrolls to the filters.
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(app_url)
    board = page.locator("#leaderboards .hs-board").first
    expect(board).to_be_visible(timeout=TIMEOUT)
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    top, filters = board.bounding_box(), page.locator("#f-benchmark").bounding_box()
    assert top is not None and filters is not None
    assert top["y"] < 844 and filters["y"] > top["y"] + top["height"], (top, filters)
    page.locator("#to-filters").click()
    page.wait_for_function(
        "() => { const r = document.getElementById('f-benchmark').getBoundingClientRect();"
        " return r.top > -2 && r.bottom < window.innerHeight + 2; }",
        timeout=TIMEOUT,
    )  # within a pixel
    page.context.close()
    wide = _page(browser, app_url, 1280)  # side by side: no button, the filters left of the tabs
    expect(wide.locator("#to-filters")).to_be_hidden()
    tabs, filters = wide.locator("#main-col").bounding_box(), wide.locator("#f-benchmark").bounding_box()
    assert tabs is not None and filters is not None and filters["x"] + filters["width"] <= tabs["x"]
    wide.context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_chart_of_many_panels_stacks_them_on_a_phone(browser: Browser, app_url: str, width: int) -> None:
    # Issue 20, item 7: the overview chart put five panels side by side at 390 px, their titles
    # on top of each other. On a narrow screen each panel now takes the whole width and its own
    # band of the height, top to bottom in the server's order; a wide screen keeps the columns.
    page = _page(browser, app_url, width)
    chart = page.locator("#chart-official .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible(timeout=TIMEOUT)
    layout_js = """(gd) => Object.keys(gd.layout).filter((k) => /^xaxis\\d*$/.test(k))
        .sort((a, b) => (parseInt(a.slice(5)) || 1) - (parseInt(b.slice(5)) || 1))
        .map((k) => [gd.layout[k].domain, gd.layout['yaxis' + k.slice(5)].domain])"""
    if width < 560:
        page.wait_for_function(
            "() => { const l = document.querySelector('#chart-official .js-plotly-plot').layout;"
            " return l.xaxis.domain[0] === 0 && l.xaxis.domain[1] === 1; }",
            timeout=TIMEOUT,
        )
    panels = chart.evaluate(layout_js)
    assert len(panels) >= 3
    xs = [tuple(x) for x, _ in panels]
    if width < 560:
        assert all(x == (0, 1) for x in xs)
        tops = [y[1] for _, y in panels]
        assert tops == sorted(tops, reverse=True)  # the first panel on top
        bands = [y for _, y in panels]
        assert all(low[1] <= high[0] for high, low in itertools.pairwise(bands))  # no overlap
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1
    else:
        assert len(set(xs)) == len(xs) and all(x[1] - x[0] < 0.5 for x in xs)  # columns, as the server drew
    page.context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_a_chart_drawn_in_a_hidden_tab_fits_its_box_once_shown(
    browser: Browser, app_url: str, width: int
) -> None:
    # Issue 20's screenshots: a reviewer who went to Items before the overview chart arrived came
    # back to a chart drawn at plotly's default 700 px, cut off on a phone.
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(app_url + "?benchmark=cmm")
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    page.get_by_role("tab", name="Items").click()  # at once: the chart is drawn while hidden
    expect(page.locator("#items [data-row='0']").first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(1500)
    page.get_by_role("tab", name="Overview").click()
    chart = page.locator("#chart-official .js-plotly-plot")
    expect(chart).to_be_visible(timeout=TIMEOUT)
    page.wait_for_function(
        "() => { const g = document.querySelector('#chart-official .js-plotly-plot');"
        " return g && g._fullLayout && Math.abs(g._fullLayout.width - g.clientWidth) <= 1; }",
        timeout=TIMEOUT,
    )
    box = chart.evaluate("(g) => [g._fullLayout.width, g.clientWidth, g.parentElement.clientWidth]")
    assert box[0] <= box[2] + 1, box
    context.close()


def test_on_a_phone_two_panels_stack_and_a_side_legend_goes_below(browser: Browser, app_url: str) -> None:
    # The screenshots of issue 20 at 390 px: the Yes-bias chart's two panels and its legend shared
    # the width (three columns of a hundred pixels), and the accuracy chart's legend took half.
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(app_url + "?benchmark=avhbench")
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    page.get_by_role("button", name="More tabs").click()
    page.locator(".overflow-dropdown button", has_text="Charts").click()
    for name in ("yes-bias", "accuracy"):
        expect(page.locator(f"#chart-{name} .js-plotly-plot")).to_be_visible(timeout=TIMEOUT)
    page.wait_for_function(
        "() => { const l = document.querySelector('#chart-yes-bias .js-plotly-plot').layout;"
        " return l.xaxis.domain[1] === 1 && l.legend && l.legend.orientation === 'h'; }",
        timeout=TIMEOUT,
    )
    bias = page.locator("#chart-yes-bias .js-plotly-plot").evaluate(
        "(g) => ['xaxis', 'xaxis2', 'yaxis', 'yaxis2'].map((k) => g.layout[k].domain)"
    )
    assert bias[0] == [0, 1] and bias[1] == [0, 1]  # each panel the whole width
    assert bias[3][1] <= bias[2][0]  # the second below the first
    page.wait_for_function(
        "() => { const g = document.querySelector('#chart-accuracy .js-plotly-plot');"
        " return (g.layout.legend || {}).orientation === 'h'; }",
        timeout=TIMEOUT,
    )
    widths = page.locator("#chart-accuracy .js-plotly-plot").evaluate(
        "(g) => [g._fullLayout.width, g.clientWidth]"
    )
    assert widths[0] <= widths[1] + 1  # the panel within its box, the legend below it
    context.close()


@pytest.mark.parametrize(("name", "chart"), [("cdh-bench", "cf-cs"), ("detailverifybench", "spans")])
def test_on_a_phone_a_long_title_wraps_and_crowded_names_stand_upright(
    browser: Browser, app_url: str, name: str, chart: str
) -> None:
    # The screenshots at 390 px: CDH-Bench's chart title ran off the right edge ("...(CDH-Be"),
    # DetailVerifyBench's nine label types overlapped each other under their bars.
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(app_url + f"?benchmark={name}")
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    page.get_by_role("button", name="More tabs").click()
    page.locator(".overflow-dropdown button", has_text="Charts").click()
    plot = page.locator(f"#chart-{chart} .js-plotly-plot")
    expect(plot).to_be_visible(timeout=TIMEOUT)
    layout = f"document.querySelector('#chart-{chart} .js-plotly-plot').layout"
    if chart == "cf-cs":
        page.wait_for_function(f"() => {layout}.title.text.includes('<br>')", timeout=TIMEOUT)
    else:  # the label types (the second panel), not the five domains, which fit
        page.wait_for_function(f"() => {layout}.xaxis2.tickangle === -90", timeout=TIMEOUT)
        assert plot.evaluate("(g) => g.layout.xaxis.tickangle") != -90
    # every title and tick label inside the chart's box (the cut title ran past its right edge)
    boxes = plot.evaluate(
        """(g) => { const box = g.getBoundingClientRect();
        const out = [...g.querySelectorAll('.gtitle, .xtick text')].map((e) => {
          const r = e.getBoundingClientRect(); return [r.left - box.left, r.right - box.left]; });
        return {width: box.width, spans: out}; }"""
    )
    assert all(left >= -1 and right <= boxes["width"] + 1 for left, right in boxes["spans"]), boxes
    page.screenshot(path=str(SHOTS / f"charts-{name}-390.png"), full_page=True)
    context.close()


def test_a_hidden_tab_waits_for_its_opening_and_then_shows_the_benchmark(
    browser: Browser, app_url: str
) -> None:
    """A benchmark switch sends the content of the tab on screen only (components/shown_tabs.py):
    the overview and the data problems, hidden, keep the old benchmark until they are opened, and
    then show the new one; on screen, the overview follows a switch at once."""
    page = _page(browser, app_url, 1280)
    table = load_manifest(SAMPLE_MANIFEST).table
    first = {b: leaderboards(table, b)[0].board.title for b in ("avhbench", "cdh-bench", "cmm")}
    title = page.locator("#leaderboards .hs-board h3").first
    expect(title).to_have_text(first["avhbench"], timeout=TIMEOUT)
    page.get_by_role("tab", name="Data problems").click()
    line = page.locator("#findings-line")
    expect(line).to_contain_text("in avhbench", timeout=TIMEOUT)
    page.get_by_role("tab", name="Items").click()
    # The server learns of the opening from an event of its own. Handled after the switch (it was,
    # in one full run on a loaded machine), the hidden tab is filled eagerly: the right
    # benchmark, only work wasted, but not what this test looks at. So the opening goes first.
    page.wait_for_timeout(1000)
    page.locator("#f-benchmark input").click()
    page.get_by_role("option", name="cdh-bench", exact=True).click()
    expect(page.locator("#items [data-row='0'][data-col='1']")).to_contain_text("cdh-", timeout=TIMEOUT)
    page.wait_for_timeout(1500)  # anything sent for the hidden tabs would have come by now
    assert title.text_content() == first["avhbench"]
    assert "in avhbench" in (line.text_content() or "")
    page.get_by_role("tab", name="Overview").click()
    expect(title).to_have_text(first["cdh-bench"], timeout=TIMEOUT)
    page.locator("#f-benchmark input").click()
    page.get_by_role("option", name="cmm", exact=True).click()
    expect(title).to_have_text(first["cmm"], timeout=TIMEOUT)  # on screen: at once
    page.get_by_role("tab", name="Data problems").click()
    expect(line).to_contain_text("in cmm", timeout=TIMEOUT)
    page.context.close()


def test_the_theme_stays_in_the_address_through_a_view_change_and_a_reload(
    browser: Browser, app_url: str
) -> None:
    # Seen at stop 42: a page opened with &__theme=dark came back light after a reload, because
    # the address the view writes dropped Gradio's theme parameter.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = context.new_page()
    dark = "() => document.body.classList.contains('dark')"
    page.goto(app_url + "?__theme=dark&benchmark=avhbench")
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    assert page.evaluate(dark)  # the predicate holds on a dark page (so the check below means it)
    page.locator("#f-benchmark input").click()
    page.get_by_role("option", name="cmm", exact=True).click()
    page.wait_for_function("() => location.search.includes('benchmark=cmm')", timeout=TIMEOUT)
    assert "__theme=dark" in page.evaluate("() => location.search")
    page.reload()
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=TIMEOUT)
    assert page.evaluate(dark)
    assert "benchmark=cmm" in page.evaluate("() => location.search")
    context.close()


def test_an_item_opened_by_link_or_by_id_is_on_the_page_the_table_shows(
    browser: Browser, app_url: str
) -> None:
    # Seen at stop 42: a link to an item past the first page opened it in the inspector while the
    # table stayed on page 1, without the row; so did "Go to item id".
    cat = load_manifest(SAMPLE_MANIFEST)
    rows = cat.rows_for(Filters(benchmark="cdh-bench"))
    assert len(rows) > 2 * PAGE_SIZE  # the samples have a third page to go to
    far = cat.table.iloc[int(rows[2 * PAGE_SIZE + 3])]
    # an id opens the item's first row in the view: one whose first row is near the top of page 1
    # (the table draws the rows in sight only), while the table shows page 3
    firsts = {str(cat.table.at[int(r), "item_id"]): int(r) for r in rows[::-1]}
    other = next(i for i, r in firsts.items() if 3 <= int(np.searchsorted(rows, r)) < 10)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{app_url}?benchmark=cdh-bench&item={far['item_id']}&model={far['model']}")
    expect(page.locator("#item")).to_contain_text(str(far["item_id"]), timeout=TIMEOUT)
    expect(page.locator("#page-info")).to_contain_text("page 3 of", timeout=TIMEOUT)
    expect(page.locator("#items")).to_contain_text(str(far["item_id"]), timeout=TIMEOUT)
    page.locator("#jump textarea, #jump input").first.fill(other)
    page.locator("#jump textarea, #jump input").first.press("Enter")
    expect(page.locator("#page-info")).to_contain_text("page 1 of", timeout=TIMEOUT)
    expect(page.locator("#items")).to_contain_text(other, timeout=TIMEOUT)
    page.context.close()


def test_a_link_to_a_benchmark_never_shows_another_benchmarks_numbers(browser: Browser, app_url: str) -> None:
    # Seen at stop 42: a shared ?benchmark=cmm link showed AVHBench's leaderboards for about 1.25 s
    # (the page is drawn with the first benchmark, then the link's view is put in place).
    table = load_manifest(SAMPLE_MANIFEST).table
    first = {b: leaderboards(table, b)[0].board.title for b in ("avhbench", "cmm")}
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(
        """window.__hsSeen = [];
        setInterval(() => {
          const row = document.getElementById('main-row');
          const h = document.querySelector('#leaderboards .hs-board h3');
          if (row && h && getComputedStyle(row).visibility !== 'hidden') window.__hsSeen.push(h.textContent);
        }, 20);"""
    )
    page = context.new_page()
    page.goto(app_url + "?benchmark=cmm")
    title = page.locator("#leaderboards .hs-board h3").first
    expect(title).to_have_text(first["cmm"], timeout=TIMEOUT)
    expect(title).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(300)
    seen = page.evaluate("() => window.__hsSeen")
    assert seen and set(seen) == {first["cmm"]}, sorted(set(seen))
    context.close()
