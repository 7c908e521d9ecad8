r"""The DuckDB read behind ``halluscope score cmm``, importable without the package (an early read).

The command line loads this file by path (``analysis.benchmarks.early``) and starts :func:`read`
in a thread before it imports the package: DuckDB reads the file on its own threads while pandas
and the package are imported (about 0.3 s of a 0.75 s score at a million rows). So this module
imports nothing of ``analysis.benchmarks.cmm`` (that would import the package) and nothing heavy;
:mod:`.fast` turns what it returns into the report, and declines what it declined.

DuckDB was measured fastest here for reading JSON Lines (about 3x pyarrow's reader on the same
file, which the table build keeps using: it needs every column as Arrow). It reads the first
records (their keys and the sub-categories' order), then the whole file once, every top-level field
as JSON text (``maximum_depth = 1``), so a value's JSON type is seen and a field's text is
unescaped exactly as Python reads it. Where DuckDB's reading could differ from Python's
``json.loads`` the read declines (returns None) and the caller loads the file the validating
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

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.files.readers import MAX_TEXT_CHARS

if TYPE_CHECKING:
    import duckdb

FIELDS: tuple[str, ...] = (
    "category",
    "sub_category",
    "modality",
    "granularity",
    "correlation_type",
    "video_path",
    "audio_path",
    "question",
    "answer",
    "pred",
)
"""Every field of a CMM row, in the order of the released template."""

_GROUPED = {"sub_category": "sub", "granularity": "gran", "answer": "gold", "pred": "pred"}
"""The fields the official rule needs, and their names in :func:`counts`."""
_READ = (
    "read_json($path, format = 'newline_delimited', maximum_depth = 1, sample_size = 2048, "
    f"maximum_object_size = {MAX_TEXT_CHARS})"
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


@dataclass(frozen=True)
class Counted:
    """What :func:`read` found: one row per distinct (sub, gran, gold, pred), with its count."""

    columns: list[str]
    """``sub``, ``sub_json``, ``gran``, ... (a field, its JSON text), ``n``, ``no_question``, ``not_text``."""
    rows: list[tuple[Any, ...]]
    seen: list[str]
    """Every sub-category's JSON text, in order of first record."""


def read(path: Path) -> Counted | None:
    """The file's distinct (sub, gran, gold, pred) rows with their counts; None declines.

    None: the caller then loads the file the validating way (which names any error).
    """
    import duckdb  # here: importing this module costs nothing

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
            found = con.execute(_query(keys), params)
            columns = [column[0] for column in found.description]
            rows = found.fetchall()  # a few hundred rows: Python values, no pandas in this thread
            subs = {row[columns.index("sub_json")] for row in rows} - {None}
            if not subs <= set(seen):
                seen = _first_seen(con, keys, str(path))
    except duckdb.Error:
        return None  # malformed JSON, duplicate or unseen keys, not UTF-8...: the validating reader says what
    return Counted(columns, rows, seen)
