"""Uploads and sign-in against the real app server (``components.gate``), over plain HTTP.

Issue 8's findings: a 200 MB upload to ``/gradio_api/upload`` was accepted from anonymous visitors
and served back to anyone; 200 wrong passwords took 0.7 s with no slowdown.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from app_data import GRADIO_LOOP_WARNINGS
from http_app import launched

from components.gate import MAX_UPLOAD, SignInThrottle

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]
USERS = [("alice", "right-pw"), ("bob", "bob-pw")]
MB = 1024 * 1024


@pytest.fixture(scope="module")
def catalog() -> Any:
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@contextmanager
def serving(catalog: Any, throttle: SignInThrottle | None = None, **launch: Any) -> Iterator[str]:
    """The real app (``app.build_app`` + ``app.launch_kwargs``), optionally with a test throttle."""
    import app
    from components import gate

    kwargs = {**app.launch_kwargs(catalog), **(gate.launch_kwargs(throttle) if throttle else {}), **launch}
    with launched(app.build_app(catalog), **kwargs) as url:
        yield url


def _upload(client: httpx.Client, url: str, size: int) -> httpx.Response:
    return client.post(f"{url}/gradio_api/upload", files={"files": ("x.bin", b"\0" * size)})


def _sign_in(client: httpx.Client, url: str, user: str, password: str) -> httpx.Response:
    return client.post(f"{url}/login", data={"username": user, "password": password})


def test_the_read_only_demo_refuses_every_upload(catalog: Any) -> None:
    with serving(catalog) as url, httpx.Client(timeout=60) as client:
        reply = _upload(client, url, 2 * MB)
        assert reply.status_code == 403, reply.text
        assert "no uploads" in reply.json()["detail"]
        assert client.get(f"{url}/config").status_code == 200  # the demo itself still answers


def test_a_signed_in_reviewer_cannot_upload_either(catalog: Any) -> None:
    # Issue 19, finding 12: uploads were capped per file only, so a signed-in reviewer could send
    # 200 small files, or 3 x 9.9 MB, in one request; the app has no component that takes a file.
    assert MAX_UPLOAD == "10mb"  # the second bound, behind the gate
    many = [("files", (f"x{n}.bin", b"\0" * 16)) for n in range(200)]
    with serving(catalog, auth=USERS) as url, httpx.Client(timeout=60) as client:
        assert _upload(client, url, 1024).status_code == 403  # not signed in
        assert _sign_in(client, url, *USERS[0]).status_code == 200
        assert client.get(f"{url}/config").status_code == 200  # signed in: the app answers
        for reply in (
            _upload(client, url, 1024),
            client.post(f"{url}/gradio_api/upload", files=many),
            client.post(f"{url}/gradio_api/upload/", files=many),
            client.post(f"{url}/upload", files=many),
        ):
            assert reply.status_code == 403, reply.text
            assert "no uploads" in reply.json()["detail"]


def test_two_hundred_wrong_passwords_are_mostly_refused_unchecked(catalog: Any) -> None:
    throttle = SignInThrottle()  # the app's default: 5 free failures, then 1 s, 2 s, 4 s ...
    with serving(catalog, throttle, auth=USERS) as url, httpx.Client(timeout=60) as client:
        codes = [_sign_in(client, url, "alice", f"guess-{n}").status_code for n in range(200)]
    assert codes[:5] == [400] * 5
    checked = codes.count(400)
    assert checked <= 7, f"{checked} of 200 passwords were checked"  # 5 free, one more per passed delay
    assert codes.count(429) == 200 - checked


def test_a_right_password_signs_in_once_the_delay_has_passed(catalog: Any) -> None:
    throttle = SignInThrottle(free=3, base_s=0.5, cap_s=2.0)
    with serving(catalog, throttle, auth=USERS) as url, httpx.Client(timeout=60) as client:
        for n in range(3):
            assert _sign_in(client, url, "alice", f"guess-{n}").status_code == 400
        locked = _sign_in(client, url, "alice", "right-pw")  # right, but during the delay: not checked
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
        assert "try again" in locked.json()["detail"]
        # the delay is per client too: another username from this client waits as well
        assert _sign_in(client, url, "bob", "bob-pw").status_code == 429
        # and per username: alice from another address (127.0.0.2 is loopback too) waits as well,
        # while bob from there signs in
        other = httpx.Client(timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        with other:
            assert _sign_in(other, url, "alice", "right-pw").status_code == 429
            assert _sign_in(other, url, "bob", "bob-pw").status_code == 200
        time.sleep(throttle.wait_s("user:alice", "client:127.0.0.1") + 0.05)
        assert _sign_in(client, url, "alice", "right-pw").status_code == 200
        assert client.get(f"{url}/config").status_code == 200  # signed in
        assert throttle.wait_s("user:alice") == 0  # a success clears the username's count


def test_the_throttle_doubles_the_delay_and_caps_it() -> None:
    now = [100.0]
    throttle = SignInThrottle(free=2, base_s=1.0, cap_s=5.0, clock=lambda: now[0])
    throttle.failed("k")
    assert throttle.wait_s("k") == 0
    delays = []
    for _ in range(5):
        throttle.failed("k")
        delays.append(throttle.wait_s("k"))
    assert delays == [1.0, 2.0, 4.0, 5.0, 5.0]
    now[0] += 5.0
    assert throttle.wait_s("k") == 0


def test_a_form_naming_a_field_twice_is_refused_and_multipart_forms_are_counted(catalog: Any) -> None:
    """Issue 19, finding 6: ``username=junk&username=bob`` was counted against ``junk`` and checked
    against ``bob``; the browser's own login page sends multipart forms, which were counted against
    no username at all."""
    throttle = SignInThrottle(free=3, base_s=60.0)
    with serving(catalog, throttle, auth=USERS) as url, httpx.Client(timeout=60) as client:
        twice = client.post(
            f"{url}/login",
            content=b"username=junk&username=bob&password=x",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert twice.status_code == 400 and "repeats a field" in twice.json()["detail"]
        other = httpx.Client(timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.3"))
        with other:
            for n in range(3):  # multipart, as the login page sends it, from another address each time
                reply = client.post(
                    f"{url}/login", files={"username": (None, "bob"), "password": (None, f"g{n}")}
                )
                assert reply.status_code == 400
            # bob's count holds whatever address asks next
            assert (
                other.post(
                    f"{url}/login", files={"username": (None, "bob"), "password": (None, "bob-pw")}
                ).status_code
                == 429
            )
    assert throttle.wait_s("user:bob") > 0


def test_a_forwarded_address_counts_only_from_a_named_proxy(
    catalog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6: the address key trusted ``X-Forwarded-For`` from any local client."""
    monkeypatch.delenv("HALLUSCOPE_TRUSTED_PROXIES", raising=False)
    throttle = SignInThrottle(free=2, base_s=60.0)
    with serving(catalog, throttle, auth=USERS) as url, httpx.Client(timeout=60) as client:
        for n in range(3):  # three addresses claimed, one client: counted against the client
            client.post(
                f"{url}/login",
                data={"username": f"u{n}", "password": "x"},
                headers={"x-forwarded-for": f"203.0.113.{n}"},
            )
    assert throttle.wait_s("client:127.0.0.1") > 0
    assert throttle.wait_s("client:203.0.113.2") == 0
