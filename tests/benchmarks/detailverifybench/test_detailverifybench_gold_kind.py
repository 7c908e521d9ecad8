"""DetailVerifyBench's tagged gold kind: a reviewer may move tags, never change the caption."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.benchmarks.detailverifybench.tags import spans_to_tagged, tagged_to_spans, untag
from analysis.store.values import InvalidLabel, normalize


def test_dvb_gold_may_move_tags_but_not_change_the_caption() -> None:
    original = "A <Hallucination>red</Hallucination> car."
    moved = normalize(
        "gold", "A red <hallucination>car</hallucination>.", benchmark="detailverifybench", original=original
    )
    assert moved == "A red <HALLUCINATION>car</HALLUCINATION>."
    with pytest.raises(InvalidLabel, match="caption text differs"):
        normalize(
            "gold",
            "A blue <HALLUCINATION>car</HALLUCINATION>.",
            benchmark="detailverifybench",
            original=original,
        )
    with pytest.raises(InvalidLabel, match="not closed"):
        normalize("gold", "A <HALLUCINATION>red car.", benchmark="detailverifybench", original=original)
    with pytest.raises(InvalidLabel, match="nested"):
        tagged_to_spans("<HALLUCINATION>a <HALLUCINATION>b</HALLUCINATION></HALLUCINATION>")
    spans = json.dumps({"spans": [[0, 1], [6, 9]]})
    assert normalize("gold", spans, benchmark="detailverifybench", original=original) == (
        "<HALLUCINATION>A</HALLUCINATION> red <HALLUCINATION>car</HALLUCINATION>."
    )
    with pytest.raises(InvalidLabel, match="outside"):
        normalize("gold", json.dumps({"spans": [[5, 99]]}), benchmark="detailverifybench", original=original)


@given(
    st.text(alphabet="ab <>/.", max_size=40),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=5),
)
def test_spans_and_tags_round_trip(clean: str, raw_spans: list[tuple[int, int]]) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in raw_spans if min(a, b) < max(a, b) <= len(clean)]
    if "<" in clean:  # a caption that already looks like tags is not a clean caption
        return
    tagged = spans_to_tagged(clean, spans)
    assert untag(tagged) == clean
    found = tagged_to_spans(tagged)
    assert all(0 <= s < e <= len(clean) for s, e in found)
    covered = {i for s, e in spans for i in range(s, e)}
    assert {i for s, e in found for i in range(s, e)} == covered
