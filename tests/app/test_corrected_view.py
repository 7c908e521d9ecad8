"""The app's corrected view and exports on every benchmark (issue 9's defects, each with its test).

- the Charts tab under "corrected" raised ``ValueError: vidhalluc needs a task``;
- ``halluscope serve FILE...`` gave an empty "Corrected native gold (zip)";
- the corrected-metrics summary counted corrections one way, the CLI another.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop
from corrections_support import SAMPLES, agreeing_value, other_value

from analysis import benchmarks
from analysis.charts.common import chart_list
from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest, load_paths
from analysis.query import ALL, Filters
from analysis.store import Identity, open_store
from components.browse.charts import chart_csv
from components.review.context import ReviewContext
from components.review.extra import build_exports, corrected_table, metric_lines
from components.review.panel import save
from components.review.tab import corrected_charts

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]
ALICE = Identity("alice")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


def _fix_one_wrong_answer(ctx: ReviewContext, benchmark: str, task: str | None = None) -> int:
    """Relabel a wrong answer's gold to the model's reading (or flip it); returns the row."""
    table = ctx.catalog.table
    rows = table[(table["benchmark"] == benchmark) & table["scored"] & (table["correct"] == False)]  # noqa: E712
    if task is not None:
        rows = rows[rows["task"] == task]
    row = int(rows.index[0])
    item = {k: table.at[row, k] for k in ("benchmark", "task", "gold", "parsed")}
    item = {k: (None if v is None or v is pd.NA else str(v)) for k, v in item.items()}
    value = agreeing_value(item) or other_value(benchmark, str(item["task"] or ""), str(item["gold"]))
    assert value is not None
    # the panel's control for the item's kind of gold: letters for a letter set, both parts of a two-part gold
    change, _, where = value.removeprefix("Scene change: ").partition(", Locations: ")
    save(
        ctx,
        row,
        ALICE,
        value,
        value,
        [],
        "",
        "wrong gold",
        letters=list(value),
        part_choice=change if change in ("Yes", "No") else None,
        part_text=where,
    )
    return row


@pytest.mark.parametrize("task", ["bqa", "mcq", "tsh"])
def test_corrected_view_works_for_vidhalluc_tasks(catalog: Catalog, tmp_path: Path, task: str) -> None:
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, "vidhalluc", task)
    lines = metric_lines(ctx, "vidhalluc")  # raised ValueError: vidhalluc needs a task
    assert "**vidhalluc: 1 gold correction(s)**" in lines
    assert f"· {task}</code> accuracy" in lines  # per model and task (names in an escaped code span)
    updates = corrected_charts(ctx, Filters(benchmark="vidhalluc"))
    assert len(updates) == 1 + len(chart_list())  # the note, then every chart


def test_each_runs_line_counts_the_corrections_its_report_saw(catalog: Catalog, tmp_path: Path) -> None:
    # Seen at stop 42: with one correction in each of two tasks, every task's line read "after 2
    # correction(s)", the benchmark's count, though each task's report saw one.
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, "vidhalluc", "bqa")
    _fix_one_wrong_answer(ctx, "vidhalluc", "mcq")
    lines = metric_lines(ctx, "vidhalluc", limit=100)
    assert "**vidhalluc: 2 gold correction(s)**" in lines
    changed = [line for line in lines.splitlines() if "→" in line]
    assert any("· bqa</code>" in line for line in changed) and any("· mcq</code>" in line for line in changed)
    assert all(line.endswith("after 1 correction(s)") for line in changed), changed


@pytest.mark.parametrize("name", list(benchmarks.REGISTRY))
def test_corrected_metrics_and_charts_for_every_benchmark(
    catalog: Catalog, tmp_path: Path, name: str
) -> None:
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, name)
    lines = metric_lines(ctx, name, limit=100)
    assert lines.startswith(f"**{name}: 1 gold correction(s)**") and "→" in lines
    assert len(corrected_charts(ctx, Filters(benchmark=name))) == 1 + len(chart_list())
    # one spelling on every benchmark: a metric, or "group value · metric" (a walkthrough read
    # "mc.cs_acc", "groups.sub_category.x.accuracy" and "Audio-driven ….accuracy"); no counts
    for line in (ln for ln in lines.splitlines() if "→" in ln):
        label = line.split("</code> ", 1)[1].rsplit(": ", 1)[0]
        metric = label.rsplit(" · ", 1)[-1]
        assert "groups." not in label and "." not in metric and metric not in ("n", "hits", "n_tokens"), line


def test_served_files_give_a_native_zip_with_the_corrected_files(tmp_path: Path) -> None:
    """As ``halluscope serve FILE...`` loads them (no manifest): the zip held nothing before."""
    files = [SAMPLES / "cmm/all_data_final_reorg.json", SAMPLES / "cmm/predictions/balanced.jsonl"]
    catalog = load_paths(files)
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, "cmm")
    native = build_exports(ctx, "cmm", ALICE)[-1]
    with zipfile.ZipFile(native) as archive:
        names = sorted(archive.namelist())
        assert names == ["all_data_final_reorg.json", "predictions/balanced.jsonl"]
        for name, original in zip(names, [files[0], files[1]], strict=True):
            assert archive.read(name).decode() != original.read_text(encoding="utf-8")


def test_cdh_results_from_the_zip_score_as_the_corrected_view(
    catalog: Catalog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CDH-Bench's corrected results.jsonl is rescored by ``score`` (no ``--gold``, which it refuses)."""
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, "cdh-bench")
    native = build_exports(ctx, "cdh-bench", ALICE)[-1]
    with zipfile.ZipFile(native) as archive:
        archive.extractall(tmp_path / "unzipped")
    for model in ("balanced", "yes-biased", "commonsense-prior"):
        copy = tmp_path / "unzipped/predictions" / f"{model}.jsonl"
        assert main(["score", "cdh-bench", str(copy), "--json"]) == 0
        rescored = json.loads(capsys.readouterr().out)
        original = SAMPLES / "cdh-bench/predictions" / f"{model}.jsonl"
        assert (
            main(
                [
                    "score",
                    "cdh-bench",
                    str(original),
                    "--db",
                    str(tmp_path / "labels.db"),
                    "--corrected",
                    "--json",
                ]
            )
            == 0
        )
        scored = json.loads(capsys.readouterr().out)
        assert scored.pop("gold_changes")  # beside the numbers: what the corrections change
        assert scored == rescored


def test_summary_and_cli_count_corrections_by_one_rule(
    catalog: Catalog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three gold labels, one of them back to the official value: both say 2 corrections."""
    db = tmp_path / "labels.db"
    ctx = ReviewContext(catalog, open_store(db), ("alice",))
    table = catalog.table
    rows = table[(table["benchmark"] == "avhbench") & table["scored"] & (table["model"] == "balanced")]
    first, second, third = (int(i) for i in rows.index[:3])
    for row in (first, second, third):
        gold = str(table.at[row, "gold"]).lower()
        save(ctx, row, ALICE, "no" if gold == "yes" else "yes", "", [], "", "fix")
    official = str(table.at[third, "gold"]).lower()
    save(ctx, third, ALICE, official, "", [], "", "the official gold was right")
    assert "**avhbench: 2 gold correction(s)**" in metric_lines(ctx, "avhbench")
    files = [SAMPLES / "avhbench/QA.json", SAMPLES / "avhbench/predictions/balanced.json"]
    assert (
        main(
            [
                "export",
                "avhbench",
                "--db",
                str(db),
                "--format",
                "native",
                "--out",
                str(tmp_path / "out"),
                "--gold",
                *map(str, files),
            ]
        )
        == 0
    )
    assert "with 2 corrected gold value(s)" in capsys.readouterr().out


def test_metrics_past_the_limit_are_counted_not_cut_silently(catalog: Catalog, tmp_path: Path) -> None:
    from collections import Counter

    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    _fix_one_wrong_answer(ctx, "cmm")
    full = [line for line in metric_lines(ctx, "cmm", limit=100).splitlines() if "→" in line]
    per_model = Counter(line.split("</code>")[0] for line in full)
    assert per_model and max(per_model.values()) > 1
    cut = metric_lines(ctx, "cmm", limit=1).splitlines()
    for who, changed in per_model.items():
        assert sum(line.startswith(who) and "→" in line for line in cut) == 1
        more = [line for line in cut if line.startswith(who) and "more metric(s) changed" in line]
        assert more == (
            [
                f"{who}</code>: {changed - 1} more metric(s) changed; "
                "`halluscope score --corrected` lists them all"
            ]
            if changed > 1
            else []
        )


@pytest.mark.parametrize("name", list(benchmarks.REGISTRY))
def test_the_chart_numbers_csv_holds_the_gold_the_charts_show(
    catalog: Catalog, tmp_path: Path, name: str
) -> None:
    # Seen in a walkthrough: under Gold = corrected, "Chart numbers of this view (CSV)" gave the
    # official numbers (the file was the same byte for byte under both), with nothing to say so
    import gradio as gr

    import app

    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    task = "bqa" if name == "vidhalluc" else None
    _fix_one_wrong_answer(ctx, name, task)
    demo = app.build_app(catalog, ctx)
    by_id = {b.elem_id: b for b in demo.blocks.values() if getattr(b, "elem_id", None)}
    (make,) = {d.fn for d in demo.fns.values() if list(d.outputs) == [by_id["charts-csv"]]}
    alice = gr.Request(username="alice", session_hash="alice-1")
    values = [name, [], ALL, ALL, False, False, False, ""]
    shown = {
        mode: pd.read_csv(make(alice, None, mode, *values)["value"]) for mode in ("official", "corrected")
    }
    assert set(shown["official"]["gold"]) == {"official"} and set(shown["corrected"]["gold"]) == {"corrected"}
    numbers = [c for c in shown["official"].columns if c != "gold"]
    assert not shown["official"][numbers].equals(shown["corrected"][numbers])  # the correction shows
    # each holds the rows its charts are drawn from: the catalog, and the corrected table
    fixed = Catalog(corrected_table(ctx, name), media_roots={})
    for mode, drawn in (("official", catalog), ("corrected", fixed)):
        expected = pd.read_csv(chart_csv(drawn, Filters(benchmark=name), tmp_path / mode)["value"])
        assert shown[mode][numbers].equals(expected[numbers]), mode


def test_a_scene_change_correction_keeps_the_whole_official_value(catalog: Catalog, tmp_path: Path) -> None:
    # Seen in a walkthrough: changing an STH item's locations recorded and said "gold Yes -> Scene
    # change: Yes, Locations: ...": the official locations were in no message, history or export
    from analysis.store import events_frame

    table = catalog.table
    sth = table[(table["benchmark"] == "vidhalluc") & (table["task"] == "sth") & (table["gold"] == "Yes")]
    row = int(sth.index[0])
    where = json.loads(str(table.at[row, "extra"]))["gold_locations"]
    official = f"Scene change: Yes, Locations: {where}"
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    new = "Scene change: Yes, Locations: from the moon to mars."
    said = save(ctx, row, ALICE, new, new, [], "", "the second place is wrong", part_choice="Yes",
                part_text="from the moon to mars.")  # fmt: skip
    assert official in said, said
    assert ctx.store is not None
    events = events_frame(ctx.store, "vidhalluc")
    assert events["old_value"].tolist() == [official]
    from analysis.store.final import final_labels

    cited = final_labels(ctx.store, "vidhalluc", table)
    assert cited["official_gold"].tolist() == [official] and cited["corrected_gold"].tolist() == [new]
