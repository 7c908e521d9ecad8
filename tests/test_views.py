"""Filters, paging and item detail of the app, without Gradio."""

from __future__ import annotations

import numpy as np
import pytest
from app_data import PAYLOAD, all_tables
from hypothesis import given
from hypothesis import strategies as st

from analysis.query import (
    ALL,
    DISPLAY_COLUMNS,
    Filters,
    display_frame,
    filter_rows,
    item_detail,
    neighbour,
    page_count,
    page_of,
    page_slice,
    parsed_spans,
    prepare,
    reading_labels,
    split_spans,
)


@pytest.fixture(scope="module")
def table():
    return prepare(all_tables(), {"avh-Audio"})


def _ids(table, filters: Filters) -> list[str]:
    return table.iloc[filter_rows(table, filters)]["item_id"].tolist()


def test_prepare_derives_codes_and_flags(table) -> None:
    cmm = table[table["benchmark"] == "cmm"]
    # parsed yes/no/unparsed -> 1/0/-1; gold "yes" -> True
    assert cmm["_pred_code"].tolist() == [1, 0, -1, 1, 0, -1]
    assert cmm["_gold_yes"].tolist() == [True, False, False, True, False, False]
    assert table.loc[table["item_id"] == "avh-Audio", "_flagged"].all()
    assert not table.loc[table["item_id"] != "avh-Audio", "_flagged"].any()


def test_each_filter_restricts_as_named(table) -> None:
    assert set(_ids(table, Filters(benchmark="cmm"))) == {"cmm-0", "cmm-1", "cmm-2"}
    assert len(filter_rows(table, Filters(benchmark="cmm", models=("m2",)))) == 3
    assert _ids(table, Filters(benchmark=ALL, task="tsh")) == ["tsh-0"]
    assert set(_ids(table, Filters(category="Counting Anomalies"))) == {
        "cdh-1-counterfactual",
        "cdh-1-commonsense",
    }
    # m1 "I did not see it" on a "no" item: official unparsed (wrong), negation-aware right.
    assert _ids(table, Filters(parser_dependent=True)) == ["cmm-2"]
    assert set(_ids(table, Filters(flagged_only=True))) == {"avh-Audio"}
    wrong = table.iloc[filter_rows(table, Filters(wrong_only=True))]
    assert (wrong["correct"] == False).all() and len(wrong) == 8  # noqa: E712 - a nullable column


def test_search_is_case_insensitive_and_literal(table) -> None:
    assert _ids(table, Filters(search="RIVER")) == ["cmm-0"]
    assert _ids(table, Filters(search="onerror=")) == ["cmm-2"]
    assert _ids(table, Filters(search="(")) == []
    assert _ids(table, Filters(benchmark="avhbench", search="river")) == []


def test_paging_clamps_and_finds_rows() -> None:
    rows = np.arange(0, 230, 2)  # 115 rows in view
    assert page_count(115) == 3 and page_count(0) == 1
    assert page_slice(rows, 3).tolist() == rows[100:].tolist()
    assert page_slice(rows, 99).tolist() == rows[100:].tolist()
    assert page_slice(rows, -5).tolist() == rows[:50].tolist()
    assert page_of(rows, 200) == 3 and page_of(rows, 1) == 1


def test_neighbour_steps_and_clamps() -> None:
    rows = np.array([4, 9, 12])
    assert neighbour(rows, 9, 1) == 12 and neighbour(rows, 12, 1) == 12
    assert neighbour(rows, 4, -1) == 4
    assert neighbour(rows, None, 1) == 4 and neighbour(rows, 5, 1) == 4
    assert neighbour(np.array([], dtype=np.intp), 3, 1) is None


def test_display_frame_carries_row_and_item_id(table) -> None:
    rows = filter_rows(table, Filters(benchmark="cmm"))
    frame = display_frame(table, rows)
    assert list(frame.columns) == list(DISPLAY_COLUMNS)
    assert frame["row"].tolist() == rows.tolist()
    assert frame["item_id"].tolist() == table.iloc[rows]["item_id"].tolist()
    assert set(frame["verdict"]) <= {"✓", "✗", "–"}
    assert all(len(q) <= 90 for q in frame["question"])


@pytest.mark.parametrize(
    ("raw", "parsed", "expected"),
    [
        ("Yes, there is a river.", "yes", [(0, 3)]),
        ("Sure, yes", "yes", [(6, 9)]),
        ("A dog. The answer is B.", "B", [(21, 22)]),
        ("a dog, then (A)", "A", [(13, 14)]),  # single letters are case-sensitive: "a" is an article
        ("Both A and C apply", "A, C", [(5, 6), (11, 12)]),
        ("B then A", "BA", [(0, 1), (7, 8)]),  # a TSH order: both letters marked
        ("first the second one", "BA", []),
        ("anything", None, []),
    ],
)
def test_parsed_spans_find_the_reading(raw: str, parsed: str | None, expected: list[tuple[int, int]]) -> None:
    assert parsed_spans(raw, parsed) == expected


@given(st.text(max_size=40), st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), max_size=5))
def test_split_spans_rejoins_to_the_text(text: str, spans: list[tuple[int, int]]) -> None:
    pieces = split_spans(text, [(min(a, b), max(a, b)) for a, b in spans])
    assert "".join(p for p, _ in pieces) == text


def test_readings_are_shown_in_their_gold_kinds_words() -> None:
    # a tagged gold's reading is a flag per token; a count answer elsewhere stays as it is
    labels = reading_labels(
        ["detailverifybench", "cdh-bench", "cmm"], ["", "qa", ""], ["000110000000001", "10", None]
    )
    assert labels == ["3 of 15 tokens flagged", "10", ""]


def test_item_detail_gathers_pair_others_and_media(table) -> None:
    row = int(table.index[(table["item_id"] == "cdh-1-counterfactual") & (table["model"] == "m1")][0])
    same_item = np.flatnonzero((table["item_id"] == "cdh-1-counterfactual").to_numpy())
    same_pair = np.flatnonzero((table["pair_id"] == "Pair 1").fillna(False).to_numpy())
    detail = item_detail(table, row, same_item, same_pair)
    assert [o.model for o in detail.others] == ["m2"]
    assert [p["side"] for p in detail.pair] == ["commonsense"]  # same model only
    assert [(m.side, m.role) for m in detail.media] == [
        ("counterfactual", "counterfactual"),
        ("commonsense", "commonsense"),
    ]
    assert detail.verdict == "wrong" and detail.answer_pieces == [("Yes", True)]


def test_item_detail_keeps_payload_as_data(table) -> None:
    row = int(table.index[table["raw_answer"] == PAYLOAD][0])
    detail = item_detail(table, row, np.array([row]), np.array([], dtype=np.intp))
    assert "".join(p for p, _ in detail.answer_pieces) == PAYLOAD
    assert detail.verdict == "wrong" and detail.alt_verdict == "wrong"


def test_an_answer_not_scored_says_why_beside_the_others() -> None:
    # seen in the samples: AVHBench's QA.json asks one question twice; the repeat's rows (not
    # scored) showed a bare "no verdict" beside their scored twins, as if the readings disagreed
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    table = load_manifest(SAMPLE_MANIFEST).table
    repeated = table[table["skip_reason"].fillna("").str.startswith("repeated key")]
    assert len(repeated), "the samples no longer repeat a record"
    item = str(repeated["item_id"].iloc[0])
    rows = np.flatnonzero((table["item_id"] == item).to_numpy())
    scored_row = int(next(r for r in rows if table.at[int(r), "scored"]))
    detail = item_detail(table, scored_row, rows, np.array([], dtype=np.intp))
    verdicts = [o.verdict for o in detail.others]
    assert "no verdict" not in verdicts
    assert any(v.startswith("not scored (repeated key: first asked at record") for v in verdicts), verdicts
    assert any(v in ("correct", "wrong") for v in verdicts), verdicts  # the scored twins keep theirs
