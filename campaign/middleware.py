"""Middleware: compressed answers; Spanish first for the UI language; a chain that stays in
one thread; late taps refused; the app's own page for an address opened the wrong way."""

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.middleware.locale import LocaleMiddleware
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from . import deadline


class CompressionMiddleware(GZipMiddleware):
    """Django's GZipMiddleware: pages, htmx answers, polls and the live stream gzipped for a
    browser that asks (Accept-Encoding), with `Vary: Accept-Encoding`; tiny answers (under
    200 bytes) and ones already encoded pass as they are.

    Gzip, not brotli: browsers offer brotli only over HTTPS, and a table's own server is
    plain HTTP on its Wi-Fi; gzip needs no extra package, and Django's streaming gzip
    flushes after every chunk (GzipFile.flush, zlib's Z_SYNC_FLUSH), so each Server-Sent
    Event still reaches the page at once (tests/campaign/test_live_server.py).

    BREACH (a compression-length oracle on a secret sent next to an attacker's text)
    does not reach what these pages hold: the CSRF token in every form is masked anew for
    each response (the board's `form_fields` takes the request's masked token), so no two
    answers carry the same bytes of it to guess at, and the live parts carry no token at
    all; the session cookie is SameSite=Lax, so another site cannot have the browser fetch
    logged-in pages in the background (only a top-level navigation carries it); and each
    gzip header holds a random file name of random length (GZipMiddleware's
    max_random_bytes, Django's "Heal the BREACH"), so sizes do not line up. The one page
    with secrets that are not masked (the players page: invitation codes and links, a
    password link) is left uncompressed all the same (`uncompressed`): it is small, rare,
    and a DJ's. Reasoning in docs/hosting.md (Compression).
    """

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if getattr(response, "uncompressed", False):
            return response
        if not settings.LIVE_GZIP and response.get("Content-Type", "").startswith(
            "text/event-stream"
        ):
            return response  # a busy server's choice: CPU before bytes (docs/hosting.md)
        return super().process_response(request, response)


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
    response = HttpResponse(
        _("Not recorded: this tap reached the server too late. Check the card and tap again."),
        status=409,
        content_type="text/plain; charset=utf-8",
    )
    response["HX-Reswap"] = "none"
    response["X-Zodiac-Refused"] = "late"
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
