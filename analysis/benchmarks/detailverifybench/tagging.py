"""DetailVerifyBench's ``<HALLUCINATION>`` tags as a gold kind.

The review panel and the inspector use these rules through :class:`analysis.benchmarks.base.Tagging`,
never naming the tags themselves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from analysis.benchmarks.base import GoldKind, SpanView
from analysis.benchmarks.detailverifybench.label_types import tag_types, type_choices
from analysis.benchmarks.detailverifybench.span_edit import selected_tokens, tag_tokens
from analysis.benchmarks.detailverifybench.span_view import span_view
from analysis.benchmarks.detailverifybench.spans import NO_HALLUCINATION, strip_tags, tokenize
from analysis.benchmarks.detailverifybench.tags import spans_to_tagged, split_types, typed_spans, untag
from analysis.errors import InvalidLabel


class HallucinationTags:
    """The official tag rules (:mod:`.spans`) and the editor's (:mod:`.tags`, :mod:`.span_edit`)."""

    def strip(self, tagged: str) -> str:
        """The caption without its tags, as the official scorer strips them (named types set aside)."""
        return strip_tags(split_types(tagged)[0])

    def tokens(self, clean: str) -> list[tuple[int, int]]:
        """Token spans by the official token rule."""
        return tokenize(clean)

    def selected_tokens(self, tagged: str) -> set[int]:
        """Tokens overlapping a tag pair (partly counts), as the official scorer reads them."""
        return selected_tokens(tagged)

    def tag_tokens(self, clean: str, selected: Iterable[int], types: Mapping[int, str] | None = None) -> str:
        """One tag pair around each run of consecutive selected tokens, naming the types given."""
        return tag_tokens(clean, selected, types)

    def split(self, value: str) -> tuple[str, list[str | None]]:
        """Official tags, and the label type each tag names (:func:`.tags.split_types`)."""
        return split_types(value)

    def type_choices(self, extra: Mapping[str, Any]) -> list[str]:
        """The benchmark's thirteen types, then any other the item's own labels use."""
        return type_choices(kind for entry in _entries(extra) for kind in entry.get("labels") or [])

    def tag_types(self, value: str, extra: Mapping[str, Any]) -> list[str]:
        """Each tag's type as the corrected view scores it (:func:`.label_types.tag_types`)."""
        return tag_types(value, _entries(extra))

    def view(self, gold: str, answer: str | None, extra: Mapping[str, Any]) -> SpanView:
        """Gold tags against the model's; a gold-only row is read as "nothing hallucinated"."""
        predicted = NO_HALLUCINATION if answer is None else answer
        return span_view(gold, predicted, _entries(extra))


def _entries(extra: Mapping[str, Any]) -> list[Any]:
    """The item's ``hallucination_labels`` entries (a list of objects), else none."""
    labels = extra.get("hallucination_labels") or []
    return [e for e in labels if isinstance(e, Mapping)] if isinstance(labels, list) else []


TAGGING = HallucinationTags()
"""The tag rules of this benchmark's gold."""


def _tagged(value: str, original: str | None) -> str:
    """A tagged caption whose text is the original's (only the tags may change), or character spans.

    A tag may name its label type (``<HALLUCINATION type="OCR Hallucination">``, a span
    ``[start, end, type]``); the official tags are written, the type kept in the attribute.
    """
    clean = untag(original) if original is not None else None
    if value.lstrip().startswith("{"):
        try:
            spans = json.loads(value)["spans"]
        except (ValueError, KeyError, TypeError):
            raise InvalidLabel(
                'spans must be given as {"spans": [[start, end], ...]} (a label type third, if any)'
            ) from None
        if clean is None:
            raise InvalidLabel("spans need the item's caption to apply to")
        return spans_to_tagged(clean, spans)
    spans = typed_spans(value)
    text = untag(value)
    if clean is not None and text != clean:
        raise InvalidLabel("the caption text differs from the original; only the tags may change")
    return spans_to_tagged(text, spans)


def _flags_read(parsed: str) -> str:
    """The official reading is a flag per compared token: shown as how many are flagged."""
    if parsed and set(parsed) <= {"0", "1"}:
        return f"{parsed.count('1')} of {len(parsed)} tokens flagged"
    return parsed


TAGGED = GoldKind("tagged", _tagged, "tagged", tagging=TAGGING, reading=_flags_read)
"""The caption with ``<HALLUCINATION>`` tags; only the tags may differ from the original text."""
