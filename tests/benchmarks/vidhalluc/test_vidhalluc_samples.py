"""The bundled VidHalluc sample set reads, scores and audits end to end (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import vidhalluc

SAMPLES = Path(__file__).parents[3] / "samples"


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    path = SAMPLES / "manifest.json"
    if not path.exists():
        pytest.skip("samples/manifest.json is absent (run samples/generate.py)")
    entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["benchmarks"]["vidhalluc"]
    return entry


def test_every_sample_prediction_scores(manifest: dict[str, Any]) -> None:
    gold = vidhalluc.load_gold([SAMPLES / p for p in manifest["gold"]])
    per_task = gold["task"].astype(str).value_counts().to_dict()
    for entry in manifest["predictions"]:
        task = entry["task"]
        gold_path = SAMPLES / entry["gold"] if entry["gold"] else None
        table = vidhalluc.load(SAMPLES / entry["path"], gold=gold_path, task=task)
        assert (table["model"] == entry["model"]).all()
        report = vidhalluc.score(table, task=task, embedder=None)
        overall = report["overall"]
        assert overall["n"] == report["n_scored"] > 0
        if task == "sth":
            assert overall["mcc"] is not None and -1 <= overall["mcc"] <= 1
        else:
            assert overall["accuracy"] is not None and 0 <= overall["accuracy"] <= 1
        if task in ("mcq", "tsh"):  # one row per gold item, all counted
            assert len(table) == per_task[task] == report["n_scored"]
        if task == "bqa":  # rows are gold clips; counted + skipped questions are the gold questions
            rows = gold[gold["task"] == "bqa"]
            assert len(table) == len(rows)
            assert report["n_scored"] + report["n_skipped"] == (rows["pair_id"] + rows["extra"]).nunique()


def test_audit_finds_the_known_bad_media(manifest: dict[str, Any]) -> None:
    gold = [SAMPLES / p for p in manifest["gold"]]
    findings = vidhalluc.audit(gold, media_root=SAMPLES / manifest["media_root"])
    bad = {
        f.where.removeprefix("clip '").removesuffix("'") + ".mp4"
        for f in findings
        if f.check == "unreadable-media"
    }
    assert bad == set(manifest["known_bad_media"])
    assert not [f for f in findings if f.check == "missing-media"]
