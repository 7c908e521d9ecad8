"""Media work for pair validation with moviepy 2: thumbnails, side-by-side previews, background jobs.

- :func:`probe`: is a video there, does it decode, how long and how large is it.
- :func:`thumbnails`: the first, middle and last frame of a clip as small JPEGs (pair list).
- :func:`side_by_side`: one mp4 with a pair's clips next to each other at the same height, the
  shorter ones padded to the longest (holding their last frame, or black), no audio; a
  reviewer can download it.
- :class:`MediaJobs`: runs those in a small thread pool so the app never waits on them; the UI
  submits, then polls :meth:`MediaJobs.status` (state and progress 0..1).

Outputs are cached on disk under ``cache_dir`` by content: the key hashes the bytes of the input
videos (XXH3-128, :func:`analysis.load.cache.file_digest`), the parameters and :data:`VERSION`, so a
renamed copy hits the cache and an edited file misses it. Files appear atomically (written
beside their final name, then renamed). The cache is bounded: after each new output the least
recently used files beyond :func:`cache_budget` bytes are removed (a hit counts as a use).
A missing or unreadable video never raises: the result has status ``missing`` / ``unreadable``
and a message naming the clip (the benchmark has a few such videos, e.g. ``eXMF6Skt2To_clip_3``).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import xxhash

from analysis.load.cache import file_digest
from analysis.review.pairs.preview_media import (
    MediaInfo,
    MediaStatus,
    Pad,
    probe,
    write_side_by_side,
    write_thumbnails,
)

VERSION = "1"
"""Bumped when the outputs change for the same inputs (invalidates the cache)."""
FRAMES: tuple[str, ...] = ("first", "middle", "last")
ResultStatus = Literal["ok", "missing", "unreadable", "failed"]
Progress = Callable[[float], None]


@dataclass(frozen=True)
class MediaResult:
    """What a thumbnail or preview request gave."""

    status: ResultStatus
    outputs: tuple[Path, ...] = ()
    """The files (three thumbnails first / middle / last, or one mp4); empty unless ``ok``."""
    cached: bool = False
    """The outputs were already on disk."""
    message: str = ""


BUDGET_ENV = "HALLUSCOPE_PREVIEW_MAX_MB"
DEFAULT_BUDGET_MB = 2048


def cache_budget() -> int:
    """Bytes the preview cache may hold: ``$HALLUSCOPE_PREVIEW_MAX_MB`` (default 2 GB)."""
    raw = os.environ.get(BUDGET_ENV, "")
    return int(float(raw) * 1024 * 1024) if raw.strip() else DEFAULT_BUDGET_MB * 1024 * 1024


def bound_cache(cache_dir: Path, budget: int | None = None, *, keep: Sequence[Path] = ()) -> int:
    """Remove least recently used outputs until the cache holds at most ``budget`` bytes.

    ``keep`` (the outputs just made) stay whatever their size. Returns the number removed.
    """
    budget = cache_budget() if budget is None else budget
    files = []
    for sub in ("previews", "thumbnails"):
        for path in (cache_dir / sub).glob("*/*"):
            try:
                info = path.stat()
            except FileNotFoundError:  # removed meanwhile
                continue
            if path.is_file() and not path.name.startswith("."):  # temporaries are being written
                files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files)
    kept = {p.resolve() for p in keep}
    removed = 0
    for _, size, path in sorted(files):
        if total <= budget:
            break
        if path.resolve() in kept:
            continue
        path.unlink(missing_ok=True)
        total -= size
        removed += 1
    return removed


def _hit(targets: tuple[Path, ...]) -> MediaResult:
    for target in targets:  # a use: the least recently used outputs go first
        with contextlib.suppress(OSError):
            os.utime(target)
    return MediaResult("ok", targets, cached=True)


def default_preview_dir() -> Path:
    """``$HALLUSCOPE_PREVIEW_DIR``, else ``~/.cache/halluscope/previews``."""
    env = os.environ.get("HALLUSCOPE_PREVIEW_DIR")
    return Path(env) if env else Path.home() / ".cache" / "halluscope" / "previews"


def content_key(kind: str, videos: Sequence[Path], **params: object) -> str:
    """Cache key: the kind of output, its parameters, :data:`VERSION` and the videos' bytes."""
    hasher = xxhash.xxh3_128()
    hasher.update(json.dumps([kind, VERSION, sorted(params.items())], default=str).encode())
    for video in videos:
        hasher.update(file_digest(video).encode())
    return hasher.hexdigest()


def _unusable(videos: Sequence[Path], check: bool) -> MediaResult | None:
    """A result naming the first missing (or, with ``check``, unreadable) video; None if all are fine."""
    for video in videos:
        info = probe(video) if check else (MediaInfo(video, "ok") if video.is_file() else probe(video))
        if info.status != "ok":
            return MediaResult(info.status, message=info.message)
    return None


def thumbnails(video: Path, cache_dir: Path, *, width: int = 160) -> MediaResult:
    """First, middle and last frame of ``video`` as JPEGs ``width`` pixels wide (cached)."""
    missing = _unusable([video], check=False)
    if missing is not None:
        return missing
    key = content_key("thumbnails", [video], width=width)
    folder = cache_dir / "thumbnails" / key[:2]
    targets = tuple(folder / f"{key}-{name}.jpg" for name in FRAMES)
    if all(t.is_file() for t in targets):
        return _hit(targets)
    broken = _unusable([video], check=True)
    if broken is not None:
        return broken
    folder.mkdir(parents=True, exist_ok=True)
    temps = [t.with_name(f".{uuid.uuid4().hex}{t.name}") for t in targets]
    return _publish(lambda: write_thumbnails(video, temps, width), temps, targets, cache_dir)


def side_by_side(
    videos: Sequence[Path],
    cache_dir: Path,
    *,
    height: int = 360,
    pad: Pad = "hold",
    fps: float | None = None,
    progress: Progress | None = None,
) -> MediaResult:
    """An mp4 of ``videos`` side by side at ``height`` pixels, padded to the longest (cached)."""
    if not videos:
        return MediaResult("failed", message="no videos to put side by side")
    missing = _unusable(videos, check=False)
    if missing is not None:
        return missing
    key = content_key("side_by_side", videos, height=height, pad=pad, fps=fps)
    target = cache_dir / "previews" / key[:2] / f"{key}.mp4"
    if target.is_file():
        return _hit((target,))
    broken = _unusable(videos, check=True)
    if broken is not None:
        return broken
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{uuid.uuid4().hex}.mp4")  # ffmpeg picks the format by extension
    report = progress or (lambda _: None)
    return _publish(
        lambda: write_side_by_side(videos, temp, height=height, pad=pad, fps=fps, progress=report),
        [temp],
        (target,),
        cache_dir,
    )


def _publish(
    build: Callable[[], None], temps: Sequence[Path], targets: tuple[Path, ...], cache_dir: Path
) -> MediaResult:
    """Run ``build`` into the temporary files, move them into place, keep the cache in budget."""
    try:
        build()
        for temp, target in zip(temps, targets, strict=True):
            os.replace(temp, target)
    except Exception as exc:  # an encoder or decoder failing mid-way: report it, never raise
        return MediaResult("failed", message=f"{type(exc).__name__}: {str(exc).strip()[:300]}")
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
    bound_cache(cache_dir, keep=targets)
    return MediaResult("ok", targets)


JobState = Literal["queued", "running", "done", "failed", "missing", "unreadable"]
"""A job waits, runs, or ended: ``done`` (outputs ready) or the result's failure status."""


@dataclass(frozen=True)
class JobStatus:
    """A snapshot of one background job, for the UI to poll."""

    job_id: str
    kind: str
    """``thumbnails`` or ``preview``."""
    state: JobState
    progress: float = 0.0
    """0..1; thumbnails jump from 0 to 1, previews follow the frames encoded."""
    outputs: tuple[Path, ...] = ()
    cached: bool = False
    message: str = ""

    @property
    def finished(self) -> bool:
        """The job will not change any more."""
        return self.state not in ("queued", "running")


class MediaJobs:
    """A small background queue of media jobs: submitting returns at once, the UI polls the status.

    One instance per app (made by the app factory, closed on shutdown; no module-level state).
    The same request submitted while it is still queued or running gets the same job id, so a
    reviewer clicking twice does not build the preview twice.
    """

    def __init__(self, cache_dir: Path | None = None, *, workers: int = 2, keep: int = 1000) -> None:
        self.cache_dir = cache_dir or default_preview_dir()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="halluscope-media")
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, JobStatus] = OrderedDict()
        self._futures: dict[str, Future[None]] = {}
        self._pending: dict[str, str] = {}
        self._keep = keep

    def submit_thumbnails(self, video: Path, *, width: int = 160) -> str:
        """Queue the thumbnails of one clip; returns the job id."""
        return self._submit(
            "thumbnails",
            ["thumbnails", str(video), width],
            lambda _: thumbnails(video, self.cache_dir, width=width),
        )

    def submit_preview(
        self, videos: Sequence[Path], *, height: int = 360, pad: Pad = "hold", fps: float | None = None
    ) -> str:
        """Queue the side-by-side preview of a pair's clips; returns the job id."""
        clips = list(videos)
        return self._submit(
            "preview",
            ["preview", *map(str, clips), height, pad, fps],
            lambda report: side_by_side(
                clips, self.cache_dir, height=height, pad=pad, fps=fps, progress=report
            ),
        )

    def status(self, job_id: str) -> JobStatus:
        """The job's current state and progress (an unknown id reads as a failed job)."""
        with self._lock:
            found = self._jobs.get(job_id)
        return found or JobStatus(job_id, "", "failed", message="unknown job")

    def wait(self, job_id: str, timeout: float | None = None) -> JobStatus:
        """Block until the job ends (for scripts and tests; the UI polls :meth:`status`)."""
        future = self._futures.get(job_id)
        if future is not None:
            future.result(timeout=timeout)
        return self.status(job_id)

    def close(self) -> None:
        """Stop taking jobs, cancel queued ones and wait for running ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            for job_id, job in self._jobs.items():
                if job.state == "queued":
                    self._jobs[job_id] = replace(job, state="failed", message="cancelled")

    def __enter__(self) -> MediaJobs:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _submit(self, kind: str, request: list[object], work: Callable[[Progress], MediaResult]) -> str:
        signature = json.dumps(request, default=str)
        with self._lock:
            running = self._pending.get(signature)
            if running is not None:
                return running
            job_id = uuid.uuid4().hex
            self._jobs[job_id] = JobStatus(job_id, kind, "queued")
            self._pending[signature] = job_id
            self._evict()
            self._futures[job_id] = self._pool.submit(self._run, job_id, signature, work)
        return job_id

    def _run(self, job_id: str, signature: str, work: Callable[[Progress], MediaResult]) -> None:
        self._update(job_id, state="running")
        try:
            result = work(lambda value: self._update(job_id, progress=round(min(max(value, 0.0), 1.0), 4)))
        except Exception as exc:  # a bug must not kill the worker silently: show it as the job's failure
            result = MediaResult("failed", message=f"{type(exc).__name__}: {exc}"[:300])
        state: JobState = "done" if result.status == "ok" else result.status
        self._update(
            job_id,
            state=state,
            outputs=result.outputs,
            cached=result.cached,
            message=result.message,
            **({"progress": 1.0} if state == "done" else {}),
        )
        with self._lock:
            self._pending.pop(signature, None)
            self._futures.pop(job_id, None)

    def _update(self, job_id: str, **changes: object) -> None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                self._jobs[job_id] = replace(job, **changes)  # type: ignore[arg-type]

    def _evict(self) -> None:
        """Forget the oldest finished jobs beyond ``keep`` (their files stay in the cache)."""
        finished = [j for j, job in self._jobs.items() if job.finished]
        for job_id in finished[: max(0, len(self._jobs) - self._keep)]:
            del self._jobs[job_id]


__all__ = [
    "FRAMES",
    "VERSION",
    "JobState",
    "JobStatus",
    "MediaInfo",
    "MediaJobs",
    "MediaResult",
    "MediaStatus",
    "Pad",
    "bound_cache",
    "cache_budget",
    "content_key",
    "default_preview_dir",
    "probe",
    "side_by_side",
    "thumbnails",
]
