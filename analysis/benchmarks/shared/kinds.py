"""Gold kinds several benchmarks share: yes/no, a set of option letters, one option letter, text.

A benchmark's ``gold_kind`` returns one of these or a kind of its own (:class:`GoldKind`).
"""

from __future__ import annotations

from analysis.benchmarks.base import GoldKind
from analysis.errors import InvalidLabel

YES_NO_SPELLINGS = {"yes": "yes", "y": "yes", "true": "yes", "no": "no", "n": "no", "false": "no"}
"""Spellings a reviewer may type for yes and no."""


def _yes_no(value: str, _original: str | None) -> str:
    text = value.strip()
    word = YES_NO_SPELLINGS.get(text.lower())
    if word is None:
        raise InvalidLabel(f"gold must be yes or no, got {text[:40]!r}")
    return word


def option_letters(value: str) -> list[str]:
    """The option letters of ``value`` (A-D, separators dropped, upper-cased); InvalidLabel otherwise."""
    text = value.strip()
    letters = [c for c in text.upper() if c not in " ,;/|"]
    if not letters or any(c not in "ABCD" for c in letters):
        raise InvalidLabel(f"gold must be option letters A-D, got {text[:40]!r}")
    return letters


def _letter_set(value: str, _original: str | None) -> str:
    return "".join(sorted(set(option_letters(value))))


def _one_letter(value: str, _original: str | None) -> str:
    letters = option_letters(value)
    if len(letters) != 1:
        raise InvalidLabel(f"gold must be one option letter, got {value.strip()[:40]!r}")
    return letters[0]


def _text(value: str, _original: str | None) -> str:
    text = value.strip()
    if not text:
        raise InvalidLabel("gold is empty")
    return text


YES_NO = GoldKind("yesno", _yes_no, "choice", choices=("yes", "no"))
"""``yes`` or ``no``."""
LETTERS = GoldKind("letters", _letter_set, "multi-options")
"""A set of option letters, spelled sorted without repeats (``AC``)."""
LETTER = GoldKind("letter", _one_letter, "options")
"""One option letter."""
TEXT = GoldKind("text", _text, "text")
"""Free text (not empty)."""
