"""Per browser session, how many times a handler has set the inspected item.

Browsing handlers run side by side (``concurrency_limit=None``). A filter change clears an item
that no longer belongs to the view (:func:`components.browse.navigate.clear_stale`), judging the
item the change was triggered with; a jump to an item that lands while that judgement runs would
then be cleared by its answer. Each handler that sets the item counts it here, and the clearing
handler stands down when the count moved while it ran: the newer item stays.

Answers reach a session's page in the order they are finished, so the two orders are both right:
a clearing answer finished before the jump's is overwritten by it, and one finished after sees the
jump's count.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, TypeVar

import gradio as gr

T = TypeVar("T")

KEEP = 10_000
"""Sessions remembered (the least recently used are forgotten; a forgotten session counts from 0)."""


class SessionCounts:
    """A count per browser session, safe across handler threads (the oldest sessions forgotten)."""

    def __init__(self, keep: int = KEEP) -> None:
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def count(self, request: gr.Request | None) -> int:
        """The count of ``request``'s session so far."""
        key = _session(request)
        with self._lock:
            return self._counts.get(key, 0)

    def bump(self, request: gr.Request | None) -> None:
        """Add one to ``request``'s session's count."""
        self.take(request)

    def take(self, request: gr.Request | None) -> int:
        """Add one to ``request``'s session's count and return it (a ticket: the newest is the highest)."""
        key = _session(request)
        with self._lock:
            value = self._counts.pop(key, 0) + 1
            self._counts[key] = value
            while len(self._counts) > self._keep:
                self._counts.popitem(last=False)
            return value

    def is_latest(self, request: gr.Request | None, ticket: int) -> bool:
        """Whether ``ticket`` (from :meth:`take`) is still the newest of ``request``'s session."""
        return self.count(request) == ticket


class ItemChanges(SessionCounts):
    """A count per session of the inspected item being set (see the module docstring)."""

    def counted(self, request: gr.Request | None, answer: T) -> T:
        """``answer``, a handler's outputs that set the item, once counted for ``request``'s session."""
        self.bump(request)
        return answer


def _session(request: gr.Request | None) -> str:
    return str(getattr(request, "session_hash", None) or "")


def item_moved(current: gr.State, moved: gr.State) -> tuple[Any, Any]:
    """The events that say the open item changed: ``current``'s change, and ``moved``'s.

    Opening an item from the table and stepping answer outside the queue (``app._wire``); such
    an answer fires no change event of a ``gr.State`` (Gradio 6 sends the states an answer
    changed with queued answers only), so a queued step after it bumps ``moved`` instead.
    Whatever follows the open item registers on both.
    """
    return current.change, moved.change
