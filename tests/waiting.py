"""Waiting for a fact that nothing announces (a row of pg_stat_activity): a poll.

A test waits on a condition, never for a time. Where no event, page state or cursor says
the condition holds, it looks again until it does: the pause below only spaces two looks,
it is no bound on how long anything takes, and the deadline is a safety net, so a
condition that never holds fails the test instead of hanging it. tests/test_layout.py
allows this pause and no other sleep in tests/.
"""

import time
from collections.abc import Callable

PATIENCE = 30.0  # seconds: the safety net, never a measure (bench/ measures)
BETWEEN_LOOKS = 0.02  # seconds


def wait_until[T](condition: Callable[[], T], what: str) -> T:
    """Look at `condition()` until it is truthy, and return it; TimeoutError naming
    `what` once PATIENCE has passed without it."""
    deadline = time.monotonic() + PATIENCE
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {PATIENCE:g} s")
        time.sleep(BETWEEN_LOOKS)
    return result
