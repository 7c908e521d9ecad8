"""VidHalluc's own gold kinds: the TSH order of two actions, and the STH scene change with locations.

Each kind checks and spells a reviewer's value, says how the review panel edits it and what the
inspector shows beside the answer (both actions in the model's and the gold order; the scene
change with its locations).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from analysis.benchmarks.base import GoldKind
from analysis.benchmarks.shared.kinds import option_letters
from analysis.errors import InvalidLabel


def _order(value: str, _original: str | None) -> str:
    order = "".join(option_letters(value))
    if order not in ("AB", "BA"):
        raise InvalidLabel(f"gold must be the order AB or BA, got {value.strip()[:40]!r}")
    return order


_ACTION = re.compile(r"Action ([AB])\.\s*([^\n]*)")


def _order_facts(fields: Mapping[str, Any], _extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    actions = dict(_ACTION.findall(str(fields.get("question") or "")))

    def order(text: object) -> str:
        steps = [f"{c}: {actions[c]}" if c in actions else c for c in str(text or "")]
        return " → ".join(steps) or "(none)"

    return [("model order", order(fields.get("parsed"))), ("gold order", order(fields.get("gold")))]


ORDER = GoldKind("order", _order, "choice", choices=("AB", "BA"), facts=_order_facts)
"""TSH: the order of the two actions, ``AB`` or ``BA``."""

_SCENE = re.compile(r"^\s*(?:scene change\s*:\s*)?(yes|no)\s*(?:,\s*locations\s*:\s*(.*))?$", re.I | re.S)


def _scene(value: str, _original: str | None) -> str:
    text = value.strip()
    if text.startswith("{"):
        try:
            obj = json.loads(text)
            text = f"Scene change: {obj['Scene change']}, Locations: {obj.get('Locations', '')}"
        except (ValueError, KeyError, TypeError):
            raise InvalidLabel("STH gold must be {'Scene change': ..., 'Locations': ...}") from None
    match = _SCENE.match(text)
    if match is None:
        raise InvalidLabel(
            f"STH gold must read 'Scene change: Yes, Locations: from X to Y.', got {text[:40]!r}"
        )
    change = match.group(1).capitalize()
    locations = (match.group(2) or "").strip()
    if change == "Yes" and not re.match(r"from (.+?) to (.+?)\.", locations, re.I):
        raise InvalidLabel("a scene change needs its locations as 'from X to Y.'")
    return f"Scene change: {change}, Locations: {locations}" if change == "Yes" else "Scene change: No"


def _scene_compose(change: str, locations: str) -> str:
    where = locations.strip()
    return f"Scene change: Yes, Locations: {where}" if change == "Yes" else "Scene change: No"


def _scene_split(value: str | None, extra: Mapping[str, Any]) -> tuple[str | None, str]:
    """The form's parts; the official gold (``Yes``) keeps its locations apart, in ``extra``."""
    match = _SCENE.match(value) if value else None
    if match is None:
        return None, ""
    change, where = match.group(1).capitalize(), (match.group(2) or "").strip()
    if change == "Yes" and not where:
        where = str(extra.get("gold_locations") or "")
    return change, where


def _scene_facts(fields: Mapping[str, Any], extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    parsed = fields.get("parsed")
    model = (
        f"scene change {parsed if parsed not in (None, '') else '(unparsed)'} · "
        f"{extra.get('locations') or '(no locations)'}"
    )
    gold = f"scene change {fields.get('gold') or ''} · {extra.get('gold_locations') or '-'}"
    return [("model", model), ("gold", gold)]


def _scene_native(gold: str, extra: Mapping[str, Any]) -> str:
    """The table keeps the locations of a scene change apart (``extra.gold_locations``): joined back."""
    where = extra.get("gold_locations")
    if gold.lower() == "yes" and where:
        return f"Scene change: {gold}, Locations: {where}"
    return f"Scene change: {gold.capitalize()}"


SCENE = GoldKind(
    "scene",
    _scene,
    "choice-and-text",
    choices=("Yes", "No"),
    text_label="Locations (l): from X to Y.",
    compose=_scene_compose,
    split=_scene_split,
    facts=_scene_facts,
    native=_scene_native,
)
"""STH: ``Scene change: Yes, Locations: from X to Y.`` or ``Scene change: No``."""
