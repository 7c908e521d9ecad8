"""The check in ``tests/conftest.py`` that fails a test leaving an open event loop set.

It reads a private attribute of asyncio's policy: were that to change, the check would see no loop
and pass everything. This test fails then, instead of the check going quiet.
"""

from __future__ import annotations

import asyncio

from conftest import _loop_left_set


def test_the_check_sees_a_loop_left_set_and_not_a_closed_or_unset_one() -> None:
    assert _loop_left_set() is None
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        assert _loop_left_set() is loop
        loop.close()
        assert _loop_left_set() is None  # closed: nothing left to free
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    assert _loop_left_set() is None
