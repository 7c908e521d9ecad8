"""The ``halluscope`` command line: ``score``, ``audit``, ``items``, ``import``, ``export``, ``serve``.

The contract is ``docs/cli.md``; the commands that read or write the label store live in
:mod:`analysis.cli.store_commands` (imported only when needed, so scoring never loads SQLAlchemy).

Exit codes: 0 success, 2 bad usage or bad input (one line on stderr naming file, record and
field), 1 an internal error (one line; set ``HALLUSCOPE_DEBUG=1`` for the traceback), 141 when
stdout's reader went away (``... | head``), silently.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

# Only light modules here: ``halluscope --help`` and a usage error answer before pandas, numpy or
# a benchmark package is imported (each command imports what it needs; docs/cli.md).
from analysis.benchmarks import REGISTRY, UnknownBenchmark, early, get, names
from analysis.cli.checks import check_export, check_slices, check_suspects
from analysis.cli.roots import media_roots
from analysis.errors import InputError, StoreError, UsageError
from analysis.files.harness import FORMATS, parse_map
from analysis.stats.defaults import N_BOOT, SEED

if TYPE_CHECKING:
    from analysis.benchmarks.base import Finding, ScoreReport

REPORT_FORMATS = ("html", "latex", "markdown")
"""``halluscope report --format`` values (kept here: ``score`` must not import plotly)."""

MAX_BOOT = 1_000_000

READER_GONE = 141
"""Exit code when stdout's reader closed the pipe: 128 + SIGPIPE, what the shell reports for a C
filter such as ``cat`` in ``cat big | head``. Not 1, which means a bug here."""


class _ReaderGone(Exception):
    """stdout's reader closed the pipe (``halluscope items ... | head``)."""


def _out(text: str) -> None:
    """Print a line of output; a closed pipe becomes :class:`_ReaderGone`, never an internal error."""
    try:
        print(text)
    except BrokenPipeError:
        raise _ReaderGone from None


def _flush() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise _ReaderGone from None


def _silence_stdout() -> None:
    # What is still buffered would be flushed at interpreter exit, fail on the same closed pipe
    # and print "Exception ignored ... BrokenPipeError": point fd 1 at /dev/null first.
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (a test's capture): nothing is flushed at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(prog="halluscope", description="Inspect and score multimodal hallucination benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    score = sub.add_parser("score", help="score a prediction file exactly as the official scorer")
    score.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    score.add_argument("predictions", type=Path)
    score.add_argument("--gold", type=Path, help="gold file, where the benchmark needs one")
    score.add_argument("--task", help="task, where the benchmark has several")
    score.add_argument("--parser", help="answer parser (default: the benchmark's first, official if any)")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument(
        "--ci", action="store_true", help='add 95%% cluster-bootstrap intervals of every metric (key "ci")'
    )
    score.add_argument(
        "--n-boot",
        type=int,
        default=None,
        metavar="N",
        help=f"bootstrap replicates with --ci (default {N_BOOT})",
    )
    score.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help=f"random seed with --ci (default {SEED}); the same seed gives the same intervals",
    )
    score.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="the file's format where content cannot tell (default: by content)",
    )
    score.add_argument(
        "--map",
        default=None,
        metavar="TARGET=SOURCE,...",
        help="rename fields before reading, e.g. prediction=text,question=prompt",
    )
    score.add_argument("--db", help="label database (SQLite file or postgresql://...), with --corrected")
    score.add_argument(
        "--corrected",
        action="store_true",
        help="score against the store's current corrected gold (needs --db)",
    )

    items = sub.add_parser("items", help="print the item table as JSON Lines, one object per (item, model)")
    items.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    items.add_argument("files", type=Path, nargs="+")
    items.add_argument("--gold", type=Path, help="gold file, where the benchmark needs one")
    items.add_argument("--task", help="task, where the benchmark has several")
    items.add_argument("--json", action="store_true", help="JSON Lines (the only output format)")
    items.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="the files' format where content cannot tell (default: by content)",
    )
    items.add_argument(
        "--map",
        default=None,
        metavar="TARGET=SOURCE,...",
        help="rename fields before reading, e.g. prediction=text,question=prompt",
    )
    items.add_argument(
        "--db", help="label database (SQLite file or postgresql://...): adds each item's corrected_gold"
    )

    from analysis.cli.failures import add_parser as add_slices

    add_slices(sub, ", ".join(REGISTRY))
    from analysis.cli.suspects import add_parser as add_suspects

    add_suspects(sub, ", ".join(REGISTRY))
    from analysis.cli.pairs import add_parser as add_pairs

    add_pairs(sub)

    imp = sub.add_parser(
        "import",
        help="record corrections (CSV, JSONL or Parquet: item_id, field, value, reason; "
        "or the app's final labels or event log)",
    )
    imp.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    imp.add_argument("corrections", type=Path)
    imp.add_argument(
        "--db", help="label database: a SQLite file or postgresql://... (default DATA_DIR/halluscope.db)"
    )
    imp.add_argument("--reviewer", required=True, help="who the corrections are recorded for")
    imp.add_argument(
        "--gold",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="the benchmark files the item ids come from (gold files, or predictions with gold inside, "
        "as for export --format native): every id is checked against them before anything is written "
        "(without them the ids are taken as given)",
    )
    merge = sub.add_parser(
        "merge", help="bring event logs (the app's or export's) into a store, each event once"
    )
    merge.add_argument("logs", type=Path, nargs="+", metavar="LOG")
    merge.add_argument(
        "--db", help="label database: a SQLite file or postgresql://... (default DATA_DIR/halluscope.db)"
    )
    merge.add_argument("--reviewer", required=True, help="who merges (recorded as the events' origin)")

    audit = sub.add_parser("audit", help="find data problems in gold files")
    audit.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    audit.add_argument("gold", type=Path, nargs="+")
    audit.add_argument("--media-root", type=Path, help="folder the media paths resolve against")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument(
        "--fixes",
        type=Path,
        metavar="FILE",
        help="write the suggested corrections as JSONL rows for `halluscope import`",
    )
    audit.add_argument(
        "--db", help="label store: say which findings its labels fixed, corrected or confirmed"
    )

    export = sub.add_parser("export", help="export corrections, or corrected gold in native files")
    export.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    export.add_argument(
        "--db", help="label database: a SQLite file or postgresql://... (default DATA_DIR/halluscope.db)"
    )
    export.add_argument(
        "--format",
        choices=("csv", "jsonl", "parquet", "native"),
        default=None,
        help="default: from the extension of --out (.csv, .jsonl, .parquet)",
    )
    export.add_argument("--out", type=Path, required=True, help="output file, or folder for --format native")
    export.add_argument("--gold", type=Path, nargs="+", help="native: the original files to write corrected")

    report = sub.add_parser("report", help="write a self-contained HTML report, or leaderboard tables")
    report.add_argument("files", type=Path, nargs="+", help="gold and prediction files of any benchmarks")
    report.add_argument("--gold", type=Path, action="append", default=[], help="a file to take as gold")
    report.add_argument(
        "--media-root",
        action="append",
        default=[],
        metavar="BENCH=DIR",
        help="folder a benchmark's media paths resolve against (for the media audit)",
    )
    report.add_argument(
        "--out",
        type=Path,
        default=None,
        help="file to write (required for html; latex and markdown print without it)",
    )
    report.add_argument("--format", choices=REPORT_FORMATS, default="html")
    report.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="label store whose gold corrections the report shows beside official",
    )
    report.add_argument(
        "--n-boot",
        type=int,
        default=None,
        metavar="N",
        help=f"bootstrap replicates of the intervals (default {N_BOOT})",
    )
    report.add_argument("--seed", type=int, default=None, metavar="S", help=f"random seed (default {SEED})")
    report.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        default=None,
        help="compare two models item by item (flip table, A - B per board, where A loses)",
    )

    serve = sub.add_parser("serve", help="open the reviewer app on result files of any benchmarks")
    serve.add_argument("files", type=Path, nargs="*", help="gold and prediction files (none: the samples)")
    serve.add_argument("--gold", type=Path, action="append", default=[], help="a file to take as gold")
    serve.add_argument(
        "--media-root",
        action="append",
        default=[],
        metavar="BENCH=DIR",
        help="folder a benchmark's media paths resolve against (repeatable)",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=7860)
    serve.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="label store: SQLite path or postgresql:// URL (default DATA_DIR/halluscope.db)",
    )
    serve.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="folder DATA_DIR of the store (default $HALLUSCOPE_DATA_DIR, else per-user)",
    )
    serve.add_argument(
        "--auth",
        action="append",
        default=[],
        metavar="USER:PASS",
        help="a reviewer who may sign in (repeatable; also $HALLUSCOPE_AUTH)",
    )
    serve.add_argument("--auth-file", type=Path, default=None, help="a file of USER:PASS lines")
    serve.add_argument(
        "--adjudicator",
        action="append",
        default=[],
        metavar="NAME",
        help="a signed-in user who may settle disagreements (repeatable; also "
        "$HALLUSCOPE_ADJUDICATORS, comma-separated; on Spaces the HF username)",
    )
    serve.add_argument(
        "--blind",
        action="append",
        default=[],
        metavar="NAME",
        help="a reviewer who reviews blind: no gold, verdict, metric or other reviewer's "
        "vote reaches them (repeatable; also $HALLUSCOPE_BLIND)",
    )
    serve.add_argument(
        "--pair-scores",
        type=Path,
        default=None,
        metavar="FILE",
        help="a `pairs score` output for the pair tab",
    )
    serve.add_argument("--pair-clip", type=Path, default=None, metavar="DIR", help="a local CLIP checkpoint")
    serve.add_argument(
        "--pair-dino", type=Path, default=None, metavar="DIR", help="a local DINOv2 checkpoint (saliency)"
    )
    return parser


def run_score(args: argparse.Namespace) -> dict[str, Any]:
    """Load, validate options and score (the work behind ``halluscope score``)."""
    # every check of the options first, before anything heavy is imported: a usage error is told at once
    if (args.corrected or args.db) and not (args.corrected and args.db):
        raise UsageError("--corrected and --db go together")
    n_boot, seed = _check_ci(args)
    mapping = parse_map(args.map)
    named = names(args.benchmark)  # the benchmark's tasks and parsers, its package not yet imported
    task = _check_task(named, args.task)
    parser = args.parser or named.PARSERS[0]
    if parser not in named.PARSERS:
        raise UsageError(f"unknown parser {parser!r} for {named.NAME} (known: {', '.join(named.PARSERS)})")
    from concurrent.futures import ThreadPoolExecutor

    # A benchmark may score its own native file without building the item table (same report,
    # faster); files of other pipelines, and corrected scores (they need the table), go through
    # the loader. Its early read (a module loaded alone) starts before the package and pandas are
    # imported. A report vouches for the file's kind (``score_file`` reads only its own native
    # predictions, docs/adding-a-benchmark.md), so the check of the kinds runs only without one.
    plain = not (args.ci or args.corrected or args.db)  # --ci and --corrected need the item table
    native = args.format is None and not mapping and plain
    early_module = early(args.benchmark) if native and args.gold is None else None
    done: ScoreReport | None = None
    with ThreadPoolExecutor(max_workers=1) as beside:
        read_early = beside.submit(early_module.read, args.predictions) if early_module is not None else None
        bench = get(args.benchmark)
        fast = getattr(bench, "score_file", None)
        if fast is not None and native:
            ahead = {} if read_early is None else {"early": read_early.result()}
            done = fast(args.predictions, gold=args.gold, task=task, parser=parser, **ahead)
    if done is not None:
        return dict(done)
    from analysis.files.readers import without_gc_pauses
    from analysis.load.detect import expect

    expect(args.predictions, bench, "predictions", task)
    if args.gold is not None and bench.TAKES_GOLD:  # the others refuse --gold itself
        expect(args.gold, bench, "gold", task)
    try:
        table = without_gc_pauses(bench.load)(
            args.predictions, gold=args.gold, task=task, fmt=args.format, mapping=mapping
        )
    except InputError as exc:
        from analysis.load.detect import with_formats_tried

        raise with_formats_tried(exc, args.predictions, bench, "predictions") from None
    if args.corrected:  # with --db (checked above)
        from analysis.cli.store_commands import corrected_table  # lazy: plain scoring never loads the store

        official, table = table, corrected_table(args.db, bench, table)
    report: dict[str, Any] = dict(bench.score(table, task=task, parser=parser))
    if args.corrected:
        from analysis.review.gold_changes import gold_changes

        # one run ranks no suspects (that needs three models): its last column equals the official
        report["gold_changes"] = [c.as_dict() for c in gold_changes(official, table, bench.NAME, ())]
    if args.ci:
        from analysis.stats.intervals import intervals

        stats = bench.cluster_stats(table, task=task, parser=parser)
        report["ci"] = intervals(stats, n_boot=n_boot, seed=seed)
    return report


class _Once(logging.Filter):
    """Let each distinct message through once."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message in self.seen:
            return False
        self.seen.add(message)
        return True


def run_report(args: argparse.Namespace) -> str:
    """Load the files and write the report (the work behind ``halluscope report``)."""
    from analysis.load.catalog import load_paths
    from analysis.report import render as report

    n_boot, seed = _check_ci(args, need_ci=False)
    if args.format == "html" and args.out is None:
        raise UsageError("--format html needs --out FILE")
    once = _Once()
    # one line per reason, not one per model: on the app's logger and each benchmark's own
    for name in ("halluscope", *(f"halluscope.{b}" for b in REGISTRY)):
        logging.getLogger(name).addFilter(once)
    catalog = load_paths(args.files, gold=args.gold, media_roots=media_roots(args.media_root))
    if not catalog.benchmarks():
        problem = "; ".join(catalog.errors) or "no benchmark results"
        raise UsageError(f"nothing to report: {problem}")
    corrected = report.corrected_rows(catalog, args.db) if args.db else None
    compare = tuple(args.compare) if args.compare else None
    if compare is not None:
        models = set(catalog.table["model"].astype(str))
        missing = [m for m in compare if m not in models]
        if missing:
            raise UsageError(f"--compare: no model {missing[0]!r} in the given files")
    parts = report.sections(catalog, n_boot=n_boot, seed=seed, corrected=corrected, compare=compare)
    if args.format == "html":
        text = report.html(catalog, parts, files=[str(f) for f in [*args.files, *args.gold]])
    else:
        boards = [lb for part in parts for lb in part.boards]
        text = (report.latex if args.format == "latex" else report.markdown)(boards)
        if args.format == "latex":
            text += "".join("\n" + report.latex_comparison(p.comparison) for p in parts if p.comparison)
            text += "".join("\n" + report.latex_changes(p.changes) for p in parts if p.changes)
    if args.out is None:
        return text
    args.out.write_text(text, encoding="utf-8")
    return f"wrote {args.out} ({len(parts)} benchmark(s), {len(catalog.errors)} file problem(s))"


def _check_ci(args: argparse.Namespace, need_ci: bool = True) -> tuple[int, int]:
    if need_ci and not args.ci and (args.n_boot is not None or args.seed is not None):
        raise UsageError("--n-boot and --seed need --ci")
    n_boot = N_BOOT if args.n_boot is None else args.n_boot
    seed = SEED if args.seed is None else args.seed
    if n_boot < 1 or n_boot > MAX_BOOT:
        raise UsageError(f"--n-boot must be between 1 and {MAX_BOOT:,} (got {n_boot})")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more (got {seed})")
    return n_boot, seed


def _check_task(bench: Any, task: str | None) -> str | None:
    """``task`` checked against the benchmark's tasks (``bench``: its package or its ``names``)."""
    if task is None:
        if bench.TASK_REQUIRED:
            raise UsageError(f"{bench.NAME} needs --task (one of: {', '.join(bench.TASKS)})")
        return None
    if not bench.TASKS:
        raise UsageError(f"{bench.NAME} takes no --task")
    if task not in bench.TASKS:
        raise UsageError(f"unknown task {task!r} for {bench.NAME} (known: {', '.join(bench.TASKS)})")
    return task


def format_report(report: ScoreReport | dict[str, Any]) -> str:
    """A readable table of a score report."""
    lines = [
        f"{report['benchmark']}"
        + (f" / {report['task']}" if report["task"] else "")
        + f"  parser={report['parser']}  scored={report['n_scored']}  skipped={report['n_skipped']}"
    ]
    if report["overall"]:
        lines.append("")
        lines.append(_metric_table({"overall": report["overall"]}, ""))
    for group, rows in report["groups"].items():
        lines.append("")
        lines.append(_metric_table(rows, group))
    ci: dict[str, Any] | None = report.get("ci")  # type: ignore[assignment]
    if ci:
        lines.append("")
        lines.append(
            f"{ci['level']:.0%} intervals: {ci['method']} bootstrap over {ci['n_clusters']} "
            f"{ci['cluster']} clusters, {ci['n_boot']} replicates, seed {ci['seed']}"
        )
        if ci["overall"]:
            lines.append(_metric_table({"overall": ci["overall"]}, ""))
        for group, rows in ci["groups"].items():
            lines.append(_metric_table(rows, group))
    return "\n".join(lines)


def _metric_table(rows: dict[str, Any], title: str) -> str:
    keys: list[str] = []
    for metrics in rows.values():
        keys.extend(k for k in metrics if k not in keys)
    width = max([len(title), *(len(r) for r in rows)]) + 2
    cells = {name: [_cell(metrics.get(k)) for k in keys] for name, metrics in rows.items()}
    widths = [max([len(k), 7, *(len(c[i]) for c in cells.values())]) + 2 for i, k in enumerate(keys)]
    out = [title.ljust(width) + "".join(k.rjust(w) for k, w in zip(keys, widths, strict=True))]
    for name, row in cells.items():
        out.append(name.ljust(width) + "".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    return "\n".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.4f}"
    return str(value)


def run_audit(args: argparse.Namespace) -> list[Finding]:
    """Run a benchmark's audit on gold files."""
    from analysis.load.detect import expect

    bench = get(args.benchmark)
    if args.media_root is not None and not args.media_root.is_dir():  # else every file "missing"
        what = "is a file, not a folder" if args.media_root.exists() else "no such folder"
        raise UsageError(f"--media-root {args.media_root}: {what}")
    for path in args.gold:
        expect(path, bench, "gold")
    try:
        return bench.audit(list(args.gold), media_root=args.media_root)
    except InputError as exc:  # a file of no format this benchmark reads: said so, as score says it
        from analysis.load.detect import with_formats_tried

        named = [Path(p) for p in args.gold if str(p) == exc.path]
        raise (with_formats_tried(exc, named[0], bench, "gold") if named else exc) from None


def write_fixes(path: Path, findings: Sequence[Finding]) -> None:
    """Every finding's suggested correction, one ``item_id, field, value, reason`` row per line."""
    rows = [f.fix_row(fix) for f in findings for fix in f.fix]
    try:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    except OSError as exc:
        raise InputError(path, f"cannot be written ({exc.strerror or type(exc).__name__})") from None


def format_findings(findings: Sequence[Finding], states: Sequence[str | None] | None = None) -> str:
    """Findings as readable lines, grouped by check; with ``states``, each one's review state."""
    if not findings:
        return "no problems found"
    lines = []
    for n, f in enumerate(findings):
        fix = f"  [fix: {', '.join(sorted({x.field + '=' + x.value for x in f.fix}))}]" if f.fix else ""
        state = f"  [{states[n]}]" if states is not None and states[n] else ""
        lines.append(f"{f.severity:7}  {f.check:24}  {f.where}: {f.detail}{fix}{state}")
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.check] = counts.get(f.check, 0) + 1
    lines.append("")
    lines.append(", ".join(f"{n} {check}" for check, n in counts.items()))
    return "\n".join(lines)


def _say_warnings() -> None:
    """Warnings of the ``halluscope`` loggers go to stderr as ``halluscope: <message>`` lines.

    Without a handler Python printed the bare message, unlike every other line the command writes.
    """
    logger = logging.getLogger("halluscope")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        handler = _Stderr(logging.WARNING)
        handler.setFormatter(logging.Formatter("halluscope: %(message)s"))
        logger.addHandler(handler)


class _Stderr(logging.Handler):
    """Writes to ``sys.stderr`` as it is when a line is written (a StreamHandler keeps the first)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(self.format(record).replace("\n", " "), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``halluscope`` console script."""
    _say_warnings()
    try:
        args = build_parser().parse_args(argv)
        if args.command == "score":
            report = run_score(args)
            _out(json.dumps(report) if args.json else format_report(report))
        elif args.command == "audit":
            findings = run_audit(args)
            states = None
            if args.db:
                from analysis.cli.store_commands import finding_states

                states = finding_states(args.db, get(args.benchmark), findings)
            if args.fixes is not None:  # with --db, only the fixes not yet in force
                write_fixes(
                    args.fixes, [f for n, f in enumerate(findings) if not states or states[n] != "fixed"]
                )
            if args.json:
                records = [
                    {**f.as_dict(), **({"reviewed": states[n]} if states is not None else {})}
                    for n, f in enumerate(findings)
                ]
                _out(json.dumps({"benchmark": get(args.benchmark).NAME, "findings": records}))
            else:
                _out(format_findings(findings, states))
        elif args.command == "items":
            task = _check_task(names(args.benchmark), args.task) if args.task is not None else None
            from analysis.cli.items import item_lines, load_files

            bench = get(args.benchmark)
            table = load_files(
                bench, args.files, gold=args.gold, task=task, fmt=args.format, mapping=parse_map(args.map)
            )
            corrected = None
            if args.db:
                from analysis.cli.store_commands import (
                    corrected_table,  # lazy: plain items never load the store
                )

                corrected = corrected_table(args.db, bench, table)
            for line in item_lines(bench, table, corrected):
                _out(line)
        elif args.command == "slices":
            check_slices(args)  # before the imports below: a usage error is told at once
            task = _check_task(names(args.benchmark), args.task) if args.task is not None else None
            from analysis.cli.failures import format_slices, run_slices, slice_lines

            found, tested = run_slices(args, task)
            if args.json:
                for line in slice_lines(found):
                    _out(line)
            else:
                _out(format_slices(found, tested, args.alpha))
        elif args.command == "suspects":
            check_suspects(args)  # before the imports below
            task = _check_task(names(args.benchmark), args.task) if args.task is not None else None
            from analysis.cli.suspects import format_suspects, run_suspects, suspect_lines

            ranked, reviewed = run_suspects(args, task)
            if args.json:
                for line in suspect_lines(ranked, reviewed):
                    _out(line)
                if not ranked:  # no object is valid JSON Lines, but silence reads as a fault
                    print(f"halluscope: {format_suspects(ranked, reviewed)}", file=sys.stderr)
            else:
                _out(format_suspects(ranked, reviewed))
        elif args.command == "pairs":
            from analysis.cli.pairs import run_pairs

            _out(run_pairs(args))
        elif args.command == "import":
            from analysis.cli.store_commands import run_import

            _out(run_import(args))
        elif args.command == "merge":
            from analysis.cli.store_commands import run_merge

            _out(run_merge(args))
        elif args.command == "export":
            fmt = check_export(args)  # before the store's imports
            from analysis.cli.store_commands import run_export  # lazy: scoring never loads the store

            _out(run_export(args, fmt))
        elif args.command == "report":
            _out(run_report(args))
        elif args.command == "serve":
            from analysis.cli.pairs import serve_pair_options
            from analysis.load.cache import default_cache_dir
            from analysis.load.catalog import SAMPLE_MANIFEST, start_loading
            from analysis.store.connect import check_early

            roots = media_roots(args.media_root)
            args.pairs = serve_pair_options(args)  # checked before any file loads: one line, exit 2
            check_early(args.db, args.data_dir)  # a damaged database: one line before any file loads
            wait = start_loading(
                args.files or [SAMPLE_MANIFEST],
                gold=args.gold,
                media_roots=roots,
                cache_dir=default_cache_dir(),
            )
            server()(args, wait)  # found while the files load: only the app needs Gradio
        _flush()
        return 0
    except _ReaderGone:
        _silence_stdout()
        return READER_GONE
    except (UsageError, UnknownBenchmark) as exc:
        print(f"halluscope: error: {exc}", file=sys.stderr)
        return 2
    except InputError as exc:
        print(f"halluscope: {exc.line()}", file=sys.stderr)
        return 2
    except StoreError as exc:  # a damaged or unusable label store, named in one line
        print(f"halluscope: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.filename is None:  # not about a file the user named: an internal error below
            return _internal(exc)
        print(
            f"halluscope: {InputError(exc.filename, f'cannot be read ({exc.strerror})').line()}",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:  # the user gets one line, never a traceback
        return _internal(exc)


SERVERS = "halluscope.servers"
"""Entry-point group of the app that ``serve`` runs (``pyproject.toml``: the Gradio app of ``app.py``).

The core never imports the app: the app registers itself here, as a plugin would."""

Server = Callable[[argparse.Namespace, Callable[[], Any]], None]
"""(the ``serve`` arguments, a call that waits for the loaded catalog) -> serves until interrupted."""


def server() -> Server:
    """The app ``serve`` runs: the one registered under :data:`SERVERS`."""
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=SERVERS), key=lambda e: e.name)
    if not found:
        raise UsageError("serve needs the app, which is not installed: pip install -e . in a checkout")
    loaded: Server = found[0].load()
    return loaded


def _internal(exc: Exception) -> int:
    if os.environ.get("HALLUSCOPE_DEBUG"):
        raise exc
    print(f"halluscope: internal error: {type(exc).__name__}: {exc}".replace("\n", " "), file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
