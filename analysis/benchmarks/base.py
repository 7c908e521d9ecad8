"""What every benchmark package offers: the one seam between a benchmark and the rest of halluscope.

A benchmark is a package (``analysis/benchmarks/<id>/``) whose ``__init__`` has the attributes and
functions of :class:`Benchmark`: reading and telling apart its files, scoring, auditing, the gold
values a reviewer may give, rescoring against corrected gold, writing corrected native files and
the columns its charts derive. The catalog, the store, the charts and the app ask these and never
name a benchmark. ``tests/test_registry_conformance.py`` checks every registered package.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.errors import UsageError
from analysis.stats.clusters import ClusterStats
from analysis.stats.metrics import MetricDict


class ScoreReport(TypedDict):
    """The JSON object ``halluscope score --json`` prints (see ``docs/cli.md``)."""

    benchmark: str
    task: str | None
    parser: str
    n_scored: int
    n_skipped: int
    overall: MetricDict
    groups: dict[str, dict[str, MetricDict]]


Severity = Literal["error", "warning"]

Role = Literal["gold", "predictions", "manifest"]

CellRole = Literal["key", "sum", "row"]
"""How the pre-grouped chart counts (:class:`analysis.charts.cells.ChartCells`) treat a derived column."""

Bools = npt.NDArray[np.bool_]

Content = list[dict[str, Any]] | dict[str, Any]
"""What detection looks at: the first records of a JSON list / JSONL file, or a JSON object."""


@dataclass(frozen=True)
class Detected:
    """What a file is: its benchmark, its task (where the file holds one task) and its role."""

    benchmark: str
    task: str | None
    role: Role
    by_name: bool = field(default=False, compare=False)
    """The role was told by the file's name alone (content cannot settle it): a guess that a
    refusal of the wrong kind of file never relies on."""


@dataclass(frozen=True)
class Fix:
    """One correction a reviewer can apply as it stands: a row of ``halluscope import``."""

    item_id: str
    field: str
    """``gold``, ``flag`` or ``note`` (as in a correction row)."""
    value: str
    """The native value (``"yes"``, ``"B"``) or the flag name (``invalid-question``...)."""


@dataclass(frozen=True)
class Finding:
    """One data problem found by an audit, from the data itself."""

    check: str
    """Kind of problem: ``conflicting-duplicate``, ``duplicate-record``, ``inverted-polarity``,
    ``malformed-options``, ``duplicate-options``, ``same-gold-both-sides``, ``missing-media``,
    ``unreadable-media``, ``question-mismatch``..."""
    where: str
    """How a person finds the item: a key, a pair id, a clip id."""
    detail: str
    """What is wrong, in a sentence."""
    severity: Severity = "warning"
    item_ids: tuple[str, ...] = ()
    """Item-table ids of the rows concerned, so the app can queue them for review."""
    fix: tuple[Fix, ...] = ()
    """The suggested correction, applied in one step (all rows or none); empty when the data
    cannot say what the right value is."""

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form for ``halluscope audit --json``."""
        return {
            "check": self.check,
            "where": self.where,
            "detail": self.detail,
            "severity": self.severity,
            "item_ids": list(self.item_ids),
            "fix": [self.fix_row(f) for f in self.fix],
        }

    def fix_row(self, fix: Fix) -> dict[str, str]:
        """One suggested correction as a ``halluscope import`` row (the reason names the check)."""
        return {
            "item_id": fix.item_id,
            "field": fix.field,
            "value": fix.value,
            "reason": f"audit {self.check}: {self.detail}",
        }


SpanKind = Literal["hit", "miss", "false alarm", "not compared"]
"""How a piece of a tagged text was judged: both tag it, only the gold, only the answer, not compared."""


@dataclass(frozen=True)
class SpanPiece:
    """A piece of a tagged gold text with how it was judged (None: untagged text)."""

    text: str
    kind: SpanKind | None
    label: str | None = None
    """Label type of the gold tag the piece belongs to (hits and misses only)."""


@dataclass(frozen=True)
class SpanView:
    """A tagged gold text against the answer's tags, as the inspector shows it."""

    pieces: list[SpanPiece]
    scores: dict[str, float]
    """Token ``precision``, ``recall``, ``f1`` and ``iou`` of this item."""
    compared: int
    """Tokens compared."""
    gold_tokens: int
    predicted_tokens: int


def token_runs(selected: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive token indices as ``(first, last)`` pairs, in order.

    Each run is one tag (:meth:`Tagging.tag_tokens`).
    """
    runs: list[tuple[int, int]] = []
    for index in sorted(set(selected)):
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


class Tagging(Protocol):
    """How a ``tagged`` gold kind reads and writes its markup (a benchmark's own tag rules).

    The reviewer's token picker and the inspector's span view ask it; they never parse tags.
    """

    def strip(self, tagged: str) -> str:
        """The text without its tags (the official reading)."""
        ...

    def tokens(self, clean: str) -> list[tuple[int, int]]:
        """Token spans ``[start, end)`` of an untagged text, by the benchmark's token rule."""
        ...

    def selected_tokens(self, tagged: str) -> set[int]:
        """Indices of the tokens a tag covers."""
        ...

    def tag_tokens(self, clean: str, selected: Iterable[int], types: Mapping[int, str] | None = None) -> str:
        """``clean`` with each run of consecutive ``selected`` tokens in one tag; ValueError past the end.

        ``types``: a run's first token index -> the label type its tag names (where tags have types).
        """
        ...

    def split(self, value: str) -> tuple[str, list[str | None]]:
        """A stored gold's tagged text as the official files spell it, and the type each tag names."""
        ...

    def type_choices(self, extra: Mapping[str, Any]) -> list[str]:
        """The label types a tag may name (an item's ``extra`` may add its own); [] if tags have none."""
        ...

    def tag_types(self, value: str, extra: Mapping[str, Any]) -> list[str]:
        """The type each tag of ``value`` scores under, given the item's official labels in ``extra``."""
        ...

    def view(self, gold: str, answer: str | None, extra: Mapping[str, Any]) -> SpanView:
        """The gold's tags against the answer's (``answer`` None: a gold-only row, nothing tagged)."""
        ...


Form = Literal["choice", "options", "multi-options", "choice-and-text", "tagged", "text"]
"""The control a reviewer edits a gold with: ``choice``: one of :attr:`GoldKind.choices`;
``options``: one of the item's option letters; ``multi-options``: a set of them; ``choice-and-text``:
one of the choices and a text (:attr:`GoldKind.compose` joins them); ``tagged``: a text whose
tags are picked token by token; ``text``: free text."""

Facts = Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]]
"""(item fields, item extra) -> rows the inspector shows under the answer, as (label, plain text)."""


@dataclass(frozen=True)
class GoldKind:
    """A kind of gold value: how a reviewer's value is checked and spelled, and how it is edited.

    :mod:`analysis.store.values` calls :attr:`normalize` on every gold written; the review panel
    builds its control from :attr:`form`; the inspector shows :attr:`facts`. The kinds several
    benchmarks share are in :mod:`analysis.benchmarks.shared.kinds`; a benchmark may declare its own.
    """

    name: str
    """Short id (``yesno``, ``letters``...)."""
    normalize: Callable[[str, str | None], str]
    """(value, the item's official gold) -> the canonical spelling; :class:`InvalidLabel` when it
    does not fit."""
    form: Form = "text"
    choices: tuple[str, ...] = ()
    """``choice``: the values offered; ``choice-and-text``: those of the choice part."""
    text_label: str = ""
    """``choice-and-text``: the label of the text part."""
    compose: Callable[[str, str], str] | None = None
    """``choice-and-text``: (choice, text) -> the value."""
    split: Callable[[str | None, Mapping[str, Any]], tuple[str | None, str]] | None = None
    """``choice-and-text``: (value, the item's extra) -> (choice, text) to fill the form with."""
    facts: Facts | None = None
    """Rows the inspector adds for this kind (both orders of an order, say); None for none."""
    reading: Callable[[str], str] | None = None
    """How a parser's reading of an answer is shown in lists, where it is not words (a flag per
    token, say); None: as it is."""
    native: Callable[[str, Mapping[str, Any]], str] | None = None
    """(the item table's gold, the item's extra) -> the gold as a correction spells it, where the
    table keeps part of it apart; None: as it is."""
    tagging: Tagging | None = None
    """``tagged``: the tag rules."""


@dataclass(frozen=True)
class Derived:
    """A column a benchmark adds once at load time for its charts (see :meth:`Benchmark.derive`)."""

    fill: Any
    """The value the rows of other benchmarks get."""
    cell: CellRole
    """``key``: a few distinct values that rows are grouped by (a flag, a side); ``sum``: a number
    summed per group (as ``<name>_sum``); ``row``: a value of its own per row (a list), so a row
    holding one is kept as itself."""


@dataclass(frozen=True)
class Chart:
    """A chart a benchmark contributes: drawn in the Charts tab and the report, its numbers in the CSV.

    Both functions receive only this benchmark's rows of the view: item rows, or the catalog's
    pre-grouped counts (a weight ``_n`` per row, ``<name>_sum`` for each summed derived column).
    """

    name: str
    """Short id (``cf-cs``): the plot's element id is ``chart-<name>``."""
    title: str
    """The plot's label."""
    draw: Callable[[pd.DataFrame], Any]
    """Rows -> a plotly Figure (one with no traces when the view has nothing to show)."""
    numbers: Callable[[pd.DataFrame], dict[str, pd.DataFrame]]
    """Rows -> the numbers drawn, as named frames (the name is the CSV's ``chart`` column)."""


ANSWER_COLUMNS: tuple[str, ...] = (
    "task",
    "question_index",
    "question",
    "options",
    "clip_id",
    "gold",
    "item_id",
    "model",
    "raw_answer",
    "parsed",
    "correct",
    "alt_parsed",
    "alt_correct",
)
"""Columns of :attr:`PairView.answers` (``model`` empty for a question no model answered)."""


@dataclass(frozen=True)
class ClipInfo:
    """One clip of a pair, as the data describes it."""

    clip_id: str
    media: str
    """The clip's video path as the data gives it (``<clip id>.mp4``), relative to the media root."""
    action: str = ""
    """Text of the correct MCQ choice(s), "" when the clip has no MCQ question."""
    caption: str = ""
    """A caption or action text carried by the clip's record, "" when there is none."""


@dataclass(frozen=True)
class PairView:
    """One pair as the pair view shows it."""

    pair_id: str
    clips: tuple[ClipInfo, ...]
    similarity: dict[str, float] = field(default_factory=dict)
    """Similarity scores of the pair when the data has them (empty otherwise)."""
    models: tuple[str, ...] = ()
    """Models with at least one answer on the pair, sorted."""
    answers: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(ANSWER_COLUMNS)))
    """Long table, :data:`ANSWER_COLUMNS`: one row per (question, clip, model)."""


@dataclass(frozen=True)
class PairRule:
    """How a benchmark selected its pairs: meaning alike, looks apart (``docs/pair-scores.md``)."""

    semantic_above: float
    """The clips' CLIP similarity must be above this..."""
    visual_below: float
    """...and their DINOv2 similarity below this."""
    source: str = ""
    """Where the rule is stated (the paper)."""

    def holds(self, semantic: float | None, visual: float | None) -> bool | None:
        """Whether a pair with these scores meets the rule (None when a score is missing)."""
        if semantic is None or visual is None:
            return None
        return semantic > self.semantic_above and visual < self.visual_below


@dataclass(frozen=True)
class PairSpec:
    """Groups of clips a benchmark asks the same questions of, which reviewers validate by hand.

    The Pairs tab and :mod:`analysis.review.pairs` ask this; the benchmark knows its files.
    """

    title: str
    """The tab's title."""
    key_prefix: str
    """Prefix of the validation items in the label store: a pair's labels sit on item
    ``<prefix>-pair:<pair id>`` of task ``<prefix>-pair``, a clip's on ``<prefix>-clip:<pair>|<clip>``."""
    catalogue: Callable[[pd.DataFrame], pd.DataFrame]
    """Item table -> one row per pair (``pair_id``, ``clips``, ``n_clips``, ``media``, ``actions``...)."""
    ids: Callable[[pd.DataFrame], list[str]]
    """Item table -> the catalogue's ``pair_id`` column alone, in its order, at a fraction of its cost
    (the tab lists the ids when it is built; the catalogue is made on first use)."""
    view: Callable[[str, pd.DataFrame], PairView]
    """(pair id, item table) -> the pair as shown; KeyError for an unknown pair."""
    answer_grid: Callable[[PairView], pd.DataFrame]
    """A pair's answers, one row per (question, clip), one column per model."""
    gold_names: tuple[str, ...]
    """Names of the gold files that hold the pairs (looked for beside the media root)."""
    filter_gold: Callable[[Path, Collection[str], Path, Mapping[str, str]], tuple[str, int]]
    """(gold file, pairs to keep, target, corrected gold) -> (its task, groups written): a copy of
    the gold file holding only the kept pairs, corrected; InputError for a file without pairs."""
    export_stem: str
    """File name stem of the validated pair list (``<stem>.json``, ``<stem>.csv``)."""
    kept_name: str
    """File name of the zip of kept-pair gold files."""
    rule: PairRule | None = None
    """The similarity rule the pairs were selected by, where the benchmark states one."""


@dataclass(frozen=True)
class SliceMetric:
    """A benchmark's own metric where accuracy is not its headline (HR, CFAD, token F1), per slice."""

    name: str
    """As reviewers read it (``HR``)."""
    of: Callable[[pd.DataFrame], float | None]
    """One model's rows (a slice, or the rest) -> the metric over them; None where it is undefined
    there (CFAD of a slice holding one side only, say)."""


@dataclass(frozen=True)
class Slicing:
    """How a benchmark's item table is cut into slices where a model fails (``docs/failures.md``).

    Both are per row of the table given to :meth:`Benchmark.slicing`, in its order.
    """

    clusters: npt.NDArray[np.object_]
    """The unit each row's verdict hangs together with (a clip, an image pair): the slice tests'
    clusters, so that ten questions on one clip are not ten independent pieces of evidence."""
    attributes: Mapping[str, npt.NDArray[np.object_]]
    """The benchmark's own categorical attributes by name (``""`` where a row has none), besides
    the columns every item table has (task, category, sub-category, gold, whether an answer was read)."""
    metric: SliceMetric | None = None
    """The benchmark's own metric shown beside each slice's accuracy; None where accuracy is it."""


@dataclass(frozen=True)
class Board:
    """One leaderboard of a benchmark: where its official metrics sit in a score report."""

    title: str
    task: str | None
    """The ``--task`` to score with (None where the benchmark has no task option)."""
    scope: tuple[str, str] | None
    """None for the report's ``overall``, else (group, key), e.g. ``("task", "qa")``."""
    metrics: tuple[str, ...]
    """The official metrics shown; the first ranks the models (higher is better)."""
    missing: Mapping[str, str] = field(default_factory=dict)
    """Metric -> why it can be empty (said under the board whenever a model has none)."""


@runtime_checkable
class Benchmark(Protocol):
    """The interface of a benchmark module."""

    NAME: str
    """Registry id, as typed on the command line."""
    TITLE: str
    """Display name, as the benchmark's paper writes it."""
    VOCABULARY: tuple[str, ...]
    """Words only this package's code may say (its id, its files' names, its sides, its tags):
    ``tests/test_layout.py`` finds none of them in the core or the app outside the package."""
    VERSION: str
    """Scoring version of this module; bump it when a score could change."""
    TASKS: tuple[str, ...]
    """Values ``--task`` accepts; empty when the benchmark has no task option."""
    TASK_REQUIRED: bool
    """``--task`` must be given (each prediction file holds one task)."""
    PARSERS: tuple[str, ...]
    """Parser names; the first is the default (``official`` where an official scorer exists)."""
    ALT_PARSER: str
    """The parser whose reading the item table keeps beside the default one."""
    BOARDS: tuple[Board, ...]
    """The leaderboards of the overview, in order (boards without models are left out)."""
    DETECT_RANK: int
    """Order in which detection asks the benchmarks (lower first): one whose files have only
    generic fields (``video_id`` / ``text``, say) asks after the others."""
    TAKES_GOLD: bool
    """Prediction files may be given a gold file (``--gold``); when given, gold comes from it."""
    NEEDS_GOLD: frozenset[str | None]
    """Tasks (None: no task) whose prediction files cannot be read without their gold file."""
    TRY_EACH_GOLD: bool
    """Among several candidate gold files, use the first one the prediction file loads with
    (the gold is optional and belongs to one of several sets); otherwise the first candidate."""
    CHARTS: tuple[Chart, ...]
    """The charts this benchmark contributes besides the common ones (accuracy, yes-bias)."""
    DERIVED: Mapping[str, Derived]
    """Columns :func:`derive` adds for its charts, with the value other benchmarks' rows get."""
    FILES: dict[str, str]
    """``gold`` and ``predictions``: what each kind of file is, in a phrase, for a refusal that
    says what a file is and what was expected."""
    MEDIA_ALIASES: tuple[tuple[str, str], ...]
    """First folders of media paths spelled two ways (the files' and the released archive's): each
    is tried for the other (:class:`analysis.files.media.MediaResolver`)."""
    PAIRS: PairSpec | None
    """Clip pairs reviewers validate in the Pairs tab; None for a benchmark without."""
    HARNESS_FORMATS: frozenset[str]
    """The general harnesses' formats (:data:`analysis.files.harness.FORMATS`, ``native`` aside) whose
    prediction files ``load`` reads; empty for a benchmark that reads only its own pipeline's."""

    def load(
        self,
        predictions: Path,
        *,
        gold: Path | None = None,
        task: str | None = None,
        model: str | None = None,
        fmt: str | None = None,
        mapping: Mapping[str, str] | None = None,
    ) -> pd.DataFrame:
        """Read one prediction file (one model) into an item table.

        ``fmt`` names the file's format where content cannot tell (:data:`analysis.files.harness.FORMATS`)
        and ``mapping`` renames its fields (``--map``); a benchmark that reads only its own
        pipeline's files refuses both.
        """
        ...

    def load_gold(self, paths: Sequence[Path]) -> pd.DataFrame:
        """Read gold files alone (no model) into an item table, so gold can be browsed."""
        ...

    def score(
        self, table: pd.DataFrame, *, task: str | None = None, parser: str | None = None
    ) -> ScoreReport:
        """Score an item table of one model exactly as ``docs/cli.md`` describes."""
        ...

    def audit(self, paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
        """Find data problems in gold files (and their media, when a root is given)."""
        ...

    def cluster_stats(
        self, table: pd.DataFrame, *, task: str | None = None, parser: str | None = None
    ) -> ClusterStats:
        """Additive statistics of ``score``'s every metric, per cluster of related items.

        Summed over all clusters, ``ClusterStats.metrics`` gives exactly ``score``'s numbers
        (``tests/test_intervals.py``); the bootstrap of :mod:`analysis.stats.intervals` resamples them.
        """
        ...

    def recognise(self, path: Path, content: Content) -> Detected | None:
        """Say what ``path`` is when it is one of this benchmark's files, from its content."""
        ...

    def gold_kind(self, task: str, original: str | None) -> GoldKind:
        """The kind of gold an item of ``task`` takes (``original``: its official gold)."""
        ...

    def options(self, extra: Mapping[str, Any]) -> list[str]:
        """Answer options an item keeps in ``extra`` rather than its ``options`` column; empty for none."""
        ...

    def rescore(self, table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
        """Recompute, in place, the verdicts of ``rows`` (whose gold changed) against the new gold.

        ``labels`` (item id -> corrected gold, all of this benchmark's labels) reaches items that
        are not rows of ``table`` (the other side of a pair, whose gold a verdict compares with).
        """
        ...

    def write_corrected(self, path: Path, gold: Mapping[str, str]) -> str | None:
        """The text of ``path`` with corrected ``gold`` (item id -> value) in place.

        In the file's own format, every other field kept; None when the file carries no gold.
        """
        ...

    def slicing(self, table: pd.DataFrame) -> Slicing:
        """The clusters and the benchmark's own attributes of ``table``'s rows, for the slice finder."""
        ...

    def native_keys(self, table: pd.DataFrame) -> list[dict[str, Any]]:
        """Each row's key in the benchmark's own files, named as those files name it (``items`` prints it).

        Row for row, in the order of the fields; a key the item table has under the same name
        (``question``, ``pair_id``...) comes with the same value.
        """
        ...

    def derive(self, table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
        """The :data:`DERIVED` columns' values at the positions ``rows`` of ``table``.

        ``rows`` are this benchmark's rows; each value is a sequence of ``len(rows)``. Only the
        rows needed are taken from ``table``.
        """
        ...


def resolve_parser(benchmark: str, parsers: Sequence[str], parser: str | None) -> str:
    """The parser to score with: ``parser``, else the benchmark's default (the first of ``parsers``).

    An unknown name is a ``ValueError`` that lists the known ones.
    """
    chosen = parser or parsers[0]
    if chosen not in parsers:
        raise ValueError(f"unknown parser {chosen!r} for {benchmark} (known: {', '.join(parsers)})")
    return chosen


def refuse_harness(benchmark: str, fmt: str | None, mapping: Mapping[str, str] | None) -> None:
    """Raise ``UsageError`` when ``--format`` / ``--map`` reach a benchmark that reads only its own files."""
    if (fmt not in (None, "native")) or mapping:
        raise UsageError(f"{benchmark} reads only its own pipeline's files: --format and --map do not apply")


def refuse_task(benchmark: str, task: str | None) -> None:
    """Raise ``ValueError`` when a task is given to a benchmark that has none."""
    if task is not None:
        raise ValueError(f"{benchmark} has no tasks (got {task!r})")
