"""The item table schema is defined once and enforced."""

import json

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.table.columns import (
    COLUMN_NAMES,
    COLUMNS,
    concat_tables,
    empty_table,
    item_key,
    json_list,
    make_table,
    media_json,
    text_bytes,
)


def test_every_column_is_documented_and_unique() -> None:
    assert len(set(COLUMN_NAMES)) == len(COLUMN_NAMES)
    for col in COLUMNS:
        assert len(col.doc) > 20, col.name


def test_make_table_orders_types_and_fills_defaults() -> None:
    t = make_table({"item_id": ["a", "b"], "benchmark": "cmm", "correct": [True, None]})
    assert list(t.columns) == list(COLUMN_NAMES)
    assert t["benchmark"].tolist() == ["cmm", "cmm"]
    assert t["correct"].dtype == "boolean" and pd.isna(t["correct"][1])
    assert t["scored"].tolist() == [False, False]
    assert t["raw_answer"].isna().all()


def test_unknown_column_and_ragged_lengths_are_errors() -> None:
    with pytest.raises(KeyError):
        make_table({"nope": [1]})
    with pytest.raises(ValueError):
        make_table({"item_id": ["a"], "gold": ["x", "y"]})


def test_concat_keeps_dtypes() -> None:
    a = make_table({"item_id": ["a"], "model": "m1"})
    b = make_table({"item_id": ["b"], "model": "m2"})
    both = concat_tables([a, b, empty_table()])
    assert both["model"].dtype == "category"
    assert both["item_id"].tolist() == ["a", "b"]


def _pandas_stack(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """What concat_tables did before it stacked column by column (the reference)."""
    frame = pd.concat(tables, ignore_index=True)
    for col in COLUMNS:
        frame[col.name] = frame[col.name].astype({"str": "string"}.get(col.dtype, col.dtype))
    return frame


def test_concat_equals_pandas_concat_and_leaves_text_in_one_chunk() -> None:
    a = make_table(
        {
            "item_id": ["a", "b"],
            "model": "zeta",
            "gold": ["x", None],
            "correct": [True, None],
            "category": ["c2", "c1"],
        }
    )
    b = make_table({"item_id": ["c"], "model": "alpha", "gold": ['é\n"q"'], "scored": [True]})
    same = make_table({"item_id": ["d"], "model": "zeta", "category": ["c2"]})
    for tables in ([a, b], [a, same], [b, empty_table(), a]):
        both = concat_tables(tables)
        # categories differing between the tables come out sorted, as with pandas
        pd.testing.assert_frame_equal(both, _pandas_stack(tables))
        assert list(both["model"].cat.categories) == list(_pandas_stack(tables)["model"].cat.categories)
        for name in ("item_id", "gold", "extra"):
            assert both[name].array._pa_array.num_chunks == 1


def test_item_key_is_deterministic() -> None:
    assert item_key("00191", "Is it?") == item_key("00191", "Is it?")
    assert item_key("a", "bc") != item_key("ab", "c")
    assert item_key(None, "x") == item_key("", "x")
    # pinned: ids are stored by reviewers, so they must never change between versions
    assert item_key("00191", "Is the sleeping man making sound in the audio?") == "5c71a2df0dab86ce"


_REF_TEXT = st.text(max_size=12) | st.sampled_from(
    ['a"b', "a\\b", "tab\there", "new\nline", "\x00", "\x7f", "\u2028", "é/好.mp4", "\ud800", ""]
)


@given(st.lists(st.tuples(_REF_TEXT, _REF_TEXT, _REF_TEXT), max_size=3))
def test_media_json_is_exactly_json_dumps(refs: list[tuple[str, str, str]]) -> None:
    expected = json.dumps([{"kind": k, "path": p, "role": r} for k, p, r in refs], ensure_ascii=False)
    assert media_json(refs) == expected  # type: ignore[arg-type]


@given(st.lists(_REF_TEXT, max_size=4))
def test_json_list_is_exactly_json_dumps(texts: list[str]) -> None:
    assert json_list(texts) == json.dumps(texts, ensure_ascii=False)


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_text_bytes_are_a_slices_own_strings(kind: pa.DataType) -> None:
    text = pa.array(["ab", None, "", "cdé", "f"], kind)
    assert bytes(text_bytes(text)) == "abcdéf".encode()
    assert bytes(text_bytes(text.slice(1, 3))) == "cdé".encode()  # not its neighbours' "ab" and "f"
    assert bytes(text_bytes(text.slice(4))) == b"f"
    assert bytes(text_bytes(text.slice(1, 2))) == b""  # a null and an empty string
    assert bytes(text_bytes(pa.array([], kind))) == b""
    assert bytes(text_bytes(pa.array([None, None], kind))) == b""
