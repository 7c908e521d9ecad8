"""Leaderboards and paired tests: the numbers of ``halluscope score``, the intervals of ``score --ci``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.benchmarks import REGISTRY, get
from analysis.boards.leaderboard import leaderboards
from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.stats.clusters import ClusterStats, tally
from analysis.stats.metrics import binary_counts, binary_metrics_of
from analysis.stats.paired import compare_models, holm, mcnemar

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
N_BOOT, SEED = 200, 4


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_manifest(SAMPLE_MANIFEST)


def _cli(
    capsys: pytest.CaptureFixture[str], bench: str, pred: dict[str, str | None], task: str | None
) -> dict:
    args = [
        "score",
        bench,
        str(SAMPLES / str(pred["path"])),
        "--json",
        "--ci",
        "--n-boot",
        str(N_BOOT),
        "--seed",
        str(SEED),
    ]
    if pred.get("gold"):
        args += ["--gold", str(SAMPLES / str(pred["gold"]))]
    if task:
        args += ["--task", task]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_every_board_shows_the_cli_numbers_and_intervals(  # type: ignore[no-untyped-def]
    catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))
    checked = 0
    for name, entry in manifest["benchmarks"].items():
        boards = leaderboards(catalog.table, name, n_boot=N_BOOT, seed=SEED)
        assert boards, name
        for lb in boards:
            for e in lb.entries:
                pred = next(
                    p
                    for p in entry["predictions"]
                    if p["model"] == e.model and (p["task"] or None) == lb.board.task
                )
                report = _cli(capsys, name, pred, lb.board.task)
                scope = lb.board.scope
                values = report["overall"] if scope is None else report["groups"][scope[0]][scope[1]]
                cis = report["ci"]["overall"] if scope is None else report["ci"]["groups"][scope[0]][scope[1]]
                for metric in lb.board.metrics:
                    assert e.values[metric] == values[metric], (name, e.model, metric)
                    assert e.intervals[metric] == cis[metric], (name, e.model, metric)
                checked += 1
    assert checked >= 3 * (4 + 1 + 4 + 2 + 1)  # three models on every board of the samples


def test_vidhalluc_bqa_board_counts_questions_not_clips(catalog) -> None:  # type: ignore[no-untyped-def]
    (bqa,) = [lb for lb in leaderboards(catalog.table, "vidhalluc", n_boot=50) if lb.board.task == "bqa"]
    balanced = next(e for e in bqa.entries if e.model == "balanced")
    # 18 questions over two clips each; 14 with both clips right: 14 / 18 = 0.778 (per clip 0.905)
    assert balanced.n == 18 and balanced.values["accuracy"] == pytest.approx(14 / 18)


def test_sth_board_ranks_by_classification_when_no_embedder(catalog) -> None:  # type: ignore[no-untyped-def]
    (sth,) = [lb for lb in leaderboards(catalog.table, "vidhalluc", n_boot=50) if lb.board.task == "sth"]
    if all(e.values["score"] is None for e in sth.entries):
        assert sth.ranked_by == "classification_score"
        ranked = [e.values["classification_score"] for e in sth.entries]
        assert ranked == sorted(ranked, reverse=True)


def test_corrected_numbers_stand_beside_official(catalog) -> None:  # type: ignore[no-untyped-def]
    from analysis.store.apply import apply_corrections

    rows = catalog.table[catalog.table["benchmark"] == "cmm"]
    target = rows.iloc[0]
    flipped = "no" if str(target["gold"]).strip().lower() == "yes" else "yes"
    labels = pd.DataFrame({"item_id": [target["item_id"]], "field": ["gold"], "value": [flipped]})
    fixed = apply_corrections(rows, labels)
    (board,) = leaderboards(catalog.table, "cmm", corrected=fixed, n_boot=50)
    for e in board.entries:
        assert e.corrected is not None
        mine = fixed[fixed["model"] == e.model]
        assert e.corrected["accuracy"] == get("cmm").score(mine)["overall"]["accuracy"]
    assert any(e.corrected != e.values for e in board.entries if e.corrected is not None)


def test_the_csv_gives_every_board_its_corrected_numbers_once_gold_is_corrected(catalog) -> None:  # type: ignore[no-untyped-def]
    # Seen in a walkthrough: a VidHalluc binary-QA correction left the corrected cells of the
    # multiple-choice, TSH and STH boards empty in the CSV, as if they had no corrected numbers
    from analysis.charts.boards import board_data
    from analysis.store.apply import apply_corrections

    rows = catalog.table[catalog.table["benchmark"] == "vidhalluc"]
    target = rows[rows["task"] == "bqa"].iloc[0]
    flipped = "No" if str(target["gold"]).strip().lower() == "yes" else "Yes"
    labels = pd.DataFrame({"item_id": [target["item_id"]], "field": ["gold"], "value": [flipped]})
    fixed = apply_corrections(rows, labels)
    plain = board_data(leaderboards(catalog.table, "vidhalluc", n_boot=20))
    assert plain["corrected"].isna().all()  # no corrected view: nothing to say
    data = board_data(leaderboards(catalog.table, "vidhalluc", corrected=fixed, n_boot=20))
    have = data["value"].notna()
    assert data.loc[have, "corrected"].notna().all()
    untouched = data["task"] != "bqa"
    assert (data.loc[have & untouched, "corrected"] == data.loc[have & untouched, "value"]).all()


def test_every_registered_benchmark_declares_boards_on_its_report() -> None:
    for bench in REGISTRY.values():
        assert bench.BOARDS
        for board in bench.BOARDS:
            assert board.metrics
            assert board.task is None or board.task in bench.TASKS


# --- paired tests ------------------------------------------------------------------------------------


def test_holm_adjusts_step_down() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3 x 0.01 = 0.03; max(0.03, 2 x 0.03) = 0.06; max(0.06, 1 x 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, None]) == [0.5, None]
    assert holm([0.9, 0.8]) == [1.0, 1.0]  # 2 x 0.8 caps at 1


def test_mcnemar_is_exact_binomial_on_discordant_pairs() -> None:
    index = [f"i{k}" for k in range(30)]
    a = pd.Series([True] * 30, index=index)
    b = pd.Series([False] * 10 + [True] * 20, index=index)
    p, discordant = mcnemar(a, b)
    assert discordant == (10, 0)
    assert p == pytest.approx(2 * 0.5**10)  # all 10 discordant pairs favour A
    same_p, none = mcnemar(a, a)
    assert (same_p, none) == (1.0, (0, 0))


def _stats(correct: np.ndarray, ids: list[str]) -> ClusterStats:
    pred = np.where(correct, 1, 0)
    columns = binary_counts(pred, np.ones(correct.size, dtype=bool), correct)
    keys, values = tally(np.array(ids, dtype=object), columns, [(None, np.ones(correct.size, dtype=bool))])
    return ClusterStats(
        "item",
        keys,
        tuple(columns),
        (None,),
        values,
        binary_metrics_of,
        verdicts={(None, "accuracy"): pd.Series(correct, index=ids)},
    )


def test_paired_bootstrap_uses_the_same_draw_for_both_models() -> None:
    rng = np.random.default_rng(0)
    ids = [f"q{k}" for k in range(200)]
    base = rng.random(200) < 0.5
    better = base.copy()
    better[np.flatnonzero(~base)[:15]] = True  # B is A plus 15 more right answers, nothing lost
    (test,) = compare_models(
        {"a": _stats(base, ids), "b": _stats(better, ids)}, "accuracy", n_boot=1000, seed=0
    )
    assert test.difference == pytest.approx(-15 / 200)
    assert test.interval is not None and test.interval[1] < 0  # paired: every replicate has b >= a
    assert test.test == "mcnemar" and test.discordant == (0, 15) and test.significant
    # unpaired, 15 / 200 on two accuracies near 0.5 would not be significant: sd ~ 0.05 each
    (bootstrap,) = compare_models(
        {"a": _stats(base, ids), "b": _stats(better, ids)}, "f1", n_boot=1000, seed=0
    )
    assert bootstrap.test == "bootstrap" and bootstrap.significant


def test_identical_models_differ_in_nothing() -> None:
    ids = [f"q{k}" for k in range(50)]
    correct = np.arange(50) % 2 == 0
    (test,) = compare_models({"a": _stats(correct, ids), "b": _stats(correct, ids)}, "accuracy", n_boot=200)
    assert test.difference == 0 and not test.significant and test.p == 1.0


def test_an_empty_metric_says_why_under_its_board() -> None:
    # Issue 20: STH's score and description_score showed "–" with no reason (SimCSE not on disk).
    from dataclasses import replace

    from analysis.boards.html_tables import board_html

    table = load_manifest(SAMPLE_MANIFEST).table
    boards = leaderboards(table[table["benchmark"] == "vidhalluc"], "vidhalluc", n_boot=20)
    sth = next(lb for lb in boards if lb.board.task == "sth")
    why = "<span class='hs-missing-why'>– in score, description_score: the official scorer embeds"
    filled = {"score": 0.5, "description_score": 0.5}
    emptied = {"score": None, "description_score": None}
    for values, said in ((emptied, True), (filled, False)):
        lb = replace(sth, entries=[replace(e, values={**e.values, **values}) for e in sth.entries])
        assert (why in board_html(lb)) == said
    cmm = leaderboards(table[table["benchmark"] == "cmm"], "cmm", n_boot=20)[0]
    assert "hs-missing-why" not in board_html(cmm)  # a board without reasons says none


def test_tied_models_rank_by_name_whatever_order_their_files_came_in() -> None:
    from itertools import pairwise

    # Issue 20: tied ranks ordered differently in the app and the report (the files' order).
    table = load_manifest(SAMPLE_MANIFEST).table
    rows = table[table["benchmark"] == "avhbench"]
    ties = 0
    orders = []
    for flipped in (False, True):
        shuffled = rows.iloc[::-1] if flipped else rows
        boards = leaderboards(shuffled.reset_index(drop=True), "avhbench", n_boot=20)
        orders.append([[e.model for e in lb.entries] for lb in boards])
        for lb in boards:
            first = lb.ranked_by
            values = [e.values.get(first) for e in lb.entries]
            ties += sum(a == b for a, b in pairwise(values))
            for a, b in pairwise(lb.entries):
                if a.values.get(first) == b.values.get(first):
                    assert a.model < b.model
    assert ties > 0  # the samples hold a tie (two models at 7/13 on one board)
    assert orders[0] == orders[1]
