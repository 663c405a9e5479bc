"""Faults: the server killed (SIGKILL) in the middle of a burst of DJ taps, and restarted.

Targets (issue #17, "Faults"), on SQLite (a file, as `make run` serves it) and on
PostgreSQL (a throwaway cluster, when initdb and pg_ctl exist):

- every write the server acknowledged (a 2xx answer received whole) is in the log after
  the restart, found by its idempotency key; a write whose answer was lost may be there or
  not (it is counted), a refused one never;
- nothing half-written: seq runs 1..last_seq with no gap, every event has the per-PJ states
  its effects name (and no other), every PJ's sheet is the state after its latest event,
  the change cursor runs 1..change_cursor with one change per event;
- `manage.py replay_check` passes on the same database (exit code 0);
- the restarted server answers the board (200) and records a new event.

The table: bench_live's (8 PJ, each with its player, and the DJ). CLIENTS (4) clients each
tap their own PJ back to back through the DJ's real endpoint (POST /c/<slug>/pj/<pk>/accion/,
a Fatiga leve with a key of its own, over raw HTTP), and once KILL_AFTER (40) writes were
acknowledged the uvicorn process group is sent SIGKILL, taps still in flight. The server is
then started again on the same port and database. Loopback only; every wait has a
deadline; the server and the cluster are stopped on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from _pg import throwaway_postgresql  # noqa: E402
from _server import server_env, start_server, stop  # noqa: E402
from bench_live import csrf_token, setup_data  # noqa: E402

CLIENTS = int(os.environ.get("CLIENTS", "4"))
KILL_AFTER = int(os.environ.get("KILL_AFTER", "40"))  # acknowledged writes before the kill
SLUG = "bench"  # bench_live's table
BURST_S = 20.0  # the kill comes by then whatever was acknowledged
REQUEST_S = 10.0  # one tap's answer
BACK_S = 30.0  # from the kill to the board's 200 again
CHILD_S = 120.0  # one database, everything included


# --- The DJ's taps over raw HTTP ----------------------------------------------------------


@dataclass
class Write:
    """One tap: its key, its PJ, and what became of it."""

    key: str
    pj: int
    state: str = "unsent"  # -> "sent" (request written) -> "acked" / "refused" / "lost"
    status: int = 0


class Incomplete(Exception):
    """The answer stopped before its end (the connection closed halfway)."""


def answer_of(raw: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    """Status, headers and body of a whole HTTP/1.1 answer; Incomplete when cut short."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        raise Incomplete("no end of headers")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    if b"content-length" in headers:
        length = int(headers[b"content-length"])
        if len(body) < length:
            raise Incomplete(f"{len(body)} of {length} bytes")
        body = body[:length]
    elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        if not body.endswith(b"0\r\n\r\n"):
            raise Incomplete("no last chunk")
    return status, headers, body


class Dj:
    """The DJ's browser: its session cookie, a CSRF token, one connection per request."""

    def __init__(self, port: int, cookie: str) -> None:
        self.port = port
        self.csrf = csrf_token()
        self.cookie = f"{cookie}; csrftoken={self.csrf}"

    async def request(self, method: str, path: str, form: dict | None = None, write=None):
        body = urlencode(form or {}).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.cookie}\r\n"
        if method == "POST":
            head += (
                f"X-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(body)}\r\n"
            )
        head += "Connection: close\r\n\r\n"
        async with asyncio.timeout(REQUEST_S):
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                if write is not None:
                    write.state = "sent"  # from here the server may get it whole
                writer.write(head.encode() + body)
                await writer.drain()
                return answer_of(await reader.read())
            finally:
                writer.close()

    async def tap(self, write: Write) -> None:
        """A Fatiga leve for `write.pj`, keyed `write.key`, as the board's htmx posts it."""
        form = {"action": "suffer", "type_grade": "fatiga:leve", "key": write.key}
        try:
            status, _headers, _body = await self.request(
                "POST", f"/c/{SLUG}/pj/{write.pj}/accion/", form, write
            )
        except (OSError, Incomplete, TimeoutError, ValueError, IndexError):
            if write.state == "sent":
                write.state = "lost"  # the server may have written it: the answer is gone
            return
        write.status = status
        write.state = "acked" if 200 <= status < 300 else "refused"


async def burst(dj: Dj, table: dict, server: subprocess.Popen) -> tuple[list[Write], dict]:
    """CLIENTS clients tapping their own PJ back to back; SIGKILL to the server's process
    group once KILL_AFTER writes were acknowledged. The writes, and when the kill came."""
    writes: list[Write] = []
    killed = asyncio.Event()
    started = time.monotonic()

    async def client(n: int) -> None:
        own = table["pj"][n::CLIENTS]
        i = 0
        while not killed.is_set() and time.monotonic() - started < BURST_S:
            write = Write(key=f"faults-{n}-{i}-{secrets.token_hex(4)}", pj=own[i % len(own)]["pk"])
            writes.append(write)
            await dj.tap(write)
            i += 1

    async def killer() -> dict:
        while sum(w.state == "acked" for w in writes) < KILL_AFTER:
            if time.monotonic() - started > BURST_S or server.poll() is not None:
                break
            await asyncio.sleep(0.001)
        in_flight = sum(w.state == "sent" for w in writes)
        with contextlib.suppress(ProcessLookupError):  # died already: the check says so
            os.killpg(server.pid, signal.SIGKILL)
        at = time.monotonic()
        killed.set()
        return {"at": at, "in_flight": in_flight, "after_s": at - started}

    clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
    kill = await killer()
    async with asyncio.timeout(REQUEST_S + 5):
        await asyncio.gather(*clients)
    return writes, kill


async def board_back(dj: Dj, since: float) -> tuple[float | None, int]:
    """Seconds from `since` to the board's first answer, None past BACK_S; its status."""
    while time.monotonic() - since < BACK_S:
        try:
            status, _headers, _body = await dj.request("GET", f"/c/{SLUG}/")
            return time.monotonic() - since, status
        except (OSError, Incomplete, TimeoutError):
            await asyncio.sleep(0.05)
    return None, 0


# --- The log after the restart (the child's own Django, on the same database) -------------


def log_problems() -> tuple[list[str], dict]:
    """What is half-written in the campaign's log and projections (nothing, when sound),
    and its keys (without the user prefix the view adds) with each one's PJ."""
    from campaign.models import (
        Campaign,
        CampaignChange,
        CharacterSnapshot,
        EventSnapshot,
        StateEvent,
    )

    campaign = Campaign.objects.get(slug=SLUG)
    problems = []
    events = list(
        StateEvent.objects.filter(campaign=campaign)
        .order_by("seq")
        .values("pk", "seq", "character_id", "effects", "idempotency_key", "void_at")
    )
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append(f"seq not contiguous from 1 ({len(seqs)} events, last #{seqs[-1]})")
    newest_seq = seqs[-1] if seqs else 0
    if campaign.last_seq != newest_seq:
        problems.append(f"last_seq {campaign.last_seq} but the newest event is #{newest_seq}")

    states: dict[int, list[tuple[int, int]]] = {e["pk"]: [] for e in events}
    newest: dict[int, tuple[int, int]] = {}  # PJ -> (seq, EventSnapshot pk) of its latest
    for snap in EventSnapshot.objects.filter(event__campaign=campaign).values(
        "pk", "event_id", "character_id", "seq"
    ):
        states.setdefault(snap["event_id"], []).append((snap["character_id"], snap["seq"]))
        if snap["seq"] > newest.get(snap["character_id"], (0, 0))[0]:
            newest[snap["character_id"]] = (snap["seq"], snap["pk"])
    for e in events:
        named = {int(pk) for pk in e["effects"]}
        held = {pj for pj, _seq in states[e["pk"]]}
        if named != held or any(seq != e["seq"] for _pj, seq in states[e["pk"]]):
            problems.append(f"#{e['seq']}: effects for {sorted(named)}, states for {sorted(held)}")
        if e["character_id"] is not None and named != {e["character_id"]}:
            problems.append(f"#{e['seq']}: a PJ's event with effects for {sorted(named)}")

    latest = EventSnapshot.objects.filter(pk__in=[pk for _seq, pk in newest.values()])
    after = dict(latest.values_list("pk", "state"))
    for sheet in CharacterSnapshot.objects.filter(character__campaign=campaign):
        seq, pk = newest.get(sheet.character_id, (0, None))
        if sheet.seq != seq:
            problems.append(f"PJ {sheet.character_id}: sheet at #{sheet.seq}, its latest #{seq}")
        elif pk is not None and sheet.state != after[pk]:
            problems.append(f"PJ {sheet.character_id}: sheet differs from its state after #{seq}")

    cursors = list(
        CampaignChange.objects.filter(campaign=campaign)
        .order_by("cursor")
        .values_list("cursor", "kind")
    )
    if [c for c, _kind in cursors] != list(range(1, len(cursors) + 1)):
        problems.append(f"change cursor not contiguous ({len(cursors)} changes)")
    if campaign.change_cursor != len(cursors):
        problems.append(f"change_cursor {campaign.change_cursor}, {len(cursors)} changes")
    for kind, count in (
        (CampaignChange.Kind.EVENT, len(events)),
        (CampaignChange.Kind.VOID, sum(e["void_at"] is not None for e in events)),
    ):
        changes = sum(k == kind for _c, k in cursors)
        if changes != count:
            problems.append(f"{changes} changes of kind {kind} for {count} such events")

    keys = {
        e["idempotency_key"].split(":", 1)[1]: e["character_id"]
        for e in events
        if e["idempotency_key"]
    }
    return problems, keys


# --- One database, in a child process of its own ----------------------------------------


def run_one(database_url: str, label: str, static_root: str) -> int:
    # The board's pages need the collected static files (their manifest), as `make run`
    # serves them with DEBUG off.
    env = server_env(database_url, STATIC_ROOT=static_root)
    os.environ.update(env)
    table = setup_data()["plain"]
    from django.core.management import call_command
    from django.db import connection

    call_command("collectstatic", interactive=False, verbosity=0)

    problems, _keys = log_problems()
    if problems:  # the check itself is wrong, or the setup is
        print(f"{label}: MISSED: the fresh table already fails the check: {problems[:3]}")
        return 1
    connection.close()

    server, port = start_server(env, workers=1, own_group=True)
    try:
        dj = Dj(port, table["dj"])
        writes, kill = asyncio.run(burst(dj, table, server))
        server.wait(timeout=10)
        try:
            server, _port = start_server(env, workers=1, port=port, own_group=True)
        except RuntimeError as error:
            raise RuntimeError(f"the restart after the kill: {error}") from None
        accepting = time.monotonic() - kill["at"]
        back, board = asyncio.run(board_back(dj, kill["at"]))

        problems, keys = log_problems()
        connection.close()
        replay = subprocess.run(
            [sys.executable, "manage.py", "replay_check"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        new = Write(key=f"after-restart-{secrets.token_hex(4)}", pj=table["pj"][0]["pk"])
        asyncio.run(dj.tap(new))
        problems_after, keys_after = log_problems()
        connection.close()
    finally:
        if server.poll() is None:
            stop(server)

    sent = [w for w in writes if w.state != "unsent"]
    acked = [w for w in sent if w.state == "acked"]
    refused = [w for w in sent if w.state == "refused"]
    lost = [w for w in sent if w.state == "lost"]
    found = [w for w in acked if keys.get(w.key) == w.pj]
    lost_present = [w for w in lost if w.key in keys]
    refused_present = [w for w in refused if w.key in keys]
    sent_keys = {w.key for w in sent}
    strangers = [k for k in keys if k.startswith("faults-") and k not in sent_keys]
    new_found = new.state == "acked" and keys_after.get(new.key) == new.pj

    print(
        f"{label}: {CLIENTS} clients, SIGKILL after {kill['after_s']:.2f} s with "
        f"{kill['in_flight']} taps in flight: writes sent {len(sent)}, acknowledged "
        f"{len(acked)}, refused {len(refused)}, answer lost {len(lost)}"
    )
    print(
        f"{label}: after the restart: acknowledged and found {len(found)} of {len(acked)}, "
        f"unacknowledged but present {len(lost_present)} of {len(lost)} (written, the answer "
        f"lost), refused but present {len(refused_present)}, keys never sent "
        f"{len(strangers)}"
    )
    print(
        f"{label}: back: accepting connections {accepting:.2f} s after the kill, the board's "
        + (f"{board} after {back:.2f} s" if back is not None else f"none in {BACK_S:.0f} s")
        + f"; half-written: {len(problems)} problems; replay_check exit {replay.returncode}; "
        f"a new event after the restart: {new.state} ({new.status}), in the log "
        f"{'yes' if new_found else 'no'}, log sound after it: "
        f"{'yes' if not problems_after else 'no'}"
    )
    for problem in (problems + problems_after)[:10]:
        print(f"{label}:   {problem}")
    if replay.returncode:
        print(f"{label}:   replay_check: {(replay.stderr or replay.stdout).strip()[-500:]}")
    ok = (
        bool(acked)
        and len(found) == len(acked)
        and not refused
        and not strangers
        and not problems
        and not problems_after
        and replay.returncode == 0
        and board == 200
        and new_found
    )
    print(f"{label}: {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


# --- The two databases ------------------------------------------------------------------


def child(database_url: str, label: str) -> int:
    """run_one in a process of its own (Django is set up once per process)."""
    command = [sys.executable, __file__, "--database-url", database_url, "--label", label]
    try:
        return subprocess.run(command, cwd=ROOT, timeout=CHILD_S).returncode
    except subprocess.TimeoutExpired:
        print(f"{label}: gave up after {CHILD_S:.0f} s", file=sys.stderr)
        return 1


def on_sqlite() -> int:
    with tempfile.TemporaryDirectory(prefix="zodiac-bench-faults.") as tmp:
        return child(f"sqlite:///{tmp}/faults.sqlite3", "SQLite")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="run once against this database (internal)")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    if args.database_url:
        try:
            with tempfile.TemporaryDirectory(prefix="zodiac-bench-static.") as static_root:
                return run_one(args.database_url, args.label, static_root)
        except (RuntimeError, TimeoutError, subprocess.TimeoutExpired) as error:
            print(f"{args.label}: MISSED: {error or 'a deadline passed'}")
            return 1

    results = [on_sqlite()]
    with throwaway_postgresql() as url:
        if url is not None:
            results.append(child(url, "PostgreSQL"))
    return 1 if any(results) else 0


if __name__ == "__main__":
    sys.exit(main())
