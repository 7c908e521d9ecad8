"""Content of a hidden tab waits until the tab is opened.

A benchmark switch used to recompute and send every tab's content at once: the overview's boards,
chart and three-gold table, the suspects line and the data problems, while the reviewer looked at
the Items tab. Those answers competed with the one she waited for (``bench/clicks.py`` on 2 cores:
a switch took 1.1-1.5 s at the browser, 0.75 s without them).

So the server remembers, per browser session, which tab the reviewer last opened (the tabs'
``select`` event). A handler filling a hidden tab sends nothing for it and marks it stale; opening
the tab brings it up to date. The Overview, the Data problems, the Review tab's queue and *Where
it fails* follow the benchmark this way (:meth:`ShownTabs.follow`). The app only ever switches
tabs by itself to the Items tab, so a tab this memory thinks hidden is never on screen; the
reverse (the app moved to Items while the memory still names another tab) only costs the old,
eager answer. A session that has opened no tab yet (the first page, the API) gets every tab's
content, as before.

The opening and the switch are two events, and the server may handle them in either order. Every
order ends right: a switch handled before the opening it followed fills the tab just left (the
new benchmark, work wasted); an opening handled before the switch it followed is taken as shown
by the switch, which then fills it.

A tab can also be *never filled at load* (``follow(..., filled=False)``): the *Where it fails*
tab, whose slice search and bootstrap are too slow to run for a page nobody looks at. Such a tab
counts as shown only once the session has opened it, and its first opening fills it.

The Charts tab stays outside this memory: its plots still come with every page. Sent empty while
hidden, Gradio 6 left the loading marks of that answer's other outputs on screen (the answer came
back too fast for its status bookkeeping; a 100 ms pause made them go).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import gradio as gr

Compute = Callable[..., tuple[Any, ...]]
"""``compute(request, profile, benchmark, *inputs)``: the tab's outputs."""


class ShownTabs:
    """Per session, the tab last opened and the tabs whose content is stale."""

    def __init__(self) -> None:
        self._open: dict[str, str] = {}
        self._stale: set[tuple[str, str]] = set()
        self._filled: set[tuple[str, str]] = set()
        """(session, tab) of the tabs not filled at load that have been filled since."""
        self._lock = threading.Lock()

    @classmethod
    def wired(cls, demo: gr.Blocks, tabs: gr.Tabs) -> ShownTabs:
        """A memory fed by ``tabs``' ``select`` event (its value is the opened tab's label)."""
        memory = cls()

        def note(evt: gr.SelectData, request: gr.Request) -> None:
            memory.opened(request, str(evt.value))

        def forget(request: gr.Request) -> None:
            memory.forget(request)

        tabs.select(note, None, None, api_visibility="private", concurrency_limit=None)
        demo.unload(forget)
        return memory

    def opened(self, request: gr.Request, label: str) -> None:
        """``request``'s session now shows the tab ``label``."""
        with self._lock:
            self._open[_session(request)] = label

    def shows(self, request: gr.Request, label: str, *, filled: bool = True) -> bool:
        """Whether ``label`` is on screen (a session that opened no tab yet: every tab filled at load)."""
        with self._lock:
            opened = self._open.get(_session(request))
        return opened == label or (filled and opened is None)

    def skipped(self, request: gr.Request, label: str) -> None:
        """A handler left ``label``'s content behind: opening the tab will catch up."""
        with self._lock:
            self._stale.add((_session(request), label))

    def catch_up(self, request: gr.Request, label: str) -> bool:
        """The tab was opened: whether its content is stale (and now taken as brought up to date).

        Which tab is open is noted by the tabs' own ``select`` event alone: this handler may run
        after the reviewer has moved on (it computes the tab's content, slow under load), and
        noting its tab then took the tab just left for the open one (a switch then filled it).
        """
        key = (_session(request), label)
        with self._lock:
            stale = key in self._stale
            self._stale.discard(key)
        return stale

    def forget(self, request: gr.Request) -> None:
        """The page was closed (``demo.unload``)."""
        session = _session(request)
        with self._lock:
            self._open.pop(session, None)
            self._stale = {k for k in self._stale if k[0] != session}
            self._filled = {k for k in self._filled if k[0] != session}

    def on_change(self, request: gr.Request, label: str, *, filled: bool = True) -> bool:
        """The benchmark changed: whether to compute ``label``'s content now (else it is left stale).

        ``filled``: the tab was filled at load. One that was not counts as shown only once the
        session has opened it (a session that opened no tab would otherwise compute it).
        """
        shown = self.shows(request, label, filled=filled)
        if not shown:
            self.skipped(request, label)
        elif not filled:
            with self._lock:
                self._filled.add((_session(request), label))
        return shown

    def on_open(self, request: gr.Request, label: str, *, filled: bool = True) -> bool:
        """The tab was opened: whether to compute its content (a change missed, or its first fill)."""
        key = (_session(request), label)
        stale = self.catch_up(request, label)
        with self._lock:
            first = not filled and key not in self._filled
            self._filled.add(key)
        return stale or first

    def follow(
        self,
        tab: gr.Tab,
        label: str,
        benchmark: gr.Dropdown,
        compute: Compute,
        outputs: list[Any],
        stale_on: list[Any] | None = None,
        inputs: list[Any] | None = None,
        filled: bool = True,
        every_opening: bool = False,
    ) -> None:
        """Fill the tab ``label``'s ``outputs`` with ``compute(request, profile, benchmark, *inputs)``.

        On a benchmark change while the tab is shown, and on opening the tab after a change it
        missed. A change of any of ``stale_on`` (a save) marks it stale as well. ``filled=False``:
        the tab is not filled at load; its first opening fills it (:meth:`on_change`).
        ``every_opening``: a tab cheap to fill that shows what other sessions change (another
        reviewer's save) is filled again on every opening.
        """
        free: dict[str, Any] = {"concurrency_limit": None, "api_visibility": "private"}
        skip_all = tuple(gr.skip() for _ in outputs)

        def followed(
            request: gr.Request, profile: gr.OAuthProfile | None, bench: str | None, *more: Any
        ) -> tuple[Any, ...]:
            if not self.on_change(request, label, filled=filled):
                return skip_all
            return compute(request, profile, bench, *more)

        def opened(
            request: gr.Request, profile: gr.OAuthProfile | None, bench: str | None, *more: Any
        ) -> tuple[Any, ...]:
            if not self.on_open(request, label, filled=filled) and not every_opening:
                return skip_all
            return compute(request, profile, bench, *more)

        def moved(request: gr.Request) -> None:
            self.skipped(request, label)

        ins = [benchmark, *(inputs or [])]
        benchmark.change(followed, ins, outputs, **free)
        tab.select(opened, ins, outputs, **free)
        for trigger in stale_on or []:
            trigger.change(moved, None, None, **free)


def _session(request: gr.Request) -> str:
    return str(getattr(request, "session_hash", None) or "")
