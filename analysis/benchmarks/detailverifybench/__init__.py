r"""DetailVerifyBench: finding hallucinated spans in long image captions.

CARD
----
Paper: Wang et al., "DetailVerifyBench" (2026, arXiv 2604.05623); code and data
github.com/zyx-hhnkh/DetailVerifyBench (CC BY 4.0). 1,000 images in five domains (Chart, Movie,
Nature, Poster, UI; 200 each), a real set (``real_test.jsonl``: captions with the hallucinations
annotators found) and a synthetic set (``synthetic_test.jsonl``: injected ones). The model gets an
image and a caption and must return the caption with ``<HALLUCINATION>...</HALLUCINATION>`` around
each wrong span, or ``NO HALLUCINATION``.

Input: ``tested_model_output_seed_N.json`` as the official pipeline writes it (a JSON list of
``{id, image_path, original_caption, hallucinated_caption, gt_hallucinated_caption_with_tags,
hallucinated_caption_with_tags, data_source, is_use_original, validation_passed,
validation_message, attempt, seed, raw_output}``; records wrapped as ``{"data": {...}}`` are read
too, as the official scorer does). ``--gold real_test.jsonl`` (optional) adds label types.

Official scorer (``calculate_metrics.py``), reproduced by parser ``official``:

- gold = ``gt_hallucinated_caption_with_tags``; prediction = ``hallucinated_caption_with_tags``
  as written (never re-extracted from ``raw_output``); only ``validation_passed == true`` records
  are scored (the pipeline scores its ``_filtered`` file), without re-validation; the others stay
  in the table with ``scored=False`` and ``skip_reason`` = ``validation_message``.
- tags: ``re.finditer(r"<HALLUCINATION>(.*?)</HALLUCINATION>", text, re.S)`` (case-sensitive;
  an unclosed open tag marks nothing, a nested open tag is part of the content); all tag strings
  are removed before tokenising. Tokens: ``[A-Za-z0-9]+(?:[-'.@_][A-Za-z0-9]+)*``,
  ``[@#][A-Za-z0-9_]+``, CJK runs; a token is hallucinated if it overlaps a pair at all.
- ``NO HALLUCINATION`` (stripped, upper-cased) = all clean, as long as the gold; otherwise both
  sequences are cut to the shorter and compared position by position (no alignment).
- token P / R / F1 / IoU per item (0 when undefined, IoU 1 when nothing is hallucinated on either
  side, all 0 when nothing is compared), macro means over scored items; so a clean caption
  answered perfectly contributes F1 = 0. Sentence level: the clean gold split with
  ``(?<=[.!?。！？])\s*``, each sentence tokenised alone (so "3.5" and "U.S." split), ranges
  counted in those tokens over the compared positions; per-item P / R / F1, macro mean. Response
  level: any hallucination per side, micro P / R / F1. Per domain: the same eleven numbers.
- per label type (only with ``--gold``): each gold tag takes the first unused label entry whose
  text matches after strip, lower-case and removing ``[^\w\s]``; first label of the entry, else
  ``Unknown``; recall = gold tokens of the type caught / gold tokens of the type (micro).

Parser ``aligned`` (NOT OFFICIAL, labelled so in every report): prediction flags carried onto the
gold tokens through a ``difflib`` token alignment (one inserted or split word no longer shifts
the rest), compared over the whole gold; flagged words the gold lacks count as false alarms.

Item table: ``item_id`` = ``<id>:<hash of id and the untagged gold caption>`` (real and synthetic sets
share image ids; span corrections keep the id); ``category`` = domain; ``question`` = the
caption the model saw (``original_caption``
when ``is_use_original``, else ``hallucinated_caption``); ``parsed`` = the predicted flags over
the compared positions (``1`` = hallucinated), ``correct`` = the scorer sees a perfect detection
(flags equal on every compared position, at least one); ``extra`` keeps ``id``,
``raw_output``, ``validation_message``, ``attempt``, ``seed``, ``data_source``,
``is_use_original``, both captions and, with ``--gold``, ``hallucination_labels``.

Scoring a table under ``official`` reads the predictions' flags from ``parsed`` (as the other
modules read their stored verdicts; ``load`` and the review store's rescoring write them) and
tokenises only the gold captions; a ``parsed`` value that cannot be the official reading (null,
not ``0``/``1``, longer than the gold) is read again from ``raw_answer``. ``aligned`` always
re-reads ``raw_answer``.

Deviations and quirks:

- domain = the folder directly containing ``image_path`` (``./test/Chart/x.png`` -> ``Chart``),
  else ``Unknown``; the official scorer maps file names through a listing of ``--image_dir``.
- records repeating an ``id``: the official scorer keys records by id, so only the last one
  counts; the earlier ones are kept with ``scored=False``.
- label types need the gold ``hallucination_labels``, absent from the pipeline output: with
  ``--gold``, labels are attached by file name where the gold file's tagged caption equals
  ``gt_hallucinated_caption_with_tags``, and ``groups.label_type`` is added (keys
  ``token_recall``, ``hits``, ``n_tokens``); without it the report has only ``groups.domain``.
- the official macro means iterate over a Python ``set`` of ids, so their float sums are in hash
  order; results here can differ from a given run in the last bits.
- the official split-half and caption-length breakdowns are not reported.
- data: raw gold files spell tags ``<Hallucination>``, normalised to upper case when read; real
  and synthetic files reuse the same image file names.

Changelog:
1.0: first version: official and aligned parsers, domain groups, label types with ``--gold``.
1.1: macro means summed with ``math.fsum`` (correctly rounded: the same summed per item or per
     cluster, as the bootstrap does); a score may differ from 1.0's in its last digit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.base import (
    Board,
    Bools,
    Chart,
    Derived,
    Finding,
    GoldKind,
    PairSpec,
    ScoreReport,
    SliceMetric,
    Slicing,
    refuse_harness,
    resolve_parser,
)
from analysis.benchmarks.detailverifybench import charts as _charts
from analysis.benchmarks.detailverifybench import gold as _gold
from analysis.benchmarks.detailverifybench import native as _native
from analysis.benchmarks.detailverifybench import read as dvb_io
from analysis.benchmarks.detailverifybench.auditing import audit_gold
from analysis.benchmarks.detailverifybench.columns import (
    ColumnTexts,
    extra_column,
    image_media,
    may_hold_labels,
    sources,
)
from analysis.benchmarks.detailverifybench.detect import recognise as recognise
from analysis.benchmarks.detailverifybench.measure import Comparison
from analysis.benchmarks.detailverifybench.names import NAME as NAME
from analysis.benchmarks.detailverifybench.names import PARSERS as PARSERS
from analysis.benchmarks.detailverifybench.names import TASK_REQUIRED as TASK_REQUIRED
from analysis.benchmarks.detailverifybench.names import TASKS as TASKS
from analysis.benchmarks.detailverifybench.scoring import (
    STAT_NAMES,
    compare,
    compare_flags,
    compare_parsers,
    label_recall,
    metrics_of,
    stat_columns,
    summarize,
)
from analysis.benchmarks.detailverifybench.scoring import (
    label_type_recall as label_type_recall,
)
from analysis.benchmarks.detailverifybench.spans import strip_tags
from analysis.benchmarks.detailverifybench.tagging import TAGGED
from analysis.benchmarks.shared import slicing as _slicing
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.benchmarks.shared.gold_only import GOLD_ONLY
from analysis.errors import InputError
from analysis.files.readers import without_gc_pauses
from analysis.stats.clusters import ClusterStats, masks, tally
from analysis.stats.metrics import MetricDict
from analysis.table.columns import extra_json, make_table, media_json

TITLE = "DetailVerifyBench"
"""Display name."""
VOCABULARY: tuple[str, ...] = ("detailverifybench", "<HALLUCINATION>", "NO HALLUCINATION")
"""Words only this package's code says (its id, file names, sides, tags): the seam test finds
them nowhere else in the core or the app."""
VERSION = "1.1"
ALT_PARSER = "aligned"
BOARDS: tuple[Board, ...] = (
    Board(
        "DetailVerifyBench",
        None,
        None,
        ("token_f1", "sentence_f1", "response_f1", "token_iou", "token_precision", "token_recall"),
    ),
)
DETECT_RANK = 0
TAKES_GOLD = True
NEEDS_GOLD: frozenset[str | None] = frozenset()
TRY_EACH_GOLD = True
"""The gold (label types) is optional and belongs to one of the two sets: the first that fits."""
CHARTS: tuple[Chart, ...] = _charts.CHARTS
DERIVED: Mapping[str, Derived] = {"_token_f1": Derived(np.nan, "sum"), "_labels": Derived(None, "row")}
"""``_token_f1``: the official per-item token F1; ``_labels``: the gold label entries, if loaded."""
FILES: dict[str, str] = {
    "gold": "real_test.jsonl or synthetic_test.jsonl, the tagged gold captions with no model answers",
    "predictions": "tested_model_output_seed_N.json as written by the official pipeline",
}
"""What a gold file and a prediction file of this benchmark are, for refusals of the wrong kind."""
MEDIA_ALIASES: tuple[tuple[str, str], ...] = ()
"""Media paths as the files write them."""
PAIRS: PairSpec | None = None
"""No clip pairs to validate."""
HARNESS_FORMATS: frozenset[str] = frozenset()
"""The general harnesses' formats ``load`` reads, besides the native one (``docs/formats.md``)."""
OFFICIAL_PARSERS = frozenset({"official"})
"""Parsers that reproduce the official scorer; ``aligned`` is a halluscope addition."""

_OWN_COLUMNS = (
    "image_path",
    "gt_hallucinated_caption_with_tags",
    "hallucinated_caption_with_tags",
    "validation_passed",
)


@without_gc_pauses
def load(
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read one pipeline output into an item table (``gold``: a gold JSONL, for label types)."""
    refuse_harness(NAME, fmt, mapping)
    del task  # no tasks
    pf = dvb_io.read_pipeline(predictions)
    scored, reasons = _scored(pf)
    labels = _gold_labels(gold, pf) if gold is not None else None
    verdicts = _verdicts(pf, scored)
    return make_table(
        {
            "benchmark": NAME,
            "item_id": dvb_io.make_item_ids(pf.ids, pf.gold),
            "model": model or predictions.stem,
            "category": dvb_io.domains_of(pf.image_paths),
            "question": pf.questions,
            "gold": pf.gold,
            "raw_answer": pf.predictions,
            "parsed": verdicts["official"][0],
            "correct": verdicts["official"][1],
            "alt_parser": ALT_PARSER,
            "alt_parsed": verdicts[ALT_PARSER][0],
            "alt_correct": verdicts[ALT_PARSER][1],
            "scored": scored,
            "skip_reason": reasons,
            "media": image_media(pf.image_paths),
            "source": sources(predictions.name, pf.records),
            "extra": extra_column(pf.records.items, labels, _OWN_COLUMNS),
        },
        length=len(pf.ids),
    )


def _scored(pf: dvb_io.PipelineFile) -> tuple[np.ndarray[Any, np.dtype[np.bool_]], list[str]]:
    """Valid records are scored; of valid records sharing an id, only the last (official dict)."""
    scored = np.asarray(pf.valid, dtype=bool).copy()
    reasons = [
        "" if ok else (msg or "validation_passed is false")
        for ok, msg in zip(pf.valid, pf.messages, strict=True)
    ]
    last: dict[str, int] = {}
    for index in reversed(np.flatnonzero(scored).tolist()):
        if pf.ids[index] in last:
            scored[index] = False
            reasons[index] = (
                f"repeated id {pf.ids[index]!r}: the official scorer keeps only the last "
                f"record with it ({pf.records.where(last[pf.ids[index]])})"
            )
        else:
            last[pf.ids[index]] = index
    return scored, reasons


def _verdicts(
    pf: dvb_io.PipelineFile, scored: npt.NDArray[np.bool_]
) -> dict[str, tuple[pd.arrays.ArrowStringArray, pd.arrays.BooleanArray]]:
    """``parsed`` and ``correct`` of each parser; null where not scored.

    An item's numbers depend on its (gold, prediction) pair alone, so each distinct pair is
    compared once (re-runs and replicated files repeat many) and the results are spread back.
    """
    rows = np.flatnonzero(scored)
    pairs: dict[tuple[str, str], int] = {}
    codes = np.zeros(len(pf.ids), dtype=np.int64)
    codes[rows] = [pairs.setdefault((pf.gold[i], str(pf.predictions[i])), len(pairs)) for i in rows.tolist()]
    results = compare_parsers([g for g, _ in pairs], [p for _, p in pairs], ("official", ALT_PARSER))
    at = pa.array(codes, mask=~scored)
    return {
        parser: (
            _strings(pa.array(result.flags, pa.large_string()).take(at)),
            pd.arrays.BooleanArray(result.exact[codes] & scored if len(pairs) else scored, ~scored),
        )
        for parser, result in results.items()
    }


def _strings(values: pa.Array) -> pd.arrays.ArrowStringArray:
    return pd.arrays.ArrowStringArray(pa.chunked_array([values]))


def _gold_labels(gold: Path, pf: dvb_io.PipelineFile) -> list[list[dict[str, Any]] | None]:
    """Label entries per record, from gold rows with the same file name and tagged caption."""
    by_key = {(row.filename, row.tagged): row.labels or [] for row in dvb_io.read_gold([gold])}
    found = [by_key.get((i, g)) for i, g in zip(pf.ids, pf.gold, strict=True)]
    if pf.ids and all(f is None for f in found):
        raise InputError(
            gold,
            "no gold row has the file name and tagged caption of any record of "
            f"{pf.records.path.name}; is it the gold file of this run (real or synthetic)?",
        )
    return found


@without_gc_pauses
def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """Read ``real_test.jsonl`` / ``synthetic_test.jsonl`` rows into an item table (no model)."""
    rows = dvb_io.read_gold(paths)
    keep_out = ("filename", "category", "description_tag")
    return make_table(
        {
            "benchmark": NAME,
            "item_id": [dvb_io.make_item_id(r.filename, r.tagged) for r in rows],
            "category": [r.category for r in rows],
            "question": [strip_tags(r.tagged) for r in rows],
            "gold": [r.tagged for r in rows],
            "alt_parser": ALT_PARSER,
            "skip_reason": GOLD_ONLY,
            "media": [media_json([("image", f"{r.category}/{r.filename}", "image")]) for r in rows],
            "source": [r.where for r in rows],
            "extra": [extra_json({"set": r.file.split(".")[0], **r.record}, keep_out) for r in rows],
        },
        length=len(rows),
    )


def score(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ScoreReport:
    """Score one model's item table; ``groups.label_type`` only when gold labels were loaded."""
    del task  # no tasks
    parser = resolve_parser(NAME, PARSERS, parser)
    rows, result, labels = _compared(table, parser)
    domains = table["category"].astype(str).to_numpy()[rows]
    groups: dict[str, dict[str, MetricDict]] = {
        "domain": {d: summarize(result, domains == d) for d in sorted(set(domains.tolist()))}
    }
    if labels is not None:
        groups["label_type"] = label_recall(result.label_hits)
    return {
        "benchmark": NAME,
        "task": None,
        "parser": parser,
        "n_scored": int(rows.size),
        "n_skipped": len(table) - int(rows.size),
        "overall": summarize(result, np.ones(len(rows), dtype=bool)),
        "groups": groups,
    }


def cluster_stats(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ClusterStats:
    """Per-caption statistics (a caption is its own cluster) for ``overall`` and ``groups.domain``.

    ``groups.label_type`` (only with gold labels) has no interval: its hits are counted over all
    captions at once, not per caption.
    """
    del task
    rows, result, _ = _compared(table, resolve_parser(NAME, PARSERS, parser))
    domains = table["category"].astype(str).to_numpy(dtype=object)[rows]
    scopes = [
        (None, np.ones(rows.size, dtype=bool)),
        *masks(domains, sorted(set(domains.tolist())), "domain"),
    ]
    keys, values = tally(table["item_id"].to_numpy(dtype=object)[rows], stat_columns(result), scopes)
    return ClusterStats(
        "caption", keys, STAT_NAMES, tuple(s for s, _ in scopes), values, metrics_of, ("domain",)
    )


def _compared(
    table: pd.DataFrame, parser: str
) -> tuple[np.ndarray[Any, np.dtype[np.intp]], Comparison, list[list[dict[str, Any]] | None] | None]:
    """Positions of the scored rows, their comparison under ``parser``, and gold labels if loaded."""
    # Only the columns scoring reads, a slice of scored rows at a time: never a copy of the table.
    rows = np.flatnonzero(table["scored"].to_numpy(dtype=bool))
    labels = _labels_from_extra(table["extra"], rows)
    gold, pred = ColumnTexts(table["gold"], rows), ColumnTexts(table["raw_answer"], rows)
    if parser == "official":  # the table's ``parsed`` column holds its reading: only the gold is tokenised
        parsed = table["parsed"].iloc[rows].tolist()
        return rows, compare_flags(gold, parsed, pred, labels), labels
    return rows, compare(gold, pred, parser, labels), labels


def _labels_from_extra(
    extra: pd.Series, rows: np.ndarray[Any, Any]
) -> list[list[dict[str, Any]] | None] | None:
    """Gold label entries kept in ``extra`` by ``load(gold=...)`` (rows ``rows``); None when none has them."""
    if not may_hold_labels(extra, rows):
        return None
    texts = extra.iloc[rows].fillna("").astype(str)
    if not texts.str.contains('"hallucination_labels"', regex=False).any():
        return None
    out: list[list[dict[str, Any]] | None] = []
    for text in texts.tolist():
        value = json.loads(text).get("hallucination_labels") if text else None
        out.append(value if isinstance(value, list) else None)
    return out


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Tag, label, ``Modify``, duplicate and media problems of gold JSONL files."""
    return audit_gold(paths, media_root)


def gold_kind(task: str, original: str | None) -> GoldKind:
    """A tagged caption: only the ``<HALLUCINATION>`` tags may change."""
    return TAGGED


def options(extra: Mapping[str, Any]) -> list[str]:
    """None kept outside the ``options`` column."""
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """Token flags and exact-match verdicts of the model's tags against the new tagged gold."""
    _gold.rescore(table, rows, labels, ALT_PARSER)


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """A gold set or the pipeline output with corrected tags.

    Gold sets: ``description_tag``, ``Modify``, ``hallucination_labels``; the pipeline output:
    ``gt_hallucinated_caption_with_tags``.
    """
    return _native.write_corrected(path, gold, load_as_shown(load_gold, load, path))


def slicing(table: pd.DataFrame) -> Slicing:
    """One caption an image; the data source and whether the caption was altered are attributes."""
    attributes = _slicing.from_extra(table, {"source": "data_source", "original": "is_use_original"})
    return Slicing(_slicing.text(table, "media"), attributes, SliceMetric("token F1", _token_f1))


def _token_f1(rows: pd.DataFrame) -> float | None:
    """The official token F1 of one model's rows; None without a scored caption."""
    value = score(rows)["overall"].get("token_f1") if len(rows) else None
    return float(value) if value is not None else None


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """Per scored row the official token F1 and the gold label entries kept in ``extra``."""
    return _gold.chart_columns(table, rows)


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A pipeline record's ``id`` (as written, text or number); a gold line's ``filename``.

    The item id starts with either, before its 16-digit hash (:func:`dvb_io.make_item_id`).
    """
    out: list[dict[str, Any]] = []
    extras = table["extra"].astype("string").fillna("")
    for item, extra in zip(table["item_id"].astype(str), extras, strict=True):
        fields = json.loads(extra) if extra else {}
        if isinstance(fields, dict) and "id" in fields:
            out.append({"id": fields["id"]})
        else:
            out.append({"filename": item.rpartition(":")[0]})
    return out


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    from analysis.benchmarks import detailverifybench as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
