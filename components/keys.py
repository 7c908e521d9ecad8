"""Keyboard shortcuts and media syncing: a script for ``launch(head=...)`` plus its on-screen legend.

Gradio has no hotkeys, so one document-level listener clicks the app's own buttons by ``elem_id``
(the same code path as a mouse click) and ignores keys typed into any text field, select or
editable element. A second listener keeps a silent video and its separate audio track (CMM
visual+audio items) playing, pausing and seeking together; media events do not bubble, so it
listens in the capture phase, which also covers players rendered after the page loaded.
"""

from __future__ import annotations

NEXT_ID = "next-item"
PREV_ID = "prev-item"
MEDIA_ID = "media"

KEYS: tuple[tuple[str, str], ...] = (
    ("n / j", "next item"),
    ("p / k", "previous item"),
    ("space", "play / pause"),
)

REVIEW_KEYS: tuple[tuple[str, str], ...] = (
    ("y / n", "gold yes / no"),
    ("a-d / 1-4", "gold letter"),
    ("s", "save and next"),
    ("u", "undo"),
    ("f", "flags"),
)
"""Keys active only while the review panel is shown (then ``n`` means *no*; ``j`` / ``k`` move)."""

HEAD = f"""
<script>
(() => {{
  const clickers = {{n: "{NEXT_ID}", j: "{NEXT_ID}", p: "{PREV_ID}", k: "{PREV_ID}"}};
  const typing = (el) => !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  const button = (id) => {{
    const el = document.getElementById(id);
    return el && el.tagName !== "BUTTON" ? el.querySelector("button") : el;
  }};
  const radios = () => [...document.querySelectorAll("#rv-gold input[type=radio]")];
  const pick = (value) => {{
    const r = radios().find((x) => x.value.toLowerCase() === value.toLowerCase());
    if (r) {{ r.click(); return true; }}
    return false;
  }};
  const reviewKey = (e) => {{
    const k = e.key;
    if (k === "y") return pick("yes");
    if (k === "n") return pick("no");
    if (/^[1-9]$/.test(k)) {{
      const r = radios()[Number(k) - 1];
      if (r) r.click();
      return !!r;
    }}
    if (/^[a-e]$/.test(k)) return pick(k.toUpperCase());
    if (k === "s") {{ const b = button("rv-save"); if (b) b.click(); return !!b; }}
    if (k === "u") {{ const b = button("rv-undo"); if (b) b.click(); return !!b; }}
    if (k === "f") {{ const c = document.querySelector("#rv-flags input"); if (c) c.focus(); return !!c; }}
    return false;
  }};
  document.addEventListener("keydown", (e) => {{
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || typing(document.activeElement)) return;
    const id = clickers[e.key];
    const panel = document.getElementById("rv-panel");
    if (panel && panel.offsetParent !== null && reviewKey(e)) {{ e.preventDefault(); return; }}
    if (id) {{ const b = button(id); if (b) {{ b.click(); e.preventDefault(); }} return; }}
    if (e.key === " ") {{
      const media = document.querySelector("#{MEDIA_ID} video, #{MEDIA_ID} audio");
      if (!media) return;
      e.preventDefault();
      if (media.paused) media.play(); else media.pause();
    }}
  }});
  const partners = (el) => {{
    const group = el.dataset && el.dataset.sync;
    if (!group) return [];
    return [...document.querySelectorAll(`[data-sync="${{group}}"]`)].filter((m) => m !== el);
  }};
  for (const type of ["play", "pause", "seeked", "ratechange"]) {{
    document.addEventListener(type, (e) => {{
      const el = e.target;
      if (!(el instanceof HTMLMediaElement) || el.dataset.syncing) return;
      for (const other of partners(el)) {{
        other.dataset.syncing = "1";
        if (Math.abs(other.currentTime - el.currentTime) > 0.2) other.currentTime = el.currentTime;
        other.playbackRate = el.playbackRate;
        if (type === "play" && other.paused) other.play().catch(() => {{}});
        if (type === "pause" && !other.paused) other.pause();
        setTimeout(() => delete other.dataset.syncing, 50);
      }}
    }}, true);
  }}
}})();
</script>
"""


def legend_markdown() -> str:
    """The on-screen legend of the shortcuts."""
    keys = " · ".join(f"`{k}` {what}" for k, what in KEYS)
    review = " · ".join(f"`{k}` {what}" for k, what in REVIEW_KEYS)
    return (f"**Keys** {keys} (ignored while typing in a field)\n\n"
            f"**Reviewing** {review} (`n` is *no* while the review panel is shown; `j`/`k` move)")
