"""Keyboard shortcuts and media syncing: a script for ``launch(head=...)`` plus its on-screen legend.

Gradio has no hotkeys, so one document-level listener clicks the app's own buttons by ``elem_id``
(the same code path as a mouse click) and ignores keys typed into any text field, select or
editable element. A second listener keeps a silent video and its separate audio track (an item
whose picture and sound are two files) playing, pausing and seeking together; media events do not
bubble, so it listens in the capture phase, which also covers players rendered after the page loaded.
"""

from __future__ import annotations

NEXT_ID = "next-item"
PREV_ID = "prev-item"
MEDIA_ID = "media"

KEYS: tuple[tuple[str, str], ...] = (
    ("j", "next item"),
    ("k", "previous item"),
    ("space", "play / pause"),
)
"""Each key has one meaning everywhere: the keys that move are not letters a label uses (``n`` moved
on when no panel was shown and meant *no* when one was; issue 20)."""

REVIEW_KEYS: tuple[tuple[str, str], ...] = (
    ("y / n", "gold yes / no (or the yes / no part of a two-part gold)"),
    ("a-d / 1-4", "gold letter, or the choice it starts / its place (a letter set: toggle one)"),
    ("l", "the text part of a two-part gold"),
    ("enter", "save"),
    ("s", "save and next"),
    ("u", "undo the last save"),
    ("r", "confirm the gold (a verdict on a suspect)"),
    ("f", "flags"),
)
"""Keys active only while the review panel is shown."""

TYPING_JS = """(el) => !!el && (el.isContentEditable || /^(TEXTAREA|SELECT)$/.test(el.tagName)
    || (el.tagName === 'INPUT' && !['radio', 'checkbox', 'range', 'button', 'submit', 'reset', 'color',
                                     'file'].includes(el.type)))"""
"""The one rule of every tab: only a field one types into swallows keys (a clicked radio, checkbox
or button does not)."""

HEAD = f"""
<script>
(() => {{
  const clickers = {{j: "{NEXT_ID}", k: "{PREV_ID}"}};
  const typing = {TYPING_JS};
  const visible = (el) => !!el && (el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null);
  const button = (id) => {{
    const el = document.getElementById(id);
    return el && el.tagName !== "BUTTON" ? el.querySelector("button") : el;
  }};
  const press = (id) => {{ const b = button(id); if (b) b.click(); return !!b; }};
  const inputs = (id) => {{
    const box = document.getElementById(id);
    return visible(box) ? [...box.querySelectorAll("input")] : [];
  }};
  const pickFirst = (id, letter) => {{
    // the one choice that starts with the letter (a choice of orders: a = AB, b = BA)
    const found = inputs(id).filter((x) => x.value.toLowerCase().startsWith(letter));
    if (found.length === 1) {{ found[0].click(); return true; }}
    return false;
  }};
  const pick = (id, value) => {{
    // radios carry their choice as value, Gradio's checkbox groups as name
    const choice = (x) => (x.type === "checkbox" ? x.name : x.value).toLowerCase();
    const r = inputs(id).find((x) => choice(x) === value.toLowerCase());
    if (r) {{ r.click(); return true; }}
    return false;
  }};
  const nth = (id, k) => {{
    const r = inputs(id)[Number(k) - 1];
    if (r) r.click();
    return !!r;
  }};
  const reviewKey = (e) => {{
    const k = e.key;
    if (k === "Enter") return press("rv-save-only");
    if (k === "s") return press("rv-save");
    if (k === "u") return press("rv-undo");
    if (k === "r") return press("rv-confirm");
    if (k === "f") {{ const c = document.querySelector("#rv-flags input"); if (c) c.focus(); return !!c; }}
    if (k === "l") {{
      const box = document.querySelector("#rv-part-text input, #rv-part-text textarea");
      if (visible(box)) {{ box.focus(); return true; }}
      return false;
    }}
    if (k === "y" || k === "n") {{
      const word = k === "y" ? "yes" : "no";
      return pick("rv-gold", word) || pick("rv-part-choice", word);
    }}
    if (inputs("rv-letters").length) {{
      if (/^[a-z]$/.test(k)) return pick("rv-letters", k.toUpperCase());
      if (/^[1-9]$/.test(k)) return nth("rv-letters", k);
    }}
    if (/^[1-9]$/.test(k)) return nth("rv-gold", k);
    if (/^[a-z]$/.test(k)) return pick("rv-gold", k.toUpperCase()) || pickFirst("rv-gold", k);
    return false;
  }};
  document.addEventListener("keydown", (e) => {{
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const panel = document.getElementById("rv-panel");
    const shown = visible(panel);
    // Enter in a one-line field of the review panel saves too (a multi-line field takes the newline)
    if (e.key === "Enter" && shown && e.target instanceof HTMLInputElement && panel.contains(e.target)
        && typing(e.target)) {{ e.preventDefault(); press("rv-save-only"); return; }}
    if (typing(e.target) || typing(document.activeElement)) return;
    if (shown && reviewKey(e)) {{ e.preventDefault(); return; }}
    const id = clickers[e.key];
    if (id) {{ const b = button(id); if (b) {{ b.click(); e.preventDefault(); }} return; }}
    if (e.key === " ") {{
      // a focused player plays or pauses itself (toggling it here too undid that)
      if (e.target instanceof HTMLMediaElement) return;
      const media = document.querySelector("#{MEDIA_ID} video, #{MEDIA_ID} audio");
      if (!media) return;
      // not a second click of a focused button, nor a clicked checkbox toggled again
      e.preventDefault();
      if (media.paused) media.play(); else media.pause();
    }}
  }});
  const partners = (el) => {{
    const group = el.dataset && el.dataset.sync;
    if (!group) return [];
    return [...document.querySelectorAll(`[data-sync="${{group}}"]`)].filter((m) => m !== el);
  }};
  // Each partner is brought to the state its leader is in now, never to what an event said, and
  // the events our own calls cause are counted and skipped. A play() on a paused element fires
  // exactly one "play", a pause() on a playing one exactly one "pause"; so a partner's echo handled
  // late (a loaded machine) can never undo what the reviewer did since, and no flag or timer is
  // needed to stop the two from pinging each other.
  const echoes = new WeakMap();
  const expect = (el, type) => {{
    const n = echoes.get(el) || {{}};
    n[type] = (n[type] || 0) + 1;
    echoes.set(el, n);
  }};
  const isEcho = (el, type) => {{
    const n = echoes.get(el);
    if (!n || !n[type]) return false;
    n[type] -= 1;
    return true;
  }};
  const follow = {{
    play: (el, o) => {{
      if (el.paused || !o.paused) return;
      expect(o, "play");
      // refused outright (no "play" fired): nothing will come to skip
      o.play().catch((err) => {{ if (err && err.name === "NotAllowedError") isEcho(o, "play"); }});
    }},
    pause: (el, o) => {{ if (el.paused && !o.paused) {{ expect(o, "pause"); o.pause(); }} }},
    seeked: (el, o) => {{
      if (Math.abs(o.currentTime - el.currentTime) > 0.2) o.currentTime = el.currentTime;
    }},
    ratechange: (el, o) => {{ if (o.playbackRate !== el.playbackRate) o.playbackRate = el.playbackRate; }},
  }};
  for (const [type, bring] of Object.entries(follow)) {{
    document.addEventListener(type, (e) => {{
      const el = e.target;
      if (!(el instanceof HTMLMediaElement)) return;
      if ((type === "play" || type === "pause") && isEcho(el, type)) return;
      for (const other of partners(el)) {{
        if (type === "play") follow.seeked(el, other);
        bring(el, other);
      }}
    }}, true);
  }}
  // A last safety net: while a video plays, a paused partner that has not ended is started again
  // (checked on the video's own timeupdate, about four times a second). Only a video leads here,
  // so a reviewer pausing the wav itself still pauses the video through the handlers above.
  document.addEventListener("timeupdate", (e) => {{
    const el = e.target;
    if (!(el instanceof HTMLVideoElement) || el.paused) return;
    for (const other of partners(el)) if (other.paused && !other.ended) follow.play(el, other);
  }}, true);
}})();
</script>
"""


CONFIRM_KEY = "r"
"""The key of the *Confirm gold* button, which a blind reviewer is not shown."""


def legend_markdown(*, reviewing: bool = False, confirms: bool = True) -> str:
    """The on-screen legend of the shortcuts.

    ``reviewing``: the viewer may save labels (a visitor or a read-only demo is not told the
    reviewing keys, which do nothing for them); ``confirms``: they are shown *Confirm gold*.
    """
    keys = " · ".join(f"`{k}` {what}" for k, what in KEYS)
    legend = f"**Keys** {keys} (ignored while typing in a field)"
    if not reviewing:
        return legend
    review = " · ".join(f"`{k}` {what}" for k, what in REVIEW_KEYS if confirms or k != CONFIRM_KEY)
    return f"{legend}\n\n**Reviewing** {review}"
