r"""VidHalluc (CVPR 2025): temporal hallucinations of video models. Tasks bqa, mcq, tsh, sth.

CARD
====
Paper: "VidHalluc: Evaluating Temporal Hallucinations in Multimodal Large Language Models for Video
Understanding" (CVPR 2025). 5,002 videos, 9,295 questions. ACH (action hallucination) asks about
pairs of clips that look alike to CLIP but differ to DINOv2, as binary QA (``bqa``) and multiple
choice (``mcq``); TSH orders two actions; STH detects a scene change and names both locations.

Official scorer: ``eval/evaluation/eval_{bqa,mcq,tsh,sth}.py`` of the Vid-Halluc/VidHalluc repository.
Parser ``official`` reproduces each one exactly, quirks included; ``lenient`` is this project's
better reading, kept beside it (``alt_parsed``/``alt_correct``) so reviewers see which verdicts
hang on the parser. Paper "Avg." = plain mean of BQA, MCQ, TSH accuracy and the STH score.

bqa -- gold ``ach_binaryqa.json`` (``--gold``, required) ``{group: [{"q", "a": {clip: "Yes"|"No"}}]}``;
  predictions mirror it with raw text per clip. Rows: one per (group, question index, clip);
  ``pair_id`` = group, ``side`` = clip, media ``<clip>.mp4``; item id from (group, index, clip).
  Official: questions matched by list position (``q`` not compared); a group absent from the
  predictions or empty (any falsy value) is skipped whole; an index beyond the prediction list is
  skipped; an absent or null clip answer makes the question wrong; extra predictions are ignored
  (they get no rows). Clip rule ``pred.strip().split('.')[0].split(',')[0].strip().upper() ==
  gold.strip().upper()`` (``parsed`` holds that left side, e.g. ``YES``). A question is right iff
  all its clips are; accuracy = right / counted questions; ``n`` = counted questions;
  ``n_skipped`` = skipped *questions* (their clip rows stay, ``scored`` False). Quirk kept: a gold
  question with no clips counts as right (all of nothing); it keeps one row with an empty side.
  Lenient: :func:`~analysis.benchmarks.shared.yesno.negation_aware` (first explicit yes/no word,
  else a negation reads no, else an affirmation yes), so "Yes, ..." and "No, ..." agree with
  official while "The person is not running" reads NO instead of failing.

mcq -- the official inference output ``{group: {clip: {"Question", "Choices", "Correct Answer",
  "Model Answer"}}}``; also its scorer's input ``{"gt": ..., "pred": ...}``, or predictions with
  ``--gold ach_mcq.json``. One row per clip; ``options`` = JSON list ``["A. text", ...]`` (the
  prompt's form); the exact ``Choices`` object is in ``extra``. Official: model letters
  ``re.findall(r'\b[A-D]\b', raw)`` case-sensitive (a leading article "A" is option A, "AB" gives
  nothing), else the first choice in dict order whose lower-cased text is in the lower-cased answer;
  gold = every A-D character of the stripped upper-cased ``Correct Answer`` ("AC" is {A, C});
  right iff the sets are equal (two empty sets are). ``parsed`` = sorted letters ("AC"). With
  ``gt``/``pred`` or ``--gold``: a group absent or empty in the predictions is skipped
  (``n_skipped`` clips); a clip absent from a present group counts and is wrong. ``n`` = clips.
  Lenient: (1) an answer of letters and separators only ("AB", "A, C", "A and C", "Answer: (B).")
  gives those letters; (2) else upper-case tokens of 1-4 distinct letters A-D anywhere ("AB" is
  {A, B}), skipping a sentence-initial article "A" followed by a lower-case word ("A man is...");
  (3) else the choice text found as whole words, the longest when several match; empty choice
  texts never match.

tsh -- ``{idx: {"video", "Question", "Correct Answer": "AB"|"BA", "Model Answer"}}``; no gold file
  (``--gold`` is refused). Item id from (idx, video). Official, on the answer lower-cased WITHOUT
  strip: exactly ab/ba/a/b -> that; "not clear"/"no clear" anywhere -> None; both "action a" and
  "action b" -> the first of the substrings before/then/after present (so "authentic" fires
  "then") selects the one regex tried, ``(action [ab]|[ab][\.\)])[^before]+before[^action]*?
  (action [ab]|[ab][\.\)])`` (``[^before]`` is a character class: not b, e, f, o, r; with
  "after" the captures swap); if it fails, every ``(action [ab]|[ab][\.\)])`` match in order. Each
  match gives its LAST character upper-cased, so "a." gives "." and "AB." / "AB\n" are wrong. One
  action mentioned -> it; none -> None. Right iff equal to the gold, case-sensitive; the official
  function returns the *string* 'None', so a gold of "None" would match an unclear answer (kept).
  Accuracy over entries; an empty object gives 0 (official convention); ``n`` = entries,
  ``n_skipped`` = 0.
  Lenient: (1) the answer stripped of spaces and punctuation is ab/ba/a/b in any case; (2) an
  upper-case AB/BA token, or "A -> B", "B, A", "A then B" with capital letters; (3) mentions
  ("action a", "(b)", "a." not inside a word) give their letter; with both letters, the first pair
  of consecutive different mentions joined by an ordering word decides ("before", "then",
  "followed by", "first", "after that"... keep; "after", "following", "preceded by" reverse),
  else first appearance; (4) one letter -> it; none -> None. Gold compared stripped, upper-cased.

sth -- gold ``sth.json`` (``--gold``, required) ``{id: {"Scene change", "Locations"}}``; predictions
  ``{id: raw}``. Ids in both files are scored in prediction order (``n``); ids in one file only keep
  an unscored row and count in ``n_skipped`` (both kinds). Official parse: split at the first
  ``", Locations: "`` (locations = the stripped rest, else ""); the scene word follows the first
  ``": "``, cut at a comma, stripped; yes iff it equals "yes" lower-cased, all else is no (no
  unparsed); gold yes iff ``Scene change`` lower-cased is "yes". ``parsed`` = yes/no,
  ``correct`` = the classification agrees. Classification = ((MCC + 1) / 2)^2, MCC 0 when
  undefined (scikit-learn's convention). Description over ids where gold and prediction are both
  yes: ``re.match(r"from (.+?) to (.+?)\.", s, re.I)`` on both sides (captures stripped), cosine of
  SimCSE CLS embeddings per side, side score 0 if s <= 0.5 else (sig(s) - sig(0.5)) / (sig(1) -
  sig(0.5)); a missing or non-matching description scores 0 but counts; description = sum /
  (2 x #both-yes), 0 when none. Score = 0.6 classification + 0.4 description.
  The embedder is pluggable (:mod:`.embedder`; ``score(..., embedder=...)``), by default
  SimCSE ``princeton-nlp/sup-simcse-roberta-large`` from local files only (a folder in
  ``HALLUSCOPE_SIMCSE_PATH`` or the Hugging Face cache), loaded once and only when a side needs it.
  ``description_score`` and ``score`` are null only when some side needs an embedding and none is
  available; the reason is logged as a warning (logger ``halluscope.vidhalluc``, one line on
  stderr from the CLI) so the JSON keeps exactly the documented keys. With ``n`` = 0 the official
  script stops; here MCC is 0 as cli.md states (so classification 0.25, description 0, score
  0.15). Each sentence is embedded alone (no padding) and cosine
  is taken in float32, as scikit-learn does on the official float32 vectors.
  Lenient: scene from a "scene change ... yes/no" label anywhere (any case or separator), else the
  first word yes/no, else yes when a "from X to Y" is described; locations = the first "from X to
  Y" after a "Locations" label (or anywhere), ended by a full stop, semicolon, line end or the
  text's end, rewritten "from X to Y."; gold scene stripped before comparison.

Deviations (bad input the official scripts crash on): a null ``Model Answer`` (mcq, tsh) or a null
STH answer reads as an empty answer (wrong); a null ``a`` in a bqa prediction question reads as no
answers. Every other malformed value raises InputError naming file, record (group / question / clip
or key) and field. Gold-only tables (:func:`load_gold`) have ``scored`` False, reason "gold only".
Media: ``<clip id>.mp4`` relative to the media root (the TSH zip may nest a folder deeper; the audit
searches the whole root). Known bad videos in the release (e.g. eXMF6Skt2To_clip_3,
KVaTsulE5Z0_clip_2/3) are found by :func:`audit` from the files themselves: empty, no ``ftyp``
box at byte 4, a top-level box cut short, or no ``moov`` box (headers are read, never decoded).

Audit (:func:`audit`, from the data): bqa questions whose clips all share one gold (a pair's clips
must show different actions), single-clip or clip-less questions, labels other than Yes/No; mcq
choices not exactly A-D, repeated choice texts, a Correct Answer with no A-D letter or one outside
the choices; tsh Correct Answer not AB/BA; sth Scene change not Yes/No, or Yes with Locations that
do not read "from X to Y."; missing or unplayable clips under the media root.

- Other pipelines (``docs/formats.md``): the VLMEvalKit fork's ``VideoHalluc_BQA|_MCQ|_TSH|_STH``
  prediction files, rows put back into the official files' shape (no ``--gold``: rows carry gold).

Changelog: 1.0 -- first version: four official scorers, lenient parsers, pluggable STH embedder.
1.1 -- STH with nothing to score gives MCC 0 (and the scores that follow from it), not null.
1.2 -- the STH description score summed with ``math.fsum`` (correctly rounded, whatever the order
of the pairs); a score may differ from 1.1's in its last digit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

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
    Slicing,
    resolve_parser,
)
from analysis.benchmarks.shared import slicing as _slicing
from analysis.benchmarks.vidhalluc import auditing as gold_files
from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc import gold as _gold
from analysis.benchmarks.vidhalluc import harnessed as _harnessed
from analysis.benchmarks.vidhalluc import native as _native
from analysis.benchmarks.vidhalluc import pairs as _pairs
from analysis.benchmarks.vidhalluc import stats as stats
from analysis.benchmarks.vidhalluc.common import ALT, model_name
from analysis.benchmarks.vidhalluc.detect import recognise as recognise
from analysis.benchmarks.vidhalluc.embedder import SIMCSE_ENV, SIMCSE_NAME, SentenceEmbedder
from analysis.benchmarks.vidhalluc.names import NAME as NAME
from analysis.benchmarks.vidhalluc.names import PARSERS as PARSERS
from analysis.benchmarks.vidhalluc.names import TASK_REQUIRED as TASK_REQUIRED
from analysis.benchmarks.vidhalluc.names import TASKS as TASKS
from analysis.errors import InputError
from analysis.files import harness
from analysis.files.readers import read_object, without_gc_pauses
from analysis.stats.clusters import ClusterStats
from analysis.stats.metrics import MetricDict
from analysis.table.columns import concat_tables, media_paths

TITLE = "VidHalluc"
"""Display name."""
VOCABULARY: tuple[str, ...] = ("vidhalluc", "ach_binaryqa", "ach_mcq")
"""Words only this package's code says (its id, file names, sides, tags): the seam test finds
them nowhere else in the core or the app."""
VERSION = "1.2"
ALT_PARSER = ALT
_NEEDS_SIMCSE = (
    f"the official scorer embeds scene descriptions with {SIMCSE_NAME}, which must be on local disk "
    f"(a folder in ${SIMCSE_ENV}, or the Hugging Face cache); halluscope never downloads it"
)
BOARDS: tuple[Board, ...] = (
    Board("ACH binary QA (a question counts when every clip is right)", "bqa", None, ("accuracy",)),
    Board("ACH multiple choice", "mcq", None, ("accuracy",)),
    Board("TSH temporal order", "tsh", None, ("accuracy",)),
    Board(
        "STH scene change",
        "sth",
        None,
        ("score", "classification_score", "description_score", "mcc"),
        {"score": _NEEDS_SIMCSE, "description_score": _NEEDS_SIMCSE},
    ),
)
DETECT_RANK = 0
TAKES_GOLD = True
NEEDS_GOLD: frozenset[str | None] = frozenset({"bqa", "sth"})
TRY_EACH_GOLD = False
CHARTS: tuple[Chart, ...] = ()
DERIVED: Mapping[str, Derived] = {}
FILES: dict[str, str] = {
    "gold": "an annotation file, ach_binaryqa.json, ach_mcq.json, tsh.json or sth.json, no model answers",
    "predictions": "a results file of the task: a Model Answer per clip, or the model's text per clip or id",
}
"""What a gold file and a prediction file of this benchmark are, for refusals of the wrong kind."""
MEDIA_ALIASES: tuple[tuple[str, str], ...] = ()
"""Media paths as the files write them."""
PAIRS: PairSpec | None = _pairs.PAIRS
"""ACH's clip pairs, validated by hand in the Pair validation tab."""
HARNESS_FORMATS: frozenset[str] = frozenset({"vlmevalkit"})
"""The general harnesses' formats ``load`` reads, besides the native one (``docs/formats.md``)."""

_GOLD_FILE = {"bqa": "ach_binaryqa.json", "sth": "sth.json"}
_GOLD_LOADERS = {"bqa": bqa.load_gold, "mcq": mcq.load_gold, "tsh": tsh.load_gold, "sth": sth.load_gold}


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
    """Read one model's output for one task (bqa and sth need the gold file).

    A VLMEvalKit prediction file of the fork's ``VideoHalluc_*`` datasets carries its gold and is
    read without ``--gold`` (:mod:`~analysis.benchmarks.vidhalluc.harnessed`).
    """
    task = _task(task)
    who = model_name(predictions, model)
    found = harness.read(Path(predictions), fmt=fmt, mapping=mapping)
    if found is not None:
        if found.format == "lmms-eval":
            raise InputError(
                predictions,
                "vidhalluc does not read lmms-eval samples: a doc_id cannot be "
                "joined to the nested annotation files (use the VLMEvalKit or official files)",
            )
        if gold is not None:
            raise InputError(gold, "a VLMEvalKit VidHalluc file carries its gold: --gold does not apply")
        return _harnessed.load(found, task, who)
    if task in _GOLD_FILE and gold is None:
        raise InputError(
            predictions,
            f"vidhalluc {task} needs --gold {_GOLD_FILE[task]}: the prediction file holds no gold answers",
        )
    if task == "bqa":
        assert gold is not None
        return bqa.load(predictions, gold, who)
    if task == "sth":
        assert gold is not None
        return sth.load(predictions, gold, who)
    if task == "tsh":
        if gold is not None:
            raise InputError(
                gold, "vidhalluc tsh takes no --gold: the prediction file carries the Correct Answer"
            )
        return tsh.load(predictions, who)
    return mcq.load(predictions, gold, who)


@without_gc_pauses
def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """The gold files (any of the four, recognised by shape or name) as one table to browse."""
    tables = []
    for path in paths:
        data = read_object(path)
        task = gold_files.detect(path, data)
        tables.append(_GOLD_LOADERS[task](path, data))
    return concat_tables(tables)


def score(
    table: pd.DataFrame,
    *,
    task: str | None = None,
    parser: str | None = None,
    embedder: SentenceEmbedder | Literal["auto"] | None = "auto",
) -> ScoreReport:
    """Score one model's rows of one task; verdicts are recomputed from ``raw_answer`` and ``gold``.

    ``embedder`` (sth only): a :class:`~.embedder.SentenceEmbedder`, None for none, or
    "auto" for SimCSE from local files (loaded once, and only if a description needs it).
    """
    parser = resolve_parser(NAME, PARSERS, parser)
    task = _task(task if task is not None else _only_task(table))
    rows = table[table["task"].astype(str) == task]
    metrics: MetricDict
    if task == "sth":
        metrics, n, skipped = sth.overall(rows, parser, embedder)
    else:
        metrics, n, skipped = {"bqa": bqa.overall, "mcq": mcq.overall, "tsh": tsh.overall}[task](rows, parser)
    return {
        "benchmark": NAME,
        "task": task,
        "parser": parser,
        "n_scored": n,
        "n_skipped": skipped,
        "overall": metrics,
        "groups": {},
    }


def cluster_stats(
    table: pd.DataFrame,
    *,
    task: str | None = None,
    parser: str | None = None,
    embedder: SentenceEmbedder | Literal["auto"] | None = "auto",
) -> ClusterStats:
    """Additive statistics of one task per cluster (clip pair for bqa/mcq, video for tsh/sth)."""
    parser = resolve_parser(NAME, PARSERS, parser)
    task = _task(task if task is not None else _only_task(table))
    rows = table[table["task"].astype(str) == task]
    if task == "sth":
        return stats.sth_stats(rows, parser, embedder)
    return {"bqa": stats.bqa_stats, "mcq": stats.mcq_stats, "tsh": stats.tsh_stats}[task](rows, parser)


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Data problems of the gold files, and of their clips when ``media_root`` is given."""
    return gold_files.audit(paths, media_root)


def _task(task: str | None) -> str:
    if task is None or task not in TASKS:
        raise ValueError(f"{NAME} needs a task, one of {', '.join(TASKS)} (got {task!r})")
    return task


def _only_task(table: pd.DataFrame) -> str | None:
    tasks = sorted(set(table["task"].astype(str)))
    return tasks[0] if len(tasks) == 1 else None


def gold_kind(task: str, original: str | None) -> GoldKind:
    """BQA yes/no, MCQ a set of letters, TSH an order, STH a scene change with its locations."""
    return _gold.gold_kind(task, original)


def options(extra: Mapping[str, Any]) -> list[str]:
    """MCQ items keep their choices as the file has them (``Choices``: letter -> text) in ``extra``."""
    choices = extra.get("Choices")
    if isinstance(choices, dict):
        return [f"{k}. {v}" for k, v in choices.items()]
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """Each task's own verdicts against the new gold (STH also takes the corrected locations)."""
    _gold.rescore(table, rows, labels)


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """A gold file, or an MCQ / TSH result file (they carry ``Correct Answer``), corrected."""
    return _native.write_corrected(path, gold)


def slicing(table: pd.DataFrame) -> Slicing:
    """The questions on a clip pair hang together (a video's for TSH and STH).

    The clip's place in its pair (``clip 1``, ``clip 2``...) is an attribute.
    """
    side = _slicing.text(table, "side")
    place = pd.Series(side).str.extract(r"_clip_(\d+)$")[0].fillna("")
    clip = np.where(place != "", "clip " + place, "").astype(object)
    clusters = _slicing.clusters_or(_slicing.text(table, "pair_id"), _slicing.text(table, "media"))
    return Slicing(clusters, {"clip": clip})


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """No chart columns of its own."""
    return {}


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The key of each row's record, which depends on its task.

    BQA ``group``, ``q``, ``clip_id``; MCQ ``group``, ``clip_id``; TSH ``video``; STH ``video_id``.
    A clip pair's group and clip are the item's pair and side; a TSH or STH clip is its video.
    """
    columns = ("task", "pair_id", "side", "question", "media")
    rows = zip(*(table[name].astype("string").fillna("") for name in columns), strict=True)
    out: list[dict[str, Any]] = []
    for task, pair, side, question, media in rows:
        clip = media_paths(media).get("video", "").removesuffix(".mp4")
        if task == "bqa":
            out.append({"group": pair, "q": question, "clip_id": side})
        elif task == "mcq":
            out.append({"group": pair, "clip_id": side})
        else:
            out.append({"video": clip} if task == "tsh" else {"video_id": clip})
    return out


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    from analysis.benchmarks import vidhalluc as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
