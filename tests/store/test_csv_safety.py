"""CSV exports: a CR, LF or comma inside a value is quoted, the formula guard holds on every line
of the file, and the tool's own CSV imports back to exactly the values it exported.

Issue 8's finding: ``ok\\r@SUM(1+1)*cmd`` was written unquoted (the writer ended rows with a bare LF,
so it quoted LF but not CR), a reader ending lines at CR saw a line starting ``@SUM``, and the
import (which read with universal newlines) turned the CR into LF.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from store_support import ALICE, BOB, cmm_item, open_backend

from analysis.benchmarks.vidhalluc.pairs import catalogue
from analysis.files.csv_cells import csv_safe, csv_unsafe
from analysis.review.pairs.export import export_pairs_csv
from analysis.store import Store, events_frame, export_corrections, import_corrections, relabel

HOSTILE = [
    "ok\r@SUM(1+1)*cmd",
    'ok\n=HYPERLINK("x")',
    "a,b\r\n+1",
    "\r-2",
    "x\n'y",
    'q"uote\r\r=z',
    "a\t\n@b",
]
STARTERS = ("=", "+", "-", "@", "\t")


def _lines(path: Path) -> list[str]:
    """Every physical line of a file, ended at CR, LF or CRLF (as any line-based reader would)."""
    return re.split(r"\r\n|\r|\n", path.read_bytes().decode("utf-8"))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return next(open_backend("sqlite", tmp_path / "a"))


def test_no_line_of_an_export_starts_a_formula_and_the_import_gives_the_values_back(
    store: Store, tmp_path: Path
) -> None:
    for n, text in enumerate(HOSTILE, start=1):
        relabel(store, cmm_item(n), "note", text, ALICE, text)
    path = tmp_path / "corrections.csv"
    export_corrections(store, path, benchmark="cmm")
    bad = [line for line in _lines(path) if line.startswith(STARTERS)]
    assert bad == []
    stored = events_frame(store)
    assert "ok\r@SUM(1+1)*cmd" in stored["new_value"].tolist()
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    # one row per event (quoted, not split), every value as stored
    assert [csv_unsafe(r["new_value"]) for r in rows] == stored["new_value"].tolist()
    other = next(open_backend("sqlite", tmp_path / "b"))
    assert import_corrections(other, path, BOB) == len(HOSTILE)
    for column in ("new_value", "reason"):
        assert events_frame(other)[column].tolist() == stored[column].tolist()


def test_the_pair_list_csv_is_guarded_on_every_line(store: Store, tmp_path: Path) -> None:
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
    from analysis.review.pairs.validation import PairChecks, save_validation

    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    pairs = catalogue(load_manifest(SAMPLE_MANIFEST).table)
    first = pairs.iloc[0]
    clips = tuple(first["clips"])
    checks = PairChecks(str(first["pair_id"]), clips, (True,) * len(clips), (True,) * len(clips), True)
    save_validation(store, checks, ALICE, "fine\r@SUM(1+1)*cmd")
    path = tmp_path / "pairs.csv"
    export_pairs_csv(store, pairs, path)
    assert not [line for line in _lines(path) if line.startswith(STARTERS)]
    with path.open(newline="", encoding="utf-8") as handle:
        notes = [csv_unsafe(r["note"]) for r in csv.DictReader(handle)]
    assert "fine\r@SUM(1+1)*cmd" in notes


@given(st.text(alphabet=st.sampled_from(list("ab=+-@'\t\r\n,\" ")), max_size=12))
def test_csv_safe_guards_every_line_and_round_trips(text: str) -> None:
    cell = csv_safe(text)
    assert not any(line.startswith(STARTERS) for line in re.split(r"\r\n|\r|\n", cell))
    assert csv_unsafe(cell) == (text or None)
