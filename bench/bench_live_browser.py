"""Live latency in a real browser, as a table has it: a DJ's tap, then the change on sheets.

One DJ board and N copies of a player's sheet (the sheet of the PJ the DJ taps), in two
shapes:

- phones: each sheet in its own browser context (its own cookies and connections, as a
  separate device);
- tabs: every sheet a tab of one browser (one player's browser: one cookie jar, the tabs
  sharing one stream, static/js/live/tabs.js).

For N = 1, 5 and 20, 30 clicks on the DJ's page (a tap, then its undo), timed from the
click to the first change in each sheet's DOM (a MutationObserver on #sheet). Targets (the
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

Knobs: SHAPES (phones,tabs), PAGES (1,5,20), CLICKS (30), FIGHT_PAGES (20; empty: no fight
lines); METRICS=1 prints the CPU each kind of process spent per click.
"""

from __future__ import annotations

import math
import os
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
os.environ["DEBUG"] = "true"
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")

import django  # noqa: E402

django.setup()

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
FIGHT_PAGES = [int(n) for n in os.environ.get("FIGHT_PAGES", "20").split(",") if n]
SETTLE_MS = 1000  # time left for a change to reach every page before the next click
MEDIAN_MS = 100.0
P95_MS = 250.0
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


def cpu_by_process(server_pid: int) -> dict[str, float]:
    """CPU time (ms) used so far by the server and by Chromium's processes, by kind."""
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    spent: dict[str, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        if int(entry.name) == server_pid:
            kind = "server (uvicorn)"
        elif command and b"chromium" in command[0]:
            kinds = [a.split(b"=", 1)[1].decode() for a in command if a.startswith(b"--type=")]
            kind = "chromium " + (kinds[0] if kinds else "browser")
        else:
            continue
        spent[kind] = spent.get(kind, 0.0) + (int(stat[11]) + int(stat[12])) * tick
    return spent


def start_server() -> tuple[subprocess.Popen, str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
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


def run(base: str, server_pid: int, table: dict, shape: str, count: int) -> dict:
    """One shape with `count` observers: the latencies of every click on every observer."""
    host = base.split("//", 1)[1].split(":")[0]

    def cookies(session: str) -> list[dict]:
        return [
            {"name": settings.SESSION_COOKIE_NAME, "value": session, "domain": host, "path": "/"}
        ]

    board = f"{base}/c/{table['campaign'].slug}/"
    sheet = f"{board}pj/{table['pj'].pk}/hoja/"
    profile_dir = tempfile.TemporaryDirectory(prefix="zodiac-bench-chromium-")
    browser = Browser(CHROMIUM, [*FLAGS, f"--user-data-dir={profile_dir.name}"])
    try:
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
            page.evaluate(OBSERVE, "#cards" if shape == "boards" else "#sheet")
            page.detach()  # no debugger on the observers while changes travel
        time.sleep(3)  # the pages finish loading (fonts, the service worker, idle tasks)
        busy_before = machine_busy_ms()
        by_process_before = cpu_by_process(server_pid) if os.environ.get("METRICS") else {}
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
        by_process = cpu_by_process(server_pid) if os.environ.get("METRICS") else {}
        latencies, missing, of_pnj = [], 0, []
        for page in observers:
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
    for kind, ms in sorted(by_process.items(), key=lambda item: -item[1]):
        print(f"    CPU per click, {kind}: {(ms - by_process_before.get(kind, 0)) / CLICKS:.1f} ms")
    return {
        "latencies": sorted(latencies),
        "pnj": sorted(of_pnj),
        "missing": missing,
        "busy": busy,
        "visible": visible,
    }


def verdict(latencies: list[float], judged: bool) -> tuple[str, bool]:
    """A line's figures, and whether they meet the targets (when `judged`)."""
    median = statistics.median(latencies)
    p95 = latencies[math.ceil(0.95 * len(latencies)) - 1]
    good = not judged or (median <= MEDIAN_MS and p95 <= P95_MS)
    return f"median {median:.0f} ms, p95 {p95:.0f} ms, max {latencies[-1]:.0f} ms", good


def main() -> int:
    print(f"database: {django.db.connection.vendor} ({settings.DATABASES['default']['NAME']})")
    plain = setup()
    fight = setup("fight", fight=True) if FIGHT_PAGES else None
    server, base = start_server()
    ok = True
    runs = [
        (shape, count, plain)
        for shape in SHAPES
        for count in (PAGES if shape != "boards" else [TARGET_PAGES])
    ]
    if fight is not None:
        runs += [(s, count, fight) for s in SHAPES if s != "boards" for count in FIGHT_PAGES]
    try:
        for shape, count, table in runs:
            figures = run(base, server.pid, table, shape, count)
            latencies = figures["latencies"]
            with_pnj = table["pnj"] is not None
            what = "boards" if shape == "boards" else "sheets"
            head = f"{shape}, DJ board and {count} {what}" + (
                ", a fight with PNJ" if with_pnj else ""
            )
            if not latencies or (with_pnj and not figures["pnj"]):
                print(f"{head}: nothing arrived")
                ok = False
                continue
            judged = count == TARGET_PAGES and shape != "boards"
            targets = f" (targets: median <= {MEDIAN_MS:.0f}, p95 <= {P95_MS:.0f})"
            targets = targets if judged else ""
            said, good = verdict(latencies, judged)
            if with_pnj:
                pnj_said, pnj_good = verdict(figures["pnj"], judged)
                said = f"the PJ's {said}; the Jefe's {pnj_said}"
                good &= pnj_good
            good &= not figures["missing"]
            ok &= good
            print(
                f"{head}, {CLICKS} clicks: click to change {said}{targets}; lost "
                f"{figures['missing']}; machine CPU per click {figures['busy'] / CLICKS:.0f}"
                f" ms; {figures['visible']} of {count + 1} pages visible "
                f"{'OK' if good else 'MISSED'}"
            )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
