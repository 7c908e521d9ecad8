"""Data checks on AVHBench QA.json files, found from the data itself (no hard-coded lists).

- ``duplicate-record``: a record repeated exactly (video_id, task, text, label).
- ``conflicting-duplicate`` (error): one (video_id, text) key with different labels.
- ``repeated-key``: a key repeated with the same label but otherwise different (e.g. the task).
- ``gold-not-yes-no`` (error): a yes/no task whose label is not Yes or No.
- ``unknown-task``: a task string that is none of the four of the release.
- ``missing-media`` / ``unreadable-media`` (error, with a media root): ``{video_id}.mp4``
  missing, empty, or not starting like an MP4 file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from analysis.benchmarks.avhbench.read import Parsed
from analysis.benchmarks.avhbench.table import CAPTIONING
from analysis.benchmarks.base import Finding, Fix
from analysis.benchmarks.shared.media_checks import file_problem
from analysis.table.columns import item_key

KNOWN_TASKS = (
    "Audio-driven Video Hallucination",
    "Video-driven Audio Hallucination",
    "AV Matching",
    CAPTIONING,
)

Record = tuple[str, str, str, str]
"""(video_id, task, text, label) plus where it is, as one row of the audit."""


def audit_records(files: Sequence[Parsed], media_root: Path | None) -> list[Finding]:
    """Every finding over all ``files`` taken together."""
    rows = [
        (f"{p.path.name}:{w}", (v, task, text, label))
        for p in files
        for v, task, text, label, w in zip(p.video_id, p.task, p.text, p.label, p.where, strict=True)
    ]
    findings = _repeats(rows) + _labels(rows)
    if media_root is not None:
        findings += _media(rows, media_root)
    return findings


def _id(record: Record) -> str:
    return item_key(record[0], record[2].strip())


def _kept(record: Record) -> str:
    """What happens to the first of repeated records: scored, or only kept (captioning is never scored)."""
    return "kept (captioning is not scored)" if record[1] == CAPTIONING else "scored"


def _repeats(rows: list[tuple[str, Record]]) -> list[Finding]:
    by_key: dict[tuple[str, str], list[tuple[str, Record]]] = defaultdict(list)
    for where, record in rows:
        by_key[(record[0], record[2].strip())].append((where, record))
    out = []
    for (video_id, text), group in by_key.items():
        if len(group) < 2:
            continue
        name, places = f"{video_id} {text!r}", ", ".join(w for w, _ in group)
        ids = (_id(group[0][1]),)
        if len({r[3].strip().lower() for _, r in group}) > 1:
            # Each label beside the record that carries it, in file order, so the first one named
            # is the one scored (sorted labels beside file-ordered records read the wrong way).
            said = ", ".join(f"{r[3]} at {w}" for w, r in group)
            out.append(
                Finding(
                    "conflicting-duplicate",
                    name,
                    f"labelled {said}; the first ({group[0][1][3]}) is {_kept(group[0][1])}",
                    "error",
                    ids,
                    tuple(Fix(i, "flag", "ambiguous") for i in ids),  # which label is right: a reviewer says
                )
            )
            continue
        exact = len({r for _, r in group}) == 1
        check = "duplicate-record" if exact else "repeated-key"
        what = "identical records" if exact else "records with the same label"
        out.append(
            Finding(
                check,
                name,
                f"{len(group)} {what} ({places}); the first is {_kept(group[0][1])}",
                "warning",
                ids,
            )
        )
    return out


def _labels(rows: list[tuple[str, Record]]) -> list[Finding]:
    out = []
    for where, record in rows:
        task, label = record[1], record[3]
        if task not in KNOWN_TASKS:
            out.append(
                Finding(
                    "unknown-task",
                    where,
                    f"task {task!r} is not one of AVHBench's four",
                    "warning",
                    (_id(record),),
                )
            )
        if task != CAPTIONING and label.strip().lower() not in ("yes", "no"):
            out.append(
                Finding(
                    "gold-not-yes-no", where, f"label {label!r} on a yes/no task", "error", (_id(record),)
                )
            )
    return out


def _media(rows: list[tuple[str, Record]], root: Path) -> list[Finding]:
    users: dict[str, list[str]] = defaultdict(list)
    for _, record in rows:
        users[record[0]].append(_id(record))
    out = []
    for video_id, ids in users.items():
        # A video id is a bare stem in the release; anything with a separator is not a file here.
        if "/" in video_id or "\\" in video_id or video_id in ("", ".", ".."):
            problem: tuple[str, str] | None = ("missing-media", f"video id {video_id!r} is not a file name")
        else:
            problem = file_problem(root / f"{video_id}.mp4")
        if problem is not None:
            out.append(Finding(problem[0], f"{video_id}.mp4", problem[1], "error", tuple(dict.fromkeys(ids))))
    return out
