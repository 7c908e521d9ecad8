"""DetailVerifyBench's chart: token F1 per domain equals the module's score."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.benchmarks import get
from analysis.benchmarks.detailverifybench.charts import dvb_data, spans_chart

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "manifest.json"


def test_dvb_chart_numbers_equal_the_module_score() -> None:
    if not SAMPLES.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    from analysis.load.catalog import load_manifest

    cat = load_manifest(SAMPLES)
    dvb = cat.table[cat.table["benchmark"] == "detailverifybench"]
    if dvb.empty:
        pytest.skip("no DetailVerifyBench rows in the samples")
    domains, _ = dvb_data(dvb)
    model = str(dvb["model"].iloc[0])
    report = get("detailverifybench").score(dvb[dvb["model"] == model])
    mine = domains[domains["model"] == model].set_index("domain")["token_f1"].to_dict()
    assert mine == {d: m["token_f1"] for d, m in report["groups"]["domain"].items()}
    fig = spans_chart(dvb)
    assert {t.name for t in fig.data if t.type == "bar"} == set(dvb["model"].astype(str))


def test_the_samples_per_label_chart_has_the_gold_it_needs() -> None:
    # Issue 20: the bundled app loads real_test.jsonl, yet its manifest did not hand it to the
    # prediction files, so the per-label panel said "needs the gold labels" beside loaded gold.
    from analysis.load.catalog import load_manifest

    dvb = load_manifest(SAMPLES).table
    dvb = dvb[(dvb["benchmark"] == "detailverifybench") & dvb["model"].notna()]
    _, labels = dvb_data(dvb)
    assert set(labels["model"]) == set(dvb["model"].astype(str))
    report = get("detailverifybench").score(dvb[dvb["model"] == "balanced"])
    by_type = report["groups"]["label_type"]
    mine = labels[labels["model"] == "balanced"].set_index("label")["recall"].to_dict()
    assert mine == {k: v["token_recall"] for k, v in by_type.items()}
    title = spans_chart(dvb).layout.annotations[1].text
    assert "needs the gold labels" not in title
