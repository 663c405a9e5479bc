"""A fight's turn order, written to the log (campaign.turn_order says how it is kept).

Every write takes the campaign's lock first, reads the fight as it stands under that lock,
and refuses a tap made on a page that saw another turn (`expected`, the page's
Fight.token): two tabs never pass the same turn twice.
"""

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from .. import turn_order
from ..models import Campaign, StateEvent
from ..selectors import event_by_key, fight_now, in_play_ids
from .changes import lock
from .events import event_record
from .party import round_records, turn_end_record


def fight_start(
    *,
    campaign: Campaign,
    order: list[turn_order.Slot],
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """Start a fight with `order` (the first slot acts first). Refused while one is on."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return done
        if fight_now(campaign=campaign) is not None:
            raise ValidationError(
                _("A fight is already on: end it before starting another."), code="fight_on"
            )
        return event_record(
            campaign=campaign,
            event={"kind": turn_order.KIND, "do": "start", "order": [s.as_event() for s in order]},
            actor=actor,
            idempotency_key=idempotency_key,
        )


def fight_order(
    *,
    campaign: Campaign,
    order: list[turn_order.Slot],
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """Change the order of the fight going on. Whose turn it is stays theirs; if they left
    the order, the turn goes to the next one of the round still in it; if nobody still to
    act this round is in it, the round passes (as after its last turn) and the first of the
    new order has the next round's first turn. Returns the order's event."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return done
        now = _fight_as_seen(campaign, expected)
        keys = [s.key for s in order]
        still = [s.key for s in now.order[now.current :] if s.key in keys]
        record = event_record(
            campaign=campaign,
            event={
                "kind": turn_order.KIND,
                "do": "order",
                "order": [s.as_event() for s in order],
                "current": keys.index(still[0]) if still else 0,
            },
            actor=actor,
            idempotency_key=idempotency_key,
        )
        if not still:
            round_records(
                campaign=campaign, actor=actor, idempotency_key=idempotency_key, suffix=":c1"
            )
        return record


def fight_pass(
    *,
    campaign: Campaign,
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """The current turn passes: a PJ's turn end first (with what it raises: the TS VOL of a
    Shock grave, the end of a Shock leve), marked as a lost turn when the PJ could not act;
    then the pass; after the round's last turn, the round (the turn ends it still misses
    first, as "Siguiente ronda" records them). The events recorded, in order."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return [done]
        now = _fight_as_seen(campaign, expected)
        slot = now.current_slot
        records = []
        lost = False
        if slot is not None and slot.pj is not None and slot.pj in in_play_ids(campaign=campaign):
            character = campaign.characters.select_related("snapshot").get(pk=slot.pj)
            lost = not character.snapshot.state["can_act"]
            records.append(
                turn_end_record(
                    campaign=campaign, character=character, actor=actor, key=idempotency_key
                )
            )
        records.append(
            event_record(
                campaign=campaign,
                event={"kind": turn_order.KIND, "do": "pass", "slot": now.current, "lost": lost},
                actor=actor,
                idempotency_key=idempotency_key,
            )
        )
        if now.last_turn:
            records += round_records(
                campaign=campaign, actor=actor, idempotency_key=idempotency_key, suffix=":c1"
            )
    return records


def fight_end(
    *,
    campaign: Campaign,
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """End the fight going on; its order stays in the history."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return done
        _fight_as_seen(campaign, expected)
        return event_record(
            campaign=campaign,
            event={"kind": turn_order.KIND, "do": "end"},
            actor=actor,
            idempotency_key=idempotency_key,
        )


def _done(campaign: Campaign, key: str) -> StateEvent | None:
    """The event a repeated tap already recorded (a double tap records nothing more)."""
    return event_by_key(campaign=campaign, key=key)


def _fight_as_seen(campaign: Campaign, expected: str) -> turn_order.Fight:
    now = fight_now(campaign=campaign)
    if now is None:
        raise ValidationError(_("There is no fight on."), code="no_fight")
    if expected and expected != now.token:
        raise ValidationError(
            _("The turn has moved on meanwhile (round %(round)s): look again before tapping.")
            % {"round": now.round},
            code="stale",
        )
    return now
