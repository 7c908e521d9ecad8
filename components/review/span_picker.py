"""Token picker for a tagged gold: click the tagged tokens instead of typing tags.

The untagged text's tokens (the benchmark's token rule, through its gold kind's
:class:`~analysis.benchmarks.base.Tagging`) are chips in a ``gr.HTML``; a click toggles a chip
and its ``js_on_load`` writes the selected indices (``"3,4,9"``) into a visually hidden textbox,
whose ``input`` event asks the server for the tagged caption (:func:`picked`), which lands in the
gold text field. Saving goes through the panel's usual save path, so the store validates the
caption. The caption comes from the server's own row, never from the browser, and every piece of
it is escaped (captions are untrusted). The text field stays as a fallback; typing in it re-renders
the picker's selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.base import Tagging
from analysis.store.values import gold_kind
from components.review.context import ReviewContext


class NotTagged(Exception):
    """The item's gold is not a tagged text, or the selection names no token of it."""


def parse_indices(text: str | None) -> list[int]:
    """Token indices sent by the picker as ``"1,4,5"``; anything that is not an integer is dropped."""
    parts = (text or "").replace(" ", "").split(",")
    return [int(part) for part in parts if part.isascii() and part.isdigit()]


PRIVATE: dict[str, Any] = {"api_visibility": "private", "concurrency_limit": None}

# Delegated click handler: survives the server re-rendering the chips; only reads data-i numbers.
JS = """
let clicks = 0;
element.addEventListener('click', (ev) => {
  const chip = ev.target.closest('[data-i]');
  if (!chip || !element.contains(chip)) return;
  const on = chip.getAttribute('aria-pressed') !== 'true';
  chip.setAttribute('aria-pressed', on ? 'true' : 'false');
  chip.classList.toggle('hs-sel', on);
  const picked = Array.from(element.querySelectorAll('[data-i][aria-pressed="true"]'))
    .map((c) => c.dataset.i).join(',');
  const box = document.querySelector('#rv-span-sel textarea, #rv-span-sel input');
  if (!box) return;
  // a click counter keeps every value new, so the change event fires even for a repeated selection
  clicks += 1;
  box.value = clicks + '|' + picked;
  box.dispatchEvent(new Event('input', { bubbles: true }));
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


def picker_html(clean: str, selected: set[int], tagging: Tagging) -> str:
    """Chips for the tokens of ``clean``, the text between them kept as (escaped) plain text."""
    parts = [
        '<div class="hs-picker-head">Click the hallucinated tokens '
        '(consecutive tokens become one tag):</div><div class="hs-picker">'
    ]
    pos = 0
    for i, (start, end) in enumerate(tagging.tokens(clean)):
        on = i in selected
        parts.append(escape(clean[pos:start]))
        parts.append(
            f'<button type="button" class="hs-tok{" hs-sel" if on else ""}" data-i="{i}" '
            f'aria-pressed="{"true" if on else "false"}">{escape(clean[start:end])}</button>'
        )
        pos = end
    parts.append(escape(clean[pos:]) + "</div>")
    return "".join(parts)


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


def render(ctx: ReviewContext, row: int | None, gold_text: str | None) -> Any:
    """The picker for ``row``, its chips selected from the gold text's tags; hidden for other golds."""
    found = caption_of(ctx, row)
    if found is None:
        return gr.update(value="", visible=False)
    clean, tagging = found
    text = gold_text or ""
    # a hand-edited text that differs has no token selection the picker can show
    chosen = tagging.selected_tokens(text) if tagging.strip(text) == clean else set()
    return gr.update(value=picker_html(clean, chosen, tagging), visible=True)


def picked(ctx: ReviewContext, row: int | None, selection: str | None) -> str:
    """The tagged text for the token indices the picker sent (the new gold text)."""
    found = caption_of(ctx, row)
    if found is None:
        raise NotTagged("This item's gold is not a tagged text.")
    clean, tagging = found
    try:
        return tagging.tag_tokens(clean, parse_indices((selection or "").rpartition("|")[2]))
    except ValueError as exc:
        raise NotTagged(str(exc)) from exc


def wire_picker(ctx: ReviewContext, picker: SpanPicker, current: gr.State, gold_text: gr.Textbox) -> None:
    """Chips -> gold text (on a click), gold text -> chips (when typed by hand)."""

    def from_chips(row: int | None, selection: str | None) -> Any:
        try:
            return picked(ctx, row, selection)
        except NotTagged as exc:
            raise gr.Error(escape(str(exc), quote=False), print_exception=False) from exc  # toasts show HTML

    picker.selection.change(
        from_chips, [current, picker.selection], gold_text, trigger_mode="always_last", **PRIVATE
    )
    gold_text.input(
        lambda row, text: render(ctx, row, text),
        [current, gold_text],
        picker.chips,
        trigger_mode="always_last",
        **PRIVATE,
    )


def refresh(ctx: ReviewContext) -> Any:
    """Handler re-rendering the picker from the gold text the panel has just filled."""
    return lambda row, text: render(ctx, row, text)
