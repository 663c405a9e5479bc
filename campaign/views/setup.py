"""Setting a campaign up: its settings, its PJ, its catalogue, and game sessions.

Only the campaign's DJ reaches any of this (everyone else gets 404). Forms post and
redirect; bad input re-renders the form with its errors (the session bar's go back to the
board with them) and writes nothing.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import selectors, services
from ..access import campaign_for_dj, pj_for_dj
from ..forms import (
    CampaignForm,
    CatalogueEntryForm,
    CharacterForm,
    SessionStartForm,
    add_service_error,
    powers_shown,
    scores_in_order,
)
from ..models import Campaign, CatalogueEntry, Character
from ..requests import AuthedHttpRequest
from .history import note_posted, recap_posted


def _data(request: AuthedHttpRequest):
    """The posted data for a form, None (unbound) on GET."""
    return request.POST if request.method == "POST" else None


# -- campaign settings -------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def campaign_settings(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The campaign's name any time; its options until the log has a game event."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    locked = selectors.campaign_options_locked(campaign=campaign)
    initial = {
        "name": campaign.name,
        "players_see_party": campaign.players_see_party,
        **campaign.rule_options(),
    }
    form = CampaignForm(_data(request), initial=initial, options_locked=locked)
    if request.method == "POST" and form.is_valid():
        try:
            services.campaign_update(
                campaign=campaign,
                name=form.cleaned_data["name"],
                players_see_party=form.cleaned_data["players_see_party"],
                **form.cleaned_options(),
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("Settings saved."))
            return redirect("campaign_settings", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "locked": locked, "active": "settings"}
    return render(request, "campaign/settings.html", context)


# -- PJ ----------------------------------------------------------------------------------


def _character_form(
    request: AuthedHttpRequest, campaign: Campaign, character: Character | None = None
) -> CharacterForm:
    return CharacterForm(
        _data(request),
        campaign=campaign,
        character=character,
        players=selectors.player_choices(campaign=campaign),
    )


@require_GET
@login_required
def character_list(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The campaign's PJ: the active ones with Edit and Archive, the archived ones."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    context = {
        "campaign": campaign,
        "characters": [
            (c, scores_in_order(c.attributes or {}), powers_shown(c.powers or []))
            for c in selectors.character_list(campaign=campaign)
        ],
        "archived": selectors.character_list(campaign=campaign, archived=True),
        "active": "pj",
    }
    return render(request, "campaign/characters.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def character_new(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Add a PJ: its log starts on the party's clock with its scores."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    form = _character_form(request, campaign)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.character_create(
                campaign=campaign,
                name=form.cleaned_data["name"],
                player=form.cleaned_data["player"],
                attributes=form.attributes(),
                powers=form.powers(),
                notes=form.cleaned_data["notes"],
                actor=request.user,
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("%(name)s added.") % {"name": character.name})
            return redirect("character_list", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "character": None, "active": "pj"}
    return render(request, "campaign/character_form.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def character_edit(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Change a PJ; new scores go to its log as an `attributes` event."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk, archived=None)
    form = _character_form(request, campaign, character)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.character_update(
                character=character,
                name=form.cleaned_data["name"],
                player=form.cleaned_data["player"],
                player_was=character.player,
                attributes=form.attributes(),
                powers=form.powers(),
                notes=form.cleaned_data["notes"],
                actor=request.user,
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": character.name})
            return redirect("character_list", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "character": character, "active": "pj"}
    return render(request, "campaign/character_form.html", context)


@require_POST
@login_required
def character_archive(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Hide a PJ from the board; its log stays and it can be restored."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk, archived=False)
    services.character_archive(character=character)
    messages.success(
        request,
        _("%(name)s archived: off the board, log kept. Restore it from the list below.")
        % {"name": character.name},
    )
    return redirect("character_list", slug=campaign.slug)


@require_POST
@login_required
def character_restore(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Bring an archived PJ back to the board."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = pj_for_dj(campaign=campaign, pk=pk, archived=True)
    services.character_restore(character=character)
    messages.success(request, _("%(name)s is back on the board.") % {"name": character.name})
    return redirect("character_list", slug=campaign.slug)


# -- catalogue ---------------------------------------------------------------------------


def _catalogue_entry(campaign: Campaign, pk: int) -> CatalogueEntry:
    entry = selectors.catalogue_entry(campaign=campaign, pk=pk)
    if entry is None:
        raise Http404("No such catalogue entry.")
    return entry


@require_http_methods(["GET", "POST"])
@login_required
def catalogue(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The campaign's E.Esp, diseases and poisons by kind; the form to add one."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    form = CatalogueEntryForm(_data(request), campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            entry = services.catalogue_entry_save(
                campaign=campaign,
                name=form.cleaned_data["name"],
                kind=form.cleaned_data["kind"],
                **form.texts(),
            )
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("%(name)s added to the catalogue.") % {"name": entry.name})
            return redirect(reverse("catalogue", args=[campaign.slug]) + f"#entry-{entry.pk}")
    context = {
        "campaign": campaign,
        "groups": selectors.catalogue_by_kind(campaign=campaign),
        "form": form,
        "active": "catalogue",
    }
    return render(request, "campaign/catalogue.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def catalogue_edit(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Change a catalogue entry's texts (its name stays: the log uses it)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    entry = _catalogue_entry(campaign, pk)
    form = CatalogueEntryForm(_data(request), campaign=campaign, entry=entry)
    if request.method == "POST" and form.is_valid():
        try:
            services.catalogue_entry_save(campaign=campaign, entry=entry, **form.texts())
        except ValidationError as err:
            add_service_error(form, err)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": entry.name})
            return redirect(reverse("catalogue", args=[campaign.slug]) + f"#entry-{entry.pk}")
    context = {"campaign": campaign, "entry": entry, "form": form, "active": "catalogue"}
    return render(request, "campaign/catalogue_edit.html", context)


@require_POST
@login_required
def catalogue_delete(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Remove an entry from the catalogue; the log keeps the name."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    entry = _catalogue_entry(campaign, pk)
    services.catalogue_entry_delete(entry=entry)
    messages.success(request, _("%(name)s removed from the catalogue.") % {"name": entry.name})
    return redirect("catalogue", slug=campaign.slug)


# -- game sessions -----------------------------------------------------------------------


def local_next(request: AuthedHttpRequest) -> str:
    """The page a form came from (its `next`, posted or in the link that opened it), when it
    is a path of this site; else ""."""
    target = request.POST.get("next", "") or request.GET.get("next", "")
    # A path of this site only: redirect() would take "0" or "board" for a view's name.
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _back(request: AuthedHttpRequest, campaign: Campaign) -> HttpResponse:
    """To the page the form came from, when it is on this site; else to the board."""
    target = local_next(request)
    return HttpResponseRedirect(target) if target else redirect("board", slug=campaign.slug)


@require_POST
@login_required
def session_start(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Open the campaign's next game session (numbered automatically)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    form = SessionStartForm(request.POST)
    if not form.is_valid():
        # Shown by the title field when the board comes back, with what was typed.
        request.session["session_start"] = {
            "title": (request.POST.get("title") or "")[:1000],
            "error": " ".join(map(str, form.errors.get("title", [])))
            or _("Check the session title."),
        }
        return _back(request, campaign)
    try:
        session = services.session_start(campaign=campaign, title=form.cleaned_data["title"])
    except ValidationError as err:
        for message in err.messages:
            messages.error(request, message)
    else:
        messages.success(request, _("Session %(number)s started.") % {"number": session.number})
    return _back(request, campaign)


@require_POST
@login_required
def session_end(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """End the open game session, with an optional recap (players read it) and an optional
    note of the DJ's own (no player does)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    session = selectors.open_session(campaign=campaign)
    if session is None:
        messages.error(request, _("There is no open session to end."))
        return _back(request, campaign)
    # Both as the session's page takes them (history.session_recap, session_note).
    recap, recap_refused = recap_posted(request)
    note, note_refused = note_posted(request)
    if recap_refused or note_refused:
        # Shown by its field when the board comes back, the question open, nothing lost.
        request.session["session_end"] = {
            "recap": recap,
            "dj_note": note,
            "error": recap_refused,
            "note_error": note_refused,
        }
        return _back(request, campaign)
    try:
        services.session_end(session=session, recap=recap, dj_note=note)
    except ValidationError as err:
        for message in err.messages:
            messages.error(request, message)
    else:
        messages.success(
            request,
            _("Session %(number)s ended. Here is what each PJ carries into the next one.")
            % {"number": session.number},
        )
        return redirect("session_sheets", slug=campaign.slug, number=session.number)
    return _back(request, campaign)
