"""VidHalluc STH (scene transition): whether the scene changes, and from where to where.

Gold ``sth.json`` ``{video_id: {"Scene change": "Yes"|"No", "Locations": "from X to Y."}}``;
predictions ``{video_id: "Scene change: Yes, Locations: from A to B."}``. The score mixes a yes/no
classification (MCC) and a description similarity computed with a sentence embedder.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.shared.yesno import first_word
from analysis.benchmarks.vidhalluc.common import (
    GOLD_ONLY,
    by_distinct,
    expect,
    field,
    make_id,
    make_ids,
    mask_unscored,
    nullable,
    read_extra,
    table,
    videos,
)
from analysis.benchmarks.vidhalluc.embedder import SIMCSE_ENV, SentenceEmbedder, cosine, load_simcse
from analysis.files.readers import read_object
from analysis.stats.metrics import MetricDict, mcc

TASK = "sth"
PROMPT = (
    "Watch the given video and determine if a scene change occurs. If no change occurs, respond: "
    "'Scene change: No, Locations: None'. If there is a scene change, respond in the format: "
    "'Scene change: Yes, Locations: from [location1] to [location2].'"
)
"""The prompt of the official inference script, shown as the question."""

LOW = 0.5
"""Cosine at or below which a side scores 0 (the official script passes 0.5)."""

log = logging.getLogger("halluscope.vidhalluc")
Auto = Literal["auto"]
Reading = tuple[bool, str | None, str]
"""(predicted yes, the ``parsed`` word or None, the locations text)."""


def item_id(video_id: str) -> str:
    """Id of one STH video."""
    return make_id(TASK, video_id)


def official(raw: str | None) -> Reading:
    """Split at the first ``", Locations: "``; the scene word follows the first ``": "``, up to a comma.

    Predicted yes iff that word, lower-cased, is ``yes``; anything else is no.
    """
    text = raw or ""
    if ", Locations: " in text:
        scene_part, locations = text.split(", Locations: ", 1)
        locations = locations.strip()
    else:
        scene_part, locations = text, ""
    scene = scene_part.split(": ", 1)[-1].split(",")[0].strip()
    yes = scene.lower() == "yes"
    return yes, "yes" if yes else "no", locations


_SCENE = re.compile(r"scene[\s_-]*change\W{0,4}?\s*(yes|no)\b", re.I)
_LABEL = re.compile(r"\blocations?\b\W*", re.I)
_FROM_TO = re.compile(r"\bfrom\s+(.+?)\s+to\s+(.+?)\s*(?:[.;\n]|$)", re.I)
_EDGE = " \t*\"'`_"


def lenient(raw: str | None) -> Reading:
    """A tolerant reading.

    Scene: a "scene change ... yes/no" label anywhere (any case, any separator, markdown), else the
    first word yes/no, else yes when a "from X to Y" transition is described; otherwise unparsed
    (counted as no, as the official scorer counts anything that is not "yes"). Locations: the first
    "from X to Y" after a "Locations" label (or anywhere without one), ending at a full stop, a
    semicolon, a line end or the end of the text, rewritten as ``"from X to Y."`` so the official
    description rule can read it.
    """
    text = raw or ""
    label = _LABEL.search(text)
    found = _FROM_TO.search(text, label.end() if label else 0) or _FROM_TO.search(text)
    locations = ""
    if found:
        start, end = found.group(1).strip(_EDGE), found.group(2).strip(_EDGE)
        locations = f"from {start} to {end}." if start and end else ""
    scene = _SCENE.search(text)
    word = scene.group(1).lower() if scene else {1: "yes", 0: "no"}.get(first_word(text))
    if word is None and locations:
        word = "yes"
    return word == "yes", word, locations


PARSE = {"official": official, "lenient": lenient}


def gold_yes(gold: str, parser: str) -> bool:
    """Official: ``Scene change`` lower-cased equals ``yes`` (not stripped); lenient strips."""
    return (gold.strip() if parser != "official" else gold).lower() == "yes"


_SCENES = re.compile(r"from (.+?) to (.+?)\.", re.I)


def scenes(sentence: str) -> tuple[str, str] | None:
    r"""``re.match(r"from (.+?) to (.+?)\.", s, re.I)``, captures stripped; None if either is empty."""
    found = _SCENES.match(sentence)
    if not found:
        return None
    start, end = found.group(1).strip(), found.group(2).strip()
    return (start, end) if start and end else None


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def side_score(similarity: float) -> float:
    """0 at or below 0.5, else (sigmoid(s) - sigmoid(0.5)) / (sigmoid(1) - sigmoid(0.5))."""
    if similarity <= LOW:
        return 0.0
    return (_sigmoid(similarity) - _sigmoid(LOW)) / (_sigmoid(1) - _sigmoid(LOW))


def pair_scores(pairs: list[tuple[str, str]], embedder: SentenceEmbedder | None) -> list[float] | None:
    """Per (model locations, gold locations) pair, the sum of its two side scores.

    A missing or non-matching description scores 0. None only when some side needs an embedding
    and ``embedder`` is None: the numbers would depend on it.
    """
    jobs: list[tuple[int, tuple[str, str], tuple[str, str]]] = []
    for i, (model_text, gold_text) in enumerate(pairs):
        model_scenes = scenes(model_text) if model_text else None
        gold_scenes = scenes(gold_text) if gold_text else None
        if model_scenes and gold_scenes:
            jobs.append((i, (model_scenes[0], gold_scenes[0]), (model_scenes[1], gold_scenes[1])))
    out = [0.0] * len(pairs)
    if not jobs:
        return out
    if embedder is None:
        return None
    texts = list(dict.fromkeys(t for job in jobs for side in job[1:] for t in side))
    vectors = np.asarray(embedder.embed(texts))
    row = {text: vectors[i] for i, text in enumerate(texts)}
    for i, (m_from, g_from), (m_to, g_to) in jobs:
        out[i] = side_score(cosine(row[m_from], row[g_from])) + side_score(cosine(row[m_to], row[g_to]))
    return out


def description(pairs: list[tuple[str, str]], embedder: SentenceEmbedder | None) -> float | None:
    """Mean side score over ``2 x len(pairs)`` sides (0 when there are no pairs).

    The sum is ``math.fsum`` (correctly rounded): the same whichever order pairs come in, so the
    bootstrap's per-video sums give exactly this number.
    """
    scores = pair_scores(pairs, embedder)
    if scores is None:
        return None
    return math.fsum(scores) / (2 * len(pairs)) if pairs else 0.0


@functools.lru_cache(maxsize=4)
def _default_embedder(env_value: str) -> tuple[SentenceEmbedder | None, str | None]:
    return load_simcse(None)


def default_embedder() -> tuple[SentenceEmbedder | None, str | None]:
    """SimCSE from local files, loaded once per value of ``HALLUSCOPE_SIMCSE_PATH``."""
    return _default_embedder(os.environ.get(SIMCSE_ENV, ""))


def verdicts(frame: pd.DataFrame, parser: str) -> tuple[list[str | None], list[bool], list[bool], list[str]]:
    """Per row: the parsed word, the classification verdict, predicted yes, and the locations."""
    readings: list[Reading] = by_distinct(nullable(frame["raw_answer"].tolist()), PARSE[parser])
    golds = [gold_yes(g, parser) for g in frame["gold"].astype(str)]
    pred_yes = [r[0] for r in readings]
    correct = [p == g for p, g in zip(pred_yes, golds, strict=True)]
    return [r[1] for r in readings], correct, pred_yes, [r[2] for r in readings]


def read_gold(path: Path) -> dict[str, Any]:
    """Read and check ``sth.json``."""
    data = read_object(path)
    check_gold(path, data)
    return data


def check_gold(path: Path, data: dict[str, Any]) -> None:
    """Each id an object with a string ``Scene change`` and a string (or null) ``Locations``."""
    for key, record in data.items():
        where = f"video {key!r}"
        expect(path, record, (dict,), record=where)
        field(path, record, "Scene change", record=where)
        field(path, record, "Locations", record=where, optional=True)


def load(predictions: Path, gold_path: Path, model: str) -> pd.DataFrame:
    """Ids in both files are scored (in prediction order); ids in one file only stay unscored."""
    gold = read_gold(gold_path)
    pred = read_object(predictions)
    for key, raw in pred.items():
        if raw is not None:  # a null answer reads as empty (the official script would stop on it)
            expect(predictions, raw, (str,), record=f"video {key!r}")
    keys = [k for k in pred if k in gold] + [k for k in pred if k not in gold]
    keys += [k for k in gold if k not in pred]
    reasons = [
        ""
        if k in gold and k in pred
        else "id not in the gold file"
        if k in pred
        else "no prediction for this id"
        for k in keys
    ]
    return _table(keys, reasons, gold, pred, predictions, gold_path, model)


def load_gold(path: Path, data: dict[str, Any]) -> pd.DataFrame:
    """Gold alone, for browsing."""
    check_gold(path, data)
    return _table(list(data), [GOLD_ONLY] * len(data), data, {}, path, path, "")


def _table(
    keys: list[str],
    reasons: list[str],
    gold: dict[str, Any],
    pred: dict[str, Any],
    pred_path: Path,
    gold_path: Path,
    model: str,
) -> pd.DataFrame:
    raws = [pred.get(k) for k in keys]
    gold_records = [gold.get(k) or {} for k in keys]
    cols = {
        "item_id": make_ids(TASK, keys),
        "question": PROMPT,
        "gold": [r.get("Scene change", "") for r in gold_records],
        "raw_answer": raws,
        "scored": [not r for r in reasons],
        "skip_reason": reasons,
        "media": videos(keys),
        "source": [
            f"{pred_name if k in pred else gold_name}:video {k!r}"
            for pred_name, gold_name in ((pred_path.name, gold_path.name),)
            for k in keys
        ],
        "extra": [
            json.dumps(
                {
                    "gold_locations": r.get("Locations"),
                    "locations": official(raw)[2],
                    "alt_locations": lenient(raw)[2],
                },
                ensure_ascii=False,
            )
            for r, raw in zip(gold_records, raws, strict=True)
        ],
    }
    frame = table(cols, task=TASK, model=model, n=len(keys))
    scored = frame["scored"].tolist()
    # Unscored rows still show the reading of an answer they hold (ids missing from the gold file).
    shown = [s or raw is not None for s, raw in zip(scored, raws, strict=True)]
    for parser, (p_col, c_col) in {
        "official": ("parsed", "correct"),
        "lenient": ("alt_parsed", "alt_correct"),
    }.items():
        parsed, correct, _, _ = verdicts(frame, parser)
        frame[p_col] = pd.Series(mask_unscored(parsed, shown), dtype="string")
        frame[c_col] = pd.Series(mask_unscored(correct, scored), dtype="boolean")
    return frame


@dataclass(frozen=True)
class Parts:
    """What every STH metric is computed from, per scored row."""

    pred_yes: npt.NDArray[np.bool_]
    gold_yes: npt.NDArray[np.bool_]
    pair_score: npt.NDArray[np.float64] | None
    """Per row, its two side scores summed where gold and prediction are both yes (else 0); None
    when the description needs an embedder that is not available."""
    rows: pd.DataFrame
    skipped: int


def parts(frame: pd.DataFrame, parser: str, embedder: SentenceEmbedder | Auto | None) -> Parts:
    """Readings, gold and description scores of the scored rows of ``frame``."""
    scored = frame["scored"].to_numpy(dtype=bool)
    rows = frame[scored]
    _, _, pred_yes, locations = verdicts(rows, parser)
    golds = np.array([gold_yes(g, parser) for g in rows["gold"].astype(str)], dtype=bool)
    pred = np.asarray(pred_yes, dtype=bool)
    gold_locations = [e.get("gold_locations") or "" for e in read_extra(rows)]
    both = np.flatnonzero(pred & golds)
    pairs = [(locations[i], gold_locations[i]) for i in both.tolist()]
    scores = _pair_scores(pairs, embedder)
    pair_score = None
    if scores is not None:
        pair_score = np.zeros(len(rows), dtype=float)
        pair_score[both] = scores
    return Parts(pred, golds, pair_score, rows, int((~scored).sum()))


def overall(
    frame: pd.DataFrame, parser: str, embedder: SentenceEmbedder | Auto | None
) -> tuple[MetricDict, int, int]:
    """``mcc classification_score description_score score n``; also (n, skipped ids)."""
    p = parts(frame, parser, embedder)
    n = int(p.gold_yes.size)
    # n == 0 (the official script stops there) follows the stated conventions: MCC 0 when
    # undefined (cli.md), so classification 0.25; description 0 with no both-yes id; score 0.15.
    corr = mcc(p.pred_yes, p.gold_yes)
    classification = ((corr + 1) / 2) ** 2
    n_both = int(np.count_nonzero(p.pred_yes & p.gold_yes))
    desc = None
    if p.pair_score is not None:
        desc = math.fsum(p.pair_score.tolist()) / (2 * n_both) if n_both else 0.0
    score = None if desc is None else classification * 0.6 + desc * 0.4
    metrics: MetricDict = {
        "mcc": corr,
        "classification_score": classification,
        "description_score": desc,
        "score": score,
        "n": n,
    }
    return metrics, n, p.skipped


def _pair_scores(
    pairs: list[tuple[str, str]], embedder: SentenceEmbedder | Auto | None
) -> list[float] | None:
    # Try without an embedder first: when no side needs one, the number does not depend on it and
    # SimCSE (seconds to load) is never touched.
    scores = pair_scores(pairs, None)
    if scores is not None:
        return scores
    reason = "no sentence embedder was given"
    if embedder == "auto":
        embedder, reason_found = default_embedder()
        reason = reason_found or reason
    if embedder is None or isinstance(embedder, str):
        log.warning("STH description_score and score are null: %s", reason)
        return None
    return pair_scores(pairs, embedder)
