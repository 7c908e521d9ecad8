"""Telling the four VidHalluc files apart, and finding problems in them and in their videos."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis.benchmarks.base import Finding
from analysis.benchmarks.vidhalluc import bqa, mcq, sth, tsh
from analysis.benchmarks.vidhalluc.common import expect, field
from analysis.errors import InputError
from analysis.files.readers import read_object

_NAMES = (("binaryqa", "bqa"), ("bqa", "bqa"), ("mcq", "mcq"), ("tsh", "tsh"), ("sth", "sth"))
MediaIndex = dict[str, list[str]]
"""Clip id -> item ids of the rows that show it."""


def detect(path: Path, data: dict[str, Any]) -> str:
    """Which task a gold file belongs to: by the shape of its first entry, else by its name."""
    first = next(iter(data.values()), None)
    if isinstance(first, list):
        return "bqa"
    if isinstance(first, dict):
        if "Scene change" in first:
            return "sth"
        if "video" in first or ("Correct Answer" in first and "Choices" not in first):
            return "tsh"
        inner = next(iter(first.values()), None)
        if isinstance(inner, dict) and ("Choices" in inner or "Correct Answer" in inner):
            return "mcq"
    name = path.name.lower()
    for part, task in _NAMES:
        if part in name:
            return task
    raise InputError(path, "cannot tell which VidHalluc file this is (ach_binaryqa, ach_mcq, tsh or sth)")


def audit_file(path: Path, data: dict[str, Any], task: str, media: MediaIndex) -> list[Finding]:
    """Findings of one gold file; fills ``media`` with the clips it refers to."""
    check = {"bqa": _bqa, "mcq": _mcq, "tsh": _tsh, "sth": _sth}[task]
    return check(path, data, media)


def _bqa(path: Path, data: dict[str, Any], media: MediaIndex) -> list[Finding]:
    bqa.check_gold(path, data)
    out: list[Finding] = []
    for group, questions in data.items():
        if not questions:
            out.append(Finding("empty-group", f"bqa group {group!r}", "the group has no questions"))
        for index, question in enumerate(questions):
            answers: dict[str, str] = question["a"]
            ids = tuple(bqa.item_id(group, index, clip) for clip in answers or [""])
            where = f"bqa group {group!r} question {index}"
            for clip, item in zip(answers, ids, strict=True):
                media.setdefault(clip, []).append(item)
            out.extend(_bqa_question(where, answers, ids))
    return out


def _bqa_question(where: str, answers: dict[str, str], ids: tuple[str, ...]) -> list[Finding]:
    if not answers:
        return [
            Finding(
                "empty-question",
                where,
                "no clips: the official scorer counts this question as answered correctly (all of nothing)",
                item_ids=ids,
            )
        ]
    out: list[Finding] = []
    labels = {clip: a.strip().upper() for clip, a in answers.items()}
    for (clip, label), item in zip(labels.items(), ids, strict=True):
        if label not in {"YES", "NO"}:
            detail = f"gold {answers[clip]!r} is not Yes or No"
            out.append(Finding("bad-gold", f"{where} clip {clip!r}", detail, "error", (item,)))
    if len(answers) == 1:
        out.append(
            Finding("single-clip", where, "asked of one clip only; ACH questions go to a pair", item_ids=ids)
        )
    elif len(set(labels.values())) == 1 and next(iter(labels.values())) in {"YES", "NO"}:
        same = next(iter(labels.values())).capitalize()
        why = (
            "every clip shows the action, yet a pair's clips must show different actions"
            if same == "Yes"
            else "no clip shows the action asked about"
        )
        out.append(Finding("same-gold-all-clips", where, f"every clip's gold is {same}: {why}", item_ids=ids))
    return out


def _mcq(path: Path, data: dict[str, Any], media: MediaIndex) -> list[Finding]:
    out: list[Finding] = []
    for group, clips in data.items():
        expect(path, clips, (dict,), record=f"group {group!r}")
        for clip, record in clips.items():
            where = f"group {group!r}, clip {clip!r}"
            expect(path, record, (dict,), record=where)
            item = mcq.item_id(group, clip)
            media.setdefault(clip, []).append(item)
            gold = field(path, record, "Correct Answer", record=where)
            choices = mcq.check_choices(path, record, where) or {}
            out.extend(_mcq_record(f"mcq {where}", gold, choices, item))
    return out


def _mcq_record(where: str, gold: str, choices: dict[str, str], item: str) -> list[Finding]:
    out: list[Finding] = []
    if list(choices) != ["A", "B", "C", "D"]:
        out.append(
            Finding(
                "malformed-options",
                where,
                f"choices are {list(choices)}, not exactly A, B, C, D",
                "error",
                (item,),
            )
        )
    texts = [v.strip().lower() for v in choices.values()]
    repeated = sorted({t for t in texts if texts.count(t) > 1})
    if repeated:
        out.append(Finding("duplicate-options", where, f"repeated choice text {repeated}", item_ids=(item,)))
    letters = mcq.gold_letters(gold)
    if not letters:
        detail = f"Correct Answer {gold!r} holds no letter A-D"
        out.append(Finding("bad-gold", where, detail, "error", (item,)))
    elif not letters <= set(choices):
        out.append(
            Finding(
                "bad-gold",
                where,
                f"Correct Answer {gold!r} names {sorted(letters - set(choices))}, not among the choices",
                "error",
                (item,),
            )
        )
    return out


def _tsh(path: Path, data: dict[str, Any], media: MediaIndex) -> list[Finding]:
    out: list[Finding] = []
    for key, record in data.items():
        where = f"key {key!r}"
        expect(path, record, (dict,), record=where)
        clip = field(path, record, "video", record=where)
        gold = field(path, record, "Correct Answer", record=where)
        item = tsh.item_id(key, clip)
        media.setdefault(clip, []).append(item)
        if gold not in {"AB", "BA"}:
            single = gold in {"A", "B"}
            detail = (
                f"Correct Answer {gold!r} names one action; TSH items order two"
                if single
                else f"Correct Answer {gold!r} is not AB or BA: no answer can match it"
            )
            out.append(Finding("bad-gold", f"tsh {where}", detail, "warning" if single else "error", (item,)))
    return out


def _sth(path: Path, data: dict[str, Any], media: MediaIndex) -> list[Finding]:
    sth.check_gold(path, data)
    out: list[Finding] = []
    for key, record in data.items():
        item = sth.item_id(key)
        media.setdefault(key, []).append(item)
        where = f"sth video {key!r}"
        scene, locations = record["Scene change"], record.get("Locations")
        if scene.lower() not in {"yes", "no"}:
            out.append(
                Finding(
                    "bad-gold",
                    where,
                    f"Scene change {scene!r} is not Yes or No (read as No)",
                    "error",
                    (item,),
                )
            )
        elif scene not in {"Yes", "No"}:
            out.append(
                Finding(
                    "bad-gold", where, f"Scene change {scene!r} is not written Yes or No", item_ids=(item,)
                )
            )
        if scene.lower() == "yes" and not (isinstance(locations, str) and sth.scenes(locations)):
            out.append(
                Finding(
                    "bad-locations",
                    where,
                    f"Locations {locations!r} does not read as "
                    "'from X to Y.': no description can score on this video",
                    "error",
                    (item,),
                )
            )
    return out


def audit_media(media: MediaIndex, root: Path) -> list[Finding]:
    """Missing or unplayable clip files anywhere under ``root`` (zips may nest a folder deeper).

    Unplayable: empty, not an MP4 (no ``ftyp`` box at byte 4), cut short (a top-level box runs past
    the end of the file) or without the ``moov`` index box.
    """
    if not root.is_dir():
        raise InputError(root, "media root is not a folder")
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.mp4")):
        found.setdefault(path.stem, path)
    out: list[Finding] = []
    for clip, items in media.items():
        clip_path = found.get(clip)
        if clip_path is None:
            out.append(
                Finding(
                    "missing-media", f"clip {clip!r}", f"no {clip}.mp4 under {root}", item_ids=tuple(items)
                )
            )
            continue
        problem = _unreadable(clip_path)
        if problem:
            detail = f"{clip_path}: {problem}"
            out.append(Finding("unreadable-media", f"clip {clip!r}", detail, "error", tuple(items)))
    return out


def _unreadable(path: Path) -> str:
    """Why a clip cannot play, from its top-level MP4 boxes (headers only); '' when it looks sound."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            return _box_problem(handle, size)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"


def _box_problem(handle: Any, size: int) -> str:
    if size == 0:
        return "empty file (0 bytes)"
    offset, kinds = 0, list[bytes]()
    while offset < size and len(kinds) < 10_000:
        handle.seek(offset)
        header = handle.read(16)
        if len(header) < 8:
            return f"truncated: {size - offset} stray byte(s) at the end"
        length, kind = int.from_bytes(header[:4], "big"), header[4:8]
        if not kinds and kind != b"ftyp":
            return "not an MP4 (no 'ftyp' box at byte 4)"
        if length == 1 and len(header) == 16:  # 64-bit size follows the type
            length = int.from_bytes(header[8:16], "big")
        elif length == 0:  # the box runs to the end of the file
            length = size - offset
        if length < 8:
            return f"corrupt box {kind!r} at byte {offset}"
        if offset + length > size:
            return f"truncated: box {kind.decode('latin-1')!r} runs past the end of the file ({size} bytes)"
        kinds.append(kind)
        offset += length
    if b"moov" not in kinds:
        return "no 'moov' box: the index players need is missing"
    return ""


def audit(paths: Sequence[Path], media_root: Path | None) -> list[Finding]:
    """Run the checks of every file in ``paths`` (each recognised by shape or name)."""
    media: MediaIndex = defaultdict(list)
    out: list[Finding] = []
    for path in paths:
        data = read_object(path)
        out.extend(audit_file(path, data, detect(path, data), media))
    if media_root is not None:
        out.extend(audit_media(media, media_root))
    return out
