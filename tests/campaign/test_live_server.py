"""The live stream on real uvicorn processes: a write made elsewhere arrives.

How fast it arrives is bench/bench_live.py's to measure: a test here waits up to WAIT for
what must come, so a busy machine slows it and never fails it. What must not come is
checked against a later message that must: what was not sent before it never will be.

The streams are read with http.client; writes come from this test process (a committed
transaction, so like another server's) or through a server's admin, which records a change.
"""

import http.client
import json
import re
import time
import zlib
from collections.abc import Iterator
from contextlib import closing, contextmanager
from urllib.parse import urlencode, urlsplit

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from campaign import services
from campaign.live.hub import LISTEN_TICK
from campaign.models import Campaign, CampaignChange, Membership
from tests.browser.conftest import start_server, stop_server
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory
from tests.waiting import wait_until

WAIT = 30.0  # seconds: the longest a test waits for a message that must come


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker) -> Iterator[str]:
    process, base = start_server()
    yield base
    stop_server(process)


@pytest.fixture
def url(server, transactional_db) -> str:
    return server


@pytest.fixture
def table(transactional_db):
    """A campaign with a DJ, two PJ and Aiko's player."""
    dj = UserFactory(username="live-dj")
    campaign = CampaignFactory(slug="en-vivo", dj=dj)
    player = UserFactory(username="live-player")
    MembershipFactory(user=player, campaign=campaign, role=Membership.Role.PLAYER)
    aiko = CharacterFactory(campaign=campaign, name="Aiko", player=player)
    kenji = CharacterFactory(campaign=campaign, name="Kenji")
    return campaign, dj, player, aiko, kenji


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def cursor(campaign) -> int:
    campaign.refresh_from_db()
    return campaign.change_cursor


def wound(character) -> None:
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


class EventStream:
    """One SSE connection, read message by message with deadlines."""

    def __init__(
        self,
        base: str,
        path: str,
        *,
        cookie: str,
        last_event_id: object = None,
        accept_encoding: str | None = None,
    ):
        where = urlsplit(base)
        self.connection = http.client.HTTPConnection(where.hostname, where.port, timeout=WAIT)
        headers = {"Cookie": cookie, "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        if accept_encoding is not None:
            headers["Accept-Encoding"] = accept_encoding
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.buffer = ""
        self.wire = 0  # bytes of body received, as sent (compressed or not)
        # A gzipped stream is inflated as it comes, chunk by chunk, as a browser does.
        gzipped = self.response.getheader("Content-Encoding") == "gzip"
        self.inflate = zlib.decompressobj(wbits=31) if gzipped else None

    def event(self, timeout: float = WAIT) -> dict:
        """The next message: {"event": name, "id": str | None, "data": {...}}."""
        deadline = time.monotonic() + timeout
        while True:
            while "\n\n" in self.buffer:
                block, self.buffer = self.buffer.split("\n\n", 1)
                fields = dict(
                    line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
                )
                if "event" in fields:
                    return {
                        "event": fields["event"],
                        "id": fields.get("id"),
                        "data": json.loads(fields["data"]),
                    }
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message in time")
            self.connection.sock.settimeout(left)
            chunk = self.response.read1(65536)
            if not chunk:
                raise EOFError("the server ended the stream")
            self.wire += len(chunk)
            if self.inflate is not None:
                chunk = self.inflate.decompress(chunk)
            self.buffer += chunk.decode()

    def message(self, timeout: float = WAIT) -> dict:
        """The next `change` message; TimeoutError past `timeout`, EOFError when it ends,
        Reopen when the stream asks the page to open it again."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.event(deadline - time.monotonic())
            if event["event"] == "change":
                return event
            if event["event"] == "reopen":
                raise Reopen

    def until(self, cursor: int, timeout: float = WAIT) -> list[dict]:
        """Every message up to the one that reaches `cursor`."""
        deadline = time.monotonic() + timeout
        seen = [self.message(deadline - time.monotonic())]
        while seen[-1]["data"]["cursor"] < cursor:
            seen.append(self.message(deadline - time.monotonic()))
        return seen

    def close(self) -> None:
        self.connection.close()


class Reopen(Exception):
    """The stream asked the page to open it again."""


def summary(message: dict) -> dict:
    """What a change message says changed: cursor, PJ ids, all."""
    return {key: message["data"][key] for key in ("cursor", "pj", "all")}


@contextmanager
def event_stream(base: str, campaigns, user, since=None, **headers) -> Iterator[EventStream]:
    """A stream of `campaigns` (one, or a list), from `since` (default: their cursor now)."""
    campaigns = campaigns if isinstance(campaigns, list) else [campaigns]
    if since is None:
        since = [cursor(campaign) for campaign in campaigns]
    since = since if isinstance(since, list) else [since]
    query = ",".join(f"{c.pk}:{at}" for c, at in zip(campaigns, since, strict=True))
    last_event_id = headers.pop("last_event_id", None)
    accept_encoding = headers.pop("accept_encoding", None)
    path = f"/en-vivo/?{urlencode({'since': query})}"
    stream = EventStream(
        base,
        path,
        cookie=session_cookie(user),
        last_event_id=last_event_id,
        accept_encoding=accept_encoding,
    )
    with closing(stream):
        yield stream


def test_the_stream_is_an_uncached_event_stream_that_starts_with_its_retry_delay(url, table):
    campaign, dj, *_ = table

    with event_stream(url, campaign, dj) as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.response.getheader("Cache-Control") == "no-cache"
        assert stream.response.getheader("X-Accel-Buffering") == "no"
        stream.connection.sock.settimeout(WAIT)
        assert stream.response.read1(100).decode().startswith("retry: 1000\n")


def test_a_stream_asked_for_gzip_is_gzipped_and_each_message_comes_at_once(url, table):
    """Each message is flushed through the compressor (Z_SYNC_FLUSH) as it is written: the
    hello, then each change, inflated whole before the next write, with the stream's own
    headers kept and the body smaller than it inflates to."""
    campaign, dj, _player, aiko, kenji = table

    with event_stream(url, campaign, dj, accept_encoding="gzip, deflate") as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Encoding") == "gzip"
        assert "Accept-Encoding" in stream.response.getheader("Vary", "")
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.response.getheader("Cache-Control") == "no-cache"
        assert stream.response.getheader("X-Accel-Buffering") == "no"
        assert stream.event()["event"] == "hello"
        messages = []
        for character in (aiko, kenji, aiko):
            wound(character)
            messages.append(stream.message())  # waits WAIT at most, as every test here
            assert stream.buffer == ""  # the whole message, nothing held back
        inflated = sum(
            len(m["data"]["parts"][f"card:{c.pk}"])
            for m, c in zip(messages, (aiko, kenji, aiko), strict=True)
        )
        wire = stream.wire

    assert [m["data"]["pj"] for m in messages] == [[aiko.pk], [kenji.pk], [aiko.pk]]
    assert wire < inflated / 3


def test_a_stream_not_asked_for_gzip_is_plain(url, table):
    campaign, dj, _player, aiko, _kenji = table

    with event_stream(url, campaign, dj) as stream:
        assert stream.response.getheader("Content-Encoding") is None
        assert "Accept-Encoding" in stream.response.getheader("Vary", "")
        assert stream.event()["event"] == "hello"
        wound(aiko)
        assert stream.message()["data"]["pj"] == [aiko.pk]


def test_the_stream_says_hello_with_the_servers_clock(url, table):
    campaign, dj, *_ = table

    before = int(time.time() * 1000)  # the server's clock is this machine's: ms, as it says
    with event_stream(url, campaign, dj) as stream:
        hello = stream.event()
    after = time.time() * 1000

    assert hello["event"] == "hello" and hello["data"]["gone"] == []
    assert before <= hello["data"]["now"] <= after  # said between the asking and the answer
    assert hello["id"] == f"{campaign.pk}:{cursor(campaign)}"


def test_the_stream_answers_404_to_anonymous_visitors(url, table):
    campaign, *_ = table
    where = urlsplit(url)
    with closing(http.client.HTTPConnection(where.hostname, where.port, timeout=WAIT)) as anonymous:
        anonymous.request("GET", f"/en-vivo/?since={campaign.pk}:0")
        assert anonymous.getresponse().status == 404


def test_the_stream_answers_404_to_users_outside_the_campaign(url, table):
    campaign, *_ = table
    other = CampaignFactory(slug="otra", dj=UserFactory(username="other-dj"))
    their_player = UserFactory(username="other-player")
    MembershipFactory(user=their_player, campaign=other, role=Membership.Role.PLAYER)

    for outsider in (UserFactory(username="nobody"), their_player):
        with event_stream(url, campaign, outsider) as stream:
            assert stream.response.status == 404
    with event_stream(url, other, their_player) as stream:
        assert stream.response.status == 200


def test_a_campaign_the_user_may_not_see_is_named_gone_and_never_followed(url, table):
    campaign, dj, _player, aiko, _kenji = table
    other = CampaignFactory(slug="otra", dj=UserFactory(username="other-dj"))
    stranger = CharacterFactory(campaign=other, name="Extraña")

    with event_stream(url, [campaign, other], dj) as stream:
        assert stream.event()["data"]["gone"] == [other.pk]
        wound(stranger)
        wound(aiko)
        message = stream.message()

    assert message["data"]["campaign"] == campaign.pk and message["data"]["pj"] == [aiko.pk]


@pytest.mark.parametrize("last_event_id", ["1e3", "3", "3:4,", "x:1"])
def test_the_stream_answers_400_to_a_malformed_last_event_id(url, table, last_event_id):
    campaign, dj, *_ = table

    with event_stream(url, campaign, dj, last_event_id=last_event_id) as stream:
        assert stream.response.status == 400
        assert "since" in stream.response.read().decode()


def test_a_write_reaches_the_djs_stream_with_the_card_rendered(url, table):
    campaign, dj, _player, aiko, _kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, dj, since=since) as stream:
        wound(aiko)
        message = stream.message()

    data = message["data"]
    assert message["id"] == f"{campaign.pk}:{since + 1}"
    assert summary(message) == {"cursor": since + 1, "pj": [aiko.pk], "all": False}
    assert data["campaign"] == campaign.pk and data["after"] == since and data["view"] == "dj"
    assert set(data["parts"]) == {f"card:{aiko.pk}", "panels"}
    card = data["parts"][f"card:{aiko.pk}"]
    assert f'id="pj-{aiko.pk}"' in card and "Heridas" in card
    # Shared by every DJ page: no CSRF token, no idempotency key of anyone's.
    assert "csrfmiddlewaretoken" not in card and 'name="key"' not in card
    assert 'id="clock"' in data["parts"]["panels"]


def test_a_stream_without_a_newer_since_sends_nothing_old(url, table):
    campaign, dj, _player, aiko, kenji = table
    wound(kenji)

    with event_stream(url, campaign, dj) as stream:
        # Whatever came before the stream opened is not sent; the next write is.
        wound(aiko)
        message = stream.message()

    assert kenji.pk not in message["data"]["pj"]


def test_reconnecting_with_last_event_id_replays_what_was_missed(url, table):
    campaign, dj, _player, aiko, kenji = table
    since = cursor(campaign)
    with event_stream(url, campaign, dj, since=since) as stream:
        wound(aiko)
        last = stream.message()

    wound(kenji)  # while the page was away
    services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})

    # The browser reconnects to its first URL (an old ?since) and sends Last-Event-ID.
    with event_stream(url, campaign, dj, since=since, last_event_id=last["id"]) as stream:
        replayed = stream.until(last["data"]["cursor"] + 2)

    assert replayed[0]["data"]["after"] == last["data"]["cursor"]
    assert replayed[-1]["data"]["cursor"] == last["data"]["cursor"] + 2
    assert {pj for m in replayed for pj in m["data"]["pj"]} == {kenji.pk}
    assert any(m["data"]["all"] for m in replayed)


def test_a_players_stream_carries_their_sheet_and_never_another_pjs(url, table):
    campaign, _dj, player, aiko, kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        wound(kenji)
        wound(kenji)
        wound(aiko)
        seen = stream.until(since + 3)

    assert [summary(m) for m in seen] == [{"cursor": since + 3, "pj": [aiko.pk], "all": False}]
    data = seen[0]["data"]
    assert data["view"] == "player" and data["after"] == since
    assert set(data["parts"]) == {f"own:{aiko.pk}", "status"}
    assert "sheet-card" in data["parts"][f"own:{aiko.pk}"]
    assert "Kenji" not in json.dumps(data)


def test_with_the_party_option_a_player_gets_the_party_cards(url, table):
    campaign, _dj, player, aiko, kenji = table
    services.campaign_update(campaign=campaign, players_see_party=True)

    with event_stream(url, campaign, player) as stream:
        wound(kenji)
        message = stream.message()

    assert set(message["data"]["parts"]) == {f"party:{kenji.pk}", "status"}
    assert "party-card" in message["data"]["parts"][f"party:{kenji.pk}"]


def test_one_stream_follows_each_campaign_as_that_campaign_lets_the_user_see_it(url, table):
    """A DJ who plays in another campaign: one stream, the board's parts of one and the
    sheet's of the other."""
    campaign, dj, _player, aiko, _kenji = table
    other = CampaignFactory(slug="otra", dj=UserFactory(username="other-dj"))
    MembershipFactory(user=dj, campaign=other, role=Membership.Role.PLAYER)
    mine = CharacterFactory(campaign=other, name="Mía", player=dj)
    theirs = CharacterFactory(campaign=other, name="Suya")

    with event_stream(url, [campaign, other], dj) as stream:
        wound(theirs)  # not theirs to hear
        wound(mine)
        wound(aiko)
        # One message per campaign, in whichever order the hub read them.
        both = [stream.message(), stream.message()]
        heard = {m["data"]["campaign"]: m for m in both}

    first, second = heard[other.pk], heard[campaign.pk]
    assert first["data"]["view"] == "player"
    assert first["data"]["pj"] == [mine.pk] and f"own:{mine.pk}" in first["data"]["parts"]
    assert second["data"]["view"] == "dj"
    # The id of the latest message says where the stream is in each campaign.
    assert both[-1]["id"] == f"{campaign.pk}:{cursor(campaign)},{other.pk}:{cursor(other)}"


def test_a_removed_players_stream_asks_to_be_opened_again_and_ends(url, table):
    """Removed by the DJ, a player hears no more: the stream asks the page to open it again
    (it then finds a 404), and ends."""
    campaign, _dj, player, aiko, kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        services.player_remove(character=aiko)
        wound(kenji)  # the campaign goes on without them
        with pytest.raises(Reopen):
            stream.message()
        with pytest.raises(EOFError):
            stream.message()
    with event_stream(url, campaign, player, since=since) as stream:
        assert stream.response.status == 404


def test_turning_the_party_option_off_reopens_the_players_wider_stream(url, table):
    campaign, dj, player, aiko, kenji = table
    services.campaign_update(campaign=campaign, players_see_party=True)
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        wound(kenji)
        assert stream.message()["data"]["pj"] == [kenji.pk]  # the party's, as the option says
        services.campaign_update(campaign=campaign, players_see_party=False)
        wound(kenji)
        with pytest.raises(Reopen):
            stream.message()
    # Reopened, the player hears of their own PJ only: Kenji's change, made first, is not
    # in the news of Aiko's (nor in a message of its own before it).
    with event_stream(url, campaign, player) as stream:
        wound(kenji)
        wound(aiko)
        message = stream.message()

    assert summary(message) == {"cursor": cursor(campaign), "pj": [aiko.pk], "all": False}
    assert set(message["data"]["parts"]) == {f"own:{aiko.pk}", "status"}


def test_a_stream_whose_session_ended_asks_to_be_opened_again(url, table):
    campaign, dj, _player, aiko, _kenji = table
    client = Client()
    client.force_login(dj)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    path = f"/en-vivo/?since={campaign.pk}:{cursor(campaign)}"
    stream = EventStream(url, path, cookie=cookie)
    with closing(stream):
        stream.event()  # hello
        client.logout()  # elsewhere: the session is gone
        # The stream checks again every RECHECK seconds, and at once after a change of a
        # PJ's player or of the campaign's options (as here, not to wait RECHECK).
        services.campaign_update(campaign=campaign, players_see_party=True)
        wound(aiko)
        with pytest.raises(Reopen):
            stream.message()


# --- Writes through a server --------------------------------------------------------------


def admin_edit_notes(base: str, character, user, notes: str) -> None:
    """Edit a PJ's notes through a server's admin form (services.character_update)."""
    where = urlsplit(base)
    path = f"/admin/campaign/character/{character.pk}/change/"
    cookie = session_cookie(user)
    with closing(http.client.HTTPConnection(where.hostname, where.port, timeout=WAIT)) as http_:
        http_.request("GET", path, headers={"Cookie": cookie})
        response = http_.getresponse()
        page = response.read().decode()
        assert response.status == 200, page[:500]
        csrf_cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie")).group(1)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = {
            "csrfmiddlewaretoken": token,
            "name": character.name,
            "player": character.player_id or "",
            "attributes": json.dumps(character.attributes),
            "powers": json.dumps(character.powers),
            "notes": notes,
            "_save": "Save",
        }
        http_.request(
            "POST",
            path,
            body=urlencode(form),
            headers={
                "Cookie": f"{cookie}; csrftoken={csrf_cookie}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        response = http_.getresponse()
        body = response.read().decode()
        assert response.status == 302, body[:2000]


def test_a_write_through_the_server_reaches_its_own_streams(url, table):
    campaign, dj, _player, aiko, _kenji = table
    admin = UserFactory(username="live-admin", is_staff=True, is_superuser=True)
    since = cursor(campaign)

    with event_stream(url, campaign, dj, since=since) as stream:
        admin_edit_notes(url, aiko, admin, "Arquera")
        message = stream.message()

    assert summary(message) == {"cursor": since + 1, "pj": [aiko.pk], "all": False}


ON_POSTGRESQL = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.skipif(
    not ON_POSTGRESQL,
    reason="two processes tell each other through PostgreSQL's NOTIFY; "
    "on SQLite each polls (the tests above cover it). Set DATABASE_URL to a PostgreSQL.",
)
def test_a_write_through_server_a_reaches_a_stream_on_server_b(table):
    assert connection.vendor == "postgresql"
    campaign, dj, _player, aiko, kenji = table
    admin = UserFactory(username="live-admin", is_staff=True, is_superuser=True)
    a, a_url = start_server()
    b, b_url = start_server()
    try:
        since = cursor(campaign)
        with (
            event_stream(b_url, campaign, dj, since=since) as on_b,
            event_stream(a_url, campaign, dj, since=since) as on_a,
        ):
            admin_edit_notes(a_url, kenji, admin, "Samurái")
            from_b = on_b.message()
            from_a = on_a.message()

            # And a write from a third process (this one) reaches both.
            wound(aiko)
            both = [on_b.message(), on_a.message()]
    finally:
        stop_server(a)
        stop_server(b)

    assert from_b["id"] == from_a["id"] == f"{campaign.pk}:{since + 1}"
    assert summary(from_b) == summary(from_a)
    assert summary(from_b) == {"cursor": since + 1, "pj": [kenji.pk], "all": False}
    assert [m["data"]["pj"] for m in both] == [[aiko.pk], [aiko.pk]]


def listeners() -> list[int]:
    """The backends of the servers' LISTEN connections."""
    with connection.cursor() as sql:
        sql.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND query = 'LISTEN zodiac_changes'"
        )
        return [pid for (pid,) in sql.fetchall()]


@pytest.mark.skipif(not ON_POSTGRESQL, reason="LISTEN exists on PostgreSQL only")
def test_a_lost_listen_connection_is_polled_around_then_taken_again(url, table):
    campaign, dj, _player, aiko, kenji = table
    since = cursor(campaign)
    with event_stream(url, campaign, dj, since=since) as stream:
        wound(aiko)
        stream.message()
        (listener,) = wait_until(listeners, "the server LISTENs")

        with connection.cursor() as sql:
            sql.execute("SELECT pg_terminate_backend(%s)", [listener])
        wound(kenji)  # while the server has no LISTEN: found by polling
        polled = stream.message()
        taken_again = wait_until(lambda: [p for p in listeners() if p != listener], "LISTEN")
        wound(aiko)  # heard through the new LISTEN
        heard = stream.message()

    assert polled["data"]["pj"] == [kenji.pk]
    assert summary(heard) == {"cursor": since + 3, "pj": [aiko.pk], "all": False}
    assert len(taken_again) == 1


@pytest.mark.skipif(not ON_POSTGRESQL, reason="LISTEN exists on PostgreSQL only")
def test_a_change_from_another_process_arrives_after_its_listen_is_terminated(
    table,
):
    """The listener's backend is terminated, and a change made by another process (this
    one) still reaches the stream."""
    campaign, dj, _player, aiko, _kenji = table
    process, base = start_server()
    try:
        with event_stream(base, campaign, dj) as stream:
            stream.event()  # hello: the hub is up
            (listener,) = wait_until(listeners, "the server LISTENs")
            with connection.cursor() as sql:
                sql.execute("SELECT pg_terminate_backend(%s)", [listener])
            wound(aiko)
            message = stream.message()
    finally:
        stop_server(process)

    assert message["data"]["pj"] == [aiko.pk]


@pytest.mark.skipif(not ON_POSTGRESQL, reason="LISTEN exists on PostgreSQL only")
def test_a_listen_that_hears_nothing_still_delivers_by_its_tick(url, table):
    """A LISTEN that is up but deaf (a half-open connection, a pooler in transaction mode):
    the hub reads the cursors every LISTEN_TICK seconds anyway. Here the change is written
    without its NOTIFY."""
    campaign, dj, _player, aiko, _kenji = table
    with event_stream(url, campaign, dj) as stream:
        stream.event()
        wait_until(listeners, "the server LISTENs")
        at = cursor(campaign) + 1
        Campaign.objects.filter(pk=campaign.pk).update(change_cursor=at)
        CampaignChange.objects.create(campaign=campaign, cursor=at, character=aiko, kind="event")
        message = stream.message(timeout=LISTEN_TICK + WAIT)

    assert message["data"]["pj"] == [aiko.pk]


def test_under_wsgi_the_stream_says_to_poll_at_once(table):
    """`manage.py runserver` serves WSGI: a stream would send nothing, so it says to poll."""
    campaign, dj, *_ = table
    process, base = start_server(runserver=True)
    try:
        with event_stream(base, campaign, dj) as stream:
            assert stream.response.status == 200
            advice = stream.event()
            with pytest.raises(EOFError):
                stream.event()
    finally:
        stop_server(process)

    assert advice["event"] == "poll" and advice["data"]["now"] > 0


def test_a_players_hello_says_when_what_they_may_see_last_changed(url, table):
    """A sheet rendered before that loads anew (the party option turned on or off while
    its stream was opening)."""
    campaign, dj, player, *_ = table
    services.campaign_update(campaign=campaign, players_see_party=True)
    changed_at = cursor(campaign)

    with event_stream(url, campaign, player, since=changed_at - 1) as stream:
        heard = stream.event()["data"]["access"]
    with event_stream(url, campaign, dj) as stream:
        told_dj = stream.event()["data"]["access"]

    assert heard == {str(campaign.pk): changed_at}
    assert told_dj == {}  # what a DJ sees does not hang on those


# --- The DJ's own tap: its browser's stream is not sent the rendering again ---------------


def tap(base: str, cookie: str, character, *, only_tab: bool) -> None:
    """Heridas leve on `character`, tapped on the board of the browser holding `cookie`
    (as htmx posts it, with the page's CSRF token), saying whether its page is that
    browser's only page of the campaign (static/js/live/taps.js)."""
    where = urlsplit(base)
    board = f"/c/{character.campaign.slug}/"
    with closing(http.client.HTTPConnection(where.hostname, where.port, timeout=WAIT)) as http_:
        http_.request("GET", board, headers={"Cookie": cookie})
        response = http_.getresponse()
        response.read()
        assert response.status == 200
        csrf = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie")).group(1)
        headers = {
            "Cookie": f"{cookie}; csrftoken={csrf}",
            "Content-Type": "application/x-www-form-urlencoded",
            "X-CSRFToken": csrf,
            "HX-Request": "true",
        }
        if only_tab:
            headers["X-Zodiac-Only-Tab"] = "1"
        form = {"action": "suffer", "type_grade": "heridas:leve", "key": f"k{time.monotonic_ns()}"}
        http_.request("POST", f"{board}pj/{character.pk}/accion/", urlencode(form), headers)
        response = http_.getresponse()
        body = response.read().decode()
        assert response.status == 200, body[:500]


def test_the_djs_tap_from_its_browsers_only_page_reaches_that_stream_unrendered(url, table):
    """The tapping page has the change in its answer: its browser's stream gets the news
    alone (a page that wants the rendering asks for it), while the DJ's other browser, and
    a tap from a page with another of the campaign beside it, get it rendered."""
    campaign, dj, _player, aiko, _kenji = table
    since = cursor(campaign)
    laptop = session_cookie(dj)

    with (
        closing(EventStream(url, f"/en-vivo/?since={campaign.pk}:{since}", cookie=laptop)) as own,
        event_stream(url, campaign, dj, since=since) as tablet,  # the DJ's other browser
    ):
        tap(url, laptop, aiko, only_tab=True)
        first = own.message()  # read before the next tap: two changes may come as one
        tap(url, laptop, aiko, only_tab=False)  # another tab of the campaign beside it
        second = own.message()
        elsewhere = tablet.until(since + 2)

    assert summary(first) == {"cursor": since + 1, "pj": [aiko.pk], "all": False}
    assert "parts" not in first["data"]
    assert set(second["data"]["parts"]) == {f"card:{aiko.pk}", "panels"}
    assert all(set(m["data"]["parts"]) == {f"card:{aiko.pk}", "panels"} for m in elsewhere)
