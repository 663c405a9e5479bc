"""Benchmark of the live channel: 200 open streams on one uvicorn process, a series of writes.

For each write (made by this process, as another server's would be) it measures the delay
from its commit to each stream's message, and the server's memory (VmRSS). Runs on SQLite (a
migrated temp file) and, when initdb and pg_ctl exist, on a throwaway PostgreSQL cluster.
Targets (the DJ dashboard issue): p95 delivery <= 1 s, server RSS <= 200 MB.

Loopback only; every wait has a deadline; the servers and the cluster are stopped on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CLIENTS = 200
WRITES = 40
DELIVERY_TARGET = 1.0  # seconds, p95
RSS_TARGET_MB = 200.0
DEADLINE = 5.0  # seconds for any one step (connecting, one write's delivery)
MESSAGE_ID = re.compile(rb"\nid: (\d+)\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (VmRSS, VmHWM), in MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return tuple(int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM"))


# --- One run, against one database (a child process: Django is set up once per process) ---


def setup_data() -> tuple[str, str, list]:
    """Migrate, and make a DJ with a campaign of four PJ: (slug, session cookie, PJ)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from campaign import services

    call_command("migrate", verbosity=0)
    dj = get_user_model().objects.create_user("bench-dj")
    campaign = services.campaign_create(name="Bench", slug="bench", dj=dj)
    characters = [
        services.character_create(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in ("Aiko", "Kenji", "Mei", "Taro")
    ]
    client = Client()
    client.force_login(dj)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return campaign.slug, cookie, characters


def write(character) -> tuple[int, float]:
    """One event for a PJ; its cursor and the moment its commit returned."""
    from campaign import services

    services.event_record(
        campaign=character.campaign, character=character, event={"kind": "time", "minutes": 1}
    )
    character.campaign.refresh_from_db(fields=["change_cursor"])
    return character.campaign.change_cursor, time.monotonic()


def database_connections() -> int | None:
    """Open connections to the database, this one included (PostgreSQL only)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


class Stream:
    """One SSE client on a raw socket: when it first saw each message id."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, float]] = []
        self.ready = asyncio.Event()  # the stream is open, or failed (then `error` says why)
        self.error: str | None = None

    async def run(self, port: int, path: str, cookie: str) -> None:
        try:
            await self._read(port, path, cookie)
        except (OSError, RuntimeError, asyncio.IncompleteReadError) as error:
            self.error = str(error)
        finally:
            self.ready.set()

    async def _read(self, port: int, path: str, cookie: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
        writer.write(f"{request}Accept: text/event-stream\r\n\r\n".encode())
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
            pending = b""
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                now = time.monotonic()
                pending += chunk
                if b"retry: 1000" in pending:
                    self.ready.set()
                # Each message is one chunk of the response, so its id line is whole.
                for match in MESSAGE_ID.finditer(pending):
                    self.seen.append((int(match.group(1)), now))
                pending = pending[pending.rfind(b"\n") :]
        finally:
            writer.close()

    def delay(self, cursor: int, committed: float) -> float | None:
        for seen_id, at in self.seen:
            if seen_id >= cursor:
                return at - committed
        return None


async def measure(port: int, pid: int, slug: str, cookie: str, characters: list) -> dict:
    streams = [Stream() for _ in range(CLIENTS)]
    path = f"/c/{slug}/en-vivo/"
    tasks = [asyncio.create_task(s.run(port, path, cookie)) for s in streams]
    async with asyncio.timeout(DEADLINE * 2):
        await asyncio.gather(*(s.ready.wait() for s in streams))
    failed = [s.error for s in streams if s.error]
    if failed:
        raise RuntimeError(f"{len(failed)} of {CLIENTS} streams failed, e.g. {failed[0]}")
    connected_rss, _ = rss_mb(pid)
    connections = await asyncio.to_thread(database_connections)

    delays: list[float] = []
    for n in range(WRITES):
        cursor, committed = await asyncio.to_thread(write, characters[n % len(characters)])
        deadline = committed + DEADLINE
        while time.monotonic() < deadline:
            got = [s.delay(cursor, committed) for s in streams]
            if all(d is not None for d in got):
                break
            await asyncio.sleep(0.005)
        delays += [d if d is not None else DEADLINE for d in got]  # a miss counts as late
        await asyncio.sleep(0.05)  # writes at a table's pace, not back to back

    rss, peak = rss_mb(pid)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    delays.sort()
    return {
        "p50": statistics.median(delays),
        "p95": statistics.quantiles(delays, n=20)[-1],
        "max": delays[-1],
        "missed": sum(d >= DEADLINE for d in delays),
        "connections": connections,
        "rss_connected": connected_rss,
        "rss": max(rss, connected_rss),
        "peak": peak,
    }


def run_one(database_url: str, label: str) -> int:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # As in production: DEBUG off (no query log), a real key shared with the server.
        "DEBUG": "false",
        "SECRET_KEY": os.environ.get("BENCH_SECRET_KEY") or secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        "PYTHONWARNINGS": "ignore:No directory at",  # WhiteNoise: no collectstatic here
    }
    os.environ.update(env)
    slug, cookie, characters = setup_data()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        + ["--port", str(port), "--lifespan", "off", "--log-level", "warning"]
        + ["--timeout-graceful-shutdown", "2"],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print(f"{label}: uvicorn did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
        idle_rss, _ = rss_mb(server.pid)
        try:
            figures = asyncio.run(measure(port, server.pid, slug, cookie, characters))
        except (RuntimeError, TimeoutError) as error:
            print(f"{label}: MISSED: {error or 'the streams did not open in time'}")
            return 1
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    ok_delivery = figures["p95"] <= DELIVERY_TARGET and not figures["missed"]
    ok_rss = figures["rss"] <= RSS_TARGET_MB
    print(
        f"{label}: {CLIENTS} streams, {WRITES} writes: delivery p50 "
        f"{figures['p50'] * 1000:.0f} ms, p95 {figures['p95'] * 1000:.0f} ms, "
        f"max {figures['max'] * 1000:.0f} ms, missed {figures['missed']} "
        f"(target p95 <= {DELIVERY_TARGET * 1000:.0f} ms) {'OK' if ok_delivery else 'MISSED'}"
    )
    print(
        f"{label}: server RSS {idle_rss:.0f} MB idle, {figures['rss_connected']:.0f} MB with "
        f"{CLIENTS} streams, {figures['rss']:.0f} MB after the writes, peak "
        f"{figures['peak']:.0f} MB (target <= {RSS_TARGET_MB:.0f} MB) "
        f"{'OK' if ok_rss else 'MISSED'}"
    )
    if figures["connections"] is not None:
        print(
            f"{label}: {figures['connections']} database connections with {CLIENTS} streams "
            "open (this benchmark's own included)"
        )
    return 0 if ok_delivery and ok_rss else 1


# --- The two databases ------------------------------------------------------------------


def child(database_url: str, label: str) -> int:
    command = [sys.executable, __file__, "--database-url", database_url, "--label", label]
    try:
        return subprocess.run(command, cwd=ROOT, timeout=300).returncode
    except subprocess.TimeoutExpired:
        print(f"{label}: gave up after 300 s", file=sys.stderr)
        return 1


def pg_bindir() -> Path | None:
    if shutil.which("initdb") and shutil.which("pg_ctl"):
        return Path(shutil.which("pg_ctl")).resolve().parent
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
    found = [p for p in found if (p / "initdb").exists() and (p / "pg_ctl").exists()]
    return found[-1] if found else None


def on_postgresql() -> int | None:
    """The benchmark on a throwaway cluster; None when PostgreSQL cannot be run here."""
    bindir = pg_bindir()
    if bindir is None:
        print("PostgreSQL: skipped (no initdb/pg_ctl on PATH or in /usr/lib/postgresql)")
        return None
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run the cluster as the postgres user
        has_postgres = subprocess.run(["id", "-u", "postgres"], capture_output=True)
        if shutil.which("runuser") is None or has_postgres.returncode:
            print("PostgreSQL: skipped (running as root without a postgres user)")
            return None
        as_postgres = ["runuser", "-u", "postgres", "--"]
    tmp = Path(tempfile.mkdtemp(prefix="zodiac-bench-pg."))
    if as_postgres:
        shutil.chown(tmp, "postgres")
    data, sockets, port = tmp / "data", tmp / "socket", free_port()
    quiet = {"stdout": subprocess.DEVNULL, "timeout": 120, "check": True}
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
            [*as_postgres, bindir / "createdb", "-h", sockets, "-p", str(port), "zodiac"], **quiet
        )
        return child(f"postgres://postgres@127.0.0.1:{port}/zodiac", "PostgreSQL")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        print(f"PostgreSQL: skipped (the throwaway cluster did not start: {error})")
        return None
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*as_postgres, bindir / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop"],
                stdout=subprocess.DEVNULL,
                timeout=60,
            )
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="run once against this database (internal)")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    if args.database_url:
        return run_one(args.database_url, args.label)

    with tempfile.TemporaryDirectory(prefix="zodiac-bench-sqlite.") as tmp:
        results = [child(f"sqlite:///{tmp}/bench.sqlite3", "SQLite")]
    results.append(on_postgresql())
    return 1 if any(code for code in results if code is not None) else 0


if __name__ == "__main__":
    sys.exit(main())
