"""Review beyond one item: corrected metrics and charts, queues, adjudication, agreement, exports.

Plain functions of a :class:`~components.review.panel.ReviewContext`; :mod:`app` wires them.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.charts import derive_columns
from analysis.store import (
    Identity,
    InvalidLabel,
    agreement_report,
    apply_corrections,
    assign,
    corrected_runs,
    count_corrections,
    current_labels,
    disagreements,
    events_frame,
    export_corrections,
    metric_changes,
    my_unreviewed,
)
from analysis.store.payload import submit
from analysis.views import prepare
from components.browse.render import md_code, md_text
from components.review.context import Refused, ReviewContext
from components.scratch import fresh_dir

QUEUES = ("Flagged by the audit", "My unreviewed items", "Disagreements")


def corrected_table(ctx: ReviewContext, benchmark: str) -> pd.DataFrame:
    """The benchmark's rows scored against corrected gold, with the chart columns rebuilt."""
    assert ctx.store is not None
    table = ctx.catalog.table
    rows = table[table["benchmark"] == benchmark]
    fixed = apply_corrections(rows, current_labels(ctx.store, benchmark))
    flagged = fixed.loc[fixed["_flagged"].astype(bool), "item_id"].astype(str).tolist()
    return derive_columns(prepare(fixed, flagged))


def metric_lines(ctx: ReviewContext, benchmark: str | None, limit: int = 12) -> str:
    """Markdown: per model (and task), each metric that corrected gold changes (``cfad 0.114 -> 0.091``)."""
    if ctx.store is None or not benchmark:
        return "Corrected metrics need a label store."
    table = ctx.catalog.table
    rows = table[table["benchmark"] == benchmark]
    fixed = apply_corrections(rows, current_labels(ctx.store, benchmark))
    n = count_corrections(fixed)
    if n == 0:
        return f"No gold corrections on {benchmark} yet: corrected metrics equal the official ones."
    lines = [f"**{benchmark}: {n} gold correction(s)**"]
    for run in corrected_runs(rows, fixed):
        who = run.model if run.task is None else f"{run.model} · {run.task}"
        # headline metrics only: overall and per task, not every task/category cell
        changes = [(p.removeprefix("overall.").removeprefix("groups.task."), a, b)
                   for p, a, b in metric_changes(run.official, run.corrected)
                   if "/" not in p and not p.rsplit(".", 1)[-1].startswith("n")]
        for path, old, new in changes[:limit]:
            lines.append(f"- {md_code(who)} {md_text(path)}: {_num(old)} → {_num(new)}"
                         f" after {n} correction(s)")
    if len(lines) == 1:
        lines.append("No metric changed.")
    return "\n".join(lines)


def _num(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def reviewers_of(ctx: ReviewContext, benchmark: str, who: Identity) -> list[str]:
    """Reviewers for assignment: the configured users, else everyone who voted, plus me."""
    names = set(ctx.reviewers)
    if not names and ctx.store is not None:
        names = set(events_frame(ctx.store, benchmark, scope="vote")["reviewer"].astype(str))
    return sorted(names | {who.name})


def queue_frame(ctx: ReviewContext, queue: str, benchmark: str | None, who: Identity | None) -> pd.DataFrame:
    """Item ids of one queue (flagged, my unreviewed, disagreements) for a benchmark."""
    table = ctx.catalog.table
    rows = table[table["benchmark"] == benchmark]
    if queue == QUEUES[0]:
        ids = rows.loc[rows["_flagged"].astype(bool), "item_id"].astype(str).unique().tolist()
        return pd.DataFrame({"item_id": ids, "detail": "named by an audit finding"})
    if ctx.store is None or who is None or not benchmark:
        raise Refused("Sign in to see your queues.")
    if queue == QUEUES[1]:
        people = reviewers_of(ctx, benchmark, who)
        plan = assign(rows["item_id"].astype(str).unique(), people, min(ctx.k, len(people)))
        ids = my_unreviewed(ctx.store, benchmark, plan, who)
        return pd.DataFrame({"item_id": ids, "detail": f"assigned to you (k={min(ctx.k, len(people))})"})
    found = disagreements(ctx.store, benchmark)
    detail = [", ".join(f"{r}: {v}" for r, v in votes.items()) for votes in found["votes"]]
    return pd.DataFrame({"item_id": found["item_id"].astype(str), "detail": detail})


def adjudicate_item(ctx: ReviewContext, row: int | None, who: Identity | None, value: str | None,
                    reason: str | None) -> str:
    """Settle the current item's gold after a disagreement (any signed-in reviewer, reason needed)."""
    if ctx.store is None or who is None:
        raise Refused("Refused: sign in to adjudicate.")
    if not (reason or "").strip():
        raise Refused("An adjudication needs a reason.")
    item = ctx.row(row)
    try:
        event = submit(ctx.store, {"action": "adjudicate", "field": "gold", "value": value,
                                   "reason": reason, "item_id": str(item["item_id"])}, who, row=item)
    except InvalidLabel as exc:
        raise Refused(f"Not adjudicated: {exc}") from exc
    return f"Adjudicated by {md_text(who.name)}: gold = {md_text(event.new_value)}"


def agreement_markdown(ctx: ReviewContext, benchmark: str | None) -> str:
    """Cohen's kappa per reviewer pair, Krippendorff's alpha and raw agreement on gold votes."""
    if ctx.store is None or not benchmark:
        return "Agreement needs a label store."
    report = agreement_report(ctx.store, benchmark)
    lines = [f"**{benchmark}**: {report['n_items']} item(s) with votes from "
             f"{len(report['reviewers'])} reviewer(s) · raw agreement {_num(report['raw_agreement'])}"
             f" · Krippendorff's alpha {_num(report['krippendorff_alpha'])}"]
    for pair in report["pairs"]:
        cells = " · ".join(f"{k} {_num(v)}" for k, v in pair.items())
        lines.append(f"- {md_text(cells)}")
    return "\n".join(lines)


def build_exports(ctx: ReviewContext, benchmark: str | None, who: Identity | None) -> list[str]:
    """Corrections as CSV, JSONL and Parquet, and corrected native gold (zipped), in a fresh folder."""
    if ctx.store is None or who is None:
        raise Refused("Refused: sign in to export.")
    out = fresh_dir("halluscope-export-")  # removed once newer exports replace it
    stem = f"corrections-{benchmark or 'all'}"
    files = []
    for fmt in ("csv", "jsonl", "parquet"):
        path = out / f"{stem}.{fmt}"
        export_corrections(ctx.store, path, fmt=fmt, benchmark=benchmark or None)
        files.append(str(path))
    files.append(str(native_zip(ctx, benchmark, out)) if benchmark else "")
    return files


def native_zip(ctx: ReviewContext, benchmark: str, out: Path) -> Path:
    """Corrected copies of the benchmark's loaded files that carry gold, zipped (relative paths)."""
    from analysis.store.corrected import write_native

    assert ctx.store is not None
    sources = ctx.catalog.files.get(benchmark, [])
    folder = out / "native"
    written = write_native(benchmark, sources, current_labels(ctx.store, benchmark), folder)
    target = out / f"{benchmark}-corrected-gold.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in written:
            archive.write(path, path.relative_to(folder).as_posix())
    return target
