"""Pair scores and DINOv2 saliency in the pair tab of a real browser, with tiny local checkpoints:
a reviewer computes the scores, filters the pairs that break the rule, sorts by a score, and
draws both clips' saliency at the playhead. Light and dark screenshots (docs/pair-scores.md)."""

from __future__ import annotations

import os
import socket
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SHOTS, WAIT
from playwright.sync_api import expect

pytest.importorskip("torch", reason="torch is an optional dependency (pip install .[embed])")
pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]


@pytest.fixture(scope="module")
def scores_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import gradio as gr
    from app_data import release_gradio_loops
    from pair_validation.tiny_encoders import build

    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.store import Identity, open_store
    from components.pairs.tab import build_pairs_tab

    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    folder = tmp_path_factory.mktemp("pair-scores")
    patch = pytest.MonkeyPatch()  # the test-wide cache folder comes back afterwards (tests/conftest.py)
    patch.setenv("HALLUSCOPE_CACHE_DIR", str(folder / "cache"))
    clip, dino = build(folder / "encoders")
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
            build_pairs_tab(catalog, store, identity_of, k=1, clip_dir=clip, dino_dir=dino)
        _, url, _ = demo.launch(
            prevent_thread_lock=True,
            server_name="127.0.0.1",
            server_port=port,
            quiet=True,
            auth=[("alice", "pw1")],
            allowed_paths=[str(r) for r in catalog.media_roots["vidhalluc"]],
        )
    yield url
    demo.close()
    store.engine.dispose()
    patch.undo()
    release_gradio_loops()


@pytest.mark.parametrize("dark", [False, True])
def test_a_reviewer_computes_filters_sorts_and_sees_saliency(
    browser: Any, scores_url: str, dark: bool
) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 1000}, color_scheme="dark" if dark else "light"
    )
    page = context.new_page()
    page.goto(scores_url + ("?__theme=dark" if dark else "?__theme=light"))
    page.get_by_label("username").fill("alice")
    page.get_by_label("password").fill("pw1")
    page.get_by_role("button", name="Login").click()
    expect(page.locator("#pairs-player video").first).to_be_visible(timeout=WAIT)
    page.locator("#pairs-compute").click()
    expect(page.locator("#pairs-compute-status")).to_contain_text("Scored 8 pair(s)", timeout=WAIT)
    table = page.locator("#pairs-list")
    expect(table).to_contain_text("breaks", timeout=WAIT)  # random weights: every pair looks alike
    # the scored list, still in file order: the pair the visual sort (lowest first, ties in file
    # order) will put on top is known before the sort is asked for
    scored = page.evaluate(
        """() => [...document.querySelectorAll('#pairs-list [data-row][data-col="0"]')].map(c => {
            const visual = `#pairs-list [data-row="${c.dataset.row}"][data-col="3"]`;
            return [c.innerText.trim(), parseFloat(document.querySelector(visual).innerText)];
        })"""
    )
    assert len(scored) == 8, scored
    lowest = min(scored, key=lambda row: row[1])[0]
    page.locator("#pairs-sort").get_by_label("visual").check()
    page.locator("#pairs-breaking").get_by_label("Only pairs that break the selection rule").check()
    expect(table).not_to_contain_text("meets", timeout=WAIT)
    first = page.locator("#pairs-list [data-row='0'][data-col='0']")
    # read the top row only once the sorted list is drawn: read before, it named the pair the file
    # lists first while the click opened the sorted list's top pair (seen on two loaded cores)
    expect(first).to_have_text(lowest, timeout=WAIT)
    chosen = first.inner_text().strip()
    first.click()
    expect(page.locator("#pairs-info")).to_contain_text(chosen, timeout=WAIT)
    expect(page.locator("#pairs-info")).to_contain_text("the selection rule", timeout=WAIT)
    expect(page.locator("#pairs-player video").first).to_have_attribute(
        "data-clip", f"{chosen}_clip_1", timeout=WAIT
    )
    # seek once the new pair's videos can seek (a seek before they load is lost); the player's
    # own clock shows where the lead clip stands
    page.wait_for_function(
        "() => { const p = window.hsPairPlayer; if (!p || !p.videos().length) return false;"
        " if (p.videos().some((v) => v.readyState < 1)) return false;"
        " if (Math.abs(p.times()[0] - 1.0) > 0.05) p.seek(1.0);"
        " return Math.abs(p.times()[0] - 1.0) <= 0.05; }",
        timeout=WAIT,
    )
    page.locator("#pairs-saliency-go").click()
    expect(page.locator("#pairs-saliency img")).to_have_count(2, timeout=WAIT)
    expect(page.locator("#pairs-saliency")).to_contain_text("at 1.00 s")
    page.screenshot(path=str(SHOTS / f"pair-scores-{'dark' if dark else 'light'}-1280.png"), full_page=True)
    context.close()
