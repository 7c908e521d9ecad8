"""CMM answers written by general harnesses (:mod:`analysis.files.harness`), turned into CMM rows.

- lmms-eval ``--log_samples``: ``doc_id`` is the row of ``--gold`` (the CMM rows file the task
  read, ``all_data_final_reorg.json``), from 0; the row plus the answer is a CMM prediction row.
- VLMEvalKit and LLaVA-style files, and files renamed with ``--map``: the CMM columns plus the
  answer in ``prediction`` (or ``pred``).

A failed inference (``ERROR: ...``) stays a row but is not scored (``n_skipped``).
"""

from __future__ import annotations

from pathlib import Path

from analysis.benchmarks.cmm.read import REQUIRED, Rows, rows_of
from analysis.errors import InputError
from analysis.files import harness, readers


def rows(found: harness.Harnessed, gold: Path | None) -> Rows:
    """The CMM rows of a harness's file (joined to ``gold`` by ``doc_id`` for lmms-eval)."""
    records = found.records
    if found.format == "lmms-eval":
        records = _joined(records, gold)
    elif gold is not None:
        raise InputError(gold, "cmm takes --gold only for lmms-eval samples (joined by doc_id)")
    for item in records.items:
        if "pred" not in item and harness.ANSWER in item:
            item["pred"] = item.pop(harness.ANSWER)
    return rows_of(records, (*REQUIRED, "pred"))


def _joined(records: readers.Records, gold: Path | None) -> readers.Records:
    if gold is None:
        raise InputError(
            records.path,
            "lmms-eval samples link to gold only by doc_id: pass --gold with the CMM rows file the task read",
        )
    rows = readers.read_records(gold)
    items = []
    for i, item in enumerate(records.items):
        doc = item["doc_id"]
        if doc >= len(rows):
            end = f"past the end of {gold.name} ({len(rows)} rows, from 0)"
            raise records.error(i, f"row {doc} is {end}", "doc_id")
        items.append({**rows.items[doc], "pred": item[harness.ANSWER], "doc_id": doc})
    return readers.Records(records.path, items, records.labels)
