"""Data checks of DetailVerifyBench gold files (``halluscope audit detailverifybench``)."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from analysis.benchmarks.base import Finding, Severity
from analysis.benchmarks.detailverifybench.read import GoldRow, make_item_id, read_gold
from analysis.benchmarks.detailverifybench.spans import label_key, read_tags, tag_problems

_ANY_CASE_TAG = re.compile(r"</?hallucination>", re.IGNORECASE)
_KNOWN_TAGS = frozenset({"<HALLUCINATION>", "</HALLUCINATION>", "<Hallucination>", "</Hallucination>"})


def audit_gold(paths: Sequence[Path], media_root: Path | None) -> list[Finding]:
    """Tag, label, ``Modify``, duplicate and media problems of the gold rows."""
    findings: list[Finding] = []
    for path in paths:  # a file at a time: two files of one name (two folders) are two files
        rows = read_gold([path])
        for row in rows:
            findings.extend(_row_findings(row))
            if media_root is not None:
                findings.extend(_media_findings(row, media_root))
        findings.extend(_duplicates(rows))
    return findings


def _finding(row: GoldRow, check: str, detail: str, severity: Severity = "warning") -> Finding:
    return Finding(
        check, f"{row.where} ({row.filename})", detail, severity, (make_item_id(row.filename, row.tagged),)
    )


def _row_findings(row: GoldRow) -> list[Finding]:
    """A row's findings; a misspelt tag is one finding, with what it causes told in its detail.

    What the misspelling causes is found by reading the row again with the tag spelt as the scorer
    reads it: a kind of finding that goes away then (a closing tag without its opening one, a label
    entry that no tag matches, ``Modify`` "Yes" without a tag) is its consequence, named in the one
    finding; a kind that stays is a problem of its own and is reported as such.
    """
    odd = sorted({m.group() for m in _ANY_CASE_TAG.finditer(row.raw_tagged)} - _KNOWN_TAGS)
    if not odd:
        return _spelt_row_findings(row)
    respelt = _ANY_CASE_TAG.sub(lambda m: m.group().upper(), row.raw_tagged)
    # by kind: a count in a detail moves with the respelling ("1 opening vs 0 closing tags")
    own = {f.check for f in _spelt_row_findings(dataclasses.replace(row, tagged=respelt))}
    found = _spelt_row_findings(row)
    caused = [f.detail for f in found if f.check not in own]
    detail = f"tag spelling the scorer does not read: {', '.join(odd)}"
    if caused:
        detail += "; so the scorer also finds: " + "; ".join(caused)
    return [
        _finding(row, "unrecognised-tag", detail, "error"),
        *(f for f in found if f.check in own),
    ]


def _spelt_row_findings(row: GoldRow) -> list[Finding]:
    """The findings of a row's tags as the scorer reads them, its labels and its ``Modify``."""
    out: list[Finding] = []
    for problem in tag_problems(row.tagged):
        out.append(_finding(row, "malformed-tags", problem, "error"))
    _, ranges = read_tags(row.tagged)
    tags = [row.tagged[r.start : r.end] for r in ranges]
    out.extend(_label_findings(row, tags))
    if row.modify == "No" and tags:
        out.append(_finding(row, "modify-mismatch", f'Modify is "No" but the caption has {len(tags)} tag(s)'))
    elif row.modify == "Yes" and not tags:
        out.append(_finding(row, "modify-mismatch", 'Modify is "Yes" but the caption has no tag'))
    elif row.modify not in (None, "Yes", "No"):
        out.append(_finding(row, "modify-mismatch", f'Modify is {row.modify!r}, expected "Yes" or "No"'))
    return out


def _label_findings(row: GoldRow, tags: Sequence[str]) -> list[Finding]:
    """Tags without a label entry and entries without a tag, matched like the official scorer."""
    if row.labels is None:
        return [_finding(row, "unlabelled-tag", "row has no hallucination_labels")] if tags else []
    pool: dict[str, list[str]] = defaultdict(list)
    for entry in row.labels:
        pool[label_key(entry["text"])].append(entry["text"])
    unmatched: list[str] = []
    for tag in tags:
        bucket = pool.get(label_key(tag))
        if bucket:
            bucket.pop(0)
        else:
            unmatched.append(tag)
    out: list[Finding] = []
    if unmatched:
        out.append(
            _finding(
                row,
                "unlabelled-tag",
                "tag text with no label entry (scored as Unknown): " + _quote(unmatched),
            )
        )
    orphans = [text for texts in pool.values() for text in texts]
    if orphans:
        out.append(_finding(row, "orphan-label", "label text that matches no tag: " + _quote(orphans)))
    return out


def _quote(texts: Sequence[str]) -> str:
    return "; ".join(repr(t) for t in texts)


def _media_findings(row: GoldRow, root: Path) -> list[Finding]:
    path = root / row.category / row.filename
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except OSError:
        inside = False
    if not inside:
        return [_finding(row, "missing-media", f"image path {path} leaves the media root", "error")]
    if not path.is_file():
        return [_finding(row, "missing-media", f"no image at {path}", "error")]
    try:
        from PIL import Image

        with Image.open(path) as image:
            image.verify()
    except Exception as exc:  # any decoder failure means "cannot be shown"
        return [_finding(row, "unreadable-media", f"{path}: {type(exc).__name__}: {exc}", "error")]
    return []


def _duplicates(rows: Sequence[GoldRow]) -> list[Finding]:
    """The same file name twice in the rows of one gold file (the real and synthetic sets share names)."""
    seen: dict[str, list[GoldRow]] = defaultdict(list)
    for row in rows:
        seen[row.filename].append(row)
    out: list[Finding] = []
    for name, group in seen.items():
        file = group[0].file
        if len(group) > 1:
            where = ", ".join(r.record_label for r in group)
            ids = tuple(dict.fromkeys(make_item_id(r.filename, r.tagged) for r in group))
            out.append(
                Finding(
                    "duplicate-record",
                    f"{file} ({name})",
                    f"{name} appears {len(group)} times ({where})",
                    "warning",
                    ids,
                )
            )
    return out
