"""The hosted topology, for real: nginx over HTTPS in front of four app processes and one
PostgreSQL, all from deploy/'s own files (tests/deploy/topology.py). `make deploy-check`
runs it (CI too); `make test` leaves it out (pyproject.toml), as it needs nginx, openssl
and PostgreSQL and a few minutes.

Through the proxy, as a browser and phones would: plain HTTP sends to HTTPS; a login works
and its cookies are Secure, with HSTS; the app takes the client's address and scheme from
the proxy, never from the browser's own headers; static files come from nginx; a DJ's tap
made on one process reaches sheets whose streams another process serves; a stream
survives a minute with nothing to say; a process killed with kill -9 costs its pages one
reconnect each and no change; a process that lost its database answers 503 on /salud/ and
is taken out of rotation, its pages moved to the others, until it is back.

Every wait is on a condition (a message, a log line, an answer) with a safety net; the
delays measured are printed, never asserted (bench/bench_hosted.py measures).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import re
import secrets
import statistics

import pytest

from tests.deploy.clients import Browser, Stream
from tests.deploy.topology import Topology
from tests.waiting import wait_until

pytestmark = pytest.mark.deploy

PASSWORD = secrets.token_urlsafe(16)
PLAYERS = 4
DEVICES = 2  # each player's phones
PATIENCE = 60.0  # seconds for a change to reach a page: a safety net, never a measure
IDLE_PINGS = 4  # the stream pings after 15 s of quiet: four pings are a minute idle


@pytest.fixture(scope="module")
def topology():
    with Topology(4, relay_last=True) as running:
        running.table = running.django(
            "import json; from tests.deploy.table import make; "
            f"print(json.dumps(make('mesa', {PLAYERS}, {PASSWORD!r})))"
        )
        yield running


@pytest.fixture
def report(capsys):
    """Print a line of figures past pytest's capture (the delays are reported, not judged)."""

    def say(line: str) -> None:
        with capsys.disabled():
            print(f"\n  {line}")

    return say


def run(coroutine):
    return asyncio.run(coroutine)


async def logged_in(topology, username: str) -> Browser:
    browser = Browser(topology.site)
    answer = await browser.login(username, PASSWORD)
    assert answer.status == 302, f"{username} could not log in: {answer.status}"
    return browser


async def open_streams(topology, browsers: dict[str, Browser]) -> dict[str, Stream]:
    """The DJ's board and every player's phones, each a stream through the proxy."""
    table = topology.table
    since = {table["campaign"]: 0}
    streams = {"board": Stream(topology.site, browsers["dj"].cookie_header(), since, "board")}
    for pj in table["pj"]:
        for device in range(DEVICES):
            label = f"{pj['player']}-{device}"
            streams[label] = Stream(
                topology.site, browsers[pj["player"]].cookie_header(), since, label
            )
    return streams


def may_see(label: str, pj: int | None, table: dict) -> str | None:
    """The part a page shows a change of `pj` (None: every PJ) with, or None when the
    page is not told of it."""
    if label == "board":
        return "panels" if pj is None else f"card:{pj}"
    own = next(c["pk"] for c in table["pj"] if label.startswith(f"{c['player']}-"))
    return f"own:{own}" if pj in (None, own) else None


class Table:
    """The DJ's taps through the proxy, and where each change reached every page."""

    def __init__(self, topology, dj: Browser, streams: dict[str, Stream]) -> None:
        self.topology, self.dj, self.streams = topology, dj, streams
        self.table = topology.table
        self.taps: list[tuple[float, int, int | None]] = []  # sent, cursor, PJ (None: all)
        self.delays: list[float] = []

    async def tap(self, n: int) -> None:
        slug = self.table["slug"]
        pj = None if n % 4 == 3 else self.table["pj"][n % PLAYERS]["pk"]
        if pj is None:
            path, form = f"/c/{slug}/tiempo/", {"amount": "1", "unit": "minutes"}
        else:
            path, form = (
                f"/c/{slug}/pj/{pj}/accion/",
                {"action": "suffer", "type_grade": "fatiga:leve"},
            )
        sent, cursor = await self.dj.tap(path, form)
        assert not self.taps or cursor == self.taps[-1][1] + 1, "a tap recorded twice"
        self.taps.append((sent, cursor, pj))
        campaign = self.table["campaign"]
        for label, stream in self.streams.items():
            part = may_see(label, pj, self.table)
            if part is None:
                continue
            await stream.until(
                lambda s=stream, p=part: s.holds(campaign, cursor, p) is not None,
                f"the change at {cursor} with its {part}",
                PATIENCE,
            )
            self.delays.append(stream.holds(campaign, cursor, part) - sent)

    def missed(self) -> list[str]:
        """Every change a page may see that it did not get with its part, and every one it
        got that it may not see."""
        campaign = self.table["campaign"]
        found = []
        for label, stream in self.streams.items():
            for _sent, cursor, pj in self.taps:
                part = may_see(label, pj, self.table)
                if part is not None and stream.holds(campaign, cursor, part) is None:
                    found.append(f"{label} missed {cursor}")
            for message in stream.heard:
                names = {p for p in message.parts if p.startswith(("own:", "card:"))}
                allowed = {may_see(label, c["pk"], self.table) for c in self.table["pj"]} - {None}
                if names - allowed:
                    found.append(f"{label} heard {sorted(names - allowed)}")
        return found


async def streaming(topology, scenario):
    """Log everyone in, open every page's stream, run `scenario(table)`, close them."""
    table = topology.table
    browsers = {"dj": await logged_in(topology, table["dj"])}
    for pj in table["pj"]:
        browsers[pj["player"]] = await logged_in(topology, pj["player"])
    streams = await open_streams(topology, browsers)
    tasks = [asyncio.create_task(s.run()) for s in streams.values()]
    try:
        async with asyncio.timeout(PATIENCE):
            await asyncio.gather(*(s.said_hello.wait() for s in streams.values()))
        failed = {label: s.error for label, s in streams.items() if s.error}
        assert not failed, failed
        playing = Table(topology, browsers["dj"], streams)
        await scenario(playing)
        return playing
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


def figures(delays: list[float]) -> str:
    ordered = sorted(delays)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return (
        f"{len(delays)} deliveries, median {statistics.median(delays) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"
    )


def direct(topology, port: int, path: str) -> int:
    """A request straight to one app process (plain HTTP on its loopback port), as the
    proxy's and systemd's probes make it: its status."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        connection.request("GET", path, headers={"Host": "localhost"})
        return connection.getresponse().status
    finally:
        connection.close()


def through_proxy(topology, path: str) -> int:
    return run(Browser(topology.site).request("GET", path)).status


# --- The front door ------------------------------------------------------------------------


def test_plain_http_only_sends_browsers_to_https(topology):
    connection = http.client.HTTPConnection("127.0.0.1", topology.http_port, timeout=PATIENCE)
    connection.request(
        "GET", "/accounts/login/", headers={"Host": "localhost", "X-Forwarded-Proto": "https"}
    )
    answer = connection.getresponse()

    assert answer.status == 301
    assert answer.getheader("Location") == f"{topology.site.origin}/accounts/login/"


def test_a_login_through_the_proxy_works_and_its_cookies_are_secure(topology):
    async def scenario():
        browser = Browser(topology.site)
        answer = await browser.login(topology.table["dj"], PASSWORD)
        home = await browser.request("GET", "/")
        return answer, home

    answer, home = run(scenario())

    assert answer.status == 302
    cookies = {value.split("=", 1)[0]: value for value in answer.all("Set-Cookie")}
    assert {"sessionid", "csrftoken"} <= set(cookies)
    for cookie in cookies.values():
        assert "Secure" in cookie, cookie
    assert "HttpOnly" in cookies["sessionid"] and "SameSite=Lax" in cookies["sessionid"]
    assert answer.header("Strict-Transport-Security").startswith("max-age=31536000")
    assert home.status == 200 and "Mesa" in home.body.decode()


def test_the_app_takes_the_address_and_scheme_from_the_proxy_not_the_browser(topology):
    spoofed = {
        "X-Forwarded-For": "203.0.113.7",
        "X-Real-IP": "203.0.113.7",
        "Forwarded": "for=203.0.113.7;proto=http",
        "X-Forwarded-Proto": "http",
    }

    async def scenario():
        browser = Browser(topology.site)
        page = await browser.request("GET", "/accounts/login/", headers=spoofed)
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body).group(1)
        form = {"csrfmiddlewaretoken": token.decode(), "username": "intruso", "password": "x"}
        wrong = await browser.request("POST", "/accounts/login/", form, spoofed)
        return page, wrong

    page, wrong = run(scenario())
    addresses = topology.django(
        "import json; from axes.models import AccessAttempt; "
        "print(json.dumps(sorted({a.ip_address for a in "
        "AccessAttempt.objects.filter(username='intruso')})))"
    )

    assert page.status == 200  # not sent to "https" again: the scheme is the proxy's
    assert wrong.status == 200  # the login page again, saying the password is wrong
    assert addresses == ["127.0.0.1"]  # nginx's view of the client, not the header's


def test_static_files_come_from_nginx_compressed_and_cached_for_good(topology):
    async def scenario():
        browser = Browser(topology.site)
        page = await browser.request("GET", "/accounts/login/")
        css = re.search(rb'href="(/static/css/app\.[0-9a-f]+\.css)"', page.body).group(1)
        return await browser.request("GET", css.decode(), headers={"Accept-Encoding": "gzip"})

    answer = run(scenario())

    assert answer.status == 200
    assert answer.header("Content-Encoding") == "gzip"
    assert "immutable" in answer.header("Cache-Control")
    # No app process was asked: every answer of the app's has its Referrer-Policy.
    assert answer.header("Referrer-Policy") is None


# --- The live pages --------------------------------------------------------------------------


def test_a_tap_on_one_process_reaches_sheets_whose_stream_another_serves(topology, report):
    async def scenario(table: Table):
        for n in range(12):
            await table.tap(n)

    table = run(streaming(topology, scenario))
    labels = set(table.streams)
    streamed = wait_until(
        lambda: (
            found
            if labels
            <= set(
                found := {
                    re.search(r"client=([\w-]+)", line.request).group(1): line.upstreams[-1]
                    for line in topology.access_log()
                    if "/en-vivo/" in line.request and "client=" in line.request
                }
            )
            else None
        ),
        "every stream's line in nginx's access log",
    )
    tapped = [
        line.upstreams[-1]
        for line in topology.access_log()
        if line.request.startswith("POST /c/mesa/") and line.status == 200
    ][-12:]
    crossed = [
        (process, streamed[label])
        for process, (_sent, _cursor, pj) in zip(tapped, table.taps, strict=True)
        for label in labels
        if may_see(label, pj, topology.table) and streamed[label] != process
    ]

    assert table.missed() == []
    assert len(set(streamed.values())) > 1 and len(set(tapped)) > 1
    assert crossed, "no tap reached a page streamed by another process"
    report(
        f"tap to page through the proxy, {len(labels)} pages on {len(set(streamed.values()))} "
        f"processes, taps on {len(set(tapped))}: {figures(table.delays)} "
        f"({len(crossed)} of them across processes)"
    )


def test_a_stream_survives_a_minute_idle_through_the_proxy(topology, report):
    async def scenario(table: Table):
        board = table.streams["board"]
        await table.tap(0)
        pings = board.pings
        await board.until(
            lambda: board.pings >= pings + IDLE_PINGS, "a minute of pings", PATIENCE * 2
        )
        await table.tap(1)

    table = run(streaming(topology, scenario))

    assert table.missed() == []
    for label, stream in table.streams.items():
        assert stream.hellos == 1 and stream.ended == [], (label, stream.ended)
    report(f"a minute idle, then a tap: {figures(table.delays[-3:])}, no page reconnected")


def test_a_process_killed_costs_its_pages_one_reconnect_and_no_change(topology, report):
    served = topology.ports[:-1]  # the last one is the database check's
    held: dict[int, int] = {}

    async def scenario(table: Table):
        for n in range(2):
            await table.tap(n)
        held.update({port: topology.established(port) for port in served})
        victim = max(held, key=held.get)
        held["victim"] = victim
        topology.kill(victim)  # SIGKILL: no goodbye to anyone
        for n in range(2, 10):
            await table.tap(n)

    table = run(streaming(topology, scenario))
    victim = held["victim"]
    topology.start_app(victim)  # what systemd's Restart=always does
    topology.wait_listening(victim)
    back = wait_until(
        lambda: (
            through_proxy(topology, "/salud/") == 200
            and any(
                topology.address(victim) in line.upstreams and line.upstream_statuses[-1] == "200"
                for line in topology.access_log()[-8:]
            )
        ),
        "the restarted process back in rotation",
    )

    assert table.missed() == []
    reconnects = {label: s.reconnects for label, s in table.streams.items()}
    assert max(reconnects.values()) == 1, reconnects
    assert sum(reconnects.values()) >= 1, "no page was on the killed process"
    assert back
    report(
        f"kill -9 of a process holding {held[victim]} connections: "
        f"{sum(reconnects.values())} of {len(reconnects)} pages reconnected once; "
        f"{figures(table.delays)}"
    )


def test_a_process_without_its_database_is_taken_out_of_rotation(topology, report):
    cut = topology.ports[-1]  # its PostgreSQL goes through the relay
    address = topology.address(cut)
    assert direct(topology, cut, "/salud/") == 200
    seen: dict[str, object] = {}

    def ended(line) -> bool:
        """A stream that process served from before (logged when it ends: it ended it, and
        its page moved)."""
        return line.upstreams == [address] and line.request.startswith("GET /en-vivo/")

    def tried(lines) -> list:
        """Each request nginx gave that process after its database went."""
        return [line for line in lines if address in line.upstreams and not ended(line)]

    def taps_logged() -> int:
        return sum(line.request.startswith("POST /c/mesa/") for line in topology.access_log())

    async def scenario(table: Table):
        tapped = taps_logged()
        await table.tap(0)
        # nginx logs a request once it has answered it: the tap's line is there first.
        await asyncio.to_thread(wait_until, lambda: taps_logged() > tapped, "the tap's line")
        seen["streams"] = topology.established(cut)
        before = len(topology.access_log())
        topology.relay.cut()
        await asyncio.to_thread(
            wait_until, lambda: direct(topology, cut, "/salud/") == 503, "/salud/ saying 503"
        )
        # Probes through the proxy until nginx has given that process one: least_conn picks
        # it once its own pages have left it, which its hub decides (two failed reads), so
        # a fixed number of probes could all come before.
        answers = []

        def tried_yet() -> bool:
            return bool(tried(topology.access_log()[before:]))

        while len(answers) < 12 or not await asyncio.to_thread(tried_yet):
            answers.append(await Browser(topology.site).request("GET", "/salud/"))
            if len(answers) > 400:
                break  # no try in 400 probes: the assertion below says so
        seen["answers"] = [answer.status for answer in answers]
        for n in range(1, 8):
            await table.tap(n)
        seen["log"] = topology.access_log()[before:]

    try:
        table = run(streaming(topology, scenario))
    finally:
        topology.relay.restore()
    back = wait_until(
        lambda: (
            direct(topology, cut, "/salud/") == 200
            and through_proxy(topology, "/salud/") == 200
            and any(
                address in line.upstreams and line.upstream_statuses[-1] == "200"
                for line in topology.access_log()[-8:]
            )
        ),
        "the process back in rotation once its database is",
    )
    moved_from = [line for line in seen["log"] if ended(line)]
    given = tried(seen["log"])
    refused = [line for line in given if line.upstreams[-1] == address]

    # Every probe through the proxy: a process that works.
    assert seen["answers"] == [200] * len(seen["answers"])
    assert table.missed() == []
    assert given, "nginx never tried the process without its database"
    assert all(line.upstream_statuses[line.upstreams.index(address)] == "503" for line in given)
    assert refused == []  # every request it got went on to another process, taps too
    moved = sum(s.reconnects for s in table.streams.values())
    assert max(s.reconnects for s in table.streams.values()) <= 1
    assert len(moved_from) == moved  # each page it served moved once, to a process that works
    assert back
    report(
        f"a process without its database ({seen['streams']} connections): tried "
        f"{len(given)} times in {len(seen['log'])} requests, each a 503 passed on to "
        f"another; {moved} pages moved; "
        f"{figures(table.delays)}"
    )
