"""The ``halluscope`` command line: ``score``, ``audit``, ``items``, ``import``, ``export``, ``serve``.

The contract is ``docs/cli.md``; the commands that read or write the label store live in
:mod:`analysis.store.command` (imported only when needed, so scoring never loads SQLAlchemy).

Exit codes: 0 success, 2 bad usage or bad input (one line on stderr naming file, record and
field), 1 an internal error (one line; set ``HALLUSCOPE_DEBUG=1`` for the traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from analysis.benchmarks import REGISTRY, UnknownBenchmark, get
from analysis.benchmarks.base import Benchmark, Finding, ScoreReport
from analysis.detect import expect
from analysis.errors import InputError, StoreError, UsageError
from analysis.harness import FORMATS, parse_map


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
    score.add_argument("--parser", help="answer parser (default: official, or first-word for avhbench)")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument("--format", choices=FORMATS, default=None,
                       help="the file's format where content cannot tell (default: by content)")
    score.add_argument("--map", default=None, metavar="TARGET=SOURCE,...",
                       help="rename fields before reading, e.g. prediction=text,question=prompt")
    score.add_argument("--db", help="label database (SQLite file or postgresql://...), with --corrected")
    score.add_argument("--corrected", action="store_true",
                       help="score against the store's current corrected gold (needs --db)")

    items = sub.add_parser("items", help="print the item table as JSON Lines, one object per (item, model)")
    items.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    items.add_argument("files", type=Path, nargs="+")
    items.add_argument("--gold", type=Path, help="gold file, where the benchmark needs one")
    items.add_argument("--task", help="task, where the benchmark has several")
    items.add_argument("--json", action="store_true", help="JSON Lines (the only output format)")
    items.add_argument("--format", choices=FORMATS, default=None,
                       help="the files' format where content cannot tell (default: by content)")
    items.add_argument("--map", default=None, metavar="TARGET=SOURCE,...",
                       help="rename fields before reading, e.g. prediction=text,question=prompt")

    imp = sub.add_parser("import", help="record corrections (CSV or JSONL: item_id, field, value, reason)")
    imp.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    imp.add_argument("corrections", type=Path)
    imp.add_argument("--db", help="label database: a SQLite file or postgresql://... "
                     "(default data/halluscope.db)")
    imp.add_argument("--reviewer", required=True, help="who the corrections are recorded for")

    audit = sub.add_parser("audit", help="find data problems in gold files")
    audit.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    audit.add_argument("gold", type=Path, nargs="+")
    audit.add_argument("--media-root", type=Path, help="folder the media paths resolve against")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument("--fixes", type=Path, metavar="FILE",
                       help="write the suggested corrections as JSONL rows for `halluscope import`")

    export = sub.add_parser("export", help="export corrections, or corrected gold in native files")
    export.add_argument("benchmark", help=f"one of: {', '.join(REGISTRY)}")
    export.add_argument("--db", help="label database: a SQLite file or postgresql://... "
                        "(default data/halluscope.db)")
    export.add_argument("--format", choices=("csv", "jsonl", "parquet", "native"), default="csv")
    export.add_argument("--out", type=Path, required=True, help="output file, or folder for --format native")
    export.add_argument("--gold", type=Path, nargs="+", help="native: the original files to write corrected")

    serve = sub.add_parser("serve", help="open the reviewer app on result files of any benchmarks")
    serve.add_argument("files", type=Path, nargs="*", help="gold and prediction files (none: the samples)")
    serve.add_argument("--gold", type=Path, action="append", default=[], help="a file to take as gold")
    serve.add_argument("--media-root", action="append", default=[], metavar="BENCH=DIR",
                       help="folder a benchmark's media paths resolve against (repeatable)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=7860)
    serve.add_argument("--db", default=None, metavar="URL",
                       help="label store: SQLite path or postgresql:// URL (default DATA_DIR/halluscope.db)")
    serve.add_argument("--data-dir", type=Path, default=None, help="folder for the label store")
    serve.add_argument("--auth", action="append", default=[], metavar="USER:PASS",
                       help="a reviewer who may sign in (repeatable; also $HALLUSCOPE_AUTH)")
    serve.add_argument("--auth-file", type=Path, default=None, help="a file of USER:PASS lines")
    serve.add_argument("--adjudicator", action="append", default=[], metavar="NAME",
                       help="a signed-in user who may settle disagreements (repeatable; also "
                            "$HALLUSCOPE_ADJUDICATORS, comma-separated; on Spaces the HF username)")
    serve.add_argument("--blind", action="append", default=[], metavar="NAME",
                       help="a reviewer who reviews blind: no gold, verdict, metric or other reviewer's "
                            "vote reaches them (repeatable; also $HALLUSCOPE_BLIND)")
    return parser


def media_roots(values: Sequence[str]) -> dict[str, list[Path]]:
    """Parse ``--media-root BENCH=DIR`` options into folders per benchmark id."""
    roots: dict[str, list[Path]] = {}
    for value in values:
        bench, sep, folder = value.partition("=")
        if not sep or not folder:
            raise UsageError(f"--media-root expects BENCH=DIR, got {value!r}")
        if not Path(folder).is_dir():
            raise UsageError(f"--media-root {value!r}: no such folder")
        roots.setdefault(get(bench).NAME, []).append(Path(folder))
    return roots


def run_score(args: argparse.Namespace) -> ScoreReport:
    """Load, validate options and score (the work behind ``halluscope score``)."""
    bench = get(args.benchmark)
    task = _check_task(bench, args.task)
    parser = args.parser or bench.PARSERS[0]
    if parser not in bench.PARSERS:
        raise UsageError(
            f"unknown parser {parser!r} for {bench.NAME} (known: {', '.join(bench.PARSERS)})"
        )
    expect(args.predictions, bench, "predictions", task)
    if args.gold is not None and bench.TAKES_GOLD:  # the others refuse --gold itself
        expect(args.gold, bench, "gold", task)
    mapping = parse_map(args.map)
    # A benchmark may score its own native file without building the item table (same report,
    # faster); files of other pipelines go through the loader.
    fast = getattr(bench, "score_file", None)
    if fast is not None and args.format is None and not mapping:
        report: ScoreReport | None = fast(args.predictions, gold=args.gold, task=task, parser=parser)
        if report is not None:
            return report
    table = bench.load(args.predictions, gold=args.gold, task=task, fmt=args.format, mapping=mapping)
    if args.corrected or args.db:
        if not (args.corrected and args.db):
            raise UsageError("--corrected and --db go together")
        from analysis.store.command import corrected_report  # lazy: plain scoring never loads the store

        return corrected_report(args, bench, table, task, parser)
    return bench.score(table, task=task, parser=parser)


def _check_task(bench: Benchmark, task: str | None) -> str | None:
    if task is None:
        if bench.TASK_REQUIRED:
            raise UsageError(f"{bench.NAME} needs --task (one of: {', '.join(bench.TASKS)})")
        return None
    if not bench.TASKS:
        raise UsageError(f"{bench.NAME} takes no --task")
    if task not in bench.TASKS:
        raise UsageError(f"unknown task {task!r} for {bench.NAME} (known: {', '.join(bench.TASKS)})")
    return task


def format_report(report: ScoreReport) -> str:
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
    return "\n".join(lines)


def _metric_table(rows: dict[str, Any], title: str) -> str:
    keys: list[str] = []
    for metrics in rows.values():
        keys.extend(k for k in metrics if k not in keys)
    width = max([len(title), *(len(r) for r in rows)]) + 2
    header = title.ljust(width) + "".join(k.rjust(max(len(k), 7) + 2) for k in keys)
    out = [header]
    for name, metrics in rows.items():
        cells = "".join(_cell(metrics.get(k)).rjust(max(len(k), 7) + 2) for k in keys)
        out.append(name.ljust(width) + cells)
    return "\n".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.4f}"
    return str(value)


def run_audit(args: argparse.Namespace) -> list[Finding]:
    """Run a benchmark's audit on gold files."""
    bench = get(args.benchmark)
    for path in args.gold:
        expect(path, bench, "gold")
    return bench.audit(list(args.gold), media_root=args.media_root)


def write_fixes(path: Path, findings: Sequence[Finding]) -> None:
    """Every finding's suggested correction, one ``item_id, field, value, reason`` row per line."""
    rows = [f.fix_row(fix) for f in findings for fix in f.fix]
    try:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    except OSError as exc:
        raise InputError(path, f"cannot be written ({exc.strerror or type(exc).__name__})") from None


def format_findings(findings: Sequence[Finding]) -> str:
    """Findings as readable lines, grouped by check."""
    if not findings:
        return "no problems found"
    lines = []
    for f in findings:
        fix = f"  [fix: {', '.join(sorted({x.field + '=' + x.value for x in f.fix}))}]" if f.fix else ""
        lines.append(f"{f.severity:7}  {f.check:24}  {f.where}: {f.detail}{fix}")
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.check] = counts.get(f.check, 0) + 1
    lines.append("")
    lines.append(", ".join(f"{n} {check}" for check, n in counts.items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``halluscope`` console script."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "score":
            report = run_score(args)
            print(json.dumps(report) if args.json else format_report(report))
        elif args.command == "audit":
            findings = run_audit(args)
            if args.fixes is not None:
                write_fixes(args.fixes, findings)
            if args.json:
                print(json.dumps({"benchmark": get(args.benchmark).NAME,
                                  "findings": [f.as_dict() for f in findings]}))
            else:
                print(format_findings(findings))
        elif args.command == "items":
            from analysis.items import item_lines, load_files

            bench = get(args.benchmark)
            task = _check_task(bench, args.task) if args.task is not None else None
            table = load_files(bench, args.files, gold=args.gold, task=task, fmt=args.format,
                               mapping=parse_map(args.map))
            for line in item_lines(bench, table):
                print(line)
        elif args.command == "import":
            from analysis.store.command import run_import

            print(run_import(args))
        elif args.command == "export":
            from analysis.store.command import run_export  # lazy: scoring never loads the store

            print(run_export(args))
        elif args.command == "serve":
            from analysis.cache import default_cache_dir
            from analysis.catalog import SAMPLE_MANIFEST, start_loading

            roots = media_roots(args.media_root)
            wait = start_loading(args.files or [SAMPLE_MANIFEST], gold=args.gold, media_roots=roots,
                                 cache_dir=default_cache_dir())
            import app  # lazy, and while the files load: only the app needs Gradio
            from components.identity import AuthError, auth_from

            try:
                users = auth_from(extra=args.auth, auth_file=args.auth_file)
            except (AuthError, OSError) as exc:
                raise UsageError(f"--auth: {exc}") from exc
            from components.identity import roles_from

            review = {"users": users or None, "db": args.db, "data_dir": args.data_dir,
                      "roles": roles_from(adjudicators=args.adjudicator, blind=args.blind)}
            app.serve(wait(), host=args.host, port=args.port,
                      **{k: v for k, v in review.items() if v is not None})
        return 0
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
        print(f"halluscope: {InputError(exc.filename, f'cannot be read ({exc.strerror})').line()}",
              file=sys.stderr)
        return 2
    except Exception as exc:  # the user gets one line, never a traceback
        return _internal(exc)


def _internal(exc: Exception) -> int:
    if os.environ.get("HALLUSCOPE_DEBUG"):
        raise exc
    print(f"halluscope: internal error: {type(exc).__name__}: {exc}".replace("\n", " "), file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
