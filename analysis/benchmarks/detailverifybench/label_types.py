"""Label types of corrected tags: the ``hallucination_labels`` a corrected caption carries.

The official files give each tag its type apart from the caption: ``hallucination_labels`` lists
``{text, labels}`` entries, and the scorer gives a tag the first unused entry with the same text
(:func:`.spans.match_labels`). A tag a reviewer adds or merges has no entry, so it counts as
``Unknown``. A correction may name the type in the tag (``<HALLUCINATION type="...">``,
:mod:`.tags`); :func:`corrected_entries` is the one rule that turns a corrected caption into the
entries that the corrected view scores and the export writes (``docs/benchmarks/detailverifybench.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from analysis.benchmarks.detailverifybench.spans import label_key, match_labels
from analysis.benchmarks.detailverifybench.tags import split_types, tagged_to_spans, untag

LABEL_TYPES: tuple[str, ...] = (
    "Object Number Hallucination",
    "Object Color Hallucination",
    "Object Category Hallucination",
    "Object Shape Hallucination",
    "Object Material Hallucination",
    "Spatial Relation Hallucination",
    "Scene Hallucination",
    "Camera Hallucination",
    "OCR Hallucination",
    "Image Style Hallucination",
    "Character Identification Hallucination",
    "Counterfactual Hallucination",
    "Other Hallucination",
)
"""The thirteen types the benchmark's card names. Eleven are spelled as the released examples
spell them; "Image Style" and "Counterfactual" do not occur there and follow the same pattern.
The examples also use types outside the card (Attribute, Relationship, Object Hallucination): a
type in an item's own labels is offered after these (:func:`type_choices`)."""

_WORDS = re.compile(r"\W+")


def type_choices(seen: Iterable[str] = ()) -> list[str]:
    """The types a reviewer may pick: the benchmark's, then any other type ``seen`` in loaded labels."""
    extra = sorted({str(s) for s in seen if s and str(s) not in LABEL_TYPES and str(s) != "Unknown"})
    return [*LABEL_TYPES, *extra]


def corrected_entries(value: str, entries: Sequence[Any]) -> list[Any]:
    """``hallucination_labels`` for the corrected caption ``value`` (a label store's spelling).

    - No tag names a type: the entries whose text is still tagged, in their order (a dropped
      tag's entry goes; the others keep the type the official rule gives them).
    - A tag names one: one entry per tag, in the caption's order: ``{text, labels: [type]}`` for
      a named type, else the entry the official rule matches to that tag (none: no entry, the tag
      stays ``Unknown``). Matching these entries with the official rule gives each tag its type.
    """
    plain, kinds = split_types(value)
    spans = tagged_to_spans(plain)
    clean = untag(plain)
    if not any(kinds):
        tagged = {_WORDS.sub("", clean[s:e].lower()) for s, e in spans}
        return [
            entry
            for entry in entries
            if isinstance(entry, Mapping) and _WORDS.sub("", str(entry.get("text", "")).lower()) in tagged
        ]
    pool: dict[str, list[Any]] = {}
    for entry in entries:
        if isinstance(entry, Mapping):
            pool.setdefault(label_key(str(entry.get("text", ""))), []).append(entry)
    out: list[Any] = []
    for (start, end), kind in zip(spans, kinds, strict=True):
        text = clean[start:end]
        same = pool.get(label_key(text))
        matched = same.pop(0) if same else None
        if kind is not None:
            out.append({"text": text, "labels": [kind]})
        elif matched is not None:
            out.append(matched)
    return out


def tag_types(value: str, entries: Sequence[Any]) -> list[str]:
    """The type of each tag of a corrected caption, as the corrected view scores it."""
    plain, _ = split_types(value)
    clean = untag(plain)
    texts = [clean[s:e] for s, e in tagged_to_spans(plain)]
    return match_labels(texts, [e for e in corrected_entries(value, entries) if isinstance(e, Mapping)])
