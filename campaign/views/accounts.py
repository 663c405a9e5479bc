"""Account views beside Django's own: logging in (a player with one PJ lands on its sheet),
signing up as a DJ, a logout that clears the browser, the lockout page."""

import math

from axes.helpers import get_client_username, get_cool_off
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods

from .. import selectors
from ..forms import AccountForm, LoginForm


class LoginView(auth_views.LoginView):
    """Django's login; without a `next`, a player with one PJ (and no campaign of their own
    to run) lands on that PJ's sheet instead of the list of campaigns."""

    redirect_authenticated_user = True
    authentication_form = LoginForm

    def get_redirect_url(self, request: HttpRequest | None = None) -> str:
        # "Next: the home page" (a visitor who opened the app's address) says nothing more
        # than no next: a player with one PJ still lands on its sheet.
        url = super().get_redirect_url(request)
        return "" if url == reverse("home") else url

    def get_default_redirect_url(self) -> str:
        only = selectors.only_sheet_of(user=self.request.user)
        if only is not None:
            return reverse("sheet", args=[only.campaign.slug, only.pk])
        return super().get_default_redirect_url()

    def get_context_data(self, **kwargs) -> dict:
        return {**super().get_context_data(**kwargs), "signup": settings.SIGNUP}


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account, to run campaigns as a DJ (players join through an invitation). Off
    on a private server (settings.SIGNUP)."""
    if not settings.SIGNUP:
        raise Http404("Sign-up is off.")
    if request.user.is_authenticated:
        return redirect("home")
    form = AccountForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="campaign.auth.UsernameAnyCaseBackend")
        messages.success(request, gettext("Your account is ready: now your first campaign."))
        return redirect("campaign_new")
    status = 422 if request.method == "POST" else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


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
    context = {
        "form": form,
        "lockout_message": message,
        "next": request.POST.get("next", ""),
        "signup": settings.SIGNUP,
    }
    response = render(
        request, "registration/login.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
    if cool_off:
        response["Retry-After"] = str(math.ceil(cool_off.total_seconds()))
    return response
