"""The inspector in blind mode: the question, options and my own votes, nothing else.

Built from :func:`analysis.store.blind_view`, which leaves out the gold, the verdicts, the
model's answers and other reviewers' labels; every text is escaped.
"""

from __future__ import annotations

from html import escape

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
    options = view.get("options")
    listed = ""
    if isinstance(options, str) and options:
        listed = f'<div class="hs-options">{escape(options)}</div>'
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
