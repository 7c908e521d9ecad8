"""A label store that fails mid-session is said in one line by every handler, not ``{"error": null}``.

A read while PostgreSQL is down, or of a SQLite file damaged under the running server, raises
:class:`~analysis.errors.StoreError` from :func:`analysis.store.db.read_tx` (a write, from
``write_tx``). Gradio shows an exception that is not a ``gr.Error`` as a bare failure, so
:func:`say_store_errors` wraps every handler of the Blocks, once, after they are all registered.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from html import escape
from typing import Any

import gradio as gr

from analysis.errors import StoreError


def _saying(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)  # Gradio reads the signature (gr.Request, gr.EventData) through __wrapped__
    def handler(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StoreError as exc:
            raise gr.Error(escape(str(exc), quote=False), print_exception=False) from exc

    return handler


def say_store_errors(demo: gr.Blocks) -> None:
    """Wrap every registered handler of ``demo``; call it once, when the Blocks are complete."""
    wrapped: dict[int, Callable[..., Any]] = {}  # a function behind several events: one wrapper
    for block_fn in demo.fns.values():
        fn = block_fn.fn
        if fn is None:
            continue
        if any(test(fn) for test in (inspect.isgeneratorfunction, inspect.iscoroutinefunction)):
            raise TypeError(f"{block_fn.name}: a streaming or async handler needs its own wrapper here")
        block_fn.fn = wrapped.setdefault(id(fn), _saying(fn))
