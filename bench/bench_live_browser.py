"""Live latency in a real browser, as a table has it: a DJ's tap, then the change on sheets.

One DJ board and N copies of a player's sheet (the sheet of the PJ the DJ taps), in two
shapes:

- phones: each sheet in its own browser context (its own cookies and connections, as a
  separate device);
- tabs: every sheet a tab of one browser (one player's browser: one cookie jar, the tabs
  sharing one stream, static/js/live/tabs.js).

For N = 1, 5 and 20, 30 clicks on the DJ's page (a tap, then its undo), timed from the
click to the first change in each sheet's DOM (a MutationObserver on #sheet); the DJ's own
answer (the first change of the board's #cards) is said beside them. Targets (the
live-pages issue), in both shapes with 20 sheets: median <= 100 ms, p95 <= 250 ms, and no
change lost at any N. SHAPES=boards adds the older secondary line: 20 other DJ boards, each
in its own context (observing #cards).

Then the same with a fight on and PNJ in it (issue #26's ambush: the 4 PJ, three Bandidos
of a Plantilla sharing a turn, unrevealed, and their Jefe, revealed with his state in
words), with 20 sheets in both shapes: the clicks go in turn to the PJ and to the Jefe (a
tap, its undo, each), and a Jefe's change reaches the sheets as the fight's PNJ (#foes).
The PJ's clicks and the Jefe's are reported apart; the same targets for each.

Setup: one uvicorn process on a throwaway SQLite file (or `DATABASE_URL`, an empty database
that may be written to), and Debian's chromium, driven through its DevTools pipe
(bench/_cdp.py) rather than Playwright: Playwright follows every request of every page it
drives, which on two cores took CPU from the pages measured. No debugger is attached to
the observers between the clicks and the reading of their clocks; the phones stand for
devices in the foreground, so background throttling is off (a tab may still be hidden:
the tabs shape says how many were visible).

Every line runs RUNS times (3), each run in a fresh browser; the end says the median of
the runs' medians and p95s with their range, and the CPU per click likewise: the CPU time
(/proc/<pid>/stat) of the server and of this bench's Chromium (its browser process and
every child), over the clicks, divided by the clicks. Unlike latency, it barely depends on
what else the machine runs; the machine's whole CPU is printed beside it. A judged line
meets its targets when every run does, and, for the 20 phones without a fight, when the
median run spends at most CPU_MS per click. Each run says the load average at its start.

Knobs: SHAPES (phones,tabs), PAGES (1,5,20), CLICKS (30), RUNS (3), FIGHT_PAGES (20;
empty: no fight lines). To account for the CPU of a click: METRICS=1 prints it by kind of
process and the server's by thread and stage (bench/_server_cpu.py); TRACE=<file> traces
Chromium over the clicks (CDP Tracing) and prints each kind of process by thread and its
main thread by stage (bench/_trace.py); PROFILE=<file> samples one sheet's JavaScript;
UNOBSERVED=1 leaves the bench's MutationObservers out (the CPU they cost, by difference).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_tmp = tempfile.TemporaryDirectory(prefix="zodiac-bench-live-browser-")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_tmp.name}/bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# The server as `make run` serves a table: DEBUG off (no query log, no template debug), plain
# HTTP, the static files collected; one key for this process's sessions and the server's.
os.environ["DEBUG"] = os.environ.get("BENCH_DEBUG", "false")
os.environ["HTTPS"] = "false"
os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ["STATIC_ROOT"] = f"{_tmp.name}/static"
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")

import django  # noqa: E402

django.setup()

import _trace  # noqa: E402
from _cdp import Browser, Page, new_context  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from campaign import services  # noqa: E402
from campaign.models import Membership  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

SHAPES = os.environ.get("SHAPES", "phones,tabs").split(",")
PAGES = [int(n) for n in os.environ.get("PAGES", "1,5,20").split(",")]
CLICKS = int(os.environ.get("CLICKS", "30"))
RUNS = int(os.environ.get("RUNS", "3"))
TRACE = os.environ.get("TRACE", "")  # a file: the clicks traced there, and summed up
METRICS = bool(os.environ.get("METRICS"))
SERVER_CPU = str(Path(_tmp.name) / "server-cpu.json")
# The pages without the bench's MutationObservers: what they cost is the CPU's difference
# (no latency is measured then, and nothing is judged).
UNOBSERVED = bool(os.environ.get("UNOBSERVED"))
PROFILE = os.environ.get("PROFILE", "")  # a file: one sheet's JavaScript profile of the clicks
TRACING = {
    "transferMode": "ReturnAsStream",
    "traceConfig": {
        "recordMode": "recordAsMuchAsPossible",
        "includedCategories": os.environ.get(
            "TRACE_CATEGORIES",
            "toplevel,devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,"
            "disabled-by-default-v8.gc,loading",
        ).split(","),
    },
}
FIGHT_PAGES = [int(n) for n in os.environ.get("FIGHT_PAGES", "20").split(",") if n]
SETTLE_MS = 1000  # time left for a change to reach every page before the next click
MEDIAN_MS = 100.0
P95_MS = 250.0
CPU_MS = 434.0  # per click, the server's and Chromium's, with 20 phones (issue #30)
TARGET_PAGES = 20
FLAGS = [
    "--headless",
    "--hide-scrollbars",
    "--mute-audio",
    "--no-default-browser-check",
    "--window-size=1280,900",
    "--force-color-profile=srgb",
    *CHROMIUM_FLAGS,
    # Each page stands for a device in the foreground: none is a throttled background tab.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]

OPEN = "document.querySelector('#live[data-state=\"open\"]')"
OBSERVE = """
(selector) => {
  window.__seen = [];
  new MutationObserver(() => {
    window.__seen.push(performance.timeOrigin + performance.now());
  }).observe(document.querySelector(selector),
             {childList: true, subtree: true, characterData: true, attributes: true});
}
"""
READ = "() => window.__seen || []"
CLICK = """
(selector) => {
  const button = document.querySelector(selector);
  const at = performance.timeOrigin + performance.now();
  button.click();
  return at;
}
"""


def machine_busy_ms() -> float:
    """CPU time spent by the whole machine (all cores), in ms, from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) * 1000 / os.sysconf("SC_CLK_TCK")


def cpu_by_process(server_pid: int, browser_pid: int) -> dict[str, float]:
    """CPU time (ms) used so far by the server, by this bench's Chromium (its process and
    all its descendants, by kind: other sessions' browsers on the machine are left out)
    and by the bench itself."""
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    table: dict[int, tuple[int, float, list[bytes]]] = {}  # pid -> (parent, cpu, command)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            # A child's title is rewritten as one string: split it on spaces.
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        table[int(entry.name)] = (int(stat[1]), (int(stat[11]) + int(stat[12])) * tick, command)
    spent: dict[str, float] = {}

    def add(kind: str, ms: float) -> None:
        spent[kind] = spent.get(kind, 0.0) + ms

    for pid, (_parent, ms, command) in table.items():
        if pid == server_pid:
            add("server (uvicorn)", ms)
        elif pid == os.getpid():
            add("the bench's own driver", ms)
        else:
            ancestor = pid
            while ancestor not in (browser_pid, 0, 1) and ancestor in table:
                ancestor = table[ancestor][0]
            if ancestor != browser_pid:
                continue
            kinds = [a.split(b"=", 1)[1].decode() for a in command if a.startswith(b"--type=")]
            add("chromium " + (kinds[0] if kinds else "browser"), ms)
    return spent


def start_server() -> tuple[subprocess.Popen, str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
    if METRICS:  # the server's CPU by thread and stage (bench/_server_cpu.py)
        command[1:1] = [str(ROOT / "bench" / "_server_cpu.py"), SERVER_CPU]
    command += ["--port", str(port), "--lifespan", "off", "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/accounts/login/", timeout=2):
                return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("uvicorn did not start")


def first_after(times: list[float], clicks: list[float], i: int) -> float | None:
    """The first of a page's `times` at or after click i and before the next click."""
    until = clicks[i + 1] if i + 1 < len(clicks) else math.inf
    return next((t for t in times if clicks[i] <= t < until), None)


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def setup(slug: str = "bench", *, fight: bool = False) -> dict:
    """A table: its DJ, 4 PJ, a player of the first; with `fight`, the Bandidos and the
    Jefe in a fight with them (the PJ first)."""
    if slug == "bench":
        call_command("migrate", verbosity=0)
        if not settings.DEBUG:
            call_command("collectstatic", interactive=False, verbosity=0)
    from django.contrib.auth import get_user_model

    from campaign.models import Character
    from campaign.turn_order import Slot

    users = get_user_model().objects
    dj = users.create_user(f"{slug}-dj", password="bench-password-1")
    player = users.create_user(f"{slug}-player", password="bench-password-1")
    campaign = services.campaign_create(name=slug.title(), slug=slug, dj=dj)
    services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    party = [
        services.character_create(
            campaign=campaign,
            name=f"PJ {n}",
            player=player if n == 0 else None,
            attributes={"FUE": 3, "AGI": 3, "VOL": 3},
        )
        for n in range(4)
    ]
    jefe = None
    if fight:
        bandido = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
        bandidos = services.pnj_create(campaign=campaign, template=bandido, count=3)
        jefe = services.pnj_create(campaign=campaign, name="Jefe Ruiz", attributes={"VOL": 3})[0]
        services.pnj_settings_set(character=jefe, revealed=True, shows=Character.Shows.PALABRAS)
        order = [Slot(pj=c.pk, init=20 - n) for n, c in enumerate(party)]
        order.append(Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=5))
        order.append(Slot(pj=jefe.pk, init=4))
        services.fight_start(campaign=campaign, order=order)
    return {
        "campaign": campaign,
        "pj": party[0],
        "pnj": jefe,
        "dj": session_of(dj),
        "player": session_of(player),
    }


def open_pages(browser: Browser, base: str, table: dict, shape: str, count: int):
    """The observers (sheets, or boards) and the DJ's board, open and listening; how many of
    them are visible."""
    host = base.split("//", 1)[1].split(":")[0]

    def cookies(session: str) -> list[dict]:
        return [
            {"name": settings.SESSION_COOKIE_NAME, "value": session, "domain": host, "path": "/"}
        ]

    board = f"{base}/c/{table['campaign'].slug}/"
    sheet = f"{board}pj/{table['pj'].pk}/hoja/"
    if shape == "tabs":
        jar = new_context(browser, cookies(table["player"]))
        observers = [Page(browser, sheet, [], context=jar) for _ in range(count)]
    elif shape == "phones":
        observers = [Page(browser, sheet, cookies(table["player"])) for _ in range(count)]
    else:  # boards: the older secondary line
        observers = [Page(browser, board, cookies(table["dj"])) for _ in range(count)]
    dj_page = Page(browser, board, cookies(table["dj"]))
    visible = 0
    for page in [*observers, dj_page]:
        page.wait_for(OPEN)
        visible += page.evaluate("() => document.visibilityState") == "visible"
    for page in observers:
        if not UNOBSERVED:
            page.evaluate(OBSERVE, "#cards" if shape == "boards" else "#sheet")
        page.detach()  # no debugger on the observers while changes travel
    if not UNOBSERVED:
        dj_page.evaluate(OBSERVE, "#cards")  # the tap's own answer, on the DJ's board
    return observers, dj_page, visible


def start_looking(browser: Browser, observers: list[Page], server_pid: int) -> None:
    """TRACE, PROFILE, METRICS: what they look at starts here."""
    if TRACE:
        browser.record()
        browser.send("Tracing.start", TRACING)
    if PROFILE:  # one sheet's JavaScript, sampled (that page has a debugger attached)
        observers[0].send("Profiler.enable")
        observers[0].send("Profiler.setSamplingInterval", {"interval": 200})
        observers[0].send("Profiler.start")
    if METRICS:
        os.kill(server_pid, signal.SIGUSR1)  # the server's stages: from here


def stop_looking(browser: Browser, observers: list[Page], server_pid: int) -> dict:
    """TRACE, PROFILE, METRICS: what they saw, printed; the server's stages (ms per click)."""
    if PROFILE:
        profile = observers[0].send("Profiler.stop")["profile"]
        Path(PROFILE).write_text(json.dumps(profile))
        print(_trace.profile_report(profile, CLICKS))
    if TRACE:
        browser.send("Tracing.end")
        stream = browser.wait_event("Tracing.tracingComplete")["stream"]
        text = browser.read_stream(stream)
        Path(TRACE).write_text(text)
        print(_trace.report(_trace.summarize(json.loads(text)), CLICKS))
    if not METRICS:
        return {}
    os.kill(server_pid, signal.SIGUSR2)  # to here
    deadline = time.monotonic() + 10
    while not Path(SERVER_CPU).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    seen = json.loads(Path(SERVER_CPU).read_text())
    Path(SERVER_CPU).unlink()
    stages = {stage: ms / CLICKS for stage, ms in seen["cpu"].items()}
    return {"stages": stages, "moments": seen["moments"]}


def server_path(moments: list, clicks: list[float]) -> str:
    """When, after each click, its change committed and its messages left the server
    (medians over the clicks, ms)."""
    after: dict[str, list[float]] = {}
    for i, at in enumerate(clicks):
        until = clicks[i + 1] if i + 1 < len(clicks) else math.inf
        mine = [(t - at, what) for t, what in moments if at <= t < until]
        for what in ("commit", "sent player", "sent dj"):
            times = [t for t, w in mine if w == what]
            if times:
                after.setdefault(f"{what} (first)", []).append(min(times))
                if what == "sent player":
                    after.setdefault("sent player (last)", []).append(max(times))
    return ", ".join(f"{what} {statistics.median(t):.0f}" for what, t in after.items())


def run(base: str, server_pid: int, table: dict, shape: str, count: int) -> dict:
    """One shape with `count` observers: the latencies of every click on every observer,
    and the CPU spent meanwhile."""
    profile_dir = tempfile.TemporaryDirectory(prefix="zodiac-bench-chromium-")
    browser = Browser(CHROMIUM, [*FLAGS, f"--user-data-dir={profile_dir.name}"])
    try:
        observers, dj_page, visible = open_pages(browser, base, table, shape, count)
        time.sleep(3)  # the pages finish loading (fonts, the service worker, idle tasks)
        start_looking(browser, observers, server_pid)
        busy_before = machine_busy_ms()
        cpu_before = cpu_by_process(server_pid, browser.process.pid)
        clicks: list[float] = []
        # A tap, then its undo: every click changes the card, whatever came before. With
        # PNJ, the PJ's tap and undo, then the Jefe's.
        tapped = [table["pj"], table["pnj"]] if table["pnj"] is not None else [table["pj"]]
        for i in range(CLICKS):
            pk = tapped[i // 2 % len(tapped)].pk
            selector = f'#pj-{pk} button[value="fatiga:leve"]' if i % 2 == 0 else "#undo button"
            clicks.append(dj_page.evaluate(CLICK, selector))
            time.sleep(SETTLE_MS / 1000)  # nobody polls the pages while the change travels
        busy = machine_busy_ms() - busy_before
        cpu_after = cpu_by_process(server_pid, browser.process.pid)
        looked = stop_looking(browser, observers, server_pid)
        seen = dj_page.evaluate(READ)
        answers = [at - clicks[i] for i in range(CLICKS) if (at := first_after(seen, clicks, i))]
        latencies, missing, of_pnj = [], 0, []
        for page in [] if UNOBSERVED else observers:
            seen = page.evaluate(READ)
            page.detach()
            for i in range(CLICKS):
                at = first_after(seen, clicks, i)
                if at is None:
                    missing += 1
                elif len(tapped) > 1 and i // 2 % 2 == 1:
                    of_pnj.append(at - clicks[i])
                else:
                    latencies.append(at - clicks[i])
    finally:
        browser.close()
        profile_dir.cleanup()
    cpu = {kind: (ms - cpu_before.get(kind, 0)) / CLICKS for kind, ms in cpu_after.items()}
    if METRICS:
        for kind, ms in sorted(cpu.items(), key=lambda item: -item[1]):
            print(f"    CPU per click, {kind}: {ms:.1f} ms")
            if kind.startswith("server"):
                for stage, each in sorted(looked["stages"].items(), key=lambda item: -item[1]):
                    if each >= 0.1:
                        print(f"      {stage}: {each:.1f} ms")
        print(f"    after the click (median ms): {server_path(looked['moments'], clicks)}")
    return {
        "cpu": sum(ms for kind, ms in cpu.items() if kind != "the bench's own driver"),
        "latencies": sorted(latencies),
        "pnj": sorted(of_pnj),
        "missing": missing,
        "busy": busy / CLICKS,
        "visible": visible,
        "answers": sorted(answers),
    }


def figures(latencies: list[float]) -> tuple[float, float]:
    """The median and the p95 of some latencies (sorted)."""
    return statistics.median(latencies), latencies[math.ceil(0.95 * len(latencies)) - 1]


def spread(values: list[float]) -> str:
    """The median of some runs' figures and their range: "91 (81-96)"."""
    if len(values) == 1:
        return f"{values[0]:.0f}"
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


class Line:
    """One line of the bench (a shape, a number of pages, a table), over its runs."""

    def __init__(self, shape: str, count: int, table: dict) -> None:
        self.shape, self.count, self.table = shape, count, table
        self.fight = table["pnj"] is not None
        what = "boards" if shape == "boards" else "sheets"
        self.head = f"{shape}, DJ board and {count} {what}" + (
            ", a fight with PNJ" if self.fight else ""
        )
        self.judged = count == TARGET_PAGES and shape != "boards"
        # The CPU target: the 20 phones' line without a fight (issue #30).
        self.cpu_judged = self.judged and shape == "phones" and not self.fight
        self.runs: list[dict] = []

    def groups(self, run: dict) -> list[tuple[str, list[float]]]:
        if self.fight:
            return [("the PJ's", run["latencies"]), ("the Jefe's", run["pnj"])]
        return [("", run["latencies"])]

    def good(self, run: dict) -> bool:
        """Whether one run met the latency targets (when judged) and lost nothing."""
        if UNOBSERVED:
            return True
        if run["missing"] or not all(latencies for _, latencies in self.groups(run)):
            return False
        for _, latencies in self.groups(run):
            median, p95 = figures(latencies)
            if self.judged and (median > MEDIAN_MS or p95 > P95_MS):
                return False
        return True

    def said(self, run: dict, load: float) -> str:
        parts = []
        for name, latencies in self.groups(run):
            if not latencies:
                parts.append(f"{name} nothing arrived".strip())
                continue
            median, p95 = figures(latencies)
            parts.append(f"{name} median {median:.0f} ms, p95 {p95:.0f} ms".strip())
        if run["answers"]:
            parts.append(f"the DJ's own answer median {statistics.median(run['answers']):.0f} ms")
        return (
            f"{self.head}: {'; '.join(parts)}; lost {run['missing']}; CPU per click "
            f"{run['cpu']:.0f} ms (the machine's {run['busy']:.0f}); {run['visible']} of "
            f"{self.count + 1} pages visible; load average {load:.1f}"
            f" {'OK' if self.good(run) else 'MISSED'}"
        )

    def summary(self) -> tuple[str, bool]:
        """The runs' median and range of each figure, and whether the line met its targets:
        every run its latencies and no loss; the median run its CPU."""
        parts = []
        for k, (name, _) in enumerate(self.groups(self.runs[0])):
            every = [self.groups(run)[k][1] for run in self.runs]
            said = [figures(latencies) for latencies in every if latencies]
            medians = spread([median for median, _ in said]) if said else "-"
            p95s = spread([p95 for _, p95 in said]) if said else "-"
            parts.append(f"{name} median {medians} ms, p95 {p95s} ms".strip())
        answers = [statistics.median(run["answers"]) for run in self.runs if run["answers"]]
        if answers:
            parts.append(f"the DJ's own answer median {spread(answers)} ms")
        cpu = [run["cpu"] for run in self.runs]
        met = sum(self.good(run) for run in self.runs)
        cpu_good = not self.cpu_judged or statistics.median(cpu) <= CPU_MS
        targets = ""
        if self.judged:
            targets = f" (targets: median <= {MEDIAN_MS:.0f}, p95 <= {P95_MS:.0f} in every run"
            targets += f"; CPU per click <= {CPU_MS:.0f})" if self.cpu_judged else ")"
        lost = "/".join(str(run["missing"]) for run in self.runs)
        good = met == len(self.runs) and cpu_good
        return (
            f"{self.head}: {'; '.join(parts)}; CPU per click {spread(cpu)} ms; lost {lost}; "
            f"{met} of {len(self.runs)} runs met the targets{targets} "
            f"{'OK' if good else 'MISSED'}",
            good,
        )


def main() -> int:
    print(f"database: {django.db.connection.vendor} ({settings.DATABASES['default']['NAME']})")
    plain = setup()
    fight = setup("fight", fight=True) if FIGHT_PAGES else None
    server, base = start_server()
    lines = [
        Line(shape, count, plain)
        for shape in SHAPES
        for count in (PAGES if shape != "boards" else [TARGET_PAGES])
    ]
    if fight is not None:
        lines += [Line(s, count, fight) for s in SHAPES if s != "boards" for count in FIGHT_PAGES]
    try:
        for number in range(1, RUNS + 1):
            print(f"-- run {number} of {RUNS}")
            for line in lines:
                load = os.getloadavg()[0]
                line.runs.append(run(base, server.pid, line.table, line.shape, line.count))
                print(line.said(line.runs[-1], load))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(
        f"-- {RUNS} runs of {CLICKS} clicks: the median of the runs' figures and their range;"
        " CPU per click is the server's and Chromium's"
    )
    ok = True
    for line in lines:
        said, good = line.summary()
        print(said)
        ok &= good
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
