"""Loading what the app shows: file kind detection, a bad file among good ones, manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import REGISTRY
from analysis.errors import InputError
from analysis.load.catalog import load_manifest, load_paths
from analysis.load.detect import Detected, detect

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "manifest.json"


def _cmm_row(answer: str, pred: str | None = "Yes") -> dict[str, Any]:
    row = {
        "category": "inter-modality_spurious_correlation",
        "sub_category": "visual-language",
        "modality": "visual",
        "granularity": "object-level",
        "correlation_type": "global_frequency",
        "video_path": "./raw_files/visual/tree/1.mp4",
        "audio_path": None,
        "question": f"Did you see a {answer} tree?",
        "answer": answer,
    }
    if pred is not None:
        row["pred"] = pred
    return row


def _cdh_record(side: str, pred: str) -> dict[str, Any]:
    gt = "no" if side == "counterfactual" else "yes"
    return {
        "ts": "t",
        "run": "r",
        "model_name": "m",
        "pair_id": "Pair 1",
        "category": "Counting Anomalies",
        "subcategory": "Body Parts",
        "task": "qa",
        "side": side,
        "image_path": f"images/Body_Parts/Pair_1/{side}.png",
        "status": "ok",
        "latency_ms": 1,
        "question": "Five fingers?",
        "prompt": "Five fingers?",
        "gt": gt,
        "cf_gt": "no",
        "cs_gt": "yes",
        "pred": pred,
        "correct": pred.lower() == gt,
        "commonsense_error": side == "counterfactual" and pred.lower() == "yes",
        "raw": {},
    }


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (
            "qa.json",
            [{"video_id": "00191", "task": "AV Matching", "text": "Q?", "label": "Yes"}],
            Detected("avhbench", None, "gold"),
        ),
        (
            "p.json",
            [{"video_id": "00191", "task": "AV Matching", "text": "Q?", "label": "Yes", "pred": "y"}],
            Detected("avhbench", None, "predictions"),
        ),
        ("c.json", [_cmm_row("yes")], Detected("cmm", None, "predictions")),
        ("c.json", [_cmm_row("yes", None)], Detected("cmm", None, "gold")),
        ("r.json", [_cdh_record("commonsense", "Yes")], Detected("cdh-bench", None, "predictions")),
        (
            "b.json",
            [{"pair_id": "Pair 1", "direct_qa": {}, "multiple_choice": {}}],
            Detected("cdh-bench", None, "gold"),
        ),
        (
            "o.json",
            [{"id": 1, "gt_hallucinated_caption_with_tags": "x"}],
            Detected("detailverifybench", None, "predictions"),
        ),
        (
            "real_test.json",
            [{"filename": "a.png", "description_tag": "x"}],
            Detected("detailverifybench", None, "gold"),
        ),
        (
            "ach_binaryqa.json",
            {"g": [{"q": "Q?", "a": {"g_clip_1": "Yes"}}]},
            Detected("vidhalluc", "bqa", "gold"),
        ),
        (
            "model.json",
            {"g": [{"q": "Q?", "a": {"g_clip_1": "Yes"}}]},
            Detected("vidhalluc", "bqa", "predictions"),
        ),
        (
            "m.json",
            {
                "g": {
                    "g_clip_1": {
                        "Question": "Q",
                        "Choices": {"A": "x"},
                        "Correct Answer": "A",
                        "Model Answer": "A",
                    }
                }
            },
            Detected("vidhalluc", "mcq", "predictions"),
        ),
        (
            "t.json",
            {
                "0": {
                    "video": "v",
                    "Question": "Action A. x\nAction B. y\n",
                    "Correct Answer": "AB",
                    "Model Answer": "AB",
                }
            },
            Detected("vidhalluc", "tsh", "predictions"),
        ),
        (
            "sth.json",
            {"v1": {"Scene change": "Yes", "Locations": "from a to b."}},
            Detected("vidhalluc", "sth", "gold"),
        ),
        ("s.json", {"v1": "Scene change: No, Locations: None"}, Detected("vidhalluc", "sth", "predictions")),
        ("manifest.json", {"benchmarks": {}}, Detected("", None, "manifest")),
    ],
)
def test_detect_reads_the_kind_from_content(
    tmp_path: Path, name: str, value: Any, expected: Detected
) -> None:
    assert detect(_json(tmp_path / name, value)) == expected


def test_detect_jsonl_and_unknown_files(tmp_path: Path) -> None:
    assert detect(_jsonl(tmp_path / "x.json", [_cmm_row("yes"), _cmm_row("no")])).benchmark == "cmm"
    with pytest.raises(InputError, match=r"cannot tell which benchmark.*records have a, b"):
        detect(_json(tmp_path / "u.json", [{"a": 1, "b": 2}]))
    with pytest.raises(InputError, match=r"u\.txt"):
        detect(_json(tmp_path / "u.txt", 3))


def test_a_bad_file_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    good = _jsonl(
        tmp_path / "good.jsonl", [_cdh_record("counterfactual", "Yes"), _cdh_record("commonsense", "Yes")]
    )
    truncated = tmp_path / "truncated.json"
    truncated.write_text('[{"pair_id": "Pair 1", "side": ')
    unknown = _json(tmp_path / "unknown.json", [{"a": 1}])
    cat = load_paths([good, truncated, unknown])
    assert len(cat.table) == 2 and set(cat.table["side"]) == {"counterfactual", "commonsense"}
    assert len(cat.errors) == 2
    assert cat.errors[0].startswith(str(truncated)) and "line 1" in cat.errors[0]
    assert cat.errors[1].startswith(str(unknown))
    # the commonsense-error verdict is read once for the charts
    assert cat.table.loc[cat.table["side"] == "counterfactual", "_cs_error"].tolist() == [True]


def test_a_prediction_file_needing_gold_says_so(tmp_path: Path) -> None:
    pred = _json(tmp_path / "model.json", {"g": [{"q": "Q?", "a": {"g_clip_1": "Yes"}}]})
    cat = load_paths([pred])
    assert cat.table.empty
    assert cat.errors == [f"{pred}: vidhalluc bqa predictions need their gold file; pass it too"]


def test_media_roots_given_per_benchmark(tmp_path: Path) -> None:
    root = tmp_path / "media"
    (root / "reorg_raw_files/visual/tree").mkdir(parents=True)
    (root / "reorg_raw_files/visual/tree/1.mp4").write_bytes(b"x")
    good = _jsonl(tmp_path / "model.jsonl", [_cmm_row("yes"), _cmm_row("no", "No")])
    cat = load_paths([good], media_roots={"cmm": [root]})
    assert not cat.errors, cat.errors
    assert cat.allowed_paths() == [str(root.resolve())]
    detail = cat.detail(0)
    assert (
        cat.resolver("cmm").resolve(detail.media[0].reference)
        == (root / "reorg_raw_files/visual/tree/1.mp4").resolve()
    )
    assert len(cat.rows_of(str(cat.table.at[0, "item_id"]))) == 1


def test_manifest_errors_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="benchmarks"):
        load_manifest(_json(tmp_path / "m.json", {"benchmarks": []}))


def test_the_samples_load_without_errors() -> None:
    if not SAMPLES.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    cat = load_manifest(SAMPLES)
    assert cat.errors == []
    assert cat.benchmarks() == list(REGISTRY)  # every registered benchmark has samples, in registry order
    assert not cat.table["item_id"].isna().any()
    for bench in cat.benchmarks():
        rows = cat.table.index[cat.table["benchmark"] == bench]
        detail = cat.detail(int(rows[0]))
        assert detail.media, bench
        assert all(cat.resolver(bench).resolve(m.reference) is not None for m in detail.media), bench


def test_the_item_and_pair_indexes_are_made_once_on_first_use_and_answer_like_a_scan() -> None:
    # made when an item is first opened (not before the first page), once for threads asking at
    # once; an item's rows and a pair's rows are what a plain scan of the table finds
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    if not SAMPLES.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    cat = load_manifest(SAMPLES)
    assert cat._items is None and cat._pairs is None
    ids = cat.table["item_id"].astype(str).unique().tolist()[::7]
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(cat.rows_of, ids))
    for item_id, rows in zip(ids, found, strict=True):
        assert rows.tolist() == np.flatnonzero(cat.table["item_id"].astype(str) == item_id).tolist()
    assert cat.rows_of("no-such-item").size == 0
    paired = cat.table[cat.table["pair_id"].fillna("") != ""].iloc[0]
    bench, pair = str(paired["benchmark"]), str(paired["pair_id"])
    scan = (cat.table["benchmark"] == bench) & (cat.table["pair_id"] == pair)
    assert cat.pair_rows(bench, pair).tolist() == np.flatnonzero(scan.fillna(False)).tolist()
    assert cat.pair_rows(bench, None).size == 0
