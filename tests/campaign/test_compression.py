"""Compressed answers (campaign.middleware.CompressionMiddleware): gzip when the browser asks,
plain otherwise, `Vary: Accept-Encoding` either way. The live stream's compressor
(gzip_events) is checked here message by message; on a real server in test_live_server.py,
and in Chromium in tests/browser/test_live.py."""

import asyncio
import gzip
import re
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.http import HttpResponse
from django.urls import reverse

from campaign import services

GZIP = {"Accept-Encoding": "gzip, deflate"}
HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def vary(response) -> set[str]:
    return {part.strip().lower() for part in response.get("Vary", "").split(",")}


def same_but_per_request(html: str) -> str:
    """The page with its per-request values (masked CSRF tokens, form keys, nonces) blanked."""
    html = re.sub(r'(name="(?:csrfmiddlewaretoken|key)" value=")[^"]*', r"\1", html)
    html = re.sub(r'("X-CSRFToken": ")[^"]*', r"\1", html)
    return re.sub(r'nonce="[^"]*"', 'nonce=""', html)


def wound(character) -> None:
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


def test_a_page_asked_for_gzip_comes_gzipped_and_is_the_same_page(dj_client, campaign, aiko):
    url = reverse("board", args=[campaign.slug])
    plain = dj_client.get(url)
    packed = dj_client.get(url, headers=GZIP)

    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert int(packed["Content-Length"]) == len(packed.content) < len(plain.content) / 3
    # The same page but for what differs on every request: the masked CSRF tokens, the
    # forms' keys and the CSP nonce.
    unpacked = gzip.decompress(packed.content).decode()
    assert "Aiko" in unpacked
    assert same_but_per_request(unpacked) == same_but_per_request(plain.content.decode())
    assert "accept-encoding" in vary(plain) and "accept-encoding" in vary(packed)


# Not "page": that name is pytest-playwright's fixture, and a parameter of that name set
# Playwright's event loop running under every later test of the session.
@pytest.mark.parametrize("screen", ["history", "sheet"])
def test_the_history_and_a_sheet_come_gzipped_when_asked(dj_client, campaign, aiko, screen):
    wound(aiko)
    args = [campaign.slug] if screen == "history" else [campaign.slug, aiko.pk]
    response = dj_client.get(reverse(screen, args=args), headers=GZIP)

    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    assert "Aiko" in gzip.decompress(response.content).decode()


def test_a_card_answer_and_a_live_refresh_come_gzipped_when_asked(dj_client, campaign, aiko):
    answer = dj_client.post(
        reverse("act", args=[campaign.slug, aiko.pk]),
        {"action": "suffer", "type_grade": "shock:leve"},
        headers={**HX, **GZIP},
    )
    refresh = dj_client.get(
        reverse("board_refresh", args=[campaign.slug]), {"pj": aiko.pk}, headers={**HX, **GZIP}
    )
    plain = dj_client.get(reverse("board_refresh", args=[campaign.slug]), {"pj": aiko.pk})

    assert answer.status_code == 200 and answer["Content-Encoding"] == "gzip"
    assert answer.has_header("X-Change-Cursor")  # the answer's own headers still there
    assert "Aiko" in gzip.decompress(answer.content).decode()
    assert refresh["Content-Encoding"] == "gzip"
    assert gzip.decompress(refresh.content) == plain.content
    assert "Content-Encoding" not in plain and "accept-encoding" in vary(plain)


def test_tiny_answers_are_never_compressed(dj_client, campaign, aiko):
    campaign.refresh_from_db()
    since = {"since": f"{campaign.pk}:{campaign.change_cursor}"}
    nothing = dj_client.get(reverse("live_changes"), since, headers=GZIP)
    wound(aiko)
    poll = dj_client.get(reverse("live_changes"), since, headers=GZIP)

    assert nothing.status_code == 204 and "Content-Encoding" not in nothing
    # A poll's answer is a line of JSON: under the 200 bytes worth compressing.
    assert poll.status_code == 200 and len(poll.content) < 200
    assert "Content-Encoding" not in poll and poll.json()["changes"]


def test_the_players_page_with_its_invitation_codes_is_never_compressed(
    dj_client, campaign, aiko, dj
):
    services.invitation_create(character=aiko, by=dj)
    response = dj_client.get(reverse("players", args=[campaign.slug]), headers=GZIP)

    assert response.status_code == 200 and "Content-Encoding" not in response
    assert "invitation-code" in response.content.decode()


def test_static_files_are_whitenoise_s_to_encode_never_gzipped_again(client, db):
    icon = client.get("/static/img/icon-512.png", headers=GZIP)

    # WhiteNoise answers before the compression middleware: a PNG, already compressed, goes
    # as it is (its CSS and JS come precompressed from collectstatic in production).
    assert icon.status_code == 200 and "Content-Encoding" not in icon


def test_what_keeps_breach_away_holds(settings, dj_client, campaign, aiko):
    """The reasoning of CompressionMiddleware's docstring: the session cookie is SameSite=Lax
    (no logged-in page fetched from another site), and the CSRF token differs in every
    gzipped board (masked per response)."""
    url = reverse("board", args=[campaign.slug])
    tokens = [
        set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page))
        for page in (
            gzip.decompress(dj_client.get(url, headers=GZIP).content).decode() for _ in range(2)
        )
    ]

    assert settings.SESSION_COOKIE_SAMESITE == "Lax"
    assert len(tokens[0]) == len(tokens[1]) == 1 and tokens[0] != tokens[1]


CARD = "".join(f"<i>{n * 7919 % 10007}</i>" for n in range(400)).encode()  # a card's HTML
MESSAGES = [
    b"retry: 1000\n\n",
    b'event: hello\ndata: {"now":1}\n\n',
    b'id: 3:7\nevent: change\ndata: {"parts":{"card:1":"' + CARD + b'"}}\n\n',
    b'id: 3:8\nevent: change\ndata: {"parts":{"card:1":"' + CARD + b'"}}\n\n',
    b'event: ping\ndata: {"now":2}\n\n',
]


def events(messages=MESSAGES):
    async def produce():
        for message in messages:
            yield message

    return produce()


def chunks_of(stream) -> list[bytes]:
    """What an async streaming answer (or a bare async iterator) sends, chunk by chunk; in
    an event loop of its own thread (this one may hold Playwright's)."""

    async def read():
        return [chunk async for chunk in stream]

    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, read()).result()


def stream_through_middleware(rf, headers):
    from django.http import StreamingHttpResponse

    from campaign.middleware import CompressionMiddleware

    stream = StreamingHttpResponse(events(), content_type="text/event-stream")
    return CompressionMiddleware(lambda request: stream)(rf.get("/en-vivo/", headers=headers))


def test_each_message_of_a_gzipped_stream_inflates_whole_as_it_comes():
    from campaign.middleware import gzip_events

    chunks = chunks_of(gzip_events(events()))
    inflate = zlib.decompressobj(wbits=31)

    # One chunk per message, then the trailer: nothing waits in the compressor for more.
    assert len(chunks) == len(MESSAGES) + 1
    assert [inflate.decompress(chunk) for chunk in chunks[:-1]] == MESSAGES
    # Each compressor keeps its window: a card as it was costs a fraction of its first time.
    assert len(chunks[3]) * 10 < len(chunks[2]) < len(MESSAGES[2]) / 2
    # The stream that ends is one whole gzip member (its trailer checks what it held).
    assert gzip.decompress(b"".join(chunks)) == b"".join(MESSAGES)


def test_the_stream_asked_for_gzip_goes_through_gzip_events(settings, rf):
    settings.LIVE_GZIP = True
    packed = stream_through_middleware(rf, GZIP)
    plain = stream_through_middleware(rf, {})

    assert packed["Content-Encoding"] == "gzip" and not packed.has_header("Content-Length")
    assert "accept-encoding" in vary(packed) and "accept-encoding" in vary(plain)
    inflate = zlib.decompressobj(wbits=31)
    assert [inflate.decompress(chunk) for chunk in chunks_of(packed)][:-1] == MESSAGES
    assert "Content-Encoding" not in plain and chunks_of(plain) == MESSAGES


@pytest.mark.parametrize("live_gzip", [True, False])
def test_live_gzip_decides_whether_the_stream_is_gzipped(settings, rf, live_gzip):
    from campaign.middleware import CompressionMiddleware

    settings.LIVE_GZIP = live_gzip
    page = HttpResponse("<p>" + "Aiko " * 100 + "</p>")
    answered = stream_through_middleware(rf, GZIP)
    middleware = CompressionMiddleware(lambda request: page)
    other = middleware(rf.get("/", headers=GZIP))
    sent = b"".join(chunks_of(answered))

    assert answered.get("Content-Encoding") == ("gzip" if live_gzip else None)
    assert (gzip.decompress(sent) if live_gzip else sent) == b"".join(MESSAGES)
    assert other["Content-Encoding"] == "gzip"  # pages are gzipped whatever LIVE_GZIP says
    # A page's gzip header still names a random file (Django's "Heal the BREACH").
    assert other.content[3] & gzip.FNAME
