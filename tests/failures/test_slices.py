"""The slice finder: planted failures come first, null runs stay quiet, the vectorised sums are right."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import false_discovery_control, fisher_exact

from analysis.benchmarks import REGISTRY, get
from analysis.benchmarks.slicing import condition_mask, describe, parse, slice_columns
from analysis.cli.main import main
from analysis.failures import slices as finder
from analysis.failures.slices import find_slices
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.stats.slices import (
    GroupSums,
    below_rest_log_p,
    benjamini_hochberg,
    design_effect,
    lower_tail_log_p,
)

from .planted import PLANTED, planted_table

SAMPLES = SAMPLE_MANIFEST.parent


@pytest.mark.parametrize("seed", range(5))
def test_a_planted_two_condition_slice_comes_first_for_its_model(seed: int) -> None:
    table = planted_table(seed, models=("weak-there", "clean-1", "clean-2"))
    found, tested = find_slices("cmm", table)
    assert tested > 500  # depth 3 over five columns, three models
    first = found[0]
    assert (first.model, first.conditions) == ("weak-there", PLANTED)
    assert first.q < 0.05
    assert {s.model for s in found} == {"weak-there"}  # the clean models' slices stay quiet


def test_null_runs_report_a_false_slice_in_at_most_5_percent_of_seeds() -> None:
    """20 seeds here (bench/slices.py runs 100 and prints the rate): clustered verdicts, nothing planted."""
    false = [seed for seed in range(20) if find_slices("cmm", planted_table(seed, planted=None))[0]]
    assert len(false) <= 1, false


def test_without_clustering_the_test_is_fishers_exact_test() -> None:
    for (a, b), (c, d) in [((3, 9), (20, 8)), ((0, 5), (7, 1)), ((12, 30), (300, 100))]:
        log_p = lower_tail_log_p(np.array([a + b]), np.array([a]), np.array([c + d]), np.array([c]))
        assert math.exp(log_p[0]) == pytest.approx(fisher_exact([[a, b], [c, d]], alternative="less").pvalue)


def test_benjamini_hochberg_equals_scipys() -> None:
    p = np.random.default_rng(3).random(200) ** 3
    assert benjamini_hochberg(p) == pytest.approx(false_discovery_control(p, method="bh"))


def test_the_design_effect_is_one_for_singletons_and_n_for_one_cluster() -> None:
    def sums(y_c: list[int], n_c: list[int]) -> GroupSums:
        return GroupSums.one_group(np.array(y_c, float), np.array(n_c, float))

    rng = np.random.default_rng(0)
    singletons = rng.random(400) < 0.6
    assert design_effect(sums(list(singletons.astype(int)), [1] * 400))[0] == pytest.approx(
        1.0 * 400 / 399, rel=1e-9
    )
    assert design_effect(sums([7], [12]))[0] == 12  # one cluster: worth one item
    # perfectly clustered (each cluster all right or all wrong, 4 items each): about the cluster size
    blocks = rng.random(200) < 0.5
    assert design_effect(sums(list(4 * blocks.astype(int)), [4] * 200))[0] == pytest.approx(4.0, rel=0.02)


def test_the_vectorised_sums_equal_a_slice_by_slice_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each tested slice's p value, recomputed from a plain group-by of its rows and of the rest."""
    table = planted_table(11, clips=60)
    tested: list[finder.Slice] = []
    original = finder._test_combo

    def keep(*args: object) -> list[finder.Slice]:
        found = original(*args)  # type: ignore[arg-type]
        tested.extend(found)
        return found

    monkeypatch.setattr(finder, "_test_combo", keep)
    find_slices("cmm", table, max_depth=2)
    clusters, columns = slice_columns("cmm", table)
    right = table["correct"].to_numpy(dtype=bool)
    rho = _rho(right, clusters)
    assert len(tested) > 40
    for s in tested:
        mask = condition_mask(columns, s.conditions)
        inside, rest = _sums(right[mask], clusters[mask]), _sums(right[~mask], clusters[~mask])
        assert (s.n, s.right, s.rest_n, s.rest_right) == (
            mask.sum(),
            right[mask].sum(),
            (~mask).sum(),
            right[~mask].sum(),
        )
        assert s.log_p == pytest.approx(below_rest_log_p(inside, rest, rho)[0], abs=1e-9), s.conditions


def _sums(right: np.ndarray, clusters: np.ndarray) -> GroupSums:
    per = pd.DataFrame({"c": clusters, "y": right.astype(float)}).groupby("c")["y"].agg(["sum", "count"])
    return GroupSums.one_group(per["sum"].to_numpy(), per["count"].to_numpy(dtype=float))


def _rho(right: np.ndarray, clusters: np.ndarray) -> float:
    from analysis.stats.slices import intra_cluster_correlation

    return intra_cluster_correlation(_sums(right, clusters))


def test_a_condition_that_adds_nothing_is_left_out() -> None:
    """gold=no & granularity: each granularity half of the planted slice is as bad as the whole."""
    found, _ = find_slices("cmm", planted_table(2))
    shown = {s.conditions for s in found}
    assert PLANTED in shown
    for s in found:
        if set(PLANTED) < set(s.conditions):
            pytest.fail(f"{s.conditions} adds nothing to {PLANTED} yet is shown")


def test_every_benchmark_cuts_its_samples() -> None:
    catalog = load_manifest(SAMPLE_MANIFEST)
    for name in REGISTRY:
        rows = catalog.table[catalog.table["benchmark"] == name]
        clusters, columns = slice_columns(name, rows)
        assert len(clusters) == len(rows)
        assert all(len(v) == len(rows) for v in columns.values())
        assert 1 < len(set(clusters)) < len(rows) or name == "detailverifybench", name
        assert set(get(name).slicing(rows).attributes) <= set(columns), name


def test_the_command_prints_the_contracts_keys_deterministically(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in sorted((SAMPLES / "cdh-bench" / "predictions").iterdir())]
    assert main(["slices", "cdh-bench", *files, "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["slices", "cdh-bench", *files, "--json"]) == 0
    assert capsys.readouterr().out == first
    lines = [json.loads(line) for line in first.splitlines()]
    assert lines and all(
        list(d) == ["model", "slice", "n", "accuracy", "rest_accuracy", "p", "q"] for d in lines
    )
    assert [d["p"] for d in lines] == sorted(d["p"] for d in lines)
    assert all(d["q"] <= 0.05 for d in lines)
    assert {"side": "counterfactual"} in [d["slice"] for d in lines if d["model"] == "commonsense-prior"]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--model", "nobody"], "no model 'nobody'"),
        (["--max-depth", "4"], "--max-depth must be 1, 2 or 3"),
        (["--alpha", "0"], "--alpha must be between 0 and 1"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    extra: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(p) for p in sorted((SAMPLES / "cmm" / "predictions").iterdir())]
    assert main(["slices", "cmm", *files, *extra]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_gold_file_alone_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slices", "cmm", str(SAMPLES / "cmm" / "all_data_final_reorg.json")]) == 2
    assert "no model's answers" in capsys.readouterr().err


def test_files_list_is_read_as_given(tmp_path: Path) -> None:
    """A missing prediction file is named (exit 2), as every command does."""
    assert main(["slices", "cmm", str(tmp_path / "missing.jsonl")]) == 2


def test_task_keeps_only_that_tasks_items(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in sorted((SAMPLES / "cdh-bench" / "predictions").iterdir())]
    assert main(["slices", "cdh-bench", *files, "--task", "qa", "--json", "--max-depth", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(d["n"] <= 24 for d in lines)  # at most 24 scored QA items a model on the samples
    assert all("task" not in d["slice"] for d in lines)  # one task left: not a column to slice on
    assert main(["slices", "cdh-bench", *files, "--task", "nope"]) == 2


@pytest.mark.parametrize(
    ("text", "conditions", "why"),
    [
        ("gold = no", (("gold", "no"),), "one condition"),
        ("modality = audio & gold = no", (("modality", "audio"), ("gold", "no")), "two, joined"),
        ("category = r & b & gold = yes", (("category", "r & b"), ("gold", "yes")), "a value holding ' & '"),
        ("side = a = b", (("side", "a = b"),), "a value holding ' = ' (the first one splits)"),
        ("cmm.side = x", (("cmm.side", "x"),), "a benchmark attribute renamed with its id"),
        ("  ", (), "blank: no slice"),
    ],
)
def test_a_slice_reads_back_from_its_text(
    text: str, conditions: tuple[tuple[str, str], ...], why: str
) -> None:
    assert parse(text) == conditions, why
    if conditions:
        assert parse(describe(conditions)) == conditions


@pytest.mark.parametrize("text", ["hello", "= no", "two words = x"])
def test_text_that_is_no_slice_is_refused_with_what_was_wrong(text: str) -> None:
    with pytest.raises(ValueError, match="column = value"):
        parse(text)


def test_a_slice_filter_cuts_the_rows_the_finder_tested_and_a_blind_view_drops_it() -> None:
    from analysis.query import Filters, filter_rows
    from analysis.review.access import Access

    table = planted_table(3)
    _, columns = slice_columns("cmm", table)
    wanted = condition_mask(columns, (("gold", "no"), ("modality", "audio")))
    view = Filters(benchmark="cmm", slice=(("gold", "no"), ("modality", "audio")))
    assert list(filter_rows(table, view)) == list(np.flatnonzero(wanted)) and wanted.any()
    assert list(filter_rows(table, Filters(benchmark="cmm", slice=(("nope", "x"),)))) == []
    assert Access("zoe", blind=True).filters(view).slice == ()
    assert Access("yan").filters(view).slice == view.slice


def test_a_gold_is_named_as_the_files_spell_it_and_matched_whatever_its_case() -> None:
    # Seen in a review of the CLI: slices printed {"gold": "b"} for a "B" gold, {"gold": "no"} for "No"
    import numpy as np
    import pandas as pd

    from analysis.benchmarks.slicing import _one_spelling, condition_mask

    gold = pd.Series(["No", "no", "No", "B", " Yes", None], dtype="string")
    assert _one_spelling(gold.str.strip().fillna("")).tolist() == ["No", "No", "No", "B", "Yes", ""]
    columns = {"gold": np.array(["No", "Yes", "No"], dtype=object)}
    assert condition_mask(columns, [("gold", "no")]).tolist() == [True, False, True]  # typed in lower case
    assert condition_mask(columns, [("gold", "No")]).tolist() == [True, False, True]


def test_with_a_store_the_slices_are_those_of_the_exported_corrected_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``slices --db`` counts against the corrected gold: the lines ``slices`` prints for the files
    ``export --format native`` writes, and not the official ones (docs/failures.md)."""
    from analysis.store import ItemRef, identity_from, open_store, relabel

    files = [str(p) for p in sorted((SAMPLES / "cmm" / "predictions").iterdir())]
    assert main(["slices", "cmm", *files, "--json", "--max-depth", "2"]) == 0
    official = capsys.readouterr().out
    rows = get("cmm").load(Path(files[0]))
    # the event-level no-probes relabelled yes: the yes-biased model's "gold = no" slice moves
    event = rows["subcategory"].astype(str) == "event-level"
    chosen = rows[event & (rows["gold"].astype(str).str.lower() == "no")]
    assert len(chosen) >= 5
    db = tmp_path / "labels.db"
    store = open_store(db)
    try:
        alice = identity_from("alice")
        for item_id in chosen["item_id"].astype(str):
            relabel(store, ItemRef("cmm", item_id, "", "no"), "gold", "yes", alice, "heard it")
    finally:
        store.close()
    assert main(["slices", "cmm", *files, "--json", "--max-depth", "2", "--db", str(db)]) == 0
    corrected = capsys.readouterr()
    assert f"{len(chosen)} gold correction(s) applied" in corrected.err
    out = tmp_path / "out"
    export = ["export", "cmm", "--db", str(db), "--format", "native", "--out", str(out), "--gold", *files]
    assert main(export) == 0
    exported = [str(out / Path(f).name) for f in files]
    capsys.readouterr()
    assert main(["slices", "cmm", *exported, "--json", "--max-depth", "2"]) == 0
    assert corrected.out == capsys.readouterr().out != official
