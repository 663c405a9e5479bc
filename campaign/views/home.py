"""The home page: the campaigns a user plays in or directs."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ..selectors import membership_list_for_user


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The campaigns the user plays in or directs."""
    memberships = membership_list_for_user(user=request.user)
    return render(request, "campaign/home.html", {"memberships": memberships})
