"""Editing DetailVerifyBench gold by picking tokens: the pure round trip and the picker handlers."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from analysis.benchmarks.detailverifybench.span_edit import (
    selected_tokens,
    tag_tokens,
    token_runs,
)
from analysis.benchmarks.detailverifybench.spans import CLOSE, OPEN, strip_tags, token_flags, tokenize
from analysis.benchmarks.detailverifybench.tagging import TAGGING
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.store import Identity, events_frame, open_store
from components.review.context import ReviewContext
from components.review.panel import panel, save
from components.review.span_picker import (
    NotTagged,
    parse_indices,
    parse_selection,
    picked,
    picker_html,
    render,
)

H, E = OPEN, CLOSE
ALICE = Identity("alice")
# pieces that exercise every token alternative, separators, and near-miss tag markup
PIECES = [
    "a",
    "Red",
    "9",
    "3.5",
    "U.S.",
    "don't",
    "e-mail",
    "@x_1",
    "#tag",
    "漢字",
    "カタ",
    " ",
    "  ",
    ",",
    ".",
    "\n",
    "-",
    "'",
    "<",
    ">",
    "</",
    "<HALLUCINATION",
    "HALLUCINATION>",
    "é",
    "😀",
]
texts = st.one_of(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.text(max_size=60))


def _clean(text: str) -> str:
    # a clean caption has no tag string; removing them can create one, so repeat until stable
    while strip_tags(text) != text:
        text = strip_tags(text)
    return text


@settings(max_examples=400, deadline=None)
@given(texts, st.data())
def test_tagging_then_reading_gives_back_the_selection_and_the_text(raw: str, data: st.DataObject) -> None:
    text = _clean(raw)
    n = len(tokenize(text))
    chosen = data.draw(st.sets(st.integers(0, n - 1)) if n else st.just(set[int]()))
    tagged = tag_tokens(text, chosen)
    assert selected_tokens(tagged) == chosen
    assert strip_tags(tagged) == text
    assert tagged.count(OPEN) == tagged.count(CLOSE) == len(token_runs(chosen))


@settings(max_examples=200, deadline=None)
@given(texts, texts, texts)
def test_reading_then_tagging_keeps_the_official_token_flags(a: str, b: str, c: str) -> None:
    # any well-formed tagged caption: re-tagging its selection changes no token's official flag
    tagged = f"{_clean(a)}{OPEN}{_clean(b)}{CLOSE}{_clean(c)}"
    clean, _, flags = token_flags(tagged)
    # parts cleaned one by one can still spell a tag where they join ("<" + "HALLUCINATION>"); a
    # clean caption holding tag markup has no unambiguous tagged form, so it is not a case here
    assume(OPEN not in clean and CLOSE not in clean)
    again = tag_tokens(clean, selected_tokens(tagged))
    assert token_flags(again)[2] == flags


def test_runs_of_consecutive_tokens_become_one_tag_with_the_text_between() -> None:
    text = "A red car, parked."
    assert tag_tokens(text, {1, 2}) == f"A {H}red car{E}, parked."
    assert tag_tokens(text, [3, 1]) == f"A {H}red{E} car, {H}parked{E}."
    assert tag_tokens(text, {0, 1, 2, 3}) == f"{H}A red car, parked{E}."
    assert tag_tokens(text, set()) == text
    assert token_runs([5, 1, 2, 2, 7, 6]) == [(1, 2), (5, 7)]


def test_a_partly_tagged_token_counts_as_selected_and_bad_indices_are_refused() -> None:
    assert selected_tokens(f"a {H}re{E}d car") == {1}  # the official rule: overlap, partly counts
    assert selected_tokens(f"{H}{E}NO tags") == set()  # an empty pair before a token marks nothing
    with pytest.raises(ValueError, match="2 token"):
        tag_tokens("two words", {2})
    with pytest.raises(ValueError):
        tag_tokens("two words", {-1})
    assert parse_indices(" 3, 1,x,,-2,²,10 ") == [3, 1, 10]
    assert parse_indices(None) == []


def test_the_picker_escapes_the_caption() -> None:
    caption = '<img src=x onerror="alert(1)"> ok & <b>bye</b>'
    html = picker_html(caption, {1}, TAGGING)
    assert "<img" not in html and "<b>" not in html
    # without the chip markup the picker shows exactly the escaped caption
    body = html.split('<div class="hs-picker">', 1)[1].removesuffix("</div>")
    assert re.sub(r"<[^>]*>", "", body) == escape(caption)
    # tokens: img, src, x, onerror, alert, 1, ok, b, bye, b -> index 1 is "src", pressed
    assert '<button type="button" class="hs-tok hs-sel" data-i="1" aria-pressed="true">src</button>' in html
    assert html.count("<button") == 10


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


def _dvb_row(catalog: Catalog) -> int:
    table = catalog.table
    rows = table.index[(table["benchmark"] == "detailverifybench") & (table["model"] == "balanced")]
    return int(rows[0])


def test_picking_tokens_and_saving_stores_the_tagged_caption(catalog: Catalog, tmp_path: Path) -> None:
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    row = _dvb_row(catalog)
    item = catalog.table.iloc[row]
    official = str(item["gold"])
    clean = strip_tags(official)
    assert clean.startswith("The image shows a vertical bar chart")
    shown = render(ctx, row, official)  # pre-selected from the official tags (tokens 16 and 43)
    assert shown["visible"] is True
    assert (
        shown["value"].count('aria-pressed="true"') == 2
        and 'data-i="16" aria-pressed="true"' in shown["value"]
    )

    text = picked(ctx, row, "7|0,1,16")  # click counter | indices: The image (one run) + green
    expected = (
        f"{H}The image{E} shows"
        + clean[len("The image shows") : clean.index("green")]
        + f"{H}green{E}"
        + clean[clean.index("green") + len("green") :]
    )
    assert text == expected
    message = save(ctx, row, ALICE, None, text, [], "", "tokens picked")
    assert message.startswith("Saved as alice: gold")
    events = events_frame(ctx.store, "detailverifybench")  # type: ignore[arg-type]
    assert events["new_value"].tolist() == [expected]
    # the panel now fills the text field with the saved caption and the picker follows it
    gold_text = panel(ctx, row, ALICE)[2]["value"]
    assert gold_text == expected
    assert selected_tokens(gold_text) == {0, 1, 16}
    assert render(ctx, row, gold_text)["value"].count('aria-pressed="true"') == 3


def test_the_picker_stays_off_other_benchmarks_and_hand_edited_text(catalog: Catalog, tmp_path: Path) -> None:
    ctx = ReviewContext(catalog, open_store(tmp_path / "labels.db"), ("alice",))
    table = catalog.table
    other = int(table.index[table["benchmark"] != "detailverifybench"][0])
    assert render(ctx, other, "yes")["visible"] is False
    assert render(ctx, None, "")["visible"] is False
    with pytest.raises(NotTagged):
        picked(ctx, other, "0")
    row = _dvb_row(catalog)
    with pytest.raises(NotTagged, match="token"):
        picked(ctx, row, "100000")
    # text whose words differ from the caption: chips shown, nothing pre-selected
    assert 'aria-pressed="true"' not in render(ctx, row, f"{H}something else{E}")["value"]
    # read-only app (no store): no picker
    assert render(ReviewContext(catalog), row, "")["visible"] is False


def test_each_tag_gets_a_type_list_and_a_changed_type_is_named(catalog: Catalog, tmp_path: Path) -> None:
    """Sighted: lists start from the official types; only a type that differs is written into the tag."""
    ctx = ReviewContext(
        catalog, open_store(tmp_path / "labels.db"), ("alice", "bob"), blind=frozenset({"bob"})
    )
    row = _dvb_row(catalog)
    official = str(catalog.table.iloc[row]["gold"])
    shown = render(ctx, row, official, ALICE)["value"]
    lists = re.findall(r'<select class="hs-type" data-run="(\d+)".*?</select>', shown)
    assert lists == ["16", "43"]  # one list a tag, after its last chip
    picked_types = re.findall(r'<option value="([^"]*)" selected>', shown)
    assert picked_types == ["Object Color Hallucination", "OCR Hallucination"]  # the official labels ("130")
    # the same types sent back name nothing: the caption is the official one
    same = picked(ctx, row, '3|16,43|{"16": "Object Color Hallucination", "43": "OCR Hallucination"}', ALICE)
    assert same == official
    # "The image" joined as a new tag, typed; the official tag's type changed
    text = picked(
        ctx, row, '4|0,1,16,43|{"0": "Image Style Hallucination", "16": "Camera Hallucination"}', ALICE
    )
    assert text.startswith(f'{H[:-1]} type="Image Style Hallucination">The image{E} shows')
    assert f'{H[:-1]} type="Camera Hallucination">green{E}' in text
    assert text.count('type="') == 2
    again = render(ctx, row, text, ALICE)["value"]
    assert re.findall(r'<option value="([^"]*)" selected>', again) == [
        "Image Style Hallucination",
        "Camera Hallucination",
        "OCR Hallucination",
    ]
    message = save(ctx, row, ALICE, None, text, [], "", "the title is a style claim")
    assert message.startswith("Saved as alice: gold")
    assert panel(ctx, row, ALICE)[2]["value"] == text


def test_a_blind_reviewers_type_lists_never_show_the_official_labels(
    catalog: Catalog, tmp_path: Path
) -> None:
    ctx = ReviewContext(
        catalog, open_store(tmp_path / "labels.db"), ("alice", "bob"), blind=frozenset({"bob"})
    )
    bob = Identity("bob")
    row = _dvb_row(catalog)
    clean = strip_tags(str(catalog.table.iloc[row]["gold"]))
    tagged = picked(ctx, row, "1|16,43|", bob)  # bob picks the tokens the official gold tags
    assert tagged.count(H) == 2
    shown = render(ctx, row, tagged, bob)["value"]
    assert re.findall(r'<option value="([^"]*)" selected>', shown) == ["Unknown", "Unknown"]
    assert "Object Color" in shown  # offered as a choice, like every type of the benchmark
    # leaving Unknown names nothing; naming one is written as it is
    assert picked(ctx, row, '2|16,43|{"16": "Unknown", "43": "Unknown"}', bob) == tagged
    named = picked(ctx, row, '3|16|{"16": "Object Color Hallucination"}', bob)
    assert (
        named.count('type="Object Color Hallucination"') == 1
        and strip_tags(named.replace(' type="Object Color Hallucination"', "")) == clean
    )


def test_a_malformed_type_from_the_browser_is_dropped() -> None:
    assert parse_selection('9|1,2|{"1": "OCR", "x": "y", "2": 5}') == ([1, 2], {1: "OCR"})
    assert parse_selection("9|1,2|not json") == ([1, 2], {})
    assert parse_selection("1,2") == ([1, 2], {})
