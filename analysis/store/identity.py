"""Who is writing: an identity the caller has authenticated, never a name taken from a payload.

Every write in the store takes an :class:`Identity`. The app builds it from the session
(``request.username`` under ``launch(auth=...)``, or the Hugging Face OAuth profile on Spaces)
with :func:`identity_from`; a form or API payload can name no reviewer (:func:`check_payload`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_NAME = 128


class NotAuthenticated(PermissionError):
    """A write was attempted without a signed-in reviewer."""


class IdentityMismatch(PermissionError):
    """A payload tried to speak for another reviewer than the one signed in."""


@dataclass(frozen=True)
class Identity:
    """A signed-in reviewer (or adjudicator): the only thing a write accepts as its author."""

    name: str

    def __post_init__(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name.strip():
            raise NotAuthenticated("writing labels needs a signed-in reviewer")
        if len(name) > MAX_NAME or any(not c.isprintable() for c in name):
            raise NotAuthenticated(f"reviewer name is not acceptable: {name[:40]!r}")
        object.__setattr__(self, "name", name.strip())

    def __str__(self) -> str:
        return self.name


def identity_from(username: str | None = None, profile: Any = None) -> Identity:
    """The identity of the caller: a Gradio ``request.username`` or an OAuth profile's ``username``.

    Raises :class:`NotAuthenticated` when neither names anyone (a login button alone restricts
    nothing: the write must be refused).
    """
    name = username
    if not name and profile is not None:
        name = getattr(profile, "username", None) or getattr(profile, "preferred_username", None)
    if not name:
        raise NotAuthenticated("writing labels needs a signed-in reviewer")
    return Identity(str(name))


def as_identity(reviewer: object) -> Identity:
    """Refuse anything but an :class:`Identity` as the author of a write (a bare string is not one)."""
    if isinstance(reviewer, Identity):
        return reviewer
    if reviewer is None or reviewer == "":
        raise NotAuthenticated("writing labels needs a signed-in reviewer")
    raise TypeError(f"the reviewer must be an Identity from identity_from(), not {type(reviewer).__name__}")


def check_payload(payload: Mapping[str, Any], identity: Identity) -> None:
    """Refuse a payload that names a reviewer other than the signed-in one.

    The author of an event is always ``identity``; a ``reviewer`` (or ``author``/``user``) key in
    the payload is never read, and one that disagrees is treated as an attempt to write as
    someone else.
    """
    for key in ("reviewer", "author", "user", "username"):
        claimed = payload.get(key)
        if claimed not in (None, "") and str(claimed).strip() != identity.name:
            raise IdentityMismatch(
                f"signed in as {identity.name!r}, the payload claims to be {str(claimed)[:40]!r}"
            )
