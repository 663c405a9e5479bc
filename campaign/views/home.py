"""The home page (the campaigns a user plays in or directs) and making a new campaign."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from .. import services
from ..forms import CampaignForm, add_service_error
from ..requests import AuthedHttpRequest
from ..selectors import membership_list_for_user, played_characters


@require_GET
@login_required
def home(request: AuthedHttpRequest) -> HttpResponse:
    """The campaigns the user plays in or directs."""
    memberships = list(membership_list_for_user(user=request.user))
    played = played_characters(user=request.user)
    for membership in memberships:
        # For the template only: not a field of Membership.
        membership.played = played.get(membership.campaign_id, [])  # type: ignore[attr-defined]
    return render(request, "campaign/home.html", {"memberships": memberships})


@require_http_methods(["GET", "POST"])
@login_required
def campaign_new(request: AuthedHttpRequest) -> HttpResponse:
    """A new campaign, directed by whoever makes it; then on to its PJ."""
    form = CampaignForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = services.campaign_create(
                name=form.cleaned_data["name"], dj=request.user, **form.cleaned_options()
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(
                request,
                _("Campaign %(name)s created. Next, add its PJ.") % {"name": campaign.name},
            )
            return redirect("character_list", slug=campaign.slug)
    return render(request, "campaign/campaign_new.html", {"form": form})
