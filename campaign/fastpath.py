"""Live refreshes answered from memory, before Django's request cycle.

After one change every open board asks for its refresh (views.board.refresh) at once.
Through Django's full cycle each answer costs a few milliseconds of framework time, and
twenty pages queue behind each other. The parts of a refresh are the same for every DJ
page of a campaign, so the first request renders them (through Django, with its checks)
and keeps them here; Django also grants that session a few seconds of fast refreshes for
that campaign, which a background check with the database renews while the page keeps
refreshing. A later refresh from a granted session, for a cursor this process's live
hub has already seen, is answered straight from the event loop; anything else falls
through to Django.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from django.conf import settings

GRANT_SECONDS = 10.0
_PATH = re.compile(r"^/c/(?P<slug>[-a-zA-Z0-9_]+)/refrescar/$")


class SharedRenders:
    """Rendered parts of live refreshes, the same for every DJ page of a campaign.

    Keys start with (campaign, change cursor, language): a write advances the cursor, so an
    entry is never stale. Shared parts carry no CSRF token or form key (htmx sends the token
    as a header; board.js keys each form). One render per key: a request that finds a
    render of its key in flight waits for it instead of rendering again.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.entries: OrderedDict[tuple, str] = OrderedDict()
        self.flights: dict[tuple, threading.Event] = {}
        self.lock = threading.Lock()

    def peek(self, key: tuple) -> str | None:
        with self.lock:
            return self.entries.get(key)

    def get(self, key: tuple, render: Callable[[], str]) -> str:
        with self.lock:
            if key in self.entries:
                self.entries.move_to_end(key)
                return self.entries[key]
            flight = self.flights.get(key)
            owner = flight is None
            if owner:
                flight = self.flights[key] = threading.Event()
        if not owner:
            flight.wait(timeout=5)
            html = self.peek(key)
            return html if html is not None else render()
        try:
            html = render()
            with self.lock:
                self.entries[key] = html
                while len(self.entries) > self.size:
                    self.entries.popitem(last=False)
        finally:
            with self.lock:
                del self.flights[key]
            flight.set()
        return html


SHARED = SharedRenders()

# (session key, campaign slug) -> (monotonic expiry, campaign id), set by Django's view.
# A grant lives GRANT_SECONDS from the last time the database said yes: Django's refresh
# view, or a background recheck (`_recheck`) when the grant is half-way through.
_grants: dict[tuple[str, str], tuple[float, int]] = {}
_grants_lock = threading.Lock()
_RECHECKS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zodiac-grant-recheck")


def grant(*, session_key: str | None, slug: str, campaign_id: int) -> None:
    """Django let this session refresh this campaign's board: allow it here for a while."""
    if not session_key:
        return
    with _grants_lock:
        _grants[(session_key, slug)] = (time.monotonic() + GRANT_SECONDS, campaign_id)
        if len(_grants) > 10_000:  # drop the expired ones now and then
            now = time.monotonic()
            for key in [k for k, (until, _c) in _grants.items() if until < now]:
                del _grants[key]


_checking: set[tuple[str, str]] = set()


def _recheck(session_key: str, slug: str, campaign_id: int) -> None:
    """Ask the database again whether this session may still refresh this campaign's board:
    renew its grant, or drop it (logged out elsewhere, password changed, no longer its DJ)."""
    from importlib import import_module
    from types import SimpleNamespace

    from django.contrib.auth import get_user
    from django.db import close_old_connections

    from .access import campaign_for_dj

    try:
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
        user = get_user(SimpleNamespace(session=store))
        allowed = campaign_for_dj(user=user, slug=slug).pk == campaign_id
    except Exception:  # Http404, or the database is unavailable: Django decides next time
        allowed = False
    finally:
        close_old_connections()
        with _grants_lock:
            _checking.discard((session_key, slug))
    if allowed:
        grant(session_key=session_key, slug=slug, campaign_id=campaign_id)
    else:
        with _grants_lock:
            _grants.pop((session_key, slug), None)


def revoke(*, session_key: str | None) -> None:
    """Forget a session's grants (it logged out)."""
    if not session_key:
        return
    with _grants_lock:
        for key in [k for k in _grants if k[0] == session_key]:
            del _grants[key]


def reset() -> None:
    """Forget every render and grant (tests, where rolled-back ids and cursors come again)."""
    with SHARED.lock:
        SHARED.entries.clear()
    with _grants_lock:
        _grants.clear()
        _checking.clear()


def refresh_keys(campaign_id: int, cursor: int, lang: str, query: dict) -> list[tuple] | None:
    """The SHARED keys a refresh query needs, or None when it must go to Django."""
    base = (campaign_id, cursor, lang)
    if query.get("all") == ["1"]:
        pks = SHARED.peek((*base, "pks"))
        if pks is None:
            return None
        wanted = [pk for pk in pks.split(",") if pk]
    else:
        wanted = query.get("pj", [])
        if not all(pk.isascii() and pk.isdigit() for pk in wanted):
            return None
    return [(*base, "card", int(pk)) for pk in wanted] + [(*base, "panels")]


def _cookies(scope: dict) -> SimpleCookie:
    cookie = SimpleCookie()
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            try:
                cookie.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header: let Django deal with it
                return SimpleCookie()
    return cookie


WAIT = 0.06  # seconds a refresh waits for parts being rendered (the writer renders them)
WAIT_STEP = 0.002


async def _answer(scope: dict) -> bytes | None:
    """The body of a refresh answered from memory, or None to let Django answer."""
    match = _PATH.match(scope.get("path", ""))
    if match is None:
        return None
    cookies = _cookies(scope)
    session = cookies.get(settings.SESSION_COOKIE_NAME)
    if session is None:
        return None
    key = (session.value, match["slug"])
    now = time.monotonic()
    with _grants_lock:
        granted = _grants.get(key)
        if granted is None or granted[0] < now:
            return None
        # Half-way through a grant, the database is asked again in the background, so a
        # page that keeps refreshing keeps being answered here while its session is valid.
        recheck = granted[0] - now < GRANT_SECONDS / 2 and key not in _checking
        if recheck:
            _checking.add(key)
    campaign_id = granted[1]
    if recheck:
        asyncio.get_running_loop().run_in_executor(_RECHECKS, _recheck, *key, campaign_id)
    from . import live

    hub = live._hub
    feed = hub.feeds.get(campaign_id) if hub is not None else None
    if feed is None:
        return None
    chosen = cookies.get(settings.LANGUAGE_COOKIE_NAME)
    available = {code for code, _name in settings.LANGUAGES}
    lang = chosen.value if chosen is not None and chosen.value in available else None
    lang = lang or settings.LANGUAGE_CODE
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    # The request that recorded the change renders these parts right after its commit;
    # pages told of the change by the stream usually ask a moment before they are ready.
    deadline = time.monotonic() + WAIT
    while True:
        keys = refresh_keys(campaign_id, feed.window.cursor, lang[:2], query)
        parts = [SHARED.peek(key) for key in keys] if keys is not None else [None]
        if all(part is not None for part in parts):
            return "".join(parts).encode()
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(WAIT_STEP)


HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"vary", b"Cookie"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-refresh-from", b"memory"),  # tells tests and curious operators which path answered
]


def fast_refresh(app):
    """Wrap the ASGI app: board refreshes that memory can answer never reach Django."""

    async def application(scope, receive, send):
        if scope["type"] == "http" and scope.get("method") == "GET":
            body = await _answer(scope)
            if body is not None:
                await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return application
