"""A synchronised player for the clips of a pair, built from plain HTML and one script.

No third-party component: :func:`player_html` renders each clip as a ``<video>`` (or, when the
probe says the file is missing or unreadable, a box saying so instead of a broken player), plus
one set of shared controls: play / pause, a seek slider and a speed selector. :data:`PLAYER_JS`
(the ``js_on_load`` of the ``gr.HTML`` holding the player, installed once per page) drives them:
the first playable clip leads, every other clip follows it on play, pause, seeked and ratechange,
and a periodic check pulls a follower back when it drifts more than :data:`MAX_DRIFT` seconds.
Tests and the key listener reach it as ``window.hsPairPlayer`` (``play``, ``pause``, ``toggle``,
``seek(t)``, ``rate(r)``, ``times()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from components.browse.render import media_url

PLAYER_ID = "pairs-player"
MAX_DRIFT = 0.1
"""Seconds a follower may drift from the leading clip before it is pulled back."""
RATES: tuple[float, ...] = (0.25, 0.5, 1.0, 1.5, 2.0)


@dataclass(frozen=True)
class ClipPanel:
    """What the player shows of one clip."""

    clip_id: str
    letter: str
    """A, B, C: the clip's side, as the checks name it."""
    path: Path | None
    status: str
    """``ok``, ``missing`` or ``unreadable`` (from :func:`analysis.review.pairs.previews.probe`)."""
    message: str = ""
    duration: float | None = None
    action: str = ""
    caption: str = ""


def _clip_html(panel: ClipPanel) -> str:
    head = f"<b>{escape(panel.letter)}</b> · <code>{escape(panel.clip_id)}</code>"
    length = f" · {panel.duration:.2f} s" if panel.duration is not None else ""
    facts = f'<div class="hs-pair-head">{head}{length}</div>'
    if panel.action:
        facts += f'<div class="hs-pair-action">action: <b>{escape(panel.action)}</b></div>'
    if panel.caption:
        facts += f'<div class="hs-pair-caption">{escape(panel.caption)}</div>'
    if panel.status != "ok" or panel.path is None:
        why = escape(panel.message or panel.status)
        body = (
            f'<div class="hs-pair-bad" data-status="{escape(panel.status)}">'
            f"<b>{escape(panel.status)}</b><br><small>{why}</small></div>"
        )
    else:
        src = escape(media_url(panel.path), quote=True)
        body = (
            f'<video data-clip="{escape(panel.clip_id, quote=True)}" src="{src}" preload="auto" '
            "muted playsinline></video>"
        )
    return f'<figure class="hs-pair-clip">{body}<figcaption>{facts}</figcaption></figure>'


def player_html(panels: list[ClipPanel], similarity: dict[str, float] | None = None) -> str:
    """The pair's clips side by side with one set of controls (see the module docstring)."""
    if not panels:
        return '<p class="hs-none">Choose a pair.</p>'
    clips = "".join(_clip_html(p) for p in panels)
    playable = sum(p.status == "ok" and p.path is not None for p in panels)
    rates = "".join(f'<option value="{r}"{" selected" if r == 1.0 else ""}>{r:g}×</option>' for r in RATES)
    controls = (
        ""
        if not playable
        else '<div class="hs-sync-controls">'
        '<button type="button" class="hs-sync-play" aria-label="play or pause both">▶ play</button>'
        '<input type="range" class="hs-sync-seek" min="0" max="1000" step="1" value="0" '
        'aria-label="seek both clips">'
        '<span class="hs-sync-time">0.00 s</span>'
        f'<select class="hs-sync-rate" aria-label="speed">{rates}</select></div>'
    )
    scores = ""
    if similarity:
        scores = (
            '<div class="hs-pair-sim">similarity: '
            + " · ".join(f"{escape(k)} <b>{v:.3f}</b>" for k, v in sorted(similarity.items()))
            + "</div>"
        )
    return f'<div class="hs-sync">{STYLE}<div class="hs-pair-clips">{clips}</div>{controls}{scores}</div>'


STYLE = """<style>
.hs-pair-clips{display:grid;gap:12px;grid-template-columns:repeat(auto-fit,minmax(min(200px,100%),1fr))}
.hs-pair-clip{margin:0;max-width:480px;min-width:0}
.hs-pair-clip video{width:100%;background:#000;border-radius:4px;display:block}
.hs-pair-bad{width:100%;aspect-ratio:4/3;display:flex;flex-direction:column;justify-content:center;
 align-items:center;text-align:center;background:#fde8e8;color:#8a1c1c;border:1px dashed #c53030;
 border-radius:4px;padding:8px;box-sizing:border-box}
.hs-pair-clip figcaption{font-size:0.9em;margin-top:4px}
.hs-sync-controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:8px}
.hs-sync-seek{flex:1 1 120px;min-width:0}
.hs-sync .hs-sync-play,.hs-sync .hs-sync-rate{color:var(--body-text-color);
 background:var(--input-background-fill);border:1px solid var(--border-color-primary);
 border-radius:4px;padding:2px 6px;white-space:nowrap}
.hs-sync-time{font-variant-numeric:tabular-nums;min-width:5em}
.hs-pair-sim{margin-top:6px;font-size:0.9em}
</style>"""

_JS = """
if (!window.hsPairPlayer) {
  const MAX_DRIFT = __DRIFT__;
  const root = () => document.querySelector('#__ID__ .hs-sync');
  const videos = () => { const r = root(); return r ? [...r.querySelectorAll('video')] : []; };
  const lead = () => videos()[0];
  const span = () => Math.max(0, ...videos().map((v) => v.duration || 0));
  const align = () => {
    const [a, ...rest] = videos();
    if (!a) return;
    for (const v of rest) {
      const target = Math.min(a.currentTime, v.duration || a.currentTime);
      if (Math.abs(v.currentTime - target) > MAX_DRIFT / 2) v.currentTime = target;
      if (v.playbackRate !== a.playbackRate) v.playbackRate = a.playbackRate;
      const behind = a.currentTime < (v.duration || 0);
      if (!a.paused && v.paused && behind) v.play().catch(() => {});
      if (a.paused && !v.paused) v.pause();
    }
  };
  const show = () => {
    const r = root(), a = lead();
    if (!r || !a) return;
    const seek = r.querySelector('.hs-sync-seek'), time = r.querySelector('.hs-sync-time');
    const play = r.querySelector('.hs-sync-play');
    if (seek && document.activeElement !== seek && span() > 0)
      seek.value = String(Math.round(1000 * a.currentTime / span()));
    if (time) time.textContent = a.currentTime.toFixed(2) + ' s';
    if (play) play.textContent = a.paused ? '▶ play' : '❚❚ pause';
  };
  const api = {
    videos,
    times: () => videos().map((v) => v.currentTime),
    play: () => { align(); return Promise.all(videos().map((v) => v.play().catch(() => {}))).then(show); },
    pause: () => { videos().forEach((v) => v.pause()); align(); show(); },
    toggle: () => { const a = lead(); if (a) (a.paused ? api.play() : api.pause()); },
    seek: (t) => { for (const v of videos()) v.currentTime = Math.min(t, v.duration || t); show(); },
    rate: (r) => { videos().forEach((v) => { v.playbackRate = r; }); },
  };
  window.hsPairPlayer = api;
  const inside = (el) => el instanceof Element && !!el.closest('#__ID__');
  document.addEventListener('click', (e) => {
    if (inside(e.target) && e.target.closest('.hs-sync-play')) api.toggle();
  });
  document.addEventListener('input', (e) => {
    if (inside(e.target) && e.target.classList.contains('hs-sync-seek'))
      api.seek(span() * Number(e.target.value) / 1000);
  });
  document.addEventListener('change', (e) => {
    if (inside(e.target) && e.target.classList.contains('hs-sync-rate')) api.rate(Number(e.target.value));
  });
  // media events do not bubble: listen in the capture phase, for players rendered later too
  for (const type of ['play', 'pause', 'seeked', 'ratechange']) {
    document.addEventListener(type, (e) => {
      if (e.target === lead()) { align(); show(); }
    }, true);
  }
  document.addEventListener('timeupdate', (e) => { if (e.target === lead()) show(); }, true);
  setInterval(() => { const a = lead(); if (a && !a.paused) align(); }, 100);
}
"""
PLAYER_JS = _JS.replace("__ID__", PLAYER_ID).replace("__DRIFT__", str(MAX_DRIFT))
"""``js_on_load`` of the player's ``gr.HTML``: installs the sync script once per page."""
