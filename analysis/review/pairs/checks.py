"""The checks of one pair as a typed record, the decision they give, keys and store items.

Private to :mod:`.validation`, which documents the criteria and re-exports these names. Whose
pairs they are is the one registered benchmark that declares ``PAIRS`` (:func:`pair_owner`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from analysis import benchmarks
from analysis.benchmarks.base import PairSpec
from analysis.store import InvalidLabel, ItemRef

Criterion = Literal["clear_action", "single_action", "actions_differ"]
Decision = Literal["keep", "drop"]
CRITERIA: tuple[Criterion, ...] = ("clear_action", "single_action", "actions_differ")
CLIP_CRITERIA: tuple[Criterion, ...] = ("clear_action", "single_action")
FIELDS: dict[str, str] = {c: f"pair_check:{c}" for c in CRITERIA} | {"decision": "pair_check:decision"}
"""Store field of each criterion, and of the decision."""
NOTE_FIELD = "note"
SAVE_KEY = "Enter"
"""The save-and-next key the UI binds (the check keys come from :func:`check_keys`)."""

Check = bool | None
"""A check's answer: True passes, False fails, None not answered yet."""


@dataclass(frozen=True)
class PairChecks:
    """One reviewer's checks of one pair; per-clip tuples follow the order of ``clips``."""

    pair_id: str
    clips: tuple[str, ...]
    clear_action: tuple[Check, ...]
    """Per clip: the clip shows a clear action."""
    single_action: tuple[Check, ...]
    """Per clip: the clip shows a single action (not several)."""
    actions_differ: Check = None
    """The clips show different actions."""

    def __post_init__(self) -> None:
        if not self.pair_id or not self.clips or len(set(self.clips)) != len(self.clips):
            raise InvalidLabel("a pair needs an id and distinct clip ids")
        if any("|" in c for c in self.clips):
            raise InvalidLabel("clip ids may not contain '|'")
        if not len(self.clear_action) == len(self.single_action) == len(self.clips):
            raise InvalidLabel(f"pair {self.pair_id}: one clear_action and one single_action check per clip")

    @classmethod
    def blank(cls, pair_id: str, clips: Sequence[str]) -> PairChecks:
        """No check answered yet."""
        none: tuple[Check, ...] = (None,) * len(clips)
        return cls(pair_id, tuple(clips), none, none, None)

    @property
    def decision(self) -> Decision | None:
        """Keep / drop from the checks (:func:`decide`)."""
        return decide(self)

    def values(self) -> tuple[Check, ...]:
        """Every check: clear per clip, single per clip, then differ."""
        return (*self.clear_action, *self.single_action, self.actions_differ)

    def set(self, criterion: Criterion, value: Check, clip: int | None = None) -> PairChecks:
        """A copy with one check set (``clip`` = the clip's position for per-clip criteria)."""
        if criterion == "actions_differ":
            return replace(self, actions_differ=value)
        if criterion not in CLIP_CRITERIA or clip is None or not 0 <= clip < len(self.clips):
            raise InvalidLabel(f"{criterion} needs a clip position below {len(self.clips)}")
        checks = list(getattr(self, criterion))
        checks[clip] = value
        if criterion == "clear_action":
            return replace(self, clear_action=tuple(checks))
        return replace(self, single_action=tuple(checks))

    def failures(self) -> list[str]:
        """Why the pair is dropped, one phrase per failed check (empty when none failed)."""
        out = [
            f"{clip}: no clear action"
            for clip, ok in zip(self.clips, self.clear_action, strict=True)
            if ok is False
        ]
        out += [
            f"{clip}: several actions"
            for clip, ok in zip(self.clips, self.single_action, strict=True)
            if ok is False
        ]
        return out + (["the clips show the same action"] if self.actions_differ is False else [])

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"clear_action": {clip: bool}, "single_action": {...}, "actions_differ": bool}``."""
        return {
            "clear_action": dict(zip(self.clips, self.clear_action, strict=True)),
            "single_action": dict(zip(self.clips, self.single_action, strict=True)),
            "actions_differ": self.actions_differ,
        }


def decide(checks: PairChecks) -> Decision | None:
    """Drop as soon as one check fails; keep when all pass; None while some are open."""
    values = checks.values()
    if any(v is False for v in values):
        return "drop"
    return "keep" if all(v is True for v in values) else None


def check_keys(n_clips: int = 2) -> list[tuple[str, Criterion, int | None]]:
    """Keyboard keys of the checks: ``(key, criterion, clip position)``.

    For a pair: 1 / 2 clear action in A / B, 3 / 4 single action in A / B, 5 actions differ; a
    group of three clips takes 1-3, 4-6 and 7.
    """
    slots: list[tuple[Criterion, int | None]] = [(c, i) for c in CLIP_CRITERIA for i in range(n_clips)]
    slots.append(("actions_differ", None))
    return [(str(n), criterion, clip) for n, (criterion, clip) in enumerate(slots, start=1)]


def press(checks: PairChecks, key: str) -> PairChecks:
    """The checks after a key press: unanswered -> yes, then yes <-> no. Other keys change nothing."""
    for name, criterion, clip in check_keys(len(checks.clips)):
        if name == key:
            current = checks.actions_differ if clip is None else getattr(checks, criterion)[clip]
            return checks.set(criterion, current is not True, clip)
    return checks


def pair_owner() -> str:
    """The benchmark whose pairs are validated: the first registered one that declares ``PAIRS``.

    LookupError when none does (the app then shows no Pairs tab).
    """
    for name, bench in benchmarks.REGISTRY.items():
        if bench.PAIRS is not None:
            return name
    raise LookupError("no registered benchmark declares pairs to validate")


def pair_spec() -> PairSpec:
    """The pairs :func:`pair_owner` declares."""
    spec = benchmarks.get(pair_owner()).PAIRS
    assert spec is not None
    return spec


def _keys() -> tuple[str, str, str]:
    prefix = pair_spec().key_prefix
    return f"{prefix}-pair:", f"{prefix}-clip:", f"{prefix}-pair"


def pair_item(pair_id: str) -> ItemRef:
    """The store item of the pair-level labels (actions_differ, decision, note)."""
    pair, _, task = _keys()
    return ItemRef(pair_owner(), pair + pair_id, task)


def clip_item(pair_id: str, clip: str) -> ItemRef:
    """The store item of one clip's checks within a pair."""
    _, prefix, task = _keys()
    return ItemRef(pair_owner(), f"{prefix}{pair_id}|{clip}", task)


def split_key(item_key: str) -> tuple[str, str] | None:
    """``(pair_id, clip)`` of a validation item key (clip "" for the pair item); None for others."""
    pair_prefix, clip_prefix, _ = _keys()
    if item_key.startswith(pair_prefix):
        return item_key[len(pair_prefix) :], ""
    if item_key.startswith(clip_prefix) and "|" in item_key:
        pair, _, clip = item_key[len(clip_prefix) :].rpartition("|")
        return pair, clip
    return None
