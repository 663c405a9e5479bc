"""The DJ's PNJ page: the Plantillas (the table's small bestiary) and the PNJ, made, set up,
archived and restored between sessions.

Only the campaign's DJ reaches any of this (everyone else gets 404). Forms post and
redirect; bad input shows the page again with the error by its field and writes nothing.
"""

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import reveal, selectors, services
from ..access import campaign_for_dj, pnj_for_dj
from ..forms import add_service_error, powers_shown, scores_in_order
from ..models import Campaign, Character, Template
from ..pnj_forms import CopiesForm, NewPnjForm, PnjForm, TemplateForm
from ..requests import AuthedHttpRequest
from .answers import idempotency_key
from .setup import local_next

# Each form of the page has ids of its own: the page holds several at once.
TEMPLATE_IDS = "template_%s"
NEW_IDS = "new_%s"


def _template(campaign: Campaign, pk: int) -> Template:
    template = selectors.template_of(campaign=campaign, pk=pk)
    if template is None:
        raise Http404("No such template.")
    return template


def _card(thing: Template | Character) -> tuple:
    """What the list shows of a Plantilla or a PNJ: itself, its scores, its powers."""
    return thing, scores_in_order(thing.attributes or {}), powers_shown(thing.powers or [])


def seen_by_players(character: Character) -> str:
    """What players see of a PNJ, in a line of the list (campaign.reveal says it in full)."""
    if character.revealed:
        return _("Revealed: players see %(what)s.") % {"what": character.get_shows_display()}
    if character.lurking:
        return _("Hidden from players until its first turn.")
    return _("Unrevealed: players read “%(who)s”.") % {"who": reveal.anonymous(character)}


def _page(
    request: AuthedHttpRequest,
    campaign: Campaign,
    *,
    template_form: TemplateForm | None = None,
    new_form: NewPnjForm | None = None,
    refused_copies: tuple[int, CopiesForm] | None = None,
) -> HttpResponse:
    """The page; a refused form (bound, with its errors) in place of its blank one."""
    key = secrets.token_urlsafe(12)  # a new tap key per form shown: a double post makes one
    templates = [
        (
            *_card(t),
            refused_copies[1]
            if refused_copies and refused_copies[0] == t.pk
            else CopiesForm(template=t),
        )
        for t in selectors.template_list(campaign=campaign)
    ]
    in_play = [(*_card(c), seen_by_players(c)) for c in selectors.pnj_list(campaign=campaign)]
    failed = template_form or new_form or (refused_copies[1] if refused_copies else None)
    context = {
        "campaign": campaign,
        "templates": templates,
        "enemies": [row for row in in_play if row[0].side != Character.Side.ALIADO],
        "allies": [row for row in in_play if row[0].side == Character.Side.ALIADO],
        "archived": selectors.pnj_list(campaign=campaign, archived=True),
        "template_form": template_form or TemplateForm(auto_id=TEMPLATE_IDS),
        "new_form": new_form or NewPnjForm(auto_id=NEW_IDS),
        "form": failed,  # the one the error summary is about
        "key": key,
        "active": "pnj",
    }
    return render(request, "campaign/pnj.html", context)


def _made(request: AuthedHttpRequest, made: list[Character]) -> None:
    names = ", ".join(c.name for c in made)
    messages.success(
        request,
        ngettext("PNJ made: %(names)s.", "%(count)s PNJ made: %(names)s.", len(made))
        % {"count": len(made), "names": names},
    )


@require_GET
@login_required
def pnj_list(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The Plantillas, then the PNJ in play (enemies, allies) and the archived ones."""
    return _page(request, campaign_for_dj(user=request.user, slug=slug))


# -- Plantillas --------------------------------------------------------------------------


@require_POST
@login_required
def template_new(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_dj(user=request.user, slug=slug)
    form = TemplateForm(request.POST, auto_id=TEMPLATE_IDS)
    if form.is_valid() and (template := _template_saved(form, campaign)) is not None:
        messages.success(request, _("Template %(name)s added.") % {"name": template.name})
        return redirect("pnj_list", slug=campaign.slug)
    return _page(request, campaign, template_form=form)


def _template_saved(
    form: TemplateForm, campaign: Campaign, template: Template | None = None
) -> Template | None:
    """The Plantilla `form` (valid) says, saved; None with the service's refusal put on the
    form's fields."""
    try:
        return services.template_save(
            campaign=campaign,
            template=template,
            name=form.cleaned_data["name"],
            side=form.cleaned_data["side"],
            attributes=form.attributes(),
            powers=form.powers(),
            notes=form.cleaned_data["notes"],
        )
    except ValidationError as err:
        add_service_error(form, err)
        return None


@require_http_methods(["GET", "POST"])
@login_required
def template_edit(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Change a Plantilla; the PNJ already made from it keep what they were made with."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    template = _template(campaign, pk)
    form = TemplateForm(request.POST if request.method == "POST" else None, template=template)
    if (
        request.method == "POST"
        and form.is_valid()
        and (saved := _template_saved(form, campaign, template)) is not None
    ):
        messages.success(request, _("Template %(name)s saved.") % {"name": saved.name})
        return redirect("pnj_list", slug=campaign.slug)
    template.refresh_from_db()  # the name in the title as saved, whatever was typed
    copies = template.copies.count()  # archived ones too: deleting it leaves them all
    context = {
        "campaign": campaign,
        "template": template,
        "copies": copies,
        "form": form,
        "active": "pnj",
    }
    return render(request, "campaign/template_form.html", context)


@require_POST
@login_required
def template_copies(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Make copies of a Plantilla in one step (Bandido 1–3)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    template = _template(campaign, pk)
    form = CopiesForm(request.POST, template=template)
    if form.is_valid():
        try:
            made = services.pnj_create(
                campaign=campaign,
                template=template,
                count=form.cleaned_data["count"],
                actor=request.user,
                idempotency_key=idempotency_key(request),
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            _made(request, made)
            return redirect("pnj_list", slug=campaign.slug)
    return _page(request, campaign, refused_copies=(template.pk, form))


@require_POST
@login_required
def template_delete(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Forget a Plantilla; the PNJ made from it stay as they are."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    template = _template(campaign, pk)
    services.template_delete(template=template)
    messages.success(
        request,
        _("Template %(name)s deleted; the PNJ made from it stay.") % {"name": template.name},
    )
    return redirect("pnj_list", slug=campaign.slug)


# -- PNJ ---------------------------------------------------------------------------------


@require_POST
@login_required
def pnj_new(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """PNJ made by name, one or several (numbered), without a Plantilla."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    form = NewPnjForm(request.POST, auto_id=NEW_IDS)
    if form.is_valid():
        try:
            made = services.pnj_create(
                campaign=campaign,
                name=form.cleaned_data["name"],
                count=form.cleaned_data["count"],
                side=form.cleaned_data["side"],
                actor=request.user,
                idempotency_key=idempotency_key(request),
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            _made(request, made)
            return redirect("pnj_list", slug=campaign.slug)
    return _page(request, campaign, new_form=form)


@require_http_methods(["GET", "POST"])
@login_required
def pnj_edit(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """A PNJ's card (new scores go to its log) and what players see of it. Saved, back to
    where the DJ opened it (the board's card, the PNJ page: `next`), else to the board."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    back = local_next(request) or reverse("board", args=[campaign.slug])
    character = pnj_for_dj(campaign=campaign, pk=pk, archived=None)
    data = request.POST if request.method == "POST" else None
    form = PnjForm(data, campaign=campaign, character=character)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.pnj_update(
                character=character,
                name=form.cleaned_data["name"],
                attributes=form.attributes(),
                powers=form.powers(),
                notes=form.cleaned_data["notes"],
                actor=request.user,
                **form.settings(),
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": character.name})
            return HttpResponseRedirect(back)
    context = {
        "campaign": campaign,
        "form": form,
        "character": character,
        "active": "pnj",
        "back": back,
    }
    return render(request, "campaign/pnj_form.html", context)


@require_POST
@login_required
def pnj_archive(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Take a PNJ out of play; its log stays and it can be restored."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pnj_for_dj(campaign=campaign, pk=pk, archived=False)
    services.character_archive(character=character)
    messages.success(
        request,
        _("%(name)s archived: out of play, log kept. Restore it from the list below.")
        % {"name": character.name},
    )
    return redirect("pnj_list", slug=campaign.slug)


@require_POST
@login_required
def pnj_restore(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Bring an archived PNJ back into play."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pnj_for_dj(campaign=campaign, pk=pk, archived=True)
    services.character_restore(character=character)
    messages.success(request, _("%(name)s is back in play.") % {"name": character.name})
    return redirect("pnj_list", slug=campaign.slug)
