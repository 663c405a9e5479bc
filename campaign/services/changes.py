"""The campaign lock every writer takes, and the change cursor that live pages follow."""

from functools import partial

from django.db import connection, transaction
from django.db.models import F

from .. import live
from ..models import Campaign, CampaignChange, Character

# The PostgreSQL channel that writers NOTIFY and each server process LISTENs to.
CHANNEL = "zodiac_changes"


def lock(campaign: Campaign) -> Campaign:
    """The campaign row, locked until the transaction ends (call inside atomic).

    Locking it serializes the campaign's writers, so `seq` and the change cursor stay
    gapless and unique and the snapshots never miss an event.
    """
    return Campaign.objects.select_for_update().get(pk=campaign.pk)


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
                "SELECT pg_notify(%s, %s)", [CHANNEL, f"{campaign.pk}:{campaign.change_cursor}"]
            )
    transaction.on_commit(partial(live.changed, campaign.pk, campaign.change_cursor), robust=True)
    return change
