"""Pair validation: the per-clip checks, the keep / drop decision, and storing them.

A benchmark that asks the same questions of pairs of clips (one that declares ``PAIRS``) may have
them validated by hand, as its authors did: a pair is dropped when either clip lacks a clear
action, either clip shows several actions, or both clips show the same action. Those criteria
are explicit checks here (:class:`PairChecks`): for a pair of clips A and B, five of them

==================  =====================================  ======================
criterion           question                               checked
==================  =====================================  ======================
``clear_action``    does the clip show a clear action?     per clip (A, B)
``single_action``   does it show one action only?          per clip (A, B)
``actions_differ``  do the clips show different actions?   once for the pair
==================  =====================================  ======================

and the decision follows from them (:func:`decide`): keep when every check passes, drop as soon
as one fails, undecided while a check is open. A group of three clips gets three of each
per-clip check.

Storage (:mod:`analysis.store`, under the benchmark that owns the pairs, :func:`pair_owner`): one
label per check, so every check has its own history, agreement figures and adjudication. Per-clip
checks live on the item ``<prefix>-clip:<pair>|<clip>``, the pair-level ones on
``<prefix>-pair:<pair>`` (the prefix is the benchmark's, :attr:`PairSpec.key_prefix`); fields are the store's
choice fields ``pair_check:clear_action`` / ``single_action`` / ``actions_differ`` (yes/no) and
``pair_check:decision`` (keep/drop), plus the store's ``note`` on the pair. A reviewer's
validation is a set of ``vote`` events written in one transaction (all or nothing); an
adjudication is the same set as ``final`` events. Everything is read back from the store's
current labels, so validations survive restarts and every reviewer sees the others' progress.

The app calls, for one reviewer: :func:`my_queue` (what to do next), :func:`my_validation` (load
the form), :func:`press` / :func:`check_keys` (keyboard), :func:`save_validation`; for the team:
:func:`assign_pairs`, :func:`progress`, :func:`agreement_summary` / :func:`agreement`,
:func:`disagreement_queue`, :func:`validations` (everyone's checks), :func:`adjudicate_pair`,
:func:`decisions` (final keep / drop per pair). The modules behind this surface are private:
``_pair_checks`` (the record), ``_validation_store`` (reading and writing), ``_validation_team``.
"""

from __future__ import annotations

from analysis.review.pairs.checks import (
    CLIP_CRITERIA,
    CRITERIA,
    FIELDS,
    NOTE_FIELD,
    SAVE_KEY,
    Check,
    Criterion,
    Decision,
    PairChecks,
    check_keys,
    clip_item,
    decide,
    pair_item,
    pair_owner,
    pair_spec,
    press,
    split_key,
)
from analysis.review.pairs.labels import (
    VALIDATION_COLUMNS,
    adjudicate_pair,
    check_labels,
    checks_from_labels,
    my_validation,
    save_validation,
    validated,
    validations,
)
from analysis.review.pairs.team import (
    DECISION_COLUMNS,
    QUEUE_COLUMNS,
    RESOLUTIONS,
    agreement,
    agreement_summary,
    assign_pairs,
    decisions,
    disagreement_queue,
    my_queue,
    progress,
)

__all__ = [
    "CLIP_CRITERIA",
    "CRITERIA",
    "DECISION_COLUMNS",
    "FIELDS",
    "NOTE_FIELD",
    "QUEUE_COLUMNS",
    "RESOLUTIONS",
    "SAVE_KEY",
    "VALIDATION_COLUMNS",
    "Check",
    "Criterion",
    "Decision",
    "PairChecks",
    "adjudicate_pair",
    "agreement",
    "agreement_summary",
    "assign_pairs",
    "check_keys",
    "check_labels",
    "checks_from_labels",
    "clip_item",
    "decide",
    "decisions",
    "disagreement_queue",
    "my_queue",
    "my_validation",
    "pair_item",
    "pair_owner",
    "pair_spec",
    "press",
    "progress",
    "save_validation",
    "split_key",
    "validated",
    "validations",
]
