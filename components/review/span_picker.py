"""Token picker for a tagged gold: click the tagged tokens instead of typing tags.

The untagged text's tokens (the benchmark's token rule, through its gold kind's
:class:`~analysis.benchmarks.base.Tagging`) are chips in a ``gr.HTML``; a click toggles a chip
and its ``js_on_load`` writes the selected indices (``"3,4,9"``) into a visually hidden textbox,
whose ``input`` event asks the server for the tagged caption (:func:`picked`), which lands in the
gold text field. Saving goes through the panel's usual save path, so the store validates the
caption. The caption comes from the server's own row, never from the browser, and every piece of
it is escaped (captions are untrusted). The text field stays as a fallback; typing in it re-renders
the picker's selection.

Where a benchmark's tags have label types, each tag gets a list after its last chip: the
type it scores under, which the reviewer may change (a merged or new span is otherwise
``Unknown``). A tag names a type only where it differs from what the item's official labels give
it; a blind reviewer's lists start from ``Unknown``, never from the official labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.base import Tagging, token_runs
from analysis.store import Identity
from analysis.store.values import gold_kind
from components.identity import identity_of
from components.review.context import ReviewContext, extra_of


class NotTagged(Exception):
    """The item's gold is not a tagged text, or the selection names no token of it."""


def parse_indices(text: str | None) -> list[int]:
    """Token indices sent by the picker as ``"1,4,5"``; anything that is not an integer is dropped."""
    parts = (text or "").replace(" ", "").split(",")
    return [int(part) for part in parts if part.isascii() and part.isdigit()]


def parse_selection(text: str | None) -> tuple[list[int], dict[int, str]]:
    """The picker's ``"clicks|1,4,5|{json}"``: token indices, and a run's first index -> a type.

    Anything malformed in the types part is dropped (the store checks the type itself).
    """
    parts = (text or "").split("|", 2)  # a bare "1,4,5" is indices only
    indices = parts[1] if len(parts) > 1 else parts[0]
    types = parts[2] if len(parts) > 2 else ""
    chosen: dict[int, str] = {}
    try:
        found = json.loads(types) if types else {}
    except ValueError:
        found = {}
    if isinstance(found, dict):
        for key, value in found.items():
            if str(key).isascii() and str(key).isdigit() and isinstance(value, str):
                chosen[int(key)] = value
    return parse_indices(indices), chosen


PRIVATE: dict[str, Any] = {"api_visibility": "private", "concurrency_limit": None}

# Delegated handlers: survive the server re-rendering the chips; they only read data-i numbers and
# the lists' values, and send "clicks|indices|{first index: type}" through the hidden field.
JS = """
let clicks = 0;
const send = () => {
  const picked = Array.from(element.querySelectorAll('[data-i][aria-pressed="true"]'))
    .map((c) => c.dataset.i).join(',');
  const types = {};
  element.querySelectorAll('select[data-run]').forEach((s) => { types[s.dataset.run] = s.value; });
  const box = document.querySelector('#rv-span-sel textarea, #rv-span-sel input');
  if (!box) return;
  // a click counter keeps every value new, so the change event fires even for a repeated selection
  clicks += 1;
  box.value = clicks + '|' + picked + '|' + JSON.stringify(types);
  box.dispatchEvent(new Event('input', { bubbles: true }));
};
element.addEventListener('click', (ev) => {
  const chip = ev.target.closest('[data-i]');
  if (!chip || !element.contains(chip)) return;
  const on = chip.getAttribute('aria-pressed') !== 'true';
  chip.setAttribute('aria-pressed', on ? 'true' : 'false');
  chip.classList.toggle('hs-sel', on);
  send();
});
element.addEventListener('change', (ev) => {
  if (ev.target.matches && ev.target.matches('select[data-run]')) send();
});
"""

CSS = """
.hs-picker { white-space: pre-wrap; line-height: 2.1; padding: 6px 8px; font-size: 0.95em; }
.hs-tok { border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 1px 3px;
          margin: 0; background: var(--background-fill-secondary); cursor: pointer; font: inherit;
          color: inherit; }
.hs-tok:hover { border-color: #d9822b; }
.hs-tok.hs-sel { background: #f8c9a0; border-color: #d9822b; color: #5a2a00; }
.hs-picker-head { font-size: 0.85em; opacity: 0.8; margin-bottom: 2px; }
.hs-type { font: inherit; font-size: 0.8em; margin: 0 2px; padding: 0 2px; max-width: min(24em, 100%);
           color: inherit; background: var(--background-fill-primary);
           border: 1px dashed #d9822b; border-radius: 4px; }
"""


@dataclass
class SpanPicker:
    """The chips and the hidden field the chips write their selection into."""

    chips: gr.HTML
    selection: gr.Textbox


def build_picker() -> SpanPicker:
    """The picker (hidden until an item with a tagged gold is open) and its hidden selection field.

    Call ``selection.render()`` where the field may live (outside any ``gr.Group``).
    """
    chips = gr.HTML(
        "", visible=False, elem_id="rv-span-picker", js_on_load=JS, css_template=CSS, padding=False
    )
    # rendered by the caller outside any gr.Group: inside one, visible="hidden" still shows it
    selection = gr.Textbox(
        "", visible="hidden", elem_id="rv-span-sel", show_label=False, container=False, render=False
    )
    return SpanPicker(chips, selection)


def picker_html(
    clean: str,
    selected: set[int],
    tagging: Tagging,
    types: list[str] | None = None,
    choices: list[str] | None = None,
) -> str:
    """Chips for the tokens of ``clean``, the text between them kept as (escaped) plain text.

    With ``choices``, each run of selected tokens is followed by a list of label types, set to
    its entry of ``types`` (one per run, in order; ``Unknown`` where missing).
    """
    head = "Click the hallucinated tokens (consecutive tokens become one tag)"
    head += ", and pick each tag's label type:" if choices else ":"
    parts = [f'<div class="hs-picker-head">{head}</div><div class="hs-picker">']
    runs = {last: (first, k) for k, (first, last) in enumerate(token_runs(selected))} if choices else {}
    pos = 0
    for i, (start, end) in enumerate(tagging.tokens(clean)):
        on = i in selected
        parts.append(escape(clean[pos:start]))
        parts.append(
            f'<button type="button" class="hs-tok{" hs-sel" if on else ""}" data-i="{i}" '
            f'aria-pressed="{"true" if on else "false"}">{escape(clean[start:end])}</button>'
        )
        if i in runs:
            first, k = runs[i]
            current = (types or [])[k] if k < len(types or []) else "Unknown"
            parts.append(_type_list(first, current, choices or []))
        pos = end
    parts.append(escape(clean[pos:]) + "</div>")
    return "".join(parts)


def _type_list(first: int, current: str, choices: list[str]) -> str:
    """A ``<select>`` of label types for the tag whose first token is ``first``."""
    names = ["Unknown", *choices] if current in ("Unknown", *choices) else ["Unknown", *choices, current]
    options = "".join(
        f'<option value="{escape(n)}"{" selected" if n == current else ""}>{escape(n)}</option>'
        for n in names
    )
    return (
        f'<select class="hs-type" data-run="{first}" aria-label="Label type of the tag at token {first}" '
        f'title="Label type of this tag">{options}</select>'
    )


def caption_of(ctx: ReviewContext, row: int | None) -> tuple[str, Tagging] | None:
    """The untagged text of a row whose gold is tagged (from the server's table) and its tag rules."""
    if row is None or ctx.store is None:
        return None
    if not 0 <= int(row) < len(ctx.catalog.table):
        return None
    item = ctx.catalog.table.iloc[int(row)]
    gold = item.get("gold")
    if gold is None or pd.isna(gold):
        return None
    tagging = gold_kind(str(item["benchmark"]), str(item.get("task") or ""), str(gold)).tagging
    if tagging is None:
        return None
    return tagging.strip(str(gold)), tagging


def _labels_seen(ctx: ReviewContext, row: int, who: Identity | None) -> dict[str, Any]:
    """The item's ``extra`` for type lists: its official labels, or nothing for a blind reviewer."""
    return {} if ctx.access(who).blind else extra_of(ctx.catalog.table.iloc[int(row)])


def render(ctx: ReviewContext, row: int | None, gold_text: str | None, who: Identity | None = None) -> Any:
    """The picker for ``row``, its chips selected from the gold text's tags; hidden for other golds."""
    found = caption_of(ctx, row)
    if found is None:
        return gr.update(value="", visible=False)
    assert row is not None
    clean, tagging = found
    text = gold_text or ""
    plain, named = tagging.split(text)
    # a hand-edited text that differs has no token selection the picker can show
    same = tagging.strip(plain) == clean
    chosen = tagging.selected_tokens(plain) if same else set()
    extra = _labels_seen(ctx, row, who)
    choices = tagging.type_choices(extra)
    types: list[str] = []
    if choices and chosen:
        # one tag per run, as the picker writes them: a typed text's types carry over in order
        runs = token_runs(chosen)
        keep = (
            {first: kind for (first, _), kind in zip(runs, named, strict=False) if kind}
            if len(named) == len(runs)
            else {}
        )
        types = tagging.tag_types(tagging.tag_tokens(clean, chosen, keep), extra)
    return gr.update(value=picker_html(clean, chosen, tagging, types, choices), visible=True)


def picked(ctx: ReviewContext, row: int | None, selection: str | None, who: Identity | None = None) -> str:
    """The tagged text for the token indices the picker sent (the new gold text).

    A tag names the type picked for it only where that differs from the type the item's labels
    give it (for a blind reviewer: from ``Unknown``), so a caption left as it was stays the same.
    """
    found = caption_of(ctx, row)
    if found is None:
        raise NotTagged("This item's gold is not a tagged text.")
    assert row is not None
    clean, tagging = found
    indices, wanted = parse_selection(selection)
    try:
        plain = tagging.tag_tokens(clean, indices)
        if not wanted:
            return plain
        base = tagging.tag_types(plain, _labels_seen(ctx, row, who))
        firsts = [first for first, _ in token_runs(indices)]
        named = {f: wanted[f] for f, b in zip(firsts, base, strict=False) if f in wanted and wanted[f] != b}
        return tagging.tag_tokens(clean, indices, named)
    except ValueError as exc:
        raise NotTagged(str(exc)) from exc


def wire_picker(ctx: ReviewContext, picker: SpanPicker, current: gr.State, gold_text: gr.Textbox) -> None:
    """Chips -> gold text (on a click or a type), gold text -> chips (typed by hand, or new runs)."""

    def from_chips(
        request: gr.Request, profile: gr.OAuthProfile | None, row: int | None, selection: str | None
    ) -> tuple[str, Any]:
        who = identity_of(request, profile)
        try:
            text = picked(ctx, row, selection, who)
        except NotTagged as exc:
            raise gr.Error(escape(str(exc), quote=False), print_exception=False) from exc  # toasts show HTML
        # the chips drawn again in the same answer (a new run needs its type list): drawn by a
        # step after it, an older click's drawing could land after a newer type was picked and
        # show the list back at Unknown, which the next click would then have sent
        return text, render(ctx, row, text, who)

    picker.selection.change(
        from_chips,
        [current, picker.selection],
        [gold_text, picker.chips],
        trigger_mode="always_last",
        **PRIVATE,
    )
    gold_text.input(refresh(ctx), [current, gold_text], picker.chips, trigger_mode="always_last", **PRIVATE)


def refresh(ctx: ReviewContext) -> Any:
    """Handler re-rendering the picker from the gold text (the one the panel has just filled)."""

    def draw(request: gr.Request, profile: gr.OAuthProfile | None, row: int | None, text: str | None) -> Any:
        return render(ctx, row, text, identity_of(request, profile))

    return draw
