"""``halluscope pairs score`` and ``pairs saliency``: clip pairs as the benchmark selected them.

The benchmark is the one whose package declares clip pairs and their selection rule
(:class:`~analysis.benchmarks.base.PairSpec`, :class:`~analysis.benchmarks.base.PairRule`). See
``docs/pair-scores.md`` and ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from analysis.errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``pairs score`` and ``pairs saliency``."""
    pairs = sub.add_parser(
        "pairs", help="clip pairs: CLIP / DINOv2 scores by the selection rule, and saliency"
    )
    actions = pairs.add_subparsers(dest="pairs_command", metavar="ACTION", required=True)
    score = actions.add_parser("score", help="CLIP semantic and DINOv2 visual similarity of every pair")
    saliency = actions.add_parser("saliency", help="DINOv2 attention overlays of each pair's frames (PNG)")
    for p in (score, saliency):
        p.add_argument(
            "gold", type=Path, nargs="+", metavar="GOLD", help="the gold files that hold the pairs"
        )
        p.add_argument("--media-root", action="append", default=[], metavar="BENCH=DIR", required=True)
        p.add_argument(
            "--dino", type=Path, required=True, metavar="DINO_DIR", help="a local DINOv2 checkpoint"
        )
        p.add_argument(
            "--frames", type=int, default=8, help="frames sampled evenly from each clip (default 8)"
        )
    score.add_argument("--clip", type=Path, required=True, metavar="CLIP_DIR", help="a local CLIP checkpoint")
    score.add_argument("--out", type=Path, required=True, metavar="FILE", help="JSON Lines, one pair a line")
    score.add_argument("--no-cache", action="store_true", help="compute every embedding again")
    score.add_argument("--db", help="label store: each line also gives the team's decision on the pair")
    saliency.add_argument("--pair", action="append", default=[], metavar="ID", help="only these pairs")
    saliency.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for the PNG overlays"
    )


def run_pairs(args: argparse.Namespace) -> str:
    """Dispatch ``pairs score`` / ``pairs saliency``; returns the summary line."""
    if not 1 <= args.frames <= 64:
        raise UsageError(f"--frames must be between 1 and 64, not {args.frames}")
    spec, pairs, resolve = _pairs(args)
    if args.pairs_command == "score":
        return _score(args, spec, pairs, resolve)
    return _saliency(args, pairs, resolve)


def serve_pair_options(args: argparse.Namespace) -> dict[str, Any]:
    """``serve --pair-scores / --pair-clip / --pair-dino``, read and checked: what the pair tab takes.

    ``pair_scores`` (pair id -> its ``pairs score`` line), ``pair_clip`` and ``pair_dino``
    (checkpoint folders); a file that cannot be read or a folder that is no checkpoint raises
    the one-line error of :func:`~analysis.review.pairs.scores.read_scores` or
    :func:`~analysis.review.pairs.embed.check_checkpoint`.
    """
    out: dict[str, Any] = {}
    if args.pair_scores is not None:
        from analysis.review.pairs.scores import read_scores

        out["pair_scores"] = read_scores(args.pair_scores)
    for key, folder in (("pair_clip", args.pair_clip), ("pair_dino", args.pair_dino)):
        if folder is not None:
            from analysis.review.pairs.embed import check_checkpoint

            check_checkpoint(folder, key.replace("_", "-"))
            out[key] = folder
    return out


def paired_benchmark() -> Any:
    """The registered benchmark whose pairs were selected by a rule (UsageError when none is)."""
    from analysis.benchmarks import REGISTRY

    for bench in REGISTRY.values():
        if bench.PAIRS is not None and bench.PAIRS.rule is not None:
            return bench
    raise UsageError("no registered benchmark declares clip pairs with a selection rule")


def _pairs(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from analysis.cli.roots import media_roots
    from analysis.files.media import MediaResolver

    bench = paired_benchmark()
    spec = bench.PAIRS
    roots = media_roots(args.media_root).get(bench.NAME)
    if not roots:
        raise UsageError(f"--media-root must name the clips: --media-root {bench.NAME}=DIR")
    from analysis.load.detect import expect

    for path in args.gold:  # another benchmark's file: said as such, not as invalid JSON
        expect(path, bench, "gold")
    pairs = spec.catalogue(bench.load_gold(args.gold))
    if not len(pairs):
        raise UsageError(f"no pair in the given files (give {' or '.join(spec.gold_names)})")
    resolver = MediaResolver(roots, bench.MEDIA_ALIASES)
    return spec, pairs, resolver.resolve


def _score(args: argparse.Namespace, spec: Any, pairs: Any, resolve: Any) -> str:
    from analysis.load.cache import default_cache_dir
    from analysis.review.pairs.embed import load_encoder
    from analysis.review.pairs.scores import EmbeddingCache, score_pairs, write_scores

    out = Path(args.out)
    if out.is_dir() or not out.parent.is_dir():  # said before minutes of embedding, not after
        where = "is a folder" if out.is_dir() else f"is in a folder that does not exist ({out.parent})"
        raise UsageError(f"--out {out} {where}: give the path of the scores file to write")
    team = None
    if args.db:  # read first: a store that cannot be read is said before minutes of embedding
        from analysis.cli.store_commands import pair_decisions

        team = pair_decisions(args.db, [str(p) for p in pairs["pair_id"]])
    clip, dino = load_encoder(args.clip, "clip"), load_encoder(args.dino, "dino")
    cache = EmbeddingCache(None if args.no_cache else default_cache_dir() / "embeddings")
    rule = spec.rule
    found = list(
        score_pairs(pairs, resolve, clip, dino, rule, frames=args.frames, cache=cache, progress=_progress())
    )
    write_scores(args.out, found, team)
    kept = sum(s.kept is True for s in found)
    problems = sum(s.problem is not None for s in found)
    return (
        f"wrote {args.out}: {len(found)} pair(s), {kept} meet the rule (semantic > {rule.semantic_above}, "
        f"visual < {rule.visual_below}), {problems} with a problem; embeddings: {cache.hits} from the "
        f"cache, {cache.misses} computed"
    )


def _saliency(args: argparse.Namespace, pairs: Any, resolve: Any) -> str:
    from analysis.review.pairs.embed import load_encoder
    from analysis.review.pairs.saliency import write_overlays

    if args.pair:
        unknown = sorted(set(args.pair) - set(pairs["pair_id"].astype(str)))
        if unknown:
            raise UsageError(f"--pair {unknown[0]!r}: no such pair in the given files")
        pairs = pairs[pairs["pair_id"].astype(str).isin(args.pair)]
    dino = load_encoder(args.dino, "dino")
    written, problems = write_overlays(
        pairs, resolve, dino, args.out, frames=args.frames, progress=_progress()
    )
    unread = f"; {len(problems)} clip(s) unreadable ({'; '.join(problems[:3])})" if problems else ""
    return f"wrote {written} overlay(s) under {args.out}{unread}"


def _progress() -> Any:
    """A one-line progress bar on the terminal's stderr (nothing when stderr is not a terminal)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} pairs")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
