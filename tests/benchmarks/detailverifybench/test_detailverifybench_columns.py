"""DetailVerifyBench columns built a column at a time give what the one-record forms give.

The loader compares each distinct (gold, prediction) pair once and spreads the verdicts back,
builds ids, domains and media for a whole column, and ``derive`` reads the token F1 from the
``parsed`` flags over distinct gold captions: each is checked against the plain per-record reading.
"""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_detailverifybench import H, pipeline_record, write

from analysis.benchmarks import detailverifybench as dvb
from analysis.benchmarks.detailverifybench import read as dvb_io
from analysis.benchmarks.detailverifybench.columns import image_media
from analysis.benchmarks.detailverifybench.scoring import compare, says_none
from analysis.benchmarks.detailverifybench.spans import is_no_hallucination
from analysis.errors import InputError
from analysis.files.readers import MAX_TEXT_CHARS
from analysis.table.columns import concat_tables, make_table, media_json

GOLD = f"A {H('red')} car is parked near a {H('tall')} tree."
OTHER = f"Two {H('dogs')} run. The sky is {H('green')} at 3.5 p.m."
PREDICTIONS = [
    f"A {H('red')} car is parked near a {H('tall')} tree.",  # perfect
    f"A red car is parked near a {H('tall tree')}.",
    "NO HALLUCINATION",
    f"A {H('red car')} is parked near the tall tree.",  # other words: aligned differs
    f"Two dogs run. The sky is {H('green at 3.5')} p.m.",
]


def records() -> list[dict[str, object]]:
    """Pairs repeated in several orders, an invalid record and an id given twice."""
    out = []
    for k in range(12):
        gold = GOLD if k % 3 else OTHER
        pred = PREDICTIONS[(k * 7) % len(PREDICTIONS)]
        out.append(pipeline_record(gold, pred, id=f"img{k % 10}.png", image_path=f"./test/UI/img{k}.png"))
    out[4]["validation_passed"] = False
    out[4]["validation_message"] = "no result tag"
    return out


def test_each_row_gets_the_verdict_of_its_own_pair(tmp_path: Path) -> None:
    table = dvb.load(write(tmp_path / "tested_model_output_seed_1.json", records()))
    scored = table["scored"].to_numpy(dtype=bool)
    assert scored.sum() == 9  # record 5 invalid; ids img0/img1 repeated: the first two give way
    for parser, parsed_col, correct_col in (
        ("official", "parsed", "correct"),
        ("aligned", "alt_parsed", "alt_correct"),
    ):
        for row in range(len(table)):
            if not scored[row]:
                assert table[parsed_col].isna()[row] and table[correct_col].isna()[row]
                continue
            one = compare([table["gold"][row]], [table["raw_answer"][row]], parser)
            assert table[parsed_col][row] == one.flags[0], (parser, row)
            assert bool(table[correct_col][row]) == bool(one.exact[0]), (parser, row)


@pytest.mark.parametrize(
    "path",
    [
        "./test/Chart/x.png",
        "x.png",
        "",
        "/x.png",
        "./x.png",
        "../x.png",
        "a\\b\\c.png",
        "a/b/",
        "a//b.png",
        "./test/Movie/sub/x.png",
        "C:\\data\\Poster\\p.jpg",
    ],
)
def test_domains_of_a_column_are_those_of_each_path(path: str) -> None:
    paths = [path, "./test/Nature/y.jpg", path]
    assert dvb_io.domains_of(paths) == [dvb_io.domain_of(p) for p in paths]


@pytest.mark.parametrize(
    "odd",
    [
        'quo"te.png',
        "back\\slash.png",
        "tab\there.png",
        "nbsp\u00a0.png",
        "é.png",
        "line\u2028sep.png",
        "del\x7f.png",
    ],
)
def test_image_media_of_a_column_is_media_json_of_each_path(odd: str) -> None:
    plain = ["./test/UI/a.png", "./test/Chart/b.png"]
    assert image_media(plain) == [media_json([("image", p, "image")]) for p in plain]
    mixed = [*plain, odd]
    assert image_media(mixed) == [media_json([("image", p, "image")]) for p in mixed]


def test_item_ids_of_a_column_are_those_of_each_record() -> None:
    ids = ["a.png", "é.png", "a.png", "x"]
    golds = [GOLD, GOLD, OTHER, f"<HALL{H('x')}UCINATION> {OTHER}"]
    want = [dvb_io.make_item_id(i, g) for i, g in zip(ids, golds, strict=True)]
    assert dvb_io.make_item_ids(ids, golds) == want


def old_token_f1(table: pd.DataFrame, rows: np.ndarray) -> list[float]:
    """The F1 the chart column held before: each scored row compared from its raw answer."""
    out = []
    for row in rows.tolist():
        if not table["scored"][row]:
            out.append(float("nan"))
            continue
        gold, raw = table["gold"][row], table["raw_answer"][row]
        out.append(float(compare([gold or ""], ["" if pd.isna(raw) else raw], "official").token["f1"][0]))
    return out


def test_derived_token_f1_from_flags_equals_comparing_the_answers(tmp_path: Path) -> None:
    table = dvb.load(write(tmp_path / "tested_model_output_seed_1.json", records()))
    # flags that cannot be the official reading are read again from the answer, row by row
    table["parsed"] = table["parsed"].astype(object)
    table.loc[5, "parsed"] = None  # rows 6 and 9: the same gold, both null, different answers
    table.loc[8, "parsed"] = None
    table.loc[2, "parsed"] = "1" * 999  # longer than the gold
    table.loc[7, "parsed"] = "0x1"
    table["parsed"] = table["parsed"].astype("string")
    other = make_table(
        {"benchmark": "cmm", "item_id": ["c1", "c2"], "gold": ["yes", "no"], "scored": [True, True]}
    )
    both = concat_tables([other, table])
    rows = np.flatnonzero((both["benchmark"] == "detailverifybench").to_numpy(dtype=bool))
    derived = dvb.derive(both, rows)
    np.testing.assert_array_equal(derived["_token_f1"], old_token_f1(both, rows))
    f1 = derived["_token_f1"]
    assert not np.isnan(f1[[2, 5, 7, 8]]).any() and np.isnan(f1[[0, 1, 4]]).all()  # 1, 2 repeated; 5 invalid
    assert f1[5] != f1[8]


def test_derived_labels_come_from_extra(tmp_path: Path) -> None:
    gold = tmp_path / "real_test.jsonl"
    labels = [{"text": "red", "labels": ["Object Color Hallucination"]}, {"text": "tall", "labels": ["Size"]}]
    gold.write_text(
        pd.Series(
            [
                {
                    "filename": "img1.png",
                    "category": "UI",
                    "description_tag": GOLD,
                    "hallucination_labels": labels,
                }
            ]
        ).to_json(orient="records", lines=True)
    )
    table = dvb.load(write(tmp_path / "out.json", records()), gold=gold)
    derived = dvb.derive(table, np.arange(len(table)))
    # records 2 and 12 are img1.png with the gold GOLD; record 2 is not scored (its id comes again)
    assert derived["_labels"] == [None] * 11 + [labels]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("id", True, "expected a string or a number, got a boolean"),
        ("validation_passed", "yes", "expected a boolean, got a string"),
        ("image_path", None, "is null, expected a string"),
        ("gt_hallucinated_caption_with_tags", "x" * (MAX_TEXT_CHARS + 1), "over the"),
        ("original_caption", 3, "expected a string, got a number"),
    ],
)
def test_a_bad_value_is_named_with_its_record_and_field(
    tmp_path: Path, field: str, value: object, problem: str
) -> None:
    bad = records()
    bad[7][field] = value
    with pytest.raises(InputError) as err:
        dvb.load(write(tmp_path / "out.json", bad))
    line = err.value.line()
    assert "record 8" in line and field in line and problem in line, line


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.sampled_from(
            [
                "NO HALLUCINATION",
                " no hallucination\n",
                "No Hallucination.",
                "NO  HALLUCINATION",
                "ｎo hallucination",
                "no hallucınation",
                "NO HALLUCINATIOn \t",
                "",
                "ß" * 9,
            ]
        ),
        st.text(alphabet=st.sampled_from(list("nohalucit NOHALUCIT\tßﬁİı.")), max_size=24),
    )
)
def test_says_none_is_the_official_no_hallucination_test(text: str) -> None:
    assert says_none(text) == is_no_hallucination(text)


def test_a_failed_load_leaves_the_collector_running(tmp_path: Path) -> None:
    bad = records()
    bad[0]["validation_passed"] = "yes"
    assert gc.isenabled()
    with pytest.raises(InputError):
        dvb.load(write(tmp_path / "out.json", bad))
    assert gc.isenabled()
