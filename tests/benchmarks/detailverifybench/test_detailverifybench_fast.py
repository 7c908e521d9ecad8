"""DetailVerifyBench fast paths give exactly what the plain ones give.

The batch tokeniser pairs tags over a whole chunk, predictions reuse their gold caption's tokens,
the aligned parser only re-scores items whose words differ, and ``score`` reads the ``parsed``
column instead of tokenising the predictions again: each is checked against the direct reading.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_detailverifybench import H, pairs, pipeline_record, write
from test_detailverifybench_spans import PIECES, official_flags

from analysis.benchmarks import detailverifybench as dvb
from analysis.benchmarks.detailverifybench.batch import CHUNK_TEXTS, TokenTable, tokenize_like, tokenize_texts
from analysis.benchmarks.detailverifybench.columns import ColumnTexts, extra_column, may_hold_labels
from analysis.benchmarks.detailverifybench.measure import Comparison
from analysis.benchmarks.detailverifybench.scoring import compare, compare_flags, compare_parsers
from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN, read_tags, strip_tags, tokenize

# Broken tag pieces on top of the usual ones: a tag may only appear once others are removed.
ROUGH = st.lists(st.sampled_from([*PIECES, "<HALL", "UCINATION>", "</", "HALLUCINATION>"]), max_size=40).map(
    "".join
)
LABELS = [
    {"text": "a", "labels": ["Object Color Hallucination"]},
    {"text": "B", "labels": ["OCR Hallucination"]},
]


def assert_same_comparison(got: Comparison, want: Comparison) -> None:
    for level in ("token", "sentence"):
        for name, values in getattr(want, level).items():
            assert getattr(got, level)[name].tolist() == values.tolist(), (level, name)
    for name in ("gold_any", "pred_any", "exact"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
    assert got.flags == want.flags
    assert got.label_hits == want.label_hits


def tokens(table: TokenTable, i: int) -> list[tuple[int, int]]:
    lo, hi = table.offsets[i], table.offsets[i + 1]
    return list(zip(table.starts[lo:hi].tolist(), table.ends[lo:hi].tolist(), strict=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(ROUGH, max_size=8))
def test_batch_tags_match_the_reference_with_broken_tags(captions: list[str]) -> None:
    table = tokenize_texts(captions)
    for i, text in enumerate(captions):
        clean, ranges = read_tags(text)
        assert table.cleans[i] == clean == strip_tags(text)
        assert tokens(table, i) == tokenize(clean)
        assert table.flags[table.offsets[i] : table.offsets[i + 1]].tolist() == official_flags(text)
        r_lo, r_hi = table.range_offsets[i], table.range_offsets[i + 1]
        assert table.range_texts[r_lo:r_hi] == [text[r.start : r.end] for r in ranges]


@settings(max_examples=300, deadline=None)
@given(st.lists(pairs, max_size=10))
def test_predictions_tokenised_like_their_gold(items: list[tuple[str, str]]) -> None:
    golds, preds = [g for g, _ in items], [p for _, p in items]
    alone = tokenize_texts(preds, sentences=False)
    like, same = tokenize_like(preds, tokenize_texts(golds))
    for name in ("offsets", "starts", "ends", "flags", "first_range", "range_offsets"):
        assert getattr(like, name).tolist() == getattr(alone, name).tolist(), name
    assert like.cleans == alone.cleans
    assert like.range_texts == alone.range_texts
    assert same.tolist() == [strip_tags(g) == strip_tags(p) for g, p in items]


def test_tokenised_like_a_gold_table_of_several_chunks() -> None:
    golds = [f"w{i} {H('x')} y.z" for i in range(CHUNK_TEXTS + 5)]
    # equal clean text, same length but other words, other length
    preds = [
        strip_tags(g) if i % 3 == 0 else (g.replace("y", "q") if i % 3 == 1 else g + " more")
        for i, g in enumerate(golds)
    ]
    like, same = tokenize_like(preds, tokenize_texts(golds))
    alone = tokenize_texts(preds, sentences=False)
    assert like.starts.tolist() == alone.starts.tolist() and like.flags.tolist() == alone.flags.tolist()
    assert same.tolist() == [i % 3 == 0 for i in range(len(golds))]


def test_tokenise_like_needs_one_caption_per_gold() -> None:
    with pytest.raises(ValueError, match="2 captions to tokenise like 1"):
        tokenize_like(["a", "b"], tokenize_texts(["a"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(pairs, min_size=1, max_size=10), st.booleans())
def test_both_parsers_at_once_equal_one_at_a_time(items: list[tuple[str, str]], with_labels: bool) -> None:
    golds, preds = [g for g, _ in items], [p for _, p in items]
    labels = [LABELS] * len(items) if with_labels else None
    both = compare_parsers(golds, preds, ("official", "aligned"), labels)
    for parser in ("official", "aligned"):
        assert_same_comparison(both[parser], compare(golds, preds, parser, labels))


@settings(max_examples=200, deadline=None)
@given(st.lists(pairs, min_size=1, max_size=10), st.data())
def test_scoring_stored_flags_equals_scoring_the_predictions(items: list[tuple[str, str]], data: Any) -> None:
    golds, preds = [g for g, _ in items], [p for _, p in items]
    want = compare(golds, preds, labels=[LABELS] * len(items))
    flags: list[str | None] = list(want.flags)
    # flags that cannot be the official reading are read again from the prediction
    for i in data.draw(st.lists(st.integers(0, len(items) - 1), max_size=3)):
        flags[i] = data.draw(st.sampled_from([None, "2", "0" * (len(official_flags(golds[i])) + 1)]))
    assert_same_comparison(compare_flags(golds, flags, preds, [LABELS] * len(items)), want)


def test_stored_flags_are_trusted_when_they_can_be_right() -> None:
    gold, pred = f"a {H('red')} car.", f"a {H('red')} car."
    # the stored reading "001" (a stale or edited one) is what gets scored, as with other benchmarks
    assert compare_flags([gold], ["001"], [pred]).flags == ["001"]
    assert compare_flags([gold], ["001"], [pred]).token["f1"].tolist() == [0.0]
    assert compare([gold], [pred]).token["f1"].tolist() == [1.0]


def loaded(tmp_path: Path) -> pd.DataFrame:
    golds = [f"A {H('red')} car {i}. Two dogs." for i in range(7)]
    preds = [
        f"A red {H('car')} 0. Two dogs.",
        "NO HALLUCINATION",
        f"A {H('red')} car 2. Two dogs.",
        f"A red car 3. {H('Two dogs.')}",
        f"A big {H('red')} car 4. Two dogs.",
        "A red car 5.",
        golds[6],
    ]
    records = [
        pipeline_record(g, p, id=f"{i}.png", image_path=f"./test/{'Chart' if i % 2 else 'UI'}/{i}.png")
        for i, (g, p) in enumerate(zip(golds, preds, strict=True))
    ]
    records[5]["validation_passed"] = False
    return dvb.load(write(tmp_path / "tested_model_output_seed_42.json", records))


def test_score_reads_parsed_and_rereads_what_cannot_be_right(tmp_path: Path) -> None:
    table = loaded(tmp_path)
    want = dvb.score(table)
    scored = table.index[table["scored"]]
    gold_len = [len(official_flags(g)) for g in table.loc[scored, "gold"]]
    broken = table.copy()
    broken.loc[scored[0], "parsed"] = None
    broken.loc[scored[1], "parsed"] = "0x1"
    broken.loc[scored[2], "parsed"] = "1" * (gold_len[2] + 1)
    assert dvb.score(broken) == want
    # the same numbers as scoring the raw answers directly
    golds = [str(g) for g in table.loc[scored, "gold"]]
    direct = compare(golds, [str(p) for p in table.loc[scored, "raw_answer"]])
    assert table.loc[scored, "parsed"].tolist() == direct.flags


def test_score_of_a_slice_of_a_table(tmp_path: Path) -> None:
    table = loaded(tmp_path)
    part = table.iloc[[6, 0, 3]]
    report = dvb.score(part)
    golds = [str(g) for g in part["gold"]]
    result = compare(golds, [str(p) for p in part["raw_answer"]])
    assert report["n_scored"] == 3
    assert report["overall"]["token_f1"] == float(np.mean(result.token["f1"]))


def test_extra_column_is_the_json_of_the_other_fields() -> None:
    records: list[dict[str, Any]] = [
        {"id": "a", "raw_output": "é <result>x</result>", "seed": 42},
        {"id": "b", "big": 2**70},  # beyond orjson's integers: the general encoder
        {"id": "c"},
    ]
    labels = [None, [{"text": "x", "labels": ["Other"]}], None]
    column = extra_column(records, labels, ("id",))
    assert column.tolist() == [
        orjson.dumps({"raw_output": "é <result>x</result>", "seed": 42}).decode(),
        json.dumps({"big": 2**70, "hallucination_labels": labels[1]}, ensure_ascii=False),
        "",
    ]
    assert isinstance(column.dtype, pd.StringDtype)


def test_extra_column_over_several_slices() -> None:
    records = [{"id": i, "n": i} for i in range(20_000)]
    column = extra_column(records, [None] * len(records), ("id",))
    assert len(column) == 20_000
    assert column[19_999] == '{"n":19999}'


def test_labels_are_looked_for_row_by_row_only_when_some_may_hold_them() -> None:
    plain = pd.Series(['{"a":1}', None, ""], dtype="string")
    assert not may_hold_labels(plain)
    with_labels = pd.Series(['{"a":1}', '{"hallucination_labels":[]}'], dtype="string")
    assert may_hold_labels(with_labels)
    assert may_hold_labels(with_labels.astype(object))
    # a slice is searched in its own rows' bytes only, not in the buffer it shares with the rest
    assert not may_hold_labels(with_labels.iloc[:1])
    assert may_hold_labels(with_labels.iloc[1:])
    assert not may_hold_labels(with_labels, np.array([0]))
    assert may_hold_labels(with_labels, np.array([1]))
    assert not may_hold_labels(with_labels, np.array([], dtype=np.intp))
    assert dvb._labels_from_extra(with_labels, np.array([0])) is None
    assert dvb._labels_from_extra(with_labels, np.array([1, 0])) == [[], None]


@pytest.mark.parametrize("text_type", [pa.string(), pa.large_string()])
def test_labels_are_looked_for_in_the_span_of_the_rows_asked(text_type: pa.DataType) -> None:
    # the rows of other benchmarks around a benchmark's rows: their bytes are not searched
    texts = ['{"a":1}', '{"hallucination_labels":[]}', None, '{"b":2}', "", '{"c":3}']
    extra = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(texts, text_type)])))
    assert may_hold_labels(extra)
    assert not may_hold_labels(extra, np.array([3, 5, 4]))
    assert not may_hold_labels(extra, np.array([0]))
    assert may_hold_labels(extra, np.array([0, 3]))  # the span from 0 to 3 holds row 1: look row by row
    assert may_hold_labels(extra, np.array([1]))
    assert dvb._labels_from_extra(extra, np.array([3, 5])) is None
    assert dvb._labels_from_extra(extra, np.array([0, 3])) is None  # looked at row by row: neither holds them
    assert dvb._labels_from_extra(extra, np.array([1, 4])) == [[], None]
    sliced = extra.iloc[2:]  # a slice of the Arrow array: its offset is not 0
    assert not may_hold_labels(sliced)
    assert may_hold_labels(extra.iloc[1:2])


def test_column_texts_read_slices_and_nulls() -> None:
    column = pd.Series(["a", None, "c", "d"], dtype="string")
    texts = ColumnTexts(column, np.array([3, 1, 0]))
    assert len(texts) == 3
    assert texts[0:2] == ["d", ""]
    assert texts[2] == "a"
    assert list(texts) == ["d", "", "a"]
    assert ColumnTexts(pd.Series([1.5, None], dtype=object), np.array([0, 1]))[0:2] == ["1.5", ""]


def test_tags_across_joined_captions_are_not_read() -> None:
    # one caption ends inside a tag string, the next one finishes it: neither holds a tag
    table = tokenize_texts(["x <HALLUC", "INATION>y", f"z {OPEN}w{CLOSE}"])
    assert table.flags.tolist() == [False, False, False, False, False, True]
    assert table.range_texts == ["w"]
