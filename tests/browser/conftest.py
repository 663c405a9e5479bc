"""Browser tests: Debian's chromium driven by Playwright against a real uvicorn server.

The server is a subprocess on the test database (a file on SQLite, the test database on
PostgreSQL); tests write their data with committed transactions (`transactional_db`) so
the server sees it. Pages log in with a session made by the test, so no password hashing
has to agree between the two processes.
"""

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from playwright.sync_api import expect

# What a page must come to show, a test waits for up to 30 s: a busy machine slows a test,
# it never fails it. How fast a page gets there is bench/'s to measure.
expect.set_options(timeout=30_000)

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session", autouse=True)
def _database_before_playwright(django_db_setup):
    # Create the test database before Playwright starts its event loop in this thread.
    return django_db_setup


@pytest.fixture(autouse=True)
def _orm_beside_playwright(monkeypatch):
    # Playwright's sync API runs an event loop in the test thread; the ORM calls the tests
    # make there are plain blocking calls, so Django's async-safety guard does not apply.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(config, items):
    if CHROMIUM:
        return
    skip = pytest.mark.skip(
        reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does)"
    )
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "locale": "es-ES", "viewport": {"width": 1280, "height": 900}}


def database_url() -> str:
    """The test database as a DATABASE_URL for the server process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user = quote(db.get("USER") or "")
    password = quote(db.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{db['NAME']}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    *,
    extra_env: dict | None = None,
    port: int | None = None,
    runserver: bool = False,
) -> tuple[subprocess.Popen, str]:
    """A uvicorn serving the app on the test database; returns (process, base URL) once it
    answers.

    `port` brings a server back at the same address (same origin, cookies and service
    worker) after a test stopped it. `runserver` serves it with `manage.py runserver`
    (WSGI) instead."""
    port = port or free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONUNBUFFERED": "1",  # its lines come as they are written, not at exit
        **(extra_env or {}),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if runserver:
        command = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        # runserver logs each request on stderr; it says it listens on stdout.
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
        listening = b"development server at"
    else:
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application"]
        command += ["--host", "127.0.0.1", "--port", str(port), "--lifespan", "off"]
        command += ["--log-level", "info", "--no-access-log"]  # info: it says it listens
        pipes = {"stderr": subprocess.PIPE}
        listening = b"Uvicorn running on"
    process = subprocess.Popen(command, cwd=ROOT, env=env, **pipes)
    base = f"http://127.0.0.1:{port}"
    said = _Listening(process.stdout or process.stderr, listening)
    # Both say so once their socket listens: a request then waits for its answer.
    if said.wait(timeout=SERVER_START) and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/accounts/login/", timeout=SERVER_START) as answer:
                if answer.status == 200:
                    return process, base
        except OSError:
            pass
    process.kill()
    raise RuntimeError(f"the server did not start on {base}")


# The longest a server may take to start: a safety net, never a measure (a busy machine
# slows a start; bench/ measures how fast things are).
SERVER_START = 60


class _Listening:
    """Reads a server's output until it says `line` (it listens), and echoes the rest to
    this process's stderr, where the server's own went before, but uvicorn's `INFO:` lines
    (they are only there for that `line`)."""

    def __init__(self, pipe, line: bytes):
        self.said = threading.Event()
        self.ended = threading.Event()
        self.pipe, self.line = pipe, line
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in iter(self.pipe.readline, b""):
            if not self.said.is_set() and self.line in raw:
                self.said.set()
            elif not raw.startswith(b"INFO:"):
                os.write(2, raw)
        self.ended.set()
        self.said.set()  # ended without saying it: the caller sees the process gone

    def wait(self, timeout: float) -> bool:
        """True once the server said it listens; False when it ended first or timed out."""
        return self.said.wait(timeout) and not self.ended.is_set()


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def server(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The base URL of a uvicorn serving the app on the test database."""
    process, base = start_server()
    yield base
    stop_server(process)


@pytest.fixture
def app_url(server, transactional_db) -> str:
    return server


def set_real_password(user, password: str) -> None:
    """A password the server process can check (the tests' own hasher is MD5, for speed)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    user.password = PBKDF2PasswordHasher().encode(password, "browser-test-salt", iterations=1000)
    user.save(update_fields=["password"])


def log_in(context, app_url: str, user) -> None:
    """Give a browser context the session of `user` (made through Django's test client)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": app_url}]
    )


SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/zodiac-screenshots"))


# A full page is a large picture: on a busy machine one can take longer than an `expect`
# waits. This is a safety net too, never a measure.
SCREENSHOT_TIMEOUT = 120_000  # ms


def screenshot(page, name: str) -> None:
    """Save a full-page screenshot for a person to look at (never compared by tests)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name}.png"), full_page=True, timeout=SCREENSHOT_TIMEOUT
    )


def heard(page, campaign) -> None:
    """Wait until `page` has heard of every change of `campaign` so far (its #live cursor),
    so a test can then check what the news did not change, with no clock involved."""
    campaign.refresh_from_db(fields=["change_cursor"])
    page.wait_for_function(
        "(at) => Number(document.getElementById('live').dataset.cursor) >= at",
        arg=campaign.change_cursor,
    )


# Nothing of the page's own is on its way or settling: no htmx request out, no swap settling,
# no "Más acciones" or "Tarjeta entera" left to fill or on its way.
QUIET = """() => !document.querySelector(
  '.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added, [data-lazy][aria-busy],'
  + ' details[open] > [data-lazy] > a'
)"""


def quiet(page) -> None:
    """Wait until `page` has nothing of its own on its way or settling (QUIET): what its
    last answer does to it (a swap, its settle, a scroll that holds a place) is done."""
    page.wait_for_function(QUIET)


def frames(page, count: int = 10) -> None:
    """Let `page` render `count` frames: what a frame shows once it has begun (a scroll, a
    transition's first step) has shown by then, so a test can check it did not begin."""
    page.evaluate(
        """(count) => new Promise((done) => {
            const next = (left) => (left ? requestAnimationFrame(() => next(left - 1)) : done());
            next(count);
        })""",
        count,
    )


UNTIL = 30  # seconds: a safety net for `until`, never a measure


def until(page, condition, what: str) -> None:
    """Let `page` run, a frame at a time, until `condition()` holds: a fact on this side
    (a request the test holds, a row written) that no `expect` can wait for. Gives up
    after UNTIL seconds, so a page that never gets there fails the test, not hangs it."""
    deadline = time.monotonic() + UNTIL
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        frames(page, 1)
