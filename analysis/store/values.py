"""What a label may say: the fields, and each benchmark's gold values in one canonical spelling.

Fields: ``gold`` (the corrected answer), ``flag`` (a set of problem flags), ``note`` (free text).
Gold values depend on the benchmark and task: each benchmark says which kind of gold an item takes
(:class:`analysis.benchmarks.base.GoldKind`: yes/no, a set of option letters, one letter, text, or
a kind of its own), and the kind checks and spells the value.

``None`` clears a label (the item goes back to its official value).

Choice fields (:data:`CHOICE_FIELDS`) hold one word out of a short fixed list; they carry
checks that are not gold answers, such as the pair validation
(:mod:`analysis.review.pairs.validation`): ``pair_check:clear_action`` yes/no, ..., ``pair_check:decision``
keep/drop; ``suspect:gold`` right/wrong, a reviewer's verdict on a suspect item's gold
(``docs/suspects.md``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from analysis import benchmarks
from analysis.benchmarks.base import GoldKind
from analysis.benchmarks.official import official_value as official_value
from analysis.benchmarks.shared.corrected import table_spelling
from analysis.benchmarks.shared.kinds import YES_NO_SPELLINGS
from analysis.errors import InvalidLabel as InvalidLabel

FIELDS: tuple[str, ...] = ("gold", "flag", "note")

NEEDS_REASON: tuple[str, ...] = ("gold",)
"""Fields whose correction is refused without a reason (in the app and in ``halluscope import``)."""
FLAGS: tuple[str, ...] = ("ambiguous", "broken-media", "invalid-question", "wrong-options")
CHOICE_FIELDS: dict[str, tuple[str, ...]] = {
    "pair_check:clear_action": ("yes", "no"),
    "pair_check:single_action": ("yes", "no"),
    "pair_check:actions_differ": ("yes", "no"),
    "pair_check:decision": ("keep", "drop"),
    "suspect:gold": ("right", "wrong"),
}
"""Fields whose value is one word of a fixed list (yes/no accept the same spellings as gold)."""
SUSPECT_FIELD = "suspect:gold"
"""The verdict on a suspect's gold: ``right`` (confirmed) or ``wrong`` (it was corrected)."""
ALL_FIELDS: tuple[str, ...] = FIELDS + tuple(CHOICE_FIELDS)
"""Every field a label may have: :data:`FIELDS` and the choice fields."""
MAX_VALUE = 1_000_000
MAX_NOTE = 20_000
MAX_REASON = 4_000


def gold_kind(benchmark: str, task: str = "", original: str | None = None) -> GoldKind:
    """Which kind of gold value an item of ``benchmark`` / ``task`` takes (the benchmark says)."""
    try:
        bench = benchmarks.get(benchmark)
    except benchmarks.UnknownBenchmark as exc:
        raise InvalidLabel(str(exc)) from None
    return bench.gold_kind(task, original)


def as_shown(field: str, value: str | None, official: str | None) -> str | None:
    """A label value as the app and its exports show it: one spelling beside the item's own files.

    The store keeps a gold in its canonical spelling (``no``); wherever a value is shown (messages,
    the history, the adjudication view, the final labels) a yes/no gold is spelled like the item's
    official gold (``No`` beside ``Yes``), as the table, the inspector and the corrected files spell
    it. Other values, and the raw event log, stay as stored.
    """
    if field != "gold" or value is None:
        return value
    return table_spelling(str(value), official)


def option_count(options: Any) -> int:
    """How many answer options an item has (``options`` is a JSON list as text, or a list); 0: none."""
    if isinstance(options, str) and options.strip().startswith("["):
        try:
            options = json.loads(options)
        except ValueError:
            return 0
    return len(options) if isinstance(options, (list, tuple)) else 0


def no_nul(what: str, text: str) -> str:
    """``text``, refused when it holds a NUL character.

    PostgreSQL cannot store one in text, and SQLite would keep what the other store refuses: a label
    must read the same on both.
    """
    if "\x00" in text:
        raise InvalidLabel(f"{what} holds a NUL character (\\x00), which a label cannot hold")
    return text


def check_reason(reason: Any) -> str:
    """A reason as stored: text of at most :data:`MAX_REASON` characters, without NUL."""
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise InvalidLabel(f"reason must be text of at most {MAX_REASON:,} characters")
    return no_nul("reason", reason)


def normalize(
    field: str, value: Any, *, benchmark: str = "", task: str = "", original: str | None = None
) -> str | None:
    """The canonical spelling of ``value`` for ``field``; :class:`InvalidLabel` when it does not fit."""
    if field not in ALL_FIELDS:
        raise InvalidLabel(f"unknown field {field!r} (known: {', '.join(ALL_FIELDS)})")
    if value is None:
        return None
    if field in CHOICE_FIELDS:
        return normalize_choice(field, value)
    if field == "flag":
        return normalize_flags(value)
    if not isinstance(value, str):
        raise InvalidLabel(f"{field} must be text, got {type(value).__name__}")
    no_nul(field, value)
    if field == "note":
        note = value.strip()
        if len(note) > MAX_NOTE:
            raise InvalidLabel(f"note is {len(note):,} characters, over {MAX_NOTE:,}")
        return note or None
    if len(value) > MAX_VALUE:
        raise InvalidLabel(f"gold is {len(value):,} characters, over {MAX_VALUE:,}")
    return normalize_gold(value, gold_kind(benchmark, task, original), original)


def normalize_choice(field: str, value: Any) -> str:
    """One word of the field's list; a bool or a yes/no spelling for yes/no fields."""
    allowed = CHOICE_FIELDS[field]
    if isinstance(value, bool) and allowed == ("yes", "no"):
        return "yes" if value else "no"
    if not isinstance(value, str):
        raise InvalidLabel(f"{field} must be one of {', '.join(allowed)}, got {type(value).__name__}")
    word = value.strip().lower()
    word = YES_NO_SPELLINGS.get(word, word) if allowed == ("yes", "no") else word
    if word not in allowed:
        raise InvalidLabel(f"{field} must be one of {', '.join(allowed)}, got {value[:40]!r}")
    return word


def normalize_flags(value: Any) -> str | None:
    """Flags as a sorted, comma-joined set of known names; None for no flag."""
    items: Iterable[Any] = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)) and not isinstance(value, str):
        raise InvalidLabel(f"flag must be a list of names, got {type(value).__name__}")
    names = {str(v).strip().lower().replace(" ", "-").replace("_", "-") for v in items} - {""}
    unknown = names - set(FLAGS)
    if unknown:
        raise InvalidLabel(f"unknown flag {sorted(unknown)[0]!r} (known: {', '.join(FLAGS)})")
    return ",".join(sorted(names)) or None


def normalize_gold(value: str, kind: GoldKind, original: str | None = None) -> str:
    """Canonical gold of one kind (:class:`InvalidLabel` when it does not fit)."""
    return kind.normalize(value, original)
