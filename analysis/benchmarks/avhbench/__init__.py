"""AVHBench: audio-visual hallucination in audio-visual LLMs (ICLR 2025).

Card
----
- Paper: Sung-Bin et al., "AVHBench: A Cross-Modal Hallucination Benchmark for Audio-Visual
  Large Language Models" (ICLR 2025). Data and code: github.com/kaist-ami/AVHBench.
- Gold: ``QA.json``, a JSON list of ``{video_id, task, text, label}`` (all strings, no id).
  Tasks: ``Audio-driven Video Hallucination`` (1,136), ``Video-driven Audio Hallucination``
  (2,290), ``AV Matching`` (1,876), all Yes/No; ``AV Captioning`` (1,106, a reference caption).
  Media: ``{video_id}.mp4`` with the audio embedded, one flat folder.
- Official scorer: **none exists.** Third-party scorers disagree (a substring anywhere, yes-words
  before no-words, negation-aware). Default parser ``first-word``: lower-case, drop punctuation,
  the first word must be yes or no, anything else is unparsed. Also ``negation-aware`` (kept in
  the table as the alternative) and ``substring`` (the third-party rule ``gold in answer`` on
  lower-cased text: an answer holding both words is correct for either gold and reads as yes).
- Metrics, positive class yes, an unparsed answer wrong and neither yes nor no: accuracy,
  precision = TP / predicted yes, recall = PA = TP / gold yes, F1, yes ratio = predicted yes / n,
  HR = TN / gold no, unparsed count; null when undefined. Overall and per ``task``.
- Identity: item = (``video_id``, stripped ``text``); ``item_id`` = ``item_key`` of those.
- Data quirks: the release has 5 exact duplicate records and 7 repeated keys, 2 with conflicting
  labels (``01444`` "Is the car making sound in the audio?", ``00332`` "Is the man visible in the
  video?"). Among yes/no records the first occurrence of a key is scored, later ones stay in the
  table with ``scored=False`` and count in ``n_skipped`` (5,302 binary records become 5,295).
  :func:`audit` reports both facts from the data.
- Deviations / choices: captioning rows are shown but neither scored nor counted in
  ``n_skipped``; a yes/no-task record whose gold is not Yes/No is not scored (``n_skipped``); a
  null answer is unparsed (wrong); a record lacking task or label is matched to ``--gold``
  QA.json on (video_id, stripped text), and one that matches nothing is an input error; when
  ``--gold`` is given its label wins over a label inside the record (a corrected QA.json then
  scores as corrected). ``id: "<video_id>.mp4"`` gives the video id.
- Corrections: gold is yes/no (captioning references: text); corrected copies rewrite ``label``
  (or ``ground_truth`` / ``answer``) of QA.json and of prediction files that carry gold.
- Other pipelines (``docs/formats.md``): MAD's list (``prediction = "ERROR: ..."`` is a failed
  inference: kept, not scored, counted in ``n_skipped``), AVCD's JSONL, lmms-eval samples joined
  to ``--gold`` by ``doc_id``, VLMEvalKit and LLaVA files, ``--map``. A trailing answer
  instruction in the question (``" Answer yes or no."``) is not part of the item.
- Scoring VERSION 3. Changelog: 1 (2025) first version; 2 (2026) a given gold file wins over
  labels inside prediction records (before, the records' labels won and ``--gold`` was ignored);
  3 (2026) failed inferences (``ERROR: ...``) are skipped, not scored as unparsed; the prompt
  suffix is dropped from the item key (MAD / AVCD items join QA.json).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks.avhbench import gold as _gold
from analysis.benchmarks.avhbench import native as _native
from analysis.benchmarks.avhbench import table as _avh_table
from analysis.benchmarks.avhbench.auditing import audit_records
from analysis.benchmarks.avhbench.detect import recognise as recognise
from analysis.benchmarks.avhbench.names import NAME as NAME
from analysis.benchmarks.avhbench.names import PARSERS as PARSERS
from analysis.benchmarks.avhbench.names import TASK_REQUIRED as TASK_REQUIRED
from analysis.benchmarks.avhbench.names import TASKS as TASKS
from analysis.benchmarks.avhbench.read import read
from analysis.benchmarks.base import (
    Board,
    Bools,
    Chart,
    Derived,
    Finding,
    GoldKind,
    PairSpec,
    ScoreReport,
    Slicing,
    refuse_task,
    resolve_parser,
)
from analysis.benchmarks.shared import slicing as _slicing
from analysis.benchmarks.shared.corrected import load_as_shown
from analysis.benchmarks.shared.gold_only import as_gold_only
from analysis.benchmarks.shared.yesno import first_word, negation_aware, read_column
from analysis.files.readers import without_gc_pauses
from analysis.stats.clusters import ClusterStats, masks, scope_verdicts, tally
from analysis.stats.metrics import (
    NO,
    UNPARSED,
    YES,
    MetricDict,
    binary_counts,
    binary_metrics,
    binary_metrics_of,
)
from analysis.table.columns import concat_tables, media_paths

TITLE = "AVHBench"
"""Display name."""
VOCABULARY: tuple[str, ...] = ("avhbench", "AVHBench")
"""Words only this package's code says (its id, file names, sides, tags): the seam test finds
them nowhere else in the core or the app."""
VERSION = "3"
ALT_PARSER = "negation-aware"
_YES_NO = ("accuracy", "f1", "precision", "recall", "yes_ratio")
BOARDS: tuple[Board, ...] = (
    Board("AVHBench, all yes/no tasks", None, None, _YES_NO),
    Board("Audio-driven Video Hallucination", None, ("task", "Audio-driven Video Hallucination"), _YES_NO),
    Board("Video-driven Audio Hallucination", None, ("task", "Video-driven Audio Hallucination"), _YES_NO),
    Board("AV Matching", None, ("task", "AV Matching"), _YES_NO),
)
DETECT_RANK = 9
TAKES_GOLD = True
NEEDS_GOLD: frozenset[str | None] = frozenset()
TRY_EACH_GOLD = False
CHARTS: tuple[Chart, ...] = ()
DERIVED: Mapping[str, Derived] = {}
FILES: dict[str, str] = {
    "gold": "QA.json, the questions and labels with no model answers",
    "predictions": "QA records with the model's answer in pred / prediction / response, "
    "or a method repository's output (MAD, AVCD)",
}
"""What a gold file and a prediction file of this benchmark are, for refusals of the wrong kind."""
MEDIA_ALIASES: tuple[tuple[str, str], ...] = ()
"""Media paths as the files write them."""
PAIRS: PairSpec | None = None
"""No clip pairs to validate."""
HARNESS_FORMATS: frozenset[str] = frozenset({"lmms-eval", "vlmevalkit", "llava"})
"""The general harnesses' formats ``load`` reads, besides the native one (``docs/formats.md``)."""

CAPTIONING = _avh_table.CAPTIONING
BOTH = 2
"""Reading code of an answer holding both yes and no (``substring`` only): right for either gold."""


def substring(text: str) -> int:
    """Third-party rule: ``yes`` / ``no`` anywhere in the lower-cased text (both: :data:`BOTH`)."""
    low = text.strip().lower()
    yes, no = "yes" in low, "no" in low
    if yes and no:
        return BOTH
    return YES if yes else NO if no else UNPARSED


READERS = {"first-word": first_word, "negation-aware": negation_aware, "substring": substring}


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
    """Read one model's AVHBench answers (any of the three shapes) into an item table."""
    refuse_task(NAME, task)
    # the records are freed (when _table returns) before the collector resumes
    return _table(Path(predictions), None if gold is None else Path(gold), model, fmt, mapping)


def _table(
    predictions: Path,
    gold: Path | None,
    model: str | None,
    fmt: str | None,
    mapping: Mapping[str, str] | None,
) -> pd.DataFrame:
    parsed = read(predictions, need_pred=True, gold=gold, fmt=fmt, mapping=mapping)
    return _avh_table.build(
        parsed, name=NAME, model=model, readers=(first_word, READERS[ALT_PARSER]), alt_parser=ALT_PARSER
    )


def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """Read QA.json files alone into an item table (no model), so gold can be browsed."""
    return as_gold_only(
        concat_tables(
            [
                _avh_table.build(
                    read(Path(p), need_pred=False), name=NAME, model="", readers=None, alt_parser=ALT_PARSER
                )
                for p in paths
            ]
        )
    )


def score(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ScoreReport:
    """Score one model's item table: overall and per task (see the card)."""
    refuse_task(NAME, task)
    parser = resolve_parser(NAME, PARSERS, parser)
    r = _readings(table, parser)
    groups: dict[str, MetricDict] = {}
    for name in r.task_names:
        mask = r.tasks == name
        groups[name] = binary_metrics(r.pred[mask], r.gold_yes[mask], r.correct[mask])
    return {
        "benchmark": NAME,
        "task": None,
        "parser": parser,
        "n_scored": len(r.rows),
        "n_skipped": r.n_skipped,
        "overall": binary_metrics(r.pred, r.gold_yes, r.correct),
        "groups": {"task": groups},
    }


def cluster_stats(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ClusterStats:
    """Additive statistics per video (its questions hang together), for ``score``'s every metric."""
    refuse_task(NAME, task)
    r = _readings(table, resolve_parser(NAME, PARSERS, parser))
    columns = binary_counts(r.pred, r.gold_yes, r.correct)
    scopes = [(None, np.ones(len(r.rows), dtype=bool)), *masks(r.tasks, r.task_names, "task")]
    keys, values = tally(r.rows["media"].to_numpy(dtype=object), columns, scopes)
    verdicts = scope_verdicts("accuracy", r.correct, r.rows["item_id"], scopes)
    return ClusterStats(
        "video",
        keys,
        tuple(columns),
        tuple(s for s, _ in scopes),
        values,
        binary_metrics_of,
        ("task",),
        verdicts,
    )


@dataclass(frozen=True)
class _Readings:
    rows: pd.DataFrame
    pred: npt.NDArray[np.int8]
    gold_yes: npt.NDArray[np.bool_]
    correct: npt.NDArray[np.bool_]
    tasks: npt.NDArray[np.object_]
    task_names: list[str]
    n_skipped: int


def _readings(table: pd.DataFrame, parser: str) -> _Readings:
    """The scored yes/no rows with their reading codes, gold and verdicts under ``parser``."""
    binary = (table["task"].astype("string") != CAPTIONING).to_numpy(dtype=bool, na_value=True)
    scored = table["scored"].to_numpy(dtype=bool) & binary
    rows = table[scored]
    code = _codes(rows, parser)
    gold_yes = (rows["gold"].str.strip().str.lower() == "yes").to_numpy(dtype=bool, na_value=False)
    correct = np.where(gold_yes, (code == YES) | (code == BOTH), (code == NO) | (code == BOTH))
    pred = np.where(code == BOTH, YES, code).astype(np.int8)
    tasks = rows["task"].astype("string").to_numpy(dtype=object)
    names = [str(n) for n in dict.fromkeys(table["task"].astype("string")[binary].tolist())]
    return _Readings(rows, pred, gold_yes, correct, tasks, names, int((binary & ~scored).sum()))


def _codes(rows: pd.DataFrame, parser: str) -> npt.NDArray[np.int8]:
    """Readings by ``parser``: from the table's columns when it holds them, else re-parsed."""
    column = {"first-word": "parsed"}.get(parser)
    if column is None and len(rows) and (rows["alt_parser"].astype("string") == parser).all():
        column = "alt_parsed"
    if column is None:
        return read_column(rows["raw_answer"], READERS[parser])
    words = rows[column]
    code = np.full(len(rows), UNPARSED, dtype=np.int8)
    code[(words == "yes").to_numpy(dtype=bool, na_value=False)] = YES
    code[(words == "no").to_numpy(dtype=bool, na_value=False)] = NO
    return code


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Find data problems in QA.json files (and missing or unreadable videos under ``media_root``)."""
    return audit_records([read(Path(p), need_pred=False) for p in paths], media_root)


def gold_kind(task: str, original: str | None) -> GoldKind:
    """Yes/no, except the captioning references (text)."""
    return _gold.gold_kind(task, original)


def options(extra: Mapping[str, Any]) -> list[str]:
    """None kept outside the ``options`` column."""
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """The parsed yes/no against the corrected gold (both readings)."""
    _gold.rescore(table, rows, labels)


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """QA.json, or a prediction file carrying labels, with corrected labels."""
    return _native.write_corrected(path, gold, load_as_shown(load_gold, load, path))


def slicing(table: pd.DataFrame) -> Slicing:
    """Questions on one video hang together; no attributes beyond the task."""
    return Slicing(_slicing.text(table, "media"), {})


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """No chart columns of its own."""
    return {}


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``video_id`` and ``text`` (the question without an answer instruction): a record's key."""
    videos = [media_paths(m).get("video", "") for m in table["media"].astype("string").fillna("")]
    return [
        {"video_id": video.removesuffix(".mp4"), "text": text}
        for video, text in zip(videos, table["question"].astype(str), strict=True)
    ]


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    from analysis.benchmarks import avhbench as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
