"""Media outside the server's folder, served without showing where the server keeps them.

Gradio serves a file under ``allowed_paths`` at ``gradio_api/file=<path>``: a path relative to the
server's working folder, or an absolute one. A media root elsewhere (``--media-root
BENCH=/data/media``) could only be named absolutely, so every page showed the server's folders.
Such a file is now named ``gradio_api/file=hs:media/<token>/<file name>``:

- :func:`alias_url` gives the token, a hash of the file's path, and remembers which file it names
  (only files the media resolver found inside a root are ever given one);
- :class:`MediaAlias`, an ASGI middleware put before Gradio (``launch(app_kwargs=...)``), turns
  the request back into Gradio's own file route for that path, so ranges, content types and
  Gradio's check against ``allowed_paths`` are all Gradio's. An unknown token, another file name,
  a file gone since, or any refusal of Gradio's is answered 404 with a message that names no path
  (Gradio's own 403 repeats the path it refused).

No relative name can start like the alias: the alias's first folder has a colon, and a file whose
relative path would start with such a folder is named by token as well
(:func:`components.browse.render.media_url`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from urllib.parse import quote

from starlette.middleware import Middleware

from components.gate import ASGIApp, Message, Receive, Scope, Send

FILE_ROUTE = "gradio_api/file="
"""Gradio's route for files under ``allowed_paths`` (relative, so it works under a proxy prefix)."""
ALIAS = "hs:media/"
"""What follows :data:`FILE_ROUTE` in the URL of a file named by token."""

_lock = threading.Lock()
_paths: dict[str, Path] = {}
"""Token -> file, for every file given an alias URL in this server process."""


def token(path: Path) -> str:
    """The alias token of ``path``: the same for the same path, in every process and run."""
    return hashlib.blake2b(str(path).encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def alias_url(path: Path) -> str:
    """``gradio_api/file=hs:media/<token>/<name>`` for ``path``, remembered for :class:`MediaAlias`."""
    key = token(path)
    with _lock:
        _paths[key] = path
    return FILE_ROUTE + ALIAS + key + "/" + quote(path.name, safe="")


def aliased(key: str) -> Path | None:
    """The file a token names, if :func:`alias_url` gave it in this process."""
    with _lock:
        return _paths.get(key)


class MediaAlias:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand an alias request to Gradio's file route for its file; pass everything else on."""
        path = str(scope.get("path", "")) if scope["type"] == "http" else ""
        marker = path.find("/" + FILE_ROUTE + ALIAS)
        if marker < 0 or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        prefix = path[: marker + 1 + len(FILE_ROUTE)]
        key, _, name = path[len(prefix) + len(ALIAS) :].partition("/")
        found = aliased(key)
        head = scope.get("method") == "HEAD"
        if found is None or found.name != name or not found.is_file():
            await _not_found(send, head)
            return
        real = prefix + str(found)
        inner = dict(scope, path=real, raw_path=quote(real, safe="/=:").encode("latin-1", "replace"))
        await self.app(inner, receive, _hiding_refusals(send, head))


def _hiding_refusals(send: Send, head: bool) -> Send:
    """``send``, except that a refusal (status 400 or more) becomes :func:`_not_found`'s answer."""
    refused = False

    async def watch(message: Message) -> None:
        nonlocal refused
        if message["type"] == "http.response.start" and int(message["status"]) >= 400:
            refused = True
            await _not_found(send, head)
            return
        if not refused:
            await send(message)

    return watch


async def _not_found(send: Send, head: bool) -> None:
    body = json.dumps({"detail": "No such media file."}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def middleware() -> Middleware:
    """:class:`MediaAlias` for ``launch(app_kwargs={"middleware": [...]})``."""
    return Middleware(MediaAlias)
