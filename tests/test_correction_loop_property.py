"""Property, per benchmark and task: corrected metrics in memory equal ``score`` on the native copies.

Random corrections (which scored items, and which other gold value each gets) are recorded in a
label store (a SQLite file); then the corrected report computed in memory (the app's and
``score --corrected``'s: :func:`analysis.store.apply_corrections` + the benchmark's ``score``)
must equal, exactly, the report of ``score`` on the corrected native files that
:func:`analysis.review.corrected.write_native` writes.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from corrections_support import copy_of, corrections, sample_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.benchmarks import get
from analysis.cli.items import item_lines, load_files
from analysis.review.corrected import common_folder, gold_map, write_native
from analysis.store import Identity, apply_corrections, current_labels, open_store
from analysis.store.events import ItemRef, write_label_rows

RUNS = sample_runs()
ALICE = Identity("alice")


def _items(name: str, pred: Path, gold: Path | None, task: str | None) -> list[dict[str, Any]]:
    bench = get(name)
    return [json.loads(line) for line in item_lines(bench, load_files(bench, [pred], gold=gold, task=task))]


@pytest.mark.parametrize(
    ("name", "task", "pred", "gold", "golds"), RUNS, ids=[f"{n}-{t}" if t else n for n, t, *_ in RUNS]
)
def test_corrected_metrics_equal_score_on_the_native_copies(
    name: str, task: str | None, pred: Path, gold: Path | None, golds: list[Path]
) -> None:
    bench = get(name)
    items = _items(name, pred, gold, task)
    scored = [i for i, item in enumerate(items) if item["scored"]]
    files = [pred, *golds]
    base = common_folder(files)

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(chosen=st.lists(st.sampled_from(scored), max_size=6, unique=True), k=st.integers(0, 3))
    def check(chosen: list[int], k: int) -> None:
        rows = corrections(items, chosen, k)
        with tempfile.TemporaryDirectory() as folder:
            store = open_store(Path(folder) / "labels.db")
            try:
                writes = [
                    (ItemRef(name, r["item_id"], r["task"] or "", r["gold"]), "gold", r["value"], "p")
                    for r in rows
                ]
                write_label_rows(store, writes, ALICE, scope="final")
                labels = current_labels(store, name)
            finally:
                store.close()
            table = bench.load(pred, gold=gold, task=task)
            in_memory = bench.score(apply_corrections(table, labels), task=task)
            out = Path(folder) / "native"
            write_native(name, files, gold_map(labels), out)
            pred_copy = copy_of(pred, out, base)
            gold_copy = copy_of(gold, out, base) if gold else None
            copy = bench.load(pred_copy if pred_copy.is_file() else pred, gold=gold_copy, task=task)
            assert bench.score(copy, task=task) == in_memory

    check()
