"""The campaign lock every writer takes first, and what a write answers when what it was
for is gone once the lock is held."""

from django.http import Http404

from .. import deadline
from ..models import Campaign


class Gone(Http404):
    """What a write was for was removed (deleted, taken from its player) by another request
    while this one waited for the campaign lock: the write is refused whole, and the request
    answers the app's 404, as it would have a moment later. A view may let it through."""


def lock(campaign: Campaign) -> Campaign:
    """The campaign row, locked until the transaction ends (call inside atomic).

    Locking it serializes the campaign's writers, so `seq` and the change cursor stay
    gapless and unique and the snapshots never miss an event. A tap whose page has given up
    on it (deadline) is refused here, once the lock is held, so it is never applied late.
    """
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    deadline.check()
    return locked
