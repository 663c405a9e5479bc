"""A player's sheet: their own PJ's condition card, live, on a phone.

Read-only but for one thing: the player rolls their own pending checks ("Tirar"), recorded
with the player as actor. The campaign's DJ may open any sheet to see what its player
sees; anyone else gets 404. What the DJ marked secret never reaches a sheet.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from rules import RuleError

from .. import selectors, services, taps
from ..access import archived_own_character, character_for_viewer
from ..live import parts
from ..models import Campaign, Character, Membership
from ..numbers import wholes
from ..present import lang
from ..present import sheet as present_sheet
from ..requests import AuthedHttpRequest
from .answers import after_write, idempotency_key, summaries, with_cursor

TEMPLATE = "campaign/sheet.html"


def _party(campaign: Campaign, character: Character) -> list[Character]:
    """The other PJ in play whose cards this sheet shows (the campaign's option)."""
    if not campaign.players_see_party:
        return []
    return [c for c in selectors.board_characters(campaign=campaign) if c.pk != character.pk]


def _context(membership: Membership, character: Character) -> dict:
    view = selectors.sheet_view(campaign=membership.campaign, character=character)
    return {
        **present_sheet.page(view),
        "updated": timezone.now(),
        "as_dj": membership.role == Membership.Role.DJ,
    }


@require_GET
@login_required
def sheet(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The PJ's sheet, as its player sees it. A PJ the DJ archived gets a page that says
    so, and follows the campaign: it opens the sheet again once the PJ is restored."""
    try:
        membership, character = character_for_viewer(user=request.user, slug=slug, pk=pk)
    except Http404:
        archived = archived_own_character(user=request.user, slug=slug, pk=pk)
        if archived is None:
            raise
        context = {"campaign": archived.campaign, "character": archived}
        return render(request, "campaign/sheet_archived.html", context, status=404)
    return render(request, TEMPLATE, _context(membership, character))


@require_GET
@login_required
def sheet_refresh(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """What a live change asks for, where the stream did not carry it: the cards it named
    (or all) that this sheet shows, and the clock line, each replacing the element with its
    id."""
    membership, character = character_for_viewer(user=request.user, slug=slug, pk=pk)
    wanted = wholes(request.GET.getlist("pj"))
    if wanted is None:
        return HttpResponseBadRequest(_("Unknown PJ."))
    everyone = request.GET.get("all") == "1"
    party = [c.pk for c in _party(membership.campaign, character)]
    keys = parts.sheet_keys(
        own=[character.pk] if everyone or character.pk in wanted else [],
        party=[p for p in party if everyone or p in wanted],
    )
    if everyone or request.GET.get("foes") == "1":
        keys.append(("foes",))
    rendered = parts.render(membership.campaign_id, lang(), keys)
    own = ("own", character.pk)
    if membership.role == Membership.Role.DJ and own in rendered:
        # The DJ looking at the sheet: the player's card, without the player's roll button.
        view = selectors.sheet_view(
            campaign=membership.campaign, character=selectors.character_fresh(pk=character.pk)
        )
        context = {
            "campaign": membership.campaign,
            "card": present_sheet.own_card(view),
            "common": True,
            "as_dj": True,
            "turn": present_sheet.turn_for(character.pk, view.now),
        }
        rendered[own] = render_to_string("campaign/sheet/_card.html", context)
    found = [rendered[key] for key in keys]  # HTML, or None for a card this sheet lost
    return HttpResponse("".join(html for html in found if isinstance(html, str)))


@require_POST
@login_required
def sheet_roll(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The player rolls one of their PJ's pending checks: 1d6 against its score."""
    membership, character = character_for_viewer(user=request.user, slug=slug, pk=pk)
    campaign = membership.campaign
    error, toast, status = "", None, 200
    try:
        action = taps.roll_save(check=taps.check_name(request.POST), character=character)
        record = services.event_record(
            campaign=campaign,
            character=character,
            event=action.event,
            actor=request.user,
            idempotency_key=idempotency_key(request),
            # The player's tap is refused (404) if the DJ took the PJ back meanwhile.
            for_player=None if membership.role == Membership.Role.DJ else request.user,
        )
    except ValidationError as err:
        error, status = " ".join(err.messages), 422
    except RuleError as err:
        error, status = err.message(lang()), 422
    else:
        toast = summaries([record], [action.roll])[0]
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif toast is not None:  # no error: the roll was recorded
            messages.success(request, toast["text"])
        return redirect("sheet", slug=slug, pk=pk)
    after_write(campaign)
    character = selectors.character_fresh(pk=character.pk)
    membership.campaign = campaign
    context = {**_context(membership, character), "error": error, "toast": toast}
    html = render_to_string("campaign/sheet/_card.html", context, request)
    html += render_to_string("campaign/card/_toasts.html", context, request)
    return with_cursor(HttpResponse(html, status=status), campaign, covers=[character.pk])
