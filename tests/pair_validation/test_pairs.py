"""The ACH pair catalogue and pair view, from the sample set and from small files in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc.pairs import CATALOGUE_COLUMNS, answer_grid, catalogue, pair_ids, pair_view
from analysis.table.columns import concat_tables

SAMPLE = Path(__file__).parents[2] / "samples" / "vidhalluc"


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    if not (SAMPLE / "ach_binaryqa.json").exists():
        pytest.skip("samples/vidhalluc is absent (run samples/generate.py)")
    gold = [SAMPLE / "ach_binaryqa.json", SAMPLE / "ach_mcq.json", SAMPLE / "tsh.json"]
    tables = [vidhalluc.load_gold(gold)]
    for model in ("balanced", "yes-biased"):
        tables.append(
            vidhalluc.load(
                SAMPLE / f"predictions/bqa/{model}.json", gold=SAMPLE / "ach_binaryqa.json", task="bqa"
            )
        )
        tables.append(vidhalluc.load(SAMPLE / f"predictions/mcq/{model}.json", task="mcq"))
    return concat_tables(tables)


def test_catalogue_lists_every_pair_in_file_order(sample: pd.DataFrame) -> None:
    pairs = catalogue(sample)
    gold = json.loads((SAMPLE / "ach_binaryqa.json").read_text(encoding="utf-8"))
    assert list(pairs.columns) == list(CATALOGUE_COLUMNS)
    assert pairs["pair_id"].tolist() == list(gold)  # tsh rows are no pairs; models add no rows
    row = pairs.set_index("pair_id").loc["s4ac761d"]
    assert row["clips"] == ("s4ac761d_clip_1", "s4ac761d_clip_2", "s4ac761d_clip_3")
    assert (row["n_clips"], row["n_bqa"], row["n_mcq"]) == (3, 3, 3)
    assert row["media"]["s4ac761d_clip_2"] == "s4ac761d_clip_2.mp4"
    # the action is the text of the correct choice(s); a two-letter gold gives both texts
    assert row["actions"] == {
        "s4ac761d_clip_1": "jogging / running",
        "s4ac761d_clip_2": "jumping",
        "s4ac761d_clip_3": "walking",
    }
    assert row["similarity"] == {} and row["captions"] == {}


def test_pair_view_holds_every_models_answer_per_clip(sample: pd.DataFrame) -> None:
    view = pair_view("sf7026ba", sample)
    assert [c.clip_id for c in view.clips] == ["sf7026ba_clip_1", "sf7026ba_clip_2"]
    assert [c.action for c in view.clips] == ["walking", "running"]
    assert view.models == ("balanced", "yes-biased")
    # 2 bqa questions x 2 clips + 2 mcq clips = 6 (question, clip) rows, each answered by 2 models
    assert len(view.answers) == 12 and set(view.answers["model"]) == {"balanced", "yes-biased"}
    first = view.answers[
        (view.answers["task"] == "bqa")
        & (view.answers["question_index"] == 0)
        & (view.answers["clip_id"] == "sf7026ba_clip_1")
    ]
    # balanced.json answers null there: the official scorer counts it wrong
    assert first.set_index("model")["raw_answer"].isna().to_dict() == {"balanced": True, "yes-biased": False}
    grid = answer_grid(view)
    assert len(grid) == 6 and list(grid.columns[:6]) == [
        "task",
        "question_index",
        "clip_id",
        "question",
        "options",
        "gold",
    ]
    mcq = grid[(grid["task"] == "mcq") & (grid["clip_id"] == "sf7026ba_clip_2")].iloc[0]
    assert (mcq["gold"], mcq["balanced"], bool(mcq["balanced correct"])) == ("C", "C. running", True)
    with pytest.raises(KeyError):
        pair_view("no-such-pair", sample)


def test_a_gold_only_pair_keeps_its_questions_without_models(sample: pd.DataFrame) -> None:
    gold_only = sample[sample["model"].astype(str) == ""]
    view = pair_view("s208d8d2", gold_only)
    assert view.models == () and set(view.answers["model"]) == {""}
    assert len(view.answers) == 3 * 3 + 3  # 3 bqa questions x 3 clips, 3 mcq clips
    assert list(answer_grid(view).columns) == [
        "task",
        "question_index",
        "clip_id",
        "question",
        "options",
        "gold",
    ]


def _mcq(clips: dict[str, dict[str, Any]]) -> dict[str, Any]:
    base = {
        "Question": "What is the person doing?",
        "Choices": {"A": "sitting", "B": "running", "C": "eating", "D": "swimming"},
        "Correct Answer": "B",
    }
    return {clip: {**base, **fields} for clip, fields in clips.items()}


def test_similarity_scores_and_captions_when_the_data_has_them(tmp_path: Path) -> None:
    mcq = tmp_path / "ach_mcq.json"
    mcq.write_text(
        json.dumps(
            {
                "g1": _mcq(
                    {
                        "g1_clip_1": {
                            "clip_similarity": 0.93,
                            "dinov2_similarity": 0.41,
                            "caption": " A run. ",
                        },
                        "g1_clip_2": {"clip_similarity": 0.93, "dinov2_similarity": 0.38},
                    }
                ),
                "g2": _mcq({"g2_clip_1": {}, "g2_clip_2": {"note": "not a score", "score_sim": True}}),
            }
        ),
        encoding="utf-8",
    )
    pairs = catalogue(vidhalluc.load_gold([mcq]), similarity={"g2": {"clip": 0.91}}).set_index("pair_id")
    # one value shared by both clips is the pair's score; differing values stay per clip
    assert pairs.loc["g1", "similarity"] == {
        "clip_similarity": 0.93,
        "dinov2_similarity (g1_clip_1)": 0.41,
        "dinov2_similarity (g1_clip_2)": 0.38,
    }
    assert pairs.loc["g1", "captions"] == {"g1_clip_1": "A run."}
    assert pairs.loc["g2", "similarity"] == {"clip": 0.91}  # booleans are not scores; given ones are
    assert (pairs.loc["g2", "n_bqa"], pairs.loc["g2", "n_mcq"]) == (0, 2)


def test_no_ach_rows_give_an_empty_catalogue(sample: pd.DataFrame) -> None:
    empty = catalogue(sample[sample["task"].astype(str) == "tsh"])
    assert empty.empty and list(empty.columns) == list(CATALOGUE_COLUMNS)
    assert pair_ids(sample[sample["task"].astype(str) == "tsh"]) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ids_alone_come_in_the_catalogue_s_order(sample: pd.DataFrame, seed: int) -> None:
    # the Pairs tab lists pair_ids() when it is built and opens catalogue() rows later: the same
    # ids in the same order, whatever order the rows come in (shuffled: models before gold,
    # mcq before bqa, tsh rows between)
    shuffled = sample.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    for table in (sample, shuffled):
        assert pair_ids(table) == catalogue(table)["pair_id"].tolist()
    assert pair_ids(shuffled) != pair_ids(sample)  # the order really changed: the check has teeth


@pytest.mark.parametrize(
    "text",
    [
        '{"sim": NaN, "clip": Infinity}',  # json.dumps writes these for float nan / inf; orjson refuses them
        '{"n": 123456789012345678901234567890}',  # beyond 64 bits: orjson refuses, json reads it
        '{"Choices": {"A": "walking"}, "caption": "a man w\\u00e1lks"}',  # what orjson reads itself
    ],
)
def test_clip_records_read_as_json_loads_reads_them(text: str) -> None:
    from analysis.benchmarks.vidhalluc.pairs import _loads

    got, want = _loads(text), json.loads(text)
    assert json.dumps(got) == json.dumps(want)  # NaN != NaN: compared as written
