"""A cheap media check for audits: the file exists, is not empty and its header fits.

Only the first twelve bytes are read, so thousands of clips are checked in well under a second.
(Used by the audits of the benchmarks whose gold names audio or video files.)
"""

from __future__ import annotations

from pathlib import Path

_ISO_BOXES = frozenset({b"ftyp", b"moov", b"mdat", b"free", b"wide", b"skip", b"uuid", b"pnot"})
"""Box types an MP4 / QuickTime file can open with."""


def file_problem(path: Path) -> tuple[str, str] | None:
    """``(check, detail)`` when ``path`` is missing or cannot be a playable file, else None."""
    try:
        if not path.is_file():
            return "missing-media", f"{path} does not exist"
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(12)
    except OSError as exc:
        return "unreadable-media", f"{path} cannot be opened ({exc.strerror or exc})"
    if size == 0:
        return "unreadable-media", f"{path} is empty (0 bytes)"
    suffix = path.suffix.lower()
    if suffix in {".mp4", ".m4v", ".mov", ".m4a"} and head[4:8] not in _ISO_BOXES:
        return "unreadable-media", f"{path} does not start like an MP4 file"
    if suffix == ".wav" and (head[:4] != b"RIFF" or head[8:12] != b"WAVE"):
        return "unreadable-media", f"{path} does not start like a WAV file"
    return None
