"""A running Gradio app driven over plain HTTP, the way its page drives it (no browser).

``launched(demo)`` serves a Blocks on a free loopback port; :func:`click` runs the event a button
(by ``elem_id``) triggers through ``/gradio_api/queue/join`` and reads the result from the queue's
event stream, as the page does; so private events (``api_visibility="private"``) can be tried.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from app_data import release_gradio_loops


def free_port() -> int:
    """A TCP port nobody listens on (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def launched(demo: Any, **launch: Any) -> Iterator[str]:
    """``demo.launch(prevent_thread_lock=True)`` on a free loopback port; yields the URL."""
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # Gradio's unclosed loops: see app_data
        _, url, _ = demo.launch(
            prevent_thread_lock=True, server_name="127.0.0.1", server_port=free_port(), quiet=True, **launch
        )
    try:
        yield url.rstrip("/")
    finally:
        demo.close()
        release_gradio_loops()


def click(
    client: httpx.Client,
    url: str,
    elem_id: str,
    data: list[Any] | None = None,
    *,
    trigger: str = "click",
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Run the first event ``elem_id``'s ``trigger`` starts; returns the queue's completion message."""
    config = client.get(f"{url}/config").json()
    ids = [c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id]
    assert ids, f"no component with elem_id {elem_id!r}"
    fn = next(
        i
        for i, d in enumerate(config["dependencies"])
        if any(t[0] == ids[0] and t[1] == trigger for t in d["targets"])
    )
    session = uuid.uuid4().hex
    joined = client.post(
        f"{url}/gradio_api/queue/join",
        json={
            "data": data or [],
            "fn_index": fn,
            "trigger_id": ids[0],
            "session_hash": session,
            "event_data": None,
        },
    )
    joined.raise_for_status()
    with client.stream(
        "GET", f"{url}/gradio_api/queue/data", params={"session_hash": session}, timeout=timeout
    ) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") == "process_completed":
                return dict(message)
    raise AssertionError(f"{elem_id}: the queue closed without a result")
