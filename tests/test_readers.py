"""The JSON readers: bad input names the file, the record and the field."""

import json
import re
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.errors import InputError
from analysis.files.readers import (
    MAX_LINE_BYTES,
    WALK_BYTES_PER_KEY,
    key_ends,
    key_ends_as_numbers,
    key_ends_searched,
    keys_at_most,
    keys_in,
    read_json,
    read_jsonl,
    read_object,
    read_records,
    require,
    require_column,
    surely_unique_keys,
)


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_jsonl_and_json_list_read_alike(tmp_path: Path) -> None:
    a = read_records(write(tmp_path, "a.json", '{"x": 1}\n\n{"x": 2}\n'))
    b = read_records(write(tmp_path, "b.json", '[{"x": 1}, {"x": 2}]'))
    assert a.items == b.items == [{"x": 1}, {"x": 2}]
    assert a.where(1) == "line 3"  # blank line 2 is skipped but counted
    assert b.where(1) == "record 2"


def test_truncated_json_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", '[{"x": 1},\n {"x": ')
    with pytest.raises(InputError) as err:
        read_json(path)
    assert err.value.path == str(path)
    assert err.value.record == "line 2"
    assert "truncated" in err.value.line()


def test_a_pretty_printed_json_file_is_said_to_be_one_document_not_invalid(tmp_path: Path) -> None:
    # seen on a real release's leaderboard.json given where JSON Lines is read: "invalid JSON
    # (unexpected end of data)" on line 1 of a valid file
    pretty = tmp_path / "leaderboard.json"
    pretty.write_text(json.dumps({"rows": [{"model": "m", "f1": 0.5}]}, indent=2))
    with pytest.raises(InputError, match="line 1: is one JSON document written over several lines"):
        read_jsonl(pretty)
    broken = tmp_path / "broken.json"  # a broken document is still invalid JSON
    broken.write_text('{\n  "rows": [\n')
    with pytest.raises(InputError, match="line 1: invalid JSON"):
        read_jsonl(broken)


def test_truncated_jsonl_line(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", '{"x": 1}\n{"x": 2}\n{"x": ')
    with pytest.raises(InputError) as err:
        read_jsonl(path)
    assert err.value.record == "line 3"


def test_empty_and_blank_files(tmp_path: Path) -> None:
    for name, data in (("e.json", ""), ("w.jsonl", "\n  \n")):
        with pytest.raises(InputError, match="file is empty"):
            read_records(write(tmp_path, name, data))


def test_non_utf8_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "l1.json", b'[{"x": "ok"},\n{"x": "caf\xe9"}]')
    with pytest.raises(InputError) as err:
        read_json(path)
    assert err.value.record == "line 2" and "UTF-8" in err.value.problem
    jl = write(tmp_path, "l1.jsonl", b'{"x": "ok"}\n{"x": "caf\xe9"}\n')
    with pytest.raises(InputError) as err2:
        read_jsonl(jl)
    assert err2.value.record == "line 2" and "UTF-8" in err2.value.problem


def test_oversized_line_is_refused_without_parsing(tmp_path: Path) -> None:
    big = '{"x": "' + "a" * (MAX_LINE_BYTES + 10) + '"}\n'
    path = write(tmp_path, "big.jsonl", '{"x": 1}\n' + big)
    with pytest.raises(InputError) as err:
        read_jsonl(path)
    assert err.value.record == "line 2" and "limit" in err.value.problem


def test_non_object_records(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        read_records(write(tmp_path, "n.json", '[{"x": 1}, 3]'))
    assert err.value.record == "record 2"
    with pytest.raises(InputError, match="top level"):
        read_object(write(tmp_path, "o.json", "[1]"))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "nope.json")
    with pytest.raises(InputError, match="folder"):
        read_records(tmp_path)


def test_require_names_record_and_field(tmp_path: Path) -> None:
    recs = read_records(write(tmp_path, "r.jsonl", '{"a": "x"}\n{"a": 5}\n{"b": 1}\n'))
    assert require(recs, 0, "a") == "x"
    with pytest.raises(InputError) as err:
        require(recs, 1, "a")
    assert err.value.line() == f"{recs.path}: line 2: field 'a': expected a string, got a number"
    with pytest.raises(InputError, match="missing"):
        require(recs, 2, "a")
    assert require(recs, 2, "a", optional=True) is None
    with pytest.raises(InputError) as col_err:
        require_column(recs, "a")
    assert col_err.value.record == "line 2"
    assert require_column(recs, "b", (int,), optional=True) == [None, None, 1]


def test_booleans_are_not_numbers(tmp_path: Path) -> None:
    recs = read_records(write(tmp_path, "b.json", '[{"n": true}]'))
    with pytest.raises(InputError, match="got a boolean"):
        require(recs, 0, "n", (int,))


def test_records_count_from_one_in_json_lists_and_jsonl(tmp_path: Path) -> None:
    # The second object is "line 2" in a JSONL file and "record 2" in a JSON list: a person
    # counting objects from the top finds the same one in both.
    jsonl = read_jsonl(write(tmp_path, "a.jsonl", '{"x": 1}\n{"x": "two"}\n'))
    listed = read_records(write(tmp_path, "b.json", '[{"x": 1}, {"x": "two"}]'))
    for records, expected in ((jsonl, "line 2"), (listed, "record 2")):
        with pytest.raises(InputError) as err:
            require_column(records, "x", (int,))
        assert err.value.record == expected


@pytest.mark.parametrize(
    ("data", "truncated"),
    [
        ('[{"x": 1}, {"x": 2}', True),  # stops early: truncation is the likely cause
        ('[{"x": 1} {"x": 2}]', False),  # broken in the middle: not truncated
        ("video_id,question,prediction\n1,a,b\n", False),  # a CSV file, not JSON at all
    ],
)
def test_truncation_is_suggested_only_for_json_that_stops_early(
    tmp_path: Path, data: str, truncated: bool
) -> None:
    with pytest.raises(InputError) as err:
        read_json(write(tmp_path, "f.json", data))
    assert ("truncated" in str(err.value)) is truncated
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("text", "repeated", "where"),
    [
        # the fast count sees more key ends than keys: the key-by-key decoding must still find it
        ('{"a": 1, "a": 2}', "a", None),
        ('{"a": {"b": 1, "b": 2}}', "b", "key 'a'"),
        ('[{"a": [{"c": 1, "c" : 2}]}]', "c", "record 1, key 'a', item 1"),
        # the object holding the repeat is named down to it (a VidHalluc MCQ clip inside its group:
        # only the group was named)
        ('{"g": {"clip 1": {"x": 1}, "clip 2": {"y": 1, "y": 2}}}', "y", "key 'g', key 'clip 2'"),
        # a string holding an escaped quote and a colon adds a key end, hiding a lost key from the
        # count alone: the decoding key by key still runs and finds it
        ('{"a": "say \\":\\"", "a": 2}', "a", None),
    ],
)
def test_a_repeated_key_is_refused_at_any_depth(
    tmp_path: Path, text: str, repeated: str, where: str | None
) -> None:
    with pytest.raises(InputError) as err:
        read_json(write(tmp_path, "r.json", text))
    assert err.value.field == repeated
    assert err.value.record == where
    with pytest.raises(InputError):
        read_jsonl(write(tmp_path, "r.jsonl", text.strip("[]") + "\n"))


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "x\\": y", "b": {"a": 1}}',  # an escaped quote before a colon inside a string
        '{"a" \t:\n 1, "b": [{"a": 1}, {"a": 2}]}',  # white space before colons, same key in siblings
        '{"k": "\\u0022:"}',  # a quote written as an escape: not a key end
    ],
)
def test_strings_that_look_like_keys_are_not_repeats(tmp_path: Path, text: str) -> None:
    assert read_json(write(tmp_path, "ok.json", text)) is not None


def test_the_key_count_matches_the_key_ends_of_plain_json() -> None:
    value = {"a": [{"b": 1, "c": {"d": None}}, 3], "e": "text: with colon"}
    assert keys_in(value) == key_ends(json.dumps(value).encode()) == 5
    assert keys_in([[[[[{"deep": 1}]]]]]) == 1


def _key_ends_by_search(data: bytes) -> int:
    """The definition, searched for: each ``":``, plus each quote, white space and colon."""
    return data.count(b'":') + len(re.findall(rb'"[ \t\r\n]+:', data))


@settings(max_examples=400)
@given(
    st.binary(max_size=40) | st.text(alphabet='":a {}\t\r\n\x00\x1f', max_size=40).map(str.encode), st.data()
)
def test_key_ends_counted_as_numbers_equal_the_search_at_every_chunk_size(
    data: bytes, draw: st.DataObject
) -> None:
    # chunks as small as one byte: a quote at a chunk's end and its colon or space at the next
    # chunk's start must count as in one pass
    chunk = draw.draw(st.integers(1, 8))
    expected = _key_ends_by_search(data)
    assert key_ends_as_numbers(data, chunk=chunk) == key_ends_as_numbers(data) == expected
    assert key_ends_searched(data) == key_ends(data) == expected


@pytest.mark.parametrize(
    ("data", "ends"),
    [
        (b"", 0),
        (b'"', 0),
        (b'":', 1),
        (b'{"a":1,"b" :2}', 2),  # white space before a colon: found by the exact search
        (b'{"a"\t\r\n:1}', 1),
        (b'["x" , "y"]', 0),  # a quote then white space, no colon: nothing added
        (b'{"a":":"}', 2),  # the string ":" looks like a key end: an upper bound may be above
    ],
)
def test_key_ends_of_small_texts(data: bytes, ends: int) -> None:
    assert key_ends(data) == key_ends_searched(data) == key_ends_as_numbers(data, chunk=1) == ends


def test_a_whole_file_gives_the_searched_count_at_the_default_chunk_size() -> None:
    # above the size a line of JSON Lines has, so key_ends takes the numbers' path, here at its
    # own chunk size (the property test above uses chunks of 1-8 bytes), with a spaced key end
    text = b"[" + b",".join([b'{"a":1,"b" :"x\\":"}'] * 8000) + b"]"
    assert len(text) >= 1 << 16
    per_record = 3  # "a":, "b" : and, in the string, an escaped quote before a colon
    assert key_ends(text) == key_ends_searched(text) == _key_ends_by_search(text) == per_record * 8000
    assert key_ends_as_numbers(text) == per_record * 8000


def test_loads_run_with_the_collector_paused_and_its_state_comes_back() -> None:
    import gc

    from analysis.files.readers import without_gc_pauses

    seen: list[bool] = []

    @without_gc_pauses
    def load(fail: bool) -> int:
        seen.append(gc.isenabled())
        if fail:
            raise InputError(Path("f.json"), "bad")
        return 1

    assert gc.isenabled()
    assert load(False) == 1
    with pytest.raises(InputError):
        load(True)
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        load(False)
        assert not gc.isenabled()  # a caller's own pause is left as it was
    finally:
        gc.enable()


_TRICKY = st.text(alphabet='ab:"\\{[,] \n\u00e9', max_size=6)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=500)
@given(_JSON)
def test_the_fast_key_count_is_never_more_than_the_keys(value: object) -> None:
    # Strings full of quotes, colons, backslashes and brackets: the count at C speed may come out
    # lower than the truth (the exact check then runs), never higher (a repeat would slip through).
    fast = keys_at_most(value)
    assert fast is not None and fast <= keys_in(value)


def _keys_at_most_by_position(value: object) -> int:
    """The definition, one byte at a time: each ``":`` of the compact text not first in it and not
    after one of ``\\{[,:``."""
    text = orjson.dumps(value)
    return sum(
        1
        for i in range(1, len(text) - 1)
        if text[i : i + 2] == b'":' and text[i - 1 : i] not in (b"\\", b"{", b"[", b",", b":")
    )


@settings(max_examples=300)
@given(_JSON, st.integers(1, 8))
def test_the_fast_key_count_is_the_same_at_every_chunk_size(value: object, chunk: int) -> None:
    # chunks as small as one byte: a quote and its colon (or the byte before it) in two chunks
    assert keys_at_most(value, chunk=chunk) == keys_at_most(value) == _keys_at_most_by_position(value)


@pytest.mark.parametrize(
    "value", [":", [":"], {"k": ":"}, {"a\\": 1}, {"{": ":{"}, ['\\":'], {":": {":": ":"}}]
)
def test_strings_made_of_key_ends_are_never_counted_as_keys(value: object) -> None:
    # a string's opening quote before a colon (also at the very start), an escaped quote or
    # backslash before one: each looks like a key's end in the compact text
    fast = keys_at_most(value)
    assert fast is not None and fast <= keys_in(value)


@settings(max_examples=300)
@given(st.dictionaries(_TRICKY, _JSON, min_size=1, max_size=4), st.data())
def test_a_repeated_key_is_never_called_surely_unique(record: dict[str, object], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(record)))
    text = json.dumps(record)[:-1] + ", " + json.dumps(key) + ": 0}"  # the same key written twice
    value = json.loads(text)
    assert not surely_unique_keys(text.encode(), value)


@given(
    st.lists(
        st.dictionaries(
            st.text("abc_", min_size=1, max_size=5),
            st.text("xyz .é", max_size=8) | st.integers(-(10**9), 10**9),
            max_size=5,
        ),
        max_size=5,
    )
)
def test_plain_records_take_the_fast_path(records: list[dict[str, object]]) -> None:
    # the usual file: keys and texts without quotes or colons, however spaced: no second parse
    compact = json.dumps(records, separators=(",", ":"))
    for text in (json.dumps(records), json.dumps(records, indent=2), compact):
        assert surely_unique_keys(text.encode(), records)


@settings(max_examples=200)
@given(st.dictionaries(_TRICKY, _JSON, min_size=1, max_size=4), st.data())
def test_a_repeated_key_among_long_texts_is_never_called_surely_unique(
    record: dict[str, object], data: st.DataObject
) -> None:
    # long captions: the keys are counted by walking the value (WALK_BYTES_PER_KEY), not on its text
    key = data.draw(st.sampled_from(sorted(record)))
    caption = json.dumps("a long caption, " * WALK_BYTES_PER_KEY * 8)
    text = json.dumps(record)[:-1] + f', "caption": {caption}, ' + json.dumps(key) + ": 0}"
    value = json.loads(text)
    assert len(text) >= WALK_BYTES_PER_KEY * key_ends(text.encode())  # the walked count is the one used
    assert not surely_unique_keys(text.encode(), value)


def test_long_texts_without_a_repeat_take_the_fast_path() -> None:
    records = [
        {"caption": "words " * 200, "id": i, "labels": [{"type": "object", "text": "x"}]} for i in range(50)
    ]
    text = json.dumps(records).encode()
    assert len(text) >= WALK_BYTES_PER_KEY * key_ends(text)
    assert surely_unique_keys(text, records)


def test_a_text_without_keys_is_surely_unique() -> None:
    assert surely_unique_keys(b'[1, 2, "three"]', [1, 2, "three"])
