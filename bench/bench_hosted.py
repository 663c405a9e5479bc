"""Hosted at scale: N tables on four app processes behind nginx and one PostgreSQL.

The topology of `make deploy-check` (tests/deploy/topology.py: deploy/'s own files, nginx
over HTTPS with a certificate made for the run), with N campaigns, each a table: its DJ's
board (one stream, and its connection kept open for the taps) and five players' phones
(a sheet stream each), every stream read through the proxy as a page reads it (gzip
inflated, each message applied: tests/deploy/clients.py). Every DJ taps at a table's
pace, one tap every 10 to 30 s (a blow to one of its PJ; now and then, one in six, time
passing for the party, which every page of the table hears), for SECONDS (120).

Targets (issue #28), at each size: every change reaches every stream that may see it
with its part rendered (0 lost) and no stream hears what it may not (0 leaked); tap to
sheet p95 <= 250 ms and median <= 100 ms (the boards' delays and the party events' are
reported apart); no error response (every tap a 200, no stream
refused or ended). Reported: the memory of each app process and per open stream, nginx's,
the CPU each part used (apps, nginx, PostgreSQL, this client) and per delivered change,
how busy the machine's cores were, and the load average before and after. When the cores
were the limit (busy >= 90 %), the line says so.

CAMPAIGNS picks the sizes (default "100,300,1000"); SECONDS the length. One run per size,
each on a fresh topology. Everything on loopback; every wait has a deadline; the servers
and the cluster are stopped on exit. Runs as `make bench` does (exit 1 on a missed target).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import math
import os
import random
import signal
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.deploy.clients import Board, Stream  # noqa: E402
from tests.deploy.topology import Topology  # noqa: E402

SIZES = [int(n) for n in os.environ.get("CAMPAIGNS", "100,300,1000").split(",") if n.strip()]
SECONDS = float(os.environ.get("SECONDS", "120"))
PLAYERS = 5
PACE = (10.0, 30.0)  # seconds between a DJ's taps
PARTY = 6  # one tap in this many is time passing for the party
P95_TARGET, MEDIAN_TARGET = 0.250, 0.100
OPEN_BATCH = 100  # streams opened at once (a server's worth of pages coming back)
DRAIN = 30.0  # seconds after the last tap for every stream to hear it
BUSY = 0.90  # the cores' share busy from which they are called the limit
IDLE = 30.0  # seconds with every stream open and no tap, before the taps


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


# --- What the machine did ------------------------------------------------------------------


def proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(ppid: int) -> list[int]:
    found = []
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            with contextlib.suppress(OSError):
                if int((path / "stat").read_text().rsplit(")", 1)[1].split()[1]) == ppid:
                    found.append(int(path.name))
    return found


def group(pgid: int) -> list[int]:
    """The processes of a process group (nginx's master and workers)."""
    found = []
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            with contextlib.suppress(OSError):
                if int((path / "stat").read_text().rsplit(")", 1)[1].split()[2]) == pgid:
                    found.append(int(path.name))
    return found


def postgres(port: int) -> list[int]:
    """The throwaway cluster's postmaster and its backends."""
    for path in Path("/proc").iterdir():
        if path.name.isdigit():
            with contextlib.suppress(OSError):
                command = (path / "cmdline").read_bytes().split(b"\0")
                if command[0].endswith(b"/postgres") and str(port).encode() in command:
                    return [int(path.name), *children(int(path.name))]
    return []


def machine() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    tick = os.sysconf("SC_CLK_TCK")
    return (total - idle) / tick, total / tick


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


@dataclass
class Tap:
    campaign: int
    cursor: int
    pj: int | None  # None: the party (every card)
    sent: float
    sent_wall: float = 0.0  # the same moment on the epoch clock, to set against the server's


# --- One table ----------------------------------------------------------------------------


class Dj:
    """One table's DJ: taps at a table's pace through the kept-open connection."""

    def __init__(self, site, table: dict, rng: random.Random) -> None:
        self.table = table
        self.board = Board(site, table["dj"])
        self.rng = rng
        self.taps: list[Tap] = []
        self.errors: list[str] = []

    async def play(self, until: float) -> None:
        slug = self.table["slug"]
        await asyncio.sleep(self.rng.uniform(0, PACE[0]))  # the tables' phases spread
        n = 0
        while time.monotonic() < until:
            party = n % PARTY == PARTY - 1
            if party:
                pj = None
                path, form = f"/c/{slug}/tiempo/", {"amount": "1", "unit": "minutes"}
            else:
                pj = self.rng.choice(self.table["pj"])["pk"]
                path = f"/c/{slug}/pj/{pj}/accion/"
                form = {"action": "suffer", "type_grade": "fatiga:leve"}
            try:
                sent, answer = await self.board.tap(path, form)
            except (OSError, asyncio.IncompleteReadError) as error:
                self.errors.append(f"{path}: {type(error).__name__} {error}")
            else:
                cursor = answer.header("X-Change-Cursor")
                if answer.status != 200 or cursor is None:
                    refused = answer.header("X-Zodiac-Refused")  # "busy", "late"
                    self.errors.append(
                        f"{path}: {answer.status}" + (f" {refused}" if refused else "")
                    )
                else:
                    wall = time.time() - (time.monotonic() - sent)
                    self.taps.append(Tap(self.table["campaign"], int(cursor), pj, sent, wall))
            n += 1
            await asyncio.sleep(self.rng.uniform(*PACE))
        self.board.close()


def may_see(stream: Stream, tap: Tap, own: int | None) -> str | None:
    """The part `stream` shows `tap`'s change with, or None when it is not told of it."""
    if own is None:  # the DJ's board
        return "panels" if tap.pj is None else f"card:{tap.pj}"
    return f"own:{own}" if tap.pj in (None, own) else None


def judge(streams: list[tuple[Stream, int | None, dict]], taps: dict[int, list[Tap]]) -> dict:
    """Every stream against its table's taps: the sheets' delays (what the targets judge),
    the boards' and the party events' apart, what was lost and what leaked."""
    delays, boards, party, lost, leaked = [], [], [], 0, 0
    server: list[float] = []  # tap sent -> the server sends the sheet its message
    after: list[float] = []  # the server sent it -> this client has it (nginx, TLS, this loop)
    for stream, own, table in streams:
        pks = {pj["pk"] for pj in table["pj"]}
        allowed = pks if own is None else {own}
        for message in stream.heard:
            named = {int(p.split(":")[1]) for p in message.parts if p.startswith(("own:", "card:"))}
            if message.campaign != table["campaign"] or (message.pj - allowed) or named - allowed:
                leaked += 1
        for tap in taps.get(table["campaign"], []):
            part = may_see(stream, tap, own)
            if part is None:
                continue
            message = stream.holding(tap.campaign, tap.cursor, part)
            if message is None:
                lost += 1
                continue
            when = message.when
            if own is None:
                boards.append(when - tap.sent)
            else:
                delays.append(when - tap.sent)
                if tap.pj is None:
                    party.append(when - tap.sent)
                if message.now is not None:  # where a sheet's delay went: server, or after
                    server.append(message.now - tap.sent_wall)
                    after.append(message.wall - message.now)
    return {
        "delays": delays,
        "boards": boards,
        "party": party,
        "lost": lost,
        "leaked": leaked,
        "server": server,
        "after": after,
    }


async def play(topology: Topology, tables: list[dict]) -> dict:
    site = topology.site
    rng = random.Random(28)
    streams: list[tuple[Stream, int | None, dict]] = []
    for table in tables:
        since = {table["campaign"]: table["cursor"]}
        streams.append((Stream(site, table["dj"], since, f"{table['slug']}-dj"), None, table))
        for pj in table["pj"]:
            label = f"{table['slug']}-{pj['pk']}"
            streams.append((Stream(site, pj["cookie"], since, label), pj["pk"], table))
    apps = {port: topology.pid(port) for port in topology.ports}
    rss_before = {port: rss_mb(pid) for port, pid in apps.items()}
    nginx_before = sum(rss_mb(pid) for pid in group(topology.nginx.pid))
    tasks = []
    opened = time.monotonic()
    for start in range(0, len(streams), OPEN_BATCH):
        batch = streams[start : start + OPEN_BATCH]
        tasks += [asyncio.create_task(s.run(attempts=3)) for s, _own, _t in batch]
        try:
            async with asyncio.timeout(120):
                await asyncio.gather(*(s.said_hello.wait() for s, _own, _t in batch))
        except TimeoutError:
            waiting = [s for s, _own, _t in batch if not s.said_hello.is_set()]
            raise RuntimeError(
                f"{len(waiting)} of the streams {start}-{start + len(batch)} did not open in "
                f"120 s (e.g. {waiting[0].ended[-3:]})"
            ) from None
    opened = time.monotonic() - opened
    refused = [s.error for s, _o, _t in streams if s.error]
    held = {port: topology.established(port) for port in topology.ports}
    rss_open = {port: rss_mb(pid) for port, pid in apps.items()}
    nginx_pids = group(topology.nginx.pid)
    nginx_open = sum(rss_mb(pid) for pid in nginx_pids)
    pg = postgres(int(topology.database_url.rsplit(":", 1)[1].split("/")[0]))
    parts = {
        "apps": list(apps.values()),
        "nginx": nginx_pids,
        "PostgreSQL": pg,
    }
    # The streams alone for IDLE seconds (pings, the 30 s checks of each session): what an
    # open page costs the apps with nobody tapping.
    idle_before = sum(map(proc_cpu, parts["apps"]))
    await asyncio.sleep(IDLE)
    idle = (sum(map(proc_cpu, parts["apps"])) - idle_before) / IDLE
    cpu_before = {name: sum(map(proc_cpu, pids)) for name, pids in parts.items()}
    client_before = time.process_time()
    busy_before, total_before = machine()
    load_before = load()
    until = time.monotonic() + SECONDS
    djs = [Dj(site, table, random.Random(rng.random())) for table in tables]
    try:
        async with asyncio.timeout(SECONDS + 120):
            await asyncio.gather(*(dj.play(until) for dj in djs))
        ended = time.monotonic()
        last = {}
        for dj in djs:
            for tap in dj.taps:
                last[tap.campaign] = tap
        taps = {}
        for dj in djs:
            taps.setdefault(dj.table["campaign"], []).extend(dj.taps)

        def caught_up() -> bool:
            return all(
                any(m.cursor >= t.cursor for m in s.heard)
                for s, own, table in streams
                for t in taps.get(table["campaign"], [])[-1:]
                if may_see(s, t, own)
            )

        while not caught_up() and time.monotonic() - ended < DRAIN:
            await asyncio.sleep(0.2)
        busy_after, total_after = machine()
        cpu = {name: sum(map(proc_cpu, pids)) - cpu_before[name] for name, pids in parts.items()}
        cpu["this client"] = time.process_time() - client_before
        rss_peak = {port: rss_mb(pid) for port, pid in apps.items()}
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    found = judge(streams, taps)
    return {
        **found,
        "streams": len(streams),
        "opened": opened,
        "refused": refused,
        "ended": sum(len(s.ended) for s, _o, _t in streams if not s.error),
        "reconnects": sum(s.reconnects for s, _o, _t in streams),
        "taps": sum(len(dj.taps) for dj in djs),
        "errors": [e for dj in djs for e in dj.errors],
        "held": held,
        "rss_before": rss_before,
        "rss_open": rss_open,
        "rss_peak": rss_peak,
        "nginx_mb": (nginx_before, nginx_open),
        "cpu": cpu,
        "busy": (busy_after - busy_before) / ((total_after - total_before) or 1),
        "load": (load_before, load()),
        "odd": sum(len(s.odd) for s, _o, _t in streams),
        "idle": idle,
    }


def run_size(count: int) -> bool:
    started = time.monotonic()
    with Topology(4) as topology:
        tables = topology.django(
            "import json; from tests.deploy.table import make_many; "
            f"print(json.dumps(make_many({count}, {PLAYERS})))"
        )
        made = time.monotonic() - started
        print(f"{count} campaigns: set up in {made:.0f} s", file=sys.stderr, flush=True)
        try:
            import uvloop

            figures = uvloop.run(play(topology, tables))
        except ImportError:
            figures = asyncio.run(play(topology, tables))
    return report(count, figures, made)


def kinds(errors: list[str]) -> str:
    """ " (409 busy 12, 502 3)": how many taps got each answer (or exception)."""
    counted: collections.Counter[str] = collections.Counter()
    for error in errors:
        words = error.split(": ", 1)[-1].split(" ")
        counted[" ".join(words[:2]) if words[0].isdigit() else words[0]] += 1
    return f" ({', '.join(f'{kind} {n}' for kind, n in counted.most_common())})" if errors else ""


def report(count: int, f: dict, made: float) -> bool:
    delays = f["delays"]
    errors = len(f["errors"]) + len(f["refused"]) + f["ended"] + f["odd"]
    median = statistics.median(delays) if delays else math.inf
    high = p95(delays) if delays else math.inf
    good_delivery = not f["lost"] and not f["leaked"] and bool(delays)
    good_time = high <= P95_TARGET and median <= MEDIAN_TARGET
    ok = good_delivery and good_time and not errors
    label = f"{count} campaigns"
    print(
        f"{label}: {f['streams']} streams ({count} boards, {count * PLAYERS} sheets) through "
        f"nginx over HTTPS on 4 app processes (held "
        + ", ".join(map(str, f["held"].values()))
        + f" connections), opened in {f['opened']:.0f} s; {f['taps']} taps in {SECONDS:.0f} s "
        f"({f['taps'] / SECONDS:.1f}/s); set up in {made:.0f} s"
    )

    def ms(values: list[float]) -> str:
        if not values:
            return "none"
        return (
            f"median {statistics.median(values) * 1000:.0f} ms, p95 {p95(values) * 1000:.0f} "
            f"ms ({len(values)})"
        )

    print(
        f"{label}: {len(delays)} deliveries to sheets, lost {f['lost']}, heard what they may "
        f"not {f['leaked']}; tap to sheet median {median * 1000:.0f} ms (target <= "
        f"{MEDIAN_TARGET * 1000:.0f}), p95 {high * 1000:.0f} ms (target <= "
        f"{P95_TARGET * 1000:.0f}), max {max(delays, default=math.inf) * 1000:.0f} ms; "
        f"errors {len(f['errors'])} taps{kinds(f['errors'])}, {len(f['refused'])} streams refused, "
        f"{f['ended']} streams ended, {f['reconnects']} reconnects, {f['odd']} odd messages"
        + (f" (e.g. {(f['errors'] + f['refused'])[0]})" if f["errors"] or f["refused"] else "")
    )
    print(
        f"{label}: of those, time passing for the party (every sheet of the table): "
        f"{ms(f['party'])}; to the DJ boards (which show their own tap's answer first): "
        f"{ms(f['boards'])}"
    )
    print(
        f"{label}: where the sheets' delays went: from the tap until the server sent the "
        f"message {ms(f['server'])}; from then until this client had it {ms(f['after'])}"
    )
    per_stream = [
        (f["rss_open"][port] - f["rss_before"][port]) / max(1, f["held"][port])
        for port in f["held"]
    ]
    print(
        f"{label}: app processes RSS before the streams "
        + ", ".join(f"{mb:.0f}" for mb in f["rss_before"].values())
        + " MB, with them "
        + ", ".join(f"{mb:.0f}" for mb in f["rss_open"].values())
        + " MB, after "
        + ", ".join(f"{mb:.0f}" for mb in f["rss_peak"].values())
        + f" MB: {statistics.mean(per_stream) * 1024:.0f} KiB per open stream; nginx "
        f"{f['nginx_mb'][0]:.0f} -> {f['nginx_mb'][1]:.0f} MB "
        f"({(f['nginx_mb'][1] - f['nginx_mb'][0]) * 1024 / max(1, f['streams']):.0f} KiB "
        "per stream, both sides)"
    )
    cpu = f["cpu"]
    served = sum(v for k, v in cpu.items() if k != "this client")
    per = served / max(1, len(delays) + len(f["boards"])) * 1000
    idle_share = f["idle"] * SECONDS  # what the apps would have spent with no tap
    per_tap = max(0.0, cpu["apps"] - idle_share) / max(1, f["taps"]) * 1000
    busy = f["busy"]
    limit = busy >= BUSY
    print(
        f"{label}: CPU with every stream open and no tap: the apps "
        f"{f['idle'] * 1000:.0f} ms/s ({f['idle'] * 1e6 / f['streams']:.0f} µs/s per stream: "
        f"pings, each session checked every 30 s); in the {SECONDS:.0f} s of taps: "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in cpu.items())
        + f"; the apps {per_tap:.0f} ms per tap beyond the streams' own"
        + f", the servers' {per:.1f} ms per delivered change; the machine's 2 cores "
        f"{busy:.0%} busy (other work on it included)"
        + (" (the cores were the limit)" if limit else "")
        + f"; load average {f['load'][0]} before, {f['load'][1]} after"
        + f" {'OK' if ok else 'MISSED'}"
    )
    if not ok:
        why = []
        if not good_delivery:
            why.append("a change lost or heard where it may not be")
        if not good_time:
            why.append(
                "tap to page beyond its target"
                + (", with the 2 cores the limit (the client shares them)" if limit else "")
            )
        if errors:
            why.append("errors")
        print(f"{label}: MISSED: " + "; ".join(why))
    return ok


def main() -> int:
    # Stopped (a timeout, Ctrl+C's cousin): the topology still stops its servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    results = []
    for count in SIZES:
        try:
            results.append(run_size(count))
        except (RuntimeError, TimeoutError, json.JSONDecodeError) as error:
            print(f"{count} campaigns: MISSED: {type(error).__name__} {error}")
            results.append(False)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
