"""CMM, "The Curse of Multi-Modalities": hallucination across language, visual and audio.

Card
----
- Paper: Leng et al., "The Curse of Multi-Modalities: Evaluating Hallucinations of Large
  Multimodal Models across Language, Visual, and Audio" (2024, arXiv 2410.12787). Code and data:
  github.com/DAMO-NLP-SG/CMM.
- Files: one JSONL (even when named ``.json``; a JSON list is accepted too), one row per
  question and no id: ``category, sub_category, modality, granularity, correlation_type,
  video_path, audio_path, question, answer`` plus the model's ``pred``. 2,400 questions over
  1,200 clips, each clip with one yes-probe and one no-probe; six sub-categories of 400.
- Official scorer (``evaluation/calculate_score.py``): strip then lower-case gold and prediction;
  correct iff the gold is a substring of ``pred[:5]``; PA = gold-yes rows with ``yes`` in
  ``pred[:5]`` / gold yes; HR = gold-no rows with ``no`` in ``pred[:5]`` / gold no (gold yes /
  no = ``yes`` / ``no`` in ``gold[:5]``); zero denominators give 0. Reported overall, per
  ``sub_category`` and per granularity x sub_category. ``--parser official`` reproduces it.
- Quirks kept on purpose: "nothing", "none", "not", "cannot", "unknown", "noise", even "I know"
  count as no; "Sure, yes" and "I did not" as neither; "yesno" / "noyes" as both (correct for
  either gold). Note ``"yes/no"[:5]`` is ``"yes/n"``: that answer is yes only
  (``docs/benchmarks/cmm.md`` lists "yes/no" as both; the script's own rule says otherwise, and
  the script wins).
- Scoring VERSION 1. Additions beside the official numbers (clearly not in the script):
  precision, recall, F1 and yes ratio, reading a prediction as yes when ``yes`` is in its first
  five characters, else no when ``no`` is, else unparsed; ``groups.granularity`` pooled over all
  sub-categories (``object-level`` / ``event-level`` only). The script's third table
  (granularity x sub-category, keys like ``object-level/visual-language``) comes from
  :func:`granularity_by_sub_category`, not ``score``, whose groups are docs/cli.md's two. Parsers
  ``first-word`` and ``negation-aware`` (the table's alternative) compare a yes/no reading with
  the gold; they also give 0 for zero denominators.
- Deviations: a missing or null ``pred`` is an input error naming the line (the official script
  crashes on it); a blank line is skipped (the script would crash). ``n_skipped`` is always 0.
- Item table: ``category`` = ``sub_category``, ``subcategory`` = ``granularity``, ``gold`` =
  ``answer``, ``raw_answer`` = ``pred``; ``category``, ``modality``, ``correlation_type`` and any
  unknown field go to ``extra`` (null fields are left out). ``parsed`` is the official yes/no
  reading and ``correct`` the official verdict (so "yes/no" reads yes yet is correct on a no).
  ``item_id`` hashes (``video_path``, ``audio_path``, ``question``): see :func:`item_id`.
- Media quirks: paths start ``./raw_files/`` but the released zip unpacks to
  ``reorg_raw_files/`` (:func:`candidate_paths` yields both); ``video_path`` may be the string
  ``"None"`` (no video); for ``visual+audio`` rows the mp4 is silent and the wav in
  ``audio_path`` is the sound, so media lists a ``silent video`` and an ``audio track``.
- Changelog: 1 (2025) first version.
- Other pipelines (``docs/formats.md``): lmms-eval samples joined to ``--gold`` (the rows file)
  by ``doc_id``; VLMEvalKit files (the CMM columns plus ``prediction``); a failed inference
  (``ERROR: ...``) is kept, not scored, counted in ``n_skipped``. The Hugging Face copy of
  ``all_data_final_reorg.json`` is a JSON array of the same rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

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
    refuse_task,
    resolve_parser,
)
from analysis.benchmarks.cmm import fast as _cmm_fast
from analysis.benchmarks.cmm import gold as _gold
from analysis.benchmarks.cmm import harnessed as _harnessed
from analysis.benchmarks.cmm import native as _native
from analysis.benchmarks.cmm import scoring as _cmm_score
from analysis.benchmarks.cmm import table as _cmm_table
from analysis.benchmarks.cmm.auditing import audit_rows
from analysis.benchmarks.cmm.columns import item_id as item_id
from analysis.benchmarks.cmm.detect import recognise as recognise
from analysis.benchmarks.cmm.names import NAME as NAME
from analysis.benchmarks.cmm.names import PARSERS as PARSERS
from analysis.benchmarks.cmm.names import TASK_REQUIRED as TASK_REQUIRED
from analysis.benchmarks.cmm.names import TASKS as TASKS
from analysis.benchmarks.cmm.read import Rows, read_rows
from analysis.benchmarks.cmm.scoring import DETAIL_GROUP, flags, grouped
from analysis.benchmarks.shared import slicing as _slicing
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.benchmarks.shared.gold_only import as_gold_only
from analysis.benchmarks.shared.kinds import YES_NO
from analysis.errors import InputError
from analysis.files import harness
from analysis.stats.clusters import ClusterStats
from analysis.stats.metrics import MetricDict
from analysis.table.columns import concat_tables, media_paths

TITLE = "CMM"
"""Display name."""
VOCABULARY: tuple[str, ...] = ("cmm", "raw_files")
"""Words only this package's code says (its id, file names, sides, tags): the seam test finds
them nowhere else in the core or the app."""
VERSION = "1"
ALT_PARSER = "negation-aware"
BOARDS: tuple[Board, ...] = (Board("CMM", None, None, ("accuracy", "pa", "hr")),)
DETECT_RANK = 2
TAKES_GOLD = False
NEEDS_GOLD: frozenset[str | None] = frozenset()
TRY_EACH_GOLD = False
CHARTS: tuple[Chart, ...] = ()
DERIVED: Mapping[str, Derived] = {}
FILES: dict[str, str] = {
    "gold": "the CMM rows as released, all_data_final_reorg.json, with no model answers",
    "predictions": "the CMM rows plus the model's answer in pred, final_output.json",
}
"""What a gold file and a prediction file of this benchmark are, for refusals of the wrong kind."""
MEDIA_ALIASES: tuple[tuple[str, str], ...] = (("raw_files", "reorg_raw_files"),)
"""Media paths start ``./raw_files/`` in the template; the released archive unpacks to
``reorg_raw_files/``."""
PAIRS: PairSpec | None = None
"""No clip pairs to validate."""
HARNESS_FORMATS: frozenset[str] = frozenset({"lmms-eval", "vlmevalkit"})
"""The general harnesses' formats ``load`` reads, besides the native one (``docs/formats.md``)."""

SPELLINGS = ("raw_files", "reorg_raw_files")
"""The two names of the media folder: the template's and the released zip's."""


def load(
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read a CMM prediction file (the official scorer's input, or a harness's file) into an item table."""
    found = harness.read(Path(predictions), fmt=fmt, mapping=mapping)
    if found is None:
        if gold is not None:
            raise InputError(gold, "cmm takes no --gold: the answers are in the prediction file")
        rows = read_rows(Path(predictions), need_pred=True)
    else:
        rows = _harnessed.rows(found, None if gold is None else Path(gold))
    refuse_task(NAME, task)
    table = _cmm_table.build(
        rows,
        name=NAME,
        model=model or _model_name(rows) or rows.path.stem,
        alt_parser=ALT_PARSER,
        with_pred=True,
    )
    if found is not None and any(found.failed):
        failed = np.array(found.failed, dtype=bool)
        table.loc[failed, "scored"] = False
        table.loc[failed, "skip_reason"] = "failed inference (ERROR: ...)"
        for column in ("correct", "alt_correct"):
            table.loc[failed, column] = pd.NA
    return table


def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """Read CMM question files (no model answers needed) into one item table."""
    return as_gold_only(
        concat_tables(
            [
                _cmm_table.build(
                    read_rows(Path(p), need_pred=False),
                    name=NAME,
                    model="",
                    alt_parser=ALT_PARSER,
                    with_pred=False,
                )
                for p in paths
            ]
        )
    )


def score(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ScoreReport:
    """Score one model's item table: overall, per sub-category, per granularity (see the card)."""
    refuse_task(NAME, task)
    parser = resolve_parser(NAME, PARSERS, parser)
    n_skipped = int((~table["scored"].to_numpy(dtype=bool)).sum())
    overall, groups = _grouped(table, parser, detail=False)
    return {
        "benchmark": NAME,
        "task": None,
        "parser": parser,
        "n_scored": int(overall["n"] or 0),
        "n_skipped": n_skipped,
        "overall": overall,
        "groups": groups,
    }


def cluster_stats(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ClusterStats:
    """Additive counts per clip for every metric and group of :func:`score`."""
    refuse_task(NAME, task)
    parser = resolve_parser(NAME, PARSERS, parser)
    table = table[table["scored"].to_numpy(dtype=bool)]
    alt = str(table["alt_parser"].iloc[0]) if len(table) else ALT_PARSER
    return _cmm_score.cluster_stats(table, flags(table, parser, alt))


def score_file(
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    parser: str | None = None,
    early: Any = _cmm_fast.NOT_READ,
) -> ScoreReport | None:
    """``score(load(predictions))`` without building the item table; None when the file needs ``load``.

    For ``halluscope score``: the same report, read at DuckDB's speed (see :mod:`.fast`).
    None (the caller then loads the file, which names any error) for a gold file argument, or a
    file the fast reader cannot vouch for. ``early``: what this package's :func:`.early.read` of
    ``predictions`` returned, when the caller ran it already (``docs/development.md``).
    """
    refuse_task(NAME, task)
    parser = resolve_parser(NAME, PARSERS, parser)
    if gold is not None:
        return None
    frame = _cmm_fast.counts(Path(predictions), early)
    if frame is None:
        return None
    overall, groups = _cmm_fast.score_counts(frame, parser, ALT_PARSER)
    return {
        "benchmark": NAME,
        "task": None,
        "parser": parser,
        "n_scored": int(overall["n"] or 0),
        "n_skipped": 0,
        "overall": overall,
        "groups": groups,
    }


def granularity_by_sub_category(table: pd.DataFrame, *, parser: str | None = None) -> dict[str, MetricDict]:
    """The official script's third table: metrics per ``"<granularity>/<sub_category>"``.

    Keys like ``object-level/visual-language``, granularities ``object-level`` and
    ``event-level`` only. Not part of :func:`score`'s report, whose groups are the two of docs/cli.md.
    """
    return _grouped(table, parser or PARSERS[0], detail=True)[1][DETAIL_GROUP]


def _grouped(
    table: pd.DataFrame, parser: str, *, detail: bool
) -> tuple[MetricDict, dict[str, dict[str, MetricDict]]]:
    parser = resolve_parser(NAME, PARSERS, parser)
    scored = table["scored"].to_numpy(dtype=bool)
    if not scored.all():
        table = table[scored]
    alt = str(table["alt_parser"].iloc[0]) if len(table) else ALT_PARSER
    return grouped(table, flags(table, parser, alt), detail=detail)


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Find data problems in CMM question files (and missing media under ``media_root``)."""
    return audit_rows([read_rows(Path(p), need_pred=False) for p in paths], media_root, candidate_paths)


def candidate_paths(path: str, root: Path) -> tuple[Path, ...]:
    """Where a media path as written (``./raw_files/...``) may be found under ``root``.

    Both folder spellings come first (the one written, then the other), then the path without
    that folder (for a root that *is* the media folder). Absolute paths, ``..`` and the string
    ``"None"`` give nothing, so a candidate never leaves ``root``.
    """
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or path == "None" or parts[0] == "/" or ".." in parts:
        return ()
    if parts[0] not in SPELLINGS:
        return (root.joinpath(*parts),)
    heads = [parts[0], *(s for s in SPELLINGS if s != parts[0])]
    found = [root.joinpath(head, *parts[1:]) for head in heads]
    if len(parts) > 1:
        found.append(root.joinpath(*parts[1:]))
    return tuple(found)


def _model_name(rows: Rows) -> str | None:
    if rows.unknown is None:
        return None
    names = {r.get("model") for r in rows.unknown}
    if len(names) == 1:
        name = names.pop()
        return name if isinstance(name, str) and name else None
    return None


def gold_kind(task: str, original: str | None) -> GoldKind:
    """Yes/no."""
    return YES_NO


def options(extra: Mapping[str, Any]) -> list[str]:
    """None kept outside the ``options`` column."""
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """The official substring rule on ``pred[:5]`` and the alternative reading, against the new gold."""
    _gold.rescore(table, rows, labels)


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """The JSONL (gold and predictions in one) with corrected ``answer``."""
    return _native.write_corrected(path, gold, load_as_shown(load_gold, load, path))


def slicing(table: pd.DataFrame) -> Slicing:
    """The yes- and no-probes of one clip hang together.

    Modality and correlation type come from the question file (``extra``).
    """
    attributes = _slicing.from_extra(table, {"modality": "modality", "correlation": "correlation_type"})
    return Slicing(_slicing.text(table, "media"), attributes, SliceMetric("HR", _hr))


def _hr(rows: pd.DataFrame) -> float | None:
    """Hallucination resistance (accuracy on the no-probes) of one model's rows; None without any."""
    if not len(rows):
        return None
    report = score(rows)
    value = report["overall"].get("hr")
    no_probes = rows["gold"].astype("string").str.strip().str.lower().eq("no").sum()
    return float(value) if value is not None and no_probes else None


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """No chart columns of its own."""
    return {}


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``video_path``, ``audio_path`` and ``question``, the fields :func:`item_id` hashes.

    A path the row has none of (null, ``"None"`` or empty in the file) is null.
    """
    paths = [media_paths(m) for m in table["media"].astype("string").fillna("")]
    return [
        {"video_path": found.get("video"), "audio_path": found.get("audio"), "question": question}
        for found, question in zip(paths, table["question"].astype(str), strict=True)
    ]


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    from analysis.benchmarks import cmm as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
