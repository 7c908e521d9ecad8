"""VidHalluc ACH pairs: which clips form each pair, what the data says of them, every model's answers.

ACH (action hallucination) asks its questions of groups of clips that look different but mean
nearly the same. The group key of ``ach_binaryqa.json`` / ``ach_mcq.json`` is the **pair id**;
its clips are the ``a`` keys of the binary questions and the clip keys of the MCQ group (almost
always two, sometimes three: every clip is then one side). Everything here is pure and works on
item tables as :mod:`analysis.benchmarks.vidhalluc` loads them (``load_gold`` for the questions,
``load`` for each model's answers, stacked with :func:`analysis.table.columns.concat_tables`):

- :func:`catalogue`: one row per pair (the pair list);
- :func:`pair_view`: one pair as shown, its clips, scores, questions and answers;
- :func:`answer_grid`: a pair's answers, one row per (question, clip), one column per model.

What the data may say about a clip: its **action** (the text of the correct MCQ choice or
choices, "walking"; several joined with " / "), and a **caption** (a string field of the MCQ clip
record named like caption / description / action text). **Similarity** scores of a pair (the
CLIP and DINOv2 scores it was selected with) are not in the released files; they are read when a
clip record carries numeric fields whose name mentions similarity, sim, clip or dino, or given
from elsewhere as ``similarity={pair_id: {name: value}}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from analysis.benchmarks.base import ANSWER_COLUMNS, ClipInfo, PairRule, PairSpec, PairView
from analysis.benchmarks.vidhalluc.auditing import detect
from analysis.benchmarks.vidhalluc.mcq import gold_letters
from analysis.benchmarks.vidhalluc.native import write_corrected
from analysis.errors import InputError
from analysis.files.atomic import write_text_atomic
from analysis.files.readers import read_object
from analysis.table.columns import media_paths

ACH_TASKS: tuple[str, ...] = ("bqa", "mcq")
CATALOGUE_COLUMNS: tuple[str, ...] = (
    "pair_id",
    "clips",
    "n_clips",
    "n_bqa",
    "n_mcq",
    "media",
    "actions",
    "captions",
    "similarity",
)
"""Columns of :func:`catalogue`. ``clips`` is a tuple of clip ids in file order; ``media``,
``actions`` and ``captions`` are dicts keyed by clip id; ``similarity`` a dict of name -> score."""


_SIMILARITY = re.compile(r"sim|clip|dino", re.I)
_CAPTION = re.compile(r"caption|description|action", re.I)


def ach_rows(table: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The table's VidHalluc ACH rows (bqa and mcq) that belong to a pair (``columns`` of them only)."""
    # VidHalluc's rows first (one comparison, no text made), then the text tests on those alone
    mine = (table["benchmark"] == "vidhalluc").fillna(False).to_numpy(dtype=bool)
    rows = (table if columns is None else table[list(columns)])[mine]
    keep = (
        rows["task"].astype(str).isin(ACH_TASKS)
        & (rows["pair_id"].astype(str) != "")
        & (rows["side"].astype(str) != "")
    )
    return rows[keep]


_CATALOGUE_READS = ("item_id", "benchmark", "task", "pair_id", "side", "gold", "extra", "media")
"""The columns :func:`catalogue` reads (taking the rows of every column copied a million-row table)."""


def pair_ids(table: pd.DataFrame) -> list[str]:
    """The ACH pairs' ids in :func:`catalogue`'s order (the first row of each), without the rest.

    What the Pairs tab lists when it is built: a tenth of the catalogue's time at a million rows.
    """
    rows = ach_rows(table, ("task", "pair_id", "side"))
    return _texts(rows["pair_id"].drop_duplicates())


def catalogue(
    table: pd.DataFrame, *, similarity: Mapping[str, Mapping[str, float]] | None = None
) -> pd.DataFrame:
    """One row per ACH pair, in file order: columns :data:`CATALOGUE_COLUMNS`."""
    rows = ach_rows(table, _CATALOGUE_READS).drop_duplicates("item_id")
    if rows.empty:
        return pd.DataFrame(columns=list(CATALOGUE_COLUMNS))
    members: dict[str, list[str]] = {}
    firsts = rows.drop_duplicates(["pair_id", "side"])
    for pair, clip in zip(_texts(firsts["pair_id"]), _texts(firsts["side"]), strict=True):
        members.setdefault(pair, []).append(clip)
    mcq = rows[rows["task"].astype(str) == "mcq"]
    records = _records(mcq["extra"])  # each MCQ clip record parsed once, for actions and scores
    described = _describe_clips(mcq, records)
    bqa = rows[rows["task"].astype(str) == "bqa"]
    n_bqa = _question_index(bqa).groupby(bqa["pair_id"].astype(str)).nunique()
    n_mcq = mcq.groupby(mcq["pair_id"].astype(str))["side"].nunique()
    lasts = rows.drop_duplicates("side", keep="last")  # a clip's path: its last row's, as a dict keeps
    media = dict(zip(_texts(lasts["side"]), _video_paths(lasts["media"]), strict=True))
    out = pd.DataFrame({"pair_id": list(members)})
    out["clips"] = pd.Series([tuple(c) for c in members.values()], dtype=object)
    out["n_clips"] = out["clips"].map(len)
    out["n_bqa"] = out["pair_id"].map(n_bqa).fillna(0).astype(int)
    out["n_mcq"] = out["pair_id"].map(n_mcq).fillna(0).astype(int)
    out["media"] = out["clips"].map(lambda cs: {c: media.get(c, f"{c}.mp4") for c in cs})
    out["actions"] = out["clips"].map(lambda cs: {c: described[c][0] for c in cs if c in described})
    out["captions"] = out["clips"].map(
        lambda cs: {c: described[c][1] for c in cs if c in described and described[c][1]}
    )
    scores = _pair_similarity(mcq, records, similarity or {})
    out["similarity"] = out["pair_id"].map(lambda p: scores.get(p, {}))
    return out[list(CATALOGUE_COLUMNS)].reset_index(drop=True)


def pair_view(
    pair_id: str, table: pd.DataFrame, *, similarity: Mapping[str, Mapping[str, float]] | None = None
) -> PairView:
    """Everything the pair view shows of ``pair_id``; KeyError when the table has no such pair."""
    rows = ach_rows(table)
    rows = rows[rows["pair_id"].astype(str) == pair_id]
    if rows.empty:
        raise KeyError(f"no ACH pair {pair_id!r} in the table")
    entry = catalogue(rows, similarity=similarity).iloc[0]
    clips = tuple(
        ClipInfo(c, entry["media"][c], entry["actions"].get(c, ""), entry["captions"].get(c, ""))
        for c in entry["clips"]
    )
    answers = pair_answers(rows)
    models = tuple(sorted(m for m in answers["model"].unique() if m))
    return PairView(pair_id, clips, dict(entry["similarity"]), models, answers)


def pair_answers(rows: pd.DataFrame) -> pd.DataFrame:
    """Questions and answers of ACH rows as :data:`ANSWER_COLUMNS`, questions in file order.

    A question present only in a gold table keeps one row with an empty ``model``; a question
    answered by some model appears once per model that answered it.
    """
    rows = ach_rows(rows)
    out = pd.DataFrame(
        {
            "task": rows["task"].astype(str),
            "question_index": _question_index(rows),
            "question": rows["question"].astype(str),
            "options": rows["options"].astype(str),
            "clip_id": rows["side"].astype(str),
            "gold": rows["gold"].astype(str),
            "item_id": rows["item_id"].astype(str),
            "model": rows["model"].astype(str),
            "raw_answer": rows["raw_answer"],
            "parsed": rows["parsed"],
            "correct": rows["correct"],
            "alt_parsed": rows["alt_parsed"],
            "alt_correct": rows["alt_correct"],
        }
    )
    answered = set(out.loc[out["model"] != "", "item_id"])
    out = out[(out["model"] != "") | ~out["item_id"].isin(answered)].drop_duplicates(["item_id", "model"])
    order = {item: n for n, item in enumerate(dict.fromkeys(out["item_id"]))}
    out = out.assign(_order=out["item_id"].map(order)).sort_values(["_order", "model"], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)[list(ANSWER_COLUMNS)]


def answer_grid(view: PairView) -> pd.DataFrame:
    """One row per (task, question, clip) with the gold, then each model's raw answer and verdict.

    Model columns are ``<model>`` (the raw answer, None when absent) and ``<model> correct``.
    """
    answers = view.answers
    keys = ["task", "question_index", "clip_id"]
    grid = answers.drop_duplicates(keys)[[*keys, "question", "options", "gold"]].reset_index(drop=True)
    for model in view.models:
        mine = answers[answers["model"] == model].set_index(keys)
        index = pd.MultiIndex.from_frame(grid[keys])
        grid[model] = mine["raw_answer"].reindex(index).to_numpy()
        grid[f"{model} correct"] = mine["correct"].reindex(index).to_numpy()
    return grid


def _loads(text: str) -> Any:
    """``json.loads``, at orjson's speed for the texts orjson reads the same way.

    orjson refuses NaN and Infinity (which ``json.dumps`` writes) and reads an integer too long
    for 64 bits as a float: texts with 19 digits in a row go to ``json.loads``, like those refused.
    """
    if _LONG_DIGITS.search(text):
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


_LONG_DIGITS = re.compile(r"\d{19}")


def _texts(column: pd.Series) -> list[str]:
    """A column as Python strings, in one conversion (iterating an Arrow-backed column is 20x slower)."""
    return column.astype(str).tolist()


def _records(extras: pd.Series) -> list[dict[str, Any]]:
    """The JSON objects of an ``extra`` column ({} where empty)."""
    return [_loads(e) if e else {} for e in _texts(extras)]


def _question_index(rows: pd.DataFrame) -> pd.Series:
    """``question_index`` of bqa rows from ``extra``; 0 for MCQ (one question per clip)."""
    values = [
        int(_loads(e).get("question_index", 0)) if t == "bqa" and e else 0
        for t, e in zip(_texts(rows["task"]), _texts(rows["extra"]), strict=True)
    ]
    return pd.Series(values, index=rows.index, dtype="int64")


def _video_paths(media: pd.Series) -> list[str]:
    return [media_paths(text).get("video", "") for text in _texts(media)]


def _describe_clips(mcq: pd.DataFrame, records: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Per clip: (action text from the correct choices, caption) from MCQ rows and their records."""
    out: dict[str, tuple[str, str]] = {}
    for clip, gold, record in zip(_texts(mcq["side"]), _texts(mcq["gold"]), records, strict=True):
        choices = record.get("Choices") or {}
        action = " / ".join(str(choices[k]) for k in sorted(gold_letters(gold)) if k in choices)
        caption = next(
            (
                v.strip()
                for k, v in record.items()
                if k != "Choices" and isinstance(v, str) and _CAPTION.search(k) and v.strip()
            ),
            "",
        )
        out.setdefault(clip, (action, caption))
    return out


def _pair_similarity(
    mcq: pd.DataFrame, records: Sequence[dict[str, Any]], given: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """Per pair, {score name: value}: numeric clip-record fields, then ``given`` on top."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for pair, clip, record in zip(_texts(mcq["pair_id"]), _texts(mcq["side"]), records, strict=True):
        for key, value in record.items():
            if _SIMILARITY.search(key) and isinstance(value, (int, float)) and not isinstance(value, bool):
                found.setdefault(pair, {}).setdefault(key, {})[clip] = float(value)
    out: dict[str, dict[str, float]] = {}
    for pair, names in found.items():
        for name, per_clip in names.items():
            values = set(per_clip.values())
            if len(values) == 1:  # a pair-level score repeated on each clip record
                out.setdefault(pair, {})[name] = values.pop()
            else:
                out.setdefault(pair, {}).update({f"{name} ({c})": v for c, v in per_clip.items()})
    for pair, scores in given.items():
        out.setdefault(str(pair), {}).update({str(k): float(v) for k, v in scores.items()})
    return out


PAIR_TASKS: tuple[str, ...] = ("bqa", "mcq")
"""Gold files that hold ACH pairs (tsh and sth have none)."""
GOLD_NAMES: tuple[str, ...] = ("ach_binaryqa.json", "ach_mcq.json")
"""The released names of the gold files holding the ACH pairs."""


def filter_gold(
    source: Path, keep: Collection[str], target: Path, corrected: Mapping[str, str]
) -> tuple[str, int]:
    """A copy of ``ach_binaryqa.json`` or ``ach_mcq.json`` holding only the pairs in ``keep``.

    ``corrected`` (item id -> gold) is written in first (the package's own corrected-file writer);
    each kept group is copied as the file has it (order, every field). Returns the file's task and
    the groups written; ``target`` must not be ``source``.
    """
    data = read_object(source)
    task = detect(source, data)
    if task not in PAIR_TASKS:
        raise InputError(
            source,
            f"holds VidHalluc {task}, which has no ACH pairs (expected ach_binaryqa.json or ach_mcq.json)",
        )
    if corrected:
        text = write_corrected(source, corrected)
        data = json.loads(text) if text is not None else data
    if target.resolve() == source.resolve():
        raise InputError(target, "refusing to overwrite the benchmark's own gold file")
    wanted = set(keep)
    kept = {group: value for group, value in data.items() if group in wanted}
    write_text_atomic(target, json.dumps(kept, indent=2, ensure_ascii=False) + "\n")
    return task, len(kept)


PAIRS = PairSpec(
    title="VidHalluc pairs",
    key_prefix="ach",
    catalogue=catalogue,
    ids=pair_ids,
    view=pair_view,
    answer_grid=answer_grid,
    gold_names=GOLD_NAMES,
    filter_gold=filter_gold,
    export_stem="vidhalluc_pairs",
    kept_name="vidhalluc_kept_ach.zip",
    rule=PairRule(
        0.9, 0.6, "VidHalluc (CVPR 2025), section 3: CLIP similarity > 0.9, DINOv2 similarity < 0.6"
    ),
)
"""ACH's clip pairs, validated by hand as the paper did (``docs/review.md``)."""
