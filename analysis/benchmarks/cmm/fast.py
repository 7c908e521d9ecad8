"""Scoring a CMM file without building its item table: DuckDB counts, the official rule in Python.

``halluscope score`` needs four fields of each row (sub-category, granularity, gold, prediction),
not the item table (ids, media, extra JSON) the app shows. DuckDB reads the file with all cores
and returns one row per distinct (sub-category, granularity, gold, prediction) with its count and
first line; the official rule then runs on each distinct text once, in Python, with exactly the
functions :func:`.table.build` uses, and every metric is counted from those weighted rows
with the same :mod:`.scoring` code. So the numbers are the same as ``load`` then ``score``.

DuckDB was measured fastest here for reading JSON Lines (about 3x pyarrow's reader on the same
file, which the table build keeps using: it needs every column as Arrow). Where DuckDB's reading
could differ from Python's ``json.loads`` the fast path declines (returns None) and the caller
loads the file the validating way, which also names the line and field of any error:

- a value that is not a string or null (DuckDB would cast it to text): a ``"`` then ``:`` then
  anything but ``"``, ``n(ull)`` or white space, anywhere on the line;
- a key written with a ``\\u`` escape, or one of the five fields twice on a line (DuckDB keeps
  the first of duplicate keys, Python the last);
- a required field missing or null, a line longer than the text limit, a line that is not one
  JSON object, bytes that are not UTF-8, a JSON list file: DuckDB fails or the checks count them.

Each check may also decline a valid file (a question quoting ``"pred": 1``): that costs speed,
never exactness.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import readers
from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.cmm.scoring import flags, grouped
from analysis.metrics import MetricDict
from analysis.yesno import READERS, code_to_word

_KEYS = ("sub_category", "granularity", "answer", "pred", "question")
_NOT_TEXT = r'"\s*:\s*[^"\sn]'
_ESCAPED_KEY = r'\\u[0-9a-fA-F]{4}[^"]*"\s*:'
_TWICE = "|".join(rf'"{k}"\s*:.*"{k}"\s*:' for k in _KEYS)

_QUERY = f"""
WITH lines AS (
    SELECT line, ordinality AS pos
    FROM read_csv($path, columns = {{'line': 'VARCHAR'}}, delim = '\\x01', quote = '', escape = '',
                  header = false, auto_detect = false, strict_mode = true) WITH ORDINALITY
), fields AS (
    SELECT json_extract_string(line, ['{"', '".join(_KEYS)}']) AS v, pos,
           regexp_matches(line, '{_NOT_TEXT}') OR regexp_matches(line, '{_ESCAPED_KEY}')
               OR regexp_matches(line, '{_TWICE}') AS odd,
           strlen(line) AS bytes
    FROM lines
)
SELECT v[1] AS sub, v[2] AS gran, v[3] AS gold, v[4] AS pred, count(*) AS n, min(pos) AS first,
       count(*) FILTER (WHERE odd OR v[5] IS NULL) AS bad, max(bytes) AS longest
FROM fields
GROUP BY ALL
ORDER BY first
"""


def counts(path: Path) -> pd.DataFrame | None:
    """One row per distinct (sub, gran, gold, pred) with ``n`` rows, in order of first line; None to decline."""
    import duckdb  # lazy: only ``score`` needs it

    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        with duckdb.connect() as con:
            frame: pd.DataFrame = con.execute(_QUERY, {"path": str(path)}).df()
    except duckdb.Error:
        return None  # malformed JSON, not UTF-8, a delimiter byte...: the validating reader says what
    required = frame[["sub", "gran", "gold", "pred"]].notna().all(axis=1).all()
    if frame.empty or not required or frame["bad"].sum() or frame["longest"].max() > readers.MAX_TEXT_CHARS:
        return None
    return frame


def score_counts(frame: pd.DataFrame, parser: str, alt_parser: str) -> tuple[MetricDict, dict[str, dict[str, MetricDict]]]:
    """Overall metrics and groups from :func:`counts`, with the rule and code the item table uses."""
    gold = pd.array(frame["gold"].astype(str).tolist(), dtype="string")
    pred = pd.array(frame["pred"].astype(str).tolist(), dtype="string")
    v = verdicts(gold, pred, READERS[alt_parser])
    table = pd.DataFrame({
        "category": pd.Categorical(frame["sub"].astype(str)),
        "subcategory": pd.Categorical(frame["gran"].astype(str)),
        "gold": gold,
        "raw_answer": pred,
        "parsed": code_to_word(v.code).array,
        "correct": pd.array(v.correct, dtype="boolean"),
        "alt_parsed": code_to_word(v.alt_code).array,
    })
    weights = frame["n"].to_numpy(dtype=np.int64)
    return grouped(table, flags(table, parser, alt_parser), detail=False, weights=weights)
