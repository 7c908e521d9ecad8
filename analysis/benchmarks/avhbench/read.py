"""Reading AVHBench records in the three shapes found in the wild, and matching them to QA.json.

Shapes (field aliases in order of preference):

- the gold records plus the answer: ``video_id, task, text, label`` + ``pred`` / ``prediction`` /
  ``response``;
- ``{id: "<video_id>.mp4", question, answer, pred}`` (JSONL), no task;
- ``{video_id, task, question, ground_truth, prediction}`` (a JSON list; MAD writes it, with
  ``prediction = "ERROR: ..."`` where inference failed: such a record is kept but not scored);
- AVCD's ``{id: "<video_id>.mp4", question, answer, pred}`` JSONL (under a ``.json`` name), no task;
- a general harness's file (:mod:`analysis.files.harness`): lmms-eval ``--log_samples``, joined to
  ``--gold`` by ``doc_id`` = row index of QA.json; VLMEvalKit and LLaVA-style files, and any file
  with fields renamed by ``--map``.

Method repositories keep the prompt suffix in the question (``" Answer only 'Yes' or 'No'."``,
``" Answer yes or no."``): the question is the text before it, so the item is the same as in
QA.json. With a gold file, every record takes its label from the gold file's first record with the same
(``video_id``, stripped ``text``), and its task where it has none: a given gold file wins over
labels inside the prediction records. A record that matches nothing keeps its own label; one
without a label that matches nothing is an input error naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.errors import InputError
from analysis.files import harness, readers

VIDEO_KEYS = ("video_id", "id")
TEXT_KEYS = ("text", "question")
LABEL_KEYS = ("label", "answer", "ground_truth")
PRED_KEYS = ("pred", harness.ANSWER, "response")
TASK_KEYS = ("task",)

Lookup = dict[tuple[str, str], tuple[str, str]]
"""(video_id, stripped text) -> (task, label) of the first gold record with that key."""

PROMPT_SUFFIX = re.compile(r"(?<=[?.])\s+(?:please\s+)?answer\b[^?]*$", re.IGNORECASE | re.DOTALL)
"""An instruction after the question (``? Answer only 'Yes' or 'No'.``): not part of the item."""


def question_of(text: str) -> str:
    """The question without a trailing answer instruction (``text`` itself when it has none)."""
    return PROMPT_SUFFIX.sub("", text).strip() if PROMPT_SUFFIX.search(text) else text


@dataclass
class Parsed:
    """AVHBench records of one file as columns (one entry per record, in file order)."""

    path: Path
    video_id: list[str] = field(default_factory=list)
    task: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    pred: list[str | None] = field(default_factory=list)
    where: list[str] = field(default_factory=list)
    """``line 3`` / ``record 3``: how to find the record in its file."""
    extra: list[dict[str, Any]] = field(default_factory=list)
    """Fields of each record that were not read into a column."""
    failed: list[bool] = field(default_factory=list)
    """The answer records a failed inference (``ERROR: ...``): not scored, counted as skipped."""

    def __len__(self) -> int:
        return len(self.video_id)


def read(
    path: Path,
    *,
    need_pred: bool,
    gold: Path | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> Parsed:
    """Read an AVHBench file (JSON list, JSONL or a harness's file); fill task or label from ``gold``."""
    found = harness.read(Path(path), fmt=fmt, mapping=mapping) if need_pred else None
    if found is not None and found.format == "lmms-eval":
        return _from_doc_ids(found, gold)
    records = found.records if found is not None else readers.read_records(Path(path))
    if len(records) == 0:
        raise InputError(path, "no records")
    fields = _columns(records.items, need_pred)
    if fields is None:  # a field missing or not a string somewhere: record by record, to name it
        return _by_record(records, need_pred, gold)
    return _by_column(records, fields, need_pred, gold)


@dataclass
class _Fields:
    """The fields of every record, each already checked to be a string (or, where allowed, null)."""

    video_id: list[str]
    asked: list[str]
    task: list[str | None]
    label: list[str | None]
    pred: list[str | None]


def _columns(items: list[dict[str, Any]], need_pred: bool) -> _Fields | None:
    """Each field of every record picked as :func:`_pick` does; None when one would be refused."""
    video_id = _video_ids(items)
    asked = _first_of(items, TEXT_KEYS)
    task = _first_of(items, TASK_KEYS, optional=True)
    label = _first_of(items, LABEL_KEYS, optional=True)
    pred = _first_present(items, PRED_KEYS) if need_pred else [None] * len(items)
    if video_id is None or asked is None or task is None or label is None or pred is None:
        return None
    return _Fields(video_id, asked, task, label, pred)


def _by_column(records: readers.Records, fields: _Fields, need_pred: bool, gold: Path | None) -> Parsed:
    """The records read a field at a time (every field known to be well typed)."""
    n = len(records)
    text = list(fields.asked)
    for i in _rows_with(text, "wer"):  # only a text holding "answer" (any case; "ſ" folds to s) has a suffix
        text[i] = question_of(text[i])
    keys = list(zip(fields.video_id, [t.strip() for t in text], strict=True))
    task, label = fields.task, fields.label
    lookup: Lookup | None = None
    if need_pred and gold is not None:  # a given gold file wins over labels inside the records
        lookup = _gold_lookup(records, 0, gold, "label")
        hits = list(map(lookup.get, keys))
        task = [t if t is not None or h is None else h[0] for t, h in zip(task, hits, strict=True)]
        label = [b if h is None else h[1] for b, h in zip(label, hits, strict=True)]
    for i in [i for i in range(n) if task[i] is None or label[i] is None]:  # in record order, as errors go
        if lookup is None:
            missing = "task" if task[i] is None else "label"
            if not need_pred:
                raise records.error(i, "missing, expected a string", missing)
            lookup = _gold_lookup(records, i, gold, missing)
        task[i], label[i] = _match(records, i, lookup, keys[i], task[i], label[i], gold)
    failed = [False] * n
    for i in _rows_with(fields.pred, harness.FAILED_PREFIX):
        failed[i] = harness.failed_inference(fields.pred[i])
    return Parsed(
        records.path,
        fields.video_id,
        task,  # type: ignore[arg-type]
        text,
        label,  # type: ignore[arg-type]
        fields.pred,
        records.labels or [readers.record_name(i) for i in range(n)],
        _extras(records.items, fields.asked, text, need_pred),
        failed,
    )


def _video_ids(items: list[dict[str, Any]]) -> list[str] | None:
    """``video_id``, else the stem of ``id``, of every record (as :func:`_video_id`)."""
    found = [item.get("video_id", _ABSENT) for item in items]
    for i in [i for i, v in enumerate(found) if v is _ABSENT] if _ABSENT in found else ():
        found[i] = items[i].get("id")
        if type(found[i]) is str and len(found[i]) <= readers.MAX_TEXT_CHARS:  # the id itself is checked
            found[i] = _stem(found[i])
    return found if _texts(found) else None


def _stem(name: str) -> str:
    # ``id`` is a file name ("00191.mp4"), sometimes with folders: keep the bare stem.
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".mp4") else name


def _first_of(
    items: list[dict[str, Any]], keys: tuple[str, ...], *, optional: bool = False
) -> list[Any] | None:
    """The first of ``keys`` that is present and not null, of every record; None if one is refused."""
    values = [item.get(keys[0]) for item in items]
    for key in keys[1:] if None in values else ():
        for i in [i for i, v in enumerate(values) if v is None]:
            values[i] = items[i].get(key)
    return values if _texts(values, null=optional) else None


def _first_present(items: list[dict[str, Any]], keys: tuple[str, ...]) -> list[Any] | None:
    """The first of ``keys`` present (null allowed), of every record; None if one has none or a non-string."""
    values = [item.get(keys[0], _ABSENT) for item in items]
    for key in keys[1:] if _ABSENT in values else ():
        for i in [i for i, v in enumerate(values) if v is _ABSENT]:
            values[i] = items[i].get(key, _ABSENT)
    return values if _texts(values, null=True) else None


def _texts(values: list[Any], *, null: bool = False) -> bool:
    """Whether every value is a string within :data:`readers.MAX_TEXT_CHARS` (or null, if ``null``)."""
    kinds = set(map(type, values))
    if not kinds <= ({str, type(None)} if null else {str}):
        return False
    texts = values if type(None) not in kinds else filter(None, values)
    return max(map(len, texts), default=0) <= readers.MAX_TEXT_CHARS


def _rows_with(texts: Sequence[str | None], part: str) -> list[int]:
    """The rows whose text holds ``part``, in any case (Arrow finds them without a call per row)."""
    found = pc.match_substring(pa.array(texts, pa.large_string()), part, ignore_case=True).fill_null(False)
    rows: list[int] = np.flatnonzero(found.to_numpy(zero_copy_only=False)).tolist()
    return rows


def _extras(
    items: list[dict[str, Any]], asked: list[str], text: list[str], with_pred: bool
) -> list[dict[str, Any]]:
    """Each record's fields not read into a column, plus the question as asked when it had a suffix."""
    used = _used(with_pred)
    if all(k in used for shape in dict.fromkeys(map(tuple, items)) for k in shape) and asked == text:
        return [{} for _ in items]
    return [_rest(item, with_pred) | ({"prompt": a} if a != t else {})
            for item, a, t in zip(items, asked, text, strict=True)]  # fmt: skip


_ABSENT = object()
"""A field a record does not have (as against one it has as null)."""


def _by_record(records: readers.Records, need_pred: bool, gold: Path | None) -> Parsed:
    """The records read one at a time: slower, and names the first field that is refused."""
    out = Parsed(records.path)
    lookup: Lookup | None = None
    for i in range(len(records)):
        video_id, asked = _video_id(records, i), _pick(records, i, TEXT_KEYS)
        text = question_of(asked)
        task = _pick(records, i, TASK_KEYS, optional=True)
        label = _pick(records, i, LABEL_KEYS, optional=True)
        if need_pred and gold is not None:  # a given gold file wins over labels inside the records
            if lookup is None:
                lookup = _gold_lookup(records, i, gold, "label")
            hit = lookup.get((video_id, text.strip()))
            if hit is not None:
                task, label = (task if task is not None else hit[0]), hit[1]
        if task is None or label is None:
            if lookup is None:
                missing = "task" if task is None else "label"
                if not need_pred:
                    raise records.error(i, "missing, expected a string", missing)
                lookup = _gold_lookup(records, i, gold, missing)
            task, label = _match(records, i, lookup, (video_id, text.strip()), task, label, gold)
        pred = _pick(records, i, PRED_KEYS, optional=True, null_ok=True) if need_pred else None
        if need_pred and not any(k in records.items[i] for k in PRED_KEYS):
            raise records.error(
                i, "missing, expected the model's answer as a string (or 'prediction' / 'response')", "pred"
            )
        out.video_id.append(video_id)
        out.task.append(task)
        out.text.append(text)
        out.label.append(label)
        out.pred.append(pred)
        out.where.append(records.where(i))
        prompt = {"prompt": asked} if asked != text else {}
        out.extra.append(_rest(records.items[i], need_pred) | prompt)
        out.failed.append(need_pred and harness.failed_inference(pred))
    return out


_HARNESS_ANSWER_KEYS = ("resps", "filtered_resps", harness.ANSWER)


def _from_doc_ids(found: harness.Harnessed, gold: Path | None) -> Parsed:
    """lmms-eval samples: each ``doc_id`` is a row of QA.json (the task's data file), from 0."""
    records = found.records
    if gold is None:
        raise InputError(
            records.path,
            "lmms-eval samples link to gold only by doc_id: pass --gold QA.json (the task's data file)",
        )
    rows = read(gold, need_pred=False)
    out = Parsed(records.path)
    for i, item in enumerate(records.items):
        doc = item["doc_id"]
        if doc >= len(rows):
            end = f"past the end of {Path(gold).name} ({len(rows)} rows, from 0)"
            raise records.error(i, f"row {doc} is {end}", "doc_id")
        out.video_id.append(rows.video_id[doc])
        out.task.append(rows.task[doc])
        out.text.append(rows.text[doc])
        out.label.append(rows.label[doc])
        out.pred.append(item[harness.ANSWER])
        out.where.append(records.where(i))
        out.extra.append({k: v for k, v in item.items() if k not in _HARNESS_ANSWER_KEYS})
        out.failed.append(found.failed[i])
    return out


def _pick(
    records: readers.Records, i: int, keys: tuple[str, ...], *, optional: bool = False, null_ok: bool = False
) -> Any:
    """The first of ``keys`` present in record ``i``, checked to be a string."""
    item = records.items[i]
    for key in keys:
        if key in item and (item[key] is not None or null_ok):
            return readers.require(records, i, key, optional=null_ok)
    if optional:
        return None
    also = f" (or {', '.join(repr(k) for k in keys[1:])})" if len(keys) > 1 else ""
    raise records.error(i, f"missing, expected a string{also}", keys[0])


def _video_id(records: readers.Records, i: int) -> str:
    item = records.items[i]
    if "video_id" in item or "id" not in item:
        return str(_pick(records, i, ("video_id",)))
    return _stem(str(readers.require(records, i, "id")))


def _gold_lookup(records: readers.Records, i: int, gold: Path | None, missing: str) -> Lookup:
    if gold is None:
        raise records.error(i, "missing; pass --gold QA.json so it can be taken from the gold file", missing)
    parsed = read(gold, need_pred=False)
    lookup: Lookup = {}
    for vid, text, task, label in zip(parsed.video_id, parsed.text, parsed.task, parsed.label, strict=True):
        lookup.setdefault((vid, text.strip()), (task, label))
    return lookup


def _match(
    records: readers.Records,
    i: int,
    lookup: Lookup,
    key: tuple[str, str],
    task: str | None,
    label: str | None,
    gold: Path | None,
) -> tuple[str, str]:
    found = lookup.get(key)
    if found is None:
        name = gold.name if gold is not None else "the gold file"
        raise InputError(
            records.path,
            f"no record in {name} has video_id {key[0]!r} and text {key[1]!r}",
            record=records.where(i),
            field="text",
        )
    return (task if task is not None else found[0], label if label is not None else found[1])


def _used(with_pred: bool) -> frozenset[str]:
    """The fields read into columns."""
    used = {*VIDEO_KEYS, *TEXT_KEYS, *LABEL_KEYS, *TASK_KEYS}
    return frozenset(used | set(PRED_KEYS) if with_pred else used)


def _rest(item: dict[str, Any], with_pred: bool) -> dict[str, Any]:
    used = _used(with_pred)
    return {k: v for k, v in item.items() if k not in used}
