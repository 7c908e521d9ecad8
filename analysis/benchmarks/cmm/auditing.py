"""Data checks on CMM question files, found from the data itself.

- ``conflicting-duplicate`` (error): one (video, audio, question) key with different answers.
- ``duplicate-key``: a key repeated with the same answer.
- ``gold-not-yes-no`` (error): an answer other than yes / no.
- ``probe-imbalance``: a clip (video, audio) whose questions are not one yes-probe and one
  no-probe, as the benchmark's design says they are. It assumes the paired layout of the
  question template (at least half the clips carry two or more questions) and stays silent on a
  file of another shape: the full release gives every row its own clip, where the rule would flag
  every row.
- ``video-path-none``: ``video_path`` is the string ``"None"`` on a row whose modality needs a video
  (``visual`` or ``visual+audio``, or none named). The release writes ``"None"`` for the audio-only
  rows (``modality: audio``, the audio-language questions) by design: a format quirk read as no
  video, not a finding (it flagged every such row, some 400 of the release).
- ``missing-media`` / ``unreadable-media`` (error, with a media root): no playable file under
  either folder spelling.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from analysis.benchmarks.base import Finding
from analysis.benchmarks.cmm.columns import item_id
from analysis.benchmarks.cmm.read import Rows
from analysis.benchmarks.shared.media_checks import file_problem

Key = tuple[str | None, str | None, str]


@dataclass(frozen=True)
class _Row:
    where: str
    video: str | None
    audio: str | None
    question: str
    answer: str
    modality: str | None = None

    @property
    def key(self) -> Key:
        return (self.video, self.audio, self.question)

    @property
    def norm(self) -> str:
        return self.answer.strip().lower()


Resolver = Callable[[str, Path], Sequence[Path]]
"""Where a media path as written may be found under a root (``cmm.candidate_paths``)."""


def audit_rows(files: Sequence[Rows], media_root: Path | None, resolve: Resolver) -> list[Finding]:
    """Every finding over the rows of all ``files`` taken together."""
    rows = [row for rows in files for row in _rows(rows)]
    findings = _key_findings(rows) + _gold_findings(rows) + _clip_findings(rows)
    if media_root is not None:
        findings += _media_findings(rows, media_root, resolve)
    return findings


def _rows(rows: Rows) -> list[_Row]:
    names = ("video_path", "audio_path", "question", "answer", "modality")
    c = {name: rows.columns[name].to_pylist() for name in names}
    labels = rows.label_list()
    return [
        _Row(
            f"{rows.path.name}:{labels[i]}",
            c["video_path"][i],
            c["audio_path"][i],
            c["question"][i],
            c["answer"][i],
            c["modality"][i],
        )
        for i in range(len(labels))
    ]


def _id(row: _Row) -> str:
    return item_id(row.video, row.audio, row.question)


def _clip_name(video: str | None, audio: str | None) -> str:
    return str(video if video not in (None, "None") else audio)


def _describe(key: Key) -> str:
    return f"{_clip_name(key[0], key[1])} {key[2]!r}"


def _key_findings(rows: list[_Row]) -> list[Finding]:
    by_key: dict[Key, list[_Row]] = defaultdict(list)
    for row in rows:
        by_key[row.key].append(row)
    out = []
    for key, group in by_key.items():
        if len(group) < 2:
            continue
        places = ", ".join(r.where for r in group)
        answers = sorted({r.answer for r in group})
        if len({r.norm for r in group}) > 1:
            out.append(
                Finding(
                    "conflicting-duplicate",
                    _describe(key),
                    f"asked {len(group)} times with answers {answers} ({places})",
                    "error",
                    (_id(group[0]),),
                )
            )
        else:
            out.append(
                Finding(
                    "duplicate-key",
                    _describe(key),
                    f"asked {len(group)} times, same answer ({places})",
                    "warning",
                    (_id(group[0]),),
                )
            )
    return out


def _gold_findings(rows: list[_Row]) -> list[Finding]:
    return [
        Finding("gold-not-yes-no", row.where, f"answer {row.answer!r} is not yes or no", "error", (_id(row),))
        for row in rows
        if row.norm not in ("yes", "no")
    ]


def _clip_findings(rows: list[_Row]) -> list[Finding]:
    probes: dict[tuple[str | None, str | None], dict[str, set[str]]] = defaultdict(
        lambda: {"yes": set(), "no": set()}
    )
    ids: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for row in rows:
        clip = (row.video, row.audio)
        if row.norm in ("yes", "no"):
            probes[clip][row.norm].add(row.question)
        ids[clip].append(_id(row))
    out = []
    asked = [len(sides["yes"] | sides["no"]) for sides in probes.values()]
    paired = sum(n >= 2 for n in asked) * 2 >= len(asked)  # the shape the rule is about
    for clip, sides in probes.items() if paired else ():
        yes, no = len(sides["yes"]), len(sides["no"])
        if (yes, no) != (1, 1):
            out.append(
                Finding(
                    "probe-imbalance",
                    _clip_name(*clip),
                    f"{yes} yes-probe(s) and {no} no-probe(s); the design has one of each",
                    "warning",
                    tuple(dict.fromkeys(ids[clip])),
                )
            )
    nones = {(row.video, row.audio) for row in rows if row.video == "None" and row.modality != "audio"}
    out += [
        Finding(
            "video-path-none",
            f"audio {clip[1]}",
            'video_path is the string "None" (no video)',
            "warning",
            tuple(dict.fromkeys(ids[clip])),
        )
        for clip in sorted(nones, key=str)
    ]
    return out


def _media_findings(rows: list[_Row], root: Path, resolve: Resolver) -> list[Finding]:
    users: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        for path in (row.video, row.audio):
            if path is not None and path != "None":
                users[path].append(_id(row))
    out = []
    for path, item_ids in users.items():
        problem = _first_playable(resolve(path, root), file_problem)
        if problem is not None:
            check, detail = problem
            out.append(Finding(check, path, detail, "error", tuple(dict.fromkeys(item_ids))))
    return out


def _first_playable(
    candidates: Sequence[Path], check: Callable[[Path], tuple[str, str] | None]
) -> tuple[str, str] | None:
    """None when some candidate is fine; else the problem of the first one that exists, if any."""
    if not candidates:
        return "missing-media", "the path cannot be resolved under the media root"
    problems = [check(p) for p in candidates]
    if any(p is None for p in problems):
        return None
    for problem in problems:
        if problem is not None and problem[0] != "missing-media":
            return problem
    tried = " or ".join(str(p) for p in candidates)
    return "missing-media", f"not found (tried {tried})"
