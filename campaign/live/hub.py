"""The hub: this process's view of the campaigns its live streams follow.

The database is the only source of change: every write advances its campaign's change
cursor and adds a CampaignChange row (live.channel). Each server process runs one hub,
started in its event loop by the first stream. The hub learns that a campaign moved from
PostgreSQL's LISTEN/NOTIFY (one listening connection per process; it still reads the
cursors every few seconds, so a LISTEN that died silently costs at most that delay), on
SQLite by polling the cursors of the campaigns it streams once per tick when a commit was
made since the last (`Commits`: a pragma, no read), and in either case
at once when the write committed in this same process (`changed`, from on_commit).
It reads each campaign's new rows once, keeps the last WINDOW of them, and every stream of
that campaign reads from there; a stream further behind reads its gap from the database.
It also renders the parts of each change once for all its streams (`parts`).

We keep this small implementation rather than django-eventstream: that package fans out
in-process or through a Pushpin/Redis setup, while our pages follow the database's own
cursor, so a page that reconnects misses nothing whichever process wrote or serves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.db import DatabaseError, connection

from .. import database
from .changes import (
    FETCH_LIMIT,
    WINDOW,
    Change,
    Commits,
    changes_after,
    changes_between,
    visible,
)
from .changes import moved as moved  # re-exported: callers and tests read them here
from .changes import summary as summary

log = logging.getLogger(__name__)

TICK = 0.05  # seconds between polls while the process has streams and no LISTEN
LISTEN_TICK = 3.0  # seconds between polls while LISTEN is up: a silent, dead LISTEN costs this
# Changes every stream hears of, whatever it hears: who may hear what may have changed.
NOTABLE = frozenset({"character", "campaign"})
RENDERED = 512  # rendered parts kept (each change's, for the streams still catching up)
HEARTBEAT = 15.0  # seconds of quiet before `follow` yields an empty batch
BACKOFF = (0.5, 10.0)  # first and longest wait before reconnecting LISTEN or polling again
# Reads of the changes failed this many times in a row: the database is out of this
# process's reach, and its streams end (DatabaseGone) so their pages reconnect, through
# the proxy, to a process that reaches it, instead of waiting here for news that cannot come.
GONE_AFTER = 2


class DatabaseGone(Exception):
    """This process's hub cannot read the changes: its streams end, their pages reconnect."""


class Window:
    """The last `size` changes of one campaign; every change after `start` is in it."""

    def __init__(self, cursor: int, size: int = WINDOW) -> None:
        self.start = cursor
        self.size = size
        self.changes: deque[Change] = deque()

    @property
    def cursor(self) -> int:
        """The latest cursor the window knows."""
        return self.changes[-1].cursor if self.changes else self.start

    def extend(self, changes: Iterable[Change]) -> bool:
        """Add the changes newer than the window's cursor; whether any was new."""
        before = self.cursor
        for change in changes:
            if change.cursor > self.cursor:
                self.changes.append(change)
        while len(self.changes) > self.size:
            self.start = self.changes.popleft().cursor
        return self.cursor != before

    def after(self, cursor: int) -> list[Change] | None:
        """The changes after `cursor`, or None when the window no longer reaches back there."""
        if cursor < self.start:
            return None
        newer = []
        for change in reversed(self.changes):  # new changes are at the end: stop early
            if change.cursor <= cursor:
                break
            newer.append(change)
        newer.reverse()
        return newer


class Feed:
    """One campaign followed by this process: its window, its streams, their wake-up.

    A change wakes only the streams that hear it: those that hear everything (the DJ's,
    `audience` None) and, for a PJ's card, its player's; a change of every card, or of a
    NOTABLE kind, wakes them all. Each stream says how far it has handled the changes
    (`handled`); a writer of this process waits for that (`settle`) before rendering its
    own answer.
    """

    def __init__(self, cursor: int, size: int) -> None:
        self.window = Window(cursor, size)
        self.streams = 0
        self.wakes: dict[int | None, asyncio.Event] = {}  # audience -> its wake-up
        self.audience: dict[object, int | None] = {}  # stream -> the player it hears for
        self.handled_by: dict[object, int] = {}  # stream -> the cursor it has handled
        self.waiters: list[tuple[int, threading.Event]] = []
        self.gone = False  # the hub lost the database: every stream of it ends

    def advanced(self, audience: int | None) -> asyncio.Event:
        """The event set when a change that `audience` hears comes in."""
        return self.wakes.setdefault(audience, asyncio.Event())

    def handled(self, stream: object, cursor: int | None) -> None:
        """`stream` has handled every change up to `cursor` (None: it is gone)."""
        if cursor is None:
            self.handled_by.pop(stream, None)
        else:
            self.handled_by[stream] = cursor
        self.release()

    def release(self) -> None:
        """Let go the writers waiting for a cursor every stream has handled."""
        low = min(self.handled_by.values(), default=None)
        waiting = []
        for cursor, event in self.waiters:
            if low is None or low >= cursor:
                event.set()
            else:
                waiting.append((cursor, event))
        self.waiters = waiting

    def extend(self, changes: Iterable[Change]) -> None:
        before = self.window.cursor
        changes = list(changes)
        if not self.window.extend(changes):
            return
        new = [change for change in changes if change.cursor > before]
        # A PNJ's change reaches every sheet too: what players see of the fight's PNJ.
        if any(change.pj is None or change.pnj or change.kind in NOTABLE for change in new):
            woken = set(self.wakes)
        else:
            woken = {None, *(change.player for change in new if change.player is not None)}
        # Players' streams first, the DJ's last: each stream asks the hub's one thread for
        # its kind's rendering in the order they wake, and the DJ who tapped already has
        # the change in the tap's own answer.
        for audience in sorted(woken & set(self.wakes), key=lambda audience: audience is None):
            # A fresh event per advance: every stream waiting on the old one wakes once.
            self.wakes.pop(audience).set()
        # The streams left asleep had handled everything, and hear none of this: they
        # have handled it too.
        for stream, audience in self.audience.items():
            if audience not in woken and self.handled_by.get(stream, before) >= before:
                self.handled_by[stream] = self.window.cursor
        self.release()

    def end(self) -> None:
        """End every stream of this feed (the database is gone): each wakes and raises."""
        self.gone = True
        for audience in list(self.wakes):
            self.wakes.pop(audience).set()


class Hub:
    """This process's view of the campaigns it streams (one per event loop)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, *, tick: float = TICK, window: int = WINDOW
    ) -> None:
        self.loop = loop
        self.tick = tick
        self.window = window
        self.feeds: dict[int, Feed] = {}
        self.wake = asyncio.Event()
        # What the poller reads when woken: the campaigns told of a change (NOTIFY, a new
        # stream) rather than every one followed; `sweep` reads them all (each tick, after
        # LISTEN came back or went, after a failed or partial read).
        self.dirty: set[int] = set()
        self.sweep = False
        self.listening = False  # a LISTEN connection is up: no need to poll
        # One thread, so one database connection, for all of the hub's queries.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zodiac-live")
        self._poller: asyncio.Task | None = None
        self._listener: asyncio.Task | None = None
        # (campaign, cursor, language, part) -> the future of a dict holding that part.
        self.rendered: OrderedDict[tuple, asyncio.Future] = OrderedDict()
        # On SQLite, whether anyone committed since the last tick (on PostgreSQL always
        # yes: its ticks are LISTEN's safety net).
        self.commits = Commits(connection.settings_dict)

    async def follow(
        self,
        campaign_id: int,
        *,
        since: int,
        current: int,
        player: int | None = None,
        notable: frozenset[str] = frozenset(),
        heartbeat: float | None = HEARTBEAT,
    ) -> AsyncIterator[list[Change]]:
        """Yield the changes after `since` that `player` sees, in batches, as they commit
        (and those of a `notable` kind, which the caller filters itself).

        `current` is the campaign's cursor read by the caller. Yields [] after `heartbeat`
        seconds without a batch (never, when None), so the stream can show it is alive.
        A batch counts as handled (Feed.handled) when the caller asks for the next one.
        """
        feed = self._subscribe(campaign_id, current)
        me = object()
        feed.audience[me] = player
        feed.handled(me, since)
        try:
            cursor = since
            quiet_since = self.loop.time()
            while True:
                if feed.gone:
                    raise DatabaseGone(f"campaign {campaign_id}: the database is out of reach")
                batch = feed.window.after(cursor)
                if batch is None:  # further behind than the window: read the gap
                    upto = feed.window.start
                    batch = await self.query(
                        changes_between,
                        campaign_id=campaign_id,
                        after=cursor,
                        upto=upto,
                        limit=self.window,
                    )
                    cursor = upto
                elif batch:
                    cursor = batch[-1].cursor
                if batch:
                    seen = [
                        change
                        for change in batch
                        if change.kind in notable or visible(change, player=player)
                    ]
                    if seen:
                        yield seen
                        quiet_since = self.loop.time()
                    feed.handled(me, cursor)
                    continue
                left = None if heartbeat is None else heartbeat - (self.loop.time() - quiet_since)
                if left is not None and left <= 0:
                    yield []
                    quiet_since = self.loop.time()
                    continue
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):
                        await feed.advanced(player).wait()
        finally:
            feed.audience.pop(me, None)
            feed.handled(me, None)
            self._unsubscribe(campaign_id, feed)

    async def parts(
        self, campaign_id: int, cursor: int, lang: str, keys: Sequence[tuple]
    ) -> dict[tuple, object]:
        """The rendered parts `keys` of a campaign at `cursor`, each rendered once.

        Every stream of the campaign asks for the parts its viewer sees; what is not
        rendered yet is rendered in one go on the hub's thread (live.parts.render), and
        what another stream is already waiting for is awaited, not rendered again. A
        change advances the cursor, so a part is never stale.
        """
        base = (campaign_id, cursor, lang)
        # Each part's rendering is taken in hand before any wait: a rendering that fails
        # meanwhile raises here too (it is not found gone), and one pushed out of the
        # cache by others (RENDERED) is still this stream's to read. A rendering is a task
        # of its own, waited on through a shield: a stream that leaves (its page closed,
        # or cut by the proxy) cancels its own wait, not the rendering the others await.
        renderings: dict[tuple, asyncio.Future] = {}
        missing = []
        for key in dict.fromkeys(keys):
            if (*base, key) in self.rendered:
                renderings[key] = self.rendered[(*base, key)]
            else:
                missing.append(key)
        if missing:
            from . import parts

            rendering = self.loop.create_task(self.query(parts.render, campaign_id, lang, missing))
            for key in missing:
                self.rendered[(*base, key)] = renderings[key] = rendering

            def failed(done: asyncio.Future, keys=tuple(missing)) -> None:
                """A rendering that failed is not kept: the next stream to ask renders anew."""
                if done.cancelled() or done.exception() is not None:  # retrieved, not logged
                    for key in keys:
                        if self.rendered.get((*base, key)) is done:
                            del self.rendered[(*base, key)]

            rendering.add_done_callback(failed)
            while len(self.rendered) > RENDERED:
                self.rendered.popitem(last=False)
        return {key: (await asyncio.shield(renderings[key]))[key] for key in keys}

    def players_here(self, campaign_id: int) -> set[int]:
        """The players with a stream of the campaign in this process that hears their own
        PJ only (those that hear everything are not told apart)."""
        feed = self.feeds.get(campaign_id)
        if feed is None:
            return set()
        return {player for player in feed.audience.values() if player is not None}

    def poke(self, campaign_id: int, cursor: int, change: Change | None = None) -> None:
        """A change at `cursor` committed (NOTIFY or this process): read it now.

        A write of this process hands its `change` over: when it is the very next one, the
        streams get it without the hub reading it back from the database.
        """
        feed = self.feeds.get(campaign_id)
        if feed is None or cursor <= feed.window.cursor:
            return
        if change is not None and change.cursor == feed.window.cursor + 1:
            feed.extend([change])
        else:
            self.dirty.add(campaign_id)
            self.wake.set()

    def _subscribe(self, campaign_id: int, current: int) -> Feed:
        feed = self.feeds.get(campaign_id)
        if feed is None:
            feed = self.feeds[campaign_id] = Feed(current, self.window)
            # A change may have committed after `current` was read, its NOTIFY then ignored.
            self.dirty.add(campaign_id)
            self.wake.set()
        feed.streams += 1
        # Hub tasks get an empty context, not the first stream's (its request's thread).
        if self._poller is None or self._poller.done():
            self._poller = self.loop.create_task(self._poll(), context=contextvars.Context())
        if self._listener is None and connection.vendor == "postgresql":
            self._listener = self.loop.create_task(self._listen(), context=contextvars.Context())
        if current > feed.window.cursor:
            self.dirty.add(campaign_id)
            self.wake.set()
        return feed

    def _settle(self, campaign_id: int, cursor: int, event: threading.Event) -> None:
        feed = self.feeds.get(campaign_id)
        if feed is None:
            event.set()
            return
        feed.waiters.append((cursor, event))
        feed.release()

    def _unsubscribe(self, campaign_id: int, feed: Feed) -> None:
        feed.streams -= 1
        if feed.streams == 0 and self.feeds.get(campaign_id) is feed:
            del self.feeds[campaign_id]
            if not self.feeds:
                self.wake.set()  # lets the poller see it has nothing left to do

    async def close(self) -> None:
        """Stop the hub's tasks and close its database connection (tests, shutdown)."""
        for task in (self._poller, self._listener):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.query(_close_connection)
        self.executor.shutdown()
        self.commits.close()

    async def query(self, function: Callable, /, *args, **kwargs):
        """Run a short ORM function on the hub's thread, so on its one database connection.

        Streams open their requests' queries here too: hundreds of pages reconnecting at
        once then queue for a moment instead of opening hundreds of connections.
        """
        return await sync_to_async(_in_hub_thread, thread_sensitive=False, executor=self.executor)(
            function, *args, **kwargs
        )

    async def _poll(self) -> None:
        """Read the new changes of the campaigns told of one when woken, and of every
        followed campaign per tick (a sweep)."""
        failures = 0
        while self.feeds:
            if not self.wake.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(LISTEN_TICK if self.listening else self.tick):
                        await self.wake.wait()
            ticked = not self.wake.is_set()
            if ticked and not self.sweep and not self.dirty and not self.commits.since_last():
                continue  # SQLite said nobody committed since the last tick: nothing to read
            sweep = self.sweep or ticked  # told to, or the tick came
            self.wake.clear()
            self.sweep = False
            feeds = dict(self.feeds)
            if not feeds:
                break
            if not sweep:
                feeds = {pk: feeds[pk] for pk in self.dirty if pk in feeds}
            self.dirty.clear()
            if not feeds:
                continue
            try:
                found = await self.query(
                    changes_after,
                    {pk: feed.window.cursor for pk, feed in feeds.items()},
                    sweep=sweep,
                )
            except Exception:
                failures += 1
                log.exception("live: reading the changes failed (%d in a row)", failures)
                if failures == GONE_AFTER:
                    log.warning("live: the database is out of reach; ending this process's streams")
                    for feed in feeds.values():
                        feed.end()
                self.sweep = True
                await asyncio.sleep(min(BACKOFF[0] * 2 ** (failures - 1), BACKOFF[1]))
                continue
            failures = 0
            for campaign_id, changes in found.items():
                if self.feeds.get(campaign_id) is feeds[campaign_id]:
                    feeds[campaign_id].extend(changes)
            if sum(map(len, found.values())) >= FETCH_LIMIT:
                self.sweep = True
                self.wake.set()  # more to read: no need to wait for the next tick

    async def _listen(self) -> None:
        """Hold this process's LISTEN connection; reconnect with backoff when it drops."""
        import psycopg

        delay = BACKOFF[0]
        while True:
            try:
                params = await self.query(_listen_params)
                async with await psycopg.AsyncConnection.connect(**params) as listener:
                    await listener.execute(f"LISTEN {CHANNEL}")
                    self.listening, delay = True, BACKOFF[0]
                    self.sweep = True  # whatever committed while nobody listened
                    self.wake.set()
                    async for notify in listener.notifies():
                        campaign_id, cursor, *writer = notify.payload.split(":")
                        if writer and int(writer[0]) == os.getpid():
                            # This process's own write: its commit hands the change over
                            # (changed), and a read woken by the NOTIFY could come first.
                            continue
                        self.poke(int(campaign_id), int(cursor))
            except Exception as error:
                log.warning("live: LISTEN connection lost (%s); polling until it is back", error)
            finally:
                self.listening = False
                self.sweep = True
                self.wake.set()  # the poller goes back to ticking
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])


# The PostgreSQL channel that writers NOTIFY (live.channel) and each process LISTENs to.
CHANNEL = "zodiac_changes"


def _in_hub_thread(function: Callable, /, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except DatabaseError:
        # A broken connection is opened afresh by the next query.
        with contextlib.suppress(Exception):
            connection.close()
        raise


def _close_connection() -> None:
    connection.close()  # resolved in the hub's thread: its own connection


def _listen_params() -> dict:
    return {**database.direct_params(), "connect_timeout": 5}


_hub: Hub | None = None


def hub() -> Hub:
    """The hub of the running event loop (made on first use)."""
    global _hub
    loop = asyncio.get_running_loop()
    if _hub is None or _hub.loop is not loop:
        _hub = Hub(loop)
    return _hub


def changed(campaign_id: int, cursor: int, change: Change | None = None) -> None:
    """Tell this process's hub of a write committed here; callable from any thread."""
    _wake(campaign_id, cursor, change)


SETTLE = 0.05  # seconds a writer waits, at most, for this process's streams


def settle(campaign_id: int, cursor: int, timeout: float = SETTLE) -> bool:
    """From a writer's thread, after its commit: wait until this process's streams of the
    campaign have handled the change at `cursor` (rendered it for their pages), at most
    `timeout`. True when they have (or there is nothing to wait for), False when it gave up.

    The writer then renders its own answer. Both are work for the same processor, and a
    tap's answer is only the tapping page's: the others' pages go first, instead of every
    page waiting while two renderings share the interpreter.
    """
    current = _hub
    if current is None:
        return True
    event = threading.Event()
    try:
        current.loop.call_soon_threadsafe(current._settle, campaign_id, cursor, event)
    except RuntimeError:  # the loop has closed
        return True
    return event.wait(timeout)


def _wake(campaign_id: int, cursor: int, change: Change | None = None) -> None:
    current = _hub
    if current is None:
        return
    with contextlib.suppress(RuntimeError):  # the loop has closed
        current.loop.call_soon_threadsafe(current.poke, campaign_id, cursor, change)
