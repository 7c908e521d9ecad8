"""Which tab a session shows, as the handlers behind hidden tabs ask it (components/shown_tabs.py)."""

from __future__ import annotations

import gradio as gr

from components.shown_tabs import ShownTabs


def _session(name: str) -> gr.Request:
    return gr.Request(session_hash=name)


def test_a_session_that_opened_no_tab_gets_every_tab() -> None:
    memory = ShownTabs()
    assert memory.shows(_session("a"), "Overview") and memory.shows(_session("a"), "Data problems")


def test_a_hidden_tab_is_left_behind_and_caught_up_once_on_opening() -> None:
    memory, alice, bob = ShownTabs(), _session("alice"), _session("bob")
    memory.opened(alice, "Items")
    assert not memory.shows(alice, "Overview")
    assert memory.shows(bob, "Overview")  # another session: its own tabs
    memory.skipped(alice, "Overview")
    memory.opened(alice, "Overview")  # the tabs' select event notes the opening
    assert memory.catch_up(alice, "Overview")  # a change was missed: compute
    assert memory.shows(alice, "Overview")  # and it is now on screen
    assert not memory.catch_up(alice, "Overview")  # nothing missed since: send nothing
    assert not memory.catch_up(bob, "Overview")


def test_a_closed_page_is_forgotten() -> None:
    memory, alice = ShownTabs(), _session("alice")
    memory.opened(alice, "Items")
    memory.skipped(alice, "Data problems")
    memory.forget(alice)
    assert memory.shows(alice, "Overview")
    assert not memory.catch_up(alice, "Data problems")


def test_a_tab_not_filled_at_load_is_filled_on_its_first_opening_only() -> None:
    """Where it fails: never computed for a session that has not opened it, even one that opened no tab."""
    memory, alice, bob = ShownTabs(), _session("alice"), _session("bob")
    label = "Where it fails"
    assert not memory.on_change(bob, label, filled=False)  # bob opened no tab: not on his screen
    assert memory.on_change(bob, "Overview")  # a tab filled at load still follows for him
    memory.opened(alice, "Items")
    assert not memory.on_change(alice, label, filled=False)
    memory.opened(alice, label)
    assert memory.on_open(alice, label, filled=False)  # first opening: filled
    assert memory.on_change(alice, label, filled=False)  # shown: follows the benchmark
    memory.opened(alice, "Items")
    assert not memory.on_open(alice, "Items")
    memory.opened(alice, label)
    assert memory.on_open(alice, label, filled=False) is False  # nothing missed since: nothing sent
    memory.opened(alice, "Items")
    assert not memory.on_change(alice, label, filled=False)  # hidden: left stale
    assert memory.on_open(alice, label, filled=False)  # caught up on opening
    memory.forget(alice)
    memory.opened(alice, "Items")
    assert memory.on_open(alice, label, filled=False)  # a new page: filled again on first opening


def test_a_tab_filled_at_load_is_not_recomputed_on_first_opening() -> None:
    memory, alice = ShownTabs(), _session("alice")
    memory.opened(alice, "Items")
    assert not memory.on_open(alice, "Overview")


def test_an_opening_handled_late_does_not_take_the_tab_left_for_the_open_one() -> None:
    """A browser run on a loaded machine: Data problems opened, then Items; the Data problems
    opening's handler (it computes the tab) ran after Items was noted and noted Data problems
    again, so the next benchmark switch filled the hidden Data problems tab."""
    memory, alice = ShownTabs(), _session("alice")
    memory.opened(alice, "Data problems")
    memory.opened(alice, "Items")
    memory.on_open(alice, "Data problems")  # the late handler of the first opening
    assert memory.shows(alice, "Items") and not memory.shows(alice, "Data problems")
    assert not memory.on_change(alice, "Data problems")  # hidden: left stale, not computed
