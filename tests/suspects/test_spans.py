"""Suspect spans of tagged gold (DetailVerifyBench): planted wrong spans come first, and the
suggestion flips exactly the suspect words (docs/suspects.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.benchmarks.detailverifybench.tagging import TAGGING
from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST
from analysis.suspects.quality import average_precision, precision_at
from analysis.suspects.spans import rank_spans

from .planted_spans import planted_captions

SAMPLES = SAMPLE_MANIFEST.parent


@pytest.mark.parametrize("seed", (11, 12, 13))
def test_planted_wrong_spans_come_first_far_above_plain_disagreement(seed: int) -> None:
    table, wrong = planted_captions(seed)
    ranked, _ = rank_spans("detailverifybench", table)
    hits = [s.item_id in wrong for s in ranked]
    disagreement = {}
    for item, rows in table.groupby("item_id"):
        gold = TAGGING.selected_tokens(rows["gold"].iloc[0])
        disagreement[item] = np.mean([len(TAGGING.selected_tokens(a) ^ gold) for a in rows["raw_answer"]])
    naive = [i in wrong for i in sorted(disagreement, key=lambda i: (-disagreement[i], i))]
    ap, ap_naive = average_precision(hits, len(wrong)), average_precision(naive, len(wrong))
    assert ap >= 0.8 and ap >= 1.5 * ap_naive, (ap, ap_naive)
    assert precision_at(hits, 10) >= 0.9


def test_a_word_precise_models_tag_becomes_a_suggested_tag() -> None:
    table, _ = planted_captions(5, captions=80, flip=0.0)
    first = table["item_id"].iloc[0]
    rows = table["item_id"] == first
    clean = TAGGING.strip(str(table.loc[rows, "gold"].iloc[0]))
    words = [clean[a:b] for a, b in TAGGING.tokens(clean)]
    gold = TAGGING.selected_tokens(str(table.loc[rows, "gold"].iloc[0]))
    spot = next(
        i for i in range(len(words) - 1, 0, -1) if i not in gold and i - 1 not in gold and i + 1 not in gold
    )
    for index in table.index[rows]:  # the seven most precise models also tag one more word
        model = int(str(table.at[index, "model"]).split("-")[1])
        if model >= 3:
            tagged = TAGGING.selected_tokens(str(table.at[index, "raw_answer"])) | {spot}
            table.at[index, "raw_answer"] = TAGGING.tag_tokens(clean, sorted(tagged))
    ranked, spans = rank_spans("detailverifybench", table)
    top = next(s for s in ranked if s.item_id == first)
    assert top.rank == 1
    assert any(s.tag and s.text == words[spot] for s in spans[first])
    assert top.suggested is not None and TAGGING.selected_tokens(top.suggested) == gold | {spot}
    assert f"“{words[spot]}” as hallucinated; the gold does not" in top.reasons[0]


def test_the_command_ranks_the_samples_captions(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in sorted((SAMPLES / "detailverifybench" / "predictions").iterdir())]
    assert main(["suspects", "detailverifybench", *files, "--json", "--top", "5"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["rank"] for d in lines] == [1, 2, 3, 4, 5]
    assert all("<HALLUCINATION>" in d["gold"] or d["gold"] for d in lines)
    assert "as hallucinated" in lines[0]["reasons"][0]
