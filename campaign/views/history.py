"""Session history: the audit trail, one event's before and after, recaps, the end-of-session
sheets, printable E.Alt cards, and a session's log as Markdown or CSV.

The DJ sees everything. A player sees the history of their own PJ (and the campaign-wide
events), without what the DJ keeps secret; anyone else gets 404.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import rules
from rules.vocab import TYPES

from .. import selectors, services, taps
from ..access import campaign_for_dj, membership_for
from ..history import audit as history
from ..history import exports
from ..limits import RECAP_MAX
from ..models import Campaign, GameSession, Membership, StateEvent
from ..numbers import whole
from ..present import lang
from ..present.card import build
from ..present.events import void_refused
from ..present.figures import clock_parts
from ..reference import render_recap
from ..requests import AuthedHttpRequest

# A recap is the DJ's own Markdown; raw HTML in it is shown as text.


def _text_posted(request: AuthedHttpRequest, field: str, too_long: str) -> tuple[str, str]:
    """A session's long text as a form sent it, as the session keeps it (no NUL: PostgreSQL
    refuses it in a text column; Unix line ends), and why it cannot be kept ("" when it
    can): `too_long`, with the most it may hold."""
    text = (request.POST.get(field) or "").replace("\r\n", "\n").replace("\x00", "").strip()
    if len(text) <= RECAP_MAX:
        return text, ""
    return text, too_long % {"max": number_format(RECAP_MAX, force_grouping=True)}


def recap_posted(request: AuthedHttpRequest) -> tuple[str, str]:
    """The recap a form sent, and why it cannot be kept ("" when it can)."""
    return _text_posted(request, "recap", _("The recap is too long: %(max)s characters at most."))


def note_posted(request: AuthedHttpRequest) -> tuple[str, str]:
    """The DJ's note a form sent, and why it cannot be kept ("" when it can)."""
    return _text_posted(
        request, "dj_note", _("The DJ's note is too long: %(max)s characters at most.")
    )


def _viewer(request: AuthedHttpRequest, slug: str) -> tuple[Membership, history.Viewer]:
    membership = membership_for(user=request.user, slug=slug)
    viewer = history.viewer_for(
        campaign=membership.campaign,
        user=request.user,
        is_dj=membership.role == Membership.Role.DJ,
    )
    return membership, viewer


def _names(campaign: Campaign) -> dict[int, str]:
    return selectors.character_names(campaign=campaign)


def _page(request: AuthedHttpRequest, events) -> tuple[list[StateEvent], dict]:
    """A window of the events: from `desde` (a seq, exclusive) on, or the last ones."""
    after = whole(request.GET.get("desde"), digits=11)
    return history.page(events, after=after, last=request.GET.get("final") == "1")


def _timeline_context(request, membership, viewer, session=None) -> dict:
    campaign = membership.campaign
    names = _names(campaign)
    pj = whole(request.GET.get("pj"), digits=11)
    if pj is not None and (pj not in names or (not viewer.is_dj and pj not in viewer.characters)):
        pj = None
    type_ = request.GET.get("tipo") if request.GET.get("tipo") in TYPES else None
    events = history.events_for(
        campaign=campaign,
        viewer=viewer,
        session=session,
        character=selectors.character_of(campaign=campaign, pk=pj) if pj else None,
        type_=type_,
    )
    window, nav = _page(request, events)
    code = lang()
    choices = [
        (pk, name)
        for pk, name in sorted(names.items(), key=lambda item: item[1])
        if viewer.is_dj or pk in viewer.characters
    ]
    return {
        "campaign": campaign,
        "membership": membership,
        "is_dj": viewer.is_dj,
        "rows": history.rows(campaign=campaign, events=window, viewer=viewer, names=names),
        "nav": nav,
        "pj": pj,
        "type": type_,
        "pj_choices": choices,
        "type_choices": [(t, rules.texts.TYPE_LABELS[t][code]) for t in TYPES],
        "filters": "&".join(
            part for part in (f"pj={pj}" if pj else "", f"tipo={type_}" if type_ else "") if part
        ),
    }


@require_GET
@login_required
def campaign_history(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Every event of the campaign the viewer may read, with its sessions listed above."""
    membership, viewer = _viewer(request, slug)
    context = _timeline_context(request, membership, viewer)
    before = whole(request.GET.get("antes"), digits=9)
    context["sessions"], context["older_sessions"] = selectors.sessions_newest_first(
        campaign=membership.campaign, before=before
    )
    context["sessions_before"] = before
    context["active"] = "history"
    return _live_or_page(request, "campaign/history.html", context)


def _live_or_page(request: AuthedHttpRequest, template: str, context: dict) -> HttpResponse:
    """The page, or for its live news (static/js/history.js asks its own address as an htmx
    request) only the parts that change: the same reads, for the same viewer."""
    live = bool(request.htmx)
    response = render(request, f"{template}#live" if live else template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _session(membership: Membership, number: int) -> GameSession:
    session = selectors.session_by_number(campaign=membership.campaign, number=number)
    if session is None:
        raise Http404("No such session.")
    return session


@require_GET
@login_required
def session_detail(request: AuthedHttpRequest, slug: str, number: int) -> HttpResponse:
    """One game session: its recap, its timeline picture and every event in it."""
    membership, viewer = _viewer(request, slug)
    session = _session(membership, number)
    context = _timeline_context(request, membership, viewer, session)
    context.update(session=session, active="history")
    if not request.htmx:  # the live parts hold neither the recap, the note nor their forms
        context.update(
            recap=render_recap(session.recap) if session.recap else "",
            recap_max=RECAP_MAX,
            # A recap or note refused (session_recap, session_note): what was typed, and why.
            recap_refused=request.session.pop("session_recap", None) if viewer.is_dj else None,
            note_refused=request.session.pop("session_note", None) if viewer.is_dj else None,
            # The DJ's own note: in the DJ's page only, never a player's.
            dj_note=render_recap(session.dj_note) if viewer.is_dj and session.dj_note else "",
        )
    return _live_or_page(request, "campaign/session.html", context)


@require_POST
@login_required
def session_recap(request: AuthedHttpRequest, slug: str, number: int) -> HttpResponse:
    """The DJ writes or edits a session's recap (Markdown)."""
    membership, viewer = _viewer(request, slug)
    if not viewer.is_dj:
        raise Http404("No such session.")
    session = _session(membership, number)
    recap, refused = recap_posted(request)
    if refused:
        request.session["session_recap"] = {"recap": recap, "error": refused}
    else:
        services.session_recap_set(session=session, recap=recap)
        messages.success(request, _("Recap saved."))
    return redirect("session_detail", slug=slug, number=number)


@require_POST
@login_required
def session_note(request: AuthedHttpRequest, slug: str, number: int) -> HttpResponse:
    """The DJ writes or edits their own note on a session (Markdown; no player reads it)."""
    membership, viewer = _viewer(request, slug)
    if not viewer.is_dj:
        raise Http404("No such session.")
    session = _session(membership, number)
    note, refused = note_posted(request)
    if refused:
        request.session["session_note"] = {"dj_note": note, "error": refused}
    else:
        services.session_note_set(session=session, note=note)
        messages.success(request, _("Note saved."))
    return redirect("session_detail", slug=slug, number=number)


@require_GET
@login_required
def event_detail(request: AuthedHttpRequest, slug: str, seq: int) -> HttpResponse:
    """One event: what it did, and each PJ's state right before and right after it."""
    membership, viewer = _viewer(request, slug)
    campaign = membership.campaign
    event = history.event_for(campaign=campaign, viewer=viewer, seq=seq)
    if event is None:
        raise Http404("No such event.")
    return _event_page(request, campaign, viewer, event)


def _event_page(
    request: AuthedHttpRequest,
    campaign: Campaign,
    viewer: history.Viewer,
    event: StateEvent,
    *,
    void_error: str = "",
    reason: str = "",
    status: int = 200,
) -> HttpResponse:
    names = _names(campaign)
    found = history.rows(campaign=campaign, events=[event], viewer=viewer, names=names)
    if not found:  # a step of a fight this viewer may not know of (a hidden PNJ's lost turn)
        raise Http404("No such event.")
    row = found[0]
    changes = history.event_changes(
        event=event,
        viewer=viewer,
        catalogue=selectors.catalogue_by_name(campaign=campaign),
        especificos=campaign.especificos,
    )
    context = {
        "campaign": campaign,
        "row": row,
        "event": event,
        "changes": changes,
        "is_dj": viewer.is_dj,
        "active": "history",
        "void_error": void_error,
        "reason": reason,
    }
    return render(request, "campaign/event.html", context, status=status)


def _already_void(
    request: AuthedHttpRequest, campaign: Campaign, event: StateEvent
) -> HttpResponse:
    """Nothing to do: the event's page again, showing it void (not this page's stale copy)."""
    messages.info(request, _("This event is already void."))
    return redirect("event_detail", slug=campaign.slug, seq=event.seq)


@require_http_methods(["GET", "POST"])
@login_required
def event_void(request: AuthedHttpRequest, slug: str, seq: int) -> HttpResponse:
    """Void one event from its own page (any event of the log, however old), with a
    reason. A refusal shows under the form; done, the page shows the event voided. The
    address a refusal leaves in the address bar, opened again, is the event's page."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    event = history.event_for(campaign=campaign, viewer=history.Viewer(None), seq=seq)
    if event is None:
        raise Http404("No such event.")
    if request.method == "GET":
        return redirect("event_detail", slug=campaign.slug, seq=event.seq)
    if event.is_void:  # a second submit, or another tab: nothing to do
        return _already_void(request, campaign, event)
    typed = (request.POST.get("reason") or "")[: taps.VOID_REASON_MAX * 2]
    try:
        reason = taps.void_reason(request.POST)
    except ValidationError as err:
        return _event_page(
            request,
            campaign,
            history.Viewer(None),
            event,
            void_error=" ".join(err.messages),
            reason=typed,
            status=422,
        )
    error: str  # the refusal, as HTML (void_refused) or as text
    try:
        services.events_void(events=[event], actor=request.user, reason=reason)
    except services.EventVoidRefused as refused:
        error = void_refused(refused)
    except ValidationError as err:
        if err.code == "already_void":  # another tab or DJ voided it meanwhile
            return _already_void(request, campaign, event)
        error = " ".join(err.messages)
    else:
        error = ""
    if error:
        return _event_page(
            request,
            campaign,
            history.Viewer(None),
            event,
            void_error=error,
            reason=reason,
            status=409,
        )
    messages.success(request, _("Voided: %(reason)s") % {"reason": reason})
    return redirect("event_detail", slug=campaign.slug, seq=event.seq)


def _sheet_entries(session: GameSession, viewer: history.Viewer) -> list[dict]:
    """What each PJ carries out of the session, then each PNJ that took part in it: at its
    end, or now while it is open."""
    campaign = session.campaign
    catalogue = selectors.catalogue_by_name(campaign=campaign)
    characters = {c.pk: c for c in selectors.characters_with_snapshots(campaign=campaign)}
    entries: list[dict] = []
    if session.is_open:
        # As session_end keeps it: the PJ, the allies travelling with them, and the PNJ that
        # took part (an enemy archived at its fight's end too).
        took_part = set(selectors.session_pnj(session=session).values_list("pk", flat=True))
        states = {
            pk: c.snapshot.state
            for pk, c in characters.items()
            if pk in took_part or not c.is_archived and (not c.is_pnj or c.in_party)
        }
    else:
        states = {int(pk): data["state"] for pk, data in session.sheet_summary.items()}
    for pk, state in states.items():
        character = characters.get(pk)
        if character is None or (viewer.characters is not None and pk not in viewer.characters):
            continue  # (characters None: the DJ, who sees every PJ)
        card = build(character, state, catalogue=catalogue, for_player=not viewer.is_dj)
        entries.append({"character": character, "card": card})
    entries.sort(key=lambda entry: (entry["character"].is_pnj, entry["character"].name))
    return entries


@require_GET
@login_required
def session_sheets(request: AuthedHttpRequest, slug: str, number: int) -> HttpResponse:
    """End of session: what each PJ carries into the next one, to copy onto its sheet."""
    membership, viewer = _viewer(request, slug)
    session = _session(membership, number)
    context = {
        "campaign": membership.campaign,
        "session": session,
        "entries": _sheet_entries(session, viewer),
        "clock": clock_parts(_session_clock(session)),
        "is_dj": viewer.is_dj,
    }
    return render(request, "campaign/session_sheets.html", context)


def _session_clock(session: GameSession) -> int:
    """The party's game time at the session's end (the furthest any of the party kept by
    session_end had got, as the board's clock reads it then), or now while it is open."""
    if session.is_open:
        return selectors.campaign_clock(campaign=session.campaign)
    clocks = (data["state"].get("clock") for data in session.sheet_summary.values())
    return max((c for c in clocks if isinstance(c, int)), default=0)


@require_GET
@login_required
def character_cards(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """A PJ's active E.Alt as cards to print, for tables that hand out paper cards."""
    membership, viewer = _viewer(request, slug)
    if viewer.characters is not None and pk not in viewer.characters:  # None: the DJ
        raise Http404("No such PJ.")
    character = selectors.character_of(campaign=membership.campaign, pk=pk)
    if character is None:
        raise Http404("No such PJ.")
    card = build(
        character,
        character.snapshot.state,
        catalogue=selectors.catalogue_by_name(campaign=membership.campaign),
        for_player=not viewer.is_dj,
    )
    context = {"campaign": membership.campaign, "character": character, "card": card}
    return render(request, "campaign/print_cards.html", context)


def _session_rows(membership, viewer, session) -> list[history.Row]:
    campaign = membership.campaign
    events = list(
        history.with_people(history.events_for(campaign=campaign, viewer=viewer, session=session))
    )
    return history.rows(campaign=campaign, events=events, viewer=viewer, names=_names(campaign))


@require_GET
@login_required
def session_log(request: AuthedHttpRequest, slug: str, number: int, fmt: str) -> HttpResponse:
    """A session's log as Markdown (for Discord or Obsidian) or CSV (for a spreadsheet)."""
    if fmt not in ("md", "csv"):
        raise Http404("No such format.")
    membership, viewer = _viewer(request, slug)
    session = _session(membership, number)
    rows = _session_rows(membership, viewer, session)
    name = f"zodiac-{membership.campaign.slug}-sesion-{session.number}"
    if fmt == "csv":
        response = HttpResponse(
            exports.session_csv(rows, dj=viewer.is_dj), content_type="text/csv; charset=utf-8"
        )
    else:
        text = exports.session_markdown(membership.campaign, session, rows, dj=viewer.is_dj)
        response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response
