"""This process's PostgreSQL, beside Django's connections: a direct connection's parameters,
and whether the server answers when the pool has no connection to lend.

A request that waits `DATABASE_POOL_TIMEOUT` seconds for one of its process's pooled
connections (config/settings.py) meets one of two things: every connection is lent to
other requests (the process is busy: the database answers), or the pool cannot connect
(the database is out of this process's reach). Both raise the same PoolTimeout. The error
pages tell them apart with `answers()`: a busy process answers "busy" and stays in the
proxy's rotation, one without its database answers 503 and is taken out of it
(campaign/views/errors.py).
"""

from __future__ import annotations

import threading
import time

from django.db import OperationalError, connection

PROBE_SECONDS = 1.0  # a probe's answer serves this process's errors for this long
PROBE_TIMEOUT = 2  # seconds: libpq's shortest connect timeout


def direct_params() -> dict:
    """Parameters for a connection of its own to the default database (not from the pool)."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    return {**params, "autocommit": True}


def pool_timeout(error: BaseException | None) -> bool:
    """Whether `error` is Django's wrapping of a pool that lent no connection in time."""
    if not isinstance(error, OperationalError):
        return False
    try:
        from psycopg_pool import PoolTimeout
    except ImportError:  # no pool installed: no pool timeout
        return False
    return isinstance(error.__cause__, PoolTimeout)


_lock = threading.Lock()
_probed: tuple[float, bool] | None = None  # (when, whether it answered)


def answers() -> bool:
    """Whether the database server accepts a connection and a query from this process.

    Asked on the error path only; one probe (a connection of its own, `SELECT 1`) per
    PROBE_SECONDS serves every request that asks meanwhile, so a saturated process does
    not add a connection per failed request.
    """
    global _probed
    with _lock:
        if _probed is not None and time.monotonic() - _probed[0] < PROBE_SECONDS:
            return _probed[1]
        answered = _probe()
        _probed = (time.monotonic(), answered)
        return answered


def forget() -> None:
    """Drop the last probe's answer (tests)."""
    global _probed
    with _lock:
        _probed = None


def _probe() -> bool:
    import psycopg

    try:
        params = {**direct_params(), "connect_timeout": PROBE_TIMEOUT}
        with psycopg.connect(**params) as probe:
            probe.execute("SELECT 1")
    except (psycopg.Error, OSError):
        return False
    return True
