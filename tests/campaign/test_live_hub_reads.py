"""The hub at a hosted scale: what it reads when told of a change, what a tick sweeps, and
its streams ended when it cannot reach the database (docs/architecture.md, Live updates).

A process follows hundreds of campaigns behind the proxy: a NOTIFY names one, and the hub
reads that one; the tick's sweep reads the campaigns' cursors first and the changes of
those that moved. A hub that cannot read the changes ends its streams, so their pages
reconnect to a process that can.
"""

import asyncio
import contextlib
import sqlite3

import pytest
from django.conf import settings
from django.db import OperationalError

from campaign.live import hub as live
from campaign.live.changes import Commits
from campaign.live.hub import Change, DatabaseGone, Hub
from tests.campaign.test_live import cursor, run, until_idle, watched, wound, wound_elsewhere
from tests.factories import CampaignFactory, CharacterFactory


def recorded(hub: Hub) -> list[tuple[str, dict, dict]]:
    """Each query the hub makes from now on: (function, its first argument, keywords)."""
    calls: list[tuple[str, dict, dict]] = []
    real = hub.query

    async def counted(function, *args, **kwargs):
        calls.append((function.__name__, args[0] if args else None, kwargs))
        return await real(function, *args, **kwargs)

    hub.query = counted
    return calls


@pytest.mark.django_db(transaction=True)
def test_a_notify_reads_the_campaign_it_names_not_every_one_followed(
    campaign, aiko, dj, monkeypatch
):
    other = CampaignFactory(name="Otra", slug="otra", dj=dj)
    start, other_start = cursor(campaign), cursor(other)
    monkeypatch.setattr(live, "LISTEN_TICK", None)  # no tick: only a wake reads

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=None)
        wake = watched(hub)
        try:
            streams = [
                hub.follow(campaign.pk, since=start, current=start, heartbeat=None),
                hub.follow(other.pk, since=other_start, current=other_start, heartbeat=None),
            ]
            waiting = asyncio.ensure_future(anext(streams[0]))
            idle = asyncio.ensure_future(anext(streams[1]))
            await until_idle(hub, wake)  # both campaigns' first reads made
            calls = recorded(hub)
            await wound_elsewhere(aiko)  # no hub of this process is told: as another's write
            hub.poke(campaign.pk, start + 1)  # what its NOTIFY does
            batch = await waiting
            idle.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await idle
            for stream in streams:
                await stream.aclose()
            return batch, calls
        finally:
            await hub.close()

    batch, calls = run(scenario())

    assert batch == [Change(start + 1, aiko.pk)]
    reads = [(cursors, keywords) for name, cursors, keywords in calls if name == "changes_after"]
    assert reads == [({campaign.pk: start}, {"sweep": False})]


@pytest.mark.django_db(transaction=True)
def test_a_tick_sweeps_every_campaign_followed_and_finds_a_change_nobody_announced(
    campaign, aiko, dj, monkeypatch
):
    other = CampaignFactory(name="Otra", slug="otra", dj=dj)
    start, other_start = cursor(campaign), cursor(other)
    monkeypatch.setattr(live, "LISTEN_TICK", 0.01)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        wake = watched(hub)
        try:
            calls = recorded(hub)
            streams = [
                hub.follow(campaign.pk, since=start, current=start, heartbeat=None),
                hub.follow(other.pk, since=other_start, current=other_start, heartbeat=None),
            ]
            waiting = asyncio.ensure_future(anext(streams[0]))
            idle = asyncio.ensure_future(anext(streams[1]))
            await until_idle(hub, wake)  # the first reads made: only a sweep finds what follows
            await wound_elsewhere(aiko)  # nobody pokes the hub
            batch = await waiting  # never, if no tick swept (then run() gives up)
            idle.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await idle
            for stream in streams:
                await stream.aclose()
            return batch, calls
        finally:
            await hub.close()

    batch, calls = run(scenario())

    assert batch == [Change(start + 1, aiko.pk, None)]
    sweeps = [cursors for name, cursors, keywords in calls if keywords.get("sweep")]
    assert {campaign.pk, other.pk} in [set(cursors) for cursors in sweeps]


@pytest.mark.django_db(transaction=True)
def test_a_sweep_reads_only_the_campaigns_whose_cursor_moved(campaign, aiko, dj):
    other = CampaignFactory(name="Otra", slug="otra", dj=dj)
    CharacterFactory(campaign=other, name="Ren")
    start, other_start = cursor(campaign), cursor(other)
    wound(aiko)

    found = live.changes_after({campaign.pk: start, other.pk: other_start}, sweep=True)

    assert found == {campaign.pk: [Change(start + 1, aiko.pk, None, "event", False)]}
    assert live.changes_after({campaign.pk: start + 1, other.pk: other_start}, sweep=True) == {}


@pytest.mark.django_db(transaction=True)
def test_a_hub_that_cannot_read_the_changes_ends_its_streams(campaign, monkeypatch):
    now = cursor(campaign)
    monkeypatch.setattr(live, "BACKOFF", (0.01, 0.01))

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        real = hub.query

        async def unreachable(function, *args, **kwargs):
            if function is live.changes_after:
                raise OperationalError("connection refused")
            return await real(function, *args, **kwargs)

        hub.query = unreachable
        try:
            stream = hub.follow(campaign.pk, since=now, current=now, heartbeat=None)
            with pytest.raises(DatabaseGone):
                await anext(stream)  # never, if the stream waited on (then run() gives up)
            return dict(hub.feeds)
        finally:
            await hub.close()

    assert run(scenario()) == {}  # the stream gone, the campaign is no longer followed


# -- SQLite: an idle tick reads nothing --------------------------------------------------


def sqlite_file(tmp_path) -> tuple[dict, sqlite3.Connection]:
    """A SQLite database file in WAL mode as the app's, and a connection that writes it."""
    name = tmp_path / "other.sqlite3"
    writer = sqlite3.connect(name, check_same_thread=False)  # run() runs the loop elsewhere
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t (a)")
    writer.commit()
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": name}, writer


def test_commits_says_whether_another_connection_committed_since_the_last_look(tmp_path):
    settings_dict, writer = sqlite_file(tmp_path)
    commits = Commits(settings_dict)
    try:
        assert commits.since_last() is True  # the first look: nothing known yet
        assert commits.since_last() is False
        writer.execute("INSERT INTO t VALUES (1)")
        assert commits.since_last() is False  # not committed yet
        writer.commit()
        assert commits.since_last() is True
        assert commits.since_last() is False
    finally:
        commits.close()
        writer.close()


@pytest.mark.parametrize(
    "settings_dict",
    [
        {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"},
        {"ENGINE": "django.db.backends.sqlite3", "NAME": "file:memorydb_default?mode=memory"},
        {"ENGINE": "django.db.backends.postgresql", "NAME": "zodiac"},
        {"ENGINE": "django.db.backends.sqlite3", "NAME": "/no/such/dir/db.sqlite3"},
    ],
)
def test_commits_says_yes_when_it_cannot_tell(settings_dict):
    commits = Commits(settings_dict)
    assert [commits.since_last() for _ in range(3)] == [True, True, True]


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3",
    reason="SQLite's ticks only: on PostgreSQL a tick is LISTEN's safety net and always reads "
    "(Commits says yes for any other engine: the test above)",
)
@pytest.mark.django_db(transaction=True)
def test_a_tick_with_no_commit_since_the_last_reads_nothing(campaign, aiko, tmp_path):
    """The hub's ticks ask Commits first: quiet ticks make no query on the hub's thread, and
    the tick after a commit sweeps as before."""
    settings_dict, writer = sqlite_file(tmp_path)
    start = cursor(campaign)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        hub.commits = Commits(settings_dict)  # the test database is in memory: a file here
        hub.commits.since_last()  # its first look says yes (it knew nothing): done here
        wake = watched(hub)
        try:
            stream = hub.follow(campaign.pk, since=start, current=start, heartbeat=None)
            waiting = asyncio.ensure_future(anext(stream))
            await until_idle(hub, wake)
            calls = recorded(hub)
            for _ in range(10):  # ten ticks, nobody committing
                wake.waited.clear()
                await wake.waited.wait()
            quiet = list(calls)
            await wound_elsewhere(aiko)  # written to the test database, nobody told
            writer.execute("INSERT INTO t VALUES (1)")  # and a commit Commits sees
            writer.commit()
            batch = await waiting  # never, if no tick swept (then run() gives up)
            await stream.aclose()
            return quiet, calls, batch
        finally:
            await hub.close()
            writer.close()

    quiet, calls, batch = run(scenario())

    assert quiet == []
    assert [name for name, _cursors, keywords in calls if keywords.get("sweep")] == [
        "changes_after"
    ]
    assert batch == [Change(start + 1, aiko.pk, None)]
