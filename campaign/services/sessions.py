"""Game sessions: start and end (ending keeps every PJ's sheet), the recap players read and
the DJ's own note."""

import re
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

import rules

from ..live.channel import change_record
from ..models import Campaign, CampaignChange, GameSession
from ..selectors import in_party, next_session_number, open_session, session_pnj
from .changes import lock


def session_start(
    *,
    campaign: Campaign,
    title: str = "",
    started_at: datetime | None = None,
) -> GameSession:
    """Open the campaign's next session; events recorded meanwhile belong to it."""
    with transaction.atomic():
        campaign = lock(campaign)
        if open_session(campaign=campaign) is not None:
            raise ValidationError(
                _("End the open session before starting another."),
                code="session_open",
            )
        number = next_session_number(campaign=campaign)
        session = GameSession.objects.create(
            campaign=campaign,
            number=number,
            title=_own_title(title, number),
            started_at=started_at or timezone.now(),
        )
        change_record(campaign=campaign, kind=CampaignChange.Kind.SESSION)
        return session


def _own_title(title: str, number: int) -> str:
    """The title without a leading "Sesión 3:" of its own: the pages name the session
    already ("Sesión 3 · El paso", not "Sesión 3 · Sesión 3: El paso")."""
    pattern = rf"(?:sesi[oó]n|session)\s*(?:n\.?[ºo°]?\s*)?{number}\b\s*[:·.,\-–—]?\s*"
    rest = re.sub(rf"^{pattern}", "", title.strip(), flags=re.IGNORECASE)
    return rest


def session_end(
    *,
    session: GameSession,
    recap: str | None = None,
    dj_note: str | None = None,
    ended_at: datetime | None = None,
) -> GameSession:
    """Close a session, keeping as its sheet summary the state of every PJ, of the allies
    in the party and of the PNJ that took part; `recap` (players read it) and `dj_note`
    (the DJ's alone) are kept when given."""
    with transaction.atomic():
        campaign = lock(session.campaign)
        session = GameSession.objects.get(pk=session.pk)
        if not session.is_open:
            raise ValidationError(
                _("Session %(number)s has already ended.") % {"number": session.number},
                code="session_ended",
            )
        ended_at = ended_at or timezone.now()
        if ended_at < session.started_at:
            raise ValidationError(_("A session cannot end before it starts."), code="session_dates")
        session.ended_at = ended_at
        if recap is not None:
            session.recap = recap
        if dj_note is not None:
            session.dj_note = dj_note
        session.sheet_summary = {
            str(c.pk): {"name": c.name, "state": rules.public_state(c.snapshot.state)}
            for c in campaign.characters.filter(
                in_party() | Q(pk__in=session_pnj(session=session).values("pk"))
            )
            .select_related("snapshot")
            .order_by("pk")
        }
        session.save(update_fields=["ended_at", "recap", "dj_note", "sheet_summary"])
        change_record(campaign=campaign, kind=CampaignChange.Kind.SESSION)
    return session


def session_recap_set(*, session: GameSession, recap: str) -> GameSession:
    """The DJ's recap of a session (Markdown), written or rewritten at any time.

    Under the campaign lock, as every write: one racing the session's end (which keeps the
    recap its own form sent) comes whole before or after it.
    """
    with transaction.atomic():
        lock(session.campaign)
        GameSession.objects.filter(pk=session.pk).update(recap=recap)
    session.recap = recap
    return session


def session_note_set(*, session: GameSession, note: str) -> GameSession:
    """The DJ's own note on a session, written or rewritten at any time (no player reads
    it). Under the campaign lock, as the recap."""
    with transaction.atomic():
        lock(session.campaign)
        GameSession.objects.filter(pk=session.pk).update(dj_note=note)
    session.dj_note = note
    return session
