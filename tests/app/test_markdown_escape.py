"""Text from data files and reviewers inside ``gr.Markdown``: no HTML element, no Markdown markup."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from components.browse.render import md_code, md_text


def test_markup_is_escaped_and_plain_words_are_left_alone() -> None:
    assert md_text('<b>x</b><img src=x onerror="a()">') == (
        '&lt;b&gt;x&lt;/b&gt;&lt;img src=x onerror="a()"&gt;'
    )
    assert md_text("[go](https://e.x) **bold** _em_ `code` ~~s~~") == (
        r"\[go\](https\://e.x) \*\*bold\*\* \_em\_ \`code\` \~\~s\~\~"
    )
    assert md_text("cs_acc: 0.5 · sf7026ba_clip_2") == "cs_acc: 0.5 · sf7026ba_clip_2"
    assert md_code("a`b<i>") == r"<code>a\`b&lt;i&gt;</code>"


@example(":://")  # ":\://": the escaped colon must not join the one before it into "://"
@given(st.text(alphabet=st.sampled_from(list("<>&[]()*_`~\\:/ab ")), max_size=20))
def test_no_tag_and_no_unescaped_markup_survives(text: str) -> None:
    out = md_text(text)
    assert "<" not in out and ">" not in out
    unescaped = re.sub(r"\\.", "\0", out)  # every backslash escape made one inert character
    assert not re.search(r"[\[\]`*~]|://", unescaped)
