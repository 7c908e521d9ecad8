"""Pair scores as a benchmark selected its clip pairs: CLIP and DINOv2 similarity of the clips.

``score_pairs`` samples ``frames`` frames evenly from each clip (moviepy), embeds them with both
checkpoints (:mod:`.embed`), and gives each pair of the benchmark's pair catalogue
(:class:`~analysis.benchmarks.base.PairSpec`) its semantic (CLIP) and visual (DINOv2) cosine
similarity, and whether it meets the benchmark's :class:`~analysis.benchmarks.base.PairRule`.
A pair of three clips takes the lowest semantic and the highest visual similarity over its pairs
of clips, since the rule must hold for every two. Embeddings are cached by clip content,
checkpoint digest and frame count, so a second run costs only what changed
(``docs/pair-scores.md``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.benchmarks.base import PairRule
from analysis.files.atomic import write_text_atomic
from analysis.review.pairs.embed import Encoder, Floats, clip_embedding, cosine
from analysis.review.pairs.preview_media import last_time, open_clip

DEFAULT_FRAMES = 8


@dataclass(frozen=True)
class PairScore:
    """One pair's scores (``halluscope pairs score`` writes one JSON line each)."""

    pair_id: str
    clips: tuple[str, ...]
    semantic: float | None
    visual: float | None
    frames: int
    clip_model: Mapping[str, str]
    dino_model: Mapping[str, str]
    rule: PairRule
    problem: str | None = None

    @property
    def kept(self) -> bool | None:
        """Whether the pair meets the benchmark's selection rule."""
        return self.rule.holds(self.semantic, self.visual)

    def as_dict(self) -> dict[str, Any]:
        """The JSON line (``docs/cli.md``, ``pairs score``)."""
        out: dict[str, Any] = {
            "pair_id": self.pair_id,
            "clips": list(self.clips),
            "semantic": self.semantic,
            "visual": self.visual,
            "kept": self.kept,
            "frames": self.frames,
            "clip_model": dict(self.clip_model),
            "dino_model": dict(self.dino_model),
        }
        if self.problem is not None:
            out["problem"] = self.problem
        return out


def sample_frames(path: Path, n: int) -> list[Any]:
    """``n`` frames at evenly spaced times from the first to the last decodable one (PIL images)."""
    from PIL import Image

    with open_clip(path) as clip:
        end = last_time(clip)
        times = [end / 2] if n == 1 else [end * i / (n - 1) for i in range(n)]
        return [Image.fromarray(np.asarray(clip.get_frame(t))).convert("RGB") for t in times]


class EmbeddingCache:
    """Clip embeddings on disk, keyed by the clip's bytes, the checkpoint's digest and the frames."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._content: dict[tuple[str, int, int], str] = {}
        self.hits = 0
        self.misses = 0

    def content(self, path: Path) -> str:
        """SHA-256 of a file's bytes (remembered per path, size and modification time)."""
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in self._content:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            self._content[key] = digest.hexdigest()
        return self._content[key]

    def get(self, path: Path, encoder: Encoder, frames: int, compute: Callable[[], Floats]) -> Floats:
        """The clip's embedding under ``encoder``: from disk, else computed and stored."""
        if self.folder is None:
            self.misses += 1
            return compute()
        key = hashlib.sha256(
            f"{self.content(path)}|{encoder.kind}|{encoder.digest}|{frames}".encode()
        ).hexdigest()
        target = self.folder / key[:2] / f"{key}.npy"
        if target.is_file():
            try:
                found = np.load(target, allow_pickle=False)
                self.hits += 1
                return np.asarray(found, dtype=np.float32)
            except (OSError, ValueError):
                pass  # a torn file: computed again and replaced
        value = compute()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{hashlib.sha256(str(id(value)).encode()).hexdigest()[:8]}.tmp")
        with partial.open("wb") as handle:
            np.save(handle, value, allow_pickle=False)
        partial.replace(target)
        self.misses += 1
        return value


def score_pairs(
    pairs: pd.DataFrame,
    resolve: Callable[[str], Path | None],
    clip: Encoder,
    dino: Encoder,
    rule: PairRule,
    *,
    frames: int = DEFAULT_FRAMES,
    cache: EmbeddingCache | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[PairScore]:
    """Scores of every pair of a pair catalogue's rows (:attr:`PairSpec.catalogue`), in order.

    ``resolve`` turns a clip's media path into a file (None: not found).
    """
    cache = cache or EmbeddingCache(None)
    models = (
        {"folder": str(clip.folder), "digest": clip.digest},
        {"folder": str(dino.folder), "digest": dino.digest},
    )
    total = len(pairs)
    for done, (pair_id, clips, media) in enumerate(
        zip(pairs["pair_id"], pairs["clips"], pairs["media"], strict=True), start=1
    ):
        embeddings: dict[str, tuple[Floats, Floats]] = {}
        problem = None
        for clip_id in clips:
            path = resolve(str(media.get(clip_id, "")))
            if path is None:
                problem = f"clip {clip_id}: video {media.get(clip_id)!r} not found under the media root"
                break
            try:
                embeddings[clip_id] = _embed(path, clip, dino, frames, cache)
            except Exception as exc:  # moviepy and ffmpeg raise many kinds for a broken file
                problem = f"clip {clip_id}: video {path.name} cannot be read ({_reason(exc)})"
                break
        if problem is not None or len(embeddings) < 2:
            why = problem or "fewer than two clips"
            yield PairScore(str(pair_id), tuple(clips), None, None, frames, *models, rule, why)
        else:
            semantic, visual = _pair_similarity(list(embeddings.values()))
            yield PairScore(str(pair_id), tuple(clips), semantic, visual, frames, *models, rule)
        if progress is not None:
            progress(done, total)


def _embed(
    path: Path, clip: Encoder, dino: Encoder, frames: int, cache: EmbeddingCache
) -> tuple[Floats, Floats]:
    sampled: list[Any] = []

    def frames_once() -> list[Any]:
        if not sampled:
            sampled.extend(sample_frames(path, frames))
        return sampled

    semantic = cache.get(path, clip, frames, lambda: clip_embedding(clip.embed(frames_once())))
    visual = cache.get(path, dino, frames, lambda: clip_embedding(dino.embed(frames_once())))
    return semantic, visual


def _pair_similarity(embeddings: Sequence[tuple[Floats, Floats]]) -> tuple[float, float]:
    """(lowest CLIP, highest DINOv2 similarity) over every two clips."""
    semantic = min(cosine(a[0], b[0]) for a, b in itertools.combinations(embeddings, 2))
    visual = max(cosine(a[1], b[1]) for a, b in itertools.combinations(embeddings, 2))
    return semantic, visual


def write_scores(
    path: Path, scores: Sequence[PairScore], team: Mapping[str, Mapping[str, Any]] | None = None
) -> None:
    """JSON Lines, one pair a line, written atomically; ``team``: pair id -> keys added to its line."""
    lines = ({**s.as_dict(), **(team or {}).get(s.pair_id, {})} for s in scores)
    write_text_atomic(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


def read_scores(path: Path) -> dict[str, dict[str, Any]]:
    """Pair id -> its line of a ``pairs score`` output file (``serve --pair-scores``)."""
    from analysis.files.readers import read_jsonl

    records = read_jsonl(path)
    out: dict[str, dict[str, Any]] = {}
    for index, record in enumerate(records.items):
        pair = record.get("pair_id")
        if not isinstance(pair, str):
            raise records.error(index, "expected the pair id as a string", "pair_id")
        for key in ("semantic", "visual"):
            value = record.get(key)
            if value is not None and not isinstance(value, int | float):
                raise records.error(index, "expected a number or null", key)
        out[pair] = dict(record)
    return out


_FFMPEG_PREFIX = re.compile(r"^\[[^\]]* @ 0x[0-9a-f]+\]\s*")


def _reason(exc: Exception, width: int = 160) -> str:
    """What a reader's error says, in one line: ffmpeg's own lines, not moviepy's heading.

    moviepy's first line is a heading ending in a colon ("Error passing `ffmpeg -i` command
    output:"), which alone said nothing; ffmpeg's lines after it name the fault ("moov atom not found").
    """
    lines = [_FFMPEG_PREFIX.sub("", line).strip() for line in str(exc).splitlines()]
    said = [line for line in dict.fromkeys(lines) if line and not line.endswith(":")]
    text = "; ".join(said) or type(exc).__name__
    return text if len(text) <= width else text[: width - 1] + "…"
