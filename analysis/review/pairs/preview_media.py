"""Reading clips with moviepy 2 and writing thumbnails and side-by-side previews (see .previews).

Every clip is opened through :func:`open_clip`, which closes it completely: moviepy's reader
leaves the ffmpeg pipes open when the process has already ended (it read to the end of the
file), which shows up as a ResourceWarning later, at garbage collection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

MediaStatus = Literal["ok", "missing", "unreadable"]
Pad = Literal["hold", "black"]


@dataclass(frozen=True)
class MediaInfo:
    """What :func:`probe` found out about one video."""

    path: Path
    status: MediaStatus
    duration: float | None = None
    """Seconds."""
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    message: str = ""
    """Why the video is missing or unreadable ("" when it is fine)."""


@contextmanager
def open_clip(path: Path, height: int | None = None) -> Iterator[Any]:
    """A moviepy ``VideoFileClip`` (no audio) that is fully closed on exit, pipes included.

    With ``height``, ffmpeg scales the frames while decoding (keeping the aspect ratio), far
    cheaper than decoding at full size and resizing each frame in Python.
    """
    from moviepy import VideoFileClip

    clip = VideoFileClip(str(path), audio=False, target_resolution=(None, height) if height else None)
    proc = getattr(clip.reader, "proc", None)
    try:
        yield clip
    finally:
        clip.close()
        if proc is not None:  # moviepy skips these when ffmpeg has already exited
            for stream in (proc.stdout, proc.stderr):
                if stream is not None and not stream.closed:
                    stream.close()
            if proc.poll() is None:
                proc.terminate()
            proc.wait()


def probe(path: Path) -> MediaInfo:
    """Whether a video is there and decodes (its first frame), and its duration, size and fps.

    Never raises for a bad file: a missing path gives status ``missing``, anything ffmpeg
    cannot open or decode gives ``unreadable`` with ffmpeg's reason in ``message``.
    """
    if not path.is_file():
        return MediaInfo(path, "missing", message=f"{path.name}: no such file")
    try:
        with open_clip(path) as clip:
            clip.get_frame(0)
            width, height = (int(v) for v in clip.size)
            return MediaInfo(path, "ok", float(clip.duration), width, height, float(clip.fps))
    except Exception as exc:  # moviepy raises OSError, KeyError, IndexError... for broken files
        return MediaInfo(path, "unreadable", message=f"{path.name}: {_reason(exc)}")


def _reason(exc: Exception) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    useful = [ln for ln in lines if "Invalid data" in ln or "moov atom" in ln or "error" in ln.lower()]
    return (useful or lines or [type(exc).__name__])[-1][:200]


def last_time(clip: Any) -> float:
    """Time of the last frame that surely decodes (moviepy warns, or fails, reading past it)."""
    return max(0.0, float(clip.duration) - 1.0 / float(clip.fps or 25))


def write_thumbnails(path: Path, targets: Sequence[Path], width: int) -> None:
    """First, middle and last frame of a video as JPEGs ``width`` pixels wide."""
    from PIL import Image

    with open_clip(path) as clip:
        end = last_time(clip)
        for t, target in zip((0.0, end / 2, end), targets, strict=True):
            image = Image.fromarray(clip.get_frame(t))
            height = max(1, round(image.height * width / image.width))
            image.resize((width, height), Image.Resampling.BILINEAR).save(target, "JPEG", quality=82)


def write_side_by_side(
    paths: Sequence[Path],
    target: Path,
    *,
    height: int,
    pad: Pad,
    fps: float | None,
    progress: Callable[[float], None],
) -> None:
    """Encode the clips side by side at one height, each padded in time to the longest one.

    ``pad="hold"`` shows a shorter clip's last frame until the end, ``"black"`` a black panel.
    """
    from moviepy import VideoClip

    height += height % 2  # H.264 in yuv420p needs even sizes
    with ExitStack() as stack:
        sources = [stack.enter_context(open_clip(p, height)) for p in paths]
        ends = [last_time(clip) for clip in sources]
        widths = [int(clip.w) + int(clip.w) % 2 for clip in sources]
        duration = max(float(clip.duration) for clip in sources)
        rate = fps or min(30.0, max(float(clip.fps or 25) for clip in sources))
        done = [0.0]

        def frame(t: float) -> np.ndarray:
            parts = []
            for end, width, clip in zip(ends, widths, sources, strict=True):
                if pad == "black" and t > float(clip.duration):
                    parts.append(np.zeros((height, width, 3), dtype=np.uint8))
                    continue
                image = np.asarray(clip.get_frame(min(t, end)), dtype=np.uint8)[:height, :width, :3]
                fill = ((0, height - image.shape[0]), (0, width - image.shape[1]), (0, 0))
                parts.append(np.pad(image, fill))
            done[0] = max(done[0], min(1.0, t / duration if duration else 1.0))
            progress(done[0])
            return np.hstack(parts)

        out = VideoClip(frame_function=frame, duration=duration)
        out.write_videofile(
            str(target),
            fps=rate,
            codec="libx264",
            audio=False,
            preset="ultrafast",
            logger=None,
            ffmpeg_params=["-movflags", "+faststart", "-pix_fmt", "yuv420p"],
        )
        out.close()
