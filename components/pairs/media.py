"""Media jobs of the pair tab: clip thumbnails and the side-by-side preview, never blocking the UI.

Both run on :class:`~.previews.MediaJobs` workers: a handler submits and returns at once,
and a ``gr.Timer`` polls :func:`poll_preview` / :func:`poll_thumbnails` until the jobs end.
Thumbnails are inlined as data URIs (small JPEGs), so the preview cache needs no web route; the
preview file is copied to the temp folder Gradio serves downloads from.
"""

from __future__ import annotations

import base64
import shutil
from html import escape

from components.pairs.handlers import PairsContext, Refused, _out_dir, panels


def start_preview(ctx: PairsContext, pair_id: str) -> str:
    """Queue the pair's side-by-side preview; the job id (returns at once)."""
    if ctx.jobs is None:
        raise Refused("Previews are off (no preview folder).")
    paths = [p.path for p in panels(ctx, pair_id) if p.status == "ok" and p.path is not None]
    if len(paths) < 2:
        raise Refused("A preview needs at least two readable clips.")
    return ctx.jobs.submit_preview(paths)


def poll_preview(ctx: PairsContext, job_id: str) -> tuple[str, str | None, bool]:
    """(status line, file to download when ready, finished) of a preview job."""
    if ctx.jobs is None or not job_id:
        return "", None, True
    status = ctx.jobs.status(job_id)
    if not status.finished:
        return f"Preview {status.state}: {status.progress:.0%}", None, False
    if status.state != "done" or not status.outputs:
        return f"Preview failed: {status.message or status.state}", None, True
    copy = _out_dir() / status.outputs[0].name
    shutil.copyfile(status.outputs[0], copy)
    return "Preview ready (download below).", str(copy), True


def start_thumbnails(ctx: PairsContext, pair_id: str) -> dict[str, str]:
    """Queue first / middle / last frames of each readable clip: {clip id: job id}."""
    if ctx.jobs is None:
        return {}
    return {
        p.clip_id: ctx.jobs.submit_thumbnails(p.path)
        for p in panels(ctx, pair_id)
        if p.status == "ok" and p.path is not None
    }


def poll_thumbnails(ctx: PairsContext, jobs: dict[str, str]) -> tuple[str, bool]:
    """(thumbnail strip HTML, every job finished) for the jobs of :func:`start_thumbnails`."""
    if ctx.jobs is None or not jobs:
        return "", True
    rows, finished = [], True
    for clip, job_id in jobs.items():
        status = ctx.jobs.status(job_id)
        finished = finished and status.finished
        if status.state == "done":
            frames = zip(("first", "middle", "last"), status.outputs, strict=False)
            images = "".join(_thumb(label, clip, path.read_bytes()) for label, path in frames)
        else:
            images = f"<small>{escape(status.message or status.state)}</small>"
        rows.append(f'<div class="hs-thumbs-row"><code>{escape(clip)}</code> {images}</div>')
    style = (
        "<style>.hs-thumbs-row{display:flex;align-items:center;gap:4px;margin:4px 0}"
        ".hs-thumbs-row img{display:inline-block;height:48px;width:auto;border-radius:3px}</style>"
    )
    return style + "".join(rows), finished


def _thumb(label: str, clip: str, jpeg: bytes) -> str:
    data = base64.b64encode(jpeg).decode()
    return f'<img alt="{label} frame of {escape(clip)}" title="{label}" src="data:image/jpeg;base64,{data}">'
