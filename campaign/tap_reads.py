"""Reads of a tap's events: the events one tap recorded (they share its idempotency key),
the one a repeated tap recorded first, and what Deshacer takes back (campaign.selectors
re-exports them)."""

import re

from django.db.models import Q

from .models import NOT_UNDONE, Campaign, StateEvent


def latest_event(*, campaign: Campaign) -> StateEvent | None:
    """What "Deshacer" takes back (with the rest of its tap): the newest event `undoable`."""
    newest = (
        StateEvent.objects.filter(campaign=campaign, void_at__isnull=True)
        .select_related("character", "session")
        .order_by("-seq")
    )
    before = None
    while True:
        batch = list((newest if before is None else newest.filter(seq__lt=before))[:20])
        found = next((e for e in batch if undoable(e)), None)
        if found is not None or len(batch) < 20:
            return found
        before = batch[-1].seq


def undoable(event: StateEvent) -> bool:
    """Whether Deshacer may take `event` back: not void, nor a character's joining or
    scores (NOT_UNDONE), but for the scores of a PNJ a tap made while it is on the board,
    which stand for that making (Deshacer archives it: `pnj_made`)."""
    if event.is_void:
        return False
    if event.event.get("kind") not in NOT_UNDONE:
        return True
    return pnj_made(event) and event.character is not None and not event.character.is_archived


# The events one tap records share its idempotency key: the first has the key itself or
# the key and a suffix (services.party and services.checks: ":t<pk>" turn ends, ":w<pk>"
# watches, ":s<pk>" a Descanso's sleepers (before rules v2.2), ":c<n>" steps of a
# catch-up, ":r<n>" the rolls of Tirar todas, ":q<pk>" a fight's round for one not
# exerting itself (R27); services.pnj: ":a<pk>" an area blow's events, ":p<n>" the scores
# of each PNJ the tap made, ":n<n>:p0" those of a PNJ the order page made).
_PNJ_MADE = re.compile(r"(?::n\d+)?:p\d+$")
_TAP_SUFFIX = re.compile(r":[tcwsraq]\d+$|(?::n\d+)?:p\d+$")


def tap_base(event: StateEvent) -> str:
    """The key of the tap that recorded `event` ("" for an event recorded by no tap)."""
    return _TAP_SUFFIX.sub("", event.idempotency_key)


def pnj_made(event: StateEvent) -> bool:
    """Whether `event` records the making of a PNJ by a tap (its scores, keyed ":p<n>"):
    Deshacer of that tap archives the PNJ rather than void its making, which stays in its
    log (services.tap_undo)."""
    return event.event.get("kind") == "attributes" and bool(_PNJ_MADE.search(event.idempotency_key))


def _keyed(campaign_id: int):
    """A campaign's events that carry an idempotency key, read through the unique index on
    (campaign, key). That index leaves out the events without a key, so a query uses it
    only when it says the same (`key <> ''`): otherwise SQLite scans the campaign's log."""
    return StateEvent.objects.filter(campaign_id=campaign_id).exclude(idempotency_key="")


def event_by_key(*, campaign: Campaign, key: str) -> StateEvent | None:
    """The event recorded with idempotency key `key` (a repeated tap's first), or None."""
    if not key:
        return None
    return _keyed(campaign.pk).filter(idempotency_key=key).order_by().first()


def tap_of(*, event: StateEvent) -> list[StateEvent]:
    """The events recorded by the tap that recorded `event` (itself included), newest
    first: a round with its turn ends, a party Descanso with its watches. Deshacer undoes
    them together."""
    key = event.idempotency_key
    if not key:
        return [event]
    base = tap_base(event)
    # The key itself, or the key and ":" and more: the range [base + ":", base + ";").
    same = _keyed(event.campaign_id).filter(
        Q(idempotency_key=base)
        | Q(idempotency_key__gte=base + ":", idempotency_key__lt=base + ";"),
        void_at__isnull=True,
    )
    events = [e for e in same.order_by("-seq") if _TAP_SUFFIX.sub("", e.idempotency_key) == base]
    return events or [event]
