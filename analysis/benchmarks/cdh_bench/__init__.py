"""CDH-Bench: counterfactual vs commonsense image pairs (2026).

CARD
====

Paper and data
    CDH-Bench (MiLab-HITSZ, 2026): 300 pairs (3 categories x 100, 14 subcategories), each a
    commonsense image and a counterfactual one (six fingers, a chair sitting on a person...). Two
    tasks are asked of both images with the same wording: ``qa`` (yes/no, ``direct_qa``) and
    ``mc`` (A-D, ``multiple_choice``); only the gold differs. Gold: ``benchmark.jsonl``; images
    ``images/<subcategory, " " and "/" as "_">/<pair id, " " as "_">/{commonsense,counterfactual}.png``.

Official scorer (``scripts/evaluate_cdh_bench.py``)
    Writes ``results.jsonl``, append-only, one record per (pair, task, side) attempt, with the
    model text in ``pred`` and its verdicts in ``correct`` and (counterfactual records)
    ``commonsense_error`` = wrong and right against the commonsense gold. The summary counts
    every ``status == "ok"`` record in file order, **without deduplication**, and ignores every
    other record (``error``, ``missing_image``, none) even when the same key succeeds later. It
    does not re-parse. Per task, and per task and category: CF-Acc, CS-Acc, CFAD = CS - CF
    (signed), CCR = commonsense errors / counterfactual errors, RPD = CFAD / CS-Acc; null when
    undefined. Extraction (:mod:`.parse`): text after the last
    ``</think>``; yes/no from the first word, else "yes"/是/对 anywhere, else "no"/否/不 anywhere;
    an all-digit qa gold against the first integer; other qa gold as a normalised substring; a
    letter from the first of four regexes on the upper-cased text; mc gold outside A-D is wrong.

Parsers
    ``official`` (default): the stored ``correct`` / ``commonsense_error``, as the summary does.
    ``reparse``: the official rules re-applied to ``pred`` (equal to ``official`` on a file the
    official script wrote and nobody edited). ``strict``: the alternative kept in the ``alt_*``
    columns; explicit answers only, original-case letters, punctuation splits words (see
    :mod:`.parse`). The ``parsed`` column always shows the official rules' reading of ``pred``,
    so the app can show how an answer was read even though ``official`` scores the stored verdict.

Item table
    ``item_id`` = ``cdh-`` + hash of (pair id, task, side): the same for every model and run, and
    equal to ``load_gold``'s ids, so results join the gold (options, pair name) on it. Several rows
    of one model may share an ``item_id``: retried or re-run queries appended to the same file.
    They all stay, and all ``ok`` ones count, as officially (a failed record naming no pair, task
    or side gets the id of the empty key). ``raw_answer`` is ``pred`` (the model
    text; for failed queries, the error message); ``raw`` is the API response object and stays in
    ``extra`` with ``run``, ``ts``, ``latency_ms``, ``prompt``, ``status``, ``correct``,
    ``commonsense_error``, ``cs_gt``, ``cf_gt``. ``gold`` is the record's own ``gt``. ``model`` is
    ``model_name``, else the file's stem. A missing or empty category is stored as ``Unknown``.
    ``options`` is empty unless a record carries them (the official records do not).

Deviations and data quirks
    - The README calls CCR a "consistent correctness rate" (both sides right) and Gap
      ``|CS - CF|``; the code computes the definitions above, which we follow (the code wrote the
      published numbers).
    - The README says 128 pairs; the data has 300.
    - Official-rule quirks reproduced under ``official``/``reparse``: "不是的" and "不是，..." read
      yes (punctuation is deleted, gluing words, and 是 is looked for before 不); "a"/"A" as an
      article reads as option A ("A dog..." or "... a cat. B" read A); a digit gold "06" never
      matches (the first integer is compared as ``str(int(...))``); full-width "ＹＥＳ" is not yes.
    - ``--gold`` is refused: results carry their own gold (``gt``, ``cs_gt``, ``cf_gt``).
    - ``--task`` keeps only that task's records (and reports that task even if it has none);
      without it, the ``task`` group lists the tasks seen in any record. An ok record with
      another task or side is an input error; a failed record is kept whatever it names.
    - Gold problems the audit finds from the data (no pair list is built in): 15 pairs with
      inverted yes/no polarity (CF yes / CS no against the set's majority), e.g. 236 "Is the ice
      cold and not hot?" with CS = no; Pair 222's mc gold equal on both sides; options run into one
      string (56, 59, 62, 65, 66, 262) or split at commas into more than 4 (171, 176, 243, 244,
      245, 290, 293); duplicate options (9: C = D, 51: A = D); questions that do not fit their
      pair (54, 77; a heuristic: no content word shared with the pair name, the other question or
      the options, so it is only a warning and a generic question is never flagged); missing or
      unreadable images (absent, empty, or not PNG/JPEG by their first bytes). Also flagged:
      golds the official scorer can never match (mc outside A-D, empty) and repeated pair ids.

Changelog
    1: first version: official / reparse / strict parsers, task and task/category groups, audit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import orjson
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]
import pyarrow.json as pa_json  # type: ignore[import-untyped, unused-ignore]

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
from analysis.benchmarks.cdh_bench import auditing as _cdh_audit
from analysis.benchmarks.cdh_bench import charts as _charts
from analysis.benchmarks.cdh_bench import gold as _gold
from analysis.benchmarks.cdh_bench import native as _native
from analysis.benchmarks.cdh_bench import parse as _cdh_parse
from analysis.benchmarks.cdh_bench import read as _cdh_load
from analysis.benchmarks.cdh_bench import table as _cdh_table
from analysis.benchmarks.cdh_bench.detect import recognise as recognise
from analysis.benchmarks.cdh_bench.metrics import (
    counterfactual_counts,
    counterfactual_metrics,
    counterfactual_metrics_of,
)
from analysis.benchmarks.cdh_bench.names import NAME as NAME
from analysis.benchmarks.cdh_bench.names import PARSERS as PARSERS
from analysis.benchmarks.cdh_bench.names import TASK_REQUIRED as TASK_REQUIRED
from analysis.benchmarks.cdh_bench.names import TASKS as TASKS
from analysis.benchmarks.shared import slicing as _slicing
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.benchmarks.shared.gold_only import GOLD_ONLY
from analysis.errors import InputError
from analysis.files.readers import without_gc_pauses
from analysis.stats.clusters import ClusterStats, scope_verdicts, tally
from analysis.stats.metrics import MetricDict
from analysis.table.columns import concat_tables, make_table, text_bytes

TITLE = "CDH-Bench"
"""Display name."""
VOCABULARY: tuple[str, ...] = ("cdh-bench", "cdh_bench", "counterfactual", "commonsense")
"""Words only this package's code says (its id, file names, sides, tags): the seam test finds
them nowhere else in the core or the app."""
VERSION = "1"
ALT_PARSER = "strict"
_CDH = ("cf_acc", "cs_acc", "cfad", "ccr", "rpd")
BOARDS: tuple[Board, ...] = (
    Board("CDH-Bench QA", None, ("task", "qa"), _CDH),
    Board("CDH-Bench multiple choice", None, ("task", "mc"), _CDH),
)
DETECT_RANK = 1
TAKES_GOLD = False
NEEDS_GOLD: frozenset[str | None] = frozenset()
TRY_EACH_GOLD = False
CHARTS: tuple[Chart, ...] = _charts.CHARTS
DERIVED: Mapping[str, Derived] = {"_cs_error": Derived(False, "key"), "_side": Derived("", "key")}
"""``_cs_error``: a scored counterfactual row answered with the commonsense gold; ``_side``:
``counterfactual`` or ``commonsense``, the side the chart reads."""
"""``_cs_error``: a wrong counterfactual answer equal to the commonsense gold (the official flag)."""
FILES: dict[str, str] = {
    "gold": "benchmark.jsonl, the pairs' questions and gold with no model answers",
    "predictions": "results.jsonl as written by the official evaluation script",
}
"""What a gold file and a prediction file of this benchmark are, for refusals of the wrong kind."""
MEDIA_ALIASES: tuple[tuple[str, str], ...] = ()
"""Media paths as the files write them."""
PAIRS: PairSpec | None = None
"""No clip pairs to validate."""
HARNESS_FORMATS: frozenset[str] = frozenset()
"""The general harnesses' formats ``load`` reads, besides the native one (``docs/formats.md``)."""

BoolArray = npt.NDArray[np.bool_]


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
    """Read one official ``results.jsonl`` into an item table (every record, in file order)."""
    refuse_harness(NAME, fmt, mapping)
    if gold is not None:
        raise InputError(gold, "cdh-bench takes no --gold: results.jsonl carries its own gold (gt, cs_gt)")
    table = _results_table(predictions, model)  # its records are freed before the collector resumes
    if task is not None:
        table = table[table["task"] == task].reset_index(drop=True)
    return table


def _results_table(predictions: Path, model: str | None) -> pd.DataFrame:
    records, cols, fields = _cdh_load.read_results(predictions)
    return _cdh_table.results_table(
        predictions, records, cols, fields, name=NAME, model=model, alt_parser=ALT_PARSER
    )


def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """Read ``benchmark.jsonl`` files into an item table: one row per (pair, task, side), no model."""
    tables = []
    for path in paths:
        cols = _cdh_load.gold_columns(_cdh_load.read_gold(path))
        tables.append(make_table({
            "benchmark": NAME, **cols, "skip_reason": GOLD_ONLY,
        }, length=len(cols["item_id"])))  # fmt: skip
    return concat_tables(tables)


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Find data problems in gold files (and their images, when ``media_root`` is given)."""
    pairs = [pair for path in paths for pair in _cdh_load.read_gold(path)]
    return _cdh_audit.audit_pairs(pairs, media_root)


def score(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ScoreReport:
    """Score one model's item table: groups ``task`` and ``task/category``, ``overall`` empty."""
    parser = resolve_parser(NAME, PARSERS, parser)
    rows, scored, scopes = _scopes(table, task)
    correct, cs_error = verdicts(scored, parser)
    groups: dict[str, dict[str, MetricDict]] = {"task": {}, "task/category": {}}
    for (group, key), sel in scopes:
        groups[group][key] = _metrics(scored[sel], correct[sel], cs_error[sel])
    n_scored = len(scored)
    return ScoreReport(
        benchmark=NAME,
        task=task,
        parser=parser,
        n_scored=n_scored,
        n_skipped=len(rows) - n_scored,
        overall={},
        groups=groups,
    )


def cluster_stats(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ClusterStats:
    """Additive counts per pair (its counterfactual and commonsense sides hang together)."""
    parser = resolve_parser(NAME, PARSERS, parser)
    _, scored, scopes = _scopes(table, task)
    correct, cs_error = verdicts(scored, parser)
    is_cf = (scored["side"] == "counterfactual").to_numpy(dtype=bool)
    is_cs = (scored["side"] == "commonsense").to_numpy(dtype=bool)
    columns = counterfactual_counts(is_cf, is_cs, correct, cs_error)
    keys, values = tally(scored["pair_id"].astype(str).to_numpy(dtype=object), columns, scopes)
    ids = scored["item_id"].to_numpy(dtype=object)
    verdicts_by = {
        **scope_verdicts("cf_acc", correct, ids, [(s, m & is_cf) for s, m in scopes]),
        **scope_verdicts("cs_acc", correct, ids, [(s, m & is_cs) for s, m in scopes]),
    }
    return ClusterStats(
        "pair",
        keys,
        tuple(columns),
        tuple(s for s, _ in scopes),
        values,
        counterfactual_metrics_of,
        ("task", "task/category"),
        verdicts_by,
    )


def _scopes(
    table: pd.DataFrame, task: str | None
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[tuple[str, str], BoolArray]]]:
    """The task's rows, its scored rows, and each report group with its mask over the scored rows."""
    if task is not None and task not in TASKS:
        raise ValueError(f"unknown task {task!r} for {NAME} (known: {', '.join(TASKS)})")
    rows = table if task is None else table[table["task"] == task]
    scored = rows[rows["scored"].to_numpy(dtype=bool)]
    tasks = [task] if task is not None else [t for t in TASKS if (rows["task"] == t).any()]
    scopes: list[tuple[tuple[str, str], BoolArray]] = []
    categories = scored["category"].astype(str).to_numpy(dtype=object)
    for name in tasks:
        in_task = (scored["task"] == name).to_numpy(dtype=bool)
        scopes.append((("task", name), in_task))
        # a category seen in any record of the task gets an entry, even with no ok record
        for category in sorted(set(rows.loc[rows["task"] == name, "category"].astype(str))):
            scopes.append((("task/category", f"{name}/{category}"), in_task & (categories == category)))
    return rows, scored, scopes


def _stored_commonsense_error(extra: pd.Series) -> BoolArray:
    """Per row, whether the record's ``commonsense_error`` is ``true`` (kept in ``extra``).

    Arrow's JSON reader reads that one top-level field of every text at once
    (:func:`_commonsense_error_by_arrow`); when it cannot (a value that is not a boolean, a text
    that is not one JSON object, or a very long one), each text that may hold ``true`` is parsed on its
    own: only texts where ``"commonsense_error"`` is followed by ``true`` can hold it.
    """
    text = pa.array(extra.astype("string"))
    read = _commonsense_error_by_arrow(text)
    if read is not None:
        return read
    maybe = pc.match_substring_regex(text, r'"commonsense_error"\s*:\s*true').fill_null(False)
    out = np.zeros(len(text), dtype=bool)
    candidates = np.flatnonzero(maybe.to_numpy(zero_copy_only=False))
    texts = text.take(candidates).to_pylist()
    out[candidates] = [orjson.loads(t).get("commonsense_error") is True for t in texts]
    return out


def _commonsense_error_by_arrow(text: pa.Array) -> BoolArray | None:
    """Each text's top-level ``commonsense_error`` is ``true``, read by Arrow; None when it cannot say.

    The texts are joined one per line ("" and null as ``{}``), :data:`_ARROW_ROWS` at a time, and
    read with a schema of that one boolean field, the others skipped: 0.15-0.27 s for 148,000
    texts against 0.38-0.39 s parsing each candidate (``docs/development.md``). A field nested in
    another object is not top-level and is not read. Arrow refuses a value of another type (a
    text ``"true"``, a 1) and a text longer than the block it reads at once; a text holding two
    objects would give more rows than texts. Either way the caller parses the texts itself.
    """
    out = np.zeros(len(text), dtype=bool)
    for start in range(0, len(text), _ARROW_ROWS):
        part = text.slice(start, _ARROW_ROWS)
        read = _commonsense_error_lines(part)
        if read is None:
            return None
        out[start : start + len(part)] = read
    return out


_ARROW_ROWS = 32_768
"""Texts joined and read at once: the copy made to read them stays about 20 MB."""


def _commonsense_error_lines(text: pa.Array) -> BoolArray | None:
    """:func:`_commonsense_error_by_arrow` of texts few enough to be copied together."""
    kind = text.type
    empty = pc.equal(text, "").fill_null(True)
    if pc.any(empty).as_py():  # an empty line would be no row: an object with no field instead
        text = pc.if_else(empty, pa.scalar("{}", kind), text)
    lines = pc.binary_join_element_wise(text, pa.scalar("", kind), pa.scalar("\n", kind))
    data = text_bytes(lines)
    schema = pa.schema([("commonsense_error", pa.bool_())])
    options = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        read = pa_json.read_json(pa.BufferReader(pa.py_buffer(data)), parse_options=options)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    if read.num_rows != len(text):
        return None
    flags: BoolArray = read.column(0).fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    return flags


def verdicts(rows: pd.DataFrame, parser: str) -> tuple[BoolArray, BoolArray]:
    """Per row: correct, and (counterfactual rows) commonsense error, under ``parser``.

    ``official`` takes the stored fields (a stored null counts as False, as the summary's
    ``is True`` does); the others re-read ``raw_answer`` against ``gold`` and, for wrong
    counterfactual answers, against the record's ``cs_gt``.
    """
    if parser == "official":
        correct = rows["correct"].fillna(False).to_numpy(dtype=bool)
        return correct, _stored_commonsense_error(rows["extra"])
    extras = [orjson.loads(e) if e else {} for e in rows["extra"].astype(str)]
    reader = _cdh_parse.READERS[parser]
    tasks = rows["task"].astype(str).tolist()
    texts = rows["raw_answer"].tolist()
    _, ok = _cdh_parse.read_rows(tasks, texts, rows["gold"].astype(str).tolist(), reader)
    correct = np.array(ok, dtype=bool)
    _, against_cs = _cdh_parse.read_rows(tasks, texts, [e.get("cs_gt") for e in extras], reader)
    is_cf = (rows["side"] == "counterfactual").to_numpy(dtype=bool)
    return correct, is_cf & ~correct & np.array(against_cs, dtype=bool)


def _metrics(rows: pd.DataFrame, correct: BoolArray, cs_error: BoolArray) -> MetricDict:
    cf = (rows["side"] == "counterfactual").to_numpy(dtype=bool)
    cs = (rows["side"] == "commonsense").to_numpy(dtype=bool)
    return counterfactual_metrics(correct[cf], correct[cs], cs_error[cf])


def gold_kind(task: str, original: str | None) -> GoldKind:
    """``mc``: one option letter; ``qa``: yes/no where the official gold is yes/no, else text."""
    return _gold.gold_kind(task, original)


def options(extra: Mapping[str, Any]) -> list[str]:
    """None kept outside the ``options`` column."""
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """Official re-parse and strict reader against the new gold.

    A pair's counterfactual side follows its commonsense gold (CCR); ``extra``'s stored verdicts too.
    """
    _gold.rescore(table, rows, labels)


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """``benchmark.jsonl`` with corrected ``*_gt``, or a corrected ``results.jsonl``.

    The results get ``gt``, ``cs_gt``, ``cf_gt`` and the verdicts the official summary reads.
    """
    return _native.write_corrected(path, gold, lambda: load_as_shown(load_gold, load, path))


def slicing(table: pd.DataFrame) -> Slicing:
    """Both sides of an image pair hang together; the side is an attribute."""
    return Slicing(
        _slicing.text(table, "pair_id"), {"side": _slicing.text(table, "side")}, SliceMetric("CFAD", _cfad)
    )


def _cfad(rows: pd.DataFrame) -> float | None:
    """CS-Acc minus CF-Acc of one model's rows; None without both sides.

    The official figure when the rows are of one task, else the same difference over the tasks'
    items pooled.
    """
    tasks = list(score(rows)["groups"]["task"].values()) if len(rows) else []

    def num(metrics: Mapping[str, float | int | None], key: str) -> float:
        value = metrics.get(key)
        return float(value) if value is not None else 0.0

    n_cf = sum(num(t, "n_cf") for t in tasks)
    n_cs = sum(num(t, "n_cs") for t in tasks)
    if not n_cf or not n_cs:
        return None
    if len(tasks) == 1:
        return num(tasks[0], "cfad")
    cf = sum(num(t, "cf_acc") * num(t, "n_cf") for t in tasks) / n_cf
    cs = sum(num(t, "cs_acc") * num(t, "n_cs") for t in tasks) / n_cs
    return cs - cf


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """``_cs_error`` of the scored counterfactual rows, by the official rule."""
    cs_error = np.zeros(len(rows), dtype=bool)
    wanted = ((table["side"] == "counterfactual") & table["scored"]).to_numpy(dtype=bool)
    cf = np.flatnonzero(wanted[rows])
    if cf.size:
        # as verdicts(..., "official") does, from the one column it needs
        cs_error[cf] = _stored_commonsense_error(table["extra"].take(rows[cf]))
    sides = table["side"].take(rows).astype("string").fillna("")
    side = sides.where(sides.isin(("counterfactual", "commonsense")), "").to_numpy(dtype=object)
    return {"_cs_error": cs_error, "_side": side}


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``pair_id``, ``task`` and ``side``: one question asked of one image of a pair."""
    keys = zip(*(table[name].astype(str) for name in ("pair_id", "task", "side")), strict=True)
    return [{"pair_id": pair, "task": task, "side": side} for pair, task, side in keys]


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    from analysis.benchmarks import cdh_bench as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
