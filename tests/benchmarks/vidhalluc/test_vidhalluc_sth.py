"""VidHalluc STH: classification (MCC) and description scores, with a stand-in embedder (no torch)."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc import sth
from analysis.benchmarks.vidhalluc.embedder import SIMCSE_ENV, SentenceEmbedder

GOLD = {
    "v1": {"Scene change": "Yes", "Locations": "from kitchen to garden."},
    "v2": {"Scene change": "Yes", "Locations": "from street to shop."},
    "v3": {"Scene change": "No", "Locations": "None"},
    "v4": {"Scene change": "No", "Locations": None},
    "v5": {"Scene change": "Yes", "Locations": "from hall to roof."},  # no prediction
}
PRED = {
    "v1": "Scene change: Yes, Locations: from kitchen to garden.",
    "v2": "Scene change: Yes, Locations: somewhere",
    "v3": "Scene change: No, Locations: None",
    "v4": "Scene change: Yes, Locations: from a to b.",
    "v9": "Scene change: No",  # not in gold
}


class TableEmbedder:
    """Vectors from a dict; unknown sentences get [len, 1]. Records what it was asked."""

    def __init__(self, vectors: dict[str, list[float]] | None = None) -> None:
        self.vectors = vectors or {}
        self.asked: list[str] = []

    def embed(self, sentences: list[str]) -> npt.NDArray[np.float32]:
        self.asked.extend(sentences)
        rows = [self.vectors.get(s, [float(len(s)), 1.0]) for s in sentences]
        return np.asarray(rows, dtype=np.float32)


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def table(tmp_path: Path) -> Any:
    return vidhalluc.load(
        write(tmp_path, "gpt4o_sth.json", PRED), gold=write(tmp_path, "sth.json", GOLD), task="sth"
    )


def test_rows_and_skips(table: Any) -> None:
    assert table["side"].tolist() == [""] * 6
    assert table["scored"].tolist() == [True, True, True, True, False, False]
    assert table["skip_reason"].tolist()[4:] == ["id not in the gold file", "no prediction for this id"]
    assert table["parsed"].tolist()[:5] == ["yes", "yes", "no", "yes", "no"]
    assert table["correct"].tolist()[:4] == [True, True, True, False]
    assert json.loads(table["extra"].iloc[0]) == {
        "gold_locations": "from kitchen to garden.",
        "locations": "from kitchen to garden.",
        "alt_locations": "from kitchen to garden.",
    }
    assert isinstance(sth.PROMPT, str) and (table["question"] == sth.PROMPT).all()


def test_hand_sized_score(table: Any) -> None:
    embedder = TableEmbedder()
    report = vidhalluc.score(table, task="sth", embedder=embedder)
    # gold yes [v1 T, v2 T, v3 F, v4 F], predicted yes [T, T, F, T]: TP 2, FN 0, TN 1, FP 1
    # MCC = (2*1 - 1*0) / sqrt((2+1)(2+0)(1+1)(1+0)) = 2 / sqrt(12) = 0.5773502691896258
    mcc = 2 / math.sqrt(12)
    classification = ((mcc + 1) / 2) ** 2  # 0.6220084679281462
    # both yes: v1 (identical locations: each side cosine 1 -> side score 1) and v2 ("somewhere" does
    # not match "from X to Y." -> 0, still counted): description = (1 + 1 + 0 + 0) / (2 x 2) = 0.5
    overall = report["overall"]
    assert overall["mcc"] == pytest.approx(mcc, abs=1e-15)
    assert overall["classification_score"] == pytest.approx(classification, abs=1e-15)
    assert overall["description_score"] == pytest.approx(0.5, abs=1e-6)
    assert overall["score"] == pytest.approx(0.6 * classification + 0.4 * 0.5, abs=1e-6)
    assert overall["n"] == 4
    assert list(overall) == ["mcc", "classification_score", "description_score", "score", "n"]
    assert report["n_scored"] == 4 and report["n_skipped"] == 2  # v9 (not in gold), v5 (no prediction)
    # only v1's two sides needed vectors, each sentence embedded once
    assert sorted(embedder.asked) == ["garden", "kitchen"]


def test_side_scores_follow_the_sigmoid_rule(tmp_path: Path) -> None:
    gold = write(tmp_path, "sth.json", {"v": {"Scene change": "Yes", "Locations": "from kitchen to garden."}})
    pred = write(tmp_path, "p.json", {"v": "Scene change: Yes, Locations: from the kitchen to a garden."})
    embedder = TableEmbedder(
        {"kitchen": [1, 0], "the kitchen": [0.8, 0.6], "garden": [1, 0], "a garden": [0, 1]}
    )
    report = vidhalluc.score(vidhalluc.load(pred, gold=gold, task="sth"), task="sth", embedder=embedder)

    def sig(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    # from-side cosine 0.8 -> (sig(0.8) - sig(0.5)) / (sig(1) - sig(0.5)) = 0.6216...; to-side cosine 0 -> 0
    side = (sig(0.8) - sig(0.5)) / (sig(1) - sig(0.5))
    assert report["overall"]["description_score"] == pytest.approx(side / 2, rel=1e-6)
    assert sth.side_score(0.5) == 0.0 and sth.side_score(0.3) == 0.0 and sth.side_score(1.0) == 1.0
    assert sth.side_score(0.5000001) > 0


def test_no_embedder_gives_null_and_says_why(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="halluscope.vidhalluc"):
        report = vidhalluc.score(table, task="sth", embedder=None)
    overall = report["overall"]
    assert overall["description_score"] is None and overall["score"] is None
    assert overall["mcc"] == pytest.approx(2 / math.sqrt(12))
    assert list(overall) == ["mcc", "classification_score", "description_score", "score", "n"]
    assert "no sentence embedder" in caplog.text


def test_auto_embedder_unavailable(
    table: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(SIMCSE_ENV, str(tmp_path / "no-such-model"))
    with caplog.at_level(logging.WARNING, logger="halluscope.vidhalluc"):
        report = vidhalluc.score(table, task="sth")
    assert report["overall"]["description_score"] is None
    assert "no model folder" in caplog.text


def test_description_needs_no_embedder_when_nothing_to_embed(tmp_path: Path) -> None:
    gold = write(
        tmp_path,
        "sth.json",
        {
            "a": {"Scene change": "Yes", "Locations": "from x to y."},
            "b": {"Scene change": "No", "Locations": "None"},
        },
    )
    pred = write(tmp_path, "p.json", {"a": "Scene change: Yes, Locations: nowhere", "b": "Scene change: No"})
    report = vidhalluc.score(vidhalluc.load(pred, gold=gold, task="sth"), task="sth", embedder=None)
    # MCC 1 -> classification 1; the one both-yes id has no "from X to Y." -> description 0 / 2 = 0
    assert report["overall"] == {
        "mcc": 1.0,
        "classification_score": 1.0,
        "description_score": 0.0,
        "score": 0.6,
        "n": 2,
    }


def test_mcc_zero_when_undefined_and_when_empty(tmp_path: Path) -> None:
    gold = write(tmp_path, "sth.json", {"a": {"Scene change": "No", "Locations": "None"}})
    pred = write(tmp_path, "p.json", {"a": "Scene change: No"})
    report = vidhalluc.score(vidhalluc.load(pred, gold=gold, task="sth"), task="sth", embedder=None)
    # one class only: MCC undefined -> 0 (scikit-learn's convention) -> classification 0.25; no both-yes -> 0
    assert report["overall"] == {
        "mcc": 0.0,
        "classification_score": 0.25,
        "description_score": 0.0,
        "score": 0.15,
        "n": 1,
    }
    empty = vidhalluc.score(vidhalluc.load(write(tmp_path, "e.json", {}), gold=gold, task="sth"), task="sth")
    # nothing to score: MCC 0 by the contract (was null), so ((0 + 1) / 2)^2 = 0.25; no both-yes -> 0;
    # 0.6 x 0.25 + 0.4 x 0 = 0.15
    assert empty["overall"] == {
        "mcc": 0.0,
        "classification_score": 0.25,
        "description_score": 0.0,
        "score": 0.15,
        "n": 0,
    }
    assert empty["n_skipped"] == 1


def test_lenient_parser_rescues_descriptions(tmp_path: Path) -> None:
    gold = write(
        tmp_path,
        "sth.json",
        {
            "a": {"Scene change": "Yes", "Locations": "from x to y."},
            "b": {"Scene change": "No", "Locations": "None"},
        },
    )
    pred = write(tmp_path, "p.json", {"a": "Scene change:Yes, Locations: from x to y", "b": "No"})
    table = vidhalluc.load(pred, gold=gold, task="sth")
    official = vidhalluc.score(table, task="sth", embedder=TableEmbedder())["overall"]
    lenient = vidhalluc.score(table, task="sth", parser="lenient", embedder=TableEmbedder())["overall"]
    # official: "Scene change:Yes" is not yes -> both no -> MCC 0, no description -> 0.6 x 0.25 = 0.15
    assert official["score"] == pytest.approx(0.15)
    # lenient: a yes, b no -> MCC 1; "from x to y." identical to gold -> description 1 -> score 1
    assert lenient["mcc"] == 1.0 and lenient["description_score"] == pytest.approx(1.0, abs=1e-6)


def test_table_embedder_is_a_sentence_embedder() -> None:
    assert isinstance(TableEmbedder(), SentenceEmbedder)
