"""``halluscope pairs score`` and ``pairs saliency``: VidHalluc pairs as the paper selected them.

See ``docs/pair-scores.md`` and ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from analysis.errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``pairs score`` and ``pairs saliency``."""
    pairs = sub.add_parser("pairs", help="VidHalluc clip pairs: CLIP / DINOv2 scores and saliency")
    actions = pairs.add_subparsers(dest="pairs_command", metavar="{score,saliency}", required=True)
    score = actions.add_parser("score", help="CLIP semantic and DINOv2 visual similarity of every ACH pair")
    saliency = actions.add_parser("saliency", help="DINOv2 attention overlays of each pair's frames (PNG)")
    for p in (score, saliency):
        p.add_argument(
            "gold", type=Path, nargs="+", metavar="GOLD", help="ach_binaryqa.json and/or ach_mcq.json"
        )
        p.add_argument("--media-root", action="append", default=[], metavar="vidhalluc=DIR", required=True)
        p.add_argument(
            "--dino", type=Path, required=True, metavar="DINO_DIR", help="a local DINOv2 checkpoint"
        )
        p.add_argument(
            "--frames", type=int, default=8, help="frames sampled evenly from each clip (default 8)"
        )
    score.add_argument("--clip", type=Path, required=True, metavar="CLIP_DIR", help="a local CLIP checkpoint")
    score.add_argument("--out", type=Path, required=True, metavar="FILE", help="JSON Lines, one pair a line")
    score.add_argument("--no-cache", action="store_true", help="compute every embedding again")
    saliency.add_argument("--pair", action="append", default=[], metavar="ID", help="only these pairs")
    saliency.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for the PNG overlays"
    )


def run_pairs(args: argparse.Namespace) -> str:
    """Dispatch ``pairs score`` / ``pairs saliency``; returns the summary line."""
    if not 1 <= args.frames <= 64:
        raise UsageError(f"--frames must be between 1 and 64, not {args.frames}")
    pairs, resolve = _pairs(args)
    if args.pairs_command == "score":
        return _score(args, pairs, resolve)
    return _saliency(args, pairs, resolve)


def _pairs(args: argparse.Namespace) -> tuple[Any, Any]:
    from analysis.benchmarks import get
    from analysis.benchmarks.vidhalluc.pairs import catalogue
    from analysis.cli.main import media_roots
    from analysis.files.media import MediaResolver

    bench = get("vidhalluc")
    roots = media_roots(args.media_root).get(bench.NAME)
    if not roots:
        raise UsageError("--media-root must name the VidHalluc clips: --media-root vidhalluc=DIR")
    table = bench.load_gold(args.gold)
    pairs = catalogue(table)
    if not len(pairs):
        raise UsageError("no ACH pair in the given files (give ach_binaryqa.json or ach_mcq.json)")
    resolver = MediaResolver(roots, bench.MEDIA_ALIASES)
    return pairs, resolver.resolve


def _score(args: argparse.Namespace, pairs: Any, resolve: Any) -> str:
    from analysis.load.cache import default_cache_dir
    from analysis.review.pairs.embed import load_encoder
    from analysis.review.pairs.scores import EmbeddingCache, score_pairs, write_scores

    clip, dino = load_encoder(args.clip, "clip"), load_encoder(args.dino, "dino")
    cache = EmbeddingCache(None if args.no_cache else default_cache_dir() / "embeddings")
    found = list(
        score_pairs(pairs, resolve, clip, dino, frames=args.frames, cache=cache, progress=_progress())
    )
    write_scores(args.out, found)
    kept = sum(s.kept is True for s in found)
    problems = sum(s.problem is not None for s in found)
    return (
        f"wrote {args.out}: {len(found)} pair(s), {kept} meet the rule (semantic > 0.9, visual < 0.6), "
        f"{problems} with a problem; embeddings: {cache.hits} from the cache, {cache.misses} computed"
    )


def _saliency(args: argparse.Namespace, pairs: Any, resolve: Any) -> str:
    from analysis.review.pairs.embed import load_encoder
    from analysis.review.pairs.saliency import write_overlays

    if args.pair:
        unknown = sorted(set(args.pair) - set(pairs["pair_id"].astype(str)))
        if unknown:
            raise UsageError(f"--pair {unknown[0]!r}: no such ACH pair in the given files")
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
