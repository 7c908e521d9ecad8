"""CDH-Bench gold audit: data problems found from the data itself, never from a list of pairs.

Checks: repeated pair ids; yes/no gold whose polarity is the reverse of the set's majority; the
same gold on both sides; golds the official scorer can never match; malformed and duplicate
options; questions sharing no content word with the rest of their pair (a heuristic, so only a
warning); missing or unreadable images.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from analysis.benchmarks.base import Finding
from analysis.benchmarks.cdh_bench.read import SIDES, TASKS, GoldPair, image_path, item_id

_LETTERS = "ABCD"
_PREFIX = re.compile(r"^\s*[A-Da-d]\s*[.)]\s*")
_MARKER = re.compile(r"(?:^|\s)[A-D][.)]\s")
_WORD = re.compile(r"[a-z]+")
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
# Words that say nothing about what a pair shows: a question made only of these fits any pair.
_STOPWORDS = frozenset(
    """
a an the and or not no nor but of in on at to by for from with without into onto over under as is
are was were be been being do does did have has had this that these those there here it its they
them their his her he she you your what which who whom whose how many much why where when
image picture photo scene shown show shows showing depicted depict visible see seen select choose
pick identify count number option options best describe describes described unusual about
relationship relation causal cause caused causing according correct true false one two three
four five six seven eight nine ten each both all any other than then compare compared comparison
size sizes scale happening happen happens kind type way look looks like same different normal
""".split()  # noqa: SIM905 - a word list reads better as text
)


def audit_pairs(pairs: Sequence[GoldPair], media_root: Path | None) -> list[Finding]:
    """Run every check over the pairs of one or more gold files."""
    findings = [
        *_repeated_pairs(pairs),
        *_inverted_polarity(pairs),
        *_gold_problems(pairs),
        *_option_problems(pairs),
        *_question_mismatch(pairs),
    ]
    if media_root is not None:
        findings.extend(_media_problems(pairs, media_root))
    return findings


def _ids(pair: GoldPair, tasks: Sequence[str] = TASKS, sides: Sequence[str] = SIDES) -> tuple[str, ...]:
    return tuple(item_id(pair.pair_id, t, s) for t in tasks for s in sides)


def _repeated_pairs(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    counts = Counter(p.pair_id for p in pairs)
    for pair_id, n in counts.items():
        if n > 1:
            sources = ", ".join(p.source for p in pairs if p.pair_id == pair_id)
            first = next(p for p in pairs if p.pair_id == pair_id)
            yield Finding("duplicate-record", pair_id, f"pair id appears {n} times ({sources}); "
                          "its rows share item ids", "error", _ids(first))


def _qa_polarity(pair: GoldPair) -> tuple[str, str]:
    """(counterfactual, commonsense) yes/no gold, normalised."""
    cf, cs = (pair.golds["qa", side].strip().lower() for side in ("counterfactual", "commonsense"))
    return cf, cs


def _inverted_polarity(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    # The set's own majority says which way round CF/CS yes/no runs; the minority is suspect.
    counts = Counter(_qa_polarity(p) for p in pairs)
    normal, inverted = ("no", "yes"), ("yes", "no")
    if counts[normal] == counts[inverted]:
        return
    majority, minority = (normal, inverted) if counts[normal] > counts[inverted] else (inverted, normal)
    for pair in pairs:
        if _qa_polarity(pair) == minority:
            yield Finding(
                "inverted-polarity", pair.pair_id,
                f"direct_qa gold is counterfactual {minority[0]!r} / commonsense {minority[1]!r}, the "
                f"reverse of {counts[majority]} other pairs; check the labels against the question "
                f"{pair.questions['qa']!r}",
                "warning", _ids(pair, ("qa",)),
            )  # fmt: skip


def _gold_problems(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        for task in TASKS:
            cf, cs = (pair.golds[task, s].strip().upper() for s in ("counterfactual", "commonsense"))
            block = "direct_qa" if task == "qa" else "multiple_choice"
            if cf == cs:
                yield Finding("same-gold-both-sides", pair.pair_id,
                              f"{block} gold is {pair.golds[task, 'counterfactual']!r} on both sides, "
                              "so the pair cannot tell the images apart", "error", _ids(pair, (task,)))
            for side, gold in (("counterfactual", cf), ("commonsense", cs)):
                if (task == "mc" and gold not in _LETTERS) or not gold:
                    yield Finding("invalid-gold", f"{pair.pair_id} {side}",
                                  f"{block} gold {pair.golds[task, side]!r} can never be matched "
                                  "(the official scorer counts every answer wrong)",
                                  "error", _ids(pair, (task,), (side,)))


def _option_problems(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        reasons = _malformed(pair.options)
        if reasons:
            yield Finding("malformed-options", pair.pair_id, "; ".join(reasons), "error",
                          _ids(pair, ("mc",)))
        if isinstance(pair.options, list) and len(pair.options) > 1:
            duplicates = _duplicates(pair.options)
            if duplicates:
                yield Finding("duplicate-options", pair.pair_id, "; ".join(duplicates), "error",
                              _ids(pair, ("mc",)))


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
    return [f"{' and '.join(labels)} are the same option {text!r}" for text, labels in seen.items()
            if len(labels) > 1]


def _content_words(text: str) -> set[str]:
    words = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in _STOPWORDS:
            continue
        # A crude plural fold ("wheels" ~ "wheel"); enough for a heuristic.
        words.add(word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word)
    return words


def _question_mismatch(pairs: Sequence[GoldPair]) -> Iterator[Finding]:
    for pair in pairs:
        options = pair.options if isinstance(pair.options, str) else " ".join(pair.options)
        for task, other in (("qa", "mc"), ("mc", "qa")):
            own = _content_words(pair.questions[task])
            context = _content_words(" ".join((pair.pair_name, pair.questions[other], options)))
            if own and not own & context:
                block = "direct_qa" if task == "qa" else "multiple_choice"
                yield Finding(
                    "question-mismatch", pair.pair_id,
                    f"{block} question {pair.questions[task]!r} shares no content word with the pair "
                    f"name {pair.pair_name!r}, the other question or the options (heuristic)",
                    "warning", _ids(pair, (task,)),
                )  # fmt: skip


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
                yield Finding(check, f"{pair.pair_id} {side}", f"{relative}: {detail}", "error",
                              _ids(pair, TASKS, (side,)))


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
