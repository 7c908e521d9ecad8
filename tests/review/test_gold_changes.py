"""What each correction changes: three golds side by side, rank changes, Kendall's tau, McNemar."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binomtest

from analysis.benchmarks import cmm
from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST
from analysis.review.corrected import corrected_view, uncorrected
from analysis.review.gold_changes import _ranks, gold_changes
from analysis.store import Identity, ItemRef, open_store, relabel

SAMPLES = SAMPLE_MANIFEST.parent


def _table(tmp_path: Path) -> pd.DataFrame:
    """CMM runs of three models on 20 yes/no probes, read as the app reads them.

    a is right on probes 0-11, b on 8-18, c on 0-4.
    """
    right = {"a": set(range(12)), "b": set(range(8, 19)), "c": set(range(5))}
    tables = []
    for model, hits in right.items():
        lines = []
        for i in range(20):
            gold = "yes" if i % 2 else "no"
            answer = gold if i in hits else ("no" if gold == "yes" else "yes")
            row = {
                "category": "inter-modality_spurious_correlation",
                "sub_category": "visual-language",
                "modality": "visual",
                "granularity": "object-level",
                "correlation_type": "global_frequency",
                "video_path": f"./raw_files/vl/obj/{i // 2:05d}.mp4",
                "audio_path": None,
                "question": f"Did you see thing{i} in the video? Answer with yes or no.",
                "answer": gold,
                "pred": answer.capitalize(),
            }
            lines.append(json.dumps(row))
        path = tmp_path / f"{model}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        tables.append(cmm.load(path))
    return pd.concat(tables, ignore_index=True)


def test_a_correction_shows_in_values_ranks_tau_and_the_paired_test(tmp_path: Path) -> None:
    table = _table(tmp_path)
    ids = table.drop_duplicates("question").set_index("question")["item_id"]
    item = {i: str(ids[f"Did you see thing{i} in the video? Answer with yes or no."]) for i in range(20)}
    store = open_store(tmp_path / "labels.db")
    for i in (14, 16, 18):  # only b was right: the correction makes b wrong there and a and c right
        gold = "yes" if i % 2 else "no"
        relabel(store, ItemRef("cmm", item[i], "", gold), "gold", "no" if gold == "yes" else "yes",
                Identity("alice"), "the clip shows the opposite")  # fmt: skip
    fixed = corrected_view(table, store)
    (board,) = gold_changes(table, fixed, "cmm", {item[0], item[1]})
    by = {s.model: s for s in board.standings}
    assert board.metric == "accuracy" and board.corrections == 3 and board.left_out == 2
    assert (by["a"].official, by["b"].official) == (12 / 20, 11 / 20)
    assert (by["a"].corrected, by["b"].corrected, by["c"].corrected) == (15 / 20, 8 / 20, 8 / 20)
    assert (by["a"].rank, by["b"].rank, by["c"].rank) == (1, 2, 3)
    assert (by["a"].rank_corrected, by["b"].rank_corrected, by["c"].rank_corrected) == (1, 2, 2)  # b, c tie
    assert by["b"].changed == 3 and by["c"].changed == 3
    # the paired test is McNemar's exact test on the model's verdicts, official against corrected
    assert by["b"].p == pytest.approx(binomtest(3, 3, 0.5).pvalue)
    # official a > b > c; corrected a > b = c: tau-b over (0.6, 0.55, 0.25) and (0.75, 0.4, 0.4)
    assert board.tau_corrected == pytest.approx(2 / 6**0.5)
    # without probes 0 and 1 (a and c right on both, b on neither): a 10/18, b 11/18, c 3/18
    assert (by["a"].without, by["b"].without, by["c"].without) == (10 / 18, 11 / 18, 3 / 18)
    assert (by["a"].rank_without, by["b"].rank_without) == (2, 1)
    assert board.tau_without == pytest.approx(1 / 3)


def test_without_corrections_every_column_equals_the_official_and_no_test_runs(tmp_path: Path) -> None:
    table = _table(tmp_path)
    (board,) = gold_changes(table, uncorrected(table), "cmm", ())
    assert board.corrections == 0 and board.left_out == 0
    assert all(
        s.official == s.corrected == s.without and s.changed == 0 and s.p is None for s in board.standings
    )
    assert board.tau_corrected == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("values", "ranks", "why"),
    [
        ({"a": 0.5, "b": 0.7}, {"b": 1, "a": 2}, "higher is better"),
        ({"a": 0.5, "b": 0.5, "c": 0.1}, {"a": 1, "b": 1, "c": 3}, "a tie shares the better rank"),
        ({"a": None, "b": 0.1}, {"b": 1, "a": 2}, "undefined ranks last"),
    ],
)
def test_ranks(values: dict[str, float | None], ranks: dict[str, int], why: str) -> None:
    assert _ranks(values) == ranks, why


def test_the_report_shows_the_three_golds_in_html_and_latex(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(p) for p in sorted((SAMPLES / "cmm" / "predictions").iterdir())]
    db = tmp_path / "labels.db"
    open_store(db).close()
    out = tmp_path / "report.html"
    assert main(["report", *files, "--db", str(db), "--out", str(out), "--n-boot", "200"]) == 0
    page = out.read_text()
    assert "What the corrections change" in page and "without suspects" in page and "Kendall" in page
    capsys.readouterr()
    assert main(["report", *files, "--db", str(db), "--format", "latex", "--n-boot", "200"]) == 0
    latex = capsys.readouterr().out
    assert "under three golds" in latex and latex.count(r"\begin{tabular}{lrrrrr}") == 1
