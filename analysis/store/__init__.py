"""Review and correction: labels as insert-only events in SQLite or PostgreSQL.

The app and the CLI use this surface; the modules behind it are small and private to it:

- :mod:`~analysis.store.connect` opens the store (SQLite file by default, PostgreSQL by URL)
  over :mod:`~analysis.store.db`, :mod:`~analysis.store.migrations` brings its schema up to date;
- :mod:`~analysis.store.events` writes labels (``relabel``, ``undo``), :mod:`~analysis.store.labels`
  reads them back (``current_labels``, ``events_frame``, ``replay``);
- :mod:`~analysis.store.reviewers` and :mod:`~analysis.store.agreement`: rounds with k reviewers
  per item, blind views, agreement, the disagreement queue and adjudication;
- :mod:`~analysis.store.apply` (with :mod:`analysis.benchmarks.rescore`): corrected gold applied to an
  item table, verdicts recomputed by each benchmark, and what changed in the metrics;
- :mod:`~analysis.store.export`: corrections out and in (the corrected view and corrected native
  files are :mod:`analysis.review.corrected`);
- :mod:`~analysis.store.mirror`: the append-only JSONL mirror pushed to a Hugging Face dataset.
"""

from __future__ import annotations

from analysis.benchmarks.rescore import rescore_with_gold
from analysis.errors import ReadOnlyStore, StoreError, WriteRefused
from analysis.store.agreement import adjudicate, agreement_report, disagreements
from analysis.store.apply import apply_corrections, corrected_runs, count_corrections, metric_changes
from analysis.store.connect import open_store
from analysis.store.db import Store, assert_not_served
from analysis.store.events import Event, ItemRef, NoChange, NothingToUndo, relabel, undo
from analysis.store.export import export_corrections, import_corrections
from analysis.store.identity import Identity, IdentityMismatch, NotAuthenticated, identity_from
from analysis.store.labels import current_labels, events_frame, replay
from analysis.store.reviewers import assign, blind_view, my_unreviewed, vote
from analysis.store.values import FIELDS, FLAGS, InvalidLabel

__all__ = [
    "FIELDS",
    "FLAGS",
    "Event",
    "Identity",
    "IdentityMismatch",
    "InvalidLabel",
    "ItemRef",
    "NoChange",
    "NotAuthenticated",
    "NothingToUndo",
    "ReadOnlyStore",
    "Store",
    "StoreError",
    "WriteRefused",
    "adjudicate",
    "agreement_report",
    "apply_corrections",
    "assert_not_served",
    "assign",
    "blind_view",
    "corrected_runs",
    "count_corrections",
    "current_labels",
    "disagreements",
    "events_frame",
    "export_corrections",
    "identity_from",
    "import_corrections",
    "metric_changes",
    "my_unreviewed",
    "open_store",
    "relabel",
    "replay",
    "rescore_with_gold",
    "undo",
    "vote",
]
