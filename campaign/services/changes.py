"""The campaign lock every writer takes first."""

from .. import deadline
from ..models import Campaign


def lock(campaign: Campaign) -> Campaign:
    """The campaign row, locked until the transaction ends (call inside atomic).

    Locking it serializes the campaign's writers, so `seq` and the change cursor stay
    gapless and unique and the snapshots never miss an event. A tap whose page has given up
    on it (deadline) is refused here, once the lock is held, so it is never applied late.
    """
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    deadline.check()
    return locked
