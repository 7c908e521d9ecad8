"""VidHalluc MCQ item-table columns built a column at a time (the loader's fast path).

:func:`columns` gives exactly the columns that :mod:`analysis.benchmarks.vidhalluc.mcq` builds
record by record. Every field is checked in bulk (which types are present, the longest text);
when something is off it returns None, and the record-by-record reading runs instead and names
the bad group, clip and field. Choices repeat a great deal (replicated runs, shared option
lists), so each distinct one is encoded once.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from analysis.benchmarks.vidhalluc.common import GOLD_ONLY, make_ids, only, texts_ok, videos
from analysis.table.columns import json_list

KNOWN = frozenset(("Question", "Choices", "Correct Answer", "Model Answer"))
"""Record fields with a column (or a role) of their own; the others go to ``extra``."""
_MISSING = object()
"""A clip of an answered group with no (or an empty) answer: counted, and wrong."""


def columns(
    gold_path: Path, gold: dict[str, Any], pred_path: Path | None, pred: dict[str, Any] | None
) -> dict[str, list[Any]] | None:
    """The item-table columns of the rows, or None when a value needs the record-by-record check."""
    groups = list(gold.items())
    if not only(dict, [clips for _, clips in groups]):
        return None
    answers = _group_answers(pred_path, pred, groups)
    if answers is None:
        return None
    counts = [len(clips) for _, clips in groups]
    records = [record for _, clips in groups for record in clips.values()]
    clip_ids = [clip for _, clips in groups for clip in clips]
    group_ids = [group for (group, _), n in zip(groups, counts, strict=True) for _ in range(n)]
    reasons = [why for (_, why), n in zip(answers, counts, strict=True) for _ in range(n)]
    fields = _fields(records)
    if fields is None:
        return None
    gold_texts, questions, gold_choices, own_raws, plain = fields
    if not (texts_ok(gold_texts, optional=False) and texts_ok(questions, optional=True)):
        return None
    if pred_path is not None and pred is None:  # one file: each record (never empty) is its own answer
        ok = texts_ok(own_raws, optional=True)
        found = (own_raws, gold_choices, [False] * len(records)) if ok else None
    else:  # the gold's choices must be checked even where the answer's are shown
        found = _answers(pred_path, answers, counts, clip_ids, gold_choices)
        if _encoded(gold_choices, _keys(gold_choices), lambda c: "") is None:
            return None
    if found is None:
        return None
    raws, choices, missing = found
    shown = [c if c is not None else g for c, g in zip(choices, gold_choices, strict=True)]
    shown_keys = _keys(shown)
    choice_keys = shown_keys if all(map(operator.is_, choices, shown)) else _keys(choices)
    options = _encoded(shown, shown_keys, lambda c: json_list([f"{k}. {v}" for k, v in c.items()]))
    extras = _encoded(choices, choice_keys, lambda c: json.dumps({"Choices": c}, ensure_ascii=False))
    if options is None or extras is None:
        return None
    answered, unanswered = (pred_path or gold_path).name, gold_path.name  # a skipped row points at the gold
    source = [unanswered if why else answered for why in reasons]
    return {
        "item_id": make_ids("mcq", group_ids, clip_ids),
        "pair_id": group_ids,
        "side": clip_ids,
        "question": [q or "" for q in questions],
        "options": options,
        "gold": list(gold_texts),
        "raw_answer": list(raws),
        "scored": [not why for why in reasons],
        "skip_reason": reasons,
        "media": videos(clip_ids),
        "source": [
            f"{name}:group {g!r}, clip {c!r}" for name, g, c in zip(source, group_ids, clip_ids, strict=True)
        ],
        "extra": _extras(records, choices, missing, plain, extras),
    }


def _fields(records: Sequence[Any]) -> tuple[Sequence[Any], ...] | None:
    """``Correct Answer``, ``Question``, ``Choices``, ``Model Answer`` and "no other field" per record.

    One pass over the records (each is visited once: they lie all over memory); None when a
    record is not an object or a ``Choices`` neither an object nor null.
    """
    if not only(dict, records):
        return None
    if not records:
        return (), (), [], (), ()
    rows = [
        (
            r.get("Correct Answer"),
            r.get("Question"),
            r.get("Choices"),
            r.get("Model Answer"),
            r.keys() <= KNOWN,
        )
        for r in records
    ]
    gold, questions, choices, raws, plain = zip(*rows, strict=True)
    if not set(map(type, choices)) <= {dict, type(None)}:
        return None
    return gold, questions, list(choices), raws, plain


def _group_answers(
    pred_path: Path | None, pred: dict[str, Any] | None, groups: Sequence[tuple[str, dict[str, Any]]]
) -> list[tuple[dict[str, Any] | None, str]] | None:
    """Per group, its answers (clip -> record) and why it is skipped, as ``mcq._group`` says."""
    if pred_path is None:
        return [(None, GOLD_ONLY)] * len(groups)
    if pred is None:
        return [(clips, "") for _, clips in groups]
    out: list[tuple[dict[str, Any] | None, str]] = []
    for group, _ in groups:
        entry = pred.get(group)
        if not entry:  # the official scorer skips an absent or empty group without counting it
            why = f"group {'absent from' if group not in pred else 'empty in'} the predictions"
            out.append((None, why))
        elif type(entry) is not dict:
            return None
        else:
            out.append((entry, ""))
    return out


def _answers(
    pred_path: Path | None,
    answers: Sequence[tuple[dict[str, Any] | None, str]],
    counts: Sequence[int],
    clip_ids: Sequence[str],
    gold_choices: Sequence[dict[str, str] | None],
) -> tuple[list[str | None], list[dict[str, str] | None], list[bool]] | None:
    """Per row the raw answer, the choices the answer carries (else the gold's) and "missing"."""
    n = len(clip_ids)
    if pred_path is None:
        return [None] * n, list(gold_choices), [False] * n
    per_row = [a for (a, _), k in zip(answers, counts, strict=True) for _ in range(k)]
    found = [
        None if a is None else (a.get(clip) or _MISSING) for a, clip in zip(per_row, clip_ids, strict=True)
    ]
    given = [i for i, f in enumerate(found) if f is not None and f is not _MISSING]
    fields = _fields([found[i] for i in given])
    if fields is None or not texts_ok(fields[3], optional=True):
        return None
    raw_given, choices_given = fields[3], fields[2]
    raws: list[str | None] = [None] * n
    choices = list(gold_choices)
    for i, raw, choice in zip(given, raw_given, choices_given, strict=True):
        raws[i] = raw
        choices[i] = choice
    return raws, choices, [f is _MISSING for f in found]


def _extras(
    records: Sequence[dict[str, Any]],
    choices: Sequence[dict[str, str] | None],
    missing: Sequence[bool],
    plain: Sequence[bool],
    encoded: Sequence[str],
) -> list[str]:
    """``json.dumps({"Choices": choices or {}, **other fields}, ensure_ascii=False)`` per row.

    ``encoded`` holds that text for a row with no other field (``plain``) and nothing missing.
    """
    out = list(encoded)
    for i in [i for i, (p, lost) in enumerate(zip(plain, missing, strict=True)) if lost or not p]:
        extra = {"Choices": choices[i] or {}, **{k: v for k, v in records[i].items() if k not in KNOWN}}
        if missing[i]:
            extra["missing_prediction"] = True
        out[i] = json.dumps(extra, ensure_ascii=False)
    return out


def _keys(values: Sequence[dict[str, str] | None]) -> list[bytes]:
    """A key per choices object: the same bytes for the same keys and texts in the same order."""
    return [orjson.dumps(value) if value else b"" for value in values]


def _encoded(
    values: Sequence[dict[str, str] | None], keys: Sequence[bytes], encode: Callable[[dict[str, str]], str]
) -> list[str] | None:
    """``encode(value or {})`` per row, once per distinct choices object; None if a text is no string."""
    cache: dict[bytes, str] = {}
    out = []
    for value, key in zip(values, keys, strict=True):
        text = cache.get(key)
        if text is None:
            if value and not set(map(type, value.values())) <= {str}:
                return None
            text = cache[key] = encode(value or {})
        out.append(text)
    return out
