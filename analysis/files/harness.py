"""Files that general harnesses write, read into plain records a benchmark's reader understands.

None of the five benchmarks is built into a general harness, so people run them as their own
tasks and hold the harness's per-item file. This module reads those files, untouched, and names
no benchmark: each benchmark's reader calls :func:`read` and joins the records to its gold.

Formats (told apart by content; ``--format NAME`` where content cannot tell):

- ``lmms-eval``: ``--log_samples`` JSONL (``<date>_samples_<task>.jsonl``), one object per document
  with ``doc_id, target, resps, filtered_resps, doc_hash, input``. Since v0.4 the document itself
  is not saved, so ``doc_id`` (the row index of the task's data file, from 0) is the only link to
  gold. ``resps`` / ``filtered_resps`` may be a string, a list or a list of lists; the answer is
  the first string found, ``filtered_resps`` preferred (it is what lmms-eval scores).
- ``vlmevalkit``: a prediction file ``<model>_<dataset>.xlsx`` (or ``.tsv``, ``.csv``, ``.json``):
  the dataset's columns minus ``image``, plus ``prediction``.
- ``llava``: answer files ``{question_id, prompt, text, answer_id, model_id, metadata}``: ``text``
  is the answer and ``prompt`` the question; forks rename keys, which ``--map`` undoes.
- ``native``: the benchmark's own format (this module then returns None).

``--map target=source,...`` renames fields before the benchmark reads them (the target name is
the one the benchmark's reader knows: ``prediction``, ``question``, ``video_id``...). A record whose
answer starts with ``ERROR:`` is a failed inference (MAD writes them; its scorer skips them): it is
marked, and the benchmark skips it and counts it in ``n_skipped``.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.errors import InputError, UsageError
from analysis.files import readers

FORMATS = ("native", "lmms-eval", "vlmevalkit", "llava")
"""Names ``--format`` accepts."""

ANSWER = "prediction"
"""The field in which every harness record carries the model's answer after reading."""

FAILED_PREFIX = "ERROR:"
"""How MAD (and scripts like it) record an inference that failed instead of an answer."""

LLAVA_FIELDS = {ANSWER: "text", "question": "prompt"}
"""LLaVA answer files: where the answer and the question are."""

_XLSX_MAGIC = b"PK\x03\x04"


@dataclass
class Harnessed:
    """A harness file's records, with the answer in :data:`ANSWER` and failures marked."""

    format: str
    records: readers.Records
    failed: list[bool]
    """Per record: the answer records a failed inference (skipped, counted in ``n_skipped``)."""


def parse_map(text: str | None) -> dict[str, str]:
    """``prediction=text,question=prompt`` -> ``{"prediction": "text", "question": "prompt"}``."""
    if not text:
        return {}
    mapping: dict[str, str] = {}
    for part in text.split(","):
        target, sep, source = (s.strip() for s in part.partition("="))
        if not sep or not target or not source:
            raise UsageError(f"--map expects TARGET=SOURCE pairs separated by commas, got {part!r}")
        mapping[target] = source
    return mapping


def check_format(name: str | None) -> str | None:
    """Validate a ``--format`` value (None: tell by content)."""
    if name is not None and name not in FORMATS:
        raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return name


def sniff(path: Path) -> str:
    """The format of ``path`` by content: one of :data:`FORMATS`."""
    head = _head(path)
    if head.startswith(_XLSX_MAGIC):
        return "vlmevalkit"
    readers.check_text(path, head)
    first_line = head.split(b"\n", 1)[0]
    if head.lstrip()[:1] not in (b"[", b"{"):
        if ANSWER.encode() in first_line:
            return "vlmevalkit"
        if b"," in first_line or b"\t" in first_line:  # a table's header without the answer column
            columns = first_line.decode("utf-8", errors="replace").strip()[:200]
            raise InputError(
                path,
                f"a table without a {ANSWER!r} column (header: {columns}); tried the benchmark's JSON "
                f"files and the VLMEvalKit table, which holds the model's answer in {ANSWER!r} and the "
                f"gold in 'answer': name yours with --map {ANSWER}=COLUMN,answer=COLUMN (and --task)",
            )
        return "native"
    # The keys of the first 64 KiB tell the format; the file is not parsed twice (a 100,000-row
    # native file costs one small read here).
    keys = set(_KEY.findall(head.decode("utf-8", errors="replace")))
    return format_of_keys(keys)


_KEY = re.compile(r'"([^"\\]{1,64})"\s*:')


def format_of_keys(keys: set[str]) -> str:
    """The format whose records have ``keys`` (``native`` when none of the harnesses')."""
    if "doc_id" in keys and {"resps", "filtered_resps"} & keys:
        return "lmms-eval"
    if {"question_id", "text"} <= keys and {"answer_id", "model_id", "prompt"} & keys:
        return "llava"
    if ANSWER in keys and "index" in keys:
        return "vlmevalkit"
    return "native"


def _head(path: Path) -> bytes:
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a folder, expected a file")
    if not path.is_file():
        raise InputError(path, "is not a regular file (a pipe or a device): give a file")
    with path.open("rb") as handle:
        return readers.without_bom(handle.read(64 * 1024))


def read(path: Path, *, fmt: str | None = None, mapping: Mapping[str, str] | None = None) -> Harnessed | None:
    """Read a harness file; None when it is the benchmark's native format and nothing is mapped."""
    tabular_mapped = mapping and fmt is None and is_tabular(path)  # a table read through --map
    kind = check_format(fmt) or ("vlmevalkit" if tabular_mapped else sniff(path))
    if kind == "native" and not mapping:
        return None
    records = read_tabular(path) if is_tabular(path) else readers.read_records(path)
    if kind == "lmms-eval":
        _lmms_answers(records)
    elif kind == "llava":
        _rename(records, {**LLAVA_FIELDS, **(mapping or {})})
        mapping = None
    if mapping:
        _rename(records, mapping)
    if kind in ("vlmevalkit", "llava"):
        for index, item in enumerate(records.items):
            if ANSWER not in item:
                raise records.error(
                    index,
                    f"missing: a {kind} file carries the model's answer here "
                    "(use --map prediction=FIELD if it is elsewhere)",
                    ANSWER,
                )
    failed = [failed_inference(item.get(ANSWER)) for item in records.items]
    return Harnessed(kind, records, failed)


def failed_inference(value: Any) -> bool:
    """True when an answer records a failed inference (``ERROR: ...``) instead of an answer."""
    return isinstance(value, str) and value.lstrip().startswith(FAILED_PREFIX)


def answer_text(value: Any) -> str | None:
    """The answer in an lmms-eval ``resps`` value: a string, or the first string in nested lists."""
    while isinstance(value, list):
        if not value:
            return None
        value = value[0]
    return value if isinstance(value, str) else None


def _lmms_answers(records: readers.Records) -> None:
    for index, item in enumerate(records.items):
        doc = item.get("doc_id")
        if not isinstance(doc, int) or isinstance(doc, bool) or doc < 0:
            found = "missing" if doc is None else f"got {readers.type_name(doc)} {doc!r}"
            raise records.error(index, f"{found}, expected the row index of the task's data file", "doc_id")
        key = "filtered_resps" if "filtered_resps" in item else "resps"
        value = item.get(key)
        text = answer_text(value)
        if text is None and value not in (None, [], [[]]):
            found = readers.type_name(value)
            raise records.error(index, f"expected a string or a list of strings, got {found}", key)
        item[ANSWER] = text


def _rename(records: readers.Records, mapping: Mapping[str, str]) -> None:
    for index, item in enumerate(records.items):
        for target, source in mapping.items():
            if source not in item:
                raise records.error(index, f"missing (--map {target}={source})", source)
            item[target] = item.pop(source) if source != target else item[source]


def is_tabular(path: Path) -> bool:
    """An xlsx workbook, or a text table (anything not JSON): read by :func:`read_tabular`."""
    head = _head(path)
    return head.startswith(_XLSX_MAGIC) or head.lstrip()[:1] not in (b"[", b"{")


def read_tabular(path: Path) -> readers.Records:
    """Rows of an xlsx / tsv / csv file as records of strings (None for an empty cell)."""
    rows: list[tuple[Any, ...]]
    first = 2  # the header is row (or line) 1, the first record row 2
    if _head(path).startswith(_XLSX_MAGIC):
        rows, where = _xlsx_rows(path), "row"
    else:
        text = readers.read_bytes(path).decode("utf-8-sig")
        dialect = "excel-tab" if "\t" in text.split("\n", 1)[0] else "excel"
        rows, where = [tuple(r) for r in csv.reader(io.StringIO(text), dialect=dialect)], "row"
    if not rows or not any(rows[0]):
        raise InputError(path, "no header row")
    header = [str(h).strip() if h is not None else "" for h in rows[0]]
    items: list[Any] = []
    labels: list[str] = []
    for offset, row in enumerate(rows[1:]):
        if not any(cell not in (None, "") for cell in row):
            continue
        items.append({h: _cell(row[i]) if i < len(row) else None for i, h in enumerate(header) if h})
        labels.append(f"{where} {first + offset}")
    return readers.Records(path, items, labels)


def _xlsx_rows(path: Path) -> list[tuple[Any, ...]]:
    import openpyxl  # type: ignore[import-untyped, unused-ignore]  # lazy: only xlsx files need it

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise InputError(path, f"not a readable xlsx workbook ({type(exc).__name__})") from None
    try:
        return [tuple(row) for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()


def _cell(value: Any) -> str | None:
    """A cell as text: numbers the way they were typed (``3.0`` -> ``3``), empty -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
