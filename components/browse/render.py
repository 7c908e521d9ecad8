"""HTML for the inspector, built from :mod:`analysis.query` objects. Pure functions, no Gradio.

Every piece of text that comes from a data file (questions, answers, captions, paths, model names)
goes through :func:`html.escape`: a model answer holding ``<img onerror=...>`` is shown as text,
never run. Media URLs point at Gradio's file route and only for files the resolver found inside a
configured media root.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from analysis.benchmarks.base import GoldKind, SpanView
from analysis.benchmarks.shared.kinds import TEXT
from analysis.files.media import MediaResolver
from analysis.query import ItemDetail, MediaRef, OtherAnswer
from components.media_route import FILE_ROUTE, alias_url

SPAN_CLASSES = {"hit": "hs-hit", "false alarm": "hs-fa", "miss": "hs-miss", "not compared": "hs-nc"}


_MARKDOWN_MARKUP = re.compile(r"([\\`*\[\]~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=//))")
"""What turns text into Markdown markup: escapes, code, emphasis, links and images, strike-through,
autolinks; ``_`` inside a word (``cs_acc``) is left alone, as CommonMark does."""


def md_text(value: object) -> str:
    """Text from a data file or a reviewer, shown as itself inside ``gr.Markdown``.

    HTML is escaped (Gradio's sanitiser still renders ``<b>``, ``<img>``, ``<a>``) and Markdown
    markup backslash-escaped, so a name like ``[x](http://…)`` or ``**x**`` is not a link or bold.
    """
    return _MARKDOWN_MARKUP.sub(r"\\\1", escape(str(value), quote=False))


def md_code(value: object) -> str:
    """:func:`md_text` in a code font.

    A backtick span would end at a backtick in the value; inside an inline ``<code>`` tag
    Markdown still reads links, so the text is escaped as it is outside one.
    """
    return f"<code>{md_text(value)}</code>"


def media_url(path: Path) -> str:
    """URL at which the Gradio server serves ``path`` (which must be inside an allowed root).

    A file under the server's working folder is named relative to it (Gradio's route reads a
    relative path from there), so the page does not show where the server keeps its files: on a
    Space, say, the app's folder. A file elsewhere is named by a token
    (:func:`components.media_route.alias_url`), never by its absolute path.
    """
    try:
        shown = path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return alias_url(path)
    if ":" in shown.split("/")[0]:  # "a:b/…" would read as a URL's scheme (and as the alias)
        return alias_url(path)
    return FILE_ROUTE + quote(shown, safe="/")


def _caption(ref: MediaRef) -> str:
    words = [w for w in (ref.side, ref.role) if w]
    return escape(" · ".join(dict.fromkeys(words)) or ref.kind)


def media_html(detail: ItemDetail, resolver: MediaResolver) -> str:
    """Players and images for an item and the other sides of its pair, side by side."""
    refs = sorted(detail.media, key=lambda r: (r.side, r.kind != "video"))
    if not refs:
        return '<p class="hs-none">This item has no media.</p>'
    # A silent video and a separate audio track of the same side play together.
    sides = {r.side for r in refs}
    blocks: list[str] = []
    for index, side in enumerate(sorted(sides)):
        group = [r for r in refs if r.side == side]
        has_both = any(r.kind == "video" for r in group) and any(r.kind == "audio" for r in group)
        sync = f"hs-sync-{index}" if has_both else ""
        blocks.extend(_one_media(r, resolver.resolve(r.reference), sync) for r in group)
    return f'<div class="hs-media-row">{"".join(blocks)}</div>'


def _one_media(ref: MediaRef, path: Path | None, sync: str) -> str:
    caption = f"<figcaption>{_caption(ref)}</figcaption>"
    if path is None:
        return (
            f'<figure class="hs-media hs-missing">{caption}'
            f"<p>Not found under the media roots: <code>{escape(ref.reference)}</code></p></figure>"
        )
    src = escape(media_url(path), quote=True)
    sync_attr = f' data-sync="{sync}"' if sync else ""
    if ref.kind == "video":
        player = f'<video controls preload="metadata" src="{src}"{sync_attr}></video>'
    elif ref.kind == "audio":
        player = f'<audio controls preload="metadata" src="{src}"{sync_attr}></audio>'
    else:
        player = f'<img src="{src}" alt="{escape(ref.role or "image", quote=True)}" loading="lazy">'
    return f'<figure class="hs-media hs-{escape(ref.kind)}">{caption}{player}</figure>'


def _row(label: str, value: str, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<tr><th>{escape(label)}</th><td{cls}>{value}</td></tr>"


def _verdict_class(verdict: str) -> str:
    return {"correct": "hs-correct", "wrong": "hs-wrong"}.get(verdict, "hs-unscored")


def answer_html(detail: ItemDetail) -> str:
    """The raw answer with the parser's reading marked."""
    if detail.fields.get("raw_answer") is None:
        return '<p class="hs-none">No answer in the file.</p>'
    body = "".join(
        f'<mark class="hs-parsed">{escape(t)}</mark>' if hit else escape(t) for t, hit in detail.answer_pieces
    )
    return f'<div class="hs-answer">{body}</div>'


def _text(value: object, empty: str = "") -> str:
    return escape(str(value)) if value is not None and value != "" else empty


def item_html(detail: ItemDetail, *, kind: GoldKind = TEXT, options: list[str] | None = None) -> str:
    """Question, options, answer with its reading, gold and verdicts of one row.

    ``kind`` is the item's gold kind (its benchmark says). A ``tagged`` item's text and tags are
    shown by the span view, so here only the verdicts and the model's raw output (folded) appear;
    a kind with facts of its own gets them (:func:`task_html`). ``options``: the answer options
    the benchmark keeps outside the ``options`` column, shown when that column is empty.
    """
    f = detail.fields
    keys = ("benchmark", "model", "task", "category", "subcategory")
    where = " · ".join(escape(str(f[k])) for k in keys if f.get(k))
    parts = [
        f'<div class="hs-meta">{where}<br><code>{escape(str(f["item_id"]))}</code> '
        f'<span class="hs-source">{_text(f.get("source"))}</span></div>'
    ]
    if kind.form == "tagged":
        parts.append(_facts(detail, parsed=False, gold=False))
        raw = detail.extra.get("raw_output")
        if raw:
            parts.append(
                f'<details><summary>Raw model output</summary><div class="hs-answer">{_text(raw)}'
                "</div></details>"
            )
        return "".join(parts)
    parts.append(f'<div class="hs-question">{_text(f.get("question"))}</div>')
    options = [str(o) for o in detail.options] or list(options or [])
    if options:
        parts.append('<ul class="hs-options">' + "".join(f"<li>{escape(o)}</li>" for o in options) + "</ul>")
    parts += [answer_html(detail), _facts(detail), task_html(detail, kind), pair_html(detail)]
    return "".join(p for p in parts if p)


def gold_html(fields: dict[str, Any]) -> str:
    """The current gold; where a reviewer corrected it, marked, with the official value beside it."""
    if not fields.get("gold_corrected"):
        return _text(fields.get("gold"))
    return (
        f'<span class="hs-corrected">✎ {_text(fields.get("gold"))}</span> '
        f'<span class="hs-official">(corrected; official {_text(fields.get("official_gold"))})</span>'
    )


def _facts(detail: ItemDetail, *, parsed: bool = True, gold: bool = True) -> str:
    f = detail.fields
    rows = []
    if parsed:
        rows.append(_row("parsed", _text(f.get("parsed"), "(unparsed)")))
    if gold:
        rows.append(_row("gold", gold_html(f)))
    rows.append(_row("verdict", escape(detail.verdict), _verdict_class(detail.verdict)))
    if f.get("alt_parser"):
        alt = _text(f.get("alt_parsed"), "(unparsed)") if parsed else ""
        arrow = f"{alt} → " if alt else ""
        rows.append(
            _row(
                f"{f['alt_parser']} parser",
                f"{arrow}{escape(detail.alt_verdict)}",
                _verdict_class(detail.alt_verdict),
            )
        )
    return f'<table class="hs-facts">{"".join(rows)}</table>'


def task_html(detail: ItemDetail, kind: GoldKind) -> str:
    """The facts the item's gold kind adds (both orders of an order, a scene change...), escaped."""
    if kind.facts is None:
        return ""
    rows = "".join(_row(label, escape(text)) for label, text in kind.facts(detail.fields, detail.extra))
    return f'<table class="hs-facts hs-task">{rows}</table>'


def pair_html(detail: ItemDetail) -> str:
    """The other sides of the item's pair, same model."""
    if not detail.pair:
        return ""
    rows = "".join(
        f"<tr><td>{escape(str(p['side']))}</td><td>{escape(_clip(p['raw_answer']))}</td>"
        f"<td>{escape(str(p['parsed'] or ''))}</td><td>{escape(str(p['gold'] or ''))}</td>"
        f'<td class="{_verdict_class(p["verdict"])}">{escape(p["verdict"])}</td></tr>'
        for p in detail.pair
    )
    return (
        '<h4>Other side of the pair</h4><table class="hs-others"><tr><th>side</th><th>answer</th>'
        f"<th>parsed</th><th>gold</th><th>verdict</th></tr>{rows}</table>"
    )


def _clip(text: object, width: int = 200) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= width else value[: width - 1] + "…"


def others_html(others: list[OtherAnswer]) -> str:
    """Every other model's answer to the same item."""
    if not others:
        return '<p class="hs-none">No other model answered this item.</p>'
    rows = "".join(
        f"<tr><td>{escape(o.model)}</td><td>{escape(_clip(o.raw_answer))}</td>"
        f"<td>{_text(o.parsed, '(unparsed)')}</td>"
        f'<td class="{_verdict_class(o.verdict)}">{escape(o.verdict)}</td>'
        f'<td class="{_verdict_class(o.alt_verdict)}">{escape(o.alt_verdict)}</td></tr>'
        for o in others
    )
    return (
        '<table class="hs-others"><tr><th>model</th><th>answer</th><th>parsed</th><th>verdict</th>'
        f"<th>alt. parser</th></tr>{rows}</table>"
    )


def spans_html(view: SpanView, reason: str = "") -> str:
    """A tagged text coloured by hits, false alarms and misses, with scores."""
    legend = (
        '<div class="hs-legend"><span class="hs-hit">hit</span> <span class="hs-fa">false alarm</span> '
        '<span class="hs-miss">miss</span> <span class="hs-note">hover a span for its label type</span></div>'
    )
    body = "".join(_span(p.text, p.kind, p.label) for p in view.pieces)
    s = view.scores
    scores = (
        f'<div class="hs-scores">token P {s["precision"]:.3f} · R {s["recall"]:.3f} · '
        f"F1 {s['f1']:.3f} · IoU {s['iou']:.3f} · {view.compared} tokens compared "
        f"(gold {view.gold_tokens}, prediction {view.predicted_tokens})</div>"
    )
    note = f'<div class="hs-invalid">Not scored: {escape(reason)}</div>' if reason else ""
    return f'{note}{legend}<div class="hs-caption">{body}</div>{scores}'


def _span(text: str, kind: str | None, label: str | None) -> str:
    if kind is None:
        return escape(text)
    title = f"{kind}: {label}" if label else kind
    return f'<span class="{SPAN_CLASSES[kind]}" title="{escape(title, quote=True)}">{escape(text)}</span>'
