"""Views: parse the request, call a selector or service, render a template."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_GET

from .reference import rules_page
from .selectors import membership_list_for_user


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The campaigns the user plays in or directs."""
    memberships = membership_list_for_user(user=request.user)
    return render(request, "campaign/home.html", {"memberships": memberships})


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules reference, in the UI language; open to anyone, logged in or not."""
    page = rules_page(translation.get_language() or "es")
    return render(request, "campaign/rules.html", {"page": page})
