"""Folders for files the app hands to a download button, removed soon after they are served.

A handler returning a file path gives Gradio a file that Gradio copies into its own cache (named
by the file's content) before the response leaves; from then on the handler's copy is never read
again. So every new folder first removes the older ones: all but the newest :data:`KEEP` (files of
requests still being answered; the export buttons run at most two at a time each), and any older
than :data:`MAX_AGE_S`. Gradio's own copies are removed by ``gr.Blocks(delete_cache=...)`` (see
``app.py``). Before this, 100 anonymous pair exports left 300 ``/tmp/halluscope-pairs-*`` folders
that nothing removed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

SCRATCH_ENV = "HALLUSCOPE_SCRATCH_DIR"
"""Where the folders go (default ``<system temp>/halluscope-scratch``, which Gradio may serve from)."""
KEEP = 8
"""Folders kept whatever their age: those of requests that may still be in flight."""
MAX_AGE_S = 600.0
"""Older folders than this are removed even when fewer than :data:`KEEP` exist."""


def scratch_root() -> Path:
    """The folder holding every scratch folder."""
    return Path(os.environ.get(SCRATCH_ENV) or Path(tempfile.gettempdir()) / "halluscope-scratch")


def fresh_dir(prefix: str) -> Path:
    """A new, empty folder for one request's files (older ones are removed first)."""
    root = scratch_root()
    root.mkdir(parents=True, exist_ok=True)
    prune(root, keep=KEEP - 1)  # with the new one, KEEP
    return Path(tempfile.mkdtemp(prefix=prefix, dir=root))


def prune(root: Path, *, keep: int = KEEP, max_age_s: float = MAX_AGE_S, now: float | None = None) -> int:
    """Remove all but the newest ``keep`` folders under ``root`` and any older than ``max_age_s``."""
    now = time.time() if now is None else now
    folders = []
    for entry in root.iterdir():
        try:
            if entry.is_dir() and not entry.is_symlink():
                folders.append((entry.stat().st_mtime, entry))
        except FileNotFoundError:  # removed by another request meanwhile
            continue
    folders.sort(reverse=True)
    removed = 0
    for rank, (mtime, folder) in enumerate(folders):
        if rank >= keep or now - mtime > max_age_s:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed
