"""The live channel's server share, without a browser: players' sheets following a table.

Each sheet is a client on a raw socket that reads the stream (/en-vivo/) as a phone would and
"applies" what it receives: it parses each message and takes its own card from it. The DJ
taps through the server (an HTTP POST, as the board does). Measured from the moment the
tap's request is sent to the moment each sheet holds its new card (targets, the live-pages
issue):

- a party event (time passes for every PJ) with 20 sheets open: p95 <= 50 ms;
- the same with 100 sheets: p95 <= 150 ms;
- a change to one PJ with 100 sheets open: p95 <= 30 ms for that PJ's sheets;
- the same table in a fight with PNJ (issue #26's ambush: its 8 PJ, three Bandidos of a
  Plantilla sharing one turn, unrevealed, and their Jefe, revealed with his state in
  words), 100 sheets open: a change to one PJ, p95 <= 30 ms for its sheets, as without
  PNJ; a change to the Jefe, which every sheet hears as the fight's PNJ ("foes"), p95 <=
  150 ms (as a party event); the turn passing (every card and the foes), p95 <= 150 ms.
  No sheet may hear what players may not see: a PNJ's id, or the Bandidos' name;
  (these six are judged on SQLite, the default database, and reported on PostgreSQL,
  where a write takes longer: there only a lost change fails);
- the soak (issue #17, "Load"), on PostgreSQL with two uvicorn workers: 5 tables, each its
  own DJ writing 2 events/s for 60 s (10 events/s in all), while 200 player streams
  follow them: no error response (every DJ write answered 2xx, no connection refused,
  dropped or timed out, no stream lost), every stream gets every change it may see (its
  own PJ's and its campaign's party events, each with its card) and nothing else (no
  other PJ's or campaign's); p95 and max delivery reported, and each worker's memory
  (target <= 200 MB).

The tap lines: one table of 8 PJ, each with its own player, and the fight table beside
it (the same, with its PNJ); the sheets are spread over the players (several devices
each). The soak's 5 DJs are 5 tables (campaigns) on one server, each its DJ and 8 PJ with
their players: Membership would let a campaign have several DJs, but a table is one DJ
board (two at most) and a phone per player, so five DJs writing at once are five
tables. Its 200 player streams are spread over the 40 PJ
(5 devices each, each device its own session), and each DJ's board follows its table too
(checked like the sheets: every change of its campaign, with the card). SQLite runs the
tap lines; PostgreSQL (a throwaway cluster, when initdb and pg_ctl exist) those and the soak.
Loopback only; a fixed number of sockets (the streams, one write per DJ at a time); every
wait has a deadline; the servers and the cluster are stopped on exit. Knobs: TAPS (20),
SECONDS (60) and TABLES (5) for the soak; `--only taps` or `--only soak` runs one part.
Every stream asks for gzip, as every browser does, and inflates what it reads as it comes;
GZIP=0 reads them plain (the streams as they were before compression, to compare), and
GZIP=half has the soak's streams half and half (of each PJ's five devices three gzipped and
two plain; the boards in turn), so both kinds are measured in the same run, under the same
load on the machine. Each tap line also reports the server's CPU time over its taps; the
soak also reports the bytes each `change` message took on the wire, and inflated.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _pg import throwaway_postgresql  # noqa: E402
from _server import server_env, start_server, stop  # noqa: E402

PJ = 8
TAPS = int(os.environ.get("TAPS", "20"))
SECONDS = int(os.environ.get("SECONDS", "60"))
GZIP_MODE = os.environ.get("GZIP", "1")  # "1" every stream, "0" none, "half" (the soak)
GZIP = GZIP_MODE != "0"  # the streams ask for gzip, as browsers do
DEADLINE = 3.0  # seconds for one tap to reach every sheet; later is a miss
PACE = 0.3  # seconds between taps: a table's pace, not back to back
RSS_TARGET_MB = 200.0


def rss_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (VmRSS, VmHWM), in MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return tuple(int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM"))


def cpu_s(pid: int) -> float:
    """The CPU time the process has used (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


# --- The table (a child process: Django is set up once per process) ------------------------


def setup_data() -> dict:
    """Migrate, and make the two tables: `plain` (campaign "bench"), a DJ and PJ players with
    their PJ, no fight; `fight` (campaign "fight"), the same and PNJ with them in a fight
    (FIGHT_PNJ). Sessions for every user."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return {"plain": table_data("bench"), "fight": table_data("fight", pnj=True)}


# The fight table's PNJ, the ambush: three Bandidos of a Plantilla sharing one turn,
# unrevealed ("un enemigo": their names must never reach a sheet), and their Jefe, revealed
# with his state in words.
SECRET = "Bandido"


def table_data(slug: str, *, pnj: bool = False) -> dict:
    """One table: a DJ, PJ players and their PJ; with `pnj`, the Bandidos and the Jefe in a
    fight with every PJ (the PJ first, then the Bandidos, then the Jefe)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaign import services
    from campaign.models import Character, Membership
    from campaign.turn_order import Slot

    users = get_user_model().objects
    dj = users.create_user(f"{slug}-dj")
    campaign = services.campaign_create(name=slug.title(), slug=slug, dj=dj)
    pj = []
    for n in range(PJ):
        player = users.create_user(f"{slug}-player-{n}")
        services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        pj.append(
            services.character_create(
                campaign=campaign,
                name=f"PJ {n}",
                player=player,
                attributes={"FUE": 3, "AGI": 3, "VOL": 3},
            )
        )
    jefe = None
    if pnj:
        bandido = services.template_save(campaign=campaign, name=SECRET, attributes={"VOL": 2})
        bandidos = services.pnj_create(campaign=campaign, template=bandido, count=3)
        jefe = services.pnj_create(campaign=campaign, name="Jefe Ruiz", attributes={"VOL": 3})[0]
        services.pnj_settings_set(character=jefe, revealed=True, shows=Character.Shows.PALABRAS)
        order = [Slot(pj=c.pk, init=20 - n) for n, c in enumerate(pj)]
        order.append(Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=5))
        order.append(Slot(pj=jefe.pk, init=4))
        services.fight_start(campaign=campaign, order=order)

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return (
            f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        )

    campaign.refresh_from_db()
    return {
        "slug": slug,
        "campaign": campaign.pk,
        "cursor": campaign.change_cursor,
        "dj": cookie(dj),
        "pj": [{"pk": c.pk, "player": c.player_id, "cookie": cookie(c.player)} for c in pj],
        "pnj": jefe.pk if jefe is not None else None,
        "pnj_all": [c.pk for c in campaign.characters.filter(kind=Character.Kind.PNJ)],
    }


def csrf_token() -> str:
    """A CSRF cookie value of the form Django makes (32 letters and digits); the DJ's taps send
    it back as the header, as the board's htmx does."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(secrets.choice(alphabet) for _ in range(32))


# --- A sheet: one stream, its messages applied -------------------------------------------


class Heard(NamedTuple):
    """One `change` message as a sheet received it."""

    after: int  # the cursor the stream had sent before this message
    cursor: int
    pj: frozenset  # the PJ ids it names
    all: bool  # every card changed
    with_card: bool  # the sheet's own card came in it
    when: float  # time.monotonic() on arrival
    campaign: int
    parts: frozenset  # the names of the rendered parts it carried


class Sheet:
    """One phone's stream: each change it heard, when, and whether its own card came in it.

    Its `error` says why the stream failed or ended before it was closed; `odd` names the
    messages a table in play should never get (e.g. `reopen`)."""

    def __init__(
        self,
        pj: dict,
        campaign: int,
        cursor: int,
        gzip: bool = GZIP,
        hidden: tuple[frozenset, str] = (frozenset(), ""),
    ) -> None:
        self.pj = pj
        # What no message may carry: the PNJ's ids, and a name the DJ has not revealed.
        self.hidden = hidden
        self.leaked = 0
        self.gzip = gzip  # it asks for gzip
        self.campaign = campaign
        self.path = "/en-vivo/?" + urlencode({"since": f"{campaign}:{cursor}"})
        self.heard: list[Heard] = []
        self.odd: list[str] = []
        self.ready = asyncio.Event()
        self.error: str | None = None
        # Body bytes after `hello`: as they came (gzipped or not), and inflated.
        self.wire = 0
        self.inflated = 0

    async def run(self, port: int) -> None:
        try:
            await self._read(port)
            self.error = "the server ended the stream"
        except (OSError, RuntimeError, asyncio.IncompleteReadError, ValueError) as error:
            self.error = str(error) or type(error).__name__
        finally:
            self.ready.set()

    async def _read(self, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.pj['cookie']}\r\n"
                "Accept: text/event-stream\r\n"
                + ("Accept-Encoding: gzip, deflate\r\n" if self.gzip else "")
                + "\r\n"
            ).encode()
        )
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
            chunked = b"transfer-encoding: chunked" in head.lower()
            gzipped = b"content-encoding: gzip" in head.lower()
            if self.gzip != gzipped:
                raise RuntimeError(f"the stream came {'gzipped' if gzipped else 'plain'}")
            inflate = zlib.decompressobj(wbits=31)
            raw, body = b"", b""
            own = f"own:{self.pj['pk']}"
            while True:
                chunk = await reader.read(1 << 20)
                if not chunk:
                    return
                if chunked:
                    raw += chunk
                    chunk, raw = _unchunk(raw)
                plain = inflate.decompress(chunk) if gzipped else chunk
                if self.ready.is_set():
                    self.wire += len(chunk)
                    self.inflated += len(plain)
                body += plain
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
        event = fields.get("event")
        if event == "hello":
            self.ready.set()
        if event not in ("hello", "ping", "change", None):
            self.odd.append(event)
        if event != "change":
            return
        data = json.loads(fields["data"])  # what a phone does with it
        parts = data.get("parts") or {}
        pnj, name = self.hidden
        if pnj & set(data["pj"]) or (name and name in fields["data"]):
            self.leaked += 1
        self.heard.append(
            Heard(
                data["after"],
                data["cursor"],
                frozenset(data["pj"]),
                data["all"],
                isinstance(parts.get(own), str),
                time.monotonic(),
                data["campaign"],
                frozenset(name for name, html in parts.items() if isinstance(html, str)),
            )
        )

    def holds(self, cursor: int, part: str = "") -> float | None:
        """When this sheet first held its card at `cursor` or later (its own part came), or
        the `part` named (the fight's PNJ as players see them: "foes")."""
        for message in self.heard:
            if message.cursor >= cursor and (part in message.parts if part else message.with_card):
                return message.when
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
    hidden = (frozenset(table["pnj_all"]), SECRET if table["pnj"] else "")
    cursor = await asyncio.to_thread(cursor_now, table["slug"])
    sheets = [
        Sheet(table["pj"][n % PJ], table["campaign"], cursor, hidden=hidden) for n in range(count)
    ]
    tasks = [asyncio.create_task(s.run(port)) for s in sheets]
    async with asyncio.timeout(30):
        await asyncio.gather(*(s.ready.wait() for s in sheets))
    failed = [s.error for s in sheets if s.error]
    if failed:
        raise RuntimeError(f"{len(failed)} of {count} streams failed, e.g. {failed[0]}")
    return sheets, tasks


def cursor_now(slug: str) -> int:
    from campaign.models import Campaign

    return Campaign.objects.get(slug=slug).change_cursor


def turn_now(slug: str) -> str:
    """The fight's turn token, as the board's pass button sends it."""
    from campaign import selectors
    from campaign.models import Campaign

    fight = selectors.fight_now(campaign=Campaign.objects.get(slug=slug))
    assert fight is not None, f"no fight on in {slug}"
    return fight.token


async def close(tasks: list) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def taps_to_sheets(port: int, table: dict, tapper: Tapper, count: int, what: str):
    """TAPS taps of `what` on `table`; each one's delay to every sheet it changes.
    (delays, missed, leaked). `what`: "party" (time passes), "pj" (a blow to the first PJ,
    then its undo), "pnj" (the same to the table's PNJ: every sheet's "foes") or "pass"
    (the fight's turn passes: every card)."""
    sheets, tasks = await open_sheets(port, table, count)
    slug = table["slug"]
    delays, missed = [], 0
    try:
        for n in range(TAPS):
            part = ""
            told = sheets
            if what == "party":
                form = {"amount": "1", "unit": "minutes"}
                sent, cursor = await tapper.post(f"/c/{slug}/tiempo/", form)
            elif what == "pass":
                turn = await asyncio.to_thread(turn_now, slug)
                sent, cursor = await tapper.post(f"/c/{slug}/combate/turno/", {"turn": turn})
            else:
                pk = table["pnj"] if what == "pnj" else table["pj"][0]["pk"]
                if n % 2 == 0:
                    form = {"action": "suffer", "type_grade": "fatiga:leve"}
                    sent, cursor = await tapper.post(f"/c/{slug}/pj/{pk}/accion/", form)
                else:
                    sent, cursor = await tapper.post(f"/c/{slug}/deshacer/", {})
                if what == "pnj":
                    part = "foes"
                else:
                    told = [s for s in sheets if s.pj is table["pj"][0]]
            deadline = sent + DEADLINE
            while time.monotonic() < deadline:
                held = [s.holds(cursor, part) for s in told]
                if all(h is not None for h in held):
                    break
                await asyncio.sleep(0.002)
            delays += [h - sent for h in held if h is not None]
            missed += sum(h is None for h in held)
            await asyncio.sleep(PACE)
    finally:
        await close(tasks)
    return delays, missed, sum(s.leaked for s in sheets)


# --- The soak: five tables on one server ---------------------------------------------------

TABLES = int(os.environ.get("TABLES", "5"))
STREAMS = 200  # player streams, over every table's PJ
RATE = 2.0  # each DJ's writes per second
POST_DEADLINE = 10.0  # seconds for a DJ's write to be answered; later is an error
DRAIN = 30.0  # seconds after the last write for every stream to catch up; then a miss


def session_cookie(user) -> str:
    """A new session of `user` (a browser or phone of its own), as its Cookie header."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


def soak_tables() -> tuple[list[dict], list[tuple[dict, dict]]]:
    """TABLES campaigns, each with its DJ and PJ players; and the STREAMS devices as
    (table, device): round the tables, then round each table's PJ, each its own session."""
    from django.contrib.auth import get_user_model

    from campaign import services
    from campaign.models import Membership

    users = get_user_model().objects
    tables, players = [], {}
    for t in range(TABLES):
        dj = users.create_user(f"soak-{t}-dj")
        campaign = services.campaign_create(name=f"Soak {t}", slug=f"soak-{t}", dj=dj)
        pj = []
        for n in range(PJ):
            player = users.create_user(f"soak-{t}-player-{n}")
            services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
            character = services.character_create(
                campaign=campaign,
                name=f"PJ {n}",
                player=player,
                attributes={"FUE": 3, "AGI": 3, "VOL": 3},
            )
            players[character.pk] = player
            pj.append({"pk": character.pk, "player": player.pk})
        campaign.refresh_from_db()
        tables.append(
            {
                "slug": campaign.slug,
                "campaign": campaign.pk,
                "cursor": campaign.change_cursor,
                "dj": session_cookie(dj),
                "pj": pj,
            }
        )
    devices = []
    for n in range(STREAMS):
        table = tables[n % TABLES]
        pj = table["pj"][(n // TABLES) % PJ]
        devices.append((table, {**pj, "cookie": session_cookie(players[pj["pk"]])}))
    return tables, devices


class Dj:
    """One table's DJ, its own browser (session): RATE writes a second through the server,
    one at a time, each on its own connection; what was refused or failed is counted."""

    def __init__(self, port: int, table: dict) -> None:
        self.port = port
        self.table = table
        self.csrf = csrf_token()
        self.cookie = f"{table['dj']}; csrftoken={self.csrf}"
        self.writes: list[tuple[float, int, int | None]] = []  # sent, cursor, PJ (None: all)
        self.errors: list[str] = []
        self.answered: list[float] = []

    async def post(self, path: str, form: dict) -> tuple[float, int | None]:
        """One write: (when it was sent, its change cursor; None when it failed)."""
        body = urlencode({**form, "key": secrets.token_hex(8)}).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.cookie}\r\n"
            f"X-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sent, writer = time.monotonic(), None
        try:
            async with asyncio.timeout(POST_DEADLINE):
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                sent = time.monotonic()
                writer.write(head.encode() + body)
                answer = await reader.read()
        except (OSError, TimeoutError) as error:
            self.errors.append(f"{path}: {type(error).__name__} {error}".rstrip())
            return sent, None
        finally:
            if writer is not None:
                writer.close()
        self.answered.append(time.monotonic() - sent)
        status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        code = status.split(" ")[1] if status.count(" ") >= 1 else ""
        found = re.search(rb"(?i)\r\nx-change-cursor: (\d+)", answer)
        if not code.startswith("2") or len(code) != 3:
            self.errors.append(f"{path}: {status or 'no answer'}")
            return sent, None
        if not found:
            self.errors.append(f"{path}: {status} without X-Change-Cursor")
            return sent, None
        return sent, int(found.group(1))

    async def play(self, start: float) -> None:
        """Write from `start` for SECONDS: a Shock leve to each PJ in turn, every tenth
        write time passing for the party."""
        slug, n = self.table["slug"], 0
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        while time.monotonic() - start < SECONDS:
            if n % 10 == 9:
                pj = None
                sent, cursor = await self.post(
                    f"/c/{slug}/tiempo/", {"amount": "1", "unit": "minutes"}
                )
            else:
                pj = self.table["pj"][n % PJ]["pk"]
                form = {"action": "suffer", "type_grade": "shock:leve"}
                sent, cursor = await self.post(f"/c/{slug}/pj/{pj}/accion/", form)
            if cursor is not None:
                self.writes.append((sent, cursor, pj))
            n += 1
            await asyncio.sleep(max(0.0, start + n / RATE - time.monotonic()))


def check(stream: Sheet, writes: list[tuple[float, int, int | None]], pks: set[int]) -> dict:
    """What one stream heard against its table's writes: the delays of the changes it may
    see, those it missed (never, or without its card), and the messages it may not hear."""
    own = stream.pj["pk"]
    board = own is None  # a DJ's board: every change of its campaign
    if board:
        may_name, may_render = pks, {f"card:{pk}" for pk in pks} | {"panels"}
    else:
        may_name, may_render = {own}, {f"own:{own}", "status"}
    leaked = sum(
        m.campaign != stream.campaign or bool(m.pj - may_name) or bool(m.parts - may_render)
        for m in stream.heard
    )
    delays, missed = [], 0
    for sent, cursor, pj in writes:
        if not may_hear(stream, pj):
            continue
        card = (f"card:{pj}" if pj is not None else "panels") if board else f"own:{own}"
        covering = next((m for m in stream.heard if m.after < cursor <= m.cursor), None)
        if covering and (covering.all or pj in covering.pj) and card in covering.parts:
            delays.append(covering.when - sent)
        else:
            missed += 1
    return {"delays": delays, "missed": missed, "leaked": leaked}


def may_hear(stream: Sheet, pj: int | None) -> bool:
    """Whether a change to `pj` (None: every PJ) is the stream's to hear."""
    return stream.pj["pk"] is None or pj is None or pj == stream.pj["pk"]


def caught_up(stream: Sheet, writes: list[tuple[float, int, int | None]]) -> bool:
    """Whether the stream has heard up to the last of `writes` it may hear."""
    last = max((cursor for _sent, cursor, pj in writes if may_hear(stream, pj)), default=0)
    return not last or bool(stream.heard) and stream.heard[-1].cursor >= last


def _sockets(port: int, state: str) -> set[str]:
    """The inodes of the TCP sockets on local `port` in `state` (01 established, 0A listen)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == state and int(fields[1].rsplit(":", 1)[1], 16) == port:
            found.add(fields[9])
    return found


def _fds(pid: int) -> dict[str, str]:
    """The process's open file descriptors: {number: what it points to}."""
    found = {}
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            found[fd.name] = os.readlink(fd)
    return found


def streams_per_worker(pids: list[int], port: int) -> list[int]:
    """How many established connections on `port` each worker holds now."""
    established = {f"socket:[{inode}]" for inode in _sockets(port, "01")}
    return [sum(link in established for link in _fds(pid).values()) for pid in pids]


def wait_serving(pids: list[int], port: int, timeout: float = 30.0) -> None:
    """Wait until every worker's event loop watches the listening socket.

    uvicorn's parent listens before its workers have imported the app, so the port
    answers while one worker is still starting; streams opened then all land on the other
    and stay there (a restart, the phones reconnecting at once, does the same)."""
    listening = {f"socket:[{inode}]" for inode in _sockets(port, "0A")}
    deadline = time.monotonic() + timeout
    waiting = list(pids)
    while waiting:
        for pid in list(waiting):
            fds = _fds(pid)
            mine = {fd for fd, link in fds.items() if link in listening}
            watched = set()
            for fd, link in fds.items():
                if "eventpoll" in link:
                    with contextlib.suppress(OSError):
                        info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines()
                        watched |= {line.split()[1] for line in info if line.startswith("tfd:")}
            if mine & watched:
                waiting.remove(pid)
        if waiting and time.monotonic() > deadline:
            raise RuntimeError(f"workers {waiting} did not start serving in {timeout:.0f} s")
        time.sleep(0.05)


async def soak(port: int, tables: list[dict], devices: list, pids: list[int]) -> dict:
    """The DJs write RATE events/s each for SECONDS; what each stream heard, checked."""
    half = GZIP_MODE == "half"

    def asks_gzip(n: int) -> bool:
        return n % 2 == 0 if half else GZIP

    # Devices go round the tables, then round each table's PJ: n // (TABLES * PJ) is the
    # device's number among its PJ's five.
    sheets = [
        Sheet(device, table["campaign"], table["cursor"], asks_gzip(n // (TABLES * PJ)))
        for n, (table, device) in enumerate(devices)
    ]
    boards = [
        Sheet({"pk": None, "cookie": t["dj"]}, t["campaign"], t["cursor"], asks_gzip(n))
        for n, t in enumerate(tables)
    ]
    streams = sheets + boards
    tasks = [asyncio.create_task(s.run(port)) for s in streams]
    djs = [Dj(port, table) for table in tables]
    try:
        async with asyncio.timeout(30):
            await asyncio.gather(*(s.ready.wait() for s in streams))
        failed = [s.error for s in streams if s.error]
        if failed:
            raise RuntimeError(f"{len(failed)} of {len(streams)} streams failed, e.g. {failed[0]}")
        rss_open = [rss_mb(pid)[0] for pid in pids]
        held = streams_per_worker(pids, port)
        cpu_before = [cpu_s(pid) for pid in pids] + [time.process_time()]
        # The tables' phases spread over the half second: five independent DJs.
        started = time.monotonic() + 0.1
        async with asyncio.timeout(SECONDS + POST_DEADLINE + 5):
            await asyncio.gather(
                *(dj.play(started + i / (RATE * TABLES)) for i, dj in enumerate(djs))
            )
        ended = time.monotonic()
        written = {dj.table["campaign"]: dj.writes for dj in djs}
        behind = list(streams)
        while behind and time.monotonic() - ended < DRAIN:  # the last writes reach them
            await asyncio.sleep(0.1)
            behind = [s for s in behind if not caught_up(s, written[s.campaign])]
        drained = time.monotonic() - ended
        cpu = [
            after - before
            for after, before in zip(
                [cpu_s(pid) for pid in pids] + [time.process_time()], cpu_before, strict=True
            )
        ]
        wall = time.monotonic() - started
        lost = [s.error for s in streams if s.error]
    finally:
        await close(tasks)
    pks = {t["campaign"]: {pj["pk"] for pj in t["pj"]} for t in tables}

    def sum_up(group: list[Sheet]) -> dict:
        found = [check(s, written[s.campaign], pks[s.campaign]) for s in group]
        return {
            "delays": [d for c in found for d in c["delays"]],
            "missed": sum(c["missed"] for c in found),
            "leaked": sum(c["leaked"] for c in found),
            "heard": sum(len(s.heard) for s in group),
            "wire": sum(s.wire for s in group),
            "inflated": sum(s.inflated for s in group),
        }

    figures = {"sheets": sum_up(sheets), "boards": sum_up(boards)}
    if half:  # each kind's gzipped and plain streams apart too
        for kind, group in (("sheets", sheets), ("boards", boards)):
            for gzipped in (True, False):
                name = f"{kind}, {'gzipped' if gzipped else 'plain'}"
                figures[name] = sum_up([s for s in group if s.gzip == gzipped])
    return {
        **figures,
        "writes": [len(dj.writes) for dj in djs],
        "errors": [error for dj in djs for error in dj.errors],
        "answered": [a for dj in djs for a in dj.answered],
        "lost": lost,
        "drained": drained,
        "cpu": cpu,
        "wall": wall,
        "odd": [event for s in streams for event in s.odd],
        "held": held,
        "rss_open": rss_open,
        "rss_peak": [rss_mb(pid)[1] for pid in pids],
    }


def worker_pids(server: subprocess.Popen) -> list[int]:
    """The uvicorn processes that serve requests (the workers, or the one process)."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    pids = [int(pid) for pid in children.read_text().split()] if children.exists() else []
    # The workers are spawned processes; multiprocessing's resource tracker is not one.
    workers = [pid for pid in pids if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    return workers or [server.pid]


# The tap lines: (what, table, sheets open, taps of, target p95 in s). Without PNJ, then the
# fight table's: a PJ's change beside its twin, a PNJ's (every sheet hears it, as "foes",
# like a party event), and the turn passing (every card, and the foes).
TAP_LINES = (
    ("a party event", "plain", 20, "party", 0.050),
    ("a party event", "plain", 100, "party", 0.150),
    ("a change to one PJ", "plain", 100, "pj", 0.030),
    ("in a fight with PNJ, a change to one PJ", "fight", 100, "pj", 0.030),
    ("in a fight with PNJ, a change to one PNJ (every sheet's foes)", "fight", 100, "pnj", 0.150),
    ("in a fight with PNJ, the turn passed (every card)", "fight", 100, "pass", 0.150),
)


def tap_lines(env: dict, tables: dict, label: str, judged: bool) -> bool:
    """The tap lines on one uvicorn process; whether they passed."""
    ok = True
    server, port = start_server(env, workers=1)
    try:
        for what, shape, count, taps, target in TAP_LINES:
            table = tables[shape]
            tapper = Tapper(port, table["dj"], csrf_token())
            cpu = sum(cpu_s(pid) for pid in worker_pids(server))
            delays, missed, leaked = asyncio.run(taps_to_sheets(port, table, tapper, count, taps))
            cpu = sum(cpu_s(pid) for pid in worker_pids(server)) - cpu
            good = bool(delays) and p95(delays) <= target and not missed and not leaked
            verdict = "OK" if good else "MISSED"
            if judged:
                ok &= good
            else:
                verdict = f"reported ({'within' if good else 'beyond'} the default's target)"
                ok &= not missed and not leaked
            print(
                f"{label}: {what}, {count} sheets open, {TAPS} taps: tap to card in every "
                f"sheet it changes: median {statistics.median(delays) * 1000:.0f} ms, "
                f"p95 {p95(delays) * 1000:.0f} ms (target <= {target * 1000:.0f}), "
                f"max {max(delays) * 1000:.0f} ms, missed {missed}"
                + (f", heard what they may not {leaked}" if table["pnj"] else "")
                + f" {verdict}; the DJ's own answer: median "
                f"{statistics.median(tapper.answered) * 1000:.0f} ms; server CPU {cpu:.1f} s "
                f"({'gzip' if GZIP else 'plain'} streams)"
            )
    finally:
        stop(server)
    return ok


def run_one(database_url: str, label: str, taps: bool, soak_too: bool) -> int:
    """With `taps` the tap lines (judged on the default database, SQLite; reported
    elsewhere, where only a lost change fails), then with `soak_too` the five tables."""
    judged = database_url.startswith("sqlite")
    # WhiteNoise warns of the static root: the streams need no collectstatic.
    env = server_env(database_url, PYTHONWARNINGS="ignore:No directory at")
    os.environ.update(env)
    tables = setup_data()
    ok = tap_lines(env, tables, label, judged) if taps else True
    if soak_too:
        ok &= soak_lines(env, label)
    return 0 if ok else 1


def soak_lines(env: dict, label: str) -> bool:
    """The soak on two uvicorn workers, printed; whether it passed."""
    tables, devices = soak_tables()
    server, port = start_server(env, workers=2)
    try:
        pids = worker_pids(server)
        if len(pids) != 2:
            raise RuntimeError(f"uvicorn runs {len(pids)} workers, not 2")
        wait_serving(pids, port)
        figures = asyncio.run(soak(port, tables, devices, pids))
    finally:
        stop(server)
    sheets, boards = figures["sheets"], figures["boards"]
    trouble = len(figures["errors"]) + len(figures["lost"]) + len(figures["odd"])
    good = (
        not trouble
        and not sheets["missed"] + boards["missed"]
        and not sheets["leaked"] + boards["leaked"]
        and bool(sheets["delays"])
        and bool(boards["delays"])
    )
    good_rss = max(figures["rss_peak"]) <= RSS_TARGET_MB
    writes = sum(figures["writes"])

    def per(seen: dict, key: str) -> str:
        return f"{seen[key] / seen['heard']:,.0f}" if seen["heard"] else "-"

    def ms(values: list[float]) -> str:
        return (
            f"median {statistics.median(values) * 1000:.0f} ms, p95 {p95(values) * 1000:.0f} "
            f"ms, max {max(values) * 1000:.0f} ms"
            if values
            else "none"
        )

    print(
        f"{label}: {TABLES} tables on 2 uvicorn workers, each its DJ writing {RATE:g} "
        f"events/s for {SECONDS} s: {writes} writes answered 2xx "
        f"({writes / SECONDS:.1f}/s; per DJ " + ", ".join(map(str, figures["writes"])) + "), "
        f"{len(figures['errors'])} refused or failed; {STREAMS} player streams over "
        f"{TABLES * PJ} PJ (each device its own session) and the {TABLES} DJ boards, "
        f"{len(figures['lost'])} lost, {len(figures['odd'])} odd messages; "
        f"every stream caught up {figures['drained']:.1f} s after the last write"
    )
    for error in (figures["errors"] + figures["lost"] + figures["odd"])[:5]:
        print(f"{label}:   e.g. {error}")
    groups = [("sheets", sheets), ("DJ boards", boards)]
    if GZIP_MODE == "half":
        groups += [
            (name.replace("boards", "DJ boards"), figures[name])
            for name in figures
            if name.startswith(("sheets, ", "boards, "))
        ]
    for name, seen in groups:
        late = sum(delay > DEADLINE for delay in seen["delays"])
        print(
            f"{label}: {name}: {len(seen['delays'])} deliveries ({late} later than "
            f"{DEADLINE:g} s), missed {seen['missed']}, heard what they may not "
            f"{seen['leaked']} times; tap to stream {ms(seen['delays'])}; "
            f"{seen['heard']} messages, on the wire {per(seen, 'wire')} B each "
            f"({per(seen, 'inflated')} B inflated)"
        )
    print(f"{label}: the DJs' own answers {ms(figures['answered'])} {'OK' if good else 'MISSED'}")
    print(
        f"{label}: workers holding "
        + ", ".join(map(str, figures["held"]))
        + " connections, RSS with the streams open "
        + ", ".join(f"{mb:.0f}" for mb in figures["rss_open"])
        + " MB, peak "
        + ", ".join(f"{mb:.0f}" for mb in figures["rss_peak"])
        + f" MB (target <= {RSS_TARGET_MB:.0f} MB each) {'OK' if good_rss else 'MISSED'}; "
        f"CPU in the {figures['wall']:.0f} s of writes and catching up: workers "
        + ", ".join(f"{s:.1f}" for s in figures["cpu"][:-1])
        + f" s, this client {figures['cpu'][-1]:.1f} s"
    )
    return good and good_rss


# --- The two databases ------------------------------------------------------------------


def child(database_url: str, label: str, soak_too: bool = False, taps: bool = True) -> int:
    command = [sys.executable, __file__, "--database-url", database_url, "--label", label]
    if soak_too:
        command.append("--soak")
    if not taps:
        command.append("--no-taps")
    try:
        return subprocess.run(command, cwd=ROOT, timeout=600).returncode
    except subprocess.TimeoutExpired:
        print(f"{label}: gave up after 600 s", file=sys.stderr)
        return 1


def on_postgresql(taps: bool = True, soak_too: bool = True) -> int | None:
    """The benchmark on a throwaway cluster; None when PostgreSQL cannot be run here."""
    with throwaway_postgresql() as url:
        return None if url is None else child(url, "PostgreSQL", soak_too, taps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="run once against this database (internal)")
    parser.add_argument("--label", default="")
    parser.add_argument("--soak", action="store_true", help="also the soak (internal)")
    parser.add_argument("--no-taps", action="store_true", help="not the tap lines (internal)")
    parser.add_argument(
        "--only",
        choices=("taps", "soak"),
        help="only the tap lines (both databases) or only the soak (PostgreSQL)",
    )
    args = parser.parse_args()
    if args.database_url:
        try:
            return run_one(args.database_url, args.label, not args.no_taps, args.soak)
        except (RuntimeError, TimeoutError) as error:
            print(f"{args.label}: MISSED: {error or 'the streams did not open in time'}")
            return 1

    results = []
    if args.only != "soak":
        with tempfile.TemporaryDirectory(prefix="zodiac-bench-sqlite.") as tmp:
            results.append(child(f"sqlite:///{tmp}/bench.sqlite3", "SQLite"))
    results.append(on_postgresql(taps=args.only != "soak", soak_too=args.only != "taps"))
    return 1 if any(code for code in results if code is not None) else 0


if __name__ == "__main__":
    sys.exit(main())
