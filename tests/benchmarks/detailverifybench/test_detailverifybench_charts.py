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
