"""ToyCount: a sixth benchmark that lives under ``tests/``, to show that a benchmark plugs in at one place.

Card. Paper: none (a test fixture). Official scorer: none; the rule is this module's. Each record
of a JSON Lines file asks how many things an image shows: ``{"qid": ..., "question": ...,
"count": 3, "response": "I see 3 dogs."}``; a file without ``response`` is a gold file. The
``first-number`` parser reads the first integer of the response (``last-number`` the last one); a
row is right when the number equals ``count``. Metrics: ``accuracy``, ``mae`` (mean absolute
error over parsed rows, None when none parsed) and ``n``. Its own gold kind (``count``: a whole
number), its own chart (mean absolute error per model) and its own derived column
(``_toy_abs_error``). Version 1; changelog: 1 -- first version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from analysis.benchmarks.base import (
    Board,
    Bools,
    Chart,
    Content,
    Derived,
    Detected,
    Finding,
    GoldKind,
    PairSpec,
    ScoreReport,
    Slicing,
    refuse_harness,
    refuse_task,
    resolve_parser,
)
from analysis.benchmarks.shared.corrected import set_verdicts
from analysis.errors import InputError, InvalidLabel
from analysis.files.readers import read_records
from analysis.plot.figures import by_model, empty, figure, model_bar
from analysis.stats.clusters import ClusterStats, tally
from analysis.stats.metrics import MetricDict, ratio, ratios
from analysis.table.columns import make_table, media_json
from analysis.table.groups import group_indices, row_weights

NAME = "toycount"
TITLE = "ToyCount"
VOCABULARY: tuple[str, ...] = ("toycount", "ToyCount", "first-number")
VERSION = "1"
TASKS: tuple[str, ...] = ()
TASK_REQUIRED = False
PARSERS: tuple[str, ...] = ("first-number", "last-number")
ALT_PARSER = "last-number"
BOARDS: tuple[Board, ...] = (Board("ToyCount", None, None, ("accuracy", "mae")),)
DETECT_RANK = 0
TAKES_GOLD = False
NEEDS_GOLD: frozenset[str | None] = frozenset()
TRY_EACH_GOLD = False
FILES: dict[str, str] = {
    "gold": "a JSON Lines file of counting questions without responses",
    "predictions": "a JSON Lines file of counting questions with each response",
}
MEDIA_ALIASES: tuple[tuple[str, str], ...] = ()
PAIRS: PairSpec | None = None
HARNESS_FORMATS: frozenset[str] = frozenset()
DERIVED: Mapping[str, Derived] = {"_toy_abs_error": Derived(np.nan, "sum")}
"""The absolute error of a parsed answer (NaN when unparsed), summed per chart cell."""

_NUMBER = re.compile(r"\d+")


def _read(text: str | None, parser: str) -> str | None:
    found = _NUMBER.findall(text or "")
    if not found:
        return None
    return str(int(found[0] if parser == "first-number" else found[-1]))


def _rows(path: Path, *, need_response: bool) -> pd.DataFrame:
    records = read_records(path)
    columns: dict[str, list[Any]] = {
        k: [] for k in ("item_id", "question", "gold", "raw_answer", "source", "media")
    }
    for index, record in enumerate(records.items):
        if not isinstance(record, dict):
            raise records.error(index, "expected an object")
        for key in ("qid", "question", "count"):
            if key not in record:
                raise records.error(index, "missing", key)
        if not isinstance(record["count"], int) or record["count"] < 0:
            raise records.error(index, "expected a whole number", "count")
        if need_response and not isinstance(record.get("response"), str):
            raise records.error(index, "expected text", "response")
        columns["item_id"].append(f"{NAME}-{record['qid']}")
        columns["question"].append(str(record["question"]))
        columns["gold"].append(str(record["count"]))
        columns["raw_answer"].append(record.get("response"))
        columns["source"].append(f"{path.name}:{records.where(index)}")
        columns["media"].append(
            media_json([("image", str(record.get("image", "")), "image")]) if record.get("image") else ""
        )
    return pd.DataFrame(columns)


def _table(rows: pd.DataFrame, model: str, answered: bool) -> pd.DataFrame:
    parsed = [_read(a, PARSERS[0]) for a in rows["raw_answer"]] if answered else [None] * len(rows)
    alt = [_read(a, ALT_PARSER) for a in rows["raw_answer"]] if answered else [None] * len(rows)
    gold = rows["gold"].tolist()
    return make_table(
        {
            "benchmark": NAME,
            "item_id": rows["item_id"].tolist(),
            "model": model,
            "task": "",
            "category": "counting",
            "question": rows["question"].tolist(),
            "gold": gold,
            "raw_answer": rows["raw_answer"].tolist() if answered else [None] * len(rows),
            "parsed": parsed,
            "correct": [p == g if answered else None for p, g in zip(parsed, gold, strict=True)],
            "alt_parser": ALT_PARSER,
            "alt_parsed": alt,
            "alt_correct": [p == g if answered else None for p, g in zip(alt, gold, strict=True)],
            "scored": answered,
            "media": rows["media"].tolist(),
            "source": rows["source"].tolist(),
        },
        length=len(rows),
    )


def load(
    predictions: Path,
    *,
    gold: Path | None = None,
    task: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read one prediction file (the model is the file's stem unless given)."""
    refuse_harness(NAME, fmt, mapping)
    refuse_task(NAME, task)
    if gold is not None:
        raise InputError(gold, f"{NAME} takes no gold file: the counts are in the prediction file")
    path = Path(predictions)
    return _table(_rows(path, need_response=True), model or path.stem, answered=True)


def load_gold(paths: Sequence[Path]) -> pd.DataFrame:
    """Gold files alone (no model), so gold can be browsed."""
    return pd.concat(
        [_table(_rows(Path(p), need_response=False), "", answered=False) for p in paths], ignore_index=True
    )


def _scored(table: pd.DataFrame, parser: str) -> tuple[pd.DataFrame, npt.NDArray[np.float64], Bools]:
    rows = table[table["scored"].to_numpy(dtype=bool)]
    column = "parsed" if parser == PARSERS[0] else "alt_parsed"
    said = pd.to_numeric(rows[column], errors="coerce").to_numpy(dtype=float)
    gold = pd.to_numeric(rows["gold"], errors="coerce").to_numpy(dtype=float)
    return rows, np.abs(said - gold), said == gold


def mae(errors: Any) -> float | None:
    """Mean absolute error of the parsed answers (NaN: unparsed, left out); None when none parsed."""
    arr = np.asarray(errors, dtype=float)
    parsed = arr[~np.isnan(arr)]
    return float(parsed.mean()) if parsed.size else None


def score(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ScoreReport:
    """Accuracy, mean absolute error and n of one model's rows."""
    refuse_task(NAME, task)
    chosen = resolve_parser(NAME, PARSERS, parser)
    rows, errors, right = _scored(table, chosen)
    overall: MetricDict = {"accuracy": ratio(int(right.sum()), len(rows)), "mae": mae(errors), "n": len(rows)}
    return {
        "benchmark": NAME,
        "task": None,
        "parser": chosen,
        "n_scored": len(rows),
        "n_skipped": len(table) - len(rows),
        "overall": overall,
        "groups": {},
    }


def _metrics(totals: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[np.float64]]:
    n, right, error_sum, parsed = totals.T
    return {"accuracy": ratios(right, n), "mae": ratios(error_sum, parsed), "n": n}


def cluster_stats(table: pd.DataFrame, *, task: str | None = None, parser: str | None = None) -> ClusterStats:
    """Additive statistics per question (one item a cluster)."""
    refuse_task(NAME, task)
    rows, errors, right = _scored(table, resolve_parser(NAME, PARSERS, parser))
    parsed = ~np.isnan(errors)
    columns = {
        "n": np.ones(len(rows)),
        "right": right,
        "error_sum": np.where(parsed, errors, 0.0),
        "parsed": parsed,
    }
    keys, values = tally(rows["item_id"].to_numpy(dtype=object), columns, [(None, np.ones(len(rows), bool))])
    return ClusterStats("question", keys, tuple(columns), (None,), values, _metrics)


def audit(paths: Sequence[Path], *, media_root: Path | None = None) -> list[Finding]:
    """Questions asked twice in one gold file."""
    findings = []
    for path in paths:
        rows = _rows(Path(path), need_response=False)
        for item_id in rows.loc[rows["item_id"].duplicated(), "item_id"].unique():
            findings.append(
                Finding("duplicate-record", str(item_id), "asked twice", item_ids=(str(item_id),))
            )
    return findings


def recognise(path: Path, content: Content) -> Detected | None:
    """A list of records with ``qid`` and ``count``: predictions when they carry ``response``."""
    records = content if isinstance(content, list) else [content]
    if not records or not all(isinstance(r, dict) and {"qid", "count"} <= set(r) for r in records):
        return None
    if all("response" in r for r in records):
        return Detected(NAME, None, "predictions")
    return Detected(NAME, None, "gold")


def _count(value: str, _original: str | None) -> str:
    text = value.strip()
    if not text.isdigit():
        raise InvalidLabel(f"a count is a whole number, got {text[:40]!r}")
    return str(int(text))


COUNT = GoldKind("count", _count, "text")
"""A whole number of things."""


def gold_kind(task: str, original: str | None) -> GoldKind:
    """Every item's gold is a count."""
    return COUNT


def options(extra: Mapping[str, Any]) -> list[str]:
    """None."""
    return []


def rescore(table: pd.DataFrame, rows: Bools, labels: Mapping[str, str]) -> None:
    """Both readings against the new count."""
    gold = table["gold"].astype(str).to_numpy(dtype=object)[rows]
    for parsed, correct in (("parsed", "correct"), ("alt_parsed", "alt_correct")):
        said = table[parsed].astype(object).to_numpy(dtype=object)[rows]
        set_verdicts(
            table,
            correct,
            rows,
            [s is not None and s is not pd.NA and s == g for s, g in zip(said, gold, strict=True)],
        )


def write_corrected(path: Path, gold: Mapping[str, str]) -> str | None:
    """The file with each corrected ``count`` in place, every other field kept."""
    records = read_records(Path(path))
    for record in records.items:
        key = f"{NAME}-{record['qid']}"
        if key in gold:
            record["count"] = int(gold[key])
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records.items)


def slicing(table: pd.DataFrame) -> Slicing:
    """Each question stands alone."""
    return Slicing(table["item_id"].astype(str).to_numpy(dtype=object), {})


def derive(table: pd.DataFrame, rows: npt.NDArray[np.intp]) -> dict[str, Any]:
    """The absolute error of each row's parsed answer."""
    said = pd.to_numeric(table["parsed"].take(rows), errors="coerce").to_numpy(dtype=float)
    gold = pd.to_numeric(table["gold"].take(rows), errors="coerce").to_numpy(dtype=float)
    return {"_toy_abs_error": np.abs(said - gold)}


def error_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per model: rows and mean absolute error (from item rows or pre-grouped sums)."""
    rows = table[table["scored"].to_numpy(dtype=bool)]
    w = row_weights(rows)
    sums = rows["_toy_abs_error_sum"] if "_toy_abs_error_sum" in rows else rows["_toy_abs_error"].fillna(0.0)
    records = [
        {
            "model": m,
            "n": int(w[idx].sum()),
            "mae": float(sums.to_numpy(dtype=float)[idx].sum()) / max(1, int(w[idx].sum())),
        }
        for (m,), idx in group_indices(rows, ["model"]).items()
    ]
    return pd.DataFrame.from_records(records, columns=["model", "n", "mae"])


def error_chart(table: pd.DataFrame) -> go.Figure:
    """Mean absolute counting error per model."""
    data = error_data(table)
    if data.empty:
        return empty("Counting error", "No ToyCount items in this view")
    traces = [
        model_bar(
            m,
            i,
            ["all"],
            part["mae"].tolist(),
            part[["n"]].to_numpy().tolist(),
            "%{x}<br>MAE %{y:.3f}<br>n %{customdata[0]}",
        )
        for i, m, part in by_model(data)
    ]
    return figure("Counting error", traces, [""])


CHARTS: tuple[Chart, ...] = (
    Chart("toy-error", "Counting error", error_chart, lambda t: {"toy_error": error_data(t)}),
)


def native_keys(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``qid``: the item id after the benchmark's name."""
    return [{"qid": item.removeprefix(f"{NAME}-")} for item in table["item_id"].astype(str)]


if TYPE_CHECKING:  # mypy checks this package against the protocol (nothing runs)
    import toybench as _this
    from analysis.benchmarks.base import Benchmark

    _CHECKED: Benchmark = _this
