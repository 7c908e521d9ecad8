r"""Scoring a CMM file without building its item table: DuckDB counts, the official rule in Python.

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
  anything but ``"``, ``n(ull)`` or white space, anywhere on a line (a first pass over the lines);
- a key twice in a record, plainly or through ``\\u`` escapes (Python keeps the last one):
  DuckDB's JSON reader refuses such a file;
- a required field missing or null, a line longer than the text limit, records and lines not one
  to one (blank lines included), malformed JSON, bytes that are not UTF-8, a JSON list file.

Each check may also decline a valid file (a question quoting ``"pred": 1``): that costs speed,
never exactness.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.cmm.scoring import flags, grouped
from analysis.benchmarks.shared.yesno import READERS, code_to_word
from analysis.files import readers
from analysis.stats.metrics import MetricDict

_KEYS = ("sub_category", "granularity", "answer", "pred", "question")
_NOT_TEXT = r'"\s*:\s*[^"\sn]'

_LINES = f"""
SELECT count(*) AS lines, max(strlen(line)) AS longest,
       count(*) FILTER (WHERE regexp_matches(line, '{_NOT_TEXT}')) AS not_text
FROM read_csv($path, columns = {{'line': 'VARCHAR'}}, delim = '\\x01', quote = '', escape = '',
              header = false, auto_detect = false, strict_mode = true)
"""
"""Lines of the file, the longest, and those where some value is neither a string nor null."""

_GROUPS = """
SELECT sub_category AS sub, granularity AS gran, answer AS gold, pred, count(*) AS n,
       min(pos) AS first, count(*) FILTER (WHERE question IS NULL) AS no_question
FROM read_json($path, format = 'newline_delimited', columns = {{{columns}}})
     WITH ORDINALITY AS rows({names}, pos)
GROUP BY ALL
ORDER BY first
""".format(columns=", ".join(f"'{k}': 'VARCHAR'" for k in _KEYS), names=", ".join(_KEYS))
"""Distinct (sub-category, granularity, gold, prediction) rows with their count and first record.

DuckDB refuses duplicate keys (also when written with escapes) and malformed or multi-line
records: those files are declined and read by the validating loader."""


def counts(path: Path) -> pd.DataFrame | None:
    """One row per distinct (sub, gran, gold, pred) with its ``n`` rows, in order of first line.

    None declines: the caller then loads the file the validating way.
    """
    import duckdb  # lazy: only ``score`` needs it

    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        with duckdb.connect() as con:
            lines, longest, not_text = con.execute(_LINES, {"path": str(path)}).fetchone() or (0, 0, 1)
            if not_text or not lines or longest > readers.MAX_TEXT_CHARS:
                return None
            frame: pd.DataFrame = con.execute(_GROUPS, {"path": str(path)}).df()
    except duckdb.Error:
        return None  # malformed JSON, duplicate keys, not UTF-8...: the validating reader says what
    required = frame[["sub", "gran", "gold", "pred"]].notna().all(axis=1).all()
    # One record per line: as many records as lines (blank lines would count as lines: declined).
    if frame.empty or not required or frame["no_question"].sum() or int(frame["n"].sum()) != lines:
        return None
    return frame


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
