"""A sixth benchmark plugs in at one place: a package registered at run time, no other file changed.

``tests/toybench`` (ToyCount) has its own file format, parser, metric, chart and gold kind. Once
registered, the command line (``score``, ``items``, ``import``, ``score --corrected``, ``export
--format native``, ``report``), the loaded item table, the charts and a relabel in the app all
work on it: everything they do is asked of the registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop  # noqa: F401 - a fixture

from analysis.benchmarks import REGISTRY, get
from analysis.cli.main import main
from analysis.query import Filters

QUESTIONS = [
    ("q1", "How many dogs?", 3),
    ("q2", "How many cats?", 1),
    ("q3", "How many birds?", 4),
    ("q4", "How many cars?", 2),
]
ANSWERS = {  # model -> responses; a: right, right, wrong (5 for 4), unparsed; b: right except q2 (2 for 1)
    "model-a": ["I count 3 dogs.", "1 cat.", "There are 5 birds.", "Hard to say."],
    "model-b": ["3", "2 cats", "4 birds, I think", "2"],
}


@pytest.fixture(scope="module")
def toy() -> Iterator[str]:
    name = REGISTRY.add("toybench")
    try:
        yield name
    finally:
        REGISTRY.remove(name)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for model, responses in ANSWERS.items():
        path = tmp_path / "runs" / f"{model}.jsonl"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            "".join(
                json.dumps({"qid": q, "question": text, "count": n, "response": r}) + "\n"
                for (q, text, n), r in zip(QUESTIONS, responses, strict=True)
            )
        )
        out[model] = path
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(json.dumps({"qid": q, "question": text, "count": n}) + "\n" for q, text, n in QUESTIONS)
    )
    out["gold"] = gold
    return out


def run(args: list[object], capsys: pytest.CaptureFixture[str]) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_it_is_registered_and_checked(toy: str) -> None:
    assert toy == "toycount" and list(REGISTRY)[-1] == toy and get("ToyCount".lower()).TITLE == "ToyCount"


def test_score_and_items(toy: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads(run(["score", toy, files["model-a"], "--json"], capsys))
    # model-a: q1 and q2 right, q3 wrong (5 for 4), q4 unparsed: accuracy 2/4;
    # MAE over the three parsed answers: (0 + 0 + 1) / 3
    assert report["overall"] == {"accuracy": 0.5, "mae": pytest.approx(1 / 3), "n": 4}
    lines = [
        json.loads(line) for line in run(["items", toy, files["model-a"], "--json"], capsys).splitlines()
    ]
    assert [(r["item_id"], r["gold"], r["parsed"], r["correct"]) for r in lines] == [
        ("toycount-q1", "3", "3", True),
        ("toycount-q2", "1", "1", True),
        ("toycount-q3", "4", "5", False),
        ("toycount-q4", "2", None, False),
    ]
    assert [r["qid"] for r in lines] == ["q1", "q2", "q3", "q4"]  # its native key, from native_keys


def test_import_corrected_score_and_native_export(
    toy: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixes = tmp_path / "fixes.jsonl"
    # the photo of q3 shows 5 birds: model-a was right; "five" is no count and is refused first
    fixes.write_text(
        json.dumps({"item_id": "toycount-q3", "field": "gold", "value": "five", "reason": "r"}) + "\n"
    )
    db = tmp_path / "labels.db"
    ids = ["--gold", str(files["model-a"])]
    assert main(["import", toy, str(fixes), "--db", str(db), "--reviewer", "alice", *ids]) == 2
    assert "whole number" in capsys.readouterr().err
    fixes.write_text(
        json.dumps({"item_id": "toycount-q3", "field": "gold", "value": " 5", "reason": "recounted"}) + "\n"
    )
    assert "imported 1 new event" in run(
        ["import", toy, fixes, "--db", db, "--reviewer", "alice", *ids], capsys
    )
    corrected = json.loads(run(["score", toy, files["model-a"], "--db", db, "--corrected", "--json"], capsys))
    assert corrected["overall"] == {"accuracy": 0.75, "mae": 0.0, "n": 4}  # q1, q2, q3 right; q4 unparsed
    out = tmp_path / "native"
    run(["export", toy, "--db", db, "--format", "native", "--out", out, "--gold", files["model-a"]], capsys)
    copy = out / "model-a.jsonl"
    assert json.loads(copy.read_text().splitlines()[2])["count"] == 5
    assert json.loads(run(["score", toy, copy, "--json"], capsys))["overall"] == corrected["overall"]


def test_report_holds_its_board_and_chart(
    toy: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    run(["report", files["model-a"], files["model-b"], "--out", out, "--n-boot", "200"], capsys)
    html = out.read_text()
    assert "ToyCount" in html and "Counting error" in html
    latex = run(["report", files["model-a"], files["model-b"], "--format", "latex"], capsys)
    assert "model-b" in latex


def test_item_table_charts_and_a_relabel_in_the_app(toy: str, files: dict[str, Path], tmp_path: Path) -> None:
    from analysis.charts.common import chart_list
    from analysis.load.catalog import load_paths
    from analysis.store import Identity, open_store
    from components.browse.charts import chart_updates
    from components.review.context import ReviewContext
    from components.review.gold import ReviewerView
    from components.review.panel import panel, save

    catalog = load_paths([files["model-a"], files["model-b"], files["gold"]])
    assert catalog.errors == [] and catalog.benchmarks() == [toy]
    table = catalog.table
    assert len(table) == 8 and set(table["model"].astype(str)) == {"model-a", "model-b"}
    assert np.nansum(table["_toy_abs_error"].to_numpy(dtype=float)) == 2.0  # q3 of a, q2 of b
    names = [c.name for _, c in chart_list()]
    assert "toy-error" in names
    _, *plots = chart_updates(catalog, Filters(benchmark=toy))
    toy_plot = plots[names.index("toy-error")]
    assert toy_plot["visible"] and {t.name for t in toy_plot["value"].data} == {"model-a", "model-b"}

    alice = Identity("alice")
    ctx = ReviewContext(catalog, open_store(tmp_path / "app.db"), ("alice",))
    row = int(table.index[(table["item_id"] == "toycount-q3") & (table["model"] == "model-a")][0])
    shown = panel(ctx, row, alice)
    assert shown[2]["visible"] and shown[2]["value"] == "4"  # the count is edited as text
    message = save(ctx, row, alice, None, "5", [], "", "recounted")
    assert message == "Saved as alice: gold 4 → 5"
    page = ReviewerView(ctx, alice).frame(np.array([row]))
    assert page["gold"].iloc[0] == "✎ 5 (was 4)" and page["verdict"].iloc[0] == "✓"


@pytest.mark.usefixtures("close_gradio_loop")
@GRADIO_LOOP_WARNINGS[0]
@GRADIO_LOOP_WARNINGS[1]
@GRADIO_LOOP_WARNINGS[2]
def test_the_app_builds_with_its_chart(toy: str, files: dict[str, Path]) -> None:
    import app
    from analysis.load.catalog import load_paths

    demo = app.build_app(load_paths([files["model-a"]]))
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert "chart-toy-error" in ids
