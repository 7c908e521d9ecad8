"""The review panel under the inspector: set the gold, flag, note, save-and-next, undo, history.

Handlers are plain functions of a :class:`ReviewContext`, the current row and the signed-in
:class:`~analysis.store.Identity` (None for a visitor). Every write goes through
:func:`analysis.store.payload.submit` with the server's own table row, so neither the gold nor the
author can be named by the browser; without an identity a write raises :class:`Refused`.
In blind mode the gold is recorded as the reviewer's vote and other reviewers' labels and the
official gold are hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr
import pandas as pd

from analysis.store import FLAGS, Identity, InvalidLabel, NoChange, NothingToUndo, events_frame
from analysis.store.identity import IdentityMismatch
from analysis.store.payload import submit
from analysis.store.values import gold_kind
from components.browse.render import md_text
from components.review.context import Refused, ReviewContext
from components.review.span_picker import build_picker

CHOICES: dict[str, list[str]] = {"yesno": ["yes", "no"], "order": ["AB", "BA"]}
READ_ONLY = ("**Read-only demo.** Sign in to relabel, flag or note items; "
             "every write is refused without a signed-in reviewer.")


@dataclass
class ReviewWidgets:
    """The review controls, in the order :func:`panel` fills them."""

    who: gr.Markdown
    gold: gr.Radio
    gold_text: gr.Textbox
    flags: gr.CheckboxGroup
    note: gr.Textbox
    reason: gr.Textbox
    history: gr.HTML
    message: gr.Markdown
    save: gr.Button
    save_next: gr.Button
    undo: gr.Button
    blind: gr.Checkbox
    group: gr.Group
    picker: Any = None
    """The DetailVerifyBench token picker (:class:`components.review.span_picker.SpanPicker`)."""

    def outputs(self) -> list[Any]:
        """Widgets :func:`panel` fills."""
        return [self.who, self.gold, self.gold_text, self.flags, self.note, self.reason, self.history,
                self.group]

    def inputs(self) -> list[Any]:
        """The form values :func:`save` takes after the row and blind flag."""
        return [self.gold, self.gold_text, self.flags, self.note, self.reason]


def build_review() -> ReviewWidgets:
    """Controls for one item: gold, flags, note, reason, then save / save-and-next / undo."""
    who = gr.Markdown(READ_ONLY, elem_id="rv-who")
    blind = gr.Checkbox(label="Blind mode (hide gold and other reviewers' labels; save records my vote)",
                        elem_id="rv-blind")
    with gr.Group(visible=False, elem_id="rv-panel") as group:
        with gr.Row(equal_height=True):
            gold = gr.Radio([], label="Gold label (y / n, a-d or 1-4)", elem_id="rv-gold", scale=2)
            gold_text = gr.Textbox(label="Gold", visible=False, elem_id="rv-gold-text", scale=2, lines=2)
            flags = gr.CheckboxGroup(list(FLAGS), label="Flags (f)", elem_id="rv-flags", scale=2)
        picker = build_picker()
        with gr.Row(equal_height=True):
            note = gr.Textbox(label="Note", elem_id="rv-note", scale=2)
            reason = gr.Textbox(label="Reason for the change", elem_id="rv-reason", scale=2)
        with gr.Row():
            save = gr.Button("Save (enter)", size="sm", elem_id="rv-save-only", scale=0, min_width=120)
            save_next = gr.Button("Save and next (s)", variant="primary", size="sm", elem_id="rv-save",
                                  scale=0, min_width=160)
            undo = gr.Button("Undo (u)", size="sm", elem_id="rv-undo", scale=0, min_width=100)
    picker.selection.render()  # type: ignore[no-untyped-call]
    message = gr.Markdown("", elem_id="rv-message")
    with gr.Accordion("Label history of this item", open=True):
        history = gr.HTML("", elem_id="rv-history", js_on_load=None, padding=False)
    return ReviewWidgets(who, gold, gold_text, flags, note, reason, history, message, save, save_next,
                         undo, blind, group, picker)


def _kind(item: pd.Series) -> str:
    gold = item.get("gold")
    original = None if gold is None or pd.isna(gold) else str(gold)
    return gold_kind(str(item["benchmark"]), str(item.get("task") or ""), original)


def _choices(item: pd.Series, kind: str) -> list[str] | None:
    if kind in CHOICES:
        return CHOICES[kind]
    if kind == "letter":
        options = item.get("options")
        n = len(options) if isinstance(options, (list, tuple)) and options else 4
        return [chr(ord("A") + i) for i in range(min(max(n, 2), 26))]
    return None


def item_events(ctx: ReviewContext, item: pd.Series) -> pd.DataFrame:
    """Every event on this item, oldest first."""
    assert ctx.store is not None
    events = events_frame(ctx.store, str(item["benchmark"]))
    return events[events["item_key"] == str(item["item_id"])]


def current_values(events: pd.DataFrame, scope: str, reviewer: str | None = None) -> dict[str, str | None]:
    """The latest value of each field among ``events`` of one scope (one reviewer's votes)."""
    rows = events[events["scope"] == scope]
    if reviewer is not None:
        rows = rows[rows["reviewer"] == reviewer]
    return {str(f): v for f, v in zip(rows["field"], rows["new_value"], strict=True)}


def history_html(events: pd.DataFrame, who: Identity | None, blind: bool) -> str:
    """Who changed what, when and why, newest first (in blind mode: only my own events)."""
    if blind:
        events = events[events["reviewer"] == (who.name if who else "")]
    if events.empty:
        return '<p class="hs-none">No labels on this item yet.</p>'
    rows = "".join(
        f"<tr><td>{escape(str(e.created_at)[:19].replace('T', ' '))}</td><td>{escape(str(e.reviewer))}</td>"
        f"<td>{escape(str(e.field))}{' (vote)' if e.scope == 'vote' else ''}</td>"
        f"<td>{escape(_show(e.old_value))} → {escape(_show(e.new_value))}</td>"
        f"<td>{escape(str(e.kind))}</td><td>{escape(str(e.reason or ''))}</td></tr>"
        for e in events.iloc[::-1].itertuples()
    )
    head = "<tr><th>when</th><th>who</th><th>field</th><th>old → new</th><th>kind</th><th>why</th></tr>"
    return f'<table class="hs-others hs-history">{head}{rows}</table>'


def _show(value: object) -> str:
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    return text if len(text) <= 120 else text[:119] + "…"


def panel(ctx: ReviewContext, row: int | None, who: Identity | None, blind: bool) -> tuple[Any, ...]:
    """The panel for ``row``: who is signed in, the controls set to the item's current labels."""
    hidden = gr.update(visible=False)
    if ctx.store is None or who is None:
        note = READ_ONLY if ctx.store is not None else "**Read-only:** no label store is open."
        return (note, gr.update(), gr.update(), gr.update(), gr.update(), gr.update(), "", hidden)
    head = f"Signed in as **{md_text(who.name)}**" + (" · blind mode" if blind else "")
    if row is None:
        return (head, gr.update(), gr.update(), gr.update(), gr.update(), gr.update(), "", hidden)
    item = ctx.row(row)
    events = item_events(ctx, item)
    final = current_values(events, "final")
    mine = current_values(events, "vote", who.name) if blind else final
    official = item.get("gold")
    official = None if official is None or pd.isna(official) else str(official)
    gold = mine.get("gold") or (None if blind else official)
    kind = _choices(item, _kind(item))
    flags = [f for f in str(final.get("flag") or "").split(",") if f]
    return (
        head,
        gr.update(choices=kind or [], value=gold if kind and gold in kind else None, visible=bool(kind)),
        gr.update(value="" if kind else (gold or ""), visible=not kind),
        gr.update(value=flags),
        gr.update(value=final.get("note") or ""),
        gr.update(value=""),
        history_html(events, who, blind),
        gr.update(visible=True),
    )


def save(ctx: ReviewContext, row: int | None, who: Identity | None, blind: bool, gold: str | None,
         gold_text: str | None, flags: list[str] | None, note: str | None, reason: str | None) -> str:
    """Write what changed on the form (gold, flags, note) as ``who``; a message for the reviewer."""
    if ctx.store is None or who is None:
        raise Refused("Refused: sign in to review (this app is read-only without a reviewer).")
    item = ctx.row(row)
    events = item_events(ctx, item)
    final = current_values(events, "final")
    value = gold if _choices(item, _kind(item)) else (gold_text or None)
    writes: list[tuple[str, str, Any]] = [("vote" if blind else "relabel", "gold", value)]
    flag_text = ",".join(sorted(flags or []))
    if flag_text != (final.get("flag") or ""):
        writes.append(("relabel", "flag", flags or None))
    if (note or "").strip() != (final.get("note") or ""):
        writes.append(("relabel", "note", (note or "").strip() or None))
    done = []
    for action, name, new in writes:
        if name == "gold" and not new:
            continue
        try:
            event = submit(ctx.store, {"action": action, "field": name, "value": new,
                                       "reason": reason or "", "item_id": str(item["item_id"])},
                           who, row=item)
        except NoChange:
            continue
        except (InvalidLabel, IdentityMismatch) as exc:
            raise Refused(f"Not saved: {exc}") from exc
        done.append(_change(name, event.old_value, event.new_value))
    if not done:
        return "Nothing changed."
    return f"Saved as {md_text(who.name)}: " + "; ".join(done)


def _change(name: str, old: str | None, new: str | None) -> str:
    """``gold no → yes`` for a message shown as Markdown: values escaped, notes not echoed."""
    if name == "note":
        return "note updated" if new else "note cleared"
    return f"{name} {md_text(_show(old)) or '∅'} → {md_text(_show(new)) or '∅'}"


def undo_last(ctx: ReviewContext, row: int | None, who: Identity | None, blind: bool) -> str:
    """Undo the latest label on this item (in blind mode: my latest vote)."""
    if ctx.store is None or who is None:
        raise Refused("Refused: sign in to review (this app is read-only without a reviewer).")
    item = ctx.row(row)
    events = item_events(ctx, item)
    scope = "vote" if blind else "final"
    undone = set(events["undo_of"].dropna().astype(str))
    mine = events[(events["scope"] == scope) & (events["kind"] != "undo")
                  & ~events["event_id"].astype(str).isin(undone)
                  & ((events["reviewer"] == who.name) | (not blind))]
    if mine.empty:
        raise Refused("Nothing to undo on this item.")
    name = str(mine.iloc[-1]["field"])
    try:
        event = submit(ctx.store, {"action": "undo-vote" if blind else "undo", "field": name,
                                   "reason": "undo", "item_id": str(item["item_id"])}, who, row=item)
    except (NothingToUndo, NoChange) as exc:
        raise Refused(f"Nothing to undo: {exc}") from exc
    return f"Undone by {md_text(who.name)}: {_change(name, event.old_value, event.new_value)}"
