"""Getting players in: the DJ's invitations, and joining through one.

The DJ invites a player to a PJ with a link or a short code (shown with a QR code of the
link); the player signs up or logs in, accepts, and lands on the PJ's sheet. The DJ sees
who joined, cancels invitations, and takes a PJ back from its player.
"""

import segno
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from .. import selectors, services
from ..access import campaign_for_dj, pj_for_dj
from ..forms import AccountForm
from ..middleware import uncompressed
from ..models import Campaign
from ..requests import AuthedHttpRequest

# Wrong codes one address may try before it waits (a code is 8 of 31 signs: guessing one
# within its 48 hours at this rate is hopeless).


def _qr_svg(url: str) -> str:
    """The invitation link as an inline SVG QR code (no script, no external image)."""
    return segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#1f2430", light="#fff")


def _players_context(request: AuthedHttpRequest, campaign: Campaign) -> dict:
    characters = selectors.board_characters(campaign=campaign)
    pending = selectors.pending_invitations(campaign=campaign)
    rows = []
    for character in characters:
        invitation = pending.get(character.pk)
        row: dict[str, object] = {"character": character, "invitation": invitation}
        if invitation is not None:
            link = request.build_absolute_uri(reverse("join", args=[invitation.token]))
            row.update(
                link=link,
                code=services.code_display(invitation.code),
                qr=mark_safe(_qr_svg(link)),  # segno's own SVG markup
            )
        rows.append(row)
    return {
        "campaign": campaign,
        "rows": rows,
        "join_url": request.build_absolute_uri(reverse("join_code")),
        "active": "players",
    }


@uncompressed  # invitation codes and links: never behind a compression oracle
@require_http_methods(["GET"])
@login_required
def players(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Each PJ in play with its player, or its pending invitation (link, code and QR)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    return render(request, "campaign/players.html", _players_context(request, campaign))


@require_POST
@login_required
def invite(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk)
    try:
        services.invitation_create(character=character, by=request.user)
    except ValidationError as err:
        messages.error(request, " ".join(err.messages))
    else:
        messages.success(
            request,
            _("Invitation for %(name)s ready: share the link, the code or the QR code.")
            % {"name": character.name},
        )
    return redirect(reverse("players", args=[campaign.slug]) + f"#pj-{character.pk}")


@require_POST
@login_required
def invitation_cancel(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign = campaign_for_dj(user=request.user, slug=slug)
    invitation = selectors.invitation_of(campaign=campaign, pk=pk)
    if invitation is None:
        raise Http404("No such invitation.")
    name = invitation.character.name
    if services.invitation_cancel(invitation=invitation):
        messages.success(request, _("Invitation for %(name)s cancelled.") % {"name": name})
    else:
        messages.error(
            request,
            _("The invitation for %(name)s was already used: remove the player instead.")
            % {"name": name},
        )
    return redirect("players", slug=campaign.slug)


@uncompressed  # a password link, on the players page
@require_POST
@login_required
def password_link(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """A one-time link for the player of PJ `pk` to set a new password (no e-mail needed).
    Only for a player whose every campaign is this DJ's: no DJ opens another's account."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk)
    player = character.player
    if player is None:
        raise Http404("No player.")
    context = _players_context(request, campaign)
    if not selectors.plays_only_for(user=player, dj=request.user):
        context["link_refused"] = (
            character.pk,
            _(
                "%(player)s also plays in other DJs' campaigns, or runs one: they change "
                "their password themselves, or the server's owner does it "
                "(manage.py changepassword %(player)s)."
            )
            % {"player": player.get_username()},
        )
    else:
        path = reverse(
            "password_reset_confirm",
            args=[
                urlsafe_base64_encode(force_bytes(player.pk)),
                default_token_generator.make_token(player),
            ],
        )
        context["password_link"] = (character.pk, request.build_absolute_uri(path))
    return render(request, "campaign/players.html", context)


@require_POST
@login_required
def player_remove(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk)
    player = services.player_remove(character=character)
    if player is not None:
        messages.success(
            request,
            _("%(player)s no longer plays %(name)s. You can invite someone else.")
            % {"player": player.get_username(), "name": character.name},
        )
    else:  # another tab took the player back first, or there never was one
        messages.error(request, _("%(name)s has no player to remove.") % {"name": character.name})
    return redirect(reverse("players", args=[campaign.slug]) + f"#pj-{character.pk}")


# -- joining -------------------------------------------------------------------------------


def _address(request: HttpRequest) -> str:
    """The address a request came from (uvicorn sets it from a local proxy's header)."""
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"


@require_http_methods(["GET", "POST"])
def join_code(request: HttpRequest) -> HttpResponse:
    """Type the code the DJ read aloud; a valid one leads to its invitation."""
    error, code, status = "", "", 200
    if request.method == "POST":
        code = (request.POST.get("code") or "").strip()[:40]
        address = _address(request)
        if not services.code_normalize(code):
            # Nothing typed: not a wrong code, and it does not count against the limit.
            error, status = _("Type the code your DJ gave you, e.g. ABCD-EFGH."), 422
        elif services.wrong_codes(address=address) >= services.WRONG_CODES:
            error, status = _("Too many wrong codes. Wait a few minutes and try again."), 429
        elif (invitation := services.invitation_find(code=code)) is not None:
            return redirect("join", token=invitation.token)
        else:
            services.wrong_code_record(address=address)
            error, status = (
                _(
                    "No invitation has that code, or it was used or has expired. "
                    "Check it with your DJ."
                ),
                422,
            )
    return render(request, "campaign/join_code.html", {"error": error, "code": code}, status=status)


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation: sign up (or log in) and accept it, then on to the PJ's sheet."""
    invitation = services.invitation_find(token=token[:64])
    if invitation is None:
        return render(request, "campaign/join_gone.html", status=404)
    form = None
    error = ""
    if request.method == "POST":
        user = request.user if request.user.is_authenticated else None
        if user is None:
            form = AccountForm(request.POST)
        try:
            with transaction.atomic():
                if form is not None:
                    if not form.is_valid():
                        raise ValidationError("")
                    user = form.save()
                assert user is not None  # signed in, or the account just made
                character = services.invitation_accept(invitation=invitation, user=user)
        except ValidationError as err:
            error = " ".join(m for m in err.messages if m)
        else:
            if not request.user.is_authenticated:
                login(request, user, backend="campaign.auth.UsernameAnyCaseBackend")
            messages.success(
                request, _("Welcome to %(campaign)s!") % {"campaign": invitation.campaign.name}
            )
            return redirect("sheet", slug=invitation.campaign.slug, pk=character.pk)
    elif not request.user.is_authenticated:
        form = AccountForm()
    context = {
        "invitation": invitation,
        "form": form,
        "error": error,
        "login_url": reverse("login") + "?next=" + request.path,
    }
    status = 422 if request.method == "POST" else 200
    return render(request, "campaign/join.html", context, status=status)
