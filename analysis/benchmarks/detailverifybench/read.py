"""Reading DetailVerifyBench files: pipeline outputs and the gold JSONL files.

Every malformed file raises :class:`~analysis.errors.InputError` naming file, record and field.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN, strip_tags
from analysis.files.readers import (
    MAX_TEXT_CHARS,
    Records,
    read_records,
    require,
    require_column,
    without_gc_pauses,  # noqa: F401 - re-exported for the loaders
)
from analysis.table.columns import item_key

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


def make_item_ids(image_ids: Sequence[str], tagged_golds: Sequence[str]) -> list[str]:
    r""":func:`make_item_id` of every record: each distinct gold caption is untagged once.

    The digest is :func:`analysis.table.columns.item_key`'s (blake2b of the parts joined by ``\x1f``),
    written out here so a whole column costs one hash call per record and nothing more.
    """
    clean = {gold: "\x1f" + strip_tags(gold) for gold in dict.fromkeys(tagged_golds)}
    digest = hashlib.blake2b
    return [
        i + ":" + digest((i + clean[g]).encode(), digest_size=8).hexdigest()
        for i, g in zip(image_ids, tagged_golds, strict=True)
    ]


def domain_of(image_path: str) -> str:
    """The folder directly containing the image (``./test/Chart/x.png`` -> ``Chart``)."""
    parts = image_path.replace("\\", "/").split("/")
    folder = parts[-2] if len(parts) >= 2 else ""
    return folder if folder not in ("", ".", "..") else "Unknown"


def domains_of(image_paths: Sequence[str]) -> list[str]:
    """:func:`domain_of` of every path, worked out once per distinct folder."""
    folders = [path.replace("\\", "/").rpartition("/")[0] for path in image_paths]
    domain = {folder: domain_of(folder + "/") for folder in dict.fromkeys(folders)}
    return [domain[folder] for folder in folders]


def read_pipeline(path: Path) -> PipelineFile:
    """Read and check a pipeline output (a JSON list; records wrapped in ``data`` are unwrapped)."""
    records = read_records(path)
    if sum(map(dict.__contains__, records.items, repeat("id"))) != len(records.items):
        records.items = [_unwrap(item) for item in records.items]
    raw_ids = column(records, "id", (str, int))
    valid = column(records, "validation_passed", (bool,))
    gold = column(records, "gt_hallucinated_caption_with_tags")
    predictions = column(records, "hallucinated_caption_with_tags", optional=True)
    # A valid record needs a prediction (its type is checked above): name the first without one.
    if None in predictions:
        pairs = enumerate(zip(valid, predictions, strict=True))
        missing = [i for i, (ok, text) in pairs if ok and text is None]
        if missing:
            require(records, missing[0], "hallucinated_caption_with_tags")
    messages = column(records, "validation_message", optional=True)
    return PipelineFile(
        records=records,
        ids=raw_ids if kinds_of(raw_ids) <= {str} else [str(v) for v in raw_ids],
        image_paths=column(records, "image_path"),
        gold=gold,
        predictions=predictions,
        valid=valid,
        messages=messages,
        questions=_questions(records, gold),
    )


def kinds_of(values: Sequence[Any]) -> set[type]:
    """The exact types among ``values`` (one C-level pass)."""
    return set(map(type, values))


def column(
    records: Records, key: str, kinds: tuple[type, ...] = (str,), *, optional: bool = False
) -> list[Any]:
    """:func:`analysis.files.readers.require_column`, with the check done in bulk.

    The types present and the longest string are found by C-level passes over the column; only
    when one of them is off is the reader's record-by-record check run, and it names the record.
    """
    values = list(map(dict.get, records.items, repeat(key)))
    found = kinds_of(values)
    allowed = set(kinds) | ({type(None)} if optional else set())
    if found <= allowed and (str not in found or _longest(values, len(found) == 1) <= MAX_TEXT_CHARS):
        return values
    return require_column(records, key, kinds, optional=optional)


def _longest(values: Sequence[Any], all_str: bool) -> int:
    if all_str:
        return max(map(len, values), default=0)
    return max((len(v) for v in values if type(v) is str), default=0)


def _unwrap(item: dict[str, Any]) -> dict[str, Any]:
    data = item.get("data")
    if "id" not in item and isinstance(data, dict):
        return data
    return item


def _questions(records: Records, gold: Sequence[str]) -> list[str]:
    """The caption the model saw: ``original_caption`` if ``is_use_original``, else the hallucinated one."""
    use_original = column(records, "is_use_original", (bool,), optional=True)
    original = column(records, "original_caption", optional=True)
    shown = column(records, "hallucinated_caption", optional=True)
    out = [orig if flag else hall for flag, orig, hall in zip(use_original, original, shown, strict=True)]
    if None in out:
        out = [strip_tags(tagged) if text is None else text for text, tagged in zip(out, gold, strict=True)]
    return out


def read_gold(paths: Sequence[Path]) -> list[GoldRow]:
    """Read and check gold rows from ``real_test.jsonl`` / ``synthetic_test.jsonl`` files."""
    rows: list[GoldRow] = []
    for path in paths:
        records = read_records(path)
        for index, record in enumerate(records.items):
            tagged = require(records, index, "description_tag")
            rows.append(
                GoldRow(
                    file=path.name,
                    record_label=records.where(index),
                    filename=require(records, index, "filename"),
                    category=require(records, index, "category"),
                    modify=require(records, index, "Modify", optional=True),
                    raw_tagged=tagged,
                    tagged=normalise_gold_tags(tagged),
                    labels=read_labels(records, index),
                    record=record,
                )
            )
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
