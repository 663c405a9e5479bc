"""The DJ's board, PNJ side: PNJ added in one step (by name ×N, or from a Plantilla,
into the fight when one is on), the area blow over the PNJ marked, and Fuera de combate.

Each answers with every card and the board's panels, or, refused, with the reason next to
the form that was used. Only the campaign's DJ reaches these.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from rules import RuleError

from .. import selectors, services, taps, turn_order
from ..access import campaign_for_dj, pnj_for_dj
from ..numbers import whole, wholes
from ..present import lang
from ..present.board import AREA_TYPES
from ..requests import AuthedHttpRequest
from .answers import idempotency_key, summaries
from .party import party_done, party_refuse


@require_POST
@login_required
def pnj_add(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """PNJ by name (×count), or copies of the Plantilla of that name; into the fight going
    on when the form came from a board in one (its initiative), one turn for all or not
    (with no fight: in the next fight's order)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    name = " ".join((request.POST.get("name") or "").replace("\x00", "").split())[:200]
    typed = (request.POST.get("count") or "1").strip()
    count = whole(typed, digits=3)
    if count is None:
        # A whole number too long to read ("999999999999") is one: say the range it misses.
        message = (
            _("From 1 to %(n)s at once.") % {"n": services.COPIES_MAX}
            if typed.isascii() and typed.isdigit()
            else _("How many: a whole number.")
        )
        return party_refuse(request, campaign, message, 422, slot="pnj-error")
    template = next(
        (t for t in campaign.templates.all() if t.name.casefold() == name.casefold()), None
    )
    join, together = None, request.POST.get("together") == "1"
    if request.POST.get("fight") == "1":  # from a board in a fight: into it, whatever turn
        try:
            init = turn_order.initiative_read(request.POST.get("init", "")[:12])
        except ValidationError as err:
            return party_refuse(request, campaign, " ".join(err.messages), 422, slot="pnj-error")
        join = {"init": init, "together": together}
    try:
        made = services.pnj_create(
            campaign=campaign,
            name=template.name if template is not None else name,  # as the DJ wrote it
            count=count,
            side=request.POST.get("side", "enemigo"),
            template=template,
            join=join,
            together=together,
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 422, slot="pnj-error")
    names = ", ".join(c.name for c in made)
    text = ngettext("PNJ added: %(names)s", "PNJ added: %(names)s", len(made)) % {"names": names}
    if join is not None:
        text += " · " + _("in the fight")
    return party_done(request, campaign, [{"title": text, "lines": [], "text": text}])


@require_POST
@login_required
def area_blow(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """One E.Alt for every PNJ marked, in one tap (refused whole when one cannot take it)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    pks = wholes(request.POST.getlist("area")[:100])
    if request.POST.get("type") not in AREA_TYPES:
        message = _("Choose what the blow gives.")
        return party_refuse(request, campaign, message, 422, slot="area-error")
    marked = []
    if pks:
        marked = [c for c in selectors.board_pnj(campaign=campaign) if c.pk in set(pks)]
    if not marked:
        message = _("Mark the PNJ the blow reaches (the box before each name).")
        return party_refuse(request, campaign, message, 422, slot="area-error")
    try:
        action = taps.suffer_event(request.POST, especificos=campaign.especificos)
        records = services.area_event(
            campaign=campaign,
            characters=marked,
            event=action.event,
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 422, slot="area-error")
    except RuleError as err:  # noted with the name of the PNJ that refused
        message = f"{err.__notes__[-1]}: {err.message(lang())}"
        return party_refuse(request, campaign, message, 422, slot="area-error")
    return party_done(request, campaign, summaries(records))


@require_POST
@login_required
def pnj_reveal(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Reveal a PNJ to the players (its name, and what its `shows` says), or hide it again:
    one tap from its card, in the middle of a fight."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pnj_for_dj(campaign=campaign, pk=pk)
    wanted = request.POST.get("revealed")
    if wanted not in ("0", "1"):
        message = _("Say whether to reveal it or hide it.")
        return party_refuse(request, campaign, message, 422, slot="pnj-error")
    services.pnj_settings_set(character=character, revealed=wanted == "1")
    text = (
        _("%(name)s is revealed to the players")
        if wanted == "1"
        else _("%(name)s is hidden from the players")
    ) % {"name": character.name}
    return party_done(request, campaign, [{"title": text, "lines": [], "text": text}])


@require_POST
@login_required
def fight_out(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Fuera de combate: one leaves the fight's order, why on record."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    pk = whole(request.POST.get("pj") or "")
    character = selectors.character_of(campaign=campaign, pk=pk) if pk is not None else None
    if character is None:
        message = _("That one is no longer here.")
        return party_refuse(request, campaign, message, 404, slot="fight-error")
    try:
        records = services.fight_out(
            campaign=campaign,
            character=character,
            why=request.POST.get("why", ""),
            expected=request.POST.get("turn", ""),
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 409, slot="fight-error")
    text = _("%(name)s is out of the fight") % {"name": character.name}
    toasts = [{"title": text, "lines": [], "text": text}]
    return party_done(request, campaign, toasts + summaries(records[1:]))
