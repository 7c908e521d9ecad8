"""``halluscope suspects``: items ranked by how likely their recorded gold is wrong (``docs/suspects.md``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from analysis.benchmarks import get
from analysis.errors import UsageError

if TYPE_CHECKING:  # the parser is built for --help: pandas loads when suspects run
    from analysis.suspects.rank import Suspect


def add_parser(sub: argparse._SubParsersAction, benchmarks: str) -> None:  # type: ignore[type-arg]
    """The ``suspects`` subcommand's arguments."""
    from pathlib import Path

    p = sub.add_parser("suspects", help="items most likely to carry wrong gold, from every model's answers")
    p.add_argument("benchmark", help=f"one of: {benchmarks}")
    p.add_argument(
        "files", type=Path, nargs="+", metavar="PREDICTIONS", help="one file per model (3 or more)"
    )
    p.add_argument("--gold", type=Path, help="gold file, where the benchmark needs one")
    p.add_argument("--task", help="only this task's items")
    p.add_argument(
        "--db", help="label store: judge the current corrected gold, say which items were reviewed"
    )
    p.add_argument("--top", type=int, help="stop after N items")
    p.add_argument("--json", action="store_true", help="JSON Lines, most suspect first")


def run_suspects(args: argparse.Namespace, task: str | None) -> tuple[list[Suspect], dict[str, str] | None]:
    """(the ranked items, at most ``--top``; item id -> ``confirmed``/``corrected`` with ``--db``)."""
    from analysis.cli.items import model_rows
    from analysis.suspects.rank import MIN_MODELS
    from analysis.suspects.spans import rank_any

    bench = get(args.benchmark)
    table, models = model_rows(bench, args.files, gold=args.gold, task=task)
    if len(models) < MIN_MODELS:
        raise UsageError(
            f"suspects needs the answers of at least {MIN_MODELS} models, got {len(models)}"
            + (f" ({', '.join(models)})" if models else "")
        )
    reviewed = None
    if args.db:
        from analysis.cli.store_commands import corrected_table, reviewed_items

        table = corrected_table(args.db, bench, table)
        reviewed = reviewed_items(args.db, bench)
    ranked = rank_any(bench.NAME, table)
    return (ranked if args.top is None else ranked[: args.top]), reviewed


def suspect_lines(found: list[Suspect], reviewed: Mapping[str, str] | None) -> Iterator[str]:
    """``--json``: one object per item."""
    for s in found:
        record = s.as_dict(reviewed.get(s.item_id) if reviewed is not None else None, reviewed is not None)
        yield json.dumps(record, ensure_ascii=False)


def format_suspects(found: list[Suspect], reviewed: Mapping[str, str] | None) -> str:
    """The human-readable list: rank, score, gold, suggestion and the first reason."""
    if not found:
        return (
            "no item with a choice gold was answered (free-text gold, such as scene descriptions "
            "and captions, is not ranked: docs/suspects.md)"
        )
    rows = [("rank", "score", "item", "gold", "suggested", "against/for", "why")]
    for s in found:
        mark = f" [{reviewed[s.item_id]}]" if reviewed and s.item_id in reviewed else ""
        rows.append(
            (
                str(s.rank),
                f"{s.score:.2f}",
                s.item_id + mark,
                s.gold,
                s.suggested or "-",
                f"{s.against}/{s.agree}",
                "; ".join(s.reasons[:2]),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows
    )
