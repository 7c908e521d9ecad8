"""One item as the inspector shows it.

Its fields, media, the answer cut where its reading was found, the other models' answers and the
other sides of its pair.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.query.pages import reading_labels
from analysis.table.columns import media_refs


def verdict_word(correct: Any, scored: bool = True, reason: str = "") -> str:
    """The verdict as words, with the reason a row is not scored."""
    if not scored:
        return f"not scored ({reason})" if reason else "not scored"
    if correct is None or correct is pd.NA:
        return "no verdict"
    return "correct" if bool(correct) else "wrong"


_LETTERS = re.compile(r"^[A-D](?:[\s,;/]*[A-D])*$")


def parsed_spans(raw: str | None, parsed: str | None) -> list[tuple[int, int]]:
    """Character spans of ``raw`` where the parser's reading ``parsed`` was (most likely) found.

    The parsers do not return offsets, so this finds the reading in the answer: the first
    occurrence of the whole reading as a word (case-insensitive, except a single letter, which the
    MCQ rules read case-sensitively: "a" is an article), else each letter of a letter set
    (``"A, C"``). An empty list means the reading is not literally in the answer (a TSH order).
    """
    if not raw or not parsed or not parsed.strip():
        return []
    word = parsed.strip()
    found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", raw, 0 if len(word) == 1 else re.IGNORECASE)
    if found:
        return [found.span()]
    if _LETTERS.match(word):
        spans = [
            m.span()
            for letter in dict.fromkeys(re.findall("[A-D]", word))
            if (m := re.search(rf"\b{letter}\b", raw))
        ]
        return sorted(spans)
    return []


def split_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut into pieces, each marked True when inside one of ``spans``."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(spans):
        start = max(start, at)
        if start >= end:
            continue
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


@dataclass(frozen=True)
class MediaRef:
    """One media file to show for an item."""

    kind: str
    """``video``, ``audio`` or ``image``."""
    reference: str
    """The path as the benchmark file gives it."""
    role: str
    """What it is (``clip``, ``image``, ``audio track``...)."""
    side: str = ""
    """Pair side it belongs to, when the item is one side of a pair."""


@dataclass(frozen=True)
class OtherAnswer:
    """Another model's (or run's) answer to the same item."""

    row: int
    model: str
    raw_answer: str
    parsed: str
    verdict: str
    alt_verdict: str


@dataclass(frozen=True)
class ItemDetail:
    """Everything the inspector shows about one row."""

    row: int
    fields: dict[str, Any]
    """The row's item-table columns (nulls as None)."""
    options: list[str]
    extra: dict[str, Any]
    answer_pieces: list[tuple[str, bool]]
    """The raw answer cut into pieces, True where the parsed reading was found."""
    verdict: str
    alt_verdict: str
    media: list[MediaRef]
    others: list[OtherAnswer]
    pair: list[dict[str, Any]] = field(default_factory=list)
    """The other sides of the pair, same model: side, answer, parsed, gold, verdict."""


def item_detail(
    table: pd.DataFrame, row: int, same_item: npt.NDArray[np.intp], same_pair: npt.NDArray[np.intp]
) -> ItemDetail:
    """Assemble the inspector's view of ``row``.

    ``same_item`` are the rows of every model answering this item, ``same_pair`` the rows of its
    pair (both from the catalog's indexes, so nothing here scans the whole table).
    """
    fields = {str(k): _plain(v) for k, v in table.iloc[row].items() if not str(k).startswith("_")}
    pair_rows = [int(r) for r in same_pair if r != row and _same_run(table, int(r), fields)]
    media = _media(fields, str(fields.get("side") or ""))
    pair = []
    for r in pair_rows:
        other = {
            str(k): _plain(v)
            for k, v in table.iloc[r][
                ["side", "raw_answer", "parsed", "gold", "correct", "media", "scored", "skip_reason"]
            ].items()
        }
        verdict = verdict_word(other["correct"], bool(other["scored"]), other["skip_reason"] or "")
        pair.append({**other, "row": r, "verdict": verdict})
        media.extend(
            m for m in _media(other, str(other["side"])) if m.reference not in {x.reference for x in media}
        )
    return ItemDetail(
        row=row,
        fields=fields,
        options=_json_list(fields["options"]),
        extra=_json_dict(fields["extra"]),
        answer_pieces=split_spans(
            fields["raw_answer"] or "", parsed_spans(fields["raw_answer"], fields["parsed"])
        ),
        verdict=verdict_word(fields["correct"], bool(fields["scored"]), fields["skip_reason"] or ""),
        alt_verdict=verdict_word(fields["alt_correct"]),
        media=media,
        others=_others(table, same_item, row),
        pair=pair,
    )


def _same_run(table: pd.DataFrame, other: int, fields: dict[str, Any]) -> bool:
    """Same model, task and question: the other side of this question, not another question of the pair."""
    return all(_plain(table.at[other, c]) == fields[c] for c in ("model", "task", "question"))


def _others(table: pd.DataFrame, rows: npt.NDArray[np.intp], current: int) -> list[OtherAnswer]:
    sub = table.iloc[rows]
    readings = reading_labels(sub["benchmark"], sub["task"], [_plain(p) for p in sub["parsed"]])
    out = []
    # a row not scored says why (a record repeating an earlier one was once a bare "no verdict"
    # beside its scored twin, as if the two readings disagreed)
    scored, why = sub["scored"].fillna(False).astype(bool), sub["skip_reason"].fillna("").astype(str)
    for r, model, raw, reading, correct, alt, counts, reason in zip(
        rows,
        sub["model"],
        sub["raw_answer"],
        readings,
        sub["correct"],
        sub["alt_correct"],
        scored,
        why,
        strict=True,
    ):
        if int(r) == current:
            continue
        out.append(
            OtherAnswer(
                int(r),
                str(model),
                _plain(raw) or "",
                reading,
                verdict_word(_plain(correct), bool(counts), reason),
                verdict_word(_plain(alt), bool(counts)),
            )
        )
    return out


def _media(fields: dict[str, Any], side: str) -> list[MediaRef]:
    return [MediaRef(kind, path, role, side) for kind, path, role in media_refs(fields.get("media"))]


def _plain(value: Any) -> Any:
    """A cell as plain Python (pandas' NA becomes None)."""
    if value is pd.NA or value is None:
        return None
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and np.isnan(value):
        return None
    return value


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
