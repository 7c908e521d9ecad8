"""Exports of a pair validation: the validated pair list, and gold files of kept pairs.

- :func:`export_pairs_json` / :func:`export_pairs_csv`: every pair of the catalogue with its final
  decision (:func:`analysis.review.pairs.validation.decisions`), and every reviewer's checks, note and time
  (the adjudication too). The CSV has one row per (pair, reviewer), clips by position
  (``clip_1``, ``clear_action_1``, ``single_action_1``...) so pairs and triples share columns;
  its cells go through the formula-injection guard (:func:`analysis.files.csv_cells.csv_safe`:
  a YouTube id such as ``-abc123`` comes out as ``'-abc123``).
- :func:`export_kept_gold`: the gold files that hold the pairs, in their native format, holding
  only the kept pairs, with the store's current gold corrections of their items in place (the
  benchmark's own :attr:`~analysis.benchmarks.base.PairSpec.filter_gold`), so the benchmark's
  loaders read them back like the originals.
"""

from __future__ import annotations

import io
import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.files.atomic import write_text_atomic
from analysis.files.csv_cells import csv_safe, csv_writer
from analysis.review.corrected import corrected_gold
from analysis.review.pairs.checks import pair_owner, pair_spec
from analysis.review.pairs.validation import CLIP_CRITERIA, decisions, validations
from analysis.store import Store
from analysis.store.visibility import Viewer

CSV_HEAD: tuple[str, ...] = (
    "pair_id",
    "final_decision",
    "resolution",
    "role",
    "reviewer",
    "decision",
    "actions_differ",
    "note",
    "time",
    "reason",
)
"""Leading CSV columns; ``clip_<i>``, ``clear_action_<i>``, ``single_action_<i>`` follow per clip."""


def pair_records(
    store: Store, catalogue: pd.DataFrame, *, required: int = 1, viewer: Viewer | None = None
) -> list[dict[str, Any]]:
    """Every catalogue pair with its final decision and every review, as JSON-ready records.

    Keys ``pair_id``, ``clips``, ``decision``, ``resolution``, ``reviews``, ``adjudication`` and
    ``similarity``: ``reviews`` is each reviewer's validation (checks as booleans, decision, note,
    time); ``adjudication`` the final one, or None; ``similarity`` the pair's scores (name ->
    value: the ``semantic`` and ``visual`` of ``pairs score``, where known; ``docs/pair-scores.md``).
    ``viewer``: only the votes and adjudications they
    may see (:func:`analysis.review.pairs.labels.shown_labels`).
    """
    clips = {str(p): tuple(c) for p, c in zip(catalogue["pair_id"], catalogue["clips"], strict=True)}
    scores = (
        {str(p): dict(s or {}) for p, s in zip(catalogue["pair_id"], catalogue["similarity"], strict=True)}
        if "similarity" in catalogue
        else {}
    )
    final = decisions(store, list(clips), required=required, viewer=viewer).set_index("pair_id")
    reviews = _by_pair(validations(store, clips=clips, viewer=viewer))
    settled = _by_pair(validations(store, scope="final", clips=clips, viewer=viewer))
    records = []
    for pair, members in clips.items():
        row = final.loc[pair]
        records.append(
            {
                "pair_id": pair,
                "clips": list(members),
                "decision": row["decision"],
                "resolution": row["resolution"],
                "reviews": reviews.get(pair, []),
                "adjudication": settled[pair][0] if pair in settled else None,
                "similarity": scores.get(pair, {}),
            }
        )
    return records


def _by_pair(frame: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in frame.to_dict("records"):
        record = {str(k): v for k, v in row.items()}
        pair = str(record.pop("pair_id"))
        record["clips"] = list(record["clips"])
        out.setdefault(pair, []).append(record)
    return out


def export_pairs_json(
    store: Store, catalogue: pd.DataFrame, path: Path, *, required: int = 1, viewer: Viewer | None = None
) -> int:
    """Write the validated pair list as JSON (``{"benchmark", "required", "counts", "pairs"}``).

    Returns the number of pairs written. ``viewer``: as seen by them (:func:`pair_records`).
    """
    records = pair_records(store, catalogue, required=required, viewer=viewer)
    counts = {name: sum(r["decision"] == name for r in records) for name in ("keep", "drop")}
    counts["undecided"] = len(records) - counts["keep"] - counts["drop"]
    body = {"benchmark": pair_owner(), "required": required, "counts": counts, "pairs": records}
    write_text_atomic(path, json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    return len(records)


def export_pairs_csv(
    store: Store, catalogue: pd.DataFrame, path: Path, *, required: int = 1, viewer: Viewer | None = None
) -> int:
    """Write one CSV row per (pair, reviewer) with every check; a pair nobody reviewed gets one row.

    Check cells are ``yes`` / ``no`` (empty when unanswered). Returns the number of data rows.
    ``viewer``: as seen by them (:func:`pair_records`).
    """
    records = pair_records(store, catalogue, required=required, viewer=viewer)
    width = max((len(r["clips"]) for r in records), default=2)
    header = [*CSV_HEAD, *(f"{name}_{i}" for i in range(1, width + 1) for name in ("clip", *CLIP_CRITERIA))]
    header += ["semantic", "visual"]  # the pair's scores, where known (docs/pair-scores.md)
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(header)
    rows = 0
    for record in records:
        entries = [("vote", r) for r in record["reviews"]]
        entries += [("adjudication", record["adjudication"])] if record["adjudication"] else []
        for role, review in entries or [("", None)]:
            writer.writerow([csv_safe(v) for v in _csv_row(record, role, review, width)])
            rows += 1
    write_text_atomic(path, buffer.getvalue())
    return rows


def _csv_row(record: dict[str, Any], role: str, review: dict[str, Any] | None, width: int) -> list[Any]:
    review = review or {}
    row = [
        record["pair_id"],
        record["decision"],
        record["resolution"],
        role,
        review.get("reviewer"),
        review.get("decision"),
        _yes_no(review.get("actions_differ")),
        review.get("note"),
        review.get("time"),
        review.get("reason"),
    ]
    for i in range(width):
        clip = record["clips"][i] if i < len(record["clips"]) else None
        row.append(clip)
        for name in CLIP_CRITERIA:
            row.append(_yes_no((review.get(name) or {}).get(clip)) if clip else None)
    similarity = record.get("similarity") or {}
    row += [similarity.get("semantic"), similarity.get("visual")]
    return row


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else ("yes" if value else "no")


def filter_gold(
    source: Path, keep: Collection[str], target: Path, corrected: Mapping[str, str] | None = None
) -> int:
    """Copy a gold file that holds pairs keeping only the pairs in ``keep`` (the benchmark's own rule).

    ``corrected`` (item id -> gold) is written into the copy. Returns the number of groups
    written. ``target`` must not be ``source``.
    """
    return pair_spec().filter_gold(source, keep, target, corrected or {})[1]


def kept_pairs(store: Store, *, required: int = 1, viewer: Viewer | None = None) -> list[str]:
    """Pairs whose final decision is keep (adjudicated, or unanimous with ``required`` votes)."""
    table = decisions(store, required=required, viewer=viewer)
    return table.loc[table["decision"] == "keep", "pair_id"].astype(str).tolist()


def export_kept_gold(
    store: Store, gold: Sequence[Path], out_dir: Path, *, required: int = 1, viewer: Viewer | None = None
) -> dict[str, Path]:
    """Filtered copies of the gold files holding pairs under ``out_dir``, same names: {task: path written}.

    Only pairs with a final keep decision stay; pairs not yet decided are left out. ``viewer``:
    decided from the votes they may see.
    """
    keep = kept_pairs(store, required=required, viewer=viewer)
    corrected = corrected_gold(store, pair_owner())
    written: dict[str, Path] = {}
    for source in gold:
        target = out_dir / source.name
        task, _ = pair_spec().filter_gold(source, keep, target, corrected)
        written[task] = target
    return written
