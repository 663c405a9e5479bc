"""The DJ's table, party side: time for everyone, rounds, a party Descanso, undo and void.

Each answers with every card and the board's panels (only a PJ's card when a void changed
that PJ alone), or, refused, with the reason next to the control that was used. Only the
campaign's DJ reaches these.
"""

from dataclasses import asdict

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.html import conditional_escape
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST
from django_htmx.http import reswap, retarget

from rules import RuleError

from .. import selectors, services, taps
from ..access import campaign_for_dj
from ..models import Campaign, Character, StateEvent
from ..numbers import whole, wholes
from ..present import lang
from ..present.board import party_who, watch_rows_blank
from ..present.events import event_label, void_refused
from ..requests import AuthedHttpRequest
from .answers import (
    AFTER_ACTION,
    CARDS,
    after_write,
    board_context,
    card_answer,
    idempotency_key,
    summaries,
    with_cursor,
)


def _render_board_part(
    request: AuthedHttpRequest,
    campaign: Campaign,
    *,
    toast: dict | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    """Every card and the panels: the answer to a campaign-wide action."""
    context = board_context(request, campaign)
    context.update({"toast": toast, "error": error})
    html = render_to_string(CARDS, context, request)
    html += render_to_string(AFTER_ACTION, context, request)
    return HttpResponse(html, status=status)


def party_refuse(
    request: AuthedHttpRequest,
    campaign: Campaign,
    message: str,
    status: int,
    *,
    slot: str = "time-error",
    also: str = "",
):
    """A refusal in the error line next to the control that was used (`slot`): the clock
    bar's, "Otro tiempo…"'s or the void form's. Nothing else on the page changes but what
    `also` carries out of band (the fight as it is now, for a pass that came too late)."""
    if not request.htmx:
        messages.error(request, message)
        return redirect("board", slug=campaign.slug)
    answer = HttpResponse(conditional_escape(message) + also, status=status)
    return reswap(retarget(answer, f"#{slot}"), "innerHTML")


def party_done(
    request: AuthedHttpRequest,
    campaign: Campaign,
    toasts: list[dict],
    *,
    character: Character | None = None,
) -> HttpResponse:
    """The answer to an action from the clock bar or the recent events: every card, or only
    `character`'s when the action changed that PJ alone (voiding one of its events), as the
    live news of the change says to every other page."""
    if character is not None and character.is_archived:
        character = None  # not on the board: the board is answered whole
    after_write(campaign)
    toast = toasts[-1] if toasts else None
    if toast is not None and len(toasts) > 1:
        toast = {**toast, "before": toasts[:-1]}
    if not request.htmx:
        for t in toasts:
            messages.success(request, t["text"])
        return redirect("board", slug=campaign.slug)
    if character is not None:
        answer = card_answer(request, campaign, character, toast=toast)
        answer = reswap(retarget(answer, f"#pj-{character.pk}"), "outerHTML")
        return with_cursor(answer, campaign, covers=[character.pk])
    return with_cursor(_render_board_part(request, campaign, toast=toast), campaign)


def _party_record(
    request: AuthedHttpRequest,
    campaign: Campaign,
    event: dict,
    *,
    watch: set[int],
    shifts: list[taps.Watch] | None = None,
) -> list[StateEvent]:
    """The party's time or Descanso, with the PJ who keep watch all along (`watch`) and,
    for a Descanso, by turns (`shifts`)."""
    return services.party_event(
        campaign=campaign,
        event=event,
        watch=frozenset(watch),
        shifts=[(w.character.pk, w.start, w.end) for w in shifts or ()],
        actor=request.user,
        idempotency_key=idempotency_key(request),
    )


def _watch_all_along(request: AuthedHttpRequest, characters: list[Character]) -> set[int]:
    """The PJ the form ticks as keeping watch all along: of `characters` (the PJ in play),
    or a ValidationError."""
    watch = wholes(request.POST.getlist("watch"))
    if watch is None or not set(watch) <= {c.pk for c in characters}:
        raise ValidationError(_("Unknown PJ."), code="invalid")
    return set(watch)


def _watches_refused(
    request: AuthedHttpRequest,
    campaign: Campaign,
    rows: list[taps.WatchRow],
    error: str = "",
) -> HttpResponse:
    """Watches by turns refused: nothing written, the watches' lines again with the reason
    beside each one that has one (`error`: the reason for them all). Without JavaScript the
    board opens "Otro tiempo…" with them."""
    if not request.htmx:
        request.session["watches"] = {
            "rows": [asdict(row) for row in rows],
            "error": error,
            "whole": request.POST.getlist("watch")[:50],
        }
        return redirect("board", slug=campaign.slug)
    context = {
        "characters": selectors.board_characters(campaign=campaign),
        "watch_rows": rows,
        "watches_error": error,
    }
    html = render_to_string("campaign/board/_watches.html", context, request)
    return reswap(retarget(HttpResponse(html, status=422), "#watches"), "innerHTML")


def watches_kept(request: AuthedHttpRequest) -> dict:
    """What a refused watch left for the board without JavaScript (views.board.board): the
    lines as typed, their reasons, who was ticked; {} when nothing was."""
    kept = request.session.pop("watches", None)
    if not isinstance(kept, dict):
        return {}
    rows = [taps.WatchRow(**row) for row in kept.get("rows", []) if isinstance(row, dict)]
    return {
        "watch_rows": rows,
        "watches_error": kept.get("error", ""),
        "watch_whole": {pk for pk in wholes(kept.get("whole", [])) or []},
        "watches_open": True,
    }


@require_POST
@login_required
def party_time(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Time passes for every PJ: a round, minutes, hours or days, with an activity."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    slot = (
        "other-time-error"
        if (request.htmx.trigger or "").startswith("other-time")
        else "time-error"
    )
    characters = selectors.board_characters(campaign=campaign)
    rows = taps.watch_rows(request.POST, len(watch_rows_blank(characters)))
    if not all(row.blank for row in rows):
        message = _("Watches by turns are for the party Descanso: tap “Party Descanso (8 h)”.")
        return _watches_refused(request, campaign, rows, message)
    try:
        event = taps.time_event(request.POST)
        watch = _watch_all_along(request, characters)
        records = _party_record(request, campaign, event, watch=watch)
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 422, slot=slot)
    except RuleError as err:
        return party_refuse(request, campaign, _party_error(err), 422, slot=slot)
    return party_done(request, campaign, summaries(records))


def _party_error(err: RuleError) -> str:
    """A campaign-wide refusal names the PJ (the note event_record adds) and the reason."""
    notes = [n.removeprefix("PJ: ") for n in getattr(err, "__notes__", [])]
    message = err.message(lang())
    return f"{', '.join(notes)}: {message}" if notes else message


@require_POST
@login_required
def next_round(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """A round passes. A PJ in Shock grave whose turn end was not recorded gets it first,
    so its end-of-turn TS VOL is never skipped; the toast says so."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    try:
        records = services.round_pass(
            campaign=campaign, actor=request.user, idempotency_key=idempotency_key(request)
        )
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 409)
    except RuleError as err:
        return party_refuse(request, campaign, _party_error(err), 422)
    return party_done(request, campaign, summaries(records))


@require_POST
@login_required
def party_descanso(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The party sleeps 8 hours: a Descanso for each PJ (one per game day), but those who
    keep watch, who stay awake those hours."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    slot = (
        "other-time-error"
        if (request.htmx.trigger or "").startswith("other-time")
        else "time-error"
    )
    characters = selectors.board_characters(campaign=campaign)
    rows = taps.watch_rows(request.POST, len(watch_rows_blank(characters)))
    try:
        watch = _watch_all_along(request, characters)
        shifts = taps.watches_read(rows, characters, whole=watch)
        if any(row.error for row in rows):
            return _watches_refused(request, campaign, rows)
        descanso = {"kind": "descanso"}
        records = _party_record(request, campaign, descanso, watch=watch, shifts=shifts)
    except services.WatchRefused as err:
        for row in rows:
            row.error = " ".join(err.messages) if row.pj == str(err.pk) else ""
        return _watches_refused(request, campaign, rows)
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 422, slot=slot)
    except RuleError as err:
        return party_refuse(request, campaign, _party_error(err), 422, slot=slot)
    return party_done(request, campaign, summaries(records))


@require_POST
@login_required
def undo(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Void the campaign's latest event ("Deshacer"), if it is still the one the page showed."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    latest = selectors.latest_event(campaign=campaign)
    expected = request.POST.get("seq", "")
    if latest is None:
        return party_refuse(request, campaign, _("There is nothing to undo."), 409)
    if latest.session is not None and latest.session.ended_at is not None:
        return party_refuse(
            request,
            campaign,
            _(
                "The latest event is from session %(number)s, which has ended: void it from "
                "its page in the history if it must go."
            )
            % {"number": latest.session.number},
            409,
        )
    if expected and expected != str(latest.seq):
        return party_refuse(
            request,
            campaign,
            _("The latest event changed meanwhile (now #%(seq)s): look again before undoing.")
            % {"seq": latest.seq},
            409,
        )
    return _void(request, campaign, latest, _("Undone from the board"), tap=True)


@require_POST
@login_required
def void(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Void any event of the log (its number in `seq`), with a reason."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    seq = whole(request.POST.get("seq"), digits=9)
    event = None
    if seq is not None:
        event = selectors.event_by_seq(campaign=campaign, seq=seq)
    if event is None:
        return party_refuse(request, campaign, _("No such event."), 404, slot="void-error")
    try:
        reason = taps.void_reason(request.POST)
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 422, slot="void-error")
    return _void(request, campaign, event, reason, slot="void-error", undo=False)


def _void(
    request: AuthedHttpRequest,
    campaign: Campaign,
    event: StateEvent,
    reason: str,
    *,
    slot: str = "time-error",
    undo: bool = True,
    tap: bool = False,
):
    """Void `event` (Deshacer: with the rest of the tap that recorded it, `tap`; the PNJ
    that tap made leave the board, archived)."""
    together = selectors.tap_of(event=event) if tap else [event]
    try:
        if tap:
            voided, archived = services.tap_undo(events=together, actor=request.user, reason=reason)
        else:
            services.events_void(events=together, actor=request.user, reason=reason)
            voided, archived = together, []
    except services.EventVoidRefused as refused:
        return party_refuse(request, campaign, void_refused(refused), 409, slot=slot)
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 409, slot=slot)
    words = (
        _("Undone: #%(seq)s %(who)s: %(what)s") if undo else _("Voided: #%(seq)s %(who)s: %(what)s")
    )
    names = selectors.character_names(campaign=campaign)
    in_play = selectors.in_play_ids(campaign=campaign)
    toasts = []
    for done in sorted(voided, key=lambda e: e.seq):
        text = words % {
            "seq": done.seq,
            "who": party_who(done, names, in_play),
            "what": event_label(done.event, names),  # the DJ's: one taken out, by name
        }
        toasts.append({"title": text, "lines": [], "text": text})
    if archived:
        text = ngettext(
            "Undone: %(names)s leaves the board (archived, kept in the history)",
            "Undone: %(names)s leave the board (archived, kept in the history)",
            len(archived),
        ) % {"names": ", ".join(c.name for c in archived)}
        toasts.append({"title": text, "lines": [], "text": text})
    # One event: its card answers; a tap of several, or PNJ gone: the whole board does.
    only = event.character if len(together) == 1 and not archived else None
    return party_done(request, campaign, toasts, character=only)
