"""Pair scores in the pair validation tab: beside the rule, filtered, sorted, exported, and computed
and drawn (saliency) with local checkpoints (docs/pair-scores.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.store import Identity, open_store
from components.pairs import handlers as ph

ALICE = Identity("alice")
SCORES = {
    "sf7026ba": {"pair_id": "sf7026ba", "semantic": 0.95, "visual": 0.41, "kept": True},
    "se1b2123": {"pair_id": "se1b2123", "semantic": 0.88, "visual": 0.52, "kept": False},
    "s7da0ff0": {"pair_id": "s7da0ff0", "semantic": 0.97, "visual": 0.73, "kept": False},
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def ctx(catalog: Catalog, tmp_path: Path) -> Iterator[ph.PairsContext]:
    store = open_store(tmp_path / "labels.db")
    yield ph.PairsContext(catalog, store, k=2, reviewers=("alice",), scores=SCORES)
    store.engine.dispose()


def test_the_list_shows_the_scores_beside_the_rule_filters_and_sorts(ctx: ph.PairsContext) -> None:
    listed = ph.pair_list(ctx, ALICE).set_index("pair_id")
    assert (listed.loc["sf7026ba", "semantic"], listed.loc["sf7026ba", "visual"]) == (0.95, 0.41)
    assert listed.loc["sf7026ba", "rule"] == "meets" and listed.loc["se1b2123", "rule"] == "breaks"
    unscored = [p for p in listed.index if p not in SCORES]
    assert unscored and all(listed.loc[p, "rule"] == "" for p in unscored)
    breaking = ph.pair_list(ctx, ALICE, breaking=True)
    assert list(breaking["pair_id"]) == ["se1b2123", "s7da0ff0"]  # file order kept
    by_visual = ph.pair_list(ctx, ALICE, sort="visual")
    assert list(by_visual["pair_id"][:3]) == ["sf7026ba", "se1b2123", "s7da0ff0"]
    by_semantic = ph.pair_list(ctx, ALICE, sort="semantic")
    assert list(by_semantic["pair_id"][:3]) == ["se1b2123", "sf7026ba", "s7da0ff0"]
    assert by_semantic["semantic"].isna().sum() == len(unscored)  # the unscored last


def test_the_pair_screen_says_which_threshold_a_pair_misses(ctx: ph.PairsContext) -> None:
    info = ph.show_pair(ctx, "s7da0ff0", ALICE).info
    assert "visual (DINOv2) **0.730** (rule < 0.6 ✗)" in info and "**breaks** the selection rule" in info
    assert "Semantic (CLIP) **0.970** (rule > 0.9 ✓)" in info
    unscored = next(p for p in ctx.pairs["pair_id"] if p not in SCORES)
    assert "rule" not in ph.show_pair(ctx, unscored, ALICE).info  # no scores, no line


def test_the_exports_carry_the_scores(ctx: ph.PairsContext) -> None:
    exported = json.loads(Path(ph.export_json(ctx, ALICE)).read_text())
    by_pair = (
        {r["pair_id"]: r for r in exported["pairs"]}
        if isinstance(exported, dict)
        else {r["pair_id"]: r for r in exported}
    )
    assert by_pair["sf7026ba"]["similarity"] == {"semantic": 0.95, "visual": 0.41}
    csv_text = Path(ph.export_csv(ctx, ALICE)).read_text()
    head, *rows = csv_text.splitlines()
    assert head.endswith("semantic,visual")
    assert any(r.startswith("sf7026ba,") and r.endswith("0.95,0.41") for r in rows)


def test_without_checkpoints_computing_and_saliency_are_refused_in_one_line(ctx: ph.PairsContext) -> None:
    with pytest.raises(ph.Refused, match="serve --pair-clip DIR"):
        ph.compute_scores(ctx, 2, lambda done, total: None)
    with pytest.raises(ph.Refused, match="serve --pair-dino DIR"):
        ph.saliency_html(ctx, "sf7026ba", 0.5)


def test_with_checkpoints_the_tab_computes_scores_and_draws_saliency(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="torch is an optional dependency (pip install .[embed])")
    from pair_validation.tiny_encoders import build

    monkeypatch.setenv("HALLUSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    clip, dino = build(tmp_path / "encoders")
    store = open_store(tmp_path / "labels.db")
    ctx = ph.PairsContext(catalog, store, clip_dir=clip, dino_dir=dino)
    seen: list[tuple[int, int]] = []
    line = ph.compute_scores(ctx, 2, lambda done, total: seen.append((done, total)))
    assert line.startswith(f"Scored {len(ctx.pairs)} pair(s)") and seen[-1] == (
        len(ctx.pairs),
        len(ctx.pairs),
    )
    listed = ph.pair_list(ctx, ALICE)
    assert listed["semantic"].notna().sum() == len(ctx.pairs) - 1  # the pair with a truncated clip: none
    drawn = ph.saliency_html(ctx, "sf7026ba", 0.5)
    assert drawn.count("data:image/png;base64,") == 2 and "at 0.50 s" in drawn
    store.engine.dispose()
