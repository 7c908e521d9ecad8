"""The review panel under the inspector: set the gold, flag, note, save-and-next, undo, history.

Handlers are plain functions of a :class:`ReviewContext`, the current row and the signed-in
:class:`~analysis.store.Identity` (None for a visitor). Every write goes through
:func:`analysis.store.payload.submit` with the server's own table row, so neither the gold nor the
author can be named by the browser; without an identity a write raises :class:`Refused`.
In blind mode the gold is recorded as the reviewer's vote and other reviewers' labels and the
official gold are hidden.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.base import GoldKind
from analysis.review.access import Access
from analysis.review.form import Form, changed_by, edit, form_of, write_scope
from analysis.store import FLAGS, Identity, InvalidLabel, NoChange, NothingToUndo, events_frame
from analysis.store.agreement import correction_sides
from analysis.store.events import as_item, relabel
from analysis.store.identity import IdentityMismatch
from analysis.store.payload import submit
from analysis.store.values import SUSPECT_FIELD, as_shown, gold_kind, normalize_gold, option_count
from analysis.store.visibility import visible_events
from components.browse.render import md_text
from components.review.context import Refused, ReviewContext, extra_of, official_of
from components.review.span_picker import build_picker

READ_ONLY = "**Read-only demo.** Sign in to relabel, flag or note items; every write is refused without one."
SIGN_IN_SPACES = (
    "Sign in with the *Sign in with Hugging Face* button on the left: the accounts and organisations "
    "the Space's owner lists review (`HALLUSCOPE_SPACE_REVIEWERS`, `HALLUSCOPE_SPACE_ORGS`); any other "
    "account sees this read-only demo."
)
SIGN_IN_SERVE = (
    "To sign in, start the app with reviewers: `halluscope serve --auth USER:PASS` "
    "(repeatable) or `--auth-file FILE` of `USER:PASS` lines; see docs/review.md."
)
SAVE_PREFIX = "save-"
"""Event ids of one save share ``save-<hex>:`` (one per field), so one undo reverts the whole save."""


@dataclass
class ReviewWidgets:
    """The review controls, in the order :func:`panel` fills them."""

    who: gr.Markdown
    gold: gr.Radio
    gold_text: gr.Textbox
    letters: gr.CheckboxGroup
    part_choice: gr.Radio
    """The choice part of a ``choice-and-text`` gold."""
    part_text: gr.Textbox
    """Its text part."""
    flags: gr.CheckboxGroup
    note: gr.Textbox
    reason: gr.Textbox
    history: gr.HTML
    message: gr.Markdown
    save: gr.Button
    save_next: gr.Button
    undo: gr.Button
    group: gr.Column
    confirm: gr.Button
    """*Confirm gold (r)*: a reviewer's verdict that a suspect's gold stands (hidden when blind)."""
    drafts: gr.State
    """Unsaved form values per row (this browser session only), restored when the item is reopened."""
    opened: gr.State
    """The item's labels as the form was filled (:func:`panel`): what :func:`save` tells the
    reviewer's changes by, and someone else's changes since."""
    picker: Any = None
    """The token picker of a tagged gold (:class:`components.review.span_picker.SpanPicker`)."""

    def outputs(self) -> list[Any]:
        """Widgets :func:`panel` fills."""
        return [self.who, *self.inputs(), self.history, self.group, self.confirm, self.opened]

    def inputs(self) -> list[Any]:
        """The form values :func:`save` takes after the row."""
        return [
            self.gold,
            self.gold_text,
            self.flags,
            self.note,
            self.reason,
            self.letters,
            self.part_choice,
            self.part_text,
        ]


CHANGE_REASON = "Reason for the change (needed for a gold change)"
VOTE_REASON = "Reason for your vote (optional)"
"""The reason box's label: a correction of the gold needs a reason, a blind reviewer's vote does not."""


def build_review() -> ReviewWidgets:
    """Controls for one item: gold (by kind), flags, note, reason, then save / save-and-next / undo."""
    who = gr.Markdown(f"{READ_ONLY} {SIGN_IN_SERVE}", elem_id="rv-who")
    # the id on a column around the group: Gradio 6 writes a Group's elem_id on two nested divs
    with gr.Column(visible=False, elem_id="rv-panel") as group, gr.Group():
        with gr.Row(equal_height=True):
            gold = gr.Radio([], label="Gold label (y / n, a-d or 1-4)", elem_id="rv-gold", scale=2)
            gold_text = gr.Textbox(label="Gold", visible=False, elem_id="rv-gold-text", scale=2, lines=2)
            letters = gr.CheckboxGroup(
                [], label="Gold option letters (a-d toggle)", visible=False, elem_id="rv-letters", scale=2
            )
            part_choice = gr.Radio([], label="Gold (y / n)", visible=False, elem_id="rv-part-choice", scale=1)
            part_text = gr.Textbox(
                label="Detail (l)", visible=False, elem_id="rv-part-text", scale=2, max_lines=1
            )
            flags = gr.CheckboxGroup(list(FLAGS), label="Flags (f)", elem_id="rv-flags", scale=2)
        picker = build_picker()
        with gr.Row(equal_height=True):
            # one line each (max_lines=1 renders an <input>): Enter in them saves, as the legend says;
            # as text areas they took the Enter as a newline (issue 20)
            note = gr.Textbox(label="Note", elem_id="rv-note", scale=2, max_lines=1)
            reason = gr.Textbox(
                label=CHANGE_REASON,
                elem_id="rv-reason",
                scale=2,
                max_lines=1,
            )
        with gr.Row():
            save = gr.Button("Save (enter)", size="sm", elem_id="rv-save-only", scale=0, min_width=120)
            save_next = gr.Button(
                "Save and next (s)", variant="primary", size="sm", elem_id="rv-save", scale=0, min_width=160
            )
            undo = gr.Button("Undo last save (u)", size="sm", elem_id="rv-undo", scale=0, min_width=140)
            confirm = gr.Button("Confirm gold (r)", size="sm", elem_id="rv-confirm", scale=0, min_width=140)
    picker.selection.render()  # type: ignore[no-untyped-call]
    message = gr.Markdown("", elem_id="rv-message")
    with gr.Accordion("Label history of this item", open=True):
        history = gr.HTML("", elem_id="rv-history", js_on_load=None, padding=False)
    drafts = gr.State({})
    opened = gr.State(None)
    return ReviewWidgets(
        who,
        gold,
        gold_text,
        letters,
        part_choice,
        part_text,
        flags,
        note,
        reason,
        history,
        message,
        save,
        save_next,
        undo,
        group,
        confirm,
        drafts,
        opened,
        picker,
    )


def read_only_note(ctx: ReviewContext, who: Identity | None = None) -> str:
    """Why nothing can be written here, and how to sign in (the Spaces button, else ``--auth``)."""
    if ctx.store is None:
        why = md_text(ctx.read_only or "no label store is open")
        head = f"Signed in as **{md_text(who.name)}**. " if who is not None else ""
        return f"{head}**Read-only:** the label store cannot be written ({why}); nothing can be saved."
    return f"{READ_ONLY} {SIGN_IN_SPACES if ctx.oauth else SIGN_IN_SERVE}"


def _kind(item: pd.Series) -> GoldKind:
    gold = item.get("gold")
    original = None if gold is None or pd.isna(gold) else str(gold)
    return gold_kind(str(item["benchmark"]), str(item.get("task") or ""), original)


def _letters_of(item: pd.Series) -> list[str]:
    n = option_count(item.get("options")) or 4
    return [chr(ord("A") + i) for i in range(min(max(n, 2), 26))]


def _choices(item: pd.Series, kind: GoldKind) -> list[str] | None:
    if kind.form == "choice":
        return list(kind.choices)
    if kind.form == "options":
        return _letters_of(item)
    return None


def canonical(value: str | None, kind: GoldKind, original: str | None = None) -> str | None:
    """``value`` in the spelling the controls use (``Yes`` -> ``yes``); as is when it has none."""
    if value is None:
        return None
    try:
        return normalize_gold(value, kind, original)
    except InvalidLabel:
        return value


def item_events(ctx: ReviewContext, item: pd.Series) -> pd.DataFrame:
    """Every event on this item, oldest first."""
    assert ctx.store is not None
    events = events_frame(ctx.store, str(item["benchmark"]))
    return events[events["item_key"] == str(item["item_id"])]


def history_html(events: pd.DataFrame, access: Access, official: str | None = None) -> str:
    """Who changed what, when and why, newest first: only what ``access`` may see (hidden votes left out).

    Gold values are spelled like the item's ``official`` gold (:func:`analysis.store.values.as_shown`).
    """
    events = visible_events(events, access.viewer)
    if events.empty:
        return '<p class="hs-none">No labels on this item yet.</p>'

    def shown(field: str, old: object, new: object) -> str:
        missing = [v is None or (isinstance(v, float) and pd.isna(v)) for v in (old, new)]
        values = [
            as_shown(field, None if gone else str(v), official)
            for v, gone in zip((old, new), missing, strict=True)
        ]
        before, after = _show_pair(*values)
        return f"{escape(before)} → {escape(after)}"

    rows = "".join(
        f"<tr><td>{escape(str(e.created_at)[:19].replace('T', ' '))}</td><td>{escape(str(e.reviewer))}</td>"
        f"<td>{escape(str(e.field))}{' (vote)' if e.scope == 'vote' else ''}</td>"
        f"<td>{shown(str(e.field), e.old_value, e.new_value)}</td>"
        f"<td>{escape(str(e.kind))}</td><td>{escape(str(e.reason or ''))}</td></tr>"
        for e in events.iloc[::-1].itertuples()
    )
    head = "<tr><th>when</th><th>who</th><th>field</th><th>old → new</th><th>kind</th><th>why</th></tr>"
    return f'<table class="hs-others hs-history">{head}{rows}</table>'


_WIDTH = 120
"""Characters of a value shown in a message or the history; a longer one is cut."""
_AROUND = 40
"""Characters kept before and after where two long values differ."""


def _show(value: object) -> str:
    text = _text(value)
    return text if len(text) <= _WIDTH else text[: _WIDTH - 1] + "…"


def _text(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _show_pair(old: object, new: object) -> tuple[str, str]:
    """Two values of a change, each cut around where they differ when either is too long to show.

    A long tagged caption differs from its correction by one tag deep inside: both cut at
    their start read the same (``The image shows … Four ‹tag›green‹/ta… → The image shows …``).
    """
    a, b = _text(old), _text(new)
    if len(a) <= _WIDTH and len(b) <= _WIDTH:
        return a, b
    same_start = _same_start(a, b)
    same_end = min(_same_start(a[::-1], b[::-1]), min(len(a), len(b)) - same_start)
    start = min(_word_edge(a, max(0, same_start - _AROUND)), same_start)  # a word, never the change, cut

    def cut(text: str) -> str:
        stop = _word_edge(text, min(len(text), len(text) - same_end + _AROUND))
        middle = text[start:stop]
        if len(middle) > _WIDTH:
            return ("…" if start else "") + middle[: _WIDTH - 1] + "…"
        return ("…" if start else "") + middle + ("…" if stop < len(text) else "")

    return cut(a), cut(b)


def _word_edge(text: str, at: int) -> int:
    """``at``, or the next word boundary after it within 20 characters (a cut between words)."""
    for here in range(at, min(at + 21, len(text) + 1)):
        if here == 0 or here == len(text) or text[here - 1].isspace() or text[here].isspace():
            return here
    return at


def _same_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` begin with alike."""
    n = min(len(a), len(b))
    at = 0
    while at < n and a[at] == b[at]:
        at += 1
    return at


def _controls(item: pd.Series, gold: str | None) -> list[Any]:
    """Updates of the gold controls (radio, text, letters, choice and text parts) for one kind of gold."""
    kind = _kind(item)
    original = item.get("gold")
    original = None if original is None or pd.isna(original) else str(original)
    value = canonical(gold, kind, original)
    hide = gr.update(visible=False)
    choices = _choices(item, kind)
    if choices:
        return [
            # each choice labelled as the item's files spell it (Yes / No beside an official Yes)
            gr.update(
                choices=[(as_shown("gold", c, original) or c, c) for c in choices],
                value=value if value in choices else None,
                visible=True,
            ),
            gr.update(value="", visible=False),
            hide,
            hide,
            hide,
        ]
    if kind.form == "multi-options":
        picked = [c for c in (value or "") if c.isalpha()]
        return [
            gr.update(choices=[], value=None, visible=False),
            gr.update(value="", visible=False),
            gr.update(choices=_letters_of(item), value=picked, visible=True),
            hide,
            hide,
        ]
    if kind.form == "choice-and-text" and kind.split is not None:
        choice, text = kind.split(value, extra_of(item))
        return [
            gr.update(choices=[], value=None, visible=False),
            gr.update(value="", visible=False),
            hide,
            gr.update(choices=list(kind.choices), value=choice, visible=True),
            gr.update(value=text, label=kind.text_label or "Detail (l)", visible=True),
        ]
    return [
        gr.update(choices=[], value=None, visible=False),
        gr.update(value=value or "", visible=True),
        hide,
        hide,
        hide,
    ]


def panel(
    ctx: ReviewContext, row: int | None, who: Identity | None, drafts: dict[int, list[Any]] | None = None
) -> tuple[Any, ...]:
    """The panel for ``row``: who is signed in, the controls set to the item's current labels.

    What ``who`` sees is their :class:`~analysis.review.access.Access` (the role the operator
    gave, never the browser); a draft of unsaved values for this row (``drafts``) is put back.
    """
    access = ctx.access(who)
    blind = access.blind
    hidden = gr.update(visible=False)
    keep = [gr.update()] * 8
    if ctx.store is None or who is None:
        note = read_only_note(ctx, who)
        return (note, *keep, "", hidden, hidden, None)
    role = "adjudicator" if access.adjudicator else "reviewer"
    head = f"Signed in as **{md_text(who.name)}** ({role}{', blind' if blind else ''})"
    if row is None:
        return (head, *keep, "", hidden, hidden, None)
    item = ctx.row(row)
    events = item_events(ctx, item)
    shown = form_of(events, access, official_of(item))
    if shown.settled and not blind:
        head += " · the gold was settled by an adjudication: a change is recorded as a vote"
    radio, text, letters, part_choice, part_text = _controls(item, shown.gold)
    form = [
        radio,
        text,
        gr.update(value=list(shown.flags)),
        gr.update(value=shown.note),
        # a blind reviewer's gold is a vote, which needs no reason (the label said it did)
        gr.update(value="", label=VOTE_REASON if blind else CHANGE_REASON),
        letters,
        part_choice,
        part_text,
    ]
    opened = Opened(str(item["item_id"]), shown, int(row))
    draft = (drafts or {}).get(int(row))
    if draft is not None:
        head += " · **unsaved draft restored**: save it, or change it back"
        values, rest = draft[: len(form)], draft[len(form) :]  # then where the draft began, if kept
        form = [{**update, "value": value} for update, value in zip(form, values, strict=True)]
        began = rest[0] if rest else None  # what the draft's typing changed is told from its start
        opened = began if isinstance(began, Opened) and began.item_id == opened.item_id else opened
    # a blind reviewer does not see the gold, so cannot say it is right: they vote instead
    confirm = gr.update(visible=access.sees_gold)
    history = history_html(events, access, official_of(item))
    return (head, *form, history, gr.update(visible=True), confirm, opened)


@dataclass(frozen=True)
class Opened:
    """An item's labels as one reviewer's form was filled with them."""

    item_id: str
    form: Form
    row: int | None = None
    """The item table row the form was filled for: its drafts and saves belong to that row."""


class Conflict(Refused):
    """A save that left a field unwritten: someone else changed it since the form was opened."""


class Behind(Refused):
    """A save pressed while the form still showed the item before: nothing is written."""


def form_value(
    item: pd.Series,
    gold: str | None,
    gold_text: str | None,
    letters: list[str] | None,
    part_choice: str | None,
    part_text: str | None,
) -> str | None:
    """The gold the form says, from whichever control the item's kind of gold uses."""
    kind = _kind(item)
    if _choices(item, kind):
        return gold or None
    if kind.form == "multi-options":
        return "".join(sorted(set(letters or []))) or None
    if kind.form == "choice-and-text" and kind.compose is not None:
        return kind.compose(part_choice, part_text or "") if part_choice else None
    return gold_text or None


def save(
    ctx: ReviewContext,
    row: int | None,
    who: Identity | None,
    gold: str | None,
    gold_text: str | None,
    flags: list[str] | None,
    note: str | None,
    reason: str | None,
    letters: list[str] | None = None,
    part_choice: str | None = None,
    part_text: str | None = None,
    opened: Opened | None = None,
) -> str:
    """Write what the reviewer changed on the form (gold, flags, note) as ``who``, as one undoable save.

    ``opened``: the item's labels as the form was filled. A field left as it was is not written;
    a changed one that someone else changed meanwhile is not either, and :class:`Conflict` says
    so once the rest is saved (the panel then shows the new values). Without ``opened`` (an old
    page), the form is compared with the item as it is now.
    """
    access = ctx.access(who)
    ctx.refuse(who, "review")
    assert who is not None and ctx.store is not None  # refuse() lets only a writer through
    item = ctx.row(row)
    if opened is not None and opened.item_id != str(item["item_id"]):
        # the next item opened but its form had not come yet: these values are the item before's
        raise Behind(
            f"Not saved: the form still showed {opened.item_id} when {item['item_id']} opened. "
            "The form now shows this item: check it, then save again."
        )
    events = item_events(ctx, item)
    shown = form_of(events, access, official_of(item))
    value = form_value(item, gold, gold_text, letters, part_choice, part_text)
    base = opened.form if opened is not None else shown
    typed = Form(value, tuple(sorted(flags or [])), (note or "").strip(), shown.settled)
    kind, original = _kind(item), official_of(item)

    def same(field: str, a: str | None, b: str | None) -> bool:
        if field == "gold":
            return canonical(a or None, kind, original) == canonical(b or None, kind, original)
        return (a or "") == (b or "")

    plan = edit(base, shown, typed, same)

    def act(name: str) -> str:
        return "vote" if write_scope(access, name, shown) == "vote" else "relabel"

    new_values = {"gold": value, "flag": list(typed.flags) or None, "note": typed.note or None}
    writes = [(act(name), name, new_values[name]) for name in plan.writes]
    batch = f"{SAVE_PREFIX}{uuid.uuid4().hex[:24]}"
    done = []
    for action, name, new in writes:
        try:
            event = submit(
                ctx.store,
                {
                    "action": action,
                    "field": name,
                    "value": new,
                    "reason": reason or "",
                    "item_id": str(item["item_id"]),
                    "event_id": f"{batch}:{name}",
                },
                who,
                row=item,
            )
        except NoChange:
            continue
        except (InvalidLabel, IdentityMismatch) as exc:
            raise Refused(f"Not saved: {exc}") from exc
        change = _change(name, event.old_value, event.new_value, official_of(item))
        if action == "vote":  # a vote never moves the gold: said, or "gold ∅ → C" read as a correction
            change = f"your vote on {change}"
            if not access.blind and name == "gold":
                change += _settled_note(events, shown.gold, official_of(item))
        elif name == "gold":  # a correction that replaced another reviewer's is said, never silent
            change += _disputed_note(ctx, item, who, official_of(item))
        done.append(change)
    line = f"Saved as {md_text(who.name)}: " + "; ".join(done) + "." if done else ""
    # a field left as it was opened that someone changed meanwhile is said: the form saved showed
    # the old value, and the panel is about to show theirs (it flipped without a word)
    said = (events, access, typed, shown, official_of(item))
    meanwhile = _changed_since(plan.moved, *said, changed_by_reviewer=False)
    if plan.conflicts:
        told = _changed_since(plan.conflicts, *said, changed_by_reviewer=True)
        raise Conflict(" ".join(filter(None, [line, told, meanwhile])))
    if meanwhile:
        return " ".join([line or "Nothing changed by you.", meanwhile])
    return line[:-1] if line else "Nothing changed."


def _changed_since(
    fields: tuple[str, ...],
    events: pd.DataFrame,
    access: Access,
    typed: Form,
    now: Form,
    official: str | None,
    *,
    changed_by_reviewer: bool,
) -> str:
    """Who set each of ``fields`` to what since the form opened, and what the form held ("" for none).

    ``changed_by_reviewer``: the reviewer changed these fields too (not written: the save says so);
    else they left them as they were opened (the save tells them only what now stands).
    """
    if not fields:
        return ""
    parts = []
    for field in fields:
        by = changed_by(events, access, field)
        who = "you, in another window" if by == access.name else md_text(by or "someone")
        # two long values (captions) are cut around where they differ, as a saved change is
        pair = _show_pair(
            *(as_shown(field, value or None, official) for value in (now.value(field), typed.value(field)))
        )
        theirs, mine = (md_text(text) or "nothing" for text in pair)
        yours = "yours:" if changed_by_reviewer else "your form showed"
        parts.append(f"{field}: {who} set it to “{theirs}” ({yours} “{mine}”)")
    if changed_by_reviewer:
        return (
            "Not saved, changed since you opened the item: "
            + "; ".join(parts)
            + ". The form now shows the item as it is: to replace theirs, set yours again and save."
        )
    return (
        "Changed since you opened the item, and not by this save: "
        + "; ".join(parts)
        + ". The form now shows theirs: to put yours back, set it again and save."
    )


def confirm_gold(ctx: ReviewContext, row: int | None, who: Identity | None) -> str:
    """Record that the item's current gold is right (``suspect:gold = right``, ``docs/suspects.md``)."""
    access = ctx.access(who)
    ctx.refuse(who, "review")
    assert who is not None and ctx.store is not None  # refuse() lets only a writer through
    if not access.sees_gold:
        raise Refused("You review blind: vote on the gold instead (you cannot see the gold to confirm it).")
    item = ctx.row(row)
    gold = form_of(item_events(ctx, item), access, official_of(item)).gold
    try:
        relabel(ctx.store, as_item(item), SUSPECT_FIELD, "right", who, "the gold is right (suspects queue)")
    except NoChange:
        return "Already confirmed: the gold was judged right before."
    shown = as_shown("gold", gold, official_of(item))
    return f"Saved as {md_text(who.name)}: gold {md_text(_show(shown))} confirmed as right."


def _settled_note(events: pd.DataFrame, gold: str | None, official: str | None) -> str:
    """`` (the gold stays B, settled by carol: a vote against it reopens the disagreement)``."""
    settled = events[(events["kind"] == "adjudicate") & (events["field"] == "gold")]
    by = str(settled.iloc[-1]["reviewer"]) if len(settled) else "an adjudicator"
    stays = md_text(as_shown("gold", gold, official)) or "∅"
    return f" (the gold stays {stays}, settled by {md_text(by)}: a vote against it reopens the disagreement)"


def _disputed_note(ctx: ReviewContext, item: pd.Series, who: Identity, official: str | None) -> str:
    """`` (alice corrected it to yes: the two corrections go to an adjudicator)``, or nothing.

    The store's rule (:func:`~analysis.store.agreement.correction_sides`), read after the save:
    a correction that replaced another reviewer's different one is a disagreement.
    """
    events = item_events(ctx, item)
    sides = correction_sides(events[events["field"] == "gold"]).get(str(item["item_id"]), {})
    others = [
        f"{md_text(r)} corrected it to {md_text(as_shown('gold', v, official)) or '∅'}"
        for r, (v, _) in sides.items()
        if r != who.name
    ]
    if not others:
        return ""
    return f" ({', '.join(others)}: the corrections differ, so the item goes to an adjudicator)"


def _change(name: str, old: str | None, new: str | None, official: str | None = None) -> str:
    """``gold No → Yes`` for a message shown as Markdown: values escaped, notes not echoed.

    A gold is spelled like the item's ``official`` one (:func:`analysis.store.values.as_shown`).
    """
    if name == "note":
        return "note updated" if new else "note cleared"
    before, after = _show_pair(as_shown(name, old, official), as_shown(name, new, official))
    return f"{name} {md_text(before) or '∅'} → {md_text(after) or '∅'}"


def _open_events(events: pd.DataFrame, who: Identity, blind: bool) -> pd.DataFrame:
    """Events an undo may revert: my votes, and (not blind) every correction; not undone ones."""
    undone = set(events["undo_of"].dropna().astype(str))
    mine_or_final = ((events["scope"] == "vote") & (events["reviewer"] == who.name)) | (
        (events["scope"] == "final") & (not blind)
    )
    return events[mine_or_final & (events["kind"] != "undo") & ~events["event_id"].astype(str).isin(undone)]


def undo_last(ctx: ReviewContext, row: int | None, who: Identity | None) -> str:
    """Undo the latest save on this item, every field it wrote (in blind mode: my latest vote)."""
    access = ctx.access(who)
    ctx.refuse(who, "review")
    assert who is not None and ctx.store is not None  # refuse() lets only a writer through
    blind = access.blind
    item = ctx.row(row)
    candidates = _open_events(item_events(ctx, item), who, blind)
    if candidates.empty:
        raise Refused("Nothing to undo on this item.")
    last = str(candidates.iloc[-1]["event_id"])
    batch = last.partition(":")[0] + ":" if last.startswith(SAVE_PREFIX) else None
    ids = candidates["event_id"].astype(str)
    targets = candidates[ids.str.startswith(batch)] if batch else candidates.iloc[-1:]
    done = []
    for name, scope in reversed(
        list(zip(targets["field"].astype(str), targets["scope"].astype(str), strict=True))
    ):
        try:
            event = submit(
                ctx.store,
                {
                    "action": "undo-vote" if scope == "vote" else "undo",
                    "field": name,
                    "reason": "undo",
                    "item_id": str(item["item_id"]),
                },
                who,
                row=item,
            )
        except (NothingToUndo, NoChange) as exc:
            raise Refused(f"Nothing to undo: {exc}") from exc
        except InvalidLabel as exc:  # a settled gold: only an adjudication changes it
            raise Refused(f"Not undone: {exc}") from exc
        done.append(_change(name, event.old_value, event.new_value, official_of(item)))
    return f"Undone by {md_text(who.name)}: " + "; ".join(done)
