"""The live channel's server share, without a browser: players' sheets following a table.

Each sheet is a client on a raw socket that reads the stream (/en-vivo/) as a phone would and
"applies" what it receives: it parses each message and takes its own card from it. The DJ
taps through the server (an HTTP POST, as the board does). Measured from the moment the
tap's request is sent to the moment each sheet holds its new card (targets, the live-pages
issue):

- a party event (time passes for every PJ) with 20 sheets open: p95 <= 50 ms;
- the same with 100 sheets: p95 <= 150 ms;
- a change to one PJ with 100 sheets open: p95 <= 30 ms for that PJ's sheets
  (these three are judged on SQLite, the default database, and reported on PostgreSQL,
  where a write takes longer: there only a lost change fails);
- 200 sheet streams on PostgreSQL with two uvicorn workers, the DJ writing 2 events/s for
  60 s: every stream gets every change it may see (and nothing else); p95 reported, and
  each worker's memory (target <= 200 MB).

The table: 8 PJ, each with its own player; the sheets are spread over the players (several
devices each). SQLite runs the first three; PostgreSQL (a throwaway cluster, when initdb
and pg_ctl exist) all four. Loopback only; every wait has a deadline; the servers and the
cluster are stopped on exit. Knobs: TAPS (20), SECONDS (60) for the last one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
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
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PJ = 8
TAPS = int(os.environ.get("TAPS", "20"))
SECONDS = int(os.environ.get("SECONDS", "60"))
DEADLINE = 3.0  # seconds for one tap to reach every sheet; later is a miss
PACE = 0.3  # seconds between taps: a table's pace, not back to back
RSS_TARGET_MB = 200.0


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


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


# --- The table (a child process: Django is set up once per process) ------------------------


def setup_data() -> dict:
    """Migrate, and make a DJ, a campaign of PJ players and their PJ; sessions for all."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from campaign import services
    from campaign.models import Membership

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    dj = users.create_user("bench-dj")
    campaign = services.campaign_create(name="Bench", slug="bench", dj=dj)
    pj = []
    for n in range(PJ):
        player = users.create_user(f"bench-player-{n}")
        services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        pj.append(
            services.character_create(
                campaign=campaign,
                name=f"PJ {n}",
                player=player,
                attributes={"FUE": 3, "AGI": 3, "VOL": 3},
            )
        )

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return (
            f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        )

    campaign.refresh_from_db()
    return {
        "campaign": campaign.pk,
        "cursor": campaign.change_cursor,
        "dj": cookie(dj),
        "pj": [{"pk": c.pk, "player": c.player_id, "cookie": cookie(c.player)} for c in pj],
    }


def csrf_token() -> str:
    """A CSRF cookie value of the form Django makes (32 letters and digits); the DJ's taps send
    it back as the header, as the board's htmx does."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(secrets.choice(alphabet) for _ in range(32))


# --- A sheet: one stream, its messages applied -------------------------------------------


class Sheet:
    """One phone's stream: each change it heard, when, and whether its own card came in it."""

    def __init__(self, pj: dict, campaign: int, cursor: int) -> None:
        self.pj = pj
        self.path = "/en-vivo/?" + urlencode({"since": f"{campaign}:{cursor}"})
        self.heard: list[tuple[int, int, frozenset, bool, bool, float]] = []
        self.ready = asyncio.Event()
        self.error: str | None = None

    async def run(self, port: int) -> None:
        try:
            await self._read(port)
        except (OSError, RuntimeError, asyncio.IncompleteReadError, ValueError) as error:
            self.error = str(error) or type(error).__name__
        finally:
            self.ready.set()

    async def _read(self, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.pj['cookie']}\r\n"
                "Accept: text/event-stream\r\n\r\n"
            ).encode()
        )
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
            chunked = b"transfer-encoding: chunked" in head.lower()
            raw, body = b"", b""
            own = f"own:{self.pj['pk']}"
            while True:
                chunk = await reader.read(1 << 20)
                if not chunk:
                    return
                if chunked:
                    raw += chunk
                    decoded, raw = _unchunk(raw)
                    body += decoded
                else:
                    body += chunk
                while b"\n\n" in body:
                    block, body = body.split(b"\n\n", 1)
                    self._apply(block.decode(), own)
        finally:
            writer.close()

    def _apply(self, block: str, own: str) -> None:
        fields = dict(
            line.split(": ", 1)
            for line in block.splitlines()
            if ": " in line and not line.startswith(":")
        )
        if fields.get("event") == "hello":
            self.ready.set()
        if fields.get("event") != "change":
            return
        data = json.loads(fields["data"])  # what a phone does with it
        parts = data.get("parts") or {}
        self.heard.append(
            (
                data["after"],
                data["cursor"],
                frozenset(data["pj"]),
                data["all"],
                isinstance(parts.get(own), str),
                time.monotonic(),
            )
        )

    def holds(self, cursor: int) -> float | None:
        """When this sheet first held its card at `cursor` or later (its own part came)."""
        for _after, at, _pj, _all, with_card, when in self.heard:
            if at >= cursor and with_card:
                return when
        return None


def _unchunk(raw: bytes) -> tuple[bytes, bytes]:
    """The body bytes of the whole HTTP chunks at the start of `raw`, and what is left."""
    body = b""
    while True:
        line_end = raw.find(b"\r\n")
        if line_end == -1:
            return body, raw
        size = int(raw[:line_end].split(b";")[0], 16)
        end = line_end + 2 + size
        if len(raw) < end + 2:
            return body, raw
        body += raw[line_end + 2 : end]
        raw = raw[end + 2 :]


class Tapper:
    """The DJ's taps: a POST through the server, as the board sends them."""

    def __init__(self, port: int, cookie: str, csrf: str) -> None:
        self.port = port
        self.cookie = f"{cookie}; csrftoken={csrf}"
        self.csrf = csrf
        self.answered: list[float] = []  # how long each tap took to be answered

    async def post(self, path: str, form: dict) -> tuple[float, int]:
        """Send one tap: (when it was sent, the change cursor its answer reflects)."""
        body = urlencode({**form, "key": secrets.token_hex(8)}).encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.cookie}\r\n"
            f"X-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sent = time.monotonic()
        writer.write(head.encode() + body)
        answer = await reader.read()
        self.answered.append(time.monotonic() - sent)
        writer.close()
        status = answer.split(b"\r\n", 1)[0]
        found = re.search(rb"(?i)\r\nx-change-cursor: (\d+)", answer)
        if b" 200 " not in status or not found:
            raise RuntimeError(f"the tap was refused: {status.decode()}")
        return sent, int(found.group(1))


async def open_sheets(port: int, table: dict, count: int) -> tuple[list[Sheet], list]:
    sheets = [
        Sheet(table["pj"][n % PJ], table["campaign"], await asyncio.to_thread(cursor_now))
        for n in range(count)
    ]
    tasks = [asyncio.create_task(s.run(port)) for s in sheets]
    async with asyncio.timeout(30):
        await asyncio.gather(*(s.ready.wait() for s in sheets))
    failed = [s.error for s in sheets if s.error]
    if failed:
        raise RuntimeError(f"{len(failed)} of {count} streams failed, e.g. {failed[0]}")
    return sheets, tasks


def cursor_now() -> int:
    from campaign.models import Campaign

    return Campaign.objects.get(slug="bench").change_cursor


async def close(tasks: list) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def taps_to_sheets(port: int, table: dict, tapper: Tapper, count: int, party: bool):
    """TAPS taps; each one's delay to every sheet it changes. (delays, missed)."""
    sheets, tasks = await open_sheets(port, table, count)
    delays, missed = [], 0
    try:
        for n in range(TAPS):
            if party:
                sent, cursor = await tapper.post(
                    "/c/bench/tiempo/", {"amount": "1", "unit": "minutes"}
                )
                told = sheets
            else:
                pj = table["pj"][0]
                if n % 2 == 0:
                    form = {"action": "suffer", "type_grade": "fatiga:leve"}
                    sent, cursor = await tapper.post(f"/c/bench/pj/{pj['pk']}/accion/", form)
                else:
                    sent, cursor = await tapper.post("/c/bench/deshacer/", {})
                told = [s for s in sheets if s.pj is pj]
            deadline = sent + DEADLINE
            while time.monotonic() < deadline:
                held = [s.holds(cursor) for s in told]
                if all(h is not None for h in held):
                    break
                await asyncio.sleep(0.002)
            delays += [h - sent for h in held if h is not None]
            missed += sum(h is None for h in held)
            await asyncio.sleep(PACE)
    finally:
        await close(tasks)
    return delays, missed


async def soak(port: int, table: dict, tapper: Tapper, count: int, pids: list[int]) -> dict:
    """The DJ writes 2 events/s for SECONDS; what each stream heard, checked."""
    sheets, tasks = await open_sheets(port, table, count)
    rss_open = [rss_mb(pid)[0] for pid in pids]
    writes: list[tuple[float, int, int | None]] = []  # sent, cursor, PJ (None: every PJ)
    try:
        started = time.monotonic()
        n = 0
        while time.monotonic() - started < SECONDS:
            if n % 10 == 9:
                sent, cursor = await tapper.post(
                    "/c/bench/tiempo/", {"amount": "1", "unit": "minutes"}
                )
                writes.append((sent, cursor, None))
            else:
                pj = table["pj"][n % PJ]
                form = {"action": "suffer", "type_grade": "shock:leve"}
                sent, cursor = await tapper.post(f"/c/bench/pj/{pj['pk']}/accion/", form)
                writes.append((sent, cursor, pj["pk"]))
            n += 1
            await asyncio.sleep(max(0.0, started + n * 0.5 - time.monotonic()))
        await asyncio.sleep(DEADLINE)  # the last writes reach every stream
    finally:
        await close(tasks)
    delays, missed, leaked = [], 0, 0
    for sheet in sheets:
        own = sheet.pj["pk"]
        for message in sheet.heard:
            if not message[3] and message[2] - {own}:
                leaked += 1  # another PJ's id on a player's stream
        for sent, cursor, pj in writes:
            if pj is not None and pj != own:
                continue
            covering = [m for m in sheet.heard if m[0] < cursor <= m[1]]
            if covering and (covering[0][3] or (pj in covering[0][2])):
                delays.append(covering[0][5] - sent)
            else:
                missed += 1
    return {
        "writes": len(writes),
        "delays": delays,
        "missed": missed,
        "leaked": leaked,
        "rss_open": rss_open,
        "rss_peak": [rss_mb(pid)[1] for pid in pids],
    }


def start_server(env: dict, workers: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        + ["--port", str(port), "--lifespan", "off", "--log-level", "warning"]
        + ["--timeout-graceful-shutdown", "2", "--workers", str(workers)],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("uvicorn did not start") from None
            time.sleep(0.1)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def worker_pids(server: subprocess.Popen) -> list[int]:
    """The uvicorn processes that serve requests (the workers, or the one process)."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    pids = [int(pid) for pid in children.read_text().split()] if children.exists() else []
    # The workers are spawned processes; multiprocessing's resource tracker is not one.
    workers = [pid for pid in pids if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    return workers or [server.pid]


def run_one(database_url: str, label: str, soak_too: bool) -> int:
    """The three tap lines (judged on the default database, SQLite; reported elsewhere,
    where only a lost change fails), then with `soak_too` the 200-stream minute."""
    judged = database_url.startswith("sqlite")
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
    table = setup_data()
    ok = True
    server, port = start_server(env, workers=1)
    try:
        tapper = Tapper(port, table["dj"], csrf_token())
        for what, count, party, target in (
            ("a party event", 20, True, 0.050),
            ("a party event", 100, True, 0.150),
            ("a change to one PJ", 100, False, 0.030),
        ):
            tapper.answered.clear()
            delays, missed = asyncio.run(taps_to_sheets(port, table, tapper, count, party))
            good = bool(delays) and p95(delays) <= target and not missed
            verdict = "OK" if good else "MISSED"
            if judged:
                ok &= good
            else:
                verdict = f"reported ({'within' if good else 'beyond'} the default's target)"
                ok &= not missed
            print(
                f"{label}: {what}, {count} sheets open, {TAPS} taps: tap to card in every "
                f"sheet it changes: median {statistics.median(delays) * 1000:.0f} ms, "
                f"p95 {p95(delays) * 1000:.0f} ms (target <= {target * 1000:.0f}), "
                f"max {max(delays) * 1000:.0f} ms, missed {missed} {verdict}; the DJ's own "
                f"answer: median {statistics.median(tapper.answered) * 1000:.0f} ms"
            )
    finally:
        stop(server)
    if not soak_too:
        return 0 if ok else 1
    server, port = start_server(env, workers=2)
    try:
        tapper = Tapper(port, table["dj"], csrf_token())
        pids = worker_pids(server)
        figures = asyncio.run(soak(port, table, tapper, 200, pids))
    finally:
        stop(server)
    delays = figures["delays"]
    good = not figures["missed"] and not figures["leaked"] and bool(delays)
    good_rss = max(figures["rss_peak"]) <= RSS_TARGET_MB
    ok &= good and good_rss
    print(
        f"{label}: 200 sheet streams on 2 uvicorn workers, {figures['writes']} writes in "
        f"{SECONDS} s: {len(delays)} deliveries, missed {figures['missed']}, another PJ's id "
        f"heard {figures['leaked']} times; tap to stream median "
        f"{statistics.median(delays) * 1000:.0f} ms, p95 {p95(delays) * 1000:.0f} ms, "
        f"max {max(delays) * 1000:.0f} ms {'OK' if good else 'MISSED'}"
    )
    print(
        f"{label}: workers' RSS with 200 streams open "
        + ", ".join(f"{mb:.0f}" for mb in figures["rss_open"])
        + " MB, peak "
        + ", ".join(f"{mb:.0f}" for mb in figures["rss_peak"])
        + f" MB (target <= {RSS_TARGET_MB:.0f} MB each) {'OK' if good_rss else 'MISSED'}"
    )
    return 0 if ok else 1


# --- The two databases ------------------------------------------------------------------


def child(database_url: str, label: str, soak_too: bool = False) -> int:
    command = [sys.executable, __file__, "--database-url", database_url, "--label", label]
    if soak_too:
        command.append("--soak")
    try:
        return subprocess.run(command, cwd=ROOT, timeout=600).returncode
    except subprocess.TimeoutExpired:
        print(f"{label}: gave up after 600 s", file=sys.stderr)
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
        return child(f"postgres://postgres@127.0.0.1:{port}/zodiac", "PostgreSQL", True)
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
    parser.add_argument("--soak", action="store_true", help="also the 200-stream minute")
    args = parser.parse_args()
    if args.database_url:
        try:
            return run_one(args.database_url, args.label, args.soak)
        except (RuntimeError, TimeoutError) as error:
            print(f"{args.label}: MISSED: {error or 'the streams did not open in time'}")
            return 1

    with tempfile.TemporaryDirectory(prefix="zodiac-bench-sqlite.") as tmp:
        results = [child(f"sqlite:///{tmp}/bench.sqlite3", "SQLite")]
    results.append(on_postgresql())
    return 1 if any(code for code in results if code is not None) else 0


if __name__ == "__main__":
    sys.exit(main())
