"""A database pool that lends nothing in time: the error a busy process's request meets."""

import socket
from types import SimpleNamespace

import psycopg
from django.db import OperationalError
from django.db.utils import DatabaseErrorWrapper
from psycopg_pool import ConnectionPool


def closed_port() -> int:
    """A loopback port nothing listens on (taken from the OS, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pool_timeout() -> OperationalError:
    """A real psycopg_pool PoolTimeout, wrapped by Django's PostgreSQL backend as a request
    meets it (whatever database the tests run on)."""
    postgresql = SimpleNamespace(Database=psycopg, errors_occurred=False)  # as its backend is
    pool = ConnectionPool(
        f"host=127.0.0.1 port={closed_port()} dbname=none connect_timeout=2",
        min_size=0,
        max_size=1,
        timeout=0.2,
        open=True,
    )
    try:
        with DatabaseErrorWrapper(postgresql):
            pool.getconn()
    except OperationalError as error:
        return error
    finally:
        pool.close()
    raise AssertionError("the pool lent a connection to nowhere")
