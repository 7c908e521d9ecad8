"""DetailVerifyBench against the real published files (project page examples and detections).

The fixtures are 13 example captions (real gold + three synthetic variants) and, for 12 of them,
the span lists 15 models predicted. They are far too few to reproduce the leaderboard, so the
comparison with ``leaderboard.json`` is printed, not asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_detailverifybench import pipeline_record, write

from analysis.benchmarks import detailverifybench as dvb
from analysis.benchmarks.detailverifybench.scoring import compare, summarize
from analysis.benchmarks.detailverifybench.spans import read_tags, strip_tags, tag_spans

REAL = Path(__file__).resolve().parents[4] / "shared/fixtures/real/detailverifybench"
if not REAL.is_dir():
    pytest.skip(f"real DetailVerifyBench fixtures not found at {REAL}", allow_module_level=True)

EXAMPLES: list[dict[str, Any]] = json.loads((REAL / "examples.json").read_text("utf-8"))
DETECTIONS: list[dict[str, Any]] = json.loads((REAL / "detection_results.json").read_text("utf-8"))
LEADERBOARD = {m["model"]: m for m in json.loads((REAL / "leaderboard.json").read_text("utf-8"))["models"]}
# detection_results.json and leaderboard.json spell some models differently
ALIASES = {
    "Qwen3-VL-8B-Think": "Qwen3-VL-8B-Thinking",
    "VCD+Qwen3-VL-8B": "Qwen3-VL-8B+VCD",
    "Gemini3-Pro": "Gemini3-Pro-Preview",
    "Gemini-3.1-Pro": "Gemini-3.1-Pro-Preview",
}
TOKEN = ["token_precision", "token_recall", "token_f1", "token_iou"]


def self_scored(tmp_path: Path, captions: list[tuple[str, str, str]]) -> tuple[Any, Any]:
    """A pipeline output where each (filename, category, tagged caption) is answered by itself."""
    records = [pipeline_record(c, c, id=f, image_path=f"./test/{cat}/{f}") for f, cat, c in captions]
    table = dvb.load(write(tmp_path / "tested_model_output_seed_42.json", records))
    return table, compare(table["gold"].tolist(), table["raw_answer"].tolist())


def test_real_gold_scored_against_itself_is_perfect(tmp_path: Path) -> None:
    captions = [(e["filename"], e["category"], e["natural"]["description_tag"]) for e in EXAMPLES]
    table, result = self_scored(tmp_path, captions)
    assert all("<HALLUCINATION>" in c for _, _, c in captions)  # every real example has tags
    for key in ("precision", "recall", "f1", "iou"):
        assert result.token[key].tolist() == [1.0] * len(captions)
    report = dvb.score(table)
    assert all(report["overall"][k] == 1.0 for k in report["overall"] if k != "n")
    assert report["overall"]["n"] == 13
    assert {d: r["n"] for d, r in report["groups"]["domain"].items()} == {
        "Chart": 3,
        "Movie": 4,
        "Nature": 2,
        "Poster": 2,
        "UI": 2,
    }
    assert table["correct"].all() and table["alt_correct"].all()


@pytest.mark.parametrize("variant", ["adversarial", "tldr", "halloc"])
def test_synthetic_gold_scored_against_itself(tmp_path: Path, variant: str) -> None:
    captions = [(e["filename"], e["category"], e["injected"][variant]["description_tag"]) for e in EXAMPLES]
    _, result = self_scored(tmp_path, captions)
    for (name, _, caption), f1, iou in zip(captions, result.token["f1"], result.token["iou"], strict=True):
        if caption:
            assert (f1, iou) == (1.0, 1.0), name
        else:  # the variant is missing (an empty string, two Poster cases): nothing compared, all four 0
            assert (f1, iou) == (0.0, 0.0), name


def test_clean_captions_give_f1_zero_by_the_official_convention() -> None:
    clean = [e["natural"]["GT_description"] for e in EXAMPLES]
    for pred in (clean, ["NO HALLUCINATION"] * len(clean)):
        report = summarize(compare(clean, pred), np.ones(len(clean), dtype=bool))
        # nothing hallucinated on either side: P, R, F1 are 0/0 -> 0, IoU 1 (empty union)
        assert [report[k] for k in TOKEN] == [0.0, 0.0, 0.0, 1.0]
        assert report["response_f1"] == 0.0 and report["sentence_f1"] == 0.0


def test_label_types_of_the_real_examples() -> None:
    gold = [e["natural"]["description_tag"] for e in EXAMPLES]
    labels = [e["natural"]["hallucination_labels"] for e in EXAMPLES]
    recall = dvb.label_type_recall(gold, gold, labels)
    assert "Unknown" not in recall  # every tag of the examples has its label entry
    assert {r["token_recall"] for r in recall.values()} == {1.0}
    assert "Object Color Hallucination" in recall and "Spatial Relation Hallucination" in recall
    nothing = dvb.label_type_recall(gold, ["NO HALLUCINATION"] * len(gold), labels)
    assert {r["token_recall"] for r in nothing.values()} == {0.0}


def board_name(model: str) -> str:
    if model in ALIASES:
        return ALIASES[model]
    return next(m for m in LEADERBOARD if m.lower() == model.lower())


def project(section: str, model: str) -> tuple[list[str], list[str], int, int]:
    """Tag each model's span strings on the clean caption: gold, predictions, spans, unlocated."""
    golds, preds, n_spans, n_missing = [], [], 0, 0
    for item in DETECTIONS:
        gold = item[section]["gt_tagged"]
        span_list = item[section]["models"][model]
        tagged, missing = tag_spans(strip_tags(gold), span_list)
        assert strip_tags(tagged) == strip_tags(gold)
        golds.append(gold)
        preds.append(tagged)
        n_spans += sum(1 for s in span_list if s.strip())
        n_missing += len(missing)
    return golds, preds, n_spans, n_missing


@pytest.mark.parametrize("section", ["real", "synthetic"])
def test_projected_detections_score_sanely(section: str, record_property: Any) -> None:
    models = list(DETECTIONS[0][section]["models"])
    assert len(models) == 15 and all(list(d[section]["models"]) == models for d in DETECTIONS)
    rows = []
    for model in models:
        golds, preds, n_spans, n_missing = project(section, model)
        report = summarize(compare(golds, preds), np.ones(len(golds), dtype=bool))
        assert all(0.0 <= report[k] <= 1.0 for k in report if k != "n")
        if n_spans == 0:  # a model that flagged nothing catches nothing
            assert report["token_recall"] == report["token_precision"] == report["response_recall"] == 0.0
        assert n_missing <= n_spans // 10, f"{model}: {n_missing} of {n_spans} spans not found in the caption"
        board = LEADERBOARD[board_name(model)]
        rows.append(
            (
                model,
                report["token_precision"],
                report["token_recall"],
                report["token_f1"],
                board[section]["f1"],
                n_spans,
                n_missing,
            )
        )
    golds = [d[section]["gt_tagged"] for d in DETECTIONS]
    identical = summarize(compare(golds, golds), np.ones(len(golds), dtype=bool))
    assert [identical[k] for k in TOKEN] == [1.0] * 4
    lines = [
        f"{section}: 12 examples, official token scores of projected spans vs leaderboard F1 (1,000 images)"
    ]
    lines += [
        f"  {m:20} P {p:.3f} R {r:.3f} F1 {f:.3f} | board F1 {b:.2f} | spans {s} unlocated {u}"
        for m, p, r, f, b, s, u in rows
    ]
    print("\n".join(lines))
    record_property(f"dvb_{section}_comparison", json.dumps(rows))


def test_gold_spans_projected_back() -> None:
    """Projection by first free occurrence cannot know which of two equal words a span meant."""
    for section, floor in (("real", 0.8), ("synthetic", 0.95)):
        golds = [d[section]["gt_tagged"] for d in DETECTIONS]
        preds = []
        for gold in golds:
            _, ranges = read_tags(gold)
            tagged, missing = tag_spans(strip_tags(gold), [gold[r.start : r.end] for r in ranges])
            assert missing == []
            preds.append(tagged)
        report = summarize(compare(golds, preds), np.ones(len(golds), dtype=bool))
        assert floor <= report["token_f1"] < 1.0 if section == "real" else floor <= report["token_f1"]
