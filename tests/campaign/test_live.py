"""The live channel: the polling door, who hears of what, the hub's window and its reads.

The stream itself runs its queries on the hub's own thread, outside a test's transaction:
it is tested against a real server in test_live_server.py.
"""

import asyncio
import contextlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign import services
from campaign.live import hub as live
from campaign.live.hub import Change, Hub, Window, summary, visible
from campaign.models import CampaignChange, Membership
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.waiting import wait_until


def poll(client, campaign, since):
    return client.get(reverse("live_changes"), {"since": f"{campaign.pk}:{since}"})


def batches(response) -> list[dict]:
    """The batches of a polling answer, each without the campaign it is of."""
    data = response.json()
    return [{k: v for k, v in batch.items() if k != "campaign"} for batch in data["changes"]]


def cursor(campaign) -> int:
    campaign.refresh_from_db()
    return campaign.change_cursor


def wound(character) -> None:
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


@pytest.fixture
def player(campaign, aiko):
    """Aiko's player."""
    user = UserFactory(username="aiko-player")
    MembershipFactory(user=user, campaign=campaign, role=Membership.Role.PLAYER)
    services.character_update(character=aiko, player=user)
    return user


# --- Polling ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_polling_answers_204_with_no_body_when_nothing_changed(client, dj, campaign, aiko):
    client.force_login(dj)

    response = poll(client, campaign, cursor(campaign))

    assert response.status_code == 204
    assert response.content == b""


@pytest.mark.django_db
def test_polling_names_the_pj_that_changed_and_the_last_cursor(client, dj, campaign, aiko, kenji):
    client.force_login(dj)
    since = cursor(campaign)
    wound(aiko)
    wound(kenji)
    wound(aiko)

    response = poll(client, campaign, since)

    assert response.status_code == 200
    assert response.json()["changes"] == [
        {
            "campaign": campaign.pk,
            "after": since,
            "cursor": since + 3,
            "pj": sorted([aiko.pk, kenji.pk]),
            "all": False,
            "kinds": ["event"],
        }
    ]
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_polling_says_all_after_a_campaign_wide_event(client, dj, campaign, aiko):
    client.force_login(dj)
    since = cursor(campaign)

    services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})

    assert batches(poll(client, campaign, since)) == [
        {"after": since, "cursor": since + 1, "pj": [], "all": True, "kinds": ["event"]}
    ]


@pytest.mark.django_db
def test_a_player_hears_of_their_own_pj_but_not_of_another(client, campaign, aiko, kenji, player):
    client.force_login(player)
    since = cursor(campaign)

    wound(kenji)
    assert poll(client, campaign, since).status_code == 204

    wound(aiko)
    assert batches(poll(client, campaign, since)) == [
        {"after": since, "cursor": since + 2, "pj": [aiko.pk], "all": False, "kinds": ["event"]}
    ]


@pytest.mark.django_db
def test_a_player_hears_of_campaign_wide_changes(client, campaign, aiko, kenji, player):
    client.force_login(player)
    since = cursor(campaign)

    services.session_start(campaign=campaign, title="Uno")

    assert batches(poll(client, campaign, since))[0]["all"] is True


@pytest.mark.django_db
def test_a_cursor_far_behind_gets_one_refresh_of_everything(client, dj, campaign, aiko):
    client.force_login(dj)
    wound(aiko)

    data = batches(poll(client, campaign, 0))  # more changes than the window would be alike

    assert data[0]["cursor"] == cursor(campaign)


@pytest.mark.django_db
def test_a_cursor_from_before_a_restore_gets_everything_at_the_current_cursor(client, dj, campaign):
    client.force_login(dj)

    data = batches(poll(client, campaign, cursor(campaign) + 50))

    now = cursor(campaign)
    assert data == [
        {"after": now, "cursor": now, "pj": [], "all": True, "kinds": ["event"], "reset": True}
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "since", ["", "abc", "-1", "1.5", " 3", "+3", "1_000", "9" * 30, "3", "3:", ":4", "3:4,"]
)
def test_a_malformed_since_is_a_400_with_a_message(client, dj, campaign, since):
    client.force_login(dj)

    response = client.get(reverse("live_changes"), {"since": since})

    assert response.status_code == 400
    assert "since" in response.content.decode()


@pytest.mark.django_db
def test_polling_without_since_is_a_400(client, dj, campaign):
    client.force_login(dj)

    assert client.get(reverse("live_changes")).status_code == 400


@pytest.mark.django_db
def test_polling_follows_every_campaign_it_names_and_says_which_it_may_not_see(
    client, dj, campaign, aiko
):
    mine = CampaignFactory(slug="mia", dj=dj)
    theirs = CampaignFactory(slug="suya", dj=UserFactory())
    client.force_login(dj)
    since = cursor(campaign)
    wound(aiko)

    query = f"{campaign.pk}:{since},{mine.pk}:{cursor(mine)},{theirs.pk}:0"
    response = client.get(reverse("live_changes"), {"since": query})

    data = response.json()
    assert [batch["campaign"] for batch in data["changes"]] == [campaign.pk]
    assert data["gone"] == [theirs.pk]
    assert isinstance(data["now"], int)


@pytest.mark.django_db
def test_anonymous_visitors_get_404(client, campaign):
    assert poll(client, campaign, 0).status_code == 404


@pytest.mark.django_db
def test_a_user_outside_the_campaign_gets_404(client, campaign):
    client.force_login(UserFactory())

    assert poll(client, campaign, 0).status_code == 404


@pytest.mark.django_db
def test_a_player_of_another_campaign_gets_404(client, campaign):
    other = CampaignFactory(dj=UserFactory())
    user = UserFactory()
    MembershipFactory(user=user, campaign=other, role=Membership.Role.PLAYER)
    client.force_login(user)

    assert poll(client, campaign, 0).status_code == 404
    assert poll(client, other, 0).status_code == 204


# --- Who hears of what, and several changes as one message --------------------------------


def test_a_batch_is_one_message_with_the_last_cursor():
    batch = [Change(4, 7), Change(5, 9), Change(6, 7)]

    assert summary(batch) == {"cursor": 6, "pj": [7, 9], "all": False, "kinds": ["event"]}
    assert summary([*batch, Change(7, None)])["all"] is True
    # A session started meanwhile: the board redraws its session bar.
    assert summary([*batch, Change(7, None, kind="session")])["kinds"] == ["event", "session"]


def test_the_dj_sees_every_change_and_a_player_their_pj_and_campaign_wide_ones():
    theirs, others, everyone = Change(1, 7, player=3), Change(2, 9, player=4), Change(3, None)

    assert [visible(c, player=None) for c in (theirs, others, everyone)] == [True, True, True]
    assert [visible(c, player=3) for c in (theirs, others, everyone)] == [True, False, True]


# --- The window --------------------------------------------------------------------------


def test_the_window_gives_what_came_after_a_cursor():
    window = Window(10, size=5)
    window.extend([Change(11, 1), Change(12, 2), Change(13, None)])

    assert window.after(11) == [Change(12, 2), Change(13, None)]
    assert window.after(13) == []
    assert window.after(10) == [Change(11, 1), Change(12, 2), Change(13, None)]


def test_the_window_ignores_changes_it_already_holds():
    window = Window(10, size=5)
    window.extend([Change(11, 1)])

    assert window.extend([Change(11, 1)]) is False
    assert window.extend([Change(11, 1), Change(12, 2)]) is True
    assert window.after(10) == [Change(11, 1), Change(12, 2)]


def test_the_window_forgets_the_oldest_and_says_when_a_cursor_is_too_old():
    window = Window(0, size=3)
    window.extend(Change(n, n) for n in range(1, 8))

    assert window.after(3) is None  # 4 is the oldest kept: 3 cannot tell what came before
    assert window.after(4) == [Change(5, 5), Change(6, 6), Change(7, 7)]
    assert window.cursor == 7


@pytest.mark.django_db
def test_a_poll_that_finds_nothing_new_reads_only_the_campaigns_cursors(campaign, aiko):
    now = cursor(campaign)
    changes_table = CampaignChange._meta.db_table
    with CaptureQueriesContext(connection) as quiet:
        assert live.changes_after({campaign.pk: now}) == {}
    assert len(quiet) == 1 and changes_table not in quiet[0]["sql"]

    wound(aiko)

    with CaptureQueriesContext(connection) as moved:
        found = live.changes_after({campaign.pk: now})
    assert found == {campaign.pk: [Change(now + 1, aiko.pk, None, "event")]}
    assert changes_table in moved[-1]["sql"]


# --- The hub, in this process -----------------------------------------------------------


SCENARIO = 30  # seconds: a safety net, so a scenario that never ends fails, never a measure


def run(coroutine):
    """Run a scenario in an event loop of its own thread (this one may hold Playwright's)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, asyncio.wait_for(coroutine, timeout=SCENARIO)).result()


class Watched(asyncio.Event):
    """A hub's wake event that says when its poller is waiting on it: `idle` is set while
    the poller waits for a wake, and `waited` each time it starts to."""

    def __init__(self) -> None:
        super().__init__()
        self.idle = asyncio.Event()
        self.waited = asyncio.Event()

    async def wait(self) -> bool:
        if not self.is_set():
            self.idle.set()
            self.waited.set()
        try:
            return await super().wait()
        finally:
            self.idle.clear()


def watched(hub: Hub) -> Watched:
    """Give `hub` a wake event that says when its poller waits (before any stream)."""
    hub.wake = Watched()
    return hub.wake


async def until_idle(hub: Hub, wake: Watched) -> None:
    """Until the hub's poller waits for a wake with nothing left to read: its first read
    of a new campaign made and, on PostgreSQL, its LISTEN up (which reads once more)."""

    def idle() -> bool:
        listening = connection.vendor != "postgresql" or hub.listening
        return listening and wake.idle.is_set() and not wake.is_set()

    while not idle():
        wake.waited.clear()
        await wake.waited.wait()


async def wound_elsewhere(character) -> None:
    """A write from another thread, as from another request; its connection is closed after."""

    def write():
        try:
            wound(character)
        finally:
            connection.close()

    await asyncio.to_thread(write)


@pytest.mark.django_db(transaction=True)
def test_the_hub_reads_each_advance_once_for_all_streams_of_a_campaign(campaign, aiko, kenji):
    start = cursor(campaign)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        reads = []
        real = hub.query

        async def counted(function, *args, **kwargs):
            reads.append(function.__name__)
            return await real(function, *args, **kwargs)

        hub.query = counted
        streams = [
            hub.follow(campaign.pk, since=start, current=start, heartbeat=None) for _ in range(5)
        ]
        waiting = [asyncio.ensure_future(anext(s)) for s in streams]
        await asyncio.sleep(0)  # every stream is subscribed and waiting
        reads.clear()
        await wound_elsewhere(aiko)
        batches = await asyncio.gather(*waiting)
        for s in streams:
            await s.aclose()
        followed = dict(hub.feeds)
        await hub.close()
        return batches, reads, followed

    batches, reads, followed = run(scenario())

    assert batches == [[Change(start + 1, aiko.pk, None)]] * 5
    # Ticks that found nothing are queries too, but none was made per stream.
    assert "changes_between" not in reads
    assert followed == {}  # the last stream gone, the campaign is no longer followed


@pytest.mark.django_db(transaction=True)
def catch_up(campaign, *, start: int, window: int) -> list[Change]:
    """The first batch of a stream that starts at `start`, from a hub of `window` changes."""
    now = cursor(campaign)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01, window=window)
        stream = hub.follow(campaign.pk, since=start, current=now, heartbeat=None)
        first = await anext(stream)
        await stream.aclose()
        await hub.close()
        return first

    return run(scenario())


@pytest.mark.django_db(transaction=True)
def test_a_write_committed_in_this_process_wakes_the_hub_without_waiting_for_a_tick(
    campaign, aiko, monkeypatch
):
    start = cursor(campaign)
    monkeypatch.setattr(live, "LISTEN_TICK", None)  # no tick at all: only a wake reads

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=None)
        wake = watched(hub)
        live._hub = hub  # what live.hub() makes for the server's loop
        try:
            stream = hub.follow(campaign.pk, since=start, current=start, heartbeat=None)
            waiting = asyncio.ensure_future(anext(stream))
            await until_idle(hub, wake)  # the new campaign's first read made
            await wound_elsewhere(aiko)  # its on_commit calls live.changed
            first = await waiting  # never, if nothing woke the hub (then run() gives up)
            await stream.aclose()
        finally:
            live._hub = None
            await hub.close()
        return first

    assert run(scenario()) == [Change(start + 1, aiko.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_stream_behind_the_window_reads_its_gap_from_the_database(campaign, aiko, kenji):
    start = cursor(campaign)
    for _ in range(3):
        wound(aiko)
    wound(kenji)

    assert catch_up(campaign, start=start, window=5) == [
        Change(start + 1, aiko.pk),
        Change(start + 2, aiko.pk),
        Change(start + 3, aiko.pk),
        Change(start + 4, kenji.pk),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_stream_further_behind_than_a_window_gets_one_refresh_of_everything(campaign, aiko):
    start = cursor(campaign)
    for _ in range(3):
        wound(aiko)

    assert catch_up(campaign, start=start, window=2) == [Change(start + 3, None)]


@pytest.mark.django_db(transaction=True)
def test_a_players_stream_skips_changes_of_other_pj(campaign, aiko, kenji, player):
    start = cursor(campaign)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        stream = hub.follow(
            campaign.pk, since=start, current=start, player=player.pk, heartbeat=None
        )
        waiting = asyncio.ensure_future(anext(stream))
        await wound_elsewhere(kenji)
        await wound_elsewhere(aiko)
        first = await waiting
        await stream.aclose()
        await hub.close()
        return first

    assert run(scenario()) == [Change(start + 2, aiko.pk, player.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_quiet_stream_yields_a_heartbeat(campaign):
    now = cursor(campaign)

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=0.01)
        stream = hub.follow(campaign.pk, since=now, current=now, heartbeat=0.05)
        beat = await anext(stream)
        await stream.aclose()
        await hub.close()
        return beat

    assert run(scenario()) == []


# --- Rendered parts: once per change, for every stream ------------------------------------


def test_the_hub_renders_each_part_once_for_every_stream_that_asks(monkeypatch):
    from campaign.live import parts

    calls = []
    rendering, done = asyncio.Event(), threading.Event()

    def render(campaign_id, lang, keys):
        calls.append((campaign_id, lang, list(keys)))
        loop.call_soon_threadsafe(rendering.set)
        done.wait(SCENARIO)  # the first render lasts until every stream has asked
        return {key: f"<p>{key[0]}</p>" for key in keys}

    monkeypatch.setattr(parts, "render", render)

    async def main():
        nonlocal loop
        loop = asyncio.get_running_loop()
        hub = Hub(loop)
        try:
            first = asyncio.ensure_future(hub.parts(3, 12, "es", [("card", 7), ("panels",)]))
            await rendering.wait()
            asks = [hub.parts(3, 12, "es", [("card", 7), ("panels",)]) for _ in range(19)]
            asks.append(hub.parts(3, 12, "es", [("card", 8), ("panels",)]))
            asks.append(hub.parts(3, 13, "es", [("panels",)]))  # the next change: rendered anew
            asked = [asyncio.ensure_future(ask) for ask in asks]
            await asyncio.sleep(0)  # each has asked (a task's first step runs before this)
            done.set()
            return await asyncio.gather(first, *asked)
        finally:
            done.set()
            await hub.close()

    loop = None

    results = run(main())

    assert calls == [
        (3, "es", [("card", 7), ("panels",)]),
        (3, "es", [("card", 8)]),
        (3, "es", [("panels",)]),
    ]
    assert results[0] == {("card", 7): "<p>card</p>", ("panels",): "<p>panels</p>"}
    assert results[20] == {("card", 8): "<p>card</p>", ("panels",): "<p>panels</p>"}


@pytest.mark.parametrize(
    ("change", "passes"),
    [
        # A PNJ's card: the DJ's card and panels; every sheet its clock line and the foes.
        (Change(12, 40, pnj=True), [[("card", 40), ("panels",)], [("status",), ("foes",)]]),
        # Every card (a turn passed): who plays what and the PNJ in play, read in one pass
        # for both kinds of viewer, then the DJ's cards, then every sheet's parts.
        (
            Change(12, None),
            [
                [("pks",), ("pnj",)],
                [("card", 7), ("card", 40), ("panels",)],
                [("own", 7), ("status",), ("foes",)],
            ],
        ),
    ],
    ids=["pnj", "every-card"],
)
def test_a_change_is_rendered_in_one_pass_per_kind_of_viewer(monkeypatch, change, passes):
    from campaign.live import parts, views

    calls = []

    def render(campaign_id, lang, keys):
        calls.append(list(keys))
        lists = {("pks",): [[7, 5]], ("pnj",): [40]}
        return {key: lists.get(key, f"<p>{key[0]}</p>") for key in keys}

    monkeypatch.setattr(parts, "render", render)

    async def main():
        try:
            streaming_here(live.hub(), 3, players=[5, 6])
            for user, dj in ((1, True), (5, False), (6, False), (5, False)):
                follow = views.Follow(3, dj=dj, party=False, cursor=12)
                await views._parts(follow, user, [change], "es", views._summary(follow, [change]))
        finally:
            await live.hub().close()

    run(main())

    assert calls == passes


def streaming_here(hub: Hub, campaign_id: int, *, players: list[int]) -> None:
    """As if these players had a stream of the campaign in this process (no poller)."""
    feed = hub.feeds[campaign_id] = live.Feed(12, live.WINDOW)
    for player in players:
        feed.audience[object()] = player


def test_a_sheet_renders_the_cards_of_the_players_streaming_from_this_process_only(
    monkeypatch,
):
    from campaign.live import parts, views

    calls = []

    def render(campaign_id, lang, keys):
        calls.append(list(keys))
        lists = {("pks",): [[7, 5], [8, 6]], ("pnj",): []}
        return {key: lists.get(key, f"<p>{key[0]}</p>") for key in keys}

    monkeypatch.setattr(parts, "render", render)
    change = Change(12, None)  # every card: Aiko (7, player 5) and Kenji (8, player 6)

    async def main():
        try:
            streaming_here(live.hub(), 3, players=[6])  # 5's phone streams from elsewhere
            follow = views.Follow(3, dj=False, party=False, cursor=12)
            return await views._parts(follow, 6, [change], "es", views._summary(follow, [change]))
        finally:
            await live.hub().close()

    got = run(main())

    assert calls == [[("pks",), ("pnj",)], [("own", 8), ("status",), ("foes",)]]
    assert set(got) == {"own:8", "status", "foes"}


def test_a_failed_render_is_not_kept(monkeypatch):
    from campaign.live import parts

    answers = iter([RuntimeError("the database went away"), {("panels",): "<p>ok</p>"}])

    def render(campaign_id, lang, keys):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(parts, "render", render)

    async def main():
        hub = Hub(asyncio.get_running_loop())
        try:
            with pytest.raises(RuntimeError):
                await hub.parts(3, 12, "es", [("panels",)])
            return await hub.parts(3, 12, "es", [("panels",)])
        finally:
            await hub.close()

    assert run(main()) == {("panels",): "<p>ok</p>"}


def test_a_stream_waiting_on_a_render_that_fails_gets_its_error_not_nothing(monkeypatch):
    """Found at 1,000 tables: a stream that asked for a part another stream was rendering,
    and rendered the rest itself meanwhile, found that part gone once its rendering failed,
    and took it for a rendering of nothing."""
    from campaign.live import parts

    panels_asked, panels_failed = threading.Event(), threading.Event()

    def render(campaign_id, lang, keys):
        if keys == [("panels",)]:  # the first stream's: it fails, once the second waits
            panels_asked.set()
            panels_failed.set()
            raise RuntimeError("couldn't get a connection after 2.00 sec")
        panels_failed.wait(SCENARIO)  # the second's own part, done after the first failed
        return {key: "<p>card</p>" for key in keys}

    monkeypatch.setattr(parts, "render", render)

    async def main():
        hub = Hub(asyncio.get_running_loop())
        try:
            first = asyncio.ensure_future(hub.parts(3, 12, "es", [("panels",)]))
            await asyncio.sleep(0)  # it has asked: the panels are its to render
            second = asyncio.ensure_future(hub.parts(3, 12, "es", [("panels",), ("card", 7)]))
            return await asyncio.gather(first, second, return_exceptions=True)
        finally:
            await hub.close()

    results = run(main())

    assert [type(result) for result in results] == [RuntimeError, RuntimeError]


@pytest.mark.parametrize("leaves", ["the one rendering", "the one waiting"])
def test_a_stream_that_leaves_mid_render_takes_no_part_from_the_others(monkeypatch, leaves):
    """A page closed (or cut by the proxy) while the hub renders a part others wait for: the
    rendering goes on for them, neither cancelled nor failed."""
    from campaign.live import parts

    asked, finish = threading.Event(), threading.Event()

    def render(campaign_id, lang, keys):
        asked.set()
        finish.wait(SCENARIO)
        return {key: "<p>panels</p>" for key in keys}

    monkeypatch.setattr(parts, "render", render)

    async def main():
        hub = Hub(asyncio.get_running_loop())
        try:
            first = asyncio.ensure_future(hub.parts(3, 12, "es", [("panels",)]))
            await asyncio.to_thread(asked.wait, SCENARIO)  # the first renders them
            second = asyncio.ensure_future(hub.parts(3, 12, "es", [("panels",)]))
            await asyncio.sleep(0)  # the second finds the first's rendering and waits on it
            gone, stays = (first, second) if leaves == "the one rendering" else (second, first)
            gone.cancel()
            finish.set()
            got = await stays
            third = await hub.parts(3, 12, "es", [("panels",)])  # kept: not rendered again
            return got, third, gone.cancelled()
        finally:
            finish.set()
            await hub.close()

    got, third, cancelled = run(main())

    assert got == third == {("panels",): "<p>panels</p>"}
    assert cancelled


def test_a_rendering_pushed_out_of_the_cache_is_still_read_by_who_asked(monkeypatch):
    from campaign.live import hub as live
    from campaign.live import parts

    monkeypatch.setattr(live, "RENDERED", 1)  # each rendering pushes the one before out
    monkeypatch.setattr(parts, "render", lambda c, lang, keys: {k: f"<p>{k[0]}</p>" for k in keys})

    async def main():
        hub = Hub(asyncio.get_running_loop())
        try:
            return await hub.parts(3, 12, "es", [("card", 7), ("panels",)])
        finally:
            await hub.close()

    assert run(main()) == {("card", 7): "<p>card</p>", ("panels",): "<p>panels</p>"}


# --- Who is woken, and a writer that lets the streams go first -----------------------------


def feed_scenario(body):
    """Run `body(feed, streams)` on a fresh Feed with a DJ stream and two players' streams."""

    async def scenario():
        from campaign.live.hub import Feed

        feed = Feed(10, size=100)
        dj, aiko, kenji = object(), object(), object()
        for stream, audience in ((dj, None), (aiko, 1), (kenji, 2)):
            feed.audience[stream] = audience
            feed.handled(stream, 10)
        return await body(feed, {"dj": dj, "aiko": aiko, "kenji": kenji})

    return run(scenario())


def test_a_change_of_one_pj_wakes_only_the_streams_that_hear_it():
    async def body(feed, streams):
        waits = {name: feed.advanced(a) for name, a in (("dj", None), ("aiko", 1), ("kenji", 2))}
        feed.extend([Change(11, 7, player=1)])
        return {name: event.is_set() for name, event in waits.items()}, dict(feed.handled_by)

    woken, handled = feed_scenario(body)

    assert woken == {"dj": True, "aiko": True, "kenji": False}
    assert sorted(handled.values()) == [10, 10, 11]  # Kenji's stream had nothing to do


@pytest.mark.parametrize("change", [Change(11, None), Change(11, 7, player=1, kind="character")])
def test_a_change_of_every_card_or_of_who_plays_what_wakes_everyone(change):
    async def body(feed, streams):
        waits = [feed.advanced(a) for a in (None, 1, 2)]
        feed.extend([change])
        return [event.is_set() for event in waits]

    assert feed_scenario(body) == [True, True, True]


@pytest.mark.parametrize("change", [Change(11, None), Change(11, 7, player=1)])
def test_the_players_streams_wake_before_the_djs(change):
    """Each stream asks for its kind's rendering as it wakes: the players' pages go first
    (the DJ who tapped has the change in the tap's own answer)."""

    async def body(feed, streams):
        order = []

        async def stream(name, audience):
            await feed.advanced(audience).wait()
            order.append(name)

        # The DJ's stream waits first, as the first stream a table opens.
        waiting = [asyncio.ensure_future(stream(n, a)) for n, a in (("dj", None), ("aiko", 1))]
        await asyncio.sleep(0)  # both wait now
        feed.extend([change])
        await asyncio.gather(*waiting)
        return order

    assert feed_scenario(body) == ["aiko", "dj"]


def test_a_writer_waits_until_every_stream_has_handled_its_change():
    import threading

    async def body(feed, streams):
        event = threading.Event()
        feed.waiters.append((11, event))
        feed.extend([Change(11, 7, player=1)])
        before = event.is_set()
        feed.handled(streams["dj"], 11)
        between = event.is_set()
        feed.handled(streams["aiko"], 11)
        return before, between, event.is_set()

    assert feed_scenario(body) == (False, False, True)


@pytest.mark.django_db(transaction=True)
def test_settle_waits_for_no_one_without_streams_and_gives_up_on_a_slow_one(campaign, aiko):
    from campaign.live import hub as live_hub

    async def scenario():
        hub = live_hub.Hub(asyncio.get_running_loop(), tick=0.01)
        live_hub._hub = hub
        try:
            # No stream of the campaign: settled (as soon as the hub's loop has looked).
            alone = await asyncio.to_thread(live_hub.settle, campaign.pk, 99, 30)
            stream = hub.follow(campaign.pk, since=0, current=0)
            waiting = asyncio.ensure_future(anext(stream))  # subscribed, never handles 99
            while campaign.pk not in hub.feeds:  # until the stream has subscribed
                await asyncio.sleep(0)
            slow = await asyncio.to_thread(live_hub.settle, campaign.pk, 99, 0.2)
            waiting.cancel()
            await stream.aclose()
            return alone, slow
        finally:
            live_hub._hub = None
            await hub.close()

    alone, slow = run(scenario())

    assert alone is True
    assert slow is False  # it gave up after its timeout (else this test would hang)


@pytest.mark.django_db(transaction=True)
def test_a_write_of_this_process_reaches_its_streams_without_being_read_back(
    campaign, aiko, monkeypatch
):
    start = cursor(campaign)
    monkeypatch.setattr(live, "LISTEN_TICK", None)  # no tick at all: only a wake reads

    async def scenario():
        hub = Hub(asyncio.get_running_loop(), tick=None)
        wake = watched(hub)
        live._hub = hub
        try:
            reads = []
            real = hub.query

            async def counted(function, *args, **kwargs):
                reads.append(function.__name__)
                return await real(function, *args, **kwargs)

            hub.query = counted
            stream = hub.follow(campaign.pk, since=start, current=start, heartbeat=None)
            waiting = asyncio.ensure_future(anext(stream))
            # Idle: the first read made and, on PostgreSQL, the one after LISTEN came up.
            await until_idle(hub, wake)
            reads.clear()
            await wound_elsewhere(aiko)
            batch = await waiting
            await stream.aclose()
            return batch, reads
        finally:
            live._hub = None
            await hub.close()

    batch, reads = run(scenario())

    assert batch == [Change(start + 1, aiko.pk, None, "event")]
    assert "changes_after" not in reads


@pytest.mark.django_db
def test_a_player_hears_a_pnj_change_as_the_foes_without_its_card(client, campaign, aiko, player):
    jefe = services.pnj_create(campaign=campaign, name="Jefe")[0]
    client.force_login(player)
    since = cursor(campaign)

    wound(jefe)

    assert batches(poll(client, campaign, since)) == [
        {
            "after": since,
            "cursor": since + 1,
            "pj": [],
            "all": False,
            "kinds": ["event"],
            "foes": True,
        }
    ]


@pytest.mark.django_db
def test_the_dj_hears_a_pnj_change_as_its_card(client, campaign, dj):
    jefe = services.pnj_create(campaign=campaign, name="Jefe")[0]
    client.force_login(dj)
    since = cursor(campaign)

    wound(jefe)

    assert batches(poll(client, campaign, since)) == [
        {"after": since, "cursor": since + 1, "pj": [jefe.pk], "all": False, "kinds": ["event"]}
    ]


# --- A stream kept open while its process is behind -----------------------------------------


def test_a_stream_waiting_longer_than_a_heartbeat_pings_meanwhile(monkeypatch):
    """Its rendering (or its access check) waited on, a stream still says something each
    HEARTBEAT: a proxy cuts a stream silent for its read timeout."""
    from campaign.live import views

    monkeypatch.setattr(views, "HEARTBEAT", 0.02)

    async def main():
        done = asyncio.Event()

        async def slow():
            await done.wait()
            return {"card:7": "<p>card</p>"}

        got: list = []
        messages = []
        waiting = views._pinging(slow(), got)
        async for message in waiting:
            messages.append(message)
            if len(messages) == 3:
                done.set()  # the rendering comes after three pings
        return messages, got

    messages, got = run(main())

    assert len(messages) == 3 and all(m.startswith("event: ping\n") for m in messages)
    assert got == [{"card:7": "<p>card</p>"}]


def test_a_stream_that_leaves_while_waiting_stops_its_wait(monkeypatch):
    from campaign.live import views

    monkeypatch.setattr(views, "HEARTBEAT", 0.02)

    async def main():
        stopped = asyncio.Event()

        async def endless():
            try:
                await asyncio.Event().wait()
            finally:
                stopped.set()

        waiting = views._pinging(endless(), [])
        assert (await anext(waiting)).startswith("event: ping\n")
        await waiting.aclose()  # the page is gone
        await asyncio.wait_for(stopped.wait(), SCENARIO)
        return stopped.is_set()

    assert run(main())


def test_a_failure_while_waiting_is_raised_to_the_stream(monkeypatch):
    from campaign.live import views

    async def failing():
        raise RuntimeError("couldn't get a connection")

    async def main():
        return [message async for message in views._pinging(failing(), [])]

    with pytest.raises(RuntimeError, match="couldn't get a connection"):
        run(main())


@pytest.mark.django_db(transaction=True)
def test_the_djs_stream_pings_while_its_process_renders_a_change_late(monkeypatch):
    """Through the stream view (ASGI, in this process): a change whose rendering takes three
    heartbeats comes after pings, not after silence, and with its parts."""

    from campaign.live import parts, views
    from tests.factories import CharacterFactory

    monkeypatch.setattr(views, "HEARTBEAT", 0.05)
    dj = UserFactory(username="slow-dj")
    campaign = CampaignFactory(slug="lenta", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    campaign.refresh_from_db()
    since = campaign.change_cursor
    rendering, slow = threading.Event(), threading.Event()
    render = parts.render

    def late(campaign_id, lang, keys):
        rendering.set()
        slow.wait(SCENARIO)  # a process behind on its renderings: until two pings came
        return render(campaign_id, lang, keys)

    monkeypatch.setattr(parts, "render", late)

    client = async_client_of(dj)

    async def main():
        try:
            response = await client.get(reverse("live_stream"), {"since": f"{campaign.pk}:{since}"})
            messages = aiter(response.streaming_content)
            heard = [await anext(messages), await anext(messages)]  # retry, hello
            await wound_elsewhere(aiko)
            # The stream's messages are made as they are read: a ping read after the
            # rendering began was sent while the stream waited on it.
            waiting_pings = 0
            while not any(b"event: change" in m for m in heard):
                began = rendering.is_set()
                heard.append(await asyncio.wait_for(anext(messages), SCENARIO))
                if began and b"event: ping" in heard[-1]:
                    waiting_pings += 1
                    if waiting_pings == 2:
                        slow.set()  # the rendering comes after two pings
            await messages.aclose()
            return waiting_pings, [m.decode() if isinstance(m, bytes) else m for m in heard]
        finally:
            slow.set()
            await live.hub().close()

    waiting_pings, heard = run(main())

    assert waiting_pings == 2
    assert "event: change" in heard[-1]
    change = json.loads(heard[-1].split("data: ", 1)[1])
    assert f"card:{aiko.pk}" in change["parts"]


def async_client_of(user):
    """An AsyncClient with `user`'s session, made on this thread's connection (one made in
    the client's own threads would stay open after the test)."""
    from django.test import AsyncClient, Client

    client = Client()
    client.force_login(user)
    async_client = AsyncClient()
    async_client.cookies = client.cookies
    return async_client


def _streams_of(client, campaign, count: int):
    """`count` streams of `client` (async_client_of) for `campaign` through the ASGI stream
    view, in this process: an async context giving each stream's iterator of messages."""

    @contextlib.asynccontextmanager
    async def opened():
        since = {"since": f"{campaign.pk}:{campaign.change_cursor}"}
        iterators = []
        try:
            for _ in range(count):
                response = await client.get(reverse("live_stream"), since)
                iterators.append(aiter(response.streaming_content))
            yield iterators
        finally:
            for messages in iterators:
                await messages.aclose()
            await live.hub().close()

    return opened()


@pytest.mark.django_db(transaction=True)
def test_a_stream_whose_session_ended_is_told_to_reopen_with_no_change_written(monkeypatch):
    """The periodic check: no change says the session went (a logout elsewhere)."""
    from django.contrib.sessions.models import Session

    from campaign.live import views

    monkeypatch.setattr(views, "RECHECK", 0.3)
    dj = UserFactory(username="gone-dj")
    campaign = CampaignFactory(slug="sesion", dj=dj)
    campaign.refresh_from_db()

    client = async_client_of(dj)

    async def main():
        async with _streams_of(client, campaign, 1) as (messages,):
            heard = [await anext(messages), await anext(messages)]  # retry, hello

            def log_out() -> None:  # elsewhere, on a connection of its own, closed after
                try:
                    Session.objects.all().delete()
                finally:
                    connection.close()

            await asyncio.to_thread(log_out)
            while not any(b"event: reopen" in m for m in heard):
                heard.append(await asyncio.wait_for(anext(messages), SCENARIO))
            return heard

    heard = run(main())

    assert not any(b"event: change" in m for m in heard)
    reopen = json.loads(heard[-1].decode().split("data: ", 1)[1])
    assert reopen["campaigns"] == [campaign.pk]


@pytest.mark.django_db(transaction=True)
def test_streams_opened_together_check_their_sessions_at_moments_of_their_own(monkeypatch):
    """Pages a process serves often open at once (a restart, a wave of reconnections): their
    checks, each a query on the hub's one thread, would all come due together, ahead of the
    changes. Each stream's first check comes at a moment of its own within RECHECK."""
    import random

    from campaign.live import views

    monkeypatch.setattr(views, "RECHECK", 1.0)
    monkeypatch.setattr(views, "HEARTBEAT", 60.0)  # no ping wakes them meanwhile
    monkeypatch.setattr(views, "random", random.Random(28))
    checked: list[float] = []
    check = views._changed_access

    def recorded(*args):
        checked.append(time.monotonic())
        return check(*args)

    monkeypatch.setattr(views, "_changed_access", recorded)
    dj = UserFactory(username="many-dj")
    campaign = CampaignFactory(slug="muchas", dj=dj)
    campaign.refresh_from_db()

    client = async_client_of(dj)

    async def main():
        async with _streams_of(client, campaign, 12) as streams:
            for messages in streams:
                await anext(messages), await anext(messages)  # retry, hello: open
            readers = [asyncio.ensure_future(anext(messages)) for messages in streams]
            await asyncio.to_thread(wait_until, lambda: len(checked) >= 12, "12 checks")
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)

    run(main())

    first = sorted(checked[:12])
    assert first[-1] - first[0] > 0.3  # spread over the second, not due together
