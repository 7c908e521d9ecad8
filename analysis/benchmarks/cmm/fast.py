r"""Scoring a CMM file without building its item table: DuckDB counts, the official rule in Python.

``halluscope score`` needs four fields of each row (sub-category, granularity, gold, prediction),
not the item table (ids, media, extra JSON) the app shows. DuckDB reads the file with all cores and
returns one row per distinct (sub-category, granularity, gold, prediction) with its count; the
official rule then runs on each distinct text once, in Python, with exactly the functions
:func:`.table.build` uses, and every metric is counted from those weighted rows with the same
:mod:`.scoring` code. So the numbers are the same as ``load`` then ``score``.

DuckDB was measured fastest here for reading JSON Lines (about 3x pyarrow's reader on the same
file, which the table build keeps using: it needs every column as Arrow). It reads the first
records (their keys and the sub-categories' order), then the whole file once, every top-level field
as JSON text (``maximum_depth = 1``), so a value's JSON type is seen and a field's text is
unescaped exactly as Python reads it. Where DuckDB's reading could differ from Python's
``json.loads`` the fast path declines (returns None) and the caller loads the file the validating
way, which also names the line and field of any error:

- a value that is not a string or null in a field of the template (DuckDB would cast it to
  text), or an object or a list in any other field (a key repeated inside it would go unseen);
- a key twice in a record, plainly or through ``\\u`` escapes, known or not (Python keeps the
  last one): DuckDB's JSON reader refuses such a record, and one with a key its sample of the
  file (the first 2,048 records) did not show;
- a required field missing or null, a record over the text limit (DuckDB's object size limit),
  two records on one line or one over several, malformed JSON, bytes that are not UTF-8, a file
  that is not JSON Lines.

Blank lines are skipped by both readers. Each check may also decline a valid file (a record of over
4 MiB whose every string is within the limit): that costs speed, never exactness.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.cmm.read import FIELDS
from analysis.benchmarks.cmm.scoring import flags, grouped
from analysis.benchmarks.shared.yesno import READERS, code_to_word
from analysis.files import readers
from analysis.stats.metrics import MetricDict

if TYPE_CHECKING:
    import duckdb

_GROUPED = {"sub_category": "sub", "granularity": "gran", "answer": "gold", "pred": "pred"}
"""The fields the official rule needs, and their names in :func:`counts`."""
_READ = (
    "read_json($path, format = 'newline_delimited', maximum_depth = 1, sample_size = 2048, "
    f"maximum_object_size = {readers.MAX_TEXT_CHARS})"
)
"""Every record of the file, each top-level field as JSON text (a column per key DuckDB saw)."""


_PREFIX_ROWS = 2_048
"""Records read first, in file order, to learn the sub-categories' order of first appearance.

The official script's tables list sub-categories in that order. Finding it in the full read (a row
number for every record) cost 0.4 s of 0.9 at a million rows; the released files show all six in
their first few dozen records. A sub-category first seen past this prefix costs a second read,
which numbers the rows (:func:`_first_seen`): slower, never another order. As many as DuckDB
samples for the keys anyway (``sample_size``): 0.02 s, where 10,000 records took 0.04-0.06 s of a
0.84 s score at a million rows.
"""


def _query(keys: list[str]) -> str:
    """Distinct (sub-category, granularity, gold, prediction) rows, counted.

    Rows are grouped by the fields' JSON text (returned as ``<name>_json``) and unescaped once a
    group. A JSON value is told by its first character (a string's text starts with ``"``), which
    costs no second parse; the grouped fields are told on the few grouped rows, in Python.
    ``not_text``: records where another field of the template is neither a string nor null, or a
    field outside it holds an object or a list (whose keys DuckDB does not check);
    ``no_question``: records without a question string.
    """
    known = set(FIELDS)
    aliases = {key: f"f{i}" for i, key in enumerate(keys)}
    not_text = " OR ".join(
        f"ascii({a}) NOT IN (34, 110)" if key in known else f"ascii({a}) IN (91, 123)"
        for key, a in aliases.items()
        if key not in _GROUPED
    )
    grouped = ", ".join(aliases[key] for key in _GROUPED)
    picked = ", ".join(
        f"{aliases[key]} ->> '$' AS {name}, {aliases[key]} AS {name}_json" for key, name in _GROUPED.items()
    )
    question = aliases["question"]
    return f"""
SELECT {picked}, n, no_question, not_text FROM (
    SELECT {grouped}, count(*) AS n,
           count(*) FILTER (WHERE {question} IS NULL OR NOT starts_with({question}, '"')) AS no_question,
           count(*) FILTER (WHERE {not_text or "false"}) AS not_text
    FROM {_READ} AS rows({", ".join(aliases.values())})
    GROUP BY {grouped}
)
"""


def _first_seen(con: duckdb.DuckDBPyConnection, keys: list[str], path: str) -> list[str]:
    """Every distinct sub-category JSON text, in order of first record (a read that numbers rows)."""
    aliases = ", ".join(f"f{i}" for i in range(len(keys)))
    sub = f"f{keys.index('sub_category')}"
    rows = con.execute(
        f"SELECT {sub} FROM {_READ} WITH ORDINALITY AS rows({aliases}, pos) GROUP BY {sub} ORDER BY min(pos)",
        {"path": path},
    ).fetchall()
    return [row[0] for row in rows]


def counts(path: Path) -> pd.DataFrame | None:
    """One row per distinct (sub, gran, gold, pred) with its ``n`` rows, sub-categories first-seen first.

    None declines: the caller then loads the file the validating way.
    """
    import duckdb  # lazy: only ``score`` needs it

    if not path.is_file() or path.stat().st_size == 0:
        return None
    params = {"path": str(path)}
    try:
        with duckdb.connect() as con:
            head = con.execute(f"SELECT * FROM {_READ} LIMIT {_PREFIX_ROWS}", params)
            keys = [column[0] for column in head.description]
            if not {*_GROUPED, "question"} <= set(keys):
                return None
            sub_at = keys.index("sub_category")
            seen = list(dict.fromkeys(row[sub_at] for row in head.fetchall()))
            frame: pd.DataFrame = con.execute(_query(keys), params).df()
            if not set(frame["sub_json"].dropna()) <= set(seen):
                seen = _first_seen(con, keys, str(path))
    except duckdb.Error:
        return None  # malformed JSON, duplicate or unseen keys, not UTF-8...: the validating reader says what
    required = frame[["sub", "gran", "gold", "pred"]].notna().all(axis=1).all()
    if frame.empty or not required or frame["no_question"].sum() or frame["not_text"].sum():
        return None
    if not all(frame[f"{name}_json"].str.startswith('"').all() for name in _GROUPED.values()):
        return None  # a number or a boolean where the template wants text: DuckDB would cast it
    rank = {text: i for i, text in enumerate(seen)}
    order = np.argsort(frame["sub_json"].map(rank).to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def score_counts(
    frame: pd.DataFrame, parser: str, alt_parser: str
) -> tuple[MetricDict, dict[str, dict[str, MetricDict]]]:
    """Overall metrics and groups from :func:`counts`, with the rule and code the item table uses."""
    gold = pd.array(frame["gold"].astype(str).tolist(), dtype="string")
    pred = pd.array(frame["pred"].astype(str).tolist(), dtype="string")
    v = verdicts(gold, pred, READERS[alt_parser])
    table = pd.DataFrame(
        {
            "category": pd.Categorical(frame["sub"].astype(str)),
            "subcategory": pd.Categorical(frame["gran"].astype(str)),
            "gold": gold,
            "raw_answer": pred,
            "parsed": code_to_word(v.code).array,
            "correct": pd.array(v.correct, dtype="boolean"),
            "alt_parsed": code_to_word(v.alt_code).array,
        }
    )
    weights = frame["n"].to_numpy(dtype=np.int64)
    return grouped(table, flags(table, parser, alt_parser), detail=False, weights=weights)
