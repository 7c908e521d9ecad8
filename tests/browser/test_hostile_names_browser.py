"""Model names, pair ids and reviewer names from hostile data, in the pair-validation tab of a
real browser: shown as text, never as live elements.

Issue 8's finding: the pairs tab put model names and pair ids into Markdown as they were, and
Gradio's sanitiser still renders ``<b>``, ``<img>`` and ``<a>`` there.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import SHOTS, WAIT, running_app
from playwright.sync_api import Browser, expect

pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

TIMEOUT = WAIT
MODEL = '<b>bold</b><img src=x onerror="window.__pwned=1"><a href="https://example.com/">link</a>'
PAIR = '<b>p</b><img src=y onerror="window.__pwned=2">[go](https://example.com/)'
REVIEWER = "<i>eve</i>"


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import gradio as gr

    from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
    from analysis.store import Identity, open_store
    from components.pairs.tab import build_pairs_tab

    samples = load_manifest(SAMPLE_MANIFEST)
    table = samples.table.copy()
    vid = table["benchmark"] == "vidhalluc"
    first = str(table.loc[vid & (table["pair_id"].fillna("") != ""), "pair_id"].iloc[0])
    for column, where, value in (
        ("model", vid & (table["model"].astype(str) != ""), MODEL),
        ("pair_id", vid & (table["pair_id"] == first), PAIR),
    ):
        kind = table[column].dtype
        values = table[column].astype(object)
        values[where] = value
        table[column] = values.astype(kind if kind != "category" else "category")
    catalog = Catalog(table, media_roots=samples.media_roots)
    store = open_store(tmp_path_factory.mktemp("hostile-pairs") / "labels.db")

    def identity_of(request: gr.Request) -> Identity | None:
        name = getattr(request, "username", None)
        return Identity(name) if name else None

    def build() -> gr.Blocks:
        with gr.Blocks(title="pairs") as demo:
            build_pairs_tab(catalog, store, identity_of, k=2, reviewers=(REVIEWER,))
        return demo

    with running_app(catalog, build, auth=[(REVIEWER, "pw")]) as url:
        yield url
    store.close()


def test_hostile_names_are_shown_as_text(browser: Browser, hostile_url: str) -> None:
    page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    page.goto(hostile_url)
    page.get_by_label("username").fill(REVIEWER)
    page.get_by_label("password").fill("pw")
    page.get_by_role("button", name="Login").click()
    who, info = page.locator("#pairs-who"), page.locator("#pairs-info")
    expect(who).to_contain_text(f"Signed in as {REVIEWER}", timeout=TIMEOUT)
    page.locator("#pairs-pick input").fill(PAIR)
    page.locator("#pairs-pick input").press("Enter")
    expect(info).to_contain_text(PAIR, timeout=TIMEOUT)
    expect(info).to_contain_text(MODEL, timeout=TIMEOUT)
    page.screenshot(path=str(SHOTS / "pairs_hostile_names.png"), full_page=True)
    for box in (who, info, page.locator("#pairs-progress")):
        assert box.locator("b, i, img, a").count() == 0, box.inner_html()
    planted = "img[src='x'], img[src='y'], a[href='https://example.com/']"
    assert page.locator(planted).count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    page.context.close()
