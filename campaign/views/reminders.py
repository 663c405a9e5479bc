"""The DJ's board, reminders: a note pinned to the start or the end of a combatant's turn,
or to a round, and a note removed (campaign.reminders says when one shows).

Each answers like the clock bar (every card and the panels), or, refused, with the reason
in the pin form's error line; without JavaScript, back to the board with a flash message.
Only the campaign's DJ reaches these: players never see a note.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..access import campaign_for_dj
from ..models import Reminder
from ..numbers import whole
from ..present.board import reminder_when
from ..requests import AuthedHttpRequest
from .party import party_done, party_refuse

TEXT_READ = 1000  # characters of the note read from a request (it holds 120)


@require_POST
@login_required
def reminder_add(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Pin a note: its text, when (at the start or the end of whose turn, or in which
    round) and whether it shows every time or once."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    when = request.POST.get("when", "")
    character = None
    if when in (Reminder.When.START, Reminder.When.END):
        pk = whole(request.POST.get("character") or "")
        character = selectors.character_of(campaign=campaign, pk=pk) if pk is not None else None
        if character is None:
            message = _("Choose whose turn it is for.")
            return party_refuse(request, campaign, message, 422, slot="reminder-error")
    try:
        note = services.reminder_add(
            campaign=campaign,
            text=(request.POST.get("text") or "")[:TEXT_READ],
            when=when,
            character=character,
            round=whole(request.POST.get("round") or "", digits=4),
            every=request.POST.get("every") == "1",
        )
    except ValidationError as err:
        message = " ".join(err.messages)
        return party_refuse(request, campaign, message, 422, slot="reminder-error")
    text = _("Note pinned, %(when)s: %(text)s") % {"when": reminder_when(note), "text": note.text}
    return party_done(request, campaign, [{"title": text, "lines": [], "text": text}])


@require_POST
@login_required
def reminder_delete(request: AuthedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Remove a note (due or still to come, once or every time). One that is not the
    campaign's, or that another tab removed first, is the app's 404 (services.Gone), like
    any object of the address that is not there."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    note = campaign.reminders.filter(pk=pk).first()
    if note is None:
        raise Http404("No such reminder.")
    services.reminder_delete(note)
    text = _("Note removed: %(text)s") % {"text": note.text}
    return party_done(request, campaign, [{"title": text, "lines": [], "text": text}])
