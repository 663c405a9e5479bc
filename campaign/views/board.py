"""The DJ's table: the board of condition cards, and every action taken from it.

A view parses the tap (campaign.taps), records the event (campaign.services; the rules
decide) and answers with the fresh card plus out-of-band pieces (toast, clock, recent
events). htmx requests get fragments; plain form posts are redirected to the board.
Only the campaign's DJ reaches any of this: everyone else gets 404.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import rules
from rules import RuleError
from rules.vocab import DERIVED_SPECIALS, ESPECIFICOS, GRADES

from .. import selectors, services, taps
from ..access import campaign_for_dj, character_for_dj
from ..live import parts
from ..models import Campaign, CatalogueEntry, Character, StateEvent
from ..numbers import wholes
from ..present import board as present_board
from ..present import lang
from ..present.calculator import breakdown
from ..present.figures import score_words
from ..requests import AuthedHttpRequest
from .answers import (
    TEMPLATE,
    after_write,
    board_context,
    card_answer,
    idempotency_key,
    summaries,
    with_cursor,
)
from .party import party_refuse, watches_kept

# The second taps: the choices each asks for (templates/campaign/board/ask/), "More
# actions" and a PNJ's "Whole card", the parts of a card asked for when they open.
ASK_CHOICES = {
    "emocion-leve": "emocion",
    "emocion-grave": "emocion",
    "emocion-persistente": "emocion",
    "afeccion": "afeccion",
    "especifico": "especifico",
    "heal": "healer",
    "surgery": "healer",
}
LAZY_PARTS = {"more": "campaign/board/_more.html", "whole": "campaign/board/_pnj_whole.html"}
ASK_KINDS = (*ASK_CHOICES, *LAZY_PARTS)


# -- reading -----------------------------------------------------------------------------


def _state(character: Character) -> dict:
    """A PJ's public state from the snapshot already loaded with it."""
    return rules.public_state(character.snapshot.state)


@require_GET
@login_required
def board(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The DJ's dashboard: every PJ's card, the clock, the time bar, recent events."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    context = board_context(request, campaign)
    # A refused "Empezar sesión" (setup.session_start): what was typed, and why, by its field.
    context["session_start"] = request.session.pop("session_start", None)
    # A refused "Terminar sesión" (setup.session_end): the recap and note typed, and why.
    context["session_end"] = request.session.pop("session_end", None)
    # Refused watches by turns (party.party_descanso): "Otro tiempo…" open, with them.
    context.update(watches_kept(request))
    return render(request, TEMPLATE, context)


@require_GET
@login_required
def card(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """One PJ's card, for a live refresh."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = character_for_dj(campaign=campaign, pk=pk)
    return card_answer(request, campaign, character)


@require_GET
@login_required
def refresh(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """What a live change asks for, where the stream did not carry it: the named cards (or
    all) and the panels, each replacing the element with its id."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    pks = wholes(request.GET.getlist("pj"))
    if pks is None:
        return HttpResponseBadRequest(_("Unknown PJ."))
    if request.GET.get("all") == "1":
        pks = [c.pk for c in selectors.board_characters(campaign=campaign)]
        pks += [c.pk for c in selectors.board_pnj(campaign=campaign)]
    keys = parts.dj_keys(pks)
    rendered = parts.render(campaign.pk, lang(), keys)
    found = [rendered[key] for key in keys]  # a DJ's parts: all HTML
    return HttpResponse("".join(html for html in found if isinstance(html, str)))


# -- acting on one PJ --------------------------------------------------------------------


def _record(
    request: AuthedHttpRequest,
    campaign: Campaign,
    action: taps.Action,
    character: Character | None,
) -> StateEvent:
    with transaction.atomic():
        record = services.event_record(
            campaign=campaign,
            character=character,
            event=action.event,
            actor=request.user,
            idempotency_key=idempotency_key(request),
            secret=bool(action.secret_names),
        )
        if action.secret_names and character is not None:
            services.character_secrets_set(character=character, add=action.secret_names, remove=())
    return record


def _parse(request: AuthedHttpRequest, campaign: Campaign, character: Character) -> taps.Action:
    data = request.POST
    action = data.get("action", "")
    if action == "suffer":
        parsed = taps.suffer_event(data, especificos=campaign.especificos)
        event = parsed.event
        if event["type"] == "afeccion" and "source" not in event:
            if not character.snapshot.state["afflictions"]:
                raise ValidationError(_("Choose the disease or poison, or write a new one."))
        return parsed
    if action in ("heal", "surgery"):
        in_play = selectors.board_characters(campaign=campaign)
        healers = _healers(in_play + selectors.board_pnj(campaign=campaign), character)
        return taps.Action(
            taps.treatment_event(data, kind=action, character=character, healers=healers)
        )
    if action == "roll":
        return taps.roll_save(check=taps.check_name(data), character=character)
    if action in ("success", "failure"):
        check = taps.check_name(data)
        return taps.Action({"kind": "save", "check": check, "success": action == "success"})
    if action == "dismiss":
        return taps.Action({"kind": "dismiss", "check": taps.check_name(data)})
    if action in ("safe", "turn_end"):
        return taps.Action({"kind": action})
    if action == "progress":
        return taps.Action({"kind": "progress", "type": "afeccion"})
    if action in ("wake", "wake_forced"):
        return taps.Action({"kind": "wake", "forced": action == "wake_forced"})
    if action == "sleep":
        return taps.Action(taps.sleep_event(data))
    if action == "recover":
        return taps.Action(taps.recover_event(data))
    if action == "special":
        return taps.special_event(data)
    if action == "time":
        return taps.Action(taps.time_event(data))
    raise UnknownAction(action)


def _healers(characters: list[Character], patient: Character) -> list[Character]:
    """Who may give `patient` a Curación: the others in play who can act, of `characters`
    (PJ first, then PNJ): the PJ and their allies; for an enemy, its own side too."""
    enemy = Character.Side.ENEMIGO
    return [
        c
        for c in characters
        if c.pk != patient.pk
        and c.snapshot.state["can_act"]
        and (c.side != enemy or patient.side == enemy)
    ]


class UnknownAction(ValueError):
    pass


@require_POST
@login_required
def act(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Record one event for one PJ from a tap on its card."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = character_for_dj(campaign=campaign, pk=pk)
    if request.POST.get("action") == "roll_all":
        return _roll_all(request, campaign, character)
    try:
        action = _parse(request, campaign, character)
        record = _record(request, campaign, action, character)
    except UnknownAction:
        return _refuse(request, campaign, character, _("Unknown action."), status=400)
    except ValidationError as err:
        if request.POST.get("action") == "special":  # said by the E.Esp's name field
            slot = f"pj-{character.pk}-special-error"
            return party_refuse(request, campaign, " ".join(err.messages), 422, slot=slot)
        return _refuse(request, campaign, character, " ".join(err.messages), status=422)
    except RuleError as err:
        return _refuse(request, campaign, character, err.message(lang()), status=422)
    after_write(campaign)
    toast = summaries([record], [action.roll])[0]
    if not request.htmx:
        messages.success(request, toast["text"])
        return redirect("board", slug=campaign.slug)
    return with_cursor(
        card_answer(request, campaign, character, toast=toast), campaign, covers=[character.pk]
    )


def _roll_all(request: AuthedHttpRequest, campaign: Campaign, character: Character) -> HttpResponse:
    """ "Tirar todas": the PJ's pending checks rolled in one tap, each its own event."""
    try:
        done = services.checks_roll_all(
            character=character, actor=request.user, idempotency_key=idempotency_key(request)
        )
    except ValidationError as err:
        return _refuse(request, campaign, character, " ".join(err.messages), status=422)
    except RuleError as err:
        return _refuse(request, campaign, character, err.message(lang()), status=422)
    after_write(campaign)
    toasts = summaries(done.records, done.rolls)
    # One line for the tap, the dice in it; then every roll's trail (the line opens whole on
    # a tap), each also in Últimos eventos and the history.
    toast = {
        **toasts[-1],
        "lines": [line for t in toasts for line in t["lines"]],
        "note": roll_all_note(done, character),
    }
    # A repeated tap's first events may hold no roll (a key a client made up): no die. Each
    # die is said against its check's attribute and score ("4 contra FUE 5").
    known = [
        (roll[0], f"{score_words(rules.CHECKS[record.event['check']][0])} {roll[1]}")
        for record, roll in zip(done.records, done.rolls, strict=True)
        if roll is not None
    ]
    if known:
        summary = ngettext(
            "Roll them all: %(n)s roll (1d6 = %(dice)s)",
            "Roll them all: %(n)s rolls (1d6 = %(dice)s)",
            len(known),
        ) % {"n": len(known), "dice": dice_words(known)}
        toast["title"] = format_html("{}: {}", character.name, summary)
    if not request.htmx:
        for t in toasts:
            messages.success(request, t["text"])
        if toast["note"]:
            messages.info(request, toast["note"])
        return redirect("board", slug=campaign.slug)
    return with_cursor(
        card_answer(request, campaign, character, toast=toast), campaign, covers=[character.pk]
    )


def dice_words(rolls: list[tuple[int, str]]) -> str:
    """(die, "FUE 6") rolls in order, each run against one score said once: a pile of TS FUE
    then one of TS VOL reads "3, 2 contra FUE 6; 1, 5 contra VOL 2"."""
    runs: list[tuple[str, list[int]]] = []
    for die, score in rolls:
        if runs and runs[-1][0] == score:
            runs[-1][1].append(die)
        else:
            runs.append((score, [die]))
    return "; ".join(
        _("%(dice)s against %(score)s") % {"dice": ", ".join(map(str, dice)), "score": score}
        for score, dice in runs
    )


def roll_all_note(done: services.RolledAll, character: Character) -> str:
    """Why a "Tirar todas" stopped with checks still waiting ("" when none is left)."""
    if not done.left:
        return ""
    words = {
        "changed": _("Stopped: the last roll changed %(name)s."),
        "no_score": _("Stopped: %(name)s has no score for the next check."),
        "limit": _("Stopped after %(max)s rolls: tap again."),
    }
    why = words.get(done.stopped, words["changed"]) % {
        "name": character.name,
        "max": services.ROLL_ALL_MAX,
    }
    left = ngettext("%(left)s still to roll.", "%(left)s still to roll.", done.left)
    return f"{why} {left % {'left': done.left}}"


def _refuse(
    request: AuthedHttpRequest,
    campaign: Campaign,
    character: Character,
    message: str,
    *,
    status: int,
) -> HttpResponse:
    """Nothing was recorded: show why on the card (htmx) or on the board. The answer says
    the cursor it reflects, so the live news of a change it already shows (another tab's,
    which is often why the tap was refused) does not replace the card and wipe the reason."""
    if not request.htmx:
        messages.error(request, message)
        return redirect("board", slug=campaign.slug)
    campaign.refresh_from_db(fields=["change_cursor"])
    answer = card_answer(request, campaign, character, error=message, status=status)
    return with_cursor(answer, campaign, covers=[character.pk])


@require_POST
@login_required
def catch_up(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Bring a PJ behind the party level with it, the time passing as the DJ says."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = character_for_dj(campaign=campaign, pk=pk)
    try:
        records = services.catch_up(
            character=character,
            how=request.POST.get("how", ""),
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        return _refuse(request, campaign, character, " ".join(err.messages), status=422)
    except RuleError as err:
        return _refuse(request, campaign, character, err.message(lang()), status=422)
    after_write(campaign)
    toasts = summaries(records)
    toast = {**toasts[-1], "before": toasts[:-1]}
    if not request.htmx:
        for t in toasts:
            messages.success(request, t["text"])
        return redirect("board", slug=campaign.slug)
    return with_cursor(
        card_answer(request, campaign, character, toast=toast), campaign, covers=[character.pk]
    )


@require_POST
@login_required
def secret(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Keep an E.Esp or Afección source from the player, or show it again."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = character_for_dj(campaign=campaign, pk=pk)
    name = (request.POST.get("name") or "").strip()
    hide = request.POST.get("hide") == "1"
    state = _state(character)
    if name not in state["specials"]:
        return _refuse(request, campaign, character, _("That name is not on this PJ."), status=422)
    services.character_secrets_set(
        character=character, add=[name] if hide else [], remove=[] if hide else [name]
    )
    if not request.htmx:
        return redirect("board", slug=campaign.slug)
    return card_answer(request, campaign, character)


@require_http_methods(["GET", "POST"])
@login_required
def ask(request: AuthedHttpRequest, slug: str, pk: int, kind: str) -> HttpResponse:
    """The second tap: the choice an action needs (variant, source, healer...); or a part
    of a card asked for when it opens ("More actions", a PNJ's "Whole card").

    Without JavaScript a box's button posts its card's form here (a form of the board holds
    the box, so a GET would put its CSRF token in the address): the post writes nothing and
    is sent on to the chooser's own address."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    character = character_for_dj(campaign=campaign, pk=pk)
    if kind not in ASK_KINDS or (kind == "whole" and not character.is_pnj):
        return HttpResponseBadRequest(_("Unknown action."))
    if request.method == "POST":
        # Only a grade goes on (anything else would only make the address long).
        grade = request.POST.get("grade")
        query = urlencode({"grade": grade}) if grade in GRADES else ""
        return redirect(f"{request.path}?{query}" if query else request.path)
    view = selectors.board_view(campaign=campaign, session=False)
    characters, catalogue = view.characters, view.catalogue
    context = {
        **present_board.panels(view),
        "card": present_board.card(view, character),
        "ask": kind,
        "grade": request.GET.get("grade", "leve"),
        "sources": [e for e in catalogue.values() if e.kind != CatalogueEntry.Kind.ESPECIAL],
        "healers": _healers(characters + view.pnj, character),
        "especificos": ESPECIFICOS,
        "regeneracion": "regeneracion" in (character.powers or []),
        "special_names": sorted(
            name
            for name, e in catalogue.items()
            if e.kind == CatalogueEntry.Kind.ESPECIAL and name not in DERIVED_SPECIALS
        ),
    }
    if kind in LAZY_PARTS:
        piece = LAZY_PARTS[kind]
    else:
        piece = "campaign/board/_ask.html"
        context["choice"] = f"campaign/board/ask/_{ASK_CHOICES[kind]}.html"
    if request.htmx:
        return render(request, piece, context)
    return render(request, "campaign/board_ask.html", {**context, "piece": piece})


@require_GET
@login_required
def calculator(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The modifier of one action: PJ, attribute, intent and situational modifiers."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    characters = selectors.board_characters(campaign=campaign)
    pnj = selectors.board_pnj(campaign=campaign)
    context = {
        "campaign": campaign,
        "characters": characters,
        "pnj": pnj,
        "attribute_choices": taps.CALCULATOR_ATTRIBUTES,
    }
    try:
        query = taps.calculator_query(request.GET, characters + pnj)
        context["result"] = breakdown(query) if query is not None else None
    except ValidationError as err:
        context["calc_error"] = " ".join(err.messages)
    template = "campaign/board/_calc_result.html" if request.htmx else TEMPLATE
    if not request.htmx:
        context = {**board_context(request, campaign), **context}
    return render(request, template, context)
