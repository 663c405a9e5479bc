"""Account views beside Django's own: a logout that clears the browser, the lockout page."""

import math

from axes.helpers import get_client_username, get_cool_off
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, ngettext


class LogoutView(auth_views.LogoutView):
    """Django's logout (POST, then the login page) that also empties the browser's cache and
    storage, so a shared phone keeps no cached sheet or service worker of the last player."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"cache", "storage"'
        return response


def lockout(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials=None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page again, saying why and for how long, as 429."""
    cool_off = get_cool_off(request)
    minutes = max(1, math.ceil(cool_off.total_seconds() / 60)) if cool_off else 0
    if minutes:
        message = ngettext(
            "Too many failed attempts. Wait %(minutes)d minute and try again.",
            "Too many failed attempts. Wait %(minutes)d minutes and try again.",
            minutes,
        ) % {"minutes": minutes}
    else:
        message = gettext("Too many failed attempts. Ask an administrator to unlock you.")
    username = get_client_username(request, credentials) or ""
    form = AuthenticationForm(request, initial={"username": username})
    context = {"form": form, "lockout_message": message, "next": request.POST.get("next", "")}
    response = render(
        request, "registration/login.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
    if cool_off:
        response["Retry-After"] = str(math.ceil(cool_off.total_seconds()))
    return response
