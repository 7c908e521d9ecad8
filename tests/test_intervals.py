"""Cluster statistics and the bootstrap: sums give exactly ``score``'s numbers; intervals are seeded.

Every benchmark's ``cluster_stats`` is checked against its own ``score`` on every sample model,
task and parser, and on random tables made from the samples (rows drawn with replacement,
answers and verdicts shuffled between rows, rows dropped from scoring at random), with ``==``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.benchmarks import REGISTRY, get
from analysis.stats.clusters import ClusterStats, point, tally
from analysis.stats.intervals import distinct, intervals, replicate_totals
from analysis.stats.metrics import binary_counts, binary_metrics_of

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


class HashEmbedder:
    """A deterministic stand-in for SimCSE: a vector from the text's hash (cosines vary widely)."""

    def embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.lower().encode()).digest()[:4], "little")
            out.append(np.random.default_rng(seed).normal(size=8) + 2.0)
        return np.asarray(out, dtype=np.float32)


def _tables() -> list[tuple[str, str | None, str, pd.DataFrame]]:
    manifest = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))
    out = []
    for name, entry in manifest["benchmarks"].items():
        bench = get(name)
        for pred in entry["predictions"]:
            gold = SAMPLES / pred["gold"] if pred.get("gold") else None
            table = bench.load(SAMPLES / pred["path"], gold=gold, task=pred.get("task"))
            out.append((name, pred.get("task"), pred["model"], table))
    return out


TABLES = _tables()


def _score_and_stats(
    name: str, table: pd.DataFrame, task: str | None, parser: str
) -> tuple[Any, ClusterStats]:
    bench = get(name)
    if name == "vidhalluc":
        extra: dict[str, Any] = {"embedder": HashEmbedder()}
        return (
            bench.score(table, task=task, parser=parser, **extra),  # type: ignore[call-arg]
            bench.cluster_stats(table, task=task, parser=parser, **extra),
        )  # type: ignore[call-arg]
    return bench.score(table, task=task, parser=parser), bench.cluster_stats(table, task=task, parser=parser)


def _assert_same(report: Any, stats: ClusterStats) -> None:
    summed = point(stats)
    assert summed["overall"] == report["overall"]
    expected = {g: rows for g, rows in report["groups"].items() if g != "label_type"}
    assert summed["groups"] == expected
    scopes = [summed["overall"], *(v for rows in summed["groups"].values() for v in rows.values())]
    for scope_values in scopes:
        for value in scope_values.values():
            assert value is None or type(value) in (int, float)


def _tasks(name: str, task: str | None) -> list[str | None]:
    return [None, "qa", "mc"] if name == "cdh-bench" else [task]


@pytest.mark.parametrize(
    ("name", "task", "model", "table"), TABLES, ids=[f"{n}-{t or ''}-{m}" for n, t, m, _ in TABLES]
)
def test_summed_statistics_give_exactly_the_score_of_every_sample(
    name: str, task: str | None, model: str, table: pd.DataFrame
) -> None:
    for parser in get(name).PARSERS:
        for t in _tasks(name, task):
            report, stats = _score_and_stats(name, table, t, parser)
            _assert_same(report, stats)
            assert stats.values.shape == (len(stats.keys), len(stats.scopes) * len(stats.names))


def test_the_sth_sample_exercises_descriptions() -> None:
    """The STH check above means something only if some description is scored and not 0."""
    descriptions = []
    for name, task, _, table in TABLES:
        if name == "vidhalluc" and task == "sth":
            report, _ = _score_and_stats(name, table, task, "official")
            descriptions.append(report["overall"]["description_score"])
    assert descriptions and any(d not in (None, 0.0) for d in descriptions)


def _shuffled(table: pd.DataFrame, rng: np.random.Generator, size: int) -> pd.DataFrame:
    """Rows drawn with replacement, answers and verdicts moved between rows, some rows unscored."""
    rows = table.iloc[rng.integers(0, len(table), size=size)].reset_index(drop=True)
    answer_cols = ["raw_answer", "parsed", "correct", "alt_parsed", "alt_correct"]
    perm = rng.permutation(size)
    for col in answer_cols:
        rows[col] = rows[col].iloc[perm].reset_index(drop=True)
    rows["scored"] = rows["scored"].to_numpy(dtype=bool) & (rng.random(size) > 0.15)
    if rows["benchmark"].iloc[0] == "detailverifybench" or (rows["task"] == "sth").all():
        # Float statistics (per-caption F1, STH side scores) come one item per cluster, since a
        # loaded file scores a caption or a video id once; a cluster of several would round its
        # float sum once more than score's sum. So drawn copies become new captions and videos.
        suffix = ":" + pd.Series(range(size), dtype="string")
        rows["item_id"] = rows["item_id"] + suffix
        rows["media"] = rows["media"] + suffix
    return rows


@pytest.mark.parametrize("seed", range(4))
def test_summed_statistics_equal_score_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for name, task, _, table in TABLES:
        if name == "detailverifybench" and seed > 1:
            continue  # tokenising is the slow part; two random rounds cover it
        if name == "vidhalluc" and task == "bqa":
            continue  # rows of a question must stay together: see the bqa test below
        random_table = _shuffled(table, rng, size=int(rng.integers(1, 400)))
        for parser in get(name).PARSERS:
            for t in _tasks(name, task):
                report, stats = _score_and_stats(name, random_table, t, parser)
                _assert_same(report, stats)


def test_bqa_statistics_count_questions_over_clip_pairs() -> None:
    """A question is right only if all its clips are; its clips share one cluster, the pair."""
    rng = np.random.default_rng(7)
    for name, task, _, table in TABLES:
        if (name, task) != ("vidhalluc", "bqa"):
            continue
        shuffled = table.copy()
        perm = rng.permutation(len(table))
        shuffled["raw_answer"] = table["raw_answer"].iloc[perm].to_numpy()
        for parser in get(name).PARSERS:
            report, stats = _score_and_stats(name, shuffled, task, parser)
            _assert_same(report, stats)
            assert stats.unit == "clip pair"
            assert len(stats.keys) == shuffled.loc[shuffled["scored"], "pair_id"].nunique()
            assert stats.block(None)[:, 0].sum() == report["overall"]["n"]  # questions, not clips


def test_an_empty_table_gives_the_score_of_an_empty_table() -> None:
    from analysis.table.columns import empty_table

    for name, bench in REGISTRY.items():
        for task in bench.TASKS if bench.TASK_REQUIRED else [None]:
            kwargs: dict[str, Any] = {"embedder": None} if name == "vidhalluc" else {}
            report = bench.score(empty_table(), task=task, **kwargs)
            stats = bench.cluster_stats(empty_table(), task=task, **kwargs)  # type: ignore[call-arg]
            _assert_same(report, stats)
            ci = intervals(stats, n_boot=50)
            assert all(v is None for v in ci["overall"].values())


# --- the bootstrap itself -------------------------------------------------------------------------


def _accuracy_stats(correct: np.ndarray, clusters: np.ndarray) -> ClusterStats:
    pred = np.where(correct, 1, 0)  # gold "yes" everywhere: a right answer reads yes
    columns = binary_counts(pred, np.ones(correct.size, dtype=bool), correct)
    keys, values = tally(clusters, columns, [(None, np.ones(correct.size, dtype=bool))])
    return ClusterStats("item", keys, tuple(columns), (None,), values, binary_metrics_of)


def test_same_seed_same_intervals_other_seed_other_intervals() -> None:
    rng = np.random.default_rng(1)
    stats = _accuracy_stats(rng.random(300) < 0.6, np.arange(300))
    first = intervals(stats, n_boot=500, seed=11)
    assert intervals(stats, n_boot=500, seed=11) == first
    eleven = replicate_totals(stats.values, 500, 11)
    assert np.array_equal(replicate_totals(stats.values, 500, 11), eleven)
    assert not np.array_equal(replicate_totals(stats.values, 500, 12), eleven)
    assert first["n_boot"] == 500 and first["seed"] == 11 and first["level"] == 0.95


def test_independent_items_match_the_normal_approximation() -> None:
    # 400 independent items, 280 right: p = 0.7, se = sqrt(0.7 * 0.3 / 400) = 0.0229,
    # so the 95% interval is about 0.7 +- 1.96 * 0.0229 = [0.655, 0.745].
    correct = np.zeros(400, dtype=bool)
    correct[:280] = True
    ci = intervals(_accuracy_stats(correct, np.arange(400)), n_boot=4000, seed=0)["overall"]["accuracy"]
    assert ci is not None
    assert abs(ci[0] - 0.655) < 0.01 and abs(ci[1] - 0.745) < 0.01


def test_clusters_of_identical_items_widen_the_interval_by_sqrt_2() -> None:
    # The same 400 verdicts, but as 200 clusters of two items that always agree: the data hold 200
    # independent answers, so the interval is sqrt(2) times wider than for 400 independent items.
    correct = np.repeat(np.arange(200) < 140, 2)
    alone = intervals(_accuracy_stats(correct, np.arange(400)), n_boot=4000)["overall"]["accuracy"]
    paired = intervals(_accuracy_stats(correct, np.arange(400) // 2), n_boot=4000)["overall"]["accuracy"]
    assert alone is not None and paired is not None
    ratio = (paired[1] - paired[0]) / (alone[1] - alone[0])
    assert 1.3 < ratio < 1.55


def test_merging_identical_clusters_keeps_every_cluster_counted() -> None:
    values = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    d = distinct(values)
    assert d.counts.sum() == 4 and len(d.rows) == 2
    assert np.array_equal(d.rows[d.of_cluster], values)
    totals = replicate_totals(values, 300, seed=0)
    assert np.all(totals.sum(axis=1) == 4)  # every replicate draws four clusters


def test_both_ways_of_drawing_give_the_same_distribution() -> None:
    """Few distinct rows are drawn as a multinomial, many as cluster indices: same law."""
    few = np.repeat([[1.0], [0.0]], [600, 400], axis=0)  # 2 distinct rows: multinomial
    many = np.concatenate([few, np.arange(1000)[:, None] * 0.0 + 1e-9 * np.arange(1000)[:, None]], axis=1)
    by_rows = replicate_totals(few, 4000, seed=1)[:, 0]
    by_index = replicate_totals(many, 4000, seed=1)[:, 0]
    # mean 600, sd sqrt(1000 * 0.6 * 0.4) = 15.5; means of 4000 draws agree within 1.5
    assert abs(by_rows.mean() - 600) < 1.5 and abs(by_index.mean() - 600) < 1.5
    assert abs(by_rows.std() - 15.5) < 1.0 and abs(by_index.std() - 15.5) < 1.0


def test_a_group_no_replicate_can_leave_empty_has_an_interval_without_empty_draws() -> None:
    """A replicate that draws none of a group's clusters says nothing about it: left out."""
    from analysis.benchmarks.cmm import scoring as _cmm_score

    n = 60
    correct = np.arange(n) % 3 != 0
    columns = dict(
        zip(
            _cmm_score.STAT_NAMES,
            [np.ones(n), correct, correct, np.ones(n), np.zeros(n), correct, np.zeros(n)],
            strict=True,
        )
    )
    small = np.zeros(n, dtype=bool)
    small[1:3] = True  # a group of 2 items (1 and 2), both right: often drawn 0 times
    keys, values = tally(np.arange(n), columns, [(None, np.ones(n, dtype=bool)), (("g", "small"), small)])
    stats = ClusterStats(
        "item", keys, _cmm_score.STAT_NAMES, (None, ("g", "small")), values, _cmm_score.metrics_of
    )
    ci = intervals(stats, n_boot=1000, seed=0)
    # CMM's convention makes an empty ratio 0; a replicate without the group must not count as 0
    assert ci["groups"]["g"]["small"]["accuracy"] == [1.0, 1.0]


def test_the_ci_object_has_every_metric_of_the_report_but_the_counts() -> None:
    for name, task, _, table in TABLES:
        report, stats = _score_and_stats(name, table, task, get(name).PARSERS[0])
        ci = intervals(stats, n_boot=200, seed=0)
        counts = {"n", "n_cf", "n_cs", "unparsed"}
        assert set(ci["overall"]) == set(report["overall"]) - counts
        for group, rows in ci["groups"].items():
            assert set(rows) == set(report["groups"][group])
            for key, metrics in rows.items():
                assert set(metrics) == set(report["groups"][group][key]) - counts
                for metric, interval in metrics.items():
                    value = report["groups"][group][key][metric]
                    assert (interval is None) == (value is None)
        json.dumps(ci, allow_nan=False)
