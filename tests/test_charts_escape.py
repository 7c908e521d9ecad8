"""Model names and categories from data files are plain text in charts (plotly renders <b>, <a>)."""

from __future__ import annotations

import pytest

from analysis.plot.figures import crowded_width, figure, model_bar, wrap


def test_trace_text_is_escaped_and_wrapped_labels_keep_their_breaks() -> None:
    trace = model_bar(
        '<a href="https://e.x">m</a>', 0, ["<b>cat</b>", "long<br>label", 3], [1, 2, 3], [None] * 3, "%{x}"
    )
    fig = figure("t", [trace], [""])
    assert fig.data[0].name == '&lt;a href="https://e.x"&gt;m&lt;/a&gt;'
    assert list(fig.data[0].x) == ["&lt;b&gt;cat&lt;/b&gt;", "long<br>label", 3]
    assert trace["name"].startswith("<a")  # the caller's dict is left as it was


@pytest.mark.parametrize(
    ("label", "width", "lines"),
    [
        # words stay whole; a line holds as many as fit
        ("overrely_audio_ignore_visual", 14, ["overrely audio", "ignore visual"]),
        # a hyphenated word longer than the line breaks after its hyphens (on one line, CMM's
        # "visual-audio-language" overlapped its neighbours in the yes-bias chart at 1280 px)
        ("visual-audio-language", 7, ["visual-", "audio-", "language"]),
        ("visual-audio-language", 14, ["visual-audio-", "language"]),
        # one that fits is left whole, and so are hyphens that separate nothing
        ("audio-language", 14, ["audio-language"]),
        ("-x-", 2, ["-x-"]),
    ],
)
def test_wrap_breaks_between_words_and_after_hyphens(label: str, width: int, lines: list[str]) -> None:
    assert wrap(label, width).split("<br>") == lines


def test_a_crowded_panel_gets_narrower_labels() -> None:
    assert crowded_width(2) == 14 and crowded_width(6, room=42) == 7 and crowded_width(40) == 7
