"""A throwaway PostgreSQL cluster for a benchmark: started on a free loopback port, stopped
and removed on exit. None when PostgreSQL cannot run here (no initdb/pg_ctl, or root
without a postgres user)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bindir() -> Path | None:
    if shutil.which("initdb") and shutil.which("pg_ctl"):
        return Path(shutil.which("pg_ctl")).resolve().parent
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
    found = [p for p in found if (p / "initdb").exists() and (p / "pg_ctl").exists()]
    return found[-1] if found else None


@contextmanager
def throwaway_postgresql(label: str = "PostgreSQL") -> Iterator[str | None]:
    """Yield the URL of an empty database `zodiac` on a new cluster, or None (said why)."""
    bindir = pg_bindir()
    if bindir is None:
        print(f"{label}: skipped (no initdb/pg_ctl on PATH or in /usr/lib/postgresql)")
        yield None
        return
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run the cluster as the postgres user
        has_postgres = subprocess.run(["id", "-u", "postgres"], capture_output=True)
        if shutil.which("runuser") is None or has_postgres.returncode:
            print(f"{label}: skipped (running as root without a postgres user)")
            yield None
            return
        as_postgres = ["runuser", "-u", "postgres", "--"]
    tmp = Path(tempfile.mkdtemp(prefix="zodiac-bench-pg."))
    if as_postgres:
        shutil.chown(tmp, "postgres")
    data, sockets, port = tmp / "data", tmp / "socket", free_port()
    quiet = {"stdout": subprocess.DEVNULL, "timeout": 120, "check": True}
    try:
        try:
            subprocess.run(
                [*as_postgres, bindir / "initdb", "-D", data, "-A", "trust", "-U", "postgres"]
                + ["-E", "UTF8"],
                **quiet,
            )
            subprocess.run([*as_postgres, "mkdir", sockets], **quiet)
            options = f"-k {sockets} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off"
            subprocess.run(
                [*as_postgres, bindir / "pg_ctl", "-D", data, "-l", tmp / "server.log", "-w"]
                + ["-o", options, "start"],
                **quiet,
            )
            subprocess.run(
                [*as_postgres, bindir / "createdb", "-h", sockets, "-p", str(port), "zodiac"],
                **quiet,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            print(f"{label}: skipped (the throwaway cluster did not start: {error})")
            yield None
            return
        yield f"postgres://postgres@127.0.0.1:{port}/zodiac"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*as_postgres, bindir / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop"],
                stdout=subprocess.DEVNULL,
                timeout=60,
            )
        shutil.rmtree(tmp, ignore_errors=True)
