"""The live channel's two doors: one event stream per browser, and polling where SSE cannot pass.

Both are per user, for the campaigns the browser's open pages show (`since`: campaign id and
the cursor the pages have, as `3:120,5:44`). Each message is one campaign's batch of
changes: which PJ cards changed (ids, or all), and, on the stream, those cards already
rendered for this viewer's kind (live.parts), so no page has to ask. Every tab of the
browser shares the stream (static/js/live/tabs.js) and takes what it shows. What a viewer may
hear is decided per campaign: the DJ hears every change, a player their own PJ and
campaign-wide changes (every PJ when the campaign shows players the party).

The stream passes Django's middleware and authentication when it opens, like any view. It
then checks again that its session and memberships still hold: every RECHECK seconds (the
first at a moment of its own within them), and at once after a change that may have
changed them (a PJ's player, the campaign's options).
When they no longer hold it names the campaigns concerned (`reopen`): their pages load
anew, and the stream is opened again (and asked again who it serves).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user
from django.core.handlers.asgi import ASGIRequest
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    StreamingHttpResponse,
)
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ..models import CampaignChange, Membership
from . import channel, parts
from . import hub as live

log = logging.getLogger(__name__)

SINCE = re.compile(r"[0-9]{1,18}:[0-9]{1,18}(,[0-9]{1,18}:[0-9]{1,18}){0,19}")
HEARTBEAT = 15.0  # seconds of quiet before a `ping` (it carries the server's clock)
RECHECK = 30.0  # seconds between checks that the session and memberships still hold
# Changes after which a stream checks at once what it may hear (a PJ's player, options).
RECHECK_KINDS = live.NOTABLE


def parse_since(value: str) -> dict[int, int]:
    """`3:120,5:44` as {campaign id: cursor}; ValueError unless it is exactly that form."""
    if not SINCE.fullmatch(value):
        raise ValueError(value)
    pairs = (pair.split(":") for pair in value.split(","))
    return {int(campaign): int(cursor) for campaign, cursor in pairs}


def _bad_since() -> HttpResponse:
    return HttpResponseBadRequest(
        _("“since” must name each campaign and the last change cursor the page saw, as 3:120."),
        content_type="text/plain; charset=utf-8",
    )


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Follow:
    """One campaign a stream follows, as this viewer may see it."""

    campaign_id: int
    dj: bool
    party: bool  # the campaign shows players the party
    cursor: int  # the campaign's cursor when the stream (re)checked
    sent: int = 0  # the cursor of the last message sent (or where the stream started)

    @property
    def player_filter(self) -> bool:
        """Whether this viewer hears only their own PJ (and campaign-wide changes)."""
        return not (self.dj or self.party)

    @property
    def view(self) -> str:
        return "dj" if self.dj else "player"

    def same_access(self, other: Follow) -> bool:
        """Whether `other` hears and sees what this does (the party option is a player's)."""
        return self.dj == other.dj and (self.dj or self.party == other.party)


def _follows(user, wanted: dict[int, int]) -> tuple[dict[int, Follow], list[int]]:
    """The user's campaigns among `wanted` ({id: Follow}), and the ids they may not see."""
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    memberships = Membership.objects.filter(user=user, campaign_id__in=wanted).select_related(
        "campaign"
    )
    found = {
        m.campaign_id: Follow(
            campaign_id=m.campaign_id,
            dj=m.role == Membership.Role.DJ,
            party=m.campaign.players_see_party,
            cursor=m.campaign.change_cursor,
        )
        for m in memberships
    }
    return found, [pk for pk in wanted if pk not in found]


def _viewer(request: HttpRequest, wanted: dict[int, int]):
    """On the hub's thread: (user id, session key, follows, gone, access).

    `access` gives, for each campaign the user plays in, the cursor of its latest change of
    who plays what or of its options: a page rendered before it shows what the user could
    see then, and loads anew.
    """
    follows, gone = _follows(request.user, wanted)
    access = {}
    for pk, follow in follows.items():
        if not follow.dj:
            latest = (
                CampaignChange.objects.filter(campaign_id=pk, kind__in=live.NOTABLE)
                .order_by("-cursor")
                .values_list("cursor", flat=True)
                .first()
            )
            access[pk] = latest or 0
    return request.user.pk, request.session.session_key, follows, gone, access


def _changed_access(session_key: str | None, user_id: int, follows: dict[int, Follow]) -> list[int]:
    """The campaigns this stream may no longer hear as it does: every one when the session
    is no longer this user's, else those whose membership or options changed."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    # get_user reads nothing of a request but its session.
    bare = HttpRequest()
    bare.session = store
    user = get_user(bare)
    if not user.is_authenticated or user.pk != user_id:
        return list(follows)
    now, gone = _follows(user, dict.fromkeys(follows, 0))
    return [*gone, *(pk for pk in now if not now[pk].same_access(follows[pk]))]


async def _pinging(awaitable, into: list) -> AsyncIterator[str]:
    """Await `awaitable`, yielding a `ping` each HEARTBEAT it keeps the stream waiting; its
    result goes into `into`. A process behind on its renderings (or its queries) keeps its
    streams open: the proxy cuts a stream silent for its read timeout (deploy/nginx: 60 s),
    and each page it cut would come back, a reconnection more for a process already behind.
    """
    task = asyncio.ensure_future(awaitable)
    try:
        while not task.done():
            await asyncio.wait([task], timeout=HEARTBEAT)
            if not task.done():
                yield _event("ping", {"now": _now_ms()})
    finally:
        task.cancel()  # the stream left meanwhile: nothing left to wait for (done: no-op)
    into.append(task.result())


def _event(name: str, data: dict, *, id: str | None = None) -> str:
    head = f"id: {id}\n" if id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _summary(follow: Follow, changes: list[live.Change]) -> dict:
    data = live.summary(changes, dj=follow.dj)
    return {"campaign": follow.campaign_id, "after": follow.sent, **data}


async def _parts(
    follow: Follow, user_id: int, changes: list[live.Change], lang: str, data: dict
) -> dict[str, str]:
    """The rendered parts of a batch for this viewer (each rendered once by the hub)."""
    hub = live.hub()
    cursor = data["cursor"]
    pnj = {c.pj for c in changes if c.pj is not None and c.pnj}
    if data["all"]:
        # Who plays which PJ and the PNJ in play, read in one go for every viewer (the DJ's
        # stream needs both; a sheet's, the first).
        listed = await hub.parts(follow.campaign_id, cursor, lang, [("pks",), ("pnj",)])
        pks, pnj_listed = listed[("pks",)], listed[("pnj",)]
        assert isinstance(pks, list)  # live.parts renders ("pks",) as [pk, player] pairs
        assert isinstance(pnj_listed, list)  # and ("pnj",) as a list of pks
        players = {pk: player for pk, player in pks}
        pnj = set(pnj_listed)
    else:
        players = {c.pj: c.player for c in changes if c.pj is not None and not c.pnj}
    if follow.dj:
        keys = parts.dj_keys(sorted(players) + sorted(pnj))
    else:
        own = sorted(pk for pk, player in players.items() if player == user_id)
        others = sorted(pk for pk, player in players.items() if player != user_id)
        foes = [("foes",)] if data.get("foes") else []
        keys = parts.sheet_keys(own=own, party=others if follow.party else []) + foes
        # Every player's parts of the change, in one go: the first sheet to ask renders
        # them for the others, which then find them rendered. Only those of the players
        # streaming the campaign from this process: behind the proxy a table's phones are
        # spread over several processes, and each renders the cards its own pages show.
        here = hub.players_here(follow.campaign_id)
        played = sorted(pk for pk, player in players.items() if player in here)
        every = parts.sheet_keys(own=played, party=sorted(players) if follow.party else [])
        await hub.parts(follow.campaign_id, cursor, lang, every + foes)
    rendered = await hub.parts(follow.campaign_id, cursor, lang, keys)
    # Every part but ("pks",) renders as HTML, or None for a card this viewer lost.
    return {parts.key_name(key): html for key, html in rendered.items() if isinstance(html, str)}


def _poll_advice() -> HttpResponse:
    """Under WSGI (runserver) a stream would hold a worker and send nothing: poll instead."""
    response = HttpResponse(
        "retry: 60000\n\n" + _event("poll", {"now": _now_ms()}),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    return response


# C901 on purpose: the stream is one loop of waits and message kinds, read best whole.
@require_GET
async def stream(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:  # noqa: C901
    """Server-Sent Events: a `change` message per campaign batch, its id every cursor.

    Starts after the Last-Event-ID header (a reconnecting EventSource), else `?since=`.
    The first message (`hello`) names the campaigns this user may not see (`gone`) and when
    what they may see of the others last changed (`access`, see _viewer); `ping`
    keeps a quiet stream alive; both carry the server's clock (`now`, ms), with which pages
    date their taps (campaign.deadline).
    """
    given = request.headers.get("Last-Event-ID") or request.GET.get("since", "")
    try:
        wanted = parse_since(given)
    except ValueError:
        return _bad_since()
    if not isinstance(request, ASGIRequest):
        follows, _gone = await sync_to_async(_follows)(request.user, wanted)
        if not follows:
            raise Http404("No such campaign.")
        return _poll_advice()
    hub = live.hub()
    # On the hub's thread and connection: a stream holds no connection of its own.
    user_id, session_key, follows, gone, access = await hub.query(_viewer, request, wanted)
    if not follows:
        raise Http404("No such campaign.")
    lang = getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)[:2]
    browser = channel.browser_tag(session_key)
    for pk, follow in follows.items():
        # A cursor from before a database restore: start again from the current one.
        follow.sent = min(wanted[pk], follow.cursor)

    def cursors() -> str:
        return ",".join(f"{pk}:{follow.sent}" for pk, follow in follows.items())

    async def messages() -> AsyncIterator[str]:  # noqa: C901 - see stream
        yield "retry: 1000\n\n"
        hello = {"now": _now_ms(), "gone": gone, "access": access}
        yield _event("hello", hello, id=cursors() or None)
        queue: asyncio.Queue = asyncio.Queue()

        async def pump(follow: Follow) -> None:
            try:
                # What this viewer hears, and the changes that may change what they may
                # hear (checked first, then filtered out below when not theirs to hear).
                async for batch in hub.follow(
                    follow.campaign_id,
                    since=follow.sent,
                    current=follow.cursor,
                    player=user_id if follow.player_filter else None,
                    notable=RECHECK_KINDS,
                    heartbeat=None,
                ):
                    handled = asyncio.Event()
                    await queue.put((follow, batch, handled))
                    await handled.wait()  # rendered (or skipped): the hub may tell the writer
            except asyncio.CancelledError:
                raise
            except live.DatabaseGone:
                await queue.put((follow, None, None))  # the hub said why, once
            except Exception:
                log.exception("live: following campaign %s failed", follow.campaign_id)
                await queue.put((follow, None, None))

        for pk, follow in follows.items():
            if wanted[pk] > follow.cursor:  # the restore case: every card, once
                yield _event(
                    "change",
                    {
                        **_summary(follow, [live.Change(follow.cursor, None)]),
                        "reset": True,
                        "now": _now_ms(),
                    },
                    id=cursors(),
                )
        tasks = [asyncio.create_task(pump(follow)) for follow in follows.values()]
        done: list[asyncio.Event] = []

        def release() -> None:
            while done:
                done.pop().set()

        loop = asyncio.get_running_loop()
        # Each stream checks at moments of its own: the pages of a process often opened
        # together (a restart, a wave of reconnections), and their checks due at once would
        # queue on the hub's one thread ahead of the changes.
        check_at = loop.time() + random.uniform(0, RECHECK)
        said = loop.time()  # the last message sent: a ping is due HEARTBEAT after it
        try:
            while True:
                wait = min(said + HEARTBEAT, check_at) - loop.time()
                try:
                    async with asyncio.timeout(max(0.0, wait)):
                        follow, batch, handled = await queue.get()
                except TimeoutError:
                    follow, batch, handled = None, [], None
                if handled is not None:
                    # Whatever this message becomes, the batch is handled once it is rendered.
                    done.append(handled)
                if batch is None:
                    return  # the page reconnects, from the last id it got
                now = loop.time()
                may_have_changed = any(change.kind in RECHECK_KINDS for change in batch)
                if may_have_changed or now >= check_at:
                    answer: list[list[int]] = []
                    asking = hub.query(_changed_access, session_key, user_id, follows)
                    async for ping in _pinging(asking, answer):
                        yield ping
                    (changed,) = answer
                    if changed:
                        yield _event("reopen", {"campaigns": changed, "now": _now_ms()})
                        return
                    check_at = now + RECHECK
                if follow is None:
                    if now - said >= HEARTBEAT:  # not only a check that came due
                        yield _event("ping", {"now": _now_ms()})
                        said = now
                    continue
                player = user_id if follow.player_filter else None
                batch = [change for change in batch if live.visible(change, player=player)]
                if not batch:
                    release()
                    continue
                data = _summary(follow, batch)
                # The DJ's own tap, from this browser's only page of the campaign: that
                # page has it in its answer. The news goes without the rendering (a page
                # that still wants it asks, as for a change that came without it).
                answered = browser is not None and all(c.answered == browser for c in batch)
                try:
                    if not (follow.dj and answered):
                        rendered: list[dict[str, str]] = []
                        asked = _parts(follow, user_id, batch, lang, data)
                        async for ping in _pinging(asked, rendered):
                            yield ping
                        (data["parts"],) = rendered
                    data["view"] = follow.view
                except Exception:
                    log.exception("live: rendering the parts of a change failed")
                release()
                follow.sent = data["cursor"]
                yield _event("change", {**data, "now": _now_ms()}, id=cursors())
                said = loop.time()
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    response = StreamingHttpResponse(messages(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


@require_GET
@never_cache
def changes(request: HttpRequest) -> HttpResponse:
    """Polling: 204 when nothing this viewer sees changed after `?since=`, else the batches."""
    try:
        wanted = parse_since(request.GET.get("since", ""))
    except ValueError:
        return _bad_since()
    follows, gone = _follows(request.user, wanted)
    if not follows:
        raise Http404("No such campaign.")
    batches = []
    for pk, follow in follows.items():
        follow.sent = min(wanted[pk], follow.cursor)
        found = live.changes_between(campaign_id=pk, after=wanted[pk], upto=follow.cursor)
        player = request.user.pk if follow.player_filter else None
        seen = [change for change in found if live.visible(change, player=player)]
        if seen:
            batch = _summary(follow, seen)
            if wanted[pk] > follow.cursor:
                batch["reset"] = True  # a cursor from before a database restore
            batches.append(batch)
    if not batches and not gone:
        return HttpResponse(status=204)
    return JsonResponse({"changes": batches, "gone": gone, "now": _now_ms()})
