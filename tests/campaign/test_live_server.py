"""The live stream on real uvicorn processes: a write made elsewhere arrives within 1 s.

The streams are read with http.client; writes come from this test process (a committed
transaction, so like another server's) or through a server's admin, which records a change.
"""

import http.client
import json
import re
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from urllib.parse import urlencode, urlsplit

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from campaign import services
from campaign.models import Membership
from tests.browser.conftest import start_server, stop_server
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

DELIVERY = 1.0  # seconds: the promise, from a write's commit to the page


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

    def __init__(self, base: str, path: str, *, cookie: str, last_event_id: object = None):
        where = urlsplit(base)
        self.connection = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
        headers = {"Cookie": cookie, "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.buffer = ""

    def message(self, timeout: float = DELIVERY) -> dict:
        """The next `change` message: {"id": int, "data": {...}}; TimeoutError past `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            while "\n\n" in self.buffer:
                block, self.buffer = self.buffer.split("\n\n", 1)
                fields = dict(
                    line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
                )
                if fields.get("event") == "change":
                    return {"id": int(fields["id"]), "data": json.loads(fields["data"])}
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no change message in time")
            self.connection.sock.settimeout(left)
            chunk = self.response.read1(65536)
            if not chunk:
                raise EOFError("the server ended the stream")
            self.buffer += chunk.decode()

    def until(self, cursor: int, timeout: float = DELIVERY) -> list[dict]:
        """Every message up to the one that reaches `cursor`."""
        deadline = time.monotonic() + timeout
        seen = [self.message(deadline - time.monotonic())]
        while seen[-1]["id"] < cursor:
            seen.append(self.message(deadline - time.monotonic()))
        return seen

    def close(self) -> None:
        self.connection.close()


@contextmanager
def event_stream(base: str, campaign, user, **query) -> Iterator[EventStream]:
    last_event_id = query.pop("last_event_id", None)
    path = f"/c/{campaign.slug}/en-vivo/" + (f"?{urlencode(query)}" if query else "")
    stream = EventStream(base, path, cookie=session_cookie(user), last_event_id=last_event_id)
    with closing(stream):
        yield stream


def test_the_stream_is_an_uncached_event_stream_that_starts_with_its_retry_delay(url, table):
    campaign, dj, *_ = table

    with event_stream(url, campaign, dj) as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.response.getheader("Cache-Control") == "no-cache"
        assert stream.response.getheader("X-Accel-Buffering") == "no"
        stream.connection.sock.settimeout(DELIVERY)
        assert stream.response.read1(100).decode().startswith("retry: 1000\n")


def test_the_stream_answers_404_to_anonymous_visitors(url, table):
    campaign, *_ = table
    where = urlsplit(url)
    with closing(http.client.HTTPConnection(where.hostname, where.port, timeout=5)) as anonymous:
        anonymous.request("GET", f"/c/{campaign.slug}/en-vivo/")
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


def test_the_stream_answers_400_to_a_malformed_last_event_id(url, table):
    campaign, dj, *_ = table

    with event_stream(url, campaign, dj, last_event_id="1e3") as stream:
        assert stream.response.status == 400
        assert "since" in stream.response.read().decode()


def test_a_write_reaches_the_djs_stream_within_a_second(url, table):
    campaign, dj, _player, aiko, _kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, dj, since=since) as stream:
        wound(aiko)
        committed = time.monotonic()
        message = stream.message()
        delay = time.monotonic() - committed

    assert message == {
        "id": since + 1,
        "data": {"cursor": since + 1, "pj": [aiko.pk], "all": False},
    }
    assert delay < DELIVERY


def test_a_stream_without_since_sends_nothing_old(url, table):
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
        last = stream.message()["id"]

    wound(kenji)  # while the page was away
    services.event_record(campaign=campaign, event={"kind": "time", "rounds": 1})

    # The browser reconnects to its first URL (an old ?since) and sends Last-Event-ID.
    with event_stream(url, campaign, dj, since=since, last_event_id=last) as stream:
        replayed = stream.until(last + 2)

    assert [m["data"] for m in replayed][-1]["cursor"] == last + 2
    assert {pj for m in replayed for pj in m["data"]["pj"]} == {kenji.pk}
    assert any(m["data"]["all"] for m in replayed)


def test_a_players_stream_never_carries_another_pjs_id(url, table):
    campaign, _dj, player, aiko, kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        wound(kenji)
        wound(kenji)
        wound(aiko)
        seen = stream.until(since + 3)

    assert [m["data"] for m in seen] == [{"cursor": since + 3, "pj": [aiko.pk], "all": False}]


def test_a_removed_players_stream_ends_with_a_last_word(url, table):
    """Removed by the DJ, a player hears no more: one message tells the page to ask again
    (it then finds a 404), and the stream ends."""
    campaign, _dj, player, aiko, kenji = table
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        services.player_remove(character=aiko)
        wound(kenji)  # the campaign goes on without them
        last = stream.message()
        with pytest.raises(EOFError):
            stream.message()

    assert last["data"]["all"] is True and last["data"]["pj"] == []


def test_turning_the_party_option_off_ends_the_players_wider_stream(url, table):
    campaign, dj, player, _aiko, kenji = table
    services.campaign_update(campaign=campaign, players_see_party=True)
    since = cursor(campaign)

    with event_stream(url, campaign, player, since=since) as stream:
        wound(kenji)
        assert stream.message()["data"]["pj"] == [kenji.pk]  # the party's, as the option says
        services.campaign_update(campaign=campaign, players_see_party=False)
        wound(kenji)
        heard = []
        with pytest.raises(EOFError):
            while True:
                heard.append(stream.message()["data"])
        assert heard[-1]["all"] is True  # the last word: ask again
    # Reconnected, the player hears of their own PJ only.
    with event_stream(url, campaign, player, since=cursor(campaign)) as stream:
        wound(kenji)
        with pytest.raises(TimeoutError):
            stream.message(timeout=0.5)


# --- Writes through a server --------------------------------------------------------------


def admin_edit_notes(base: str, character, user, notes: str) -> None:
    """Edit a PJ's notes through a server's admin form (services.character_update)."""
    where = urlsplit(base)
    path = f"/admin/campaign/character/{character.pk}/change/"
    cookie = session_cookie(user)
    with closing(http.client.HTTPConnection(where.hostname, where.port, timeout=10)) as http_:
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


def test_a_write_through_the_server_reaches_its_own_streams_within_a_second(url, table):
    campaign, dj, _player, aiko, _kenji = table
    admin = UserFactory(username="live-admin", is_staff=True, is_superuser=True)
    since = cursor(campaign)

    with event_stream(url, campaign, dj, since=since) as stream:
        admin_edit_notes(url, aiko, admin, "Arquera")
        committed = time.monotonic()  # a little after the commit, in fact
        message = stream.message()
        delay = time.monotonic() - committed

    assert message["data"] == {"cursor": since + 1, "pj": [aiko.pk], "all": False}
    assert delay < DELIVERY


ON_POSTGRESQL = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.skipif(
    not ON_POSTGRESQL,
    reason="two processes tell each other through PostgreSQL's NOTIFY; "
    "on SQLite each polls (the tests above cover it). Set DATABASE_URL to a PostgreSQL.",
)
def test_a_write_through_server_a_reaches_a_stream_on_server_b_within_a_second(table):
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
            committed = time.monotonic()  # a little after the commit, in fact
            from_b = on_b.message()
            delay = time.monotonic() - committed
            from_a = on_a.message()

            # And a write from a third process (this one) reaches both.
            wound(aiko)
            committed = time.monotonic()
            both = [on_b.message(), on_a.message()]
            late = time.monotonic() - committed
    finally:
        stop_server(a)
        stop_server(b)

    assert (
        from_b
        == from_a
        == {
            "id": since + 1,
            "data": {"cursor": since + 1, "pj": [kenji.pk], "all": False},
        }
    )
    assert delay < DELIVERY
    assert [m["data"]["pj"] for m in both] == [[aiko.pk], [aiko.pk]]
    assert late < DELIVERY


def listeners() -> list[int]:
    """The backends of the servers' LISTEN connections."""
    with connection.cursor() as sql:
        sql.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND query = 'LISTEN zodiac_changes'"
        )
        return [pid for (pid,) in sql.fetchall()]


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.02)
    return result


@pytest.mark.skipif(not ON_POSTGRESQL, reason="LISTEN exists on PostgreSQL only")
def test_a_lost_listen_connection_is_polled_around_then_taken_again(url, table):
    campaign, dj, _player, aiko, kenji = table
    since = cursor(campaign)
    with event_stream(url, campaign, dj, since=since) as stream:
        wound(aiko)
        stream.message()
        (listener,) = wait_until(listeners, 5, "the server LISTENs")

        with connection.cursor() as sql:
            sql.execute("SELECT pg_terminate_backend(%s)", [listener])
        wound(kenji)  # while the server has no LISTEN: found by polling
        polled = stream.message()
        taken_again = wait_until(lambda: [p for p in listeners() if p != listener], 5, "LISTEN")
        wound(aiko)  # heard through the new LISTEN
        heard = stream.message()

    assert polled["data"]["pj"] == [kenji.pk]
    assert heard["data"] == {"cursor": since + 3, "pj": [aiko.pk], "all": False}
    assert len(taken_again) == 1


def get(base: str, path: str, cookie: str) -> http.client.HTTPResponse:
    where = urlsplit(base)
    connection_ = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
    connection_.request("GET", path, headers={"Cookie": cookie, "HX-Request": "true"})
    response = connection_.getresponse()
    response.body = response.read()
    connection_.close()
    return response


def test_a_djs_refresh_is_answered_from_memory_once_django_let_the_session_in(url, table):
    campaign, dj, player, aiko, _kenji = table
    wound(aiko)
    path = f"/c/{campaign.slug}/refrescar/?pj={aiko.pk}"
    with event_stream(url, campaign, dj, since=cursor(campaign)):
        cookie = session_cookie(dj)
        first = get(url, path, cookie)
        second = get(url, path, cookie)
        stranger = get(url, path, session_cookie(player))

    assert first.status == 200 and first.getheader("x-refresh-from") is None
    assert second.status == 200 and second.getheader("x-refresh-from") == "memory"
    assert second.body == first.body and f'id="pj-{aiko.pk}"'.encode() in second.body
    assert b"csrfmiddlewaretoken" not in second.body
    # A player of the campaign never reaches the DJ's board, from memory or not.
    assert stranger.status == 404 and stranger.getheader("x-refresh-from") is None
