"""Test-wide settings."""

import asyncio
import os
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

# Tables cached by `serve` (and anything else using the default cache folder) go to a throwaway
# folder, never the user's ~/.cache.
os.environ.setdefault("HALLUSCOPE_CACHE_DIR", tempfile.mkdtemp(prefix="halluscope-cache-"))
# The default label store is a per-user folder (analysis.store.db.default_data_dir): a test that
# opens it, or a server it starts, writes into a throwaway one, never the user's.
os.environ.setdefault("HALLUSCOPE_DATA_DIR", tempfile.mkdtemp(prefix="halluscope-data-"))

# In CI the property tests draw the same examples every run (derandomize), so a red build always
# reproduces; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def _loop_left_set() -> asyncio.AbstractEventLoop | None:
    """The open event loop this thread's policy holds as current, without making one (None if none)."""
    local = getattr(asyncio.get_event_loop_policy(), "_local", None)
    loop = getattr(local, "_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) and not loop.is_closed() else None


@pytest.fixture(autouse=True)
def _no_gradio_loop_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test that leaves an open event loop set, not whichever test later frees it.

    Building a Gradio app leaves its loop set as current (``tests/app_data.py``,
    ``close_gradio_loop``); freed by the collector during another test, it failed that test with an
    unraisable ResourceWarning, at random under ``-n 2``. Browser tests run Playwright's own loop.
    """
    before = _loop_left_set()
    yield
    if "browser" in request.node.nodeid.split("/"):
        return
    after = _loop_left_set()
    if after is not None and after is not before:
        from app_data import release_gradio_loops

        release_gradio_loops()
        pytest.fail("this test left an open event loop set (a Gradio app built without close_gradio_loop?)")
