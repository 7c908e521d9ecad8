"""CDH-Bench's chart: its numbers are the module's metrics on the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_data import catalog

from analysis.benchmarks import get
from analysis.benchmarks.cdh_bench.charts import cf_cs, cf_cs_data


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rows = catalog().table
    return rows[rows["benchmark"] == "cdh-bench"]


def test_cf_cs_matches_the_module_metrics(table: pd.DataFrame) -> None:
    data = cf_cs_data(table).set_index("model")
    # m1: counterfactual wrong (a commonsense error), commonsense right:
    # CF 0, CS 1, CFAD 1, CCR 1/1.
    row = data.loc["m1"]
    assert (row["cf_acc"], row["cs_acc"], row["cfad"], row["ccr"]) == (0.0, 1.0, 1.0, 1.0)
    fig = cf_cs(table)
    scatter = next(t for t in fig.data if t.type == "scatter" and t.name == "m1")
    assert list(scatter.x) == [1.0] and list(scatter.y) == [0.0]


def test_the_chart_reads_only_the_two_sides() -> None:
    """A side that is neither counterfactual nor commonsense (a damaged file) counts in neither."""
    rows = catalog().table
    cdh = rows[rows["benchmark"] == "cdh-bench"].reset_index(drop=True)
    odd = cdh.assign(side=pd.array(["clip-1"] * len(cdh), dtype="string"))
    derived = get("cdh-bench").derive(odd, np.arange(len(odd)))
    assert set(derived["_side"].tolist()) == {""}
