"""The inspector in blind mode: the question, options and my own votes, nothing else.

Built from :func:`analysis.store.blind_view`, which leaves out the gold, the verdicts, the
model's answers and other reviewers' labels; every text is escaped.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from analysis.store import Identity, blind_view
from analysis.store.values import as_shown
from components.review.context import ReviewContext, official_of


def blind_html(ctx: ReviewContext, row: int, who: Identity | None) -> str:
    """The blind view of ``row`` for ``who`` (without a reviewer: the item without any labels)."""
    item = ctx.catalog.table.iloc[row]
    if ctx.store is None or who is None:
        return '<p class="hs-none">Blind mode needs a signed-in reviewer.</p>'
    view = blind_view(item, ctx.store, who)
    meta = " · ".join(escape(str(view[k])) for k in ("benchmark", "task", "category") if view.get(k))
    listed = _options_html(view.get("options"))
    side, pair = view.get("side"), view.get("pair_id")
    if side:  # which image or clip of a pair the question is about (two are shown): no gold in it
        of_pair = f" of pair <code>{escape(str(pair))}</code>" if pair else ""
        listed += f'<p class="hs-side">This item asks about <b>{escape(str(side))}</b>{of_pair}.</p>'
    official = official_of(item)  # only its spelling is used: Yes / No beside an official Yes
    mine = " · ".join(
        f"{escape(str(k))}: {escape(str(as_shown(str(k), v, official)))}"
        for k, v in view["my_labels"].items()
    )
    return (
        f'<div class="hs-meta">{meta} · blind mode<br><code>{escape(str(view["item_id"]))}</code></div>'
        f'<div class="hs-question">{escape(str(view.get("question") or ""))}</div>{listed}'
        f'<p class="hs-none">Gold, verdicts and other reviewers\' labels are hidden. '
        f"My votes: {mine or 'none yet'}</p>"
    )


def _options_html(options: Any) -> str:
    """The answer options as the inspector lists them (the column holds them as a JSON list)."""
    if not isinstance(options, str) or not options:
        return ""
    try:
        parsed = json.loads(options)
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and all(isinstance(o, str) for o in parsed):
        return '<ul class="hs-options">' + "".join(f"<li>{escape(o)}</li>" for o in parsed) + "</ul>"
    return f'<div class="hs-options">{escape(options)}</div>'
