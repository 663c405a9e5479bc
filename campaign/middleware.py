"""Middleware: compressed answers; Spanish first for the UI language; a chain that stays in
one thread; late taps refused; the app's own page for an address opened the wrong way, and
for the admin to anyone but its staff."""

import zlib
from collections.abc import AsyncIterable, AsyncIterator, Callable
from functools import wraps
from typing import cast

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.middleware.locale import LocaleMiddleware
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from . import deadline
from .live import channel


class CompressionMiddleware(GZipMiddleware):
    """Django's GZipMiddleware: pages, htmx answers, polls and the live stream gzipped for a
    browser that asks (Accept-Encoding), with `Vary: Accept-Encoding`; tiny answers (under
    200 bytes) and ones already encoded pass as they are.

    Gzip, not brotli: browsers offer brotli only over HTTPS, and a table's own server is
    plain HTTP on its Wi-Fi; gzip needs no extra package. The live stream goes through
    `gzip_events` (one compressor per stream, flushed with Z_SYNC_FLUSH after every
    message), so each Server-Sent Event still reaches the page at once
    (tests/campaign/test_live_server.py, tests/browser/test_live.py).

    BREACH (a compression-length oracle on a secret sent next to an attacker's text)
    does not reach what these pages hold: the CSRF token in every form is masked anew for
    each response (the board's `form_fields` takes the request's masked token), so no two
    answers carry the same bytes of it to guess at, and the live parts carry no token at
    all; the session cookie is SameSite=Lax, so another site cannot have the browser fetch
    logged-in pages in the background (only a top-level navigation carries it); and each
    gzip header of a page holds a random file name of random length (GZipMiddleware's
    max_random_bytes, Django's "Heal the BREACH"), so sizes do not line up. (The stream's
    header has no such name: it would pad the first chunk only, each message going as a
    chunk of its own size; and its messages hold no secret.) The one page with secrets
    that are not masked (the players page: invitation codes and links, a password link)
    is left uncompressed all the same (`uncompressed`): it is small, rare, and a DJ's.
    Reasoning in docs/hosting.md (Compression).
    """

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if getattr(response, "uncompressed", False):
            return response
        if response.get("Content-Type", "").startswith("text/event-stream"):
            if not settings.LIVE_GZIP:
                return response  # an operator's choice (docs/hosting.md)
            if isinstance(response, StreamingHttpResponse) and response.is_async:
                return _gzip_stream(request, response)
        return super().process_response(request, response)


# The live stream's compressor: zlib's default level and window (32 KiB, so a message can
# point back into the one before: a card much as it was costs a few hundred bytes), and a
# smaller hash table than the default memLevel 8: the same bytes and CPU for these
# messages, about 150 KiB of memory per stream instead of 230 (docs/benchmarks.md).
STREAM_LEVEL = 6
STREAM_MEM_LEVEL = 5


def stream_compressor():
    """A live stream's compressor: one gzip member (header, deflate, trailer)."""
    return zlib.compressobj(STREAM_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS, STREAM_MEM_LEVEL)


async def gzip_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    """One gzip member for a whole stream, a chunk out for each chunk in: each message is
    flushed (Z_SYNC_FLUSH) as it comes, so it inflates whole on arrival, and the window
    keeps what the messages before it held. The trailer goes when the stream ends."""
    deflate = stream_compressor()
    async for chunk in chunks:
        yield deflate.compress(chunk) + deflate.flush(zlib.Z_SYNC_FLUSH)
    yield deflate.flush()


def _gzip_stream(request: HttpRequest, response: StreamingHttpResponse) -> StreamingHttpResponse:
    """The live stream through `gzip_events` when the browser asks for gzip; as
    GZipMiddleware does for a streaming answer, but without its GzipFile per stream."""
    if response.has_header("Content-Encoding"):
        return response
    patch_vary_headers(response, ("Accept-Encoding",))
    if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        return response
    content = cast(AsyncIterator[bytes], response.streaming_content)  # is_async: checked
    response.streaming_content = gzip_events(content)
    del response.headers["Content-Length"]
    response.headers["Content-Encoding"] = "gzip"
    return response


def uncompressed[V: Callable[..., HttpResponse]](view: V) -> V:
    """A view whose answers are never compressed (they show secrets; see
    CompressionMiddleware)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response.uncompressed = True  # type: ignore[attr-defined]
        return response

    return wrapped  # type: ignore[return-value]


class SpanishFirstLocaleMiddleware(LocaleMiddleware):
    """LocaleMiddleware without the browser's Accept-Language.

    Zodiac is played in Spanish: a phone set to English still gets the game's words
    until its user picks English with the language switch (which sets the cookie).
    """

    def process_request(self, request: HttpRequest) -> None:
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        available = {code for code, _name in settings.LANGUAGES}
        language = chosen if chosen in available else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class SyncChainMiddleware:
    """Last in MIDDLEWARE, sync only: it keeps the middleware chain in one thread under ASGI.

    Django runs async-capable middleware of the MiddlewareMixin kind by hopping to a thread
    for each hook; with a sync-only middleware at the bottom the whole chain runs sync, in
    one thread, and a request costs three hops instead of forty. Live refreshes, twenty
    pages at a time, feel the difference. Async views (the live stream) still run async.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        return self.get_response(request)


class OnlyTabMiddleware:
    """A tap from its browser's only page of the campaign (X-Zodiac-Only-Tab, set by
    static/js/live/taps.js) has the change in its answer: the changes it writes are marked
    answered to that browser (live.channel.answered), whose DJ stream then sends the news
    without rendering it again. Sync only, like the rest of the chain."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if request.method != "POST" or request.headers.get("X-Zodiac-Only-Tab") != "1":
            return self.get_response(request)
        token = channel.answered.set(channel.browser_tag(request.session.session_key))
        try:
            return self.get_response(request)
        finally:
            channel.answered.reset(token)


class TapDeadlineMiddleware:
    """Refuse a tap that reaches the server, or its campaign's lock, after its deadline.

    Sync only, like the rest of the chain. The refusal is a 409 that swaps nothing
    (HX-Reswap: none) with the words to show, in the user's language, next to the control
    (static/js/live/taps.js puts them on the card).
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if request.method != "POST":
            return self.get_response(request)
        limit = deadline.parse(request.headers.get(deadline.HEADER))
        if deadline.passed(limit):
            return _too_late()
        token = deadline.set_for_request(limit)
        try:
            return self.get_response(request)
        finally:
            deadline.reset(token)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, deadline.TapTooLate):
            return _too_late()
        return None


def _too_late() -> HttpResponse:
    return tap_refused(
        _("Not recorded: this tap reached the server too late. Check the card and tap again."),
        why="late",
    )


def tap_refused(text: str, *, why: str) -> HttpResponse:
    """A tap refused with nothing written: a 409 that swaps nothing, `text` the words the
    page shows next to the control (static/js/live/taps.js), `why` in X-Zodiac-Refused."""
    response = HttpResponse(text, status=409, content_type="text/plain; charset=utf-8")
    response["HX-Reswap"] = "none"
    response["X-Zodiac-Refused"] = why
    return response


class NotAllowedPageMiddleware:
    """The app's own page for a 405 (an action's address opened in the address bar):
    Django answers it with an empty body, and a player would meet a blank page."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        response = self.get_response(request)
        if response.status_code != 405 or response.content or getattr(request, "htmx", False):
            return response
        page = HttpResponse(render_to_string("405.html", request=request), status=405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page


class StaffOnlyAdminMiddleware:
    """The admin is the server operator's: anyone but an active staff account (a player, a
    DJ, a visitor not logged in) meets the app's own 404 page under /admin/, its login page
    included, as for any address that is not theirs. Staff log in on the app's own page.
    After AuthenticationMiddleware (it reads request.user)."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.prefix = ""

    def __call__(self, request: HttpRequest):
        if not self.prefix:
            self.prefix = reverse("admin:index")
        if request.path_info.startswith(self.prefix):
            user = request.user
            if not (user.is_active and user.is_staff):
                raise Http404("The admin is for the server's staff.")
        return self.get_response(request)
