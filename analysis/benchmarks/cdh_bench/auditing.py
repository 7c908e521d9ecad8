"""CDH-Bench gold audit: data problems found from the data itself, never from a list of pairs.

Checks: repeated pair ids; yes/no gold the wrong way round for its question (told by the pair
name where it can, else by the set's majority); the same gold on both sides; golds the official
scorer can never match; malformed and duplicate options; the pair's own words against each other
(:mod:`~analysis.benchmarks.cdh_bench.wording`: name against gold, broken questions, questions
about another subject); missing or unreadable images. Each finding carries its suggested
correction where the data says what it is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from analysis.benchmarks.base import Finding, Fix
from analysis.benchmarks.cdh_bench.read import SIDES, TASKS, GoldPair, image_path, item_id
from analysis.benchmarks.cdh_bench.wording import audit_wording, question_order

_LETTERS = "ABCD"
_PREFIX = re.compile(r"^\s*[A-Da-d]\s*[.)]\s*")
_MARKER = re.compile(r"(?:^|\s)[A-D][.)]\s")
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


def audit_pairs(pairs: Sequence[GoldPair], media_root: Path | None) -> list[Finding]:
    """Run every check over the pairs of one or more gold files."""
    findings = [
        *_repeated_pairs(pairs),
        *_inverted_polarity(pairs),
        *_gold_problems(pairs),
        *_option_problems(pairs),
        *audit_wording(pairs),
    ]
    if media_root is not None:
        findings.extend(_media_problems(pairs, media_root))
    return findings


def _ids(pair: GoldPair, tasks: Sequence[str] = TASKS, sides: Sequence[str] = SIDES) -> tuple[str, ...]:
    return tuple(item_id(pair.pair_id, t, s) for t in tasks for s in sides)


def _repeated_pairs(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    """A pair id on several lines: a warning when the lines say the same, an error when they differ.

    The lines' rows share item ids, so differing lines give those items two golds or questions.
    """
    counts = Counter(p.pair_id for p in pairs)
    for pair_id, n in counts.items():
        if n > 1:
            same = [p for p in pairs if p.pair_id == pair_id]
            sources = ", ".join(p.source for p in same)
            first = replace(same[0], source="")
            differ = any(replace(p, source="") != first for p in same[1:])
            what = "repeated exactly"
            if differ:
                what = "with different content: its items get two golds or questions"
            yield Finding(
                "duplicate-record",
                pair_id,
                f"pair id appears {n} times ({sources}), {what}",
                "error" if differ else "warning",
                _ids(same[0]),
                tuple(Fix(i, "flag", "ambiguous") for i in _ids(same[0])) if differ else (),
            )


def _qa_polarity(pair: GoldPair) -> tuple[str, str]:
    """(counterfactual, commonsense) yes/no gold, normalised."""
    cf, cs = (pair.golds["qa", side].strip().lower() for side in ("counterfactual", "commonsense"))
    return cf, cs


def _inverted_polarity(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    """Yes/no gold the wrong way round for its question, with the swap of both sides as the fix.

    The question states one side first ("<commonsense> and not <counterfactual>?"), so that side's
    gold is yes. Where the pair name tells which side comes first (:func:`question_order`), a gold
    that disagrees is an error; where it cannot tell, the set's own majority decides and a
    minority pair is a warning.
    """
    counts = Counter(_qa_polarity(p) for p in pairs)
    normal, inverted = ("no", "yes"), ("yes", "no")
    majority = normal if counts[normal] >= counts[inverted] else inverted
    for pair in pairs:
        polarity = _qa_polarity(pair)
        if polarity not in (normal, inverted):
            continue
        first = question_order(pair)
        expected = {"commonsense": normal, "counterfactual": inverted}.get(first or "", majority)
        if polarity == expected or (first is None and counts[normal] == counts[inverted]):
            continue
        reason = (
            f"the question states the {first} side first, so that side should be 'yes'"
            if first
            else f"the reverse of {counts[majority]} other pairs"
        )
        yield Finding(
            "inverted-polarity", pair.pair_id,
            f"direct_qa gold is counterfactual {polarity[0]!r} / commonsense {polarity[1]!r} for "
            f"{pair.questions['qa']!r} and the pair {pair.pair_name!r}: {reason}; swap the two sides' gold",
            "error" if first else "warning", _ids(pair, ("qa",)), _swap(pair),
        )  # fmt: skip


def _flag(pair: GoldPair, task: str, flag: str) -> tuple[Fix, ...]:
    return tuple(Fix(i, "flag", flag) for i in _ids(pair, (task,)))


def _swap(pair: GoldPair) -> tuple[Fix, ...]:
    cf, cs = pair.golds["qa", "counterfactual"], pair.golds["qa", "commonsense"]
    return (
        Fix(item_id(pair.pair_id, "qa", "counterfactual"), "gold", cs.strip().lower()),
        Fix(item_id(pair.pair_id, "qa", "commonsense"), "gold", cf.strip().lower()),
    )


def _gold_problems(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        for task in TASKS:
            cf, cs = (pair.golds[task, s].strip().upper() for s in ("counterfactual", "commonsense"))
            block = "direct_qa" if task == "qa" else "multiple_choice"
            if cf == cs:
                yield Finding(
                    "same-gold-both-sides",
                    pair.pair_id,
                    f"{block} gold is {pair.golds[task, 'counterfactual']!r} on both sides, "
                    "so the pair cannot tell the images apart",
                    "error",
                    _ids(pair, (task,)),
                    _flag(pair, task, "ambiguous"),
                )
            for side, gold in (("counterfactual", cf), ("commonsense", cs)):
                if (task == "mc" and gold not in _LETTERS) or not gold:
                    yield Finding(
                        "invalid-gold",
                        f"{pair.pair_id} {side}",
                        f"{block} gold {pair.golds[task, side]!r} can never be matched "
                        "(the official scorer counts every answer wrong)",
                        "error",
                        _ids(pair, (task,), (side,)),
                    )


def _option_problems(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        reasons = _malformed(pair.options)
        if reasons:
            yield Finding(
                "malformed-options",
                pair.pair_id,
                "; ".join(reasons),
                "error",
                _ids(pair, ("mc",)),
                _flag(pair, "mc", "wrong-options"),
            )
        if isinstance(pair.options, list) and len(pair.options) > 1:
            duplicates = _duplicates(pair.options)
            if duplicates:
                yield Finding(
                    "duplicate-options",
                    pair.pair_id,
                    "; ".join(duplicates),
                    "error",
                    _ids(pair, ("mc",)),
                    _flag(pair, "mc", "wrong-options"),
                )


def _malformed(options: list[str] | str) -> list[str]:
    if isinstance(options, str):
        return ["options is one string, not a list"]
    if len(options) == 1 and len(_MARKER.findall(options[0])) >= 2:
        return [f"one entry holding every option run together: {options[0]!r}"]
    if len(options) != 4:
        unlettered = [o for o in options if not _PREFIX.match(o)]
        hint = f" (looks split at commas inside an option: {unlettered[0]!r})" if unlettered else ""
        return [f"{len(options)} entries, expected 4{hint}"]
    return [
        f"entry {position + 1} {option!r} does not start with {_LETTERS[position] + '. '!r}"
        for position, option in enumerate(options)
        if not option.startswith(f"{_LETTERS[position]}. ")
    ]


def _duplicates(options: list[str]) -> list[str]:
    seen: dict[str, list[str]] = {}
    for position, option in enumerate(options):
        text = " ".join(_PREFIX.sub("", option).casefold().split()).rstrip(".")
        label = option.strip()[:1] if _PREFIX.match(option) else f"entry {position + 1}"
        seen.setdefault(text, []).append(label)
    return [
        f"{' and '.join(labels)} are the same option {text!r}"
        for text, labels in seen.items()
        if len(labels) > 1
    ]


def _media_problems(pairs: Sequence[GoldPair], media_root: Path) -> Iterator[Finding]:
    # Media paths start with "images/": the root may be the data folder or the images folder itself.
    named_images = media_root.name == "images" and not (media_root / "images").is_dir()
    base = media_root.parent if named_images else media_root
    for pair in pairs:
        for side in SIDES:
            relative = image_path(pair.subcategory, pair.pair_id, side)
            problem = _image_problem(base / relative)
            if problem is not None:
                check, detail = problem
                yield Finding(
                    check,
                    f"{pair.pair_id} {side}",
                    f"{relative}: {detail}",
                    "error",
                    _ids(pair, TASKS, (side,)),
                )


def _image_problem(path: Path) -> tuple[str, str] | None:
    if not path.exists():
        return "missing-media", "no such file"
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        return "unreadable-media", f"cannot be read ({exc.strerror or exc})"
    if not head:
        return "unreadable-media", "file is empty"
    if not head.startswith(_MAGIC):
        return "unreadable-media", "not a PNG or JPEG image (by its first bytes)"
    return None
