"""The pair-validation tab: pair list, synchronised player, checks form, team, exports.

:func:`build_pairs_tab` builds it inside the caller's ``gr.Tab``; the handlers it wires live in
:mod:`components.pairs.handlers` (plain functions) and :mod:`components.pairs.media`. Keys (the
check keys of :func:`~.validation.check_keys` and :data:`~.validation.SAVE_KEY`)
come from a listener installed by the keys legend: it acts only while the tab is visible and
ignores keys typed into text fields, so it coexists with the app's own listener
(:mod:`components.keys` uses j / k / space and the review letters, this one digits and Enter).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from analysis.load.catalog import Catalog
from analysis.review.pairs.previews import MediaJobs
from analysis.review.pairs.validation import SAVE_KEY, PairChecks, check_keys, pair_spec
from analysis.store import Identity, Store
from components.browse.item_changes import SessionCounts
from components.browse.render import md_code, md_text
from components.keys import TYPING_JS
from components.pairs import handlers as ph
from components.pairs import media as pm
from components.pairs.sync_player import PLAYER_ID, PLAYER_JS

ROOT_ID = "pairs-tab-root"
SAVE_ID = "pairs-save"
N_KEYS = 2 * ph.MAX_CLIPS + 1
IdentityOf = Callable[[gr.Request], "Identity | None"]

KEYS_JS = (
    """
if (!window.hsPairKeys) {
  window.hsPairKeys = true;
  const typing = __TYPING__;
  const shown = () => {
    const root = document.getElementById('__ROOT__');
    return !!root && (root.checkVisibility ? root.checkVisibility() : root.offsetParent !== null);
  };
  const button = (id) => {
    const el = document.getElementById(id);
    return el && el.tagName !== 'BUTTON' ? el.querySelector('button') : el;
  };
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || typing(document.activeElement)) return;
    if (!shown()) return;
    const id = /^[1-9]$/.test(e.key) ? 'pairs-key-' + e.key : (e.key === '__SAVE__' ? '__SAVE_ID__' : null);
    const b = id && button(id);
    if (b) { e.preventDefault(); b.click(); }
  });
}
""".replace("__TYPING__", TYPING_JS)
    .replace("__ROOT__", ROOT_ID)
    .replace("__SAVE__", SAVE_KEY)
    .replace("__SAVE_ID__", SAVE_ID)
)


def _legend(saves: bool = True) -> str:
    """The keys of the checks, and of Save & next for one who may save (a visitor is told to sign in)."""
    keys = " · ".join(
        f"<kbd>{k}</kbd> {c.replace('_', ' ')}{'' if i is None else ' ' + ph.LETTERS[i]}"
        for k, c, i in check_keys(2)
    )
    save = f"<kbd>{SAVE_KEY}</kbd> save &amp; next" if saves else "sign in to save"
    return (
        f'<div class="hs-pair-keys"><b>Keys</b> {keys} · {save} '
        "(toggles: open → yes ↔ no; a group of three clips takes 1-3, 4-6, 7)</div>"
    )


def _radio_updates(checks: PairChecks) -> list[Any]:
    """Updates of the seven toggles: the pair's checks, labels with their keys, extra ones hidden."""
    n = len(checks.clips)
    slots = {(c, i): k for k, c, i in check_keys(n)}
    out: list[Any] = []
    for criterion in ("clear_action", "single_action"):
        for i in range(ph.MAX_CLIPS):
            if i >= n:
                out.append(gr.update(visible=False, value=None))
                continue
            value = getattr(checks, criterion)[i]
            what = f"{criterion.replace('_', ' ')} in {ph.LETTERS[i]}"
            label = f"{slots[(criterion, i)]} · {what} ({checks.clips[i]})"
            out.append(gr.update(visible=True, label=label, value=_yes_no(value)))
    out.append(
        gr.update(
            label=f"{slots[('actions_differ', None)]} · the clips show different actions",
            value=_yes_no(checks.actions_differ),
        )
    )
    return out


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else ("yes" if value else "no")


TEAM_HIDDEN_VISITOR = "Sign in to see the team's progress and agreement."
"""The Team section's line for a visitor."""
TEAM_HIDDEN_BLIND = "The team's progress and agreement are hidden while you review blind."
"""The Team section's line for a blind reviewer (signed in: not told to sign in)."""


def build_pairs_tab(
    catalog: Catalog,
    store: Store,
    identity_of: IdentityOf,
    *,
    k: int = 2,
    preview_dir: Path | None = None,
    reviewers: tuple[str, ...] = (),
    gold_files: tuple[Path, ...] = (),
    adjudicators: frozenset[str] | None = None,
    blind: frozenset[str] = frozenset(),
    scores: dict[str, dict[str, Any]] | None = None,
    clip_dir: Path | None = None,
    dino_dir: Path | None = None,
) -> ph.PairsContext:
    """Build the pair-validation UI inside the current ``gr.Tab`` / ``gr.Blocks`` context.

    ``identity_of(request)`` gives the signed-in reviewer, or None: the tab is then read-only and
    every write is refused on the server. ``k`` reviewers are assigned per pair (over
    ``reviewers``, everyone who already voted and whoever is signed in). ``preview_dir`` turns on
    thumbnails and side-by-side previews (cached there). ``scores`` are ``pairs score`` lines by
    pair id (``serve --pair-scores``); ``clip_dir`` and ``dino_dir`` local checkpoints that compute
    them here and draw DINOv2's saliency (``docs/pair-scores.md``). Returns the handlers' context.
    """
    jobs = MediaJobs(preview_dir, workers=2) if preview_dir is not None else None
    ctx = ph.PairsContext(
        catalog,
        store,
        k=k,
        reviewers=tuple(reviewers),
        jobs=jobs,
        gold_files=gold_files,
        adjudicators=adjudicators,
        blind=blind,
        scores=dict(scores or {}),
        clip_dir=clip_dir,
        dino_dir=dino_dir,
    )
    w: dict[str, Any] = {}
    with gr.Column(elem_id=ROOT_ID):
        w["who"] = gr.Markdown(elem_id="pairs-who")
        with gr.Row(equal_height=False):
            # 3 of 8: at 1280 px the list shows its status and decision columns (at 2 of 7 they
            # were cut at "dec", past the box's edge)
            with gr.Column(scale=3, min_width=300):
                _build_list(ctx, w)
            with gr.Column(scale=5):
                w["info"] = gr.Markdown(elem_id="pairs-info")
                w["player"] = gr.HTML(js_on_load=PLAYER_JS, elem_id=PLAYER_ID)
                _build_saliency(ctx, w)
                w["keys"] = gr.HTML(_legend(), js_on_load=KEYS_JS, elem_id="pairs-keys")
                _build_form(w)
        # the whole width: in the player's column (640 px at 1280) answers broke a word a line
        w["grid"] = gr.Dataframe(
            interactive=False,
            wrap=True,
            max_height=420,
            elem_id="pairs-answers",
            label="Questions and every model's answer per clip",
        )
        _build_team(w)
        _build_exports(ctx, identity_of)
        w["timer"] = gr.Timer(1.0, active=False)
    w["checks"], w["job"], w["thumb_jobs"] = gr.State(None), gr.State(""), gr.State({})
    w["shown_ticket"] = gr.State(0)  # which pair shown to this page the thumbnail jobs belong to
    _wire(ctx, identity_of, w)
    return ctx


def _build_saliency(ctx: ph.PairsContext, w: dict[str, Any]) -> None:
    """DINOv2's saliency of both clips at the playhead (with ``serve --pair-dino`` only)."""
    shown = ctx.dino_dir is not None
    w["playhead"] = gr.Number(0.0, visible=False)
    w["saliency_go"] = gr.Button(
        "DINOv2 saliency at the playhead", size="sm", visible=shown, elem_id="pairs-saliency-go"
    )
    w["saliency"] = gr.HTML("", elem_id="pairs-saliency", visible=shown)


def _build_list(ctx: ph.PairsContext, w: dict[str, Any]) -> None:
    """The pair picker and list, the current pair's thumbnails, and the preview job."""
    ids = ctx.ids
    w["pick"] = gr.Dropdown(ids, value=ids[0] if ids else None, label="Pair", elem_id="pairs-pick")
    scored = bool(ctx.scores) or (ctx.clip_dir is not None and ctx.dino_dir is not None)
    with gr.Row(equal_height=True, visible=scored, elem_id="pairs-score-controls") as w["score_controls"]:
        w["breaking"] = gr.Checkbox(
            False, label="Only pairs that break the selection rule", elem_id="pairs-breaking"
        )
        w["sort"] = gr.Radio(
            list(ph.SORTS), value=ph.SORTS[0], label="Sort the list by", elem_id="pairs-sort"
        )
    w["compute"] = gr.Button(
        "Compute pair scores (CLIP, DINOv2)",
        size="sm",
        visible=ctx.clip_dir is not None and ctx.dino_dir is not None,
        elem_id="pairs-compute",
    )
    w["compute_status"] = gr.Markdown(elem_id="pairs-compute-status")
    w["table"] = gr.Dataframe(
        interactive=False,
        max_height=360,
        elem_id="pairs-list",
        label="Pairs (● = in my queue; select a row to open)",
    )
    w["thumbs"] = gr.HTML(elem_id="pairs-thumbs", js_on_load=None)
    with gr.Row():
        w["preview"] = gr.Button("Make side-by-side preview", size="sm", elem_id="pairs-preview")
        w["preview_file"] = gr.DownloadButton(
            "Download preview", visible=False, size="sm", elem_id="pairs-preview-file"
        )
    w["preview_status"] = gr.Markdown(elem_id="pairs-preview-status")


def _build_form(w: dict[str, Any]) -> None:
    """The checks as explicit toggles, the live decision, the note, save and adjudication."""

    def toggle(kind: str, i: int) -> gr.Radio:
        return gr.Radio(
            ["yes", "no"], label=f"{kind} {ph.LETTERS[i]}", elem_id=f"pairs-{kind}-{i}", min_width=160
        )

    with gr.Group(elem_id="pairs-form"):
        with gr.Row():
            clear = [toggle("clear", i) for i in range(ph.MAX_CLIPS)]
        with gr.Row():
            single = [toggle("single", i) for i in range(ph.MAX_CLIPS)]
        differ = gr.Radio(["yes", "no"], label="actions differ", elem_id="pairs-differ")
        w["radios"] = [*clear, *single, differ]
        w["decision"] = gr.Markdown(elem_id="pairs-decision")
        w["note"] = gr.Textbox(label="Note", lines=1, elem_id="pairs-note")
        with gr.Row():
            w["save"] = gr.Button(f"Save & next ({SAVE_KEY})", variant="primary", elem_id=SAVE_ID)
            w["reason"] = gr.Textbox(label="Adjudication reason", lines=1, scale=2, elem_id="pairs-reason")
            w["settle"] = gr.Button("Adjudicate (final)", elem_id="pairs-adjudicate")
        w["message"] = gr.Markdown(elem_id="pairs-message")
    # clicked by the key listener (the same path as a mouse click), never shown
    w["key_buttons"] = [
        gr.Button(str(n), visible="hidden", elem_id=f"pairs-key-{n}") for n in range(1, N_KEYS + 1)
    ]


def _build_team(w: dict[str, Any]) -> None:
    """Progress, per-reviewer counts, agreement per criterion and the disagreement queue."""
    with gr.Accordion("Team: progress, agreement, disagreements", open=False, elem_id="pairs-team"):
        w["team_line"] = gr.Markdown(elem_id="pairs-progress")
        w["refresh"] = gr.Button("Refresh", size="sm")
        with gr.Row():
            w["people"] = gr.Dataframe(interactive=False, label="Per reviewer", elem_id="pairs-people")
            w["agree"] = gr.Dataframe(
                interactive=False, label="Agreement per criterion", elem_id="pairs-agreement"
            )
        w["split"] = gr.Dataframe(
            interactive=False,
            elem_id="pairs-disagreements",
            label="Disagreement queue (select a row to open and adjudicate the pair)",
        )


_WIDTHS = {"task": "52px", "clip": "56px", "question": "260px", "options": "200px", "gold": "64px"}
"""The answer grid's columns, in pixels: as shares of a 640 px table, 5 % broke "bqa" and "Yes"
one letter a line and a model's answer one word a line. A grid wider than its box scrolls (three
models fill the tab's 1,240 px at a 1280 px window: 1,142 px; at 140 px an answer took three
lines and 40 % of the width stayed empty)."""
_ANSWER = "170px"
"""Each model's answer column."""


def grid_widths(columns: list[str]) -> list[str]:
    """The answer grid's column widths (a blind reviewer's grid has no gold nor models)."""
    return [_WIDTHS.get(c, _ANSWER) for c in columns]


def _build_exports(ctx: ph.PairsContext, identity_of: IdentityOf) -> None:
    """A button that builds the files from the store as it is now, then one download button each.

    (A DownloadButton's callable value runs when the page loads, not on click: it would miss every
    validation saved since.)
    """
    with gr.Accordion("Exports", open=False, elem_id="pairs-exports"):
        build = gr.Button("Build exports from the current validations", size="sm", elem_id="pairs-export")
        built = gr.Markdown(elem_id="pairs-export-status")
        with gr.Row():
            files = [
                gr.DownloadButton(label, visible=False, size="sm", elem_id=f"pairs-export-{name}")
                for name, label in (
                    ("json", "Validated pairs (JSON)"),
                    ("csv", "Validated pairs (CSV)"),
                    ("gold", f"Kept gold: {' + '.join(pair_spec().gold_names)} (zip)"),
                )
            ]

    def exports(request: gr.Request) -> list[Any]:
        me = identity_of(request)
        if not ctx.access(me).sees_team:  # validations are reviewers' votes and notes
            return ["Sign in to export the validations.", *[gr.update(visible=False)] * len(files)]
        made: list[Any] = [
            gr.update(value=ph.export_json(ctx, me), visible=True),
            gr.update(value=ph.export_csv(ctx, me), visible=True),
        ]
        try:
            made.append(gr.update(value=ph.export_gold_zip(ctx, me), visible=True))
            line = "Built from the current validations."
        except ph.Refused as exc:
            made.append(gr.update(visible=False))
            line = f"Pair lists built; ⚠ {md_text(exc)}"
        return [line, *made]

    build.click(exports, None, [built, *files], concurrency_limit=2, api_visibility="private")


def _wire(ctx: ph.PairsContext, identity_of: IdentityOf, w: dict[str, Any]) -> None:
    radios, checks = w["radios"], w["checks"]
    free: dict[str, Any] = {"concurrency_limit": None, "api_visibility": "private"}
    # form events share one queue slot: a key press always sees the previous press's checks
    form: dict[str, Any] = {
        "concurrency_id": "pairs-form",
        "concurrency_limit": 1,
        "api_visibility": "private",
    }
    screen_out = [
        w["pick"],
        w["player"],
        w["info"],
        w["grid"],
        checks,
        *radios,
        w["decision"],
        w["note"],
        w["thumbs"],
        w["thumb_jobs"],
        w["shown_ticket"],
        w["timer"],
    ]
    team_out = [w["team_line"], w["people"], w["agree"], w["split"], w["table"]]

    shown_pairs = SessionCounts()  # per page session, the pairs shown: the newest one's thumbnails count

    def screen(pair_id: str | None, me: Identity | None, request: gr.Request | None) -> list[Any]:
        if not pair_id:
            return [gr.update()] * len(screen_out)
        try:
            shown = ph.show_pair(ctx, pair_id, me)
        except ph.Refused as exc:  # an id the list does not hold: one line, no traceback
            raise gr.Error(md_text(exc), print_exception=False) from exc
        started = pm.start_thumbnails(ctx, pair_id)
        grid = gr.update(value=shown.grid, column_widths=grid_widths(list(shown.grid.columns)))
        return [
            gr.update(value=pair_id),
            shown.player,
            shown.info,
            grid,
            shown.checks,
            *_radio_updates(shown.checks),
            ph.decision_text(shown.checks),
            shown.note,
            "",
            started,
            shown_pairs.take(request),
            gr.Timer(active=bool(started)),
        ]

    def open_pair(pair_id: str | None, request: gr.Request) -> list[Any]:
        return screen(pair_id, identity_of(request), request)

    def chosen(evt: gr.SelectData, request: gr.Request) -> list[Any]:
        picked = evt.row_value[0] if isinstance(evt.row_value, list) and evt.row_value else None
        return screen(
            str(picked) if picked is not None else None, identity_of(request), request
        )  # first column

    def teams(breaking: bool, sort: str, request: gr.Request) -> list[Any]:
        me = identity_of(request)
        listed = ph.pair_list(ctx, me, breaking=bool(breaking), sort=str(sort or ph.SORTS[0]))
        access = ctx.access(me)
        if not access.sees_team:  # reviewers' data: a visitor or blind reviewer gets the list
            hidden = gr.update(value=None, visible=False)  # an empty frame showed headers "1 2 3"
            return [
                TEAM_HIDDEN_BLIND if access.signed_in else TEAM_HIDDEN_VISITOR,
                hidden,
                hidden,
                hidden,
                listed,  # as the viewer: a blind reviewer's holds no actions
            ]
        line, *frames = ph.team(ctx, me)
        return [line, *(gr.update(value=frame, visible=True) for frame in frames), listed]

    def listed(breaking: bool, sort: str, request: gr.Request) -> pd.DataFrame:
        return ph.pair_list(ctx, identity_of(request), breaking=bool(breaking), sort=str(sort or ph.SORTS[0]))

    def computed(
        breaking: bool,
        sort: str,
        request: gr.Request,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 (Gradio's own way)
    ) -> list[Any]:
        if identity_of(request) is None:  # work on the server's cores: reviewers only
            return ["⚠ Sign in to compute pair scores.", gr.update()]
        try:
            line = ph.compute_scores(ctx, 8, lambda done, total: progress(done / max(total, 1), desc="pairs"))
        except ph.Refused as exc:
            return [f"⚠ {md_text(exc)}", gr.update()]
        return [line, listed(breaking, sort, request)]

    def salient(pair_id: str | None, seconds: float | None) -> str:
        try:
            return ph.saliency_html(ctx, ctx.known(pair_id), float(seconds or 0.0))
        except ph.Refused as exc:
            return f"<p>⚠ {escape(str(exc))}</p>"

    def whoami(request: gr.Request) -> list[Any]:
        """Who is signed in, and only the buttons they may use (a visitor's were refused on click)."""
        me = identity_of(request)
        line = f"Signed in as **{md_text(me.name)}**." if me else "**Read-only**: sign in to validate pairs."
        settle = gr.update(visible=ctx.may_adjudicate(me))
        return [line, gr.update(visible=me is not None), settle, settle, _legend(saves=me is not None)]

    def toggled(state: PairChecks | None, *values: str | None) -> tuple[PairChecks | None, str]:
        if state is None:  # no pair shown (the store could not be read): nothing to check
            return None, ""
        n = ph.MAX_CLIPS
        new = ph.set_checks(state, values[:n], values[n : 2 * n], values[2 * n])
        return new, ph.decision_text(new)

    def keyed(key: str) -> Callable[..., list[Any]]:
        def run(state: PairChecks | None) -> list[Any]:
            if state is None:
                return [gr.update()] * (len(radios) + 2)
            new = ph.on_key(state, key)
            return [new, *_radio_updates(new), ph.decision_text(new)]

        return run

    def saved(state: PairChecks | None, text: str, request: gr.Request) -> list[Any]:
        me = identity_of(request)
        if state is None:
            return ["", *[gr.update()] * len(screen_out)]
        try:
            following = ph.save(ctx, state, text, me)
        except ph.Refused as exc:
            gr.Warning(escape(str(exc), quote=False))  # toasts render HTML
            return [f"⚠ {md_text(exc)}", *[gr.update()] * len(screen_out)]
        done = f"Saved {md_code(state.pair_id)} ({state.decision})."
        if not following:
            return [done + " Your queue is empty.", *[gr.update()] * len(screen_out)]
        return [done + f" Next: {md_code(following)}.", *screen(following, me, request)]

    def settled(state: PairChecks | None, why: str, request: gr.Request) -> str:
        if state is None:
            return ""
        try:
            ph.adjudicate(ctx, state, why, identity_of(request))
        except ph.Refused as exc:
            gr.Warning(escape(str(exc), quote=False))  # toasts render HTML
            return f"⚠ {md_text(exc)}"
        return f"Adjudicated {md_code(state.pair_id)}: **{state.decision}**."

    def tick(job_id: str, thumbs: dict[str, str], ticket: int | None, request: gr.Request) -> list[Any]:
        """The preview's progress and the shown pair's thumbnails; the timer stops when both are done.

        A tick sent before another pair was shown polls the jobs of the pair before: its strip and
        its stop are dropped (they would show that pair's frames under this one and stop the timer
        before this pair's frames came).
        """
        line, path, finished = pm.poll_preview(ctx, job_id)
        strip, thumbs_done = pm.poll_thumbnails(ctx, thumbs)
        download = gr.update(value=path, visible=True) if path else gr.update()
        current = shown_pairs.is_latest(request, int(ticket or 0))
        return [
            line or gr.update(),
            download,
            strip if current else gr.skip(),
            "" if finished else job_id,
            gr.Timer(active=not (finished and thumbs_done)) if current else gr.skip(),
        ]

    def previewed(pair_id: str | None) -> list[Any]:
        try:
            job_id = pm.start_preview(ctx, ctx.known(pair_id))
        except ph.Refused as exc:
            return [f"⚠ {md_text(exc)}", "", gr.update(visible=False), gr.Timer()]
        return ["Preview queued…", job_id, gr.update(visible=False), gr.Timer(active=True)]

    root = gr.context.Context.root_block
    assert root is not None, "build_pairs_tab must run inside a gr.Blocks"
    root.load(whoami, None, [w["who"], w["save"], w["reason"], w["settle"], w["keys"]], **free)
    root.load(open_pair, w["pick"], screen_out, **free)
    view_in = [w["breaking"], w["sort"]]
    root.load(teams, view_in, team_out, **free)
    for control in (w["breaking"], w["sort"]):
        control.input(listed, view_in, w["table"], **free)
    w["compute"].click(
        computed, view_in, [w["compute_status"], w["table"]], concurrency_limit=1, api_visibility="private"
    )
    # the playhead is read in the browser (the sync player's lead clip) and handed to the server
    w["saliency_go"].click(
        salient,
        [w["pick"], w["playhead"]],
        w["saliency"],
        js="(pair, t) => [pair, (window.hsPairPlayer && window.hsPairPlayer.times()[0]) || 0]",
        **free,
    )
    w["pick"].input(open_pair, w["pick"], screen_out, **free)
    w["table"].select(chosen, None, screen_out, **free)
    w["split"].select(chosen, None, screen_out, **free)
    for radio in radios:
        radio.input(toggled, [checks, *radios], [checks, w["decision"]], **form)
    for n, button in enumerate(w["key_buttons"], start=1):
        button.click(keyed(str(n)), checks, [checks, *radios, w["decision"]], trigger_mode="multiple", **form)
    w["save"].click(saved, [checks, w["note"]], [w["message"], *screen_out], **form).then(
        teams, view_in, team_out, **free
    )
    w["settle"].click(settled, [checks, w["reason"]], w["message"], **form).then(
        teams, view_in, team_out, **free
    )
    w["refresh"].click(teams, view_in, team_out, **free)
    preview_out = [w["preview_status"], w["job"], w["preview_file"], w["timer"]]
    w["preview"].click(previewed, w["pick"], preview_out, **free)
    w["timer"].tick(
        tick,
        [w["job"], w["thumb_jobs"], w["shown_ticket"]],
        [w["preview_status"], w["preview_file"], w["thumbs"], w["job"], w["timer"]],
        **free,
    )
