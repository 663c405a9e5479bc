"""The change channel: every write advances its campaign's change cursor, in its transaction.

The writer records which PJ's card changed (or none: every card) as a CampaignChange row;
at commit it tells PostgreSQL's listeners (NOTIFY) and this process's hub. Live pages follow
that cursor, so the database is the only source of change.
"""

import hashlib
import os
from contextvars import ContextVar
from functools import partial

from django.db import connection, transaction
from django.db.models import F

from ..models import Campaign, CampaignChange, Character
from . import hub

# The browser a request's changes are answered to (a tag of its session), when the tap came
# from its only page of the campaign (OnlyTabMiddleware): that page has the change in its
# answer, and its browser's stream is sent the news without the rendering.
answered: ContextVar[str | None] = ContextVar("answered", default=None)


def browser_tag(session_key: str | None) -> str | None:
    """A session's tag for `answered`: not the key itself, which stays in the session."""
    if not session_key:
        return None
    return hashlib.blake2b(session_key.encode(), digest_size=12).hexdigest()


def change_record(
    *, campaign: Campaign, kind: str, character: Character | None = None
) -> CampaignChange:
    """Advance the campaign's change cursor (call with the campaign locked, inside atomic).

    `character` is the PJ whose card changed; None means every card of the campaign.
    On PostgreSQL the NOTIFY is sent at commit, so listeners never see a rolled-back change;
    this process's own live hub is woken at commit too, without waiting for NOTIFY or a poll.
    """
    # Read back rather than trust `campaign`: a nested write may have moved it already.
    Campaign.objects.filter(pk=campaign.pk).update(change_cursor=F("change_cursor") + 1)
    campaign.change_cursor = (
        Campaign.objects.filter(pk=campaign.pk).values_list("change_cursor", flat=True).get()
    )
    change = CampaignChange.objects.create(
        campaign=campaign, cursor=campaign.change_cursor, character=character, kind=kind
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_notify(%s, %s)",
                [hub.CHANNEL, f"{campaign.pk}:{campaign.change_cursor}:{os.getpid()}"],
            )
    told = hub.Change(
        campaign.change_cursor,
        character.pk if character is not None else None,
        character.player_id if character is not None else None,
        kind,
        character is not None and character.is_pnj,
        answered.get(),
    )
    transaction.on_commit(partial(hub.changed, campaign.pk, told.cursor, told), robust=True)
    return change
