"""What the team's labels say of each audit finding: fixed, corrected otherwise, confirmed, or open.

An audit reads the files, which a correction never changes, so the same findings come back on every
run. With a label store (``halluscope audit --db``) each finding says where the team stands on it
(``docs/audit.md``):

- ``fixed``: it suggests a correction and every row of it is in force (the item's current gold
  is the suggested one, spelled in any case; a suggested flag is among the item's current flags;
  a suggested note is the current note);
- ``corrected``: else, an item it names has a corrected gold (another one than suggested, or a
  finding that suggests none);
- ``confirmed``: else, a reviewer judged the gold of an item it names right;
- None: no label touches it yet.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.benchmarks.base import Finding, Fix
from analysis.review.suspects import CONFIRMED, CORRECTED, verdicts
from analysis.store import Store, current_labels

FIXED = "fixed"
"""Every correction the finding suggests is in force."""
STATES = (FIXED, CORRECTED, CONFIRMED)
"""The states, in the order they are decided."""


def finding_states(store: Store, benchmark: str, findings: Sequence[Finding]) -> list[str | None]:
    """The state of each finding, in order, from the store's current labels of ``benchmark``."""
    labels = current_labels(store, benchmark)
    current = _current(labels)
    judged = verdicts(store, benchmark)
    return [_state(f, current, judged) for f in findings]


def seen_states(
    store: Store | None, benchmark: str, findings: Sequence[Finding], *, sees_team: bool
) -> list[str | None]:
    """:func:`finding_states` as a viewer may see them, or blanks (None).

    Blank for one who does not see the team's work (``Access.sees_team``: a visitor), since a state
    tells of reviewers' flags and suspect verdicts; blank too without a store.
    """
    if store is None or not sees_team:
        return [None] * len(findings)
    return finding_states(store, benchmark, findings)


def _current(labels: pd.DataFrame) -> dict[tuple[str, str], str]:
    rows = labels[labels["value"].notna()]
    return {
        (str(i), str(f)): str(v)
        for i, f, v in zip(rows["item_id"], rows["field"], rows["value"], strict=True)
    }


def _in_force(fix: Fix, current: dict[tuple[str, str], str]) -> bool:
    value = current.get((fix.item_id, fix.field))
    if value is None:
        return False
    if fix.field == "flag":
        return fix.value in value.split(",")
    if fix.field == "gold":
        return value.strip().casefold() == fix.value.strip().casefold()
    return value == fix.value.strip()


def _state(finding: Finding, current: dict[tuple[str, str], str], judged: dict[str, str]) -> str | None:
    if finding.fix and all(_in_force(fix, current) for fix in finding.fix):
        return FIXED
    seen = {judged.get(i) for i in finding.item_ids}
    if CORRECTED in seen:
        return CORRECTED
    if CONFIRMED in seen:
        return CONFIRMED
    return None


_RANK = {None: 0, CONFIRMED: 1, CORRECTED: 2, FIXED: 3}
"""An item's place in the queue of flagged items: still open first, fixed last."""


def flagged_queue(findings: Sequence[Finding], states: Sequence[str | None]) -> list[tuple[str, str]]:
    """(item id, detail) of every item a finding names, those still open first.

    An item is as open as the most open finding naming it; the detail names its checks and, once
    the labels touch them, that state ("named by an audit finding: inverted-polarity · fixed").
    Within a state, the order of the findings.
    """
    checks: dict[str, list[str]] = {}
    rank: dict[str, int] = {}
    for finding, state in zip(findings, states, strict=True):
        for item in finding.item_ids:
            named = checks.setdefault(item, [])
            if finding.check not in named:
                named.append(finding.check)
            rank[item] = min(rank.get(item, _RANK[FIXED]), _RANK[state])
    names = {v: k for k, v in _RANK.items()}
    ordered = sorted(checks, key=lambda item: rank[item])  # stable: finding order within a state
    return [
        (
            item,
            f"named by an audit finding: {', '.join(checks[item])}"
            + (f" · {names[rank[item]]}" if names[rank[item]] else ""),
        )
        for item in ordered
    ]
