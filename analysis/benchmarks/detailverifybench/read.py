"""Reading DetailVerifyBench files: pipeline outputs and the gold JSONL files.

Every malformed file raises :class:`~analysis.errors.InputError` naming file, record and field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.readers import Records, read_records, require, require_column
from analysis.spans import CLOSE, OPEN, strip_tags
from analysis.table import item_key

GOLD_CASE_TAGS = (("<Hallucination>", OPEN), ("</Hallucination>", CLOSE))
"""Tag spellings of the raw gold files that the official formatter turns into the upper-case tags."""


@dataclass(frozen=True)
class PipelineFile:
    """The columns of one ``tested_model_output_seed_N.json`` the loader needs."""

    records: Records
    ids: list[str]
    image_paths: list[str]
    gold: list[str]
    predictions: list[str | None]
    valid: list[bool]
    messages: list[str | None]
    questions: list[str]


@dataclass(frozen=True)
class GoldRow:
    """One row of ``real_test.jsonl`` / ``synthetic_test.jsonl``."""

    file: str
    """Name of the gold file."""
    record_label: str
    """Where in the file (``line 3``)."""
    filename: str
    category: str
    modify: str | None
    raw_tagged: str
    """``description_tag`` as written."""
    tagged: str
    """``description_tag`` with the tags normalised to upper case."""
    labels: list[dict[str, Any]] | None
    record: dict[str, Any]

    @property
    def where(self) -> str:
        """File and record, for messages and the ``source`` column."""
        return f"{self.file}:{self.record_label}"


def normalise_gold_tags(text: str) -> str:
    """Turn ``<Hallucination>`` / ``</Hallucination>`` into the tags the scorer reads."""
    for raw, tag in GOLD_CASE_TAGS:
        text = text.replace(raw, tag)
    return text


def make_item_id(image_id: str, tagged_gold: str) -> str:
    """Item id: the image id (shared by the real and synthetic sets) and a hash of the clean caption.

    The hash is of the caption without its tags, so a reviewer's span correction (which moves
    tags, never words) keeps the item's id: labels stored against it stay attached.
    """
    return f"{image_id}:{item_key(image_id, strip_tags(tagged_gold))}"


def domain_of(image_path: str) -> str:
    """The folder directly containing the image (``./test/Chart/x.png`` -> ``Chart``)."""
    parts = image_path.replace("\\", "/").split("/")
    folder = parts[-2] if len(parts) >= 2 else ""
    return folder if folder not in ("", ".", "..") else "Unknown"


def read_pipeline(path: Path) -> PipelineFile:
    """Read and check a pipeline output (a JSON list; records wrapped in ``data`` are unwrapped)."""
    records = read_records(path)
    records.items = [_unwrap(item) for item in records.items]
    raw_ids = require_column(records, "id", (str, int))
    valid = require_column(records, "validation_passed", (bool,))
    gold = require_column(records, "gt_hallucinated_caption_with_tags")
    predictions = require_column(records, "hallucinated_caption_with_tags", optional=True)
    # A valid record needs a prediction (its type is checked above): name the first without one.
    missing = [i for i, (ok, text) in enumerate(zip(valid, predictions, strict=True)) if ok and text is None]
    if missing:
        require(records, missing[0], "hallucinated_caption_with_tags")
    messages = require_column(records, "validation_message", optional=True)
    return PipelineFile(
        records=records,
        ids=[str(v) for v in raw_ids],
        image_paths=require_column(records, "image_path"),
        gold=gold,
        predictions=predictions,
        valid=valid,
        messages=messages,
        questions=_questions(records, gold),
    )


def _unwrap(item: dict[str, Any]) -> dict[str, Any]:
    data = item.get("data")
    if "id" not in item and isinstance(data, dict):
        return data
    return item


def _questions(records: Records, gold: Sequence[str]) -> list[str]:
    """The caption the model saw: ``original_caption`` if ``is_use_original``, else the hallucinated one."""
    use_original = require_column(records, "is_use_original", (bool,), optional=True)
    original = require_column(records, "original_caption", optional=True)
    shown = require_column(records, "hallucinated_caption", optional=True)
    out: list[str] = []
    for flag, orig, hall, tagged in zip(use_original, original, shown, gold, strict=True):
        text = orig if flag else hall
        out.append(text if text is not None else strip_tags(tagged))
    return out


def read_gold(paths: Sequence[Path]) -> list[GoldRow]:
    """Read and check gold rows from ``real_test.jsonl`` / ``synthetic_test.jsonl`` files."""
    rows: list[GoldRow] = []
    for path in paths:
        records = read_records(path)
        for index, record in enumerate(records.items):
            tagged = require(records, index, "description_tag")
            rows.append(GoldRow(
                file=path.name,
                record_label=records.where(index),
                filename=require(records, index, "filename"),
                category=require(records, index, "category"),
                modify=require(records, index, "Modify", optional=True),
                raw_tagged=tagged,
                tagged=normalise_gold_tags(tagged),
                labels=read_labels(records, index),
                record=record,
            ))
    return rows


def read_labels(records: Records, index: int) -> list[dict[str, Any]] | None:
    """Check ``hallucination_labels``: a list of ``{"text": str, "labels": [str, ...]}``."""
    entries = require(records, index, "hallucination_labels", (list,), optional=True)
    if entries is None:
        return None
    for k, entry in enumerate(entries):
        field = f"hallucination_labels[{k}]"
        if not isinstance(entry, dict):
            raise records.error(index, "expected an object with 'text' and 'labels'", field)
        if not isinstance(entry.get("text"), str):
            raise records.error(index, "expected a string", f"{field}.text")
        kinds = entry.get("labels", [])
        if not isinstance(kinds, list) or not all(isinstance(x, str) for x in kinds):
            raise records.error(index, "expected a list of strings", f"{field}.labels")
    return list(entries)
