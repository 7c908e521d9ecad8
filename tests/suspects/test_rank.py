"""The suspect ranking: planted wrong gold comes first on every choice benchmark, plain
disagreement does not, and the command keeps its contract (docs/suspects.md, docs/cli.md)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST
from analysis.store import open_store
from analysis.store.events import ItemRef, relabel
from analysis.store.identity import identity_from
from analysis.store.values import SUSPECT_FIELD
from analysis.suspects.quality import average_precision, precision_at, wilson
from analysis.suspects.rank import _pull, disagreement, rank_suspects

from .planted import SHAPES, planted, tsh_ceiling

SAMPLES = SAMPLE_MANIFEST.parent
SEEDS = (11, 12, 13)
"""Seeds not used while the method was written (bench/suspects.py prints seeds 0-4)."""


def _hits(name: str, seed: int) -> tuple[list[bool], list[bool], int]:
    p = planted(name, seed)
    bench = str(p.table["benchmark"].iloc[0])
    ours = [s.item_id in p.wrong for s in rank_suspects(bench, p.table)]
    raw = disagreement(bench, p.table)
    base = [i in p.wrong for i in sorted(raw, key=lambda i: (-raw[i], i))]
    return ours, base, len(p.wrong)


@pytest.mark.parametrize("name", [n for n in SHAPES if n != "vidhalluc/tsh"])
def test_planted_wrong_gold_ranks_first_far_above_plain_disagreement(name: str) -> None:
    """On each of three unseen seeds, the issue's bars: average precision at least 0.6, precision
    at 50 at least 0.8, and at least twice the naive ranking's average precision."""
    for seed in SEEDS:
        ours, base, wrong = _hits(name, seed)
        ap, raw, p50 = average_precision(ours, wrong), average_precision(base, wrong), precision_at(ours, 50)
        assert ap >= 0.6 and p50 >= 0.8 and ap >= 2.0 * raw, (seed, ap, p50, raw)


def test_on_tsh_the_ranking_comes_near_the_best_possible() -> None:
    """TSH's trap is a whole gold value (every model fails the reversed orders) and it has one
    question a video, so a hard reversed item and a wrong "BA" gold leave nearly the same answers:
    even the Bayes-optimal ranking that knows the true abilities misses 0.6 on some seeds
    (docs/suspects.md). Measured over seeds 0-4 and 11-13, the ranking came 0.005-0.19 below that
    ceiling: the bar guards against falling further, and against the naive ranking."""
    for seed in SEEDS:
        p = planted("vidhalluc/tsh", seed)
        ours, base, wrong = _hits("vidhalluc/tsh", seed)
        ap = average_precision(ours, wrong)
        assert ap >= tsh_ceiling(p) - 0.2, (seed, ap)
        assert ap >= 2.0 * average_precision(base, wrong), seed


@pytest.mark.parametrize(
    ("agreeing", "k", "pull", "why"),
    [
        (1.0 / 3.0, 4.0, 0.0, "four choices, wrong answers agreeing by chance alone: no tempting option"),
        (0.2, 4.0, 0.0, "agreeing less than chance (each model its own favourite) is still none"),
        (1.0, 4.0, 1.0, "every wrong answer the same option"),
        ((0.6 + 0.4 / 3) ** 2 + 2 * (0.4 / 3) ** 2, 4.0, 0.6, "the rate a share of 0.6 gives back 0.6"),
        (0.9, 2.0, 0.0, "two choices have one wrong option: the share means nothing"),
    ],
)
def test_the_share_of_wrong_answers_on_the_tempting_option(
    agreeing: float, k: float, pull: float, why: str
) -> None:
    assert _pull(agreeing, k) == pytest.approx(pull, abs=1e-6), why


def test_an_item_every_model_fails_in_a_trap_slice_is_not_suspect() -> None:
    """CMM's visual-dominance no-probes fail for every model on purpose: without wrong gold there,
    they stay out of the top of the list, though most models disagree with their gold."""
    p = planted("cmm", 21, flip=0.0)
    ranked = rank_suspects("cmm", p.table)
    trap = p.table.drop_duplicates("item_id").set_index("item_id")
    trap_items = set(
        trap.index[(trap["category"] == "overrely_visual_ignore_audio") & (trap["gold"] == "no")]
    )
    raw = disagreement("cmm", p.table)
    naive_top = sorted(raw, key=lambda i: (-raw[i], i))[:50]
    assert sum(i in trap_items for i in naive_top) >= 40  # the naive ranking is full of them
    assert sum(s.item_id in trap_items for s in ranked[:50]) <= 20


def test_a_yes_biased_models_yes_weighs_less_than_a_balanced_ones() -> None:
    """Two no-probes answered yes by three models, the other three giving no answer that reads:
    by the yes-biased ones, or by the balanced ones. Only the second is evidence against the gold."""
    rng = np.random.default_rng(3)
    models = [f"biased-{i}" for i in range(3)] + [f"balanced-{i}" for i in range(3)]
    rows = []
    for item in range(400):
        gold = "yes" if item % 2 else "no"
        for m in models:
            if m.startswith("biased"):
                answer = "yes" if gold == "yes" or rng.random() < 0.6 else "no"
            else:
                answer = gold if rng.random() < 0.93 else ("no" if gold == "yes" else "yes")
            rows.append((f"i{item}", m, gold, answer))
    for item, who in (("by-biased", "biased"), ("by-balanced", "balanced")):
        for m in models:
            rows.append((item, m, "no", "yes" if m.startswith(who) else ""))
    table = _table("cmm", rows)
    found = {s.item_id: s for s in rank_suspects("cmm", table)}
    assert found["by-balanced"].rank < found["by-biased"].rank
    assert found["by-balanced"].score > found["by-biased"].score + 3  # each balanced yes counts far more
    assert found["by-balanced"].suggested == "yes" and found["by-biased"].suggested is None


def test_the_same_table_gives_the_same_ranking_in_any_row_order() -> None:
    p = planted("vidhalluc/mcq", 5, items=600)
    a = rank_suspects("vidhalluc", p.table)
    b = rank_suspects("vidhalluc", p.table.sample(frac=1.0, random_state=1))
    assert [(s.item_id, round(s.score, 9), s.suggested) for s in a] == [
        (s.item_id, round(s.score, 9), s.suggested) for s in b
    ]
    assert [s.rank for s in a] == list(range(1, len(a) + 1))
    assert all(x.score >= y.score for x, y in itertools.pairwise(a))


def test_a_text_gold_is_not_ranked() -> None:
    """DetailVerifyBench's tagged captions are not a choice: the yes/no ranking leaves them out."""
    rows = [
        (f"c{i}", f"m{j}", "a <HALLUCINATION>red</HALLUCINATION> car", "a red car")
        for i in range(5)
        for j in range(3)
    ]
    assert rank_suspects("detailverifybench", _table("detailverifybench", rows)) == []


@pytest.mark.parametrize(
    ("hits", "positives", "ap", "why"),
    [
        ([True, True, False], 2, 1.0, "every positive first"),
        ([False, True], 1, 0.5, "one positive at rank 2"),
        ([True, False, True], 3, (1 + 2 / 3) / 3, "a positive never ranked counts as zero"),
        ([False, False], 0, 0.0, "no positives"),
    ],
)
def test_average_precision(hits: list[bool], positives: int, ap: float, why: str) -> None:
    assert average_precision(hits, positives) == pytest.approx(ap), why


def test_wilson_interval_matches_the_textbook_value() -> None:
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)  # Wilson (1927), 95%
    assert wilson(0, 0) == (0.0, 1.0)


def _table(benchmark: str, rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["item_id", "model", "gold", "parsed"])
    return frame.assign(
        benchmark=benchmark,
        task="",
        category="c",
        subcategory="",
        correct=frame["gold"] == frame["parsed"],
        scored=True,
        media=frame["item_id"] + ".mp4",
        extra="{}",
        side="",
        pair_id="",
    )


# -- the command --------------------------------------------------------------------------------

CMM = SAMPLES / "cmm" / "predictions"


def _flipped_copy(tmp_path: Path) -> tuple[list[str], str]:
    """The CMM samples with one row's gold flipped in every model's file; that row's question."""
    out = []
    rows = [json.loads(line) for line in (CMM / "balanced.jsonl").read_text().splitlines()]
    target = next(
        i for i, r in enumerate(rows) if r["answer"] == "yes" and str(r["pred"]).lower().startswith("yes")
    )
    for path in sorted(CMM.iterdir()):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        lines[target]["answer"] = "no"
        (tmp_path / path.name).write_text("".join(json.dumps(r) + "\n" for r in lines))
        out.append(str(tmp_path / path.name))
    return out, rows[target]["question"]


def test_the_command_prints_the_contracts_keys_most_suspect_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, question = _flipped_copy(tmp_path)
    assert main(["items", "cmm", *files, "--json"]) == 0
    ids = {
        json.loads(line)["question"]: json.loads(line)["item_id"]
        for line in capsys.readouterr().out.splitlines()
    }
    assert main(["suspects", "cmm", *files, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(
        list(d) == ["item_id", "rank", "score", "gold", "suggested", "against", "for", "reasons"]
        for d in lines
    )
    assert [d["rank"] for d in lines] == list(range(1, len(lines) + 1))
    assert [d["score"] for d in lines] == sorted((d["score"] for d in lines), reverse=True)
    first = lines[0]
    assert first["item_id"] == ids[question]
    assert (first["gold"], first["suggested"]) == ("no", "yes")
    assert first["against"] >= 2 and first["reasons"]
    assert main(["suspects", "cmm", *files, "--json", "--top", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_with_a_store_the_corrected_gold_is_judged_and_reviewed_items_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, _ = _flipped_copy(tmp_path)
    assert main(["suspects", "cmm", *files, "--json", "--top", "3"]) == 0
    top = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    db = tmp_path / "labels.db"
    store = open_store(db)
    try:
        first = ItemRef("cmm", top[0]["item_id"], "", top[0]["gold"])
        alice = identity_from("alice")
        relabel(store, first, "gold", "yes", alice, "the clip has it")
        second = ItemRef("cmm", top[1]["item_id"], "", top[1]["gold"])
        relabel(store, second, SUSPECT_FIELD, "right", alice, "checked the clip")
    finally:
        store.close()
    assert main(["suspects", "cmm", *files, "--json", "--db", str(db)]) == 0
    lines = {d["item_id"]: d for d in map(json.loads, capsys.readouterr().out.splitlines())}
    fixed = lines[top[0]["item_id"]]
    assert fixed["gold"] == "yes" and fixed["reviewed"] == "corrected"
    assert fixed["rank"] > 1  # corrected, it is no longer the most suspect
    assert lines[top[1]["item_id"]]["reviewed"] == "confirmed"
    assert all(
        d["reviewed"] is None for k, d in lines.items() if k not in (top[0]["item_id"], top[1]["item_id"])
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["balanced.jsonl"], "at least 3 models, got 1"),
        (["balanced.jsonl", "yes-biased.jsonl", "--top", "0"], "--top must be 1 or more"),
    ],
)
def test_bad_use_exits_2_with_one_line(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(CMM / a) if a.endswith(".jsonl") else a for a in args]
    assert main(["suspects", "cmm", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_the_samples_of_every_benchmark_rank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled runs of each choice benchmark go through the command (three models each)."""
    shutil.copytree(SAMPLES / "cdh-bench" / "predictions", tmp_path / "cdh")
    files = [str(p) for p in sorted((tmp_path / "cdh").iterdir())]
    assert main(["suspects", "cdh-bench", *files, "--task", "mc", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(d["item_id"].startswith("cdh-") for d in lines)
    assert {d["gold"] for d in lines} <= set("ABCD")


def test_a_cluster_that_breaks_a_balanced_design_raises_its_over_represented_answers() -> None:
    """Every clip pairs a yes- and a no-probe, but one clip holds two yes golds: only weak models
    disagree there, yet its two yes items rise above every other item with the same evidence, and
    say why. A file where each clip holds one question gets no such shift (nothing to measure)."""
    models = [f"m{i}" for i in range(5)]
    rows = []
    for clip in range(40):
        for q, gold in enumerate(("yes", "no")):
            if clip == 7:
                gold = "yes"  # the broken clip
            for k, m in enumerate(models):
                answer = gold if k or (clip + q) % 3 else ("no" if gold == "yes" else "yes")
                rows.append((f"c{clip}q{q}", m, gold, answer, f"clip{clip}.mp4"))
    paired = _table("cmm", [r[:4] for r in rows]).assign(media=[r[4] for r in rows])
    found = {s.item_id: s for s in rank_suspects("cmm", paired)}
    broken = [found["c7q0"], found["c7q1"]]
    same_evidence = [s for i, s in found.items() if not i.startswith("c7") and s.against == broken[1].against]
    assert same_evidence and all(b.score > s.score for b in broken for s in same_evidence)
    assert all("some yes here is likely wrong" in b.reasons[-1] for b in broken)
    alone = _table("cmm", [r[:4] for r in rows])  # each question its own clip: no design to break
    assert all("likely wrong" not in s.reasons[-1] for s in rank_suspects("cmm", alone))


def test_a_run_with_nothing_to_rank_says_so_beside_its_empty_json(capsys: pytest.CaptureFixture[str]) -> None:
    # VidHalluc STH gold is not ranked: `--json` printed nothing at all, on both streams
    sth = SAMPLE_MANIFEST.parent / "vidhalluc"
    preds = [
        str(sth / "predictions" / "sth" / f"{m}.json")
        for m in ("yes-biased", "balanced", "commonsense-prior")
    ]
    code = main(["suspects", "vidhalluc", *preds, "--gold", str(sth / "sth.json"), "--task", "sth", "--json"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "")
    assert err.startswith("halluscope: no item with a choice gold was answered") and "free-text gold" in err


def test_the_same_files_in_another_order_give_the_same_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    # the item order was the same, but scores differed in the 15th digit (sums in another order)
    folder = SAMPLE_MANIFEST.parent / "cmm" / "predictions"
    names = ["yes-biased", "balanced", "commonsense-prior"]
    outputs = []
    for order in (names, names[::-1], names[1:] + names[:1]):
        assert main(["suspects", "cmm", *(str(folder / f"{n}.jsonl") for n in order), "--json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] and outputs[0] == outputs[1] == outputs[2]


def test_a_reading_that_is_no_gold_value_is_left_out_never_suggested() -> None:
    """Seen in a review of the CLI: VidHalluc BQA's official reading of an answer it cannot read is
    the answer's normalised text, and "YES THE PERSON IS WALKING" came out as a suggested gold.
    Such a reading is an unreadable answer: left out, like an empty one."""
    models = [f"m{i}" for i in range(6)]
    rows = [
        (f"i{i}", m, "yes" if i % 2 else "no", "yes" if i % 2 else "no") for i in range(60) for m in models
    ]
    rows += [("odd", m, "no", "YES THE PERSON IS WALKING") for m in models[:4]]
    rows += [("odd", m, "no", "no") for m in models[4:]]
    found = {s.item_id: s for s in rank_suspects("cmm", _table("cmm", rows))}
    odd = found["odd"]
    assert odd.suggested is None and odd.alternative == ""
    assert (odd.against, odd.agree) == (0, 2)  # the four unreadable answers are not counted
    assert not any("WALKING" in reason for reason in odd.reasons)


def test_agreeing_with_the_value_a_model_seldom_gives_is_no_evidence_against_the_gold() -> None:
    """Seen in a review of the CLI: on TSH an item every model agreed with ranked second, with a
    positive score. Each model's agreement was weighed against its error rate on the gold's own
    value, not on the other value: a model that says AB 80% of the time whatever the truth is
    right on BA items 20% of the time, and under AB it errs toward BA 20% of the time too, so its
    BA says nothing either way; models that read the truth make agreement count for the gold."""
    rng = np.random.default_rng(5)
    models = [f"ab-lover-{i}" for i in range(3)] + [f"fair-{i}" for i in range(2)]
    rows = []
    for item in range(300):
        gold = "AB" if item % 2 else "BA"
        for m in models:
            if m.startswith("ab-lover"):
                answer = "AB" if rng.random() < 0.8 else "BA"
            else:
                answer = gold if rng.random() < 0.9 else ("BA" if gold == "AB" else "AB")
            rows.append((f"i{item}", m, gold, answer))
    rows += [("lovers-agree", m, "BA", "BA") for m in models[:3]]
    table = _table("vidhalluc", rows).assign(task="tsh")
    found = {s.item_id: s for s in rank_suspects("vidhalluc", table)}
    assert found["lovers-agree"].agree == 3 and found["lovers-agree"].against == 0
    assert abs(found["lovers-agree"].score) < 0.5  # no evidence either way (+4.13, rank 3 of 301, before)
    # and every item all five models agree with scores below zero: agreement counts for the gold
    everyone = [s for s in found.values() if s.against == 0 and s.agree == 5]
    assert everyone and all(s.score < 0 for s in everyone)
