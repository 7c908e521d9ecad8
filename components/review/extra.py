"""Review beyond one item: corrected metrics and charts, queues, adjudication, agreement, exports.

Plain functions of a :class:`~components.review.panel.ReviewContext`; :mod:`app` wires them.
"""

from __future__ import annotations

import zipfile
from html import escape
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from analysis.benchmarks import REGISTRY
from analysis.charts.common import derive_columns
from analysis.query import prepare
from analysis.review import suspects
from analysis.review.access import Access
from analysis.review.corrected import corrected_view, official_gold, uncorrected
from analysis.review.findings import flagged_queue, seen_states
from analysis.review.gold_changes import GoldChanges, changes_html, gold_changes
from analysis.store import (
    Identity,
    InvalidLabel,
    ItemRef,
    agreement_report,
    assign,
    corrected_runs,
    count_corrections,
    events_frame,
    export_corrections,
    metric_changes,
    my_unreviewed,
)
from analysis.store.agreement import correction_sides, disagreements_seen, took_a_side
from analysis.store.events import as_item
from analysis.store.export import corrections_frame, write_frame
from analysis.store.final import final_labels
from analysis.store.payload import submit
from analysis.store.reviewers import round_team
from analysis.store.values import as_shown
from analysis.store.visibility import (
    Viewer,
    current_final,
    shown_reasons,
    shown_votes,
    visible_events,
    voted_keys,
)
from analysis.suspects.rank import MIN_MODELS
from components.browse.render import md_code, md_text
from components.review.context import Refused, ReviewContext, official_of
from components.scratch import fresh_dir

QUEUES = ("Flagged by the audit", "Suspected wrong gold", "My unreviewed items", "Disagreements")
QUEUE_IDS = dict(zip(QUEUES, ("flagged", "suspects", "unreviewed", "disagreements"), strict=True))
"""Each queue's id in :meth:`analysis.review.access.Access.queues`."""


def corrected_table(ctx: ReviewContext, benchmark: str) -> pd.DataFrame:
    """The benchmark's rows scored against corrected gold, with the chart columns rebuilt."""
    assert ctx.store is not None
    table = ctx.catalog.table
    fixed = corrected_view(table[table["benchmark"] == benchmark], ctx.store)
    return derive_columns(prepare(fixed))  # keeps the audit's _flagged


def metric_label(path: str) -> str:
    """A report's metric path as read in the app: ``accuracy``, ``task qa · cs_acc``.

    ``sub_category visual-language · accuracy`` for a group. One spelling for every benchmark
    (the list once read ``mc.cs_acc`` on one, ``groups.sub_category.x.accuracy`` on another,
    ``Audio-driven ….accuracy`` on a third).
    A group's name holds no dot; its value may (the metric is after the last dot).
    """
    if path.startswith("overall."):
        return path.removeprefix("overall.")
    if not path.startswith("groups."):
        return path
    group, _, rest = path.removeprefix("groups.").partition(".")
    value, _, metric = rest.rpartition(".")
    return f"{group} {value} · {metric}"


def _is_count(metric: str) -> bool:
    """A count of a report (``n``, ``n_cf``, ``hits``, ``n_tokens``, ``unparsed``), not a metric."""
    return metric == "n" or metric.startswith("n_") or metric in ("hits", "unparsed")


def metric_lines(ctx: ReviewContext, benchmark: str | None, limit: int = 12) -> str:
    """Markdown: per model (and task), each metric that corrected gold changes (``cfad 0.114 -> 0.091``)."""
    if ctx.store is None or not benchmark:
        return "Corrected metrics need a label store."
    table = ctx.catalog.table
    rows = table[table["benchmark"] == benchmark]
    fixed = corrected_view(rows, ctx.store)
    n = count_corrections(fixed)
    if n == 0:
        return f"No gold corrections on {benchmark} yet: corrected metrics equal the official ones."
    lines = [f"**{benchmark}: {n} gold correction(s)**"]
    for run in corrected_runs(rows, fixed):
        who = run.model if run.task is None else f"{run.model} · {run.task}"
        # metrics only (no counts), and no task/category cell: each benchmark's in one spelling
        changes = [
            (metric_label(p), a, b)
            for p, a, b in metric_changes(run.official, run.corrected)
            if "/" not in p and not _is_count(p.rsplit(".", 1)[-1])
        ]
        for path, old, new in changes[:limit]:
            seen = f"after {run.corrections} correction(s)"  # those this run's report saw
            lines.append(f"- {md_code(who)} {md_text(path)}: {_num(old)} → {_num(new)} {seen}")
        if len(changes) > limit:  # said, never cut silently (issue 20)
            lines.append(
                f"- {md_code(who)}: {len(changes) - limit} more metric(s) changed; "
                "`halluscope score --corrected` lists them all"
            )
    if len(lines) == 1:
        lines.append("No metric changed.")
    return "\n".join(lines)


def _num(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def reviewers_of(ctx: ReviewContext, benchmark: str, who: Identity) -> list[str]:
    """Reviewers for assignment (:func:`analysis.store.reviewers.round_team`)."""
    voters: Any = []
    if not ctx.reviewers and ctx.store is not None:
        voters = events_frame(ctx.store, benchmark, scope="vote")["reviewer"]
    return round_team(ctx.reviewers, voters, who.name)


QUEUE_COLUMNS = ("item_id", "question", "detail")
EXPORT_LABELS = (
    "Event log CSV",
    "Event log JSONL",
    "Event log Parquet",
    "Final labels CSV",
    "Final labels JSONL",
    "Final labels Parquet",
    "Corrected native gold (zip)",
)
"""The Review tab's download buttons, in the order :func:`build_exports` returns the files."""


def offered_queues(access: Access) -> list[str]:
    """The queue labels offered to ``access`` (:meth:`Access.queues` decides)."""
    return [label for label in QUEUES if QUEUE_IDS[label] in access.queues()]


def _viewer(ctx: ReviewContext, who: Identity | None) -> Viewer:
    return ctx.access(who).viewer


def _questions(rows: pd.DataFrame, ids: list[str]) -> list[str]:
    first = rows.drop_duplicates("item_id").set_index("item_id")["question"]
    return [_short(str(first.get(i, "") or "")) for i in ids]


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


ADJUDICATION_FORM_BEHIND = (
    "Not adjudicated: another item was opened after the final gold and the reason were typed. "
    "Type them again for this item."
)
"""Said when an adjudication's form was filled while another item was open."""


def queue_frame(ctx: ReviewContext, queue: str, benchmark: str | None, who: Identity | None) -> pd.DataFrame:
    """One queue (flagged, my unreviewed, disagreements) of a benchmark: item id, question, detail.

    The disagreement queue holds only what ``who`` may see, as the store decides it
    (:func:`~analysis.store.agreement.disagreements_seen`): an adjudicator every disagreement
    (marked where they took a side and so may not settle it), anyone else the items they voted on.
    """
    table = ctx.catalog.table
    rows = table[table["benchmark"] == benchmark]
    access = ctx.access(who)
    if QUEUE_IDS.get(queue) not in access.queues():
        if not access.signed_in:
            raise Refused(f"Sign in to see the queue {queue!r}.")
        raise Refused(f"The queue {queue!r} is not offered to you (audit findings quote gold).")
    if not benchmark or benchmark not in REGISTRY:  # every benchmark at once: a queue is of one
        return _frame(rows, [], [])
    if queue == QUEUES[0]:
        present = set(rows.loc[rows["_flagged"].astype(bool), "item_id"].astype(str))
        named = ctx.catalog.findings.get(str(benchmark), [])
        states = seen_states(ctx.store, str(benchmark), named, sees_team=access.sees_team)
        listed = [(i, d) for i, d in flagged_queue(named, states) if i in present]
        return _frame(rows, [i for i, _ in listed], [d for _, d in listed])  # open ones first
    if QUEUE_IDS.get(queue) == "suspects":
        top = suspects.queued(ctx.suspects(str(benchmark)))
        judged = suspects.verdicts(ctx.store, str(benchmark)) if access.sees_team else {}
        ids = [s.item_id for s in top]
        return _frame(rows, ids, [suspects.queue_detail(s, judged, access) for s in top])
    if ctx.store is None or who is None or not benchmark:
        raise Refused("Sign in to see your queues.")
    if QUEUE_IDS.get(queue) == "unreviewed":
        people = reviewers_of(ctx, benchmark, who)
        plan = assign(rows["item_id"].astype(str).unique(), people, min(ctx.k, len(people)))
        ids = my_unreviewed(ctx.store, benchmark, plan, who)
        return _frame(rows, ids, [f"assigned to you (k={min(ctx.k, len(people))})"] * len(ids))
    published = official_gold(table, str(benchmark))
    found = disagreements_seen(ctx.store, benchmark, access.viewer, official=published)
    ids, detail = [], []
    for item_id, votes, gold, by, corrections, hidden in zip(
        found["item_id"].astype(str),
        found["votes"],
        found["gold"],
        found["gold_by"],
        found["corrections"],
        found["hidden"],
        strict=True,
    ):
        if hidden:  # the sides stay hidden from a blind adjudicator who took no side
            ids.append(item_id)
            detail.append(f"{hidden} side(s) in dispute (hidden: you adjudicate blind)")
            continue
        spelled = published.get(item_id)
        sides = [f"{r}: {as_shown('gold', v, spelled)}" for r, v in votes.items()]
        sides += [f"{r} corrected it to {as_shown('gold', v, spelled)}" for r, v in corrections.items()]
        if gold is not None:
            shown = as_shown("gold", gold, spelled)
            sides.insert(0, f"gold: {shown} ({'official' if by == 'official' else f'set by {by}'})")
        text = ", ".join(sides)
        # the store's own rule: a vote or a correction is a side, an adjudication is not (they may
        # settle it again); the votes and who set the gold do not say which
        first = rows[rows["item_id"].astype(str) == item_id]
        side = (
            access.adjudicator
            and len(first)
            and took_a_side(ctx.store, as_item(first.iloc[0]), "gold", who.name)
        )
        if side:
            text += " (you took a side: another adjudicator settles it)"
        ids.append(item_id)
        detail.append(text)
    return _frame(rows, ids, detail)


def _frame(rows: pd.DataFrame, ids: list[str], detail: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {"item_id": ids, "question": _questions(rows, ids), "detail": detail}, columns=list(QUEUE_COLUMNS)
    )


def queue_update(ctx: ReviewContext, queue: str, benchmark: str | None, who: Identity | None) -> Any:
    """The queue table with its count in the label."""
    import gradio as gr

    frame = queue_frame(ctx, queue, benchmark, who)
    label = f"{queue}: {len(frame)} item(s) · click an item to open it"
    if QUEUE_IDS.get(queue) == "suspects" and benchmark:
        # a blind reviewer is not told which gold anything is measured against
        against = ", ranked against the official gold" if ctx.access(who).sees_gold else ""
        label = f"{queue}: {len(frame)} item(s), most suspect first{against} · " + (
            suspect_precision(ctx, str(benchmark), who) or "click an item to open it"
        )
    return gr.update(value=frame, label=label)


def suspect_precision(ctx: ReviewContext, benchmark: str, who: Identity | None) -> str:
    """The ranking's precision at 10, 50, 100 from the team's verdicts ("" where not shown)."""
    if not ctx.access(who).sees_team:
        return ""
    judged = suspects.verdicts(ctx.store, benchmark)
    lines = [p.line() for p in suspects.precision(ctx.suspects(benchmark), judged)]
    return "measured by your team's verdicts, " + "; ".join(lines)


def gold_change_html(ctx: ReviewContext, benchmark: str | None, who: Identity | None) -> str:
    """HTML for the overview: each board under official gold, corrected gold and without suspects."""
    if not benchmark or not ctx.access(who).sees_gold:
        return ""
    table = ctx.catalog.table
    rows = table[(table["benchmark"] == benchmark).to_numpy(dtype=bool)]
    fixed = corrected_view(rows, ctx.store) if ctx.store is not None else uncorrected(rows)
    models = {m for m in rows["model"].astype(str) if m}
    left_out = (
        {s.item_id for s in ctx.suspects(benchmark) if s.suggested is not None}
        if len(models) >= MIN_MODELS
        else set()
    )
    touched = fixed.loc[fixed["gold_corrected"].to_numpy(dtype=bool), ["item_id", "model", "gold"]]
    key = (len(touched), int(pd.util.hash_pandas_object(touched, index=False).sum()), len(left_out))
    memo = ctx.gold_changes_shown.get(benchmark)
    if memo is not None and memo[0] == key:  # the same corrections: the same three boards
        return memo[1]
    html = _gold_change_html(gold_changes(rows, fixed, benchmark, left_out))
    ctx.gold_changes_shown[benchmark] = (key, html)
    return html


def _gold_change_html(changes: list[GoldChanges]) -> str:
    if not changes:
        return ""
    opened = " open" if any(c.corrections for c in changes) else ""  # folded until something is corrected
    return (
        f"<details class='hs-gold-changes'{opened}><summary><b>What the corrections change</b>: each board "
        "under the official gold, the corrected gold and without the suspect items, with rank "
        "changes, Kendall's tau and an exact McNemar test of each model's verdicts</summary>"
        + changes_html(changes)
        + "</details>"
    )


def suspect_summary(ctx: ReviewContext, benchmark: str | None, who: Identity | None) -> str:
    """Markdown for the overview: how many items the ranking suspects, and where to check them."""
    if not benchmark or not ctx.access(who).sees_gold:
        return ""
    found = ctx.suspects(benchmark)
    if not found:
        return f"**Suspected wrong gold**: {md_text(benchmark)} has no choice gold the ranking judges."
    n = suspects.suspect_count(found)
    return (
        f"**Suspected wrong gold**: {n} of {len(found)} {md_text(benchmark)} items, by every model's "
        "answers weighed by their ability in the item's slice (Review › Suspected wrong gold; "
        "`halluscope suspects`)."
    )


def adjudication_target(ctx: ReviewContext, row: int | None, who: Identity | None) -> str:
    """Which item an adjudication would act on, its question and the votes the viewer may see."""
    if ctx.store is None or who is None:
        return "Sign in as an adjudicator to settle disagreements."
    if not ctx.access(who).adjudicator:
        return (
            f"Only adjudicators settle disagreements; **{escape(who.name)}** reviews. "
            "Adjudicators are named with `halluscope serve --adjudicator NAME`."
        )
    if row is None or not 0 <= int(row) < len(ctx.catalog.table):
        return "No item is open: pick one from the disagreement queue."
    item = ctx.catalog.table.iloc[int(row)]
    item_id = str(item["item_id"])
    events = events_frame(ctx.store, str(item["benchmark"]))
    events = events[events["item_key"] == item_id]
    access = ctx.access(who)
    votes = shown_votes(events, access.viewer, item_id)
    reasons = shown_reasons(events, access.viewer, item_id)
    # every text here comes from a reviewer or a data file: Markdown-escaped, never rendered;
    # each side with its author and reason (issue 20: the panel showed only the votes' values)
    official = official_of(item)
    listed = ", ".join(
        f"{md_text(r)}: {md_text(as_shown('gold', v, official))}{_why(reasons.get(r, ''))}"
        for r, v in votes.items()
    )
    listed = listed or "no votes"
    if access.blind and not votes:  # a blind adjudicator settles from the item, unanchored by votes
        listed = "hidden: you adjudicate blind, decide from the item itself"
    gold = ""
    if access.sees_gold:
        disputed = correction_sides(events[events["field"] == "gold"]).get(item_id, {})
        if disputed:  # two reviewers' corrections differ: each is a side (the store's rule)
            listed += " · corrections in dispute: " + ", ".join(
                f"{md_text(r)}: {md_text(as_shown('gold', v, official))}{_why(why)}"
                for r, (v, why) in disputed.items()
            )
        final = current_final(events, item_id)
        if final is None:
            gold = f" · gold: {md_text(str(item.get('gold') or '–'))} (official)"
        else:
            value, by, why, kind = final
            verb = "adjudicated" if kind == "adjudicate" else "corrected"
            shown = md_text(as_shown("gold", value, official))
            gold = f" · gold: {shown} ({verb} by {md_text(by)}{_why(why)})"
    side = took_a_side(ctx.store, _ref(item), "gold", who.name)
    own = f" · **you {side} it: another adjudicator must settle it**" if side else ""
    return (
        f"Adjudication acts on {md_code(item_id)} ({md_text(item['benchmark'])}) · "
        f"{md_text(_short(str(item.get('question') or '')))}{gold} · votes: {listed}{own}"
    )


def may_settle(ctx: ReviewContext, row: int | None, who: Identity | None) -> bool:
    """Whether ``who`` may adjudicate the open item: an adjudicator who took no side on its gold.

    The store's rule (:func:`~analysis.store.agreement.took_a_side`), asked before a click: the
    button of an adjudicator who voted on or corrected the item is disabled, the panel says why.
    """
    if ctx.store is None or who is None or not ctx.access(who).may_adjudicate:
        return False
    if row is None or not 0 <= int(row) < len(ctx.catalog.table):
        return False
    return took_a_side(ctx.store, _ref(ctx.catalog.table.iloc[int(row)]), "gold", who.name) is None


def _ref(item: pd.Series) -> ItemRef:
    """The store's reference to an item table row."""
    return as_item(
        {
            "benchmark": str(item["benchmark"]),
            "item_id": str(item["item_id"]),
            "task": str(item.get("task") or ""),
        }
    )


def _why(reason: str) -> str:
    """`` — “reason”`` after a side, Markdown-escaped; nothing without one."""
    reason = " ".join(reason.split())
    return f" — “{md_text(_short(reason, 120))}”" if reason else ""


def adjudicate_item(
    ctx: ReviewContext, row: int | None, who: Identity | None, value: str | None, reason: str | None
) -> str:
    """Settle the current item's gold after a disagreement (adjudicators only, a reason needed)."""
    ctx.refuse(who, "adjudicate")
    assert who is not None and ctx.store is not None
    if not ctx.access(who).may_adjudicate:
        raise Refused(f"Refused: {who.name} is not an adjudicator (halluscope serve --adjudicator NAME).")
    if not (reason or "").strip():
        raise Refused("An adjudication needs a reason.")
    item = ctx.row(row)
    try:
        event = submit(
            ctx.store,
            {
                "action": "adjudicate",
                "field": "gold",
                "value": value,
                "reason": reason,
                "item_id": str(item["item_id"]),
            },
            who,
            row=item,
        )
    except InvalidLabel as exc:
        raise Refused(f"Not adjudicated: {exc}") from exc
    official = official_of(item)
    shown = as_shown("gold", event.new_value, official)
    return f"Adjudicated {md_code(item['item_id'])} by {md_text(who.name)}: gold = {md_text(shown)}"


def agreement_markdown(ctx: ReviewContext, benchmark: str | None, who: Identity | None = None) -> str:
    """Cohen's kappa per reviewer pair, Krippendorff's alpha and raw agreement on gold votes.

    An adjudicator who sees the team's work (not blind) sees the whole team's figures; anyone else
    signed in only over the items they voted on (figures over items they did not vote on would tell
    them how others voted); a visitor none.
    """
    if ctx.store is None or not benchmark:
        return "Agreement needs a label store."
    if who is None:
        return "Sign in to see the team's agreement."
    items = None
    seen = ctx.access(who)
    if not (seen.adjudicator and seen.sees_team):
        items = voted_keys(events_frame(ctx.store, benchmark, scope="vote"), who.name)
        items = {k.partition("\x00")[0] for k in items if k.endswith("\x00gold")}
    report = agreement_report(ctx.store, benchmark, items=items)
    scope = "" if items is None else " (over the items you voted on)"
    lines = [
        f"**{benchmark}**{scope}: {report['n_items']} item(s) with votes from "
        f"{len(report['reviewers'])} reviewer(s) · raw agreement {_num(report['raw_agreement'])}"
        f" · Krippendorff's alpha {_num(report['krippendorff_alpha'])}"
    ]
    for pair in report["pairs"]:
        cells = " · ".join(f"{k} {_num(v)}" for k, v in pair.items())
        lines.append(f"- {md_text(cells)}")
    return "\n".join(lines)


def build_exports(ctx: ReviewContext, benchmark: str | None, who: Identity | None) -> list[str]:
    """The event log and the final labels (CSV, JSONL, Parquet) and corrected native gold (zipped).

    Only what ``who`` may see: a blind reviewer gets their own events and no final labels or gold
    files; a reviewer the log without votes still hidden from them; an adjudicator everything.
    """
    if ctx.store is None or who is None:
        raise Refused("Refused: sign in to export.")
    out = fresh_dir("halluscope-export-")  # removed once newer exports replace it
    seen = _viewer(ctx, who)
    stem = benchmark or "all"
    events = corrections_frame(ctx.store, benchmark or None)
    log = visible_events(events.rename(columns={"item_id": "item_key"}), seen).rename(
        columns={"item_key": "item_id"}
    )
    files = []
    for fmt in ("csv", "jsonl", "parquet"):
        path = out / f"events-{stem}.{fmt}"
        export_corrections(ctx.store, path, fmt=fmt, frame=log)
        files.append(str(path))
    if not ctx.access(who).may_export_team or not benchmark:
        return [*files, "", "", "", ""]
    final = final_labels(ctx.store, benchmark, ctx.catalog.table[ctx.catalog.table["benchmark"] == benchmark])
    if not seen.adjudicator:
        raw = events.rename(columns={"item_id": "item_key"})
        final["votes"] = [
            orjson.dumps(shown_votes(raw, seen, i), option=orjson.OPT_SORT_KEYS).decode()
            for i in final["item_id"]
        ]
    for fmt in ("csv", "jsonl", "parquet"):
        path = out / f"final-labels-{stem}.{fmt}"
        write_frame(final, path, fmt)  # type: ignore[arg-type]
        files.append(str(path))
    files.append(str(native_zip(ctx, benchmark, out)))
    return files


def native_zip(ctx: ReviewContext, benchmark: str, out: Path) -> Path:
    """Corrected copies of the benchmark's loaded files that carry gold, zipped (relative paths)."""
    from analysis.review.corrected import corrected_gold, write_native

    assert ctx.store is not None
    sources = ctx.catalog.files.get(benchmark, [])
    folder = out / "native"
    written = write_native(benchmark, sources, corrected_gold(ctx.store, benchmark), folder)
    target = out / f"{benchmark}-corrected-gold.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in written:
            archive.write(path, path.relative_to(folder).as_posix())
    return target
