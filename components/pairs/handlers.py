"""Handlers of the pair-validation tab, as plain functions over a :class:`PairsContext`.

Nothing here imports gradio: :mod:`components.pairs.tab` wires these into components, and the
tests call them directly. Every write takes the identity the tab read from the request; None
(nobody signed in) is refused here, on the server, whatever the page sent. Every read of the
team's validations (pair list, team panel, exports) goes through :meth:`PairsContext.viewer`: the
Items tab's vote-visibility rule (:mod:`analysis.store.visibility`), applied here too.
"""

from __future__ import annotations

import json
import threading
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.benchmarks.base import PairView
from analysis.load.catalog import Catalog
from analysis.review.access import Access, Roles
from analysis.review.corrected import corrected_view
from analysis.review.pairs.export import export_kept_gold, export_pairs_csv, export_pairs_json
from analysis.review.pairs.previews import MediaInfo, MediaJobs, probe
from analysis.review.pairs.validation import (
    PairChecks,
    adjudicate_pair,
    agreement_summary,
    assign_pairs,
    check_labels,
    decisions,
    disagreement_queue,
    my_queue,
    my_validation,
    pair_owner,
    pair_spec,
    press,
    progress,
    save_validation,
    validated,
)
from analysis.store import Identity, InvalidLabel, Store, StoreError
from analysis.store.reviewers import REVIEWERS_PER_ITEM, round_team
from analysis.store.visibility import Viewer
from components.browse.render import md_code, md_text
from components.pairs.sync_player import ClipPanel, player_html
from components.scratch import fresh_dir

LETTERS = "ABCDEFGH"
MAX_CLIPS = 3
"""Clips a group may have in the form (groups of two or three)."""


class Refused(Exception):
    """A write the tab will not do; the message is shown to the reviewer."""


@dataclass
class PairsContext:
    """Everything the tab's handlers share; built once when the tab is built."""

    catalog: Catalog
    store: Store
    k: int = REVIEWERS_PER_ITEM
    reviewers: tuple[str, ...] = ()
    """Reviewers a round is assigned to, besides everyone who already voted and the current one."""
    jobs: MediaJobs | None = None
    gold_files: tuple[Path, ...] = ()
    """The gold files the kept-pairs export filters (found by the media root when empty)."""
    adjudicators: frozenset[str] | None = None
    """Who may settle a pair (None: any signed-in reviewer who holds no vote on it)."""
    blind: frozenset[str] = frozenset()
    """Reviewers who see no gold, verdict or other reviewer's validation."""
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Pair id -> its line of ``halluscope pairs score`` (``serve --pair-scores``, or computed here)."""
    clip_dir: Path | None = None
    """A local CLIP checkpoint (``serve --pair-clip``): scores can be computed in the app."""
    dino_dir: Path | None = None
    """A local DINOv2 checkpoint (``serve --pair-dino``): scores and saliency in the app."""
    ids: list[str] = field(init=False)
    """The pairs' ids in the catalogue's order: all the tab needs when it is built."""
    _probes: dict[Path, MediaInfo] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.ids = pair_spec().ids(self.catalog.table)
        self.scores = {str(k): dict(v) for k, v in self.scores.items()}
        self._catalogue: pd.DataFrame | None = None
        self._catalogue_lock = threading.Lock()
        self._encoders: dict[str, Any] = {}

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per pair (:attr:`PairSpec.catalogue`, with the scores taken), made on first use.

        Made when a page first asks for a pair, not while the app is built: about half the build
        at a million rows, before the first page could be served.
        """
        with self._catalogue_lock:
            if self._catalogue is None:
                self._catalogue = pair_spec().catalogue(self.catalog.table)
                self._merge_scores(self._catalogue)
            return self._catalogue

    def set_scores(self, scores: dict[str, dict[str, Any]]) -> None:
        """Take pair scores: shown in the list and the player, carried by the exports."""
        pairs = self.pairs
        with self._catalogue_lock:
            self.scores = {str(k): dict(v) for k, v in scores.items()}
            self._merge_scores(pairs)

    def _merge_scores(self, pairs: pd.DataFrame) -> None:
        merged = [
            {**dict(old or {}), **_numbers(self.scores.get(str(p), {}))}
            for p, old in zip(pairs["pair_id"], pairs["similarity"], strict=True)
        ]
        pairs["similarity"] = pd.Series(merged, index=pairs.index, dtype=object)

    def encoder(self, kind: str) -> Any:
        """The configured checkpoint of ``kind`` (``clip`` / ``dino``), loaded once; Refused when none."""
        folder = self.clip_dir if kind == "clip" else self.dino_dir
        if folder is None:
            raise Refused(f"No {kind.upper()} checkpoint is configured (halluscope serve --pair-{kind} DIR).")
        if kind not in self._encoders:
            from analysis.errors import UsageError
            from analysis.review.pairs.embed import load_encoder

            try:
                self._encoders[kind] = load_encoder(folder, kind)
            except UsageError as exc:
                raise Refused(str(exc)) from exc
        return self._encoders[kind]

    def known(self, pair_id: object) -> str:
        """``pair_id`` when it names a pair of the catalogue; :class:`Refused` otherwise.

        A pair id comes from the page (a row of the list, the box, a stale tab): anything else than
        a listed id is refused here in one line, before any lookup can fail on it.
        """
        if not isinstance(pair_id, str) or not pair_id or not (self.pairs["pair_id"] == pair_id).any():
            shown = str(pair_id)[:60] if pair_id is not None else "none"
            raise Refused(f"No pair {shown!r} in the list.")
        return pair_id

    def clips(self, pair_id: str) -> tuple[str, ...]:
        """The clip ids of a pair, in file order (KeyError for an unknown pair)."""
        rows = self.pairs[self.pairs["pair_id"] == pair_id]
        if rows.empty:
            raise KeyError(f"no pair {pair_id!r}")
        return tuple(rows.iloc[0]["clips"])

    def media_path(self, pair_id: str, clip: str) -> Path | None:
        """Where a clip's video is on disk (None when no media root holds it)."""
        row = self.pairs[self.pairs["pair_id"] == pair_id].iloc[0]
        return self.catalog.resolver(pair_owner()).resolve(row["media"].get(clip))

    def probe(self, path: Path) -> MediaInfo:
        """:func:`analysis.review.pairs.previews.probe`, once per file for the life of the app."""
        if path not in self._probes:
            self._probes[path] = probe(path)
        return self._probes[path]

    def access(self, me: Identity | None) -> Access:
        """What ``me`` may see and do (:mod:`analysis.review.access` decides)."""
        roles = Roles(self.adjudicators or frozenset(), self.blind)
        return Access.of(me.name if me is not None else None, roles, writable=True)

    def may_adjudicate(self, me: Identity | None) -> bool:
        """Whether ``me`` may settle a pair: anyone signed in when no adjudicators are named."""
        return me is not None and (self.adjudicators is None or self.access(me).adjudicator)

    def viewer(self, me: Identity | None) -> Viewer:
        """Who reads the team's validations: a visitor sees none, an adjudicator every vote."""
        return self.access(me).viewer

    def assignments(self, me: Identity | None = None) -> pd.DataFrame:
        """The round's assignment: ``k`` reviewers per pair over the team (:func:`round_team`)."""
        voted: Any = [] if self.reviewers else check_labels(self.store)["reviewer"].astype(str)
        team = round_team(self.reviewers, voted, me.name if me else None)
        if not team:
            return pd.DataFrame({"pair_id": pd.Series(dtype=str), "reviewer": pd.Series(dtype=str)})
        return assign_pairs(self.pairs["pair_id"].astype(str), team, min(self.k, len(team)))


@dataclass(frozen=True)
class PairScreen:
    """What the tab shows for one pair."""

    pair_id: str
    player: str
    info: str
    grid: pd.DataFrame
    checks: PairChecks
    note: str


def _pair_table(ctx: PairsContext, pair_id: str) -> pd.DataFrame:
    """The pair's rows against the store's corrected gold, as every other view shows them.

    The tab showed the official gold (and verdicts against it) after a correction (issue 20).
    """
    rows = ctx.catalog.pair_rows(pair_owner(), ctx.known(pair_id))
    table = ctx.catalog.table.iloc[rows] if rows.size else ctx.catalog.table
    return corrected_view(table, ctx.store)


def panels(ctx: PairsContext, pair_id: str, me: Identity | None = None) -> list[ClipPanel]:
    """The player's view of each clip: path, probe status, duration, action and caption.

    The action (the correct MCQ choice) and a caption carried by the record are the answer key:
    left empty for a viewer who may not see gold.
    """
    view = pair_spec().view(ctx.known(pair_id), _pair_table(ctx, pair_id))
    key = ctx.access(me).sees_gold
    out = []
    for letter, clip in zip(LETTERS, view.clips, strict=False):
        path = ctx.media_path(pair_id, clip.clip_id)
        info = ctx.probe(path) if path is not None else None
        status = info.status if info is not None else "missing"
        message = info.message if info is not None else f"{clip.media}: not under the media roots"
        out.append(
            ClipPanel(
                clip.clip_id,
                letter,
                path,
                status,
                message,
                info.duration if info is not None else None,
                clip.action if key else "",
                clip.caption if key else "",
            )
        )
    return out


OWN_VALIDATION = "You validated this pair: another adjudicator settles it."
"""Said on a pair an adjudicator validated (the store refuses their adjudication of it)."""


def show_pair(ctx: PairsContext, pair_id: str, me: Identity | None) -> PairScreen:
    """Load a pair: the player, its questions and answers, and the reviewer's saved checks."""
    view = pair_spec().view(ctx.known(pair_id), _pair_table(ctx, pair_id))
    clips = tuple(c.clip_id for c in view.clips)
    checks, note = PairChecks.blank(pair_id, clips), ""
    if me is not None:
        checks, note = my_validation(ctx.store, pair_id, clips, me)
    grid = _grid(view, clips)
    if not ctx.access(me).sees_gold:  # gold and every model's verdict stay on the server
        grid = grid[["task", "clip", "question", "options"]]
    models = ", ".join(md_text(m) for m in view.models) or "none"
    info = f"**Pair {md_code(pair_id)}** · {len(clips)} clips · models: {models}"
    scored = score_line(ctx, pair_id)
    if scored:
        info += f"  \n{scored}"
    if me is not None and ctx.may_adjudicate(me) and validated(ctx.store, pair_id, clips, me):
        info += f"  \n{OWN_VALIDATION}"  # the Adjudicate button stays: another pair may be theirs to settle
    return PairScreen(
        pair_id, player_html(panels(ctx, pair_id, me), view.similarity), info, grid, checks, note
    )


def _grid(view: PairView, clips: tuple[str, ...]) -> pd.DataFrame:
    """The answer grid as shown: clip letter, compact options, one "✓/✗ answer" column per model."""
    grid = pair_spec().answer_grid(view)
    letters = dict(zip(clips, LETTERS, strict=False))
    out = pd.DataFrame(
        {
            "task": grid["task"],
            "clip": grid["clip_id"].map(lambda c: letters.get(c, "?")),
            "question": grid["question"],
            "options": grid["options"].map(_options),
            "gold": grid["gold"],
        }
    )
    for model in view.models:  # a verdict mark in front of the raw answer reads faster than two columns
        marks = [_mark(ok) for ok in grid[f"{model} correct"]]
        out[model] = [
            f"{mark} {_answer(raw, mark)}".strip() for raw, mark in zip(grid[model], marks, strict=True)
        ]
    return out


def _answer(raw: Any, mark: str) -> str:
    """The model's answer as shown after its ``mark``: a scored answer missing or empty is said to be."""
    if raw is None or raw is pd.NA or raw != raw:
        return "(no answer)" if mark else ""  # no mark: the model has no row for this question
    return str(raw) if str(raw).strip() or not mark else "(empty answer)"


def _options(text: str) -> str:
    try:
        parsed = json.loads(text) if text else []
    except ValueError:
        return text
    return " · ".join(str(o) for o in parsed) if isinstance(parsed, list) else text


def _mark(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return "✓" if bool(value) else "✗"


def decision_text(checks: PairChecks) -> str:
    """The live keep / drop line under the form."""
    open_checks = sum(v is None for v in checks.values())
    if checks.decision == "drop":
        return "**Decision: DROP** — " + "; ".join(md_text(f) for f in checks.failures())
    if checks.decision == "keep":
        return "**Decision: KEEP** — every check passes"
    return f"**Decision: undecided** — {open_checks} check(s) open"


def set_checks(
    checks: PairChecks, clear: Sequence[str | None], single: Sequence[str | None], differ: str | None
) -> PairChecks:
    """The checks as the toggles show them ("yes" / "no" / None per toggle; extra toggles ignored)."""
    n = len(checks.clips)

    def value(v: str | None) -> bool | None:
        return None if v is None else v == "yes"

    return PairChecks(
        checks.pair_id,
        checks.clips,
        tuple(value(v) for v in clear[:n]),
        tuple(value(v) for v in single[:n]),
        value(differ),
    )


def on_key(checks: PairChecks, key: str) -> PairChecks:
    """A check key pressed (see :func:`analysis.review.pairs.validation.check_keys`)."""
    return press(checks, key)


def save(ctx: PairsContext, checks: PairChecks, note: str, me: Identity | None) -> str:
    """Store the reviewer's checks and note; returns the next pair of their queue ("" when done)."""
    if me is None:
        raise Refused("Sign in to save validations (read-only view).")
    try:
        save_validation(ctx.store, checks, me, note or "")
    except (InvalidLabel, StoreError) as exc:
        raise Refused(str(exc)) from exc
    queue = my_queue(ctx.store, ctx.assignments(me), me)
    return queue[0] if queue else ""


def adjudicate(ctx: PairsContext, checks: PairChecks, reason: str, me: Identity | None) -> None:
    """Settle a pair with the form's checks as the final decision (a reason is required)."""
    if me is None:
        raise Refused("Sign in to adjudicate.")
    if not ctx.may_adjudicate(me):
        raise Refused(f"{me.name} is not an adjudicator (halluscope serve --adjudicator NAME).")
    if not (reason or "").strip():
        raise Refused("An adjudication needs a reason.")
    try:
        adjudicate_pair(ctx.store, checks, me, reason)
    except (InvalidLabel, StoreError) as exc:
        raise Refused(str(exc)) from exc


SORTS = ("file order", "semantic", "visual")
"""How the pair list may be sorted: as the files list the pairs, or by either score (lowest first)."""


def pair_list(
    ctx: PairsContext, me: Identity | None, *, breaking: bool = False, sort: str = "file order"
) -> pd.DataFrame:
    """The pair list as shown: with the scores beside the rule, filtered and sorted as asked."""
    listed = _pair_list(ctx, me)
    if not ctx.scores:
        return listed
    rule = pair_spec().rule
    semantic = [ctx.scores.get(p, {}).get("semantic") for p in listed["pair_id"]]
    visual = [ctx.scores.get(p, {}).get("visual") for p in listed["pair_id"]]
    holds = [rule.holds(s, v) if rule is not None else None for s, v in zip(semantic, visual, strict=True)]
    listed = listed.assign(
        semantic=pd.Series([_score(x) for x in semantic], index=listed.index, dtype="Float64"),
        visual=pd.Series([_score(x) for x in visual], index=listed.index, dtype="Float64"),
        rule=["" if h is None else ("meets" if h else "breaks") for h in holds],
    )
    # the scores next to the id: the list is narrow, and they are what it is filtered and sorted by
    first = ["pair_id", "rule", "semantic", "visual"]
    listed = listed[first + [c for c in listed.columns if c not in first]]
    if breaking:
        listed = listed[listed["rule"] == "breaks"]
    if sort in ("semantic", "visual"):
        listed = listed.sort_values(sort, kind="stable", na_position="last")
    return listed.reset_index(drop=True)


def score_line(ctx: PairsContext, pair_id: str) -> str:
    """Markdown: the pair's scores beside the selection rule ("" when it has none)."""
    found = ctx.scores.get(pair_id)
    rule = pair_spec().rule
    if not found or rule is None:
        return ""
    semantic, visual = _number(found.get("semantic")), _number(found.get("visual"))
    if semantic is None or visual is None:
        return f"Scores: none ({md_text(str(found.get('problem') or 'not computed'))})"
    mark = {True: "✓", False: "✗"}
    verdict = "meets" if rule.holds(semantic, visual) else "**breaks**"
    return (
        f"Semantic (CLIP) **{semantic:.3f}** (rule > {rule.semantic_above} "
        f"{mark[semantic > rule.semantic_above]}) · visual (DINOv2) **{visual:.3f}** "
        f"(rule < {rule.visual_below} {mark[visual < rule.visual_below]}): {verdict} the selection rule"
    )


def compute_scores(ctx: PairsContext, frames: int, progress: Callable[[int, int], None]) -> str:
    """Score every pair with the configured checkpoints (cached as ``pairs score`` caches)."""
    from analysis.load.cache import default_cache_dir
    from analysis.review.pairs.scores import EmbeddingCache, score_pairs

    rule = pair_spec().rule
    if rule is None:
        raise Refused("These pairs have no selection rule to score against.")
    clip, dino = ctx.encoder("clip"), ctx.encoder("dino")
    cache = EmbeddingCache(default_cache_dir() / "embeddings")

    resolve = ctx.catalog.resolver(pair_owner()).resolve
    found = {}
    for score in score_pairs(
        ctx.pairs, resolve, clip, dino, rule, frames=frames, cache=cache, progress=progress
    ):
        found[score.pair_id] = score.as_dict()
    ctx.set_scores(found)
    kept = sum(1 for s in found.values() if s.get("kept") is True)
    return (
        f"Scored {len(found)} pair(s): {kept} meet the selection rule "
        f"({cache.hits} embeddings from the cache)."
    )


def saliency_html(ctx: PairsContext, pair_id: str, seconds: float) -> str:
    """Both clips' frames at ``seconds`` with DINOv2's saliency over them, side by side (HTML)."""
    import base64
    import io

    from analysis.review.pairs.saliency import overlay_at

    dino = ctx.encoder("dino")
    cells = []
    for clip in ctx.clips(ctx.known(pair_id)):
        path = ctx.media_path(pair_id, clip)
        if path is None:
            cells.append(f"<figure><figcaption>{escape(clip)}: video not found</figcaption></figure>")
            continue
        try:
            image = overlay_at(path, dino, seconds)
        except Exception as exc:  # a broken clip: said in its cell, the other still drawn
            cells.append(
                f"<figure><figcaption>{escape(clip)}: {escape(str(exc)[:120])}</figcaption></figure>"
            )
            continue
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        data = base64.b64encode(buffer.getvalue()).decode()
        cells.append(
            f'<figure class="hs-saliency-cell"><img alt="DINOv2 saliency of {escape(clip, quote=True)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{escape(clip)} at {seconds:.2f} s'
            "</figcaption></figure>"
        )
    return (
        '<div class="hs-saliency">'
        + "".join(cells)
        + "</div><style>.hs-saliency{display:flex;gap:8px;flex-wrap:wrap}.hs-saliency figure{margin:0;flex:1;"
        "min-width:140px}.hs-saliency img{width:100%;image-rendering:auto;border-radius:4px}</style>"
    )


def _score(value: Any) -> float | None:
    number = _number(value)
    return None if number is None else round(number, 3)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _numbers(line: dict[str, Any]) -> dict[str, float]:
    """The scores of a ``pairs score`` line, as the catalogue's similarity column keeps them."""
    return {k: float(line[k]) for k in ("semantic", "visual") if _number(line.get(k)) is not None}


def _pair_list(ctx: PairsContext, me: Identity | None) -> pd.DataFrame:
    """The pair list: clips, actions, the team's decision, and whether it is in my queue."""
    ids = ctx.pairs["pair_id"].astype(str)
    # the actions are the answer key of the pair's questions: none for a viewer who may not see gold
    key = ctx.access(me).sees_gold
    actions = ctx.pairs["actions"].map(lambda a: " | ".join(a.values()) if key else "").to_numpy()
    if me is None or not ctx.access(me).sees_team:  # visitors and blind reviewers: no one's validations
        # so no status, decision or vote count columns (sent blank, a count of 0 read as "no votes");
        # a blind reviewer's own queue is theirs to see (the legend promised it), a visitor has none
        listed = {"pair_id": ids.to_numpy()}
        if me is not None:
            queue = set(my_queue(ctx.store, ctx.assignments(me), me))
            listed["mine"] = np.array(["●" if p in queue else "" for p in ids], dtype=object)
        if key:
            listed["actions"] = actions
        return pd.DataFrame(listed)
    final = decisions(ctx.store, ids, required=ctx.k, viewer=ctx.viewer(me))  # same order as ids
    queue = set(my_queue(ctx.store, ctx.assignments(me), me))
    return pd.DataFrame(
        {
            "pair_id": ids.to_numpy(),
            "mine": ["●" if p in queue else "" for p in ids],
            "status": final["resolution"].to_numpy(),
            "decision": final["decision"].fillna("").to_numpy(),
            "votes": final["n_votes"].to_numpy(),
            "actions": actions,
        }
    )


def team(ctx: PairsContext, me: Identity | None) -> tuple[str, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Progress line, per-reviewer progress, agreement per criterion, disagreement queue."""
    assignments = ctx.assignments(me)
    done = progress(ctx.store, assignments)
    mine = ""
    if me is not None:
        queue = my_queue(ctx.store, assignments, me)
        mine = f" · **my queue: {len(queue)} left**" + (f" (next {md_code(queue[0])})" if queue else "")
    line = (
        f"**{done['done']} / {done['total']}** validations done · "
        f"{done['pairs_done']} / {done['pairs_total']} pairs fully reviewed (k = {ctx.k}){mine}"
    )
    people = pd.DataFrame(
        [(r, v["done"], v["total"]) for r, v in done["reviewers"].items()],
        columns=["reviewer", "done", "total"],
    )
    seen = ctx.viewer(me)
    agree = agreement_summary(ctx.store, seen)
    for col in ("raw_agreement", "krippendorff_alpha", "kappa"):
        agree[col] = agree[col].map(lambda v: "—" if v is None else f"{v:.3f}")
    agree = agree.rename(
        columns={
            "n_items": "items",
            "raw_agreement": "raw",
            "krippendorff_alpha": "alpha",
            "kappa": "kappa (mean)",
            "reviewer_pairs": "rater pairs",
        }
    )
    split = disagreement_queue(ctx.store, seen)
    shown = pd.DataFrame(
        {
            "pair_id": split["pair_id"].astype(str),
            "criteria": split["criteria"].map(", ".join),
            "clips": split["clips"].map(", ".join),
            "decisions": split["decisions"].map(
                lambda d: ", ".join(f"{k}: {v}" for k, v in sorted(d.items()))
            ),
        }
    )
    return line, people, agree, shown


def _out_dir() -> Path:
    # Gradio serves files handed back from a handler when they sit in the temp folder; the
    # folder is removed once newer ones replace it (components.scratch).
    return fresh_dir("halluscope-pairs-")


def _exporter(ctx: PairsContext, me: Identity | None) -> Viewer:
    if not ctx.access(me).sees_team:  # validations are reviewers' votes and notes
        raise Refused("Sign in as a reviewer who is not blind to export validations.")
    return ctx.viewer(me)


def export_json(ctx: PairsContext, me: Identity | None) -> str:
    """The validated pair list as JSON, as ``me`` may see it; the file path for a DownloadButton."""
    seen = _exporter(ctx, me)
    path = _out_dir() / f"{pair_spec().export_stem}.json"
    export_pairs_json(ctx.store, ctx.pairs, path, required=ctx.k, viewer=seen)
    return str(path)


def export_csv(ctx: PairsContext, me: Identity | None) -> str:
    """The validated pair list as CSV (one row per pair and reviewer), as ``me`` may see it."""
    seen = _exporter(ctx, me)
    path = _out_dir() / f"{pair_spec().export_stem}.csv"
    export_pairs_csv(ctx.store, ctx.pairs, path, required=ctx.k, viewer=seen)
    return str(path)


def gold_sources(ctx: PairsContext) -> list[Path]:
    """The gold files holding the pairs: those given, else the benchmark's file names by the media root."""
    if ctx.gold_files:
        return [p for p in ctx.gold_files if p.is_file()]
    names = pair_spec().gold_names
    found = [
        folder / name
        for root in ctx.catalog.media_roots.get(pair_owner(), ())
        for folder in (root, root.parent)
        for name in names
        if (folder / name).is_file()
    ]
    return list(dict.fromkeys(found))


def export_gold_zip(ctx: PairsContext, me: Identity | None) -> str:
    """The gold files holding only the pairs kept as ``me`` sees them, zipped."""
    seen = _exporter(ctx, me)
    sources = gold_sources(ctx)
    if not sources:
        names = ", ".join(pair_spec().gold_names)
        raise Refused(f"The gold files holding the pairs ({names}) were not found next to the media root.")
    folder = _out_dir()
    written = export_kept_gold(ctx.store, sources, folder / "gold", required=ctx.k, viewer=seen)
    target = folder / pair_spec().kept_name
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in written.values():
            archive.write(path, Path(path).name)
    return str(target)
