"""The case file of formats (tests/cases/formats.jsonl): each file is told apart as it says.

Each case is a small file in one format: what it looks like (``content``), how it is told apart
(``told_apart_by``) and why it matters (``why``). The test writes it and checks both decisions:
the harness format (:func:`analysis.files.harness.sniff`) and, where content can tell, the benchmark and
role (:func:`analysis.load.detect.detect`); where it cannot, detection must refuse rather than guess.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import openpyxl  # type: ignore[import-untyped, unused-ignore]
import pytest

from analysis.errors import InputError
from analysis.files.harness import FORMATS, sniff
from analysis.load.detect import detect

CASES_PATH = Path(__file__).resolve().parent / "cases" / "formats.jsonl"
CASES = [json.loads(line) for line in CASES_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_case(folder: Path, case: dict[str, Any]) -> Path:
    path = folder / case["name"]
    content, encoding = case["content"], case["encoding"]
    if encoding == "json":
        path.write_text(json.dumps(content), encoding="utf-8")
    elif encoding == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in content), encoding="utf-8")
    elif encoding == "tsv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, dialect="excel-tab")
            writer.writerows([content["header"], *content["rows"]])
    else:
        book = openpyxl.Workbook()
        for row in [content["header"], *content["rows"]]:
            book.active.append(row)
        book.save(path)
    return path


def test_every_case_says_what_why_and_how() -> None:
    assert len(CASES) >= 15
    for case in CASES:
        assert (
            case["harness"] in (*FORMATS, "refused") and case["told_apart_by"].strip() and case["why"].strip()
        ), case


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_format_is_told_apart_by_content(tmp_path: Path, case: dict[str, Any]) -> None:
    path = write_case(tmp_path, case)
    if case["harness"] == "refused":  # a table that says what it lacks
        with pytest.raises(InputError, match="without a 'prediction' column"):
            sniff(path)
        return
    assert sniff(path) == case["harness"]
    if case["benchmark"] is None:
        with pytest.raises(InputError):  # content cannot name the benchmark: the user does
            detect(path)
        return
    found = detect(path)
    assert (found.benchmark, found.role) == (case["benchmark"], case["role"])
    if "task" in case:
        assert found.task == case["task"]
