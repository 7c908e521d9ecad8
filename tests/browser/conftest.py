"""Browser tests: one app server per session over the samples plus two hostile records.

Runs Debian's Chromium (``/usr/bin/chromium``) through pytest-playwright; never downloads a
browser. Skipped, with the reason, when Chromium, Playwright or the samples are missing.
Screenshots go to ``test-artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "manifest.json"
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "test-artifacts" / "screenshots"
sys.path.insert(0, str(ROOT / "tests"))

from app_data import PAYLOAD, release_gradio_loops  # noqa: E402 - the tests folder is not a package

PAYLOAD_MODEL = "payload-model"

WAIT = 45_000
"""How long (ms) a browser test waits for the app to show something. Generous on purpose: CI
runs the suite on two loaded cores, where 15 s was once too short for a step that takes 3 s
alone, and two test files run side by side (each step then takes about 1.7x as long). A broken
step still fails, only later. Also Playwright's default for every ``expect``."""


BROKEN_WORDS = """(sel) => {
    // each word of each cell (a name may break after its hyphen): on one line, or listed
    const broken = [];
    for (const cell of document.querySelectorAll(`${sel} th, ${sel} td`)) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of node.data.matchAll(/[^\\s-]+-?/g)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (lines.size > 1) broken.push(m[0]);
            }
        }
    }
    return broken; }"""
"""The words of a table's cells that the browser broke across two lines ("accurac|y")."""


def _wait_longer_by_default() -> None:
    try:
        from playwright.sync_api import expect
    except ImportError:  # reported, with the reason, by pytest_collection_modifyitems
        return
    expect.set_options(timeout=WAIT)


_wait_longer_by_default()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = None
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not installed (apt-get install chromium)"
    elif not SAMPLES.exists():
        reason = "samples/manifest.json not generated (python samples/generate.py)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        reason = "playwright not installed"
    if reason:
        for item in items:
            if "browser" in str(item.fspath):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--autoplay-policy=no-user-gesture-required",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1440, "height": 1000}}


def _hostile_manifest(folder: Path) -> Path:
    """The samples' manifest with absolute paths, plus a CDH-Bench answer and a DetailVerifyBench
    caption carrying HTML that would run if it were ever inserted as markup.

    The media are copied outside the server's folder (the tests' working folder), as a media root
    elsewhere is (``--media-root avhbench=/data/AVHBench``): every player and image of these tests
    is then served by token (``components/media_route.py``), ranges included."""
    manifest = json.loads(SAMPLES.read_text())
    base = SAMPLES.parent
    assert not folder.resolve().is_relative_to(Path.cwd().resolve()), "media must lie outside"
    for bench, entry in manifest["benchmarks"].items():
        media = folder / "media" / bench
        shutil.copytree(base / entry["media_root"], media)
        entry["media_root"] = str(media)
        entry["gold"] = [str(base / g) for g in entry["gold"]]
        for pred in entry["predictions"]:
            pred["path"] = str(base / pred["path"])
            pred["gold"] = str(base / pred["gold"]) if pred.get("gold") else None
    cdh = manifest["benchmarks"]["cdh-bench"]
    record = json.loads(Path(cdh["predictions"][0]["path"]).read_text().splitlines()[0])
    record.update(pred=PAYLOAD, model_name=PAYLOAD_MODEL, correct=False)
    (folder / "cdh.jsonl").write_text(json.dumps(record) + "\n")
    cdh["predictions"].append(
        {"path": str(folder / "cdh.jsonl"), "model": PAYLOAD_MODEL, "task": None, "gold": None}
    )
    dvb = manifest["benchmarks"]["detailverifybench"]
    first = json.loads(Path(dvb["predictions"][0]["path"]).read_text())[0]
    caption = f"A chart {PAYLOAD} with <HALLUCINATION>red</HALLUCINATION> bars."
    first.update(
        gt_hallucinated_caption_with_tags=caption,
        hallucinated_caption_with_tags=caption,
        original_caption=caption.replace("<HALLUCINATION>", "").replace("</HALLUCINATION>", ""),
    )
    (folder / "dvb.json").write_text(json.dumps([first]))
    dvb["predictions"].append(
        {"path": str(folder / "dvb.json"), "model": PAYLOAD_MODEL, "task": None, "gold": None}
    )
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest))
    return path


@contextmanager
def running_app(catalog: Any, build: Callable[[], Any], **launch: Any) -> Iterator[str]:
    """Serve ``build()`` (an app over ``catalog``) on a free loopback port; yield its URL."""
    import app

    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # Gradio's unclosed loops: see app_data
        demo = build()
        _, url, _ = demo.launch(
            prevent_thread_lock=True,
            server_name="127.0.0.1",
            server_port=port,
            quiet=True,
            **launch,
            **app.launch_kwargs(catalog),
        )
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield url
    finally:
        demo.close()
        release_gradio_loops()


def open_items(page: Any) -> None:
    """Switch to the Items tab (the app opens on the overview) once the app has started up.

    Start-up puts the URL's view in place (filters, then the page, then the item) and says so in
    ``window.__hsViewRestored``. A test that types before that may see start-up set the filters
    back and clear the item it opened: seen in CI at two loaded cores, a benchmark typed into the
    selector undone and a jumped-to item cleared.
    """
    page.wait_for_function("() => window.__hsViewRestored === true", timeout=WAIT)
    page.get_by_role("tab", name="Items").click(timeout=WAIT)


def signed_in_page(
    browser: Any,
    url: str,
    user: str,
    password: str,
    *,
    viewport: dict[str, int] | None = None,
    dark: bool | None = None,
    form: bool = False,
) -> Any:
    """A page in a new browser session, signed in as ``user``, on the app (not waited for).

    ``dark``: the session prefers that scheme and the page asks for that theme (None: neither).
    ``form``: signed in through Gradio's login page, as a person does (each multi-reviewer story
    keeps one such sign-in). Else the same request is sent from the session itself, so its cookie
    lands in the session and the login page is not loaded: about a second a reviewer on two
    loaded cores, the suite's largest repeated cost after the app's own start.
    """
    scheme = {} if dark is None else {"color_scheme": "dark" if dark else "light"}
    context = browser.new_context(viewport=viewport or {"width": 1440, "height": 1100}, **scheme)
    page = context.new_page()
    address = url + ("" if dark is None else "?__theme=dark" if dark else "?__theme=light")
    if form:
        page.goto(address)
        page.get_by_label("username").fill(user)
        page.get_by_label("password").fill(password)
        page.get_by_role("button", name=re.compile("login", re.I)).click()
    else:
        login = url.rstrip("/") + "/login"
        answer = once_more_on_reset(
            lambda: context.request.post(login, form={"username": user, "password": password})
        )
        assert answer.ok, f"the sign-in of {user} was refused: {answer.status} {answer.text()[:200]}"
        page.goto(address)
    return page


def once_more_on_reset(send: Callable[[], Any]) -> Any:
    """``send()``, sent once more when the server reset the connection before answering.

    A request sent on a kept-alive connection just as the server closes it for being idle gets
    "read ECONNRESET" (seen once in CI's way, on a loaded machine): it never reached the app, so it
    is sent again. Any other failure, or a second reset, is raised.
    """
    from playwright.sync_api import Error

    try:
        return send()
    except Error as exc:
        if "ECONNRESET" not in str(exc):
            raise
    return send()


def sign_in(
    browser: Any, url: str, user: str, password: str, width: int = 1440, *, form: bool = False
) -> Any:
    """:func:`signed_in_page` on the Items tab, once the review panel names ``user``."""
    return sign_in_all(browser, url, [(user, password)], width, form=form)[0]


def sign_in_all(
    browser: Any,
    url: str,
    users: Sequence[tuple[str, str]],
    width: int = 1440,
    *,
    height: int = 1100,
    form: bool = False,
) -> list[Any]:
    """:func:`sign_in` of each (user, password), their apps starting up side by side.

    Every page is opened first, then each waited for: a story's reviewers are not signed in one
    after another's start-up (seconds each on two loaded cores). ``form``: the first signs in
    through the login page.
    """
    viewport = {"width": width, "height": height}
    pages = [
        signed_in_page(browser, url, user, password, viewport=viewport, form=form and i == 0)
        for i, (user, password) in enumerate(users)
    ]
    for page, (user, _) in zip(pages, users, strict=True):
        signed_in_items(page, user)
    return pages


def signed_in_items(page: Any, user: str) -> None:
    """Wait until ``page`` shows the Items tab and its review panel names ``user``."""
    from playwright.sync_api import expect

    open_items(page)
    expect(page.locator("#rv-who")).to_contain_text(f"Signed in as {user}", timeout=WAIT)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import app
    from analysis.load.catalog import load_manifest

    catalog = load_manifest(_hostile_manifest(tmp_path_factory.mktemp("hostile")))
    assert not catalog.errors, catalog.errors
    with running_app(catalog, lambda: app.build_app(catalog)) as url:
        yield url


LUMINANCE_JS = """
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const behind = (el) => {  // the first opaque background from el up
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const contrast = (color, bg) => {
    const fg = lum(rgb(color).slice(0, 3)), b = lum(bg);
    return (Math.max(fg, b) + 0.05) / (Math.min(fg, b) + 0.05);
  };
"""
"""Helpers of the contrast checks below: WCAG's relative luminance and the page behind an element."""

CONTRAST_JS = (
    """(selectors) => {"""
    + LUMINANCE_JS
    + """
  const out = {};
  for (const sel of selectors) {
    const el = [...document.querySelectorAll(sel)].find((e) => e.offsetParent !== null);
    if (!el) continue;
    out[sel] = contrast(getComputedStyle(el).color, behind(el));
  }
  return out;
}"""
)
