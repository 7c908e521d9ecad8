"""``halluscope slices``: where each model fails, as significant slices (``docs/cli.md``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from analysis.benchmarks import get
from analysis.errors import UsageError

if TYPE_CHECKING:  # the parser is built for --help: the finder (pandas) loads when slices run
    from analysis.failures.slices import Slice


def add_parser(sub: argparse._SubParsersAction, benchmarks: str) -> None:  # type: ignore[type-arg]
    """The ``slices`` subcommand's arguments."""
    from pathlib import Path

    slices = sub.add_parser("slices", help="where each model is significantly worse: slices with q values")
    slices.add_argument("benchmark", help=f"one of: {benchmarks}")
    slices.add_argument("files", type=Path, nargs="+", metavar="PREDICTIONS")
    slices.add_argument("--gold", type=Path, help="gold file, where the benchmark needs one")
    slices.add_argument("--task", help="only this task's items")
    slices.add_argument("--model", help="only this model (default: every model given)")
    slices.add_argument(
        "--max-depth", type=int, default=3, help="conditions a slice may combine (1-3, default 3)"
    )
    slices.add_argument("--alpha", type=float, default=0.05, help="largest q printed (default 0.05)")
    slices.add_argument("--json", action="store_true", help="JSON Lines, most significant first")
    slices.add_argument(
        "--db", help="label store: verdicts against its current corrected gold, as the app counts"
    )


def run_slices(args: argparse.Namespace, task: str | None) -> tuple[list[Slice], int]:
    """(significant slices, slices tested) of the given files; main ran ``check_slices`` first."""
    from analysis.cli.items import model_rows
    from analysis.failures.slices import find_slices

    bench = get(args.benchmark)
    table, models = model_rows(bench, args.files, gold=args.gold, task=task)
    if not models:
        raise UsageError("no model's answers in the given files (slices need prediction files)")
    if args.model is not None:
        if args.model not in models:
            raise UsageError(f"no model {args.model!r} in the given files; models: {', '.join(models)}")
        models = [args.model]
    if args.db:
        from analysis.cli.store_commands import corrected_table

        table = corrected_table(args.db, bench, table)
    return find_slices(bench.NAME, table, models=models, max_depth=args.max_depth, alpha=args.alpha)


def slice_lines(found: list[Slice]) -> Iterator[str]:
    """``--json``: one object per slice."""
    for s in found:
        yield json.dumps(s.as_dict(), ensure_ascii=False)


def format_slices(found: list[Slice], tested: int, alpha: float) -> str:
    """The human-readable table."""
    head = f"{len(found)} significant slice(s) of {tested} tested (Benjamini-Hochberg q <= {alpha})"
    if not found:
        return head
    rows = [("model", "slice", "n", "accuracy", "rest", "p", "q")]
    for s in found:
        where = " & ".join(f"{c}={v}" for c, v in s.conditions)
        rows.append(
            (
                s.model,
                where,
                str(s.n),
                f"{s.accuracy:.3f}",
                f"{s.rest_accuracy:.3f}",
                f"{s.p:.2e}",
                f"{s.q:.2e}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([head, *lines])
