"""What the server refuses before Gradio sees it: every upload, and sign-in guessing.

Gradio 6.31 accepts ``POST /gradio_api/upload`` from anyone when the app has no ``auth`` (the
read-only demo) and keeps what it gets in its cache, serving it back by URL; with ``auth`` it only
asks for a session. Its ``/login`` answers as fast as it can compare a password: 200 wrong
passwords took 0.7 s. :class:`Gate` is an ASGI middleware, handed to the FastAPI app through
``launch(app_kwargs={"middleware": ...})`` (see :func:`launch_kwargs`), that

- refuses every upload (403), signed in or not: the app has no component that takes a file, so an
  upload can only be abuse (200 files, or 3 x 9.9 MB in one request, were taken from a signed-in
  reviewer while uploads were only capped per file); ``max_file_size`` stays as a second bound;
- counts failed sign-ins per username and per client address (:class:`SignInThrottle`) and,
  past a few free ones, refuses further attempts (429, ``Retry-After``) until a delay that doubles
  with each failure has passed, without checking the password; a right password after the delay
  signs in as usual and clears the username's count. The form is read as the app reads it
  (URL-encoded or multipart, as Gradio's login page sends it), and one that names a field twice is
  refused (400): it would be counted against one name and checked against the other. The client
  address is the connection's peer: forwarded headers count only from the proxies the operator
  names (``HALLUSCOPE_TRUSTED_PROXIES``, which :func:`launch_kwargs` hands to uvicorn).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from starlette.middleware import Middleware

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_UPLOAD = "10mb"
"""``max_file_size``: a second bound behind the gate, which refuses every upload before Gradio reads it."""
MAX_LOGIN_BODY = 64 * 1024
"""A sign-in form longer than this is refused outright (a username and a password fit easily)."""


@dataclass
class SignInThrottle:
    """Failed sign-ins per key; past ``free`` failures a key waits ``base_s * 2**k`` (at most ``cap_s``)."""

    free: int = 5
    base_s: float = 1.0
    cap_s: float = 300.0
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, tuple[int, float]] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def wait_s(self, *keys: str) -> float:
        """Seconds before any of ``keys`` may try again (0 when all may)."""
        now = self.clock()
        with self._lock:
            return float(max([0.0, *(self._until(k) - now for k in keys)]))

    def failed(self, *keys: str) -> None:
        """Count a failed sign-in against every key."""
        now = self.clock()
        with self._lock:
            for key in keys:
                count, _ = self._failures.get(key, (0, now))
                self._failures[key] = (count + 1, now)

    def succeeded(self, *keys: str) -> None:
        """Forget the failures of ``keys`` (the username that just signed in)."""
        with self._lock:
            for key in keys:
                self._failures.pop(key, None)

    def _until(self, key: str) -> float:
        count, last = self._failures.get(key, (0, 0.0))
        if count < self.free:
            return 0.0
        return last + min(self.base_s * 2.0 ** (count - self.free), self.cap_s)


class Gate:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp, throttle: SignInThrottle | None = None) -> None:
        self.app = app
        self.throttle = throttle or SignInThrottle()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused upload or a throttled sign-in here; pass everything else on."""
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", "")).rstrip("/")
        if path.endswith("/upload"):  # /gradio_api/upload, and any older mount of the route
            await _reply(send, 403, "This app takes no uploads.")
            return
        if path.endswith("/login"):
            await self._login(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _read_body(receive, MAX_LOGIN_BODY)
        if body is None:
            await _reply(send, 413, "Sign-in form too large.")
            return
        fields = await _form_fields(scope, body)
        if fields is None:
            await _reply(send, 400, "The sign-in form could not be read.")
            return
        names = [name for name, _ in fields]
        if len(names) != len(set(names)):  # counted against one name, checked against another
            await _reply(send, 400, "The sign-in form repeats a field.")
            return
        user = dict(fields).get("username", "").strip().lower()
        client = scope.get("client") or ("?", 0)  # the peer: uvicorn trusts only the operator's proxies
        keys = (f"user:{user}", f"client:{client[0]}")
        wait = self.throttle.wait_s(*keys)
        if wait > 0:
            seconds = math.ceil(wait)
            await _reply(
                send,
                429,
                f"Too many failed sign-ins: try again in {seconds} s.",
                headers=[(b"retry-after", str(seconds).encode())],
            )
            return
        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        await self.app(scope, _replay(body, receive), watch)
        if status and status[0] == 200:
            self.throttle.succeeded(keys[0])
        elif status and status[0] in (400, 401):
            self.throttle.failed(*keys)


async def _form_fields(scope: Scope, body: bytes) -> list[tuple[str, str]] | None:
    """The sign-in form's fields as the app will read them; None when unreadable or holding a file.

    URL-encoded or multipart, as the browser's login page sends it.
    """
    from starlette.requests import Request

    request = Request(scope, _replay(body, _no_more))
    try:
        form = await request.form(max_files=0, max_fields=16)
    except Exception:  # a malformed form: refused, never passed on
        return None
    try:
        items = form.multi_items()
        if any(not isinstance(value, str) for _, value in items):
            return None
        return [(name, str(value)) for name, value in items]
    finally:
        await form.close()


async def _no_more() -> Message:
    return {"type": "http.disconnect"}


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, then: Receive) -> Receive:
    """The body already read, then the client's own messages (a disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _reply(
    send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


TRUSTED_PROXIES_ENV = "HALLUSCOPE_TRUSTED_PROXIES"
"""``10.0.0.5,10.0.0.6``: the reverse proxies whose ``X-Forwarded-For`` names the client (none by
default: behind a proxy not named here, every client is the proxy's address)."""


def launch_kwargs(throttle: SignInThrottle | None = None) -> dict[str, Any]:
    """What ``launch`` needs for the gate: the middleware and the second bound on uploads.

    Also sets ``FORWARDED_ALLOW_IPS``, which uvicorn reads when Gradio starts it, to the operator's
    trusted proxies: uvicorn's default trusts a forwarded address from any local client.
    """
    os.environ["FORWARDED_ALLOW_IPS"] = os.environ.get(TRUSTED_PROXIES_ENV, "")
    return {
        "app_kwargs": {"middleware": [Middleware(Gate, throttle=throttle or SignInThrottle())]},
        "max_file_size": MAX_UPLOAD,
    }
