"""A benchmark's uvicorn: the app on a loopback port, started and stopped with deadlines.

Shared by bench_live (the live channel) and bench_faults (the server killed and restarted);
the throwaway PostgreSQL cluster they run on is bench/_pg.py's.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

from _pg import free_port

ROOT = Path(__file__).resolve().parents[1]


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    """The environment of a benchmark's app, as production runs it: DEBUG off (no query
    log), a real key (BENCH_SECRET_KEY, else a fresh one) shared by the benchmark's own
    process and its server, loopback only, quiet logs; `extra` added on top."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": os.environ.get("BENCH_SECRET_KEY") or secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


def start_server(
    env: dict, workers: int, *, port: int | None = None, own_group: bool = False
) -> tuple[subprocess.Popen, int]:
    """uvicorn serving config.asgi on 127.0.0.1:`port` (a free one when None), once it
    accepts connections (30 s at most). With `own_group` it leads a process group of its
    own, so the whole server (workers included) can be signalled at once."""
    port = port or free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        + ["--port", str(port), "--lifespan", "off", "--log-level", "warning"]
        + ["--timeout-graceful-shutdown", "2", "--workers", str(workers)],
        cwd=ROOT,
        env=env,
        start_new_session=own_group,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            exited = server.poll()
            if exited is not None or time.monotonic() > deadline:
                server.kill()
                server.wait(timeout=10)
                why = f"exited with code {exited}" if exited is not None else "not listening"
                raise RuntimeError(f"uvicorn did not start on port {port} ({why})") from None
            time.sleep(0.05)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)
