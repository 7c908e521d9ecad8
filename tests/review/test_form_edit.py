"""What a save writes, told from the form as it was opened (``analysis.review.form.edit``)."""

from __future__ import annotations

import pytest

from analysis.review.form import FIELDS, Form, edit


def _same(field: str, a: str | None, b: str | None) -> bool:
    if field == "gold":  # a gold may be spelled two ways
        return (a or "").lower() == (b or "").lower()
    return (a or "") == (b or "")


def _form(gold: str | None = "no", flags: tuple[str, ...] = (), note: str = "") -> Form:
    return Form(gold, flags, note, settled=False)


def test_only_the_fields_the_reviewer_changed_are_written() -> None:
    base = _form()
    assert edit(base, base, _form(), _same).writes == ()  # nothing touched
    assert edit(base, base, _form("Yes", ("ambiguous",), "n"), _same).writes == ("gold", "flag", "note")
    assert edit(base, base, _form("NO"), _same).writes == ()  # the same gold, spelled otherwise
    assert edit(base, base, _form(None), _same).writes == ()  # no gold given: none written


def test_someone_elses_change_is_neither_undone_nor_overwritten_unseen() -> None:
    base, now = _form(), _form("yes", ("ambiguous",), "theirs")
    stale = edit(base, now, _form(note=""), _same)  # the reviewer touched nothing
    assert stale.writes == () and stale.conflicts == ()
    mine = edit(base, now, _form("no", (), "mine"), _same)  # left gold and flags, typed a note
    assert mine.writes == () and mine.conflicts == ("note",)
    agree = edit(base, now, _form("yes"), _same)  # set what the other already set
    assert agree.writes == () and agree.conflicts == ()
    apart = edit(base, _form(note="theirs"), _form("yes"), _same)  # their note, my gold: both kept
    assert apart.writes == ("gold",) and apart.conflicts == ()


def test_a_form_gives_each_field_as_stored_text_and_refuses_an_unknown_one() -> None:
    form = _form("yes", ("ambiguous", "media"), "a note")
    assert [form.value(f) for f in FIELDS] == ["yes", "ambiguous,media", "a note"]
    with pytest.raises(ValueError, match="no field 'reason'"):
        form.value("reason")
