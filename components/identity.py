"""Who is using the app: password users (``launch(auth=...)``) or Hugging Face sign-in on a Space.

The identity of a write comes only from the session: ``request.username`` or the OAuth profile
Gradio injects, never from a form value or an API argument. Without either, the app is a
read-only demo and every write handler refuses (see :mod:`components.review.panel`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from analysis.review.access import Roles, may_review
from analysis.store import Identity, NotAuthenticated, identity_from

AUTH_ENV = "HALLUSCOPE_AUTH"
"""``alice:pw1,bob:pw2``: password users for ``python app.py`` (none set: read-only demo)."""


ADJUDICATORS_ENV = "HALLUSCOPE_ADJUDICATORS"
"""``carol,dave``: who may adjudicate (password users or, on a Space, Hugging Face usernames)."""
BLIND_ENV = "HALLUSCOPE_BLIND"
"""``bob``: reviewers who review blind (set as a Space secret or variable on Spaces)."""
REVIEWERS_ENV = "HALLUSCOPE_SPACE_REVIEWERS"
"""``alice,bob``: the Hugging Face accounts that review on a Space (anyone else signs in read-only)."""
ORGS_ENV = "HALLUSCOPE_SPACE_ORGS"
"""``my-lab``: Hugging Face organisations whose members review on a Space."""


def _names(*entries: str) -> frozenset[str]:
    return frozenset(n.strip() for e in entries for n in e.split(",") if n.strip())


def roles_from(
    env: Mapping[str, str] | None = None, *, adjudicators: Sequence[str] = (), blind: Sequence[str] = ()
) -> Roles:
    """Roles from ``$HALLUSCOPE_ADJUDICATORS`` / ``$HALLUSCOPE_BLIND`` and the serve options."""
    env = os.environ if env is None else env
    return Roles(
        _names(env.get(ADJUDICATORS_ENV, ""), *adjudicators),
        _names(env.get(BLIND_ENV, ""), *blind),
        _names(env.get(REVIEWERS_ENV, "")),
        _names(env.get(ORGS_ENV, "")),
    )


class AuthError(ValueError):
    """A malformed ``user:password`` entry."""


def parse_auth(entries: Sequence[str]) -> list[tuple[str, str]]:
    """``user:password`` strings (each may hold several, comma-separated) as (user, password) pairs."""
    pairs: list[tuple[str, str]] = []
    for entry in entries:
        for part in entry.split(","):
            part = part.strip()
            if not part:
                continue
            user, sep, password = part.partition(":")
            if not sep or not user.strip() or not password:
                raise AuthError(f"auth entries are user:password, got {part.split(':')[0]!r}:...")
            pairs.append((user.strip(), password))
    return pairs


def auth_from(
    env: Mapping[str, str] | None = None, extra: Sequence[str] = (), auth_file: Path | None = None
) -> list[tuple[str, str]]:
    """Users from ``$HALLUSCOPE_AUTH``, ``--auth`` options and an ``--auth-file`` (one per line)."""
    env = os.environ if env is None else env
    entries = [env.get(AUTH_ENV, ""), *extra]
    if auth_file is not None:
        entries += [
            line
            for line in auth_file.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
    return parse_auth(entries)


def on_spaces(env: Mapping[str, str] | None = None) -> bool:
    """Running on a Hugging Face Space (where sign-in goes through OAuth)."""
    return bool((os.environ if env is None else env).get("SPACE_ID"))


def identity_of(request: gr.Request | None, profile: Any = None) -> Identity | None:
    """The signed-in reviewer of a request, or None (a read-only visitor).

    A Hugging Face sign-in is open to any account: it reviews only when the operator lists it or
    one of its organisations (:func:`analysis.review.access.may_review`, the lists in
    ``$HALLUSCOPE_SPACE_REVIEWERS`` and ``$HALLUSCOPE_SPACE_ORGS``); any other account is a visitor.
    """
    username = getattr(request, "username", None) if request is not None else None
    try:
        who = identity_from(username, profile)
    except NotAuthenticated:
        return None
    if username:  # a password user (--auth): made by the operator
        return who
    return who if may_review(roles_from(), who.name, _orgs(profile), listed_only=True) else None


def _orgs(profile: Any) -> frozenset[str]:
    """The organisations a Hugging Face profile names (``orgs``: names, or objects with a name)."""
    found = getattr(profile, "orgs", None)
    if found is None and isinstance(profile, dict):
        found = profile.get("orgs")
    names = set()
    for org in found or ():
        if isinstance(org, str):
            names.add(org)
        elif isinstance(org, dict):
            name = org.get("preferred_username") or org.get("name")
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)
