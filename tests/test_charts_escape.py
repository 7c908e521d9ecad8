"""Model names and categories from data files are plain text in charts (plotly renders <b>, <a>)."""

from __future__ import annotations

from analysis.plot.figures import figure, model_bar


def test_trace_text_is_escaped_and_wrapped_labels_keep_their_breaks() -> None:
    trace = model_bar(
        '<a href="https://e.x">m</a>', 0, ["<b>cat</b>", "long<br>label", 3], [1, 2, 3], [None] * 3, "%{x}"
    )
    fig = figure("t", [trace], [""])
    assert fig.data[0].name == '&lt;a href="https://e.x"&gt;m&lt;/a&gt;'
    assert list(fig.data[0].x) == ["&lt;b&gt;cat&lt;/b&gt;", "long<br>label", 3]
    assert trace["name"].startswith("<a")  # the caller's dict is left as it was
