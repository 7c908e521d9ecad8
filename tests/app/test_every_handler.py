"""Every handler the app registers, called as every role, with plausible and hostile arguments.

The handlers are enumerated from the Blocks (``demo.fns``), never listed by hand, and each is run
the way the server runs it (``Blocks.process_api``: the component's preprocessing, the session's
state, a ``gr.Request`` carrying the signed-in name). For each call:

- nothing but a clean refusal (``gr.Error``) may come out of it: an ``AttributeError`` or a
  ``KeyError`` reaches the browser as ``{"error": null}``;
- an answer to a blind role holds no gold, verdict, model answer, metric or chart, audit-derived
  list, pair action, nor another reviewer's note, reason or vote (the canaries planted below);
- a write by a role stays within its rights: a visitor writes nothing, a blind role only votes, a
  non-adjudicator never adjudicates, and every event is its author's.
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop
from gradio.state_holder import SessionState
from sqlalchemy import select

import app
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.store import Identity, ItemRef, open_store, relabel
from analysis.store.db import read_tx
from analysis.store.reviewers import vote
from analysis.store.schema import label_events
from components.review.context import ReviewContext

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]

ROLES: dict[str, str | None] = {
    "visitor": None,
    "reviewer": "alice",
    "blind": "bob",
    "adjudicator": "carol",
    "blind adjudicator": "frank",
}
BLIND = {"bob", "frank"}
ADJUDICATORS = {"carol", "frank"}
BENCHMARK = "cmm"
"""The benchmark the session looks at: the canary model answers its items."""
ANSWER_CANARY = "ANSWER-CANARY"
NOTE_CANARY = "NOTE-CANARY"
REASON_CANARY = "REASON-CANARY"
VOTERS = ("zoe", "yan")
"""Reviewers nobody else is, who voted on the item: a blind role never learns who voted."""
HOSTILE_TEXT = "<img src=x onerror=alert(1)>../../etc/passwd\x00" + "x" * 5000


def _manifest(folder: Path) -> Path:
    """The samples' manifest (absolute paths) plus a CMM model whose every answer is a canary."""
    manifest = json.loads(SAMPLE_MANIFEST.read_text())
    base = SAMPLE_MANIFEST.parent
    for entry in manifest["benchmarks"].values():
        entry["media_root"] = str(base / entry["media_root"])
        entry["gold"] = [str(base / g) for g in entry["gold"]]
        for pred in entry["predictions"]:
            pred["path"] = str(base / pred["path"])
            pred["gold"] = str(base / pred["gold"]) if pred.get("gold") else None
    cmm = manifest["benchmarks"]["cmm"]
    source = Path(cmm["predictions"][0]["path"])
    rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    for row in rows:
        row["pred"] = f"{ANSWER_CANARY} {row['pred']}"
    (folder / "canary.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cmm["predictions"].append(
        {"path": str(folder / "canary.jsonl"), "model": "canary", "task": None, "gold": None}
    )
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest))
    return path


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, ReviewContext, int]]:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    folder = tmp_path_factory.mktemp("every-handler")
    catalog = load_manifest(_manifest(folder))
    assert not catalog.errors, catalog.errors
    store = open_store(folder / "labels.db")
    ctx = ReviewContext(
        catalog,
        store,
        tuple(n for n in ROLES.values() if n),
        adjudicators=frozenset(ADJUDICATORS),
        blind=frozenset(BLIND),
    )
    table = catalog.table
    canary = table[(table["benchmark"] == BENCHMARK) & (table["model"] == "canary")]
    row = int(canary.index[0])
    first, second = canary.iloc[0], canary.iloc[1]
    item = ItemRef(BENCHMARK, str(first["item_id"]), str(first["task"]), str(first["gold"]))
    # other reviewers' work that no blind role may see: alice's note and flag, carol's correction
    # with its reason on another item, a vote with its reason by a reviewer nobody else is
    relabel(store, item, "note", f"{NOTE_CANARY} alice thinks so", Identity("alice"))
    relabel(store, item, "flag", "ambiguous", Identity("alice"))
    other = ItemRef(BENCHMARK, str(second["item_id"]), str(second["task"]), str(second["gold"]))
    flip = "yes" if str(second["gold"]).lower() == "no" else "no"
    relabel(store, other, "gold", flip, Identity("carol"), f"{REASON_CANARY} carol")
    vote(store, item, "gold", flip, Identity(VOTERS[0]), f"{REASON_CANARY} {VOTERS[0]}")
    vote(store, item, "gold", str(first["gold"]), Identity(VOTERS[1]), "it is as recorded")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        demo = app.build_app(catalog, ctx)
    yield demo, ctx, row


def _payload(block: Any, style: str) -> Any:
    """An input as the page would send it: the component's value, None, or something hostile."""
    value = block.get_config().get("value") if hasattr(block, "get_config") else None
    if style == "default":
        return BENCHMARK if getattr(block, "elem_id", None) == "f-benchmark" else value
    if style == "none":
        return None
    kind = type(block).__name__
    if kind in ("Textbox", "Markdown", "HTML"):
        return HOSTILE_TEXT
    if kind == "Number":
        return -(10**12)
    if kind in ("Checkbox",):
        return True
    if kind == "CheckboxGroup":
        return [HOSTILE_TEXT]
    if kind == "Radio":
        choices = block.get_config().get("choices") or []
        return choices[0][1] if choices else None
    return value


def _event_data(row: int, style: str) -> gr.EventData:
    values = {"default": [row], "none": None, "hostile": [HOSTILE_TEXT, -1]}[style]
    return gr.EventData(None, {"index": [0, 0], "value": None, "row_value": values, "selected": True})


def _call(
    demo: Any, fn: Any, name: str | None, style: str, row: int, state: SessionState
) -> tuple[str, str | None]:
    """(everything the handler answered, as text; the unhandled exception's name or None).

    ``state`` is the session's (the item open, the pair chosen, drafts): the page cannot send it,
    so it is what earlier handlers of this session left.
    """
    request = gr.Request(
        username=name,
        query_params={} if style != "hostile" else {"item": HOSTILE_TEXT},
        session_hash=f"{name}-{style}",
    )
    inputs = [None if getattr(b, "stateful", False) else _payload(b, style) for b in fn.inputs]
    try:
        with warnings.catch_warnings():  # gr.Warning toasts are warnings: shown, not raised
            warnings.simplefilter("ignore", UserWarning)
            out = asyncio.run(
                demo.process_api(
                    block_fn=fn,
                    inputs=inputs,
                    state=state,
                    request=request,
                    event_data=_event_data(row, style),
                )
            )
    except gr.Error:
        return "", None
    except Exception as exc:  # what the test looks for
        cause = exc.__cause__ or exc
        if isinstance(cause, gr.Error) or _in_gradio(cause):
            return "", None
        return "", f"{type(cause).__name__}: {str(cause)[:120]}"
    return json.dumps(out.get("data"), default=str, ensure_ascii=False), None


def _in_gradio(exc: BaseException) -> bool:
    """Raised by Gradio's own preprocessing of a malformed payload (a null for a checkbox group),
    before any handler of ours runs: the framework's refusal, not ours to word."""
    frame = exc.__traceback__
    last = None
    while frame is not None:
        last = frame.tb_frame.f_code.co_filename
        frame = frame.tb_next
    return last is not None and f"{Path(gr.__file__).parent}" in last and "/components/" in last


_ACTIONS: dict[int, list[str]] = {}


def _pair_actions(ctx: ReviewContext) -> list[str]:
    """Each VidHalluc pair's actions as the pair list joins them (``walking | running``)."""
    if id(ctx) not in _ACTIONS:
        from components.pairs.handlers import PairsContext

        assert ctx.store is not None
        pairs = PairsContext(ctx.catalog, ctx.store).pairs
        _ACTIONS[id(ctx)] = [" | ".join(a.values()) for a in pairs["actions"] if len(a) > 1]
    return _ACTIONS[id(ctx)]


def _leaks(text: str, ctx: ReviewContext) -> list[str]:
    """What a blind role may not receive, found in ``text``."""
    found = [c for c in (ANSWER_CANARY, NOTE_CANARY, REASON_CANARY) if c in text]
    found += [
        mark
        for mark in (
            "✓",
            "✗",
            "⚑",
            "hs-hit",
            "hs-miss",
            "hs-wrong",
            "hs-right",
            '"plotly"',
            "action: <b>",
            "official ",
            "HALLUCINATION>",
        )
        if mark in text
    ]
    found += [f"voter {v}" for v in VOTERS if re.search(rf"\b{v}\b", text)]
    found += [f"pair actions {a!r}" for a in _pair_actions(ctx) if a in text]
    findings = [f.detail for fs in ctx.catalog.findings.values() for f in fs if len(f.detail) > 20]
    found += [f"finding: {d[:40]}" for d in findings if d in text]
    return found


def _events_after(store: Any, last: int) -> list[Any]:
    """The events stored after the one numbered ``last``, oldest first (one indexed query, where
    reading the whole log after each of some 700 calls was a third of this file's time)."""
    with read_tx(store) as conn:
        e = label_events
        return list(conn.execute(select(e).where(e.c.id > last).order_by(e.c.id)))


def _rights(events: list[Any], name: str | None) -> list[str]:
    """New events a role had no right to write."""
    wrong = []
    for event in events:
        if name is None:
            wrong.append(f"a visitor wrote {event.field}")
        elif event.reviewer != name:
            wrong.append(f"{name} wrote as {event.reviewer}")
        elif event.kind == "adjudicate" and name not in ADJUDICATORS:
            wrong.append(f"{name} adjudicated")
        elif name in BLIND and event.scope == "final" and event.kind != "adjudicate":
            wrong.append(f"blind {name} wrote a final {event.field}")
    return wrong


def test_the_app_registers_handlers_to_try(setting: tuple[Any, ReviewContext, int]) -> None:
    demo, _, _ = setting
    handlers = [f for f in demo.fns.values() if f.fn is not None]
    assert len(handlers) > 80  # every event of every tab: enumerated, not listed


def _sweep(demo: Any, ctx: ReviewContext, name: str | None, row: int, *, open_item: bool) -> list[str]:
    """Every handler, three kinds of argument each, in one session; what went wrong, one line each.

    ``open_item``: the session first opens the item (a click on its row) and every call looks at
    it; else it is a fresh page where nothing was opened or chosen yet.
    """
    assert ctx.store is not None
    problems = []
    state = SessionState(demo)  # one session, as one browser tab holds it
    handlers = [f for f in demo.fns.values() if f.fn is not None]
    opened: list[int] = []
    last = _events_after(ctx.store, -1)[-1].id
    if open_item:
        for opener in [f for f in handlers if f.name == "on_select"]:  # a click on the item's row
            _call(demo, opener, name, "default", row, state)
        opened = [key for key, value in state.state_data.items() if value == row]
        assert opened, "the table's select handler opened no item"
    for fn in handlers:
        label = f"{fn.name or fn.fn.__name__}#{fn._id}"
        for style in ("default", "none", "hostile"):
            if opened:
                state[opened[0]] = row  # every call looks at the item (a step to the next one moved it)
            text, error = _call(demo, fn, name, style, row, state)
            if error is not None:
                problems.append(f"{label} ({style}): unhandled {error}")
            if name in BLIND:
                problems += [f"{label} ({style}): leaks {leak}" for leak in _leaks(text, ctx)]
            new = _events_after(ctx.store, last)
            last = max([last, *(e.id for e in new)])
            problems += [f"{label} ({style}): {w}" for w in _rights(new, name)]
    return problems


@pytest.mark.parametrize("role", list(ROLES))
def test_every_handler_as_every_role(setting: tuple[Any, ReviewContext, int], role: str) -> None:
    demo, ctx, row = setting
    assert _sweep(demo, ctx, ROLES[role], row, open_item=False) == []
    assert _sweep(demo, ctx, ROLES[role], row, open_item=True) == []


def test_the_sweep_sees_what_a_reviewer_may_see(setting: tuple[Any, ReviewContext, int]) -> None:
    """The canaries reach a reviewer who may see them: a blind role's clean answers mean something."""
    demo, ctx, row = setting
    state = SessionState(demo)
    handlers = [f for f in demo.fns.values() if f.fn is not None]
    for opener in [f for f in handlers if f.name == "on_select"]:
        _call(demo, opener, "alice", "default", row, state)
    opened = [key for key, value in state.state_data.items() if value == row]
    seen = set()
    for fn in handlers:
        state[opened[0]] = row
        seen.update(_leaks(_call(demo, fn, "alice", "default", row, state)[0], ctx))
    assert {ANSWER_CANARY, NOTE_CANARY, "✓", "✗", "⚑", '"plotly"', "official "} <= seen
    assert any(s.startswith("pair actions") for s in seen)
    agreement = [f for f in handlers if any(getattr(b, "elem_id", None) == "rv-agreement" for b in f.outputs)]
    assert agreement, "no handler shows the agreement figures"
    said = "".join(_call(demo, f, "carol", "default", row, SessionState(demo))[0] for f in agreement)
    assert {f"voter {v}" for v in VOTERS} <= set(_leaks(said, ctx))  # an adjudicator sees who voted


def _app_with_the_store_down(shared: ReviewContext) -> Any:
    """The app over ``shared``'s catalog and roles, its store a PostgreSQL URL nothing listens on."""
    dead = open_store("postgresql://halluscope@127.0.0.1:9/halluscope", migrate=False)
    ctx = ReviewContext(
        shared.catalog, dead, shared.reviewers, adjudicators=shared.adjudicators, blind=shared.blind
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        return app.build_app(shared.catalog, ctx)


def test_every_handler_says_why_when_the_store_is_down(setting: tuple[Any, ReviewContext, int]) -> None:
    """Issue 19, finding 10: with PostgreSQL down every read answered ``{"error": null}``.

    The store here is a PostgreSQL URL nothing listens on (what a stopped server looks like to the
    app): each handler either answers or refuses with the one line that says the store failed.
    """
    _, shared, row = setting
    demo = _app_with_the_store_down(shared)
    handlers = [f for f in demo.fns.values() if f.fn is not None]
    problems, said = [], set()
    for name in ("alice", "bob", "carol", None):
        state = SessionState(demo)
        for opener in [f for f in handlers if f.name == "on_select"]:
            _call(demo, opener, name, "default", row, state)
        for fn in handlers:
            request = gr.Request(username=name, query_params={}, session_hash=f"down-{name}")
            inputs = [None if getattr(b, "stateful", False) else _payload(b, "default") for b in fn.inputs]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    asyncio.run(
                        demo.process_api(
                            block_fn=fn,
                            inputs=inputs,
                            state=state,
                            request=request,
                            event_data=_event_data(row, "default"),
                        )
                    )
            except gr.Error as exc:
                if "label store" in str(exc.message):
                    said.add(str(exc.message))
                    if "\n" in str(exc.message) or "Traceback" in str(exc.message):
                        problems.append(f"{fn.name}: {exc.message!r}")
            except Exception as exc:
                cause = exc.__cause__ or exc
                if not (isinstance(cause, gr.Error) or _in_gradio(cause)):
                    problems.append(f"{fn.name} as {name}: unhandled {type(cause).__name__}: {cause}")
    assert problems == [], "\n".join(problems)
    assert said, "no handler touched the store"
    assert all("Connection refused" in m or "connection" in m.lower() for m in said), said


def test_where_it_fails_refuses_rather_than_count_against_official_gold_when_the_store_is_down(
    setting: tuple[Any, ReviewContext, int],
) -> None:
    """Its line says "counted against the corrected gold": with the store down it must not quietly
    count against the official gold (it once did, where the overview said the store failed)."""
    _, shared, row = setting
    demo = _app_with_the_store_down(shared)
    counting = [
        f
        for f in demo.fns.values()
        if f.fn is not None
        and f.name in ("shown", "items")
        and any(getattr(b, "elem_id", None) in ("fail-line", "fail-item") for b in f.outputs)
    ]
    assert sorted(f.name for f in counting) == ["items", "shown", "shown"], [f.name for f in counting]
    for fn in counting:
        inputs = [None if getattr(b, "stateful", False) else _payload(b, "default") for b in fn.inputs]
        request = gr.Request(username=ROLES["reviewer"], query_params={}, session_hash="fails-down")
        with pytest.raises(gr.Error, match="label store"), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            asyncio.run(
                demo.process_api(
                    block_fn=fn,
                    inputs=inputs,
                    state=SessionState(demo),
                    request=request,
                    event_data=_event_data(row, "default"),
                )
            )
