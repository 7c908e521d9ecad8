"""DetailVerifyBench rescoring against corrected tags, and the columns its charts read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.base import Bools
from analysis.benchmarks.detailverifybench.batch import tokenize_texts
from analysis.benchmarks.detailverifybench.columns import may_hold_labels
from analysis.benchmarks.detailverifybench.label_types import corrected_entries
from analysis.benchmarks.detailverifybench.scoring import (
    compare,
    compare_prepared,
    prepare,
    token_f1_of_flags,
    usable_flags,
)
from analysis.benchmarks.detailverifybench.tags import split_types
from analysis.benchmarks.shared.corrected import set_verdicts


def rescore(out: pd.DataFrame, rows: Bools, _labels: Mapping[str, str], alt_parser: str) -> None:
    """The token flags (``parsed`` / ``alt_parsed``) and exact-match verdicts of the new gold.

    A new gold is a label store's spelling: its tags may name label types (:mod:`.tags`). The
    table gets the official tags, and the row's ``hallucination_labels`` (where ``extra`` holds
    them) become :func:`.label_types.corrected_entries`, the entries the export writes.
    """
    _official_tags(out, rows)
    sel = rows & out["scored"].to_numpy(dtype=bool)
    if not sel.any():
        return
    golds = out["gold"][sel].fillna("").astype(str).tolist()
    preds = out["raw_answer"][sel].fillna("").astype(str).tolist()
    prepared = prepare(golds, preds)
    for parsed_col, correct_col, parser in (
        ("parsed", "correct", "official"),
        ("alt_parsed", "alt_correct", alt_parser),
    ):
        result = compare_prepared(prepared, parser)
        parsed = out[parsed_col].array.copy()
        parsed[sel] = pd.array(list(result.flags), dtype="string")
        out[parsed_col] = parsed
        set_verdicts(out, correct_col, sel, [bool(x) for x in result.exact])


def _official_tags(out: pd.DataFrame, rows: Bools) -> None:
    """Rows ``rows``' gold with official tags only, and their label entries rebuilt from the types."""
    at = np.flatnonzero(rows)
    if not at.size:
        return
    values = out["gold"].iloc[at].tolist()
    holds = may_hold_labels(out["extra"], at)
    gold = out["gold"].array.copy()
    extra = out["extra"].astype("string").array.copy() if holds else None
    for k, value in zip(at.tolist(), values, strict=True):
        if value is None or value is pd.NA:
            continue
        plain, _ = split_types(str(value))
        if plain != value:
            gold[k] = plain
        if extra is not None and '"hallucination_labels"' in str(extra[k] or ""):
            record = json.loads(str(extra[k]))
            entries = record.get("hallucination_labels")
            if isinstance(entries, list):
                record["hallucination_labels"] = corrected_entries(str(value), entries)
                extra[k] = json.dumps(record, ensure_ascii=False)
    out["gold"] = gold
    if extra is not None:
        out["extra"] = extra


def chart_columns(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """``_token_f1`` (official, per scored row) and ``_labels`` (gold label entries) at ``rows``."""
    token_f1 = np.full(len(rows), np.nan)
    labels: list[Any] = [None] * len(rows)
    scored = np.flatnonzero(table["scored"].to_numpy(dtype=bool)[rows])
    if scored.size:
        at = rows[scored]
        token_f1[scored] = _token_f1(table, at)
        if may_hold_labels(table["extra"], at):
            for k, found in _labels(table["extra"].iloc[at]):
                labels[int(scored[k])] = found
    return {"_token_f1": token_f1, "_labels": labels}


def _token_f1(table: pd.DataFrame, at: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    """The official token F1 of rows ``at``, from their ``parsed`` flags and distinct gold captions.

    ``parsed`` holds the official reading of ``raw_answer`` (``load`` and ``rescore`` write it);
    a row whose flags cannot be that reading is compared again from ``raw_answer``, as scoring does.
    Each distinct (gold, flags) pair is counted once: runs and re-runs repeat many of them.
    """
    gold_codes, distinct = pd.factorize(table["gold"].iloc[at].fillna(""))
    gold_codes = gold_codes.astype(np.int64)
    flag_codes, _ = pd.factorize(table["parsed"].iloc[at], use_na_sentinel=False)
    _, first, inverse = np.unique(
        gold_codes * (int(flag_codes.max()) + 1) + flag_codes, return_index=True, return_inverse=True
    )
    inverse = inverse.reshape(-1)
    gold = [str(g) for g in distinct]
    gt = tokenize_texts(gold, sentences=False)
    flags = usable_flags(table["parsed"].iloc[at[first]].tolist(), gt.counts()[gold_codes[first]].tolist())
    out = token_f1_of_flags(gt, gold_codes[first], [f or "" for f in flags])[inverse]
    bad = np.flatnonzero(np.isin(inverse, [k for k, f in enumerate(flags) if f is None]))
    if bad.size:  # each such row on its own: rows with the same unusable flags may answer differently
        pred = table["raw_answer"].iloc[at[bad]].fillna("").astype(str).tolist()
        out[bad] = compare([gold[k] for k in gold_codes[bad].tolist()], pred, "official").token["f1"]
    return out


def _labels(extra: pd.Series) -> list[tuple[int, Any]]:
    """(position, label entries) of the texts of ``extra`` holding a ``hallucination_labels`` list."""
    texts = extra.fillna("").astype(str)
    hits = np.flatnonzero(texts.str.contains('"hallucination_labels"', regex=False).to_numpy(dtype=bool))
    out: list[tuple[int, Any]] = []
    for k in hits.tolist():
        found = json.loads(texts.iloc[k]).get("hallucination_labels")
        if isinstance(found, list):
            out.append((k, found))
    return out
