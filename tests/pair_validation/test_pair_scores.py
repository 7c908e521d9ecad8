"""VidHalluc pair scores and DINOv2 saliency from local checkpoints, with no internet (issue 23)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.benchmarks.base import PairRule
from analysis.cli.main import main
from analysis.errors import UsageError
from analysis.load.catalog import SAMPLE_MANIFEST
from analysis.review.pairs.embed import INSTALL, load_encoder
from analysis.review.pairs.scores import EmbeddingCache, read_scores, sample_frames, score_pairs

pytest.importorskip("torch", reason="torch is an optional dependency (pip install .[embed])")
pytest.importorskip("transformers", reason="transformers is an optional dependency")

from pair_validation.tiny_encoders import IMAGE, PATCH, build

VIDHALLUC = SAMPLE_MANIFEST.parent / "vidhalluc"
GOLD = [str(VIDHALLUC / "ach_binaryqa.json"), str(VIDHALLUC / "ach_mcq.json")]
RULE = PairRule(0.9, 0.6)
CLIP_A, CLIP_B = VIDHALLUC / "media" / "sf7026ba_clip_1.mp4", VIDHALLUC / "media" / "sf7026ba_clip_2.mp4"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("encoders"))


@pytest.fixture(scope="module")
def encoders(tiny: tuple[Path, Path]) -> tuple[Any, Any]:
    return load_encoder(tiny[0], "clip"), load_encoder(tiny[1], "dino")


def test_the_tiny_checkpoints_are_small_and_named_by_their_weights(
    tiny: tuple[Path, Path], encoders: Any
) -> None:
    for folder in tiny:
        size = sum(p.stat().st_size for p in folder.iterdir())
        assert size < 1_000_000, (folder, size)
    clip, dino = encoders
    assert len(clip.digest) == 16 and clip.digest != dino.digest
    assert load_encoder(tiny[0], "clip").digest == clip.digest  # the same weights, the same digest


def test_frame_embeddings_have_the_models_shapes_and_unit_length(encoders: Any) -> None:
    clip, dino = encoders
    frames = sample_frames(CLIP_A, 4)
    assert len(frames) == 4 and frames[0].mode == "RGB"
    semantic, visual = clip.embed(frames), dino.embed(frames)
    assert semantic.shape == (4, 16) and visual.shape == (4, 32)  # projection_dim, hidden_size
    assert np.allclose(np.linalg.norm(semantic, axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.linalg.norm(visual, axis=1), 1.0, atol=1e-5)


def _pairs(media: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"pair_id": ["p"], "clips": [tuple(media)], "media": [media]})


def test_a_pair_of_identical_clips_scores_one_on_both(encoders: Any) -> None:
    clip, dino = encoders
    same = _pairs({"a": str(CLIP_A), "b": str(CLIP_A)})
    (score,) = score_pairs(same, lambda p: Path(p), clip, dino, RULE, frames=3)
    assert score.semantic == pytest.approx(1.0, abs=1e-5) and score.visual == pytest.approx(1.0, abs=1e-5)
    assert score.kept is False  # the same look: visual 1.0 is not below 0.6
    assert score.as_dict()["clip_model"] == {"folder": str(clip.folder), "digest": clip.digest}


def test_two_runs_agree_and_the_second_comes_from_the_cache(encoders: Any, tmp_path: Path) -> None:
    clip, dino = encoders
    pair = _pairs({"a": str(CLIP_A), "b": str(CLIP_B)})
    cache = EmbeddingCache(tmp_path / "cache")
    (first,) = score_pairs(pair, lambda p: Path(p), clip, dino, RULE, frames=3, cache=cache)
    assert (cache.hits, cache.misses) == (0, 4)  # two clips x two checkpoints
    (second,) = score_pairs(pair, lambda p: Path(p), clip, dino, RULE, frames=3, cache=cache)
    assert (cache.hits, cache.misses) == (4, 4)
    assert (second.semantic, second.visual) == (first.semantic, first.visual)
    (fresh,) = score_pairs(pair, lambda p: Path(p), clip, dino, RULE, frames=3)  # no cache: computed again
    assert fresh.semantic == pytest.approx(first.semantic, abs=1e-6)
    (other,) = score_pairs(pair, lambda p: Path(p), clip, dino, RULE, frames=2, cache=cache)
    assert cache.misses == 8  # other frame settings are other keys
    assert -1.0 <= other.semantic <= 1.0 and -1.0 <= other.visual <= 1.0  # type: ignore[operator]


def test_a_missing_clip_gives_null_scores_and_says_which(encoders: Any) -> None:
    clip, dino = encoders
    pair = _pairs({"a": str(CLIP_A), "b": "nowhere.mp4"})
    (score,) = score_pairs(pair, lambda p: Path(p) if Path(p).is_file() else None, clip, dino, RULE, frames=2)
    assert (score.semantic, score.visual, score.kept) == (None, None, None)
    assert score.problem is not None and "clip b" in score.problem and "nowhere.mp4" in score.problem


def test_a_broken_clip_says_what_ffmpeg_found(encoders: Any, tmp_path: Path) -> None:
    # its problem read "cannot be read (Error passing `ffmpeg -i` command output:)": moviepy's
    # heading, cut before ffmpeg's own words
    clip, dino = encoders
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"not a video" * 20)
    pair = _pairs({"a": str(CLIP_A), "b": str(broken)})
    (score,) = score_pairs(pair, lambda p: Path(p), clip, dino, RULE, frames=2)
    assert score.problem is not None and "broken.mp4 cannot be read" in score.problem
    assert "moov atom not found" in score.problem and "command output:" not in score.problem


@pytest.mark.parametrize(
    ("semantic", "visual", "expected"),
    [(0.95, 0.5, True), (0.9, 0.5, False), (0.95, 0.6, False), (None, 0.5, None)],
)
def test_the_papers_rule_is_strict_on_both_sides(
    semantic: float | None, visual: float, expected: bool | None
) -> None:
    assert RULE.holds(semantic, visual) is expected


def test_the_saliency_map_has_the_patch_grid_and_sums_to_one(encoders: Any) -> None:
    _, dino = encoders
    maps, size = dino.saliency(sample_frames(CLIP_A, 3))
    grid = IMAGE // PATCH
    assert maps.shape == (3, grid, grid) and size == (IMAGE, IMAGE)
    assert np.allclose(maps.sum(axis=(1, 2)), 1.0, atol=1e-5) and (maps >= 0).all()


@pytest.fixture
def score_args(tiny: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``pairs score`` of the samples: the tiny checkpoints, two frames a clip, a cache of the test's own."""
    monkeypatch.setenv("HALLUSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    args = ["pairs", "score", *GOLD, "--media-root", f"vidhalluc={VIDHALLUC / 'media'}"]
    return [*args, "--clip", str(tiny[0]), "--dino", str(tiny[1]), "--frames", "2"]


def test_the_command_scores_the_samples_and_draws_overlays(
    tiny: tuple[Path, Path], score_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scores.jsonl"
    assert main([*score_args, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 8 and f"{len(rows)} pair(s)" in said
    assert all(
        list(r)[:8]
        == ["pair_id", "clips", "semantic", "visual", "kept", "frames", "clip_model", "dino_model"]
        for r in rows
    )
    assert set(read_scores(out)) == {r["pair_id"] for r in rows}
    pictures = tmp_path / "overlays"
    command = [
        "pairs",
        "saliency",
        *GOLD,
        "--media-root",
        f"vidhalluc={VIDHALLUC / 'media'}",
        "--dino",
        str(tiny[1]),
    ]
    assert main([*command, "--frames", "2", "--pair", rows[0]["pair_id"], "--out", str(pictures)]) == 0
    written = sorted(pictures.rglob("*.png"))
    assert len(written) == 2 * len(rows[0]["clips"])
    from PIL import Image

    with Image.open(written[0]) as image:
        assert image.mode == "RGB" and image.size[0] > IMAGE  # drawn over the frame, not the patch grid


def test_with_a_store_each_line_gives_the_teams_decision(
    score_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pairs score --db``: the rule's ``kept`` beside the team's decision, as the pair list shows it."""
    from analysis.review.pairs.validation import PairChecks, adjudicate_pair, save_validation
    from analysis.store import identity_from, open_store

    args = score_args
    plain = tmp_path / "plain.jsonl"
    assert main([*args, "--out", str(plain)]) == 0
    pairs = [json.loads(line) for line in plain.read_text().splitlines()]
    first, second = pairs[0], pairs[1]
    db = tmp_path / "labels.db"
    store = open_store(db)
    try:
        good = PairChecks(first["pair_id"], tuple(first["clips"]), (True, True), (True, True), True)
        adjudicate_pair(store, good, identity_from("carol"), "both clips checked")
        same = PairChecks(second["pair_id"], tuple(second["clips"]), (True, True), (True, True), False)
        save_validation(store, same, identity_from("alice"))  # one vote of the two a pair needs
    finally:
        store.close()
    out = tmp_path / "team.jsonl"
    assert main([*args, "--out", str(out), "--db", str(db)]) == 0
    capsys.readouterr()
    lines = {d["pair_id"]: d for d in (json.loads(line) for line in out.read_text().splitlines())}
    assert (lines[first["pair_id"]]["decision"], lines[first["pair_id"]]["resolution"]) == (
        "keep",
        "adjudicated",
    )
    assert (lines[second["pair_id"]]["decision"], lines[second["pair_id"]]["resolution"]) == (None, "pending")
    assert {d["resolution"] for p, d in lines.items() if p not in (first["pair_id"], second["pair_id"])} == {
        "unreviewed"
    }
    # the contract's keys first and unchanged; the scores are those of the run without a store
    for pair in pairs:
        line = lines[pair["pair_id"]]
        assert list(line)[: len(pair)] == list(pair) and {k: line[k] for k in pair} == pair
    assert main([*args, "--out", str(tmp_path / "x.jsonl"), "--db", str(tmp_path / "none.db")]) == 2
    assert "no such database file" in capsys.readouterr().err and not (tmp_path / "x.jsonl").exists()


def test_a_folder_that_is_no_checkpoint_is_one_clear_line(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    args = [
        "pairs",
        "score",
        *GOLD,
        "--media-root",
        f"vidhalluc={VIDHALLUC / 'media'}",
        "--dino",
        str(tiny[1]),
    ]
    assert main([*args, "--clip", str(empty), "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "not a checkpoint" in err and str(empty) in err and len(err.strip().splitlines()) == 1
    assert main([*args, "--clip", str(tmp_path / "missing"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_without_torch_the_command_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tiny: tuple[Path, Path]
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(UsageError, match="pip install 'halluscope\\[embed\\]'"):
        load_encoder(tiny[0], "clip")
    assert "pip install" in INSTALL


def test_serve_checks_its_pair_options_before_loading_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that is no checkpoint, or a scores file with a bad line: one line, exit 2, no app."""
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    assert main(["serve", "--pair-dino", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "--pair-dino" in err and "not a checkpoint" in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "scores.jsonl"
    bad.write_text(
        '{"pair_id": "p1", "semantic": 0.9, "visual": 0.4}\n{"pair_id": "p2", "semantic": "high"}\n'
    )
    assert main(["serve", "--pair-scores", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "scores.jsonl" in err and "line 2" in err and "'semantic'" in err


@pytest.mark.parametrize("frames", ["0", "65"])
def test_frames_out_of_range_is_one_line(
    frames: str, tiny: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["pairs", "score", *GOLD, "--media-root", f"vidhalluc={VIDHALLUC / 'media'}"]
    assert (
        main([*args, "--clip", str(tiny[0]), "--dino", str(tiny[1]), "--frames", frames, "--out", "x"]) == 2
    )
    assert "--frames must be between 1 and 64" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "missing folder"])
def test_an_out_path_that_cannot_be_written_is_named_before_any_embedding(
    where: str, tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a folder given as --out was refused only after the embeddings, naming a temporary file
    out = tmp_path if where == "folder" else tmp_path / "nowhere" / "scores.jsonl"
    args = ["pairs", "score", *GOLD, "--media-root", f"vidhalluc={VIDHALLUC / 'media'}", "--no-cache"]
    assert main([*args, "--clip", str(tiny[0]), "--dino", str(tiny[1]), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--out {out}" in err and ".tmp" not in err and err.count("\n") == 1


def test_checkpoints_given_the_wrong_way_round_are_named_not_the_videos(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # loaded anyway, DINOv2 as --clip blamed every video: "cannot be read (Input image size...)"
    args = ["pairs", "score", *GOLD, "--media-root", f"vidhalluc={VIDHALLUC / 'media'}", "--no-cache"]
    out = tmp_path / "scores.jsonl"
    assert main([*args, "--clip", str(tiny[1]), "--dino", str(tiny[0]), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--clip {tiny[1]}: a dinov2 checkpoint, expected clip" in err and not out.exists()
    assert main(["serve", "--pair-dino", str(tiny[0])]) == 2
    assert "--pair-dino" in (err := capsys.readouterr().err) and "a clip checkpoint, expected dinov2" in err
