"""Clients of the site through nginx, over HTTPS, as a browser and a phone are.

`Browser` keeps cookies and sends the requests a page sends (a login, a tap as htmx posts
it); `Stream` is one page's live stream (/en-vivo/), read as EventSource reads it: gzip
inflated as it comes, each message applied (its cursor, the cards it names, the parts it
carries), and, when the connection ends, opened again at once with Last-Event-ID, counting
each reconnect. Plain asyncio and ssl: the check (tests/deploy/) and the hosted benchmark
(bench/bench_hosted.py) share them.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import ssl
import time
import zlib
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode


def tls_context(cert: Path) -> ssl.SSLContext:
    """A client context that trusts the check's self-signed certificate alone."""
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = True
    return context


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((value for key, value in self.headers if key.lower() == name), None)

    def all(self, name: str) -> list[str]:
        name = name.lower()
        return [value for key, value in self.headers if key.lower() == name]


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, list[tuple[str, str]]]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    status_line, *lines = head.rstrip("\r\n").split("\r\n")
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines if ":" in line]
    return int(status_line.split(" ")[1]), headers  # type: ignore[return-value]


def unchunk(raw: bytes) -> tuple[bytes, bytes, bool]:
    """The body bytes of the whole HTTP chunks at the start of `raw`, what is left, and
    whether the last chunk (size 0: the body's end) came."""
    body = b""
    while True:
        line_end = raw.find(b"\r\n")
        if line_end == -1:
            return body, raw, False
        size = int(raw[:line_end].split(b";")[0], 16)
        if size == 0:
            return body, raw[line_end + 2 :], True
        end = line_end + 2 + size
        if len(raw) < end + 2:
            return body, raw, False
        body += raw[line_end + 2 : end]
        raw = raw[end + 2 :]


class Site:
    """Where the site answers: nginx's HTTPS port on loopback, under its name."""

    def __init__(self, host: str, port: int, cert: Path) -> None:
        self.host, self.port = host, port
        self.context = tls_context(cert)
        self.origin = f"https://{host}" + ("" if port == 443 else f":{port}")

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(
            "127.0.0.1", self.port, ssl=self.context, server_hostname=self.host, limit=1 << 22
        )


class Browser:
    """One browser (or phone) of the site: its cookies, and each request on a connection
    of its own (Connection: close), as plain as a check needs."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.cookies: dict[str, str] = {}
        self.answered: list[float] = []  # seconds from sending each request to its answer

    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    async def request(
        self, method: str, path: str, form: dict | None = None, headers: dict | None = None
    ) -> Answer:
        body = urlencode(form).encode() if form is not None else b""
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.site.host}" + ("" if self.site.port == 443 else f":{self.site.port}"),
            "Connection: close",
        ]
        if not any(name.lower() == "accept-encoding" for name in headers or {}):
            lines.append("Accept-Encoding: identity")
        if self.cookies:
            lines.append(f"Cookie: {self.cookie_header()}")
        if method == "POST":
            lines += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(body)}",
                f"Origin: {self.site.origin}",
            ]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        reader, writer = await self.site.open()
        sent = time.monotonic()
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            status, head = await _read_head(reader)
            rest = await reader.read()
        finally:
            writer.close()
        self.answered.append(time.monotonic() - sent)
        answer = Answer(status, head, rest)
        if any(k.lower() == "transfer-encoding" and "chunked" in v for k, v in head):
            answer.body = unchunk(rest)[0]
        for value in answer.all("Set-Cookie"):
            parsed = SimpleCookie()
            parsed.load(value)
            for name, morsel in parsed.items():
                self.cookies[name] = morsel.value
        return answer

    async def login(self, username: str, password: str) -> Answer:
        """The login page, then its form sent back with its CSRF token: the answer."""
        page = await self.request("GET", "/accounts/login/")
        if page.status != 200:
            raise RuntimeError(f"the login page answered {page.status}")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        if token is None:
            raise RuntimeError("the login page has no CSRF token")
        form = {
            "csrfmiddlewaretoken": token.group(1).decode(),
            "username": username,
            "password": password,
        }
        return await self.request(
            "POST", "/accounts/login/", form, {"Referer": f"{self.site.origin}/accounts/login/"}
        )

    async def tap(self, path: str, form: dict) -> tuple[float, int]:
        """A tap as the board's htmx sends it: (when it was sent, the cursor its answer
        reflects). RuntimeError when it is not a 200 with its cursor."""
        sent = time.monotonic()
        answer = await self.request(
            "POST",
            path,
            {**form, "key": secrets.token_hex(8)},
            {"X-CSRFToken": self.cookies.get("csrftoken", ""), "HX-Request": "true"},
        )
        cursor = answer.header("X-Change-Cursor")
        if answer.status != 200 or cursor is None:
            raise RuntimeError(f"the tap {path} answered {answer.status}")
        return sent, int(cursor)


@dataclass(frozen=True)
class Heard:
    """One `change` message as a page received it."""

    campaign: int
    after: int
    cursor: int
    pj: frozenset
    all: bool
    parts: frozenset
    when: float
    now: float | None = None  # the server's clock when it sent the message (s, epoch)
    wall: float = 0.0  # this client's clock when it got it (s, epoch): the same machine's


@dataclass
class Stream:
    """One page's live stream, through the proxy, reconnecting as EventSource does."""

    site: Site
    cookie: str
    since: dict[int, int]
    label: str = ""
    gzip: bool = True
    heard: list[Heard] = field(default_factory=list)
    hellos: int = 0  # connections that said hello: 1 + the reconnects
    pings: int = 0
    ended: list[str] = field(default_factory=list)  # why each connection ended
    last_id: str | None = None
    error: str | None = None
    odd: list[str] = field(default_factory=list)  # messages a table in play never gets
    wire: int = 0  # body bytes received (gzipped or not)
    open_for: float = 0.0  # seconds until the first hello

    def __post_init__(self) -> None:
        self.said_hello = asyncio.Event()
        self.news = asyncio.Event()  # set at each message; whoever waits clears it

    @property
    def reconnects(self) -> int:
        return max(0, self.hellos - 1)

    async def run(self, reconnect: bool = True, attempts: int = 20) -> None:
        """Read until cancelled; a connection that ends is opened again at once
        (`attempts` at most in a row without a hello)."""
        failed = 0
        started = time.monotonic()
        while True:
            before = self.hellos
            try:
                await self._read(started)
                self.ended.append("the server ended the stream")
            except (OSError, RuntimeError, asyncio.IncompleteReadError, ValueError) as error:
                self.ended.append(f"{type(error).__name__}: {error}")
            failed = 0 if self.hellos > before else failed + 1
            self.news.set()
            if not reconnect or failed >= attempts:
                self.error = self.ended[-1]
                self.said_hello.set()
                return

    def path(self) -> str:
        since = ",".join(f"{pk}:{cursor}" for pk, cursor in self.since.items())
        return "/en-vivo/?" + urlencode({"since": since, "client": self.label})

    async def _read(self, started: float) -> None:
        reader, writer = await self.site.open()
        try:
            lines = [
                f"GET {self.path()} HTTP/1.1",
                f"Host: {self.site.host}" + ("" if self.site.port == 443 else f":{self.site.port}"),
                f"Cookie: {self.cookie}",
                "Accept: text/event-stream",
            ]
            if self.gzip:
                lines.append("Accept-Encoding: gzip, deflate")
            if self.last_id:
                lines.append(f"Last-Event-ID: {self.last_id}")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            status, head = await _read_head(reader)
            if status != 200:
                raise RuntimeError(f"the stream answered {status}")
            headers = {key.lower(): value.lower() for key, value in head}
            chunked = "chunked" in headers.get("transfer-encoding", "")
            gzipped = headers.get("content-encoding") == "gzip"
            inflate = zlib.decompressobj(wbits=31)
            raw, body = b"", b""
            while True:
                chunk = await reader.read(1 << 16)
                if not chunk:
                    return
                ended = False
                if chunked:  # the connection stays open after the body: its end says it
                    raw += chunk
                    chunk, raw, ended = unchunk(raw)
                self.wire += len(chunk)
                body += inflate.decompress(chunk) if gzipped else chunk
                while b"\n\n" in body:
                    block, body = body.split(b"\n\n", 1)
                    self._apply(block.decode(), started)
                if ended:
                    return
        finally:
            writer.transport.abort()  # at once, as a closed tab: the loop may end next

    def _apply(self, block: str, started: float) -> None:
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if ": " in line and not line.startswith(":"):
                name, value = line.split(": ", 1)
                fields[name] = value
        if "id" in fields:
            self.last_id = fields["id"]
        event = fields.get("event")
        if event == "hello":
            self.hellos += 1
            if self.hellos == 1:
                self.open_for = time.monotonic() - started
            self.said_hello.set()
        elif event == "ping":
            self.pings += 1
        elif event == "change":
            data = json.loads(fields["data"])
            parts = data.get("parts") or {}
            self.heard.append(
                Heard(
                    data["campaign"],
                    data["after"],
                    data["cursor"],
                    frozenset(data["pj"]),
                    data["all"],
                    frozenset(name for name, html in parts.items() if isinstance(html, str)),
                    time.monotonic(),
                    data["now"] / 1000 if "now" in data else None,
                    time.time(),
                )
            )
        elif event is not None:
            self.odd.append(event)
        self.news.set()

    def covering(self, campaign: int, cursor: int) -> Heard | None:
        """The message that brought the change at `cursor` of `campaign`, if one did."""
        return next(
            (m for m in self.heard if m.campaign == campaign and m.after < cursor <= m.cursor),
            None,
        )

    def holding(self, campaign: int, cursor: int, part: str) -> Heard | None:
        """The message that brought the change at `cursor` with its `part` rendered, if any."""
        message = self.covering(campaign, cursor)
        return message if message is not None and part in message.parts else None

    def holds(self, campaign: int, cursor: int, part: str) -> float | None:
        """When this page got the change at `cursor` with its `part` rendered, or None."""
        message = self.covering(campaign, cursor)
        return message.when if message is not None and part in message.parts else None

    async def until(self, condition, what: str, patience: float = 60.0) -> None:
        """Wait for `condition()` to hold, looked at after each message this stream gets;
        TimeoutError naming `what` after `patience` seconds (a safety net, never a measure)."""
        try:
            async with asyncio.timeout(patience):
                while not condition():
                    self.news.clear()
                    if condition():
                        return
                    await self.news.wait()
        except TimeoutError:
            raise TimeoutError(f"{self.label}: {what}, not within {patience:g} s") from None


async def _read_body(reader: asyncio.StreamReader, headers: list[tuple[str, str]]) -> bytes:
    """An answer's body on a connection kept open: by its length, or chunk by chunk."""
    named = {key.lower(): value for key, value in headers}
    if "content-length" in named:
        return await reader.readexactly(int(named["content-length"]))
    if "chunked" not in named.get("transfer-encoding", ""):
        return await reader.read()
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return body
        body += (await reader.readexactly(size + 2))[:-2]


class Board:
    """A DJ's board: its session, its connection kept open between taps (as a browser
    keeps it), each tap an htmx POST with its CSRF header and idempotency key."""

    def __init__(self, site: Site, cookie: str) -> None:
        self.site = site
        self.csrf = secrets.token_hex(16)
        self.cookie = f"{cookie}; csrftoken={self.csrf}"
        self.connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    def close(self) -> None:
        if self.connection is not None:
            self.connection[1].transport.abort()
            self.connection = None

    async def tap(self, path: str, form: dict) -> tuple[float, Answer]:
        """(when it was sent, the answer). A connection the proxy closed while idle is
        opened again and the tap sent again: its key makes it one tap."""
        body = urlencode({**form, "key": secrets.token_hex(8)}).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.site.host}:{self.site.port}\r\n"
            f"Cookie: {self.cookie}\r\nX-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            f"Origin: {self.site.origin}\r\nAccept-Encoding: gzip\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        for attempt in range(2):
            if self.connection is None:
                self.connection = await self.site.open()
            reader, writer = self.connection
            sent = time.monotonic()
            try:
                writer.write(head)
                status, headers = await _read_head(reader)
                answer = Answer(status, headers, await _read_body(reader, headers))
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
                continue
            if (answer.header("Connection") or "").lower() == "close":
                self.close()
            return sent, answer
        raise AssertionError("unreachable")
