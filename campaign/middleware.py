"""Spanish first: the UI language is the user's pick from the switch, else Spanish."""

from django.conf import settings
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


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
