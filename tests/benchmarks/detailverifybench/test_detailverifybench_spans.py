"""Span machinery: official tag and token reading, display segments, alignment, span projection."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.benchmarks.detailverifybench import spans
from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN

CASES = [
    json.loads(line)
    for line in (Path(__file__).parents[2] / "cases/detailverifybench.jsonl").read_text("utf-8").splitlines()
]

# Pieces that exercise every rule: connectors, @/#, CJK, sentence ends, tags (also malformed).
PIECES = [
    "a",
    "B",
    "3",
    "5",
    "x_y",
    "U",
    "-",
    "'",
    ".",
    "@",
    "#",
    "_",
    ",",
    " ",
    "  ",
    "\n",
    "!",
    "?",
    "\u3002",
    "\uff01",
    "\u6771",
    "\u30bf",
    "\u3072",
    "\u00e9",
    "\u2019",
    OPEN,
    CLOSE,
    "<",
    ">",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def official_flags(tagged: str) -> list[bool]:
    """The official reading, written independently: tag offsets and token offsets in the TAGGED text."""
    ranges = [(m.start(1), m.end(1)) for m in re.finditer(f"{OPEN}(.*?){CLOSE}", tagged, re.DOTALL)]
    chars: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(tagged):
        if tagged.startswith(OPEN, i):
            i += len(OPEN)
        elif tagged.startswith(CLOSE, i):
            i += len(CLOSE)
        else:
            chars.append(tagged[i])
            where.append(i)
            i += 1
    clean = "".join(chars)
    out = []
    for m in spans.TOKEN_PATTERN.finditer(clean):
        start, end = where[m.start()], where[m.end() - 1] + 1
        out.append(any(not (end <= a or start >= b) for a, b in ranges))
    return out


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "tokens"], ids=lambda c: c["why"][:40])
def test_token_cases(case: dict) -> None:
    text = case["raw_answer"]
    assert [text[s:e] for s, e in spans.tokenize(text)] == case["expected_parse"], case["why"]


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "flags"], ids=lambda c: c["why"][:40])
def test_flag_cases(case: dict) -> None:
    _, _, flags = spans.token_flags(case["raw_answer"])
    assert "".join("1" if f else "0" for f in flags) == case["expected_parse"], case["why"]
    assert flags == official_flags(case["raw_answer"])


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "sentences"], ids=lambda c: c["why"][:40])
def test_sentence_cases(case: dict) -> None:
    assert spans.sentence_token_counts(case["raw_answer"]) == case["expected_parse"], case["why"]


@given(texts)
def test_flags_match_official_offsets_in_tagged_text(text: str) -> None:
    assert spans.token_flags(text)[2] == official_flags(text)


@given(texts)
def test_read_tags_matches_the_official_regex(text: str) -> None:
    clean, ranges = spans.read_tags(text)
    assert clean == re.sub(f"{OPEN}|{CLOSE}", "", text)
    expected = [(m.start(1), m.end(1)) for m in re.finditer(f"{OPEN}(.*?){CLOSE}", text, re.DOTALL)]
    assert [(r.start, r.end) for r in ranges] == expected
    for r in ranges:  # clean offsets hold the same text, tags removed
        assert clean[r.clean_start : r.clean_end] == spans.strip_tags(text[r.start : r.end])


@given(texts)
def test_segments_rejoin_and_stay_in_range(text: str) -> None:
    segs = spans.segments(text)
    assert "".join(text[s.start : s.end] for s in segs) == text
    assert all(0 <= s.start < s.end <= len(text) for s in segs)
    assert all(a.end == b.start for a, b in itertools.pairwise(segs))
    hallucinated = "".join(text[s.start : s.end] for s in segs if s.kind == "hallucination")
    _, ranges = spans.read_tags(text)
    assert hallucinated == "".join(spans.strip_tags(text[r.start : r.end]) for r in ranges)


@given(texts)
def test_tokens_never_overlap_and_stay_in_range(text: str) -> None:
    clean = spans.strip_tags(text)
    toks = spans.tokenize(clean)
    assert all(0 <= s < e <= len(clean) for s, e in toks)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(toks))


def test_segments_kinds_on_malformed_markup() -> None:
    text = f"a {OPEN}b {OPEN}c{CLOSE} d{CLOSE} e {OPEN}f"
    kinds = [(text[s.start : s.end], s.kind) for s in spans.segments(text)]
    assert kinds == [
        ("a ", "text"),
        (OPEN, "tag"),
        ("b ", "hallucination"),
        (OPEN, "stray_tag"),
        ("c", "hallucination"),
        (CLOSE, "tag"),
        (" d", "text"),
        (CLOSE, "stray_tag"),
        (" e ", "text"),
        (OPEN, "stray_tag"),
        ("f", "text"),
    ]


def test_tag_problems() -> None:
    assert spans.tag_problems(f"a {OPEN}b{CLOSE}") == []
    assert spans.tag_problems(f"{OPEN}a {OPEN}b{CLOSE}{CLOSE}") == ["nested opening tag at offset 17"]
    assert spans.tag_problems(f"a{CLOSE}") == [
        "0 opening vs 1 closing tags",
        "closing tag without an opening tag at offset 1",
    ]
    assert spans.tag_problems(f"{OPEN}a") == ["1 opening vs 0 closing tags"]


def test_match_labels_first_unused_entry_then_unknown() -> None:
    labels = [
        {"text": "Red cuffs,", "labels": ["Object Color Hallucination"]},
        {"text": "blue", "labels": ["Object Color Hallucination", "Other Hallucination"]},
        {"text": "blue", "labels": ["Other Hallucination"]},
        {"text": "stands", "labels": []},
    ]
    tags = ["red cuffs", " blue ", "blue!", "blue", "stands", "nothing"]
    assert spans.match_labels(tags, labels) == [
        "Object Color Hallucination",  # case and punctuation are ignored
        "Object Color Hallucination",  # first entry with the key, first label
        "Other Hallucination",  # the next unused entry
        "Unknown",  # both "blue" entries used up
        "Unknown",  # entry without labels
        "Unknown",  # no entry
    ]


def test_align_flags_insertion_replacement_and_deletion() -> None:
    gold = ["a", "red", "car", "is", "parked"]
    mapped, orphans = spans.align_flags(
        gold, ["a", "big", "red", "car", "is", "parked"], [False, True, True, False, False, False]
    )
    assert mapped == [False, True, False, False, False] and orphans == 1  # flagged "big" has no gold place
    mapped, orphans = spans.align_flags(
        ["Isn", "t", "it", "red"], ["Isn't", "it", "red"], [True, False, True]
    )
    assert mapped == [True, True, False, True] and orphans == 0  # 2 gold tokens replaced by 1 flagged
    mapped, _ = spans.align_flags(gold, ["a", "red", "car"], [False, True, False])
    assert mapped == [False, True, False, False, False]  # dropped words are clean


def test_token_opcodes_cover_both_sequences() -> None:
    gold, pred = list("abcdefg"), list("abxdeyfg")
    ops = spans.token_opcodes(gold, pred)
    assert [o for o in ops if o[0] != "equal"] == [("replace", 2, 3, 2, 3), ("insert", 5, 5, 5, 6)]
    assert ops[0][1] == 0 and ops[-1][2] == len(gold) and ops[-1][4] == len(pred)


CAPTION = "The sky is blue. A red car, a red bus and a white cross-belts strap. Hundred red kites."


@pytest.mark.parametrize(
    ("span_list", "tagged_parts", "unlocated"),
    [
        (["red car"], ["red car"], []),
        (["red"], ["red"], []),  # whole word first: not inside "Hundred"
        (["red", "red", "red"], ["red", "red", "red"], []),  # each listed span takes the next free one
        (["white cross - belts"], ["white cross-belts"], []),  # spaces/punctuation between words differ
        (["THE SKY"], ["The sky"], []),  # last resort: ignore case
        ([" red car ", "   "], ["red car"], []),  # stripped; blank spans dropped
        (["purple"], [], ["purple"]),
        (["a red car", "red car, a red"], ["A red car, a red"], []),  # overlaps merge, case-blind 1st
    ],
)
def test_tag_spans(span_list: list[str], tagged_parts: list[str], unlocated: list[str]) -> None:
    tagged, missing = spans.tag_spans(CAPTION, span_list)
    assert spans.strip_tags(tagged) == CAPTION
    _, ranges = spans.read_tags(tagged)
    assert [tagged[r.start : r.end] for r in ranges] == tagged_parts
    assert missing == unlocated
    assert spans.tag_problems(tagged) == []


def test_tag_spans_every_occurrence() -> None:
    tagged, _ = spans.tag_spans(CAPTION, ["red"], every=True)
    _, ranges = spans.read_tags(tagged)
    # every whole-word "red" (the whole-word search hits first, so "Hundred" is left alone)
    assert [tagged[r.start : r.end] for r in ranges] == ["red", "red", "red"]
    assert "Hundred" in tagged
