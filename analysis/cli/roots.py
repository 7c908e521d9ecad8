"""``--media-root BENCH=DIR``: the folders each benchmark's media paths resolve against."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from analysis.benchmarks import get
from analysis.errors import UsageError


def media_roots(values: Sequence[str]) -> dict[str, list[Path]]:
    """Parse ``--media-root BENCH=DIR`` options into folders per benchmark id."""
    roots: dict[str, list[Path]] = {}
    for value in values:
        bench, sep, folder = value.partition("=")
        if not sep or not folder:
            raise UsageError(f"--media-root expects BENCH=DIR, got {value!r}")
        if not Path(folder).is_dir():
            what = "is a file, not a folder" if Path(folder).exists() else "no such folder"
            raise UsageError(f"--media-root {value!r}: {what}")
        roots.setdefault(get(bench).NAME, []).append(Path(folder))
    return roots
