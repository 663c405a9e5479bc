"""A tap's deadline: a write the page has given up waiting for is refused, never applied late.

The page stamps each of its htmx POSTs with when it sent it, on the server's clock (the
live stream tells the page that clock; header X-Zodiac-Sent, milliseconds since the epoch).
The page gives up on an answer after 8 seconds (TAP_GIVES_UP_MS, static/js/live/taps.js) and
tells the user the tap was not recorded; the server refuses the write once TAP_SECONDS have
passed since it was sent, checked when the campaign's lock is held (a write can wait there
behind another), which leaves the server time to commit and answer before the page gives
up.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

from .numbers import whole

HEADER = "X-Zodiac-Sent"
TAP_SECONDS = 5.0

_deadline: ContextVar[float | None] = ContextVar("tap_deadline", default=None)


class TapTooLate(Exception):
    """The tap's page has given up on it (or is about to): nothing is written."""


def parse(value: str | None) -> float | None:
    """The deadline (epoch seconds) of a tap sent at `value` ms, or None when not given."""
    sent = whole(value, digits=15)
    return None if sent is None else sent / 1000 + TAP_SECONDS


def set_for_request(deadline: float | None):
    """Set this request's deadline; returns the token to reset it with."""
    return _deadline.set(deadline)


def reset(token) -> None:
    _deadline.reset(token)


def now() -> float:
    """The server's clock, epoch seconds."""
    return time.time()


def passed(deadline: float | None) -> bool:
    return deadline is not None and now() > deadline


def check() -> None:
    """Raise TapTooLate when this request's tap is past its deadline."""
    if passed(_deadline.get()):
        raise TapTooLate
