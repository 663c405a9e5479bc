"""A fight's turn order, written to the log (campaign.turn_order says how it is kept).

Every write takes the campaign's lock first, reads the fight as it stands under that lock,
and refuses a tap made on a page that saw another turn (`expected`, the page's
Fight.token): two tabs never pass the same turn twice.
"""

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import turn_order
from ..models import Campaign, Character, StateEvent
from ..selectors import event_by_key, fight_now
from .changes import lock
from .events import event_record
from .party import round_records, turn_end_record
from .reminders import reminders_spend


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
    version: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """Change the order of the fight going on. Whose turn it is stays theirs; if they left
    the order, the turn goes to the next one of the round still in it; if nobody still to
    act this round is in it, the round passes (as after its last turn) and the first of the
    new order has the next round's first turn. `version`: the fight as the page saw it
    (Fight.version): a page that saw another fight (who is in it, who left, the round, the
    turn) changes nothing. Returns the order's event."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return done
        now = fight_as_seen(campaign, expected)
        if version and version != now.version:
            raise ValidationError(
                _("The fight has changed meanwhile: look at it again before saving."),
                code="changed",
            )
        return order_record(
            campaign=campaign, now=now, order=order, actor=actor, idempotency_key=idempotency_key
        )[0]


def order_record(
    *,
    campaign: Campaign,
    now: turn_order.Fight,
    order: list[turn_order.Slot],
    out: dict | None = None,
    actor: User | None,
    idempotency_key: str,
) -> list[StateEvent]:
    """The fight's new order, inside the caller's transaction (`fight_order` says how the
    turn follows); `out`: who left the fight and why. The order's event, then the round's
    when one passed."""
    # Where each slot still to act this round is in the new order (a group keeps its
    # place when its first one leaves it: the same slot, by any of its members).
    still = [i for s in now.order[now.current :] if (i := _place(order, s)) is not None]
    event = {
        "kind": turn_order.KIND,
        "do": "order",
        "order": [s.as_event() for s in order],
        "current": still[0] if still else 0,
    }
    if out is not None:
        event["out"] = out
    records = [
        event_record(campaign=campaign, event=event, actor=actor, idempotency_key=idempotency_key)
    ]
    if not still:
        # The round passes with the new order: its one-time notes are spent by it.
        reminders_spend(campaign=campaign, now=now, seq=records[0].seq, turn=False, round_ends=True)
        records += round_records(
            campaign=campaign, actor=actor, idempotency_key=idempotency_key, suffix=":c1"
        )
    return records


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
        now = fight_as_seen(campaign, expected)
        slot = now.current_slot
        records = []
        lost = False
        if slot is not None and slot.members:
            # Everyone of the slot (a group: each copy) ends its turn; the turn is lost
            # when none of them could act (turn_order.turn_lost).
            acting = list(
                campaign.characters.filter(pk__in=slot.members, archived_at__isnull=True)
                .select_related("snapshot")
                .order_by("pk")
            )
            lost = turn_order.turn_lost([c.snapshot.state for c in acting])
            records += [
                turn_end_record(campaign=campaign, character=c, actor=actor, key=idempotency_key)
                for c in acting
            ]
        passed = event_record(
            campaign=campaign,
            event={"kind": turn_order.KIND, "do": "pass", "slot": now.current, "lost": lost},
            actor=actor,
            idempotency_key=idempotency_key,
        )
        records.append(passed)
        # The one-time notes of this turn (and of its round, after its last turn) are spent
        # by this pass: Deshacer of it brings them back.
        reminders_spend(
            campaign=campaign, now=now, seq=passed.seq, turn=True, round_ends=now.last_turn
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
    archive_enemies: bool = False,
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """End the fight going on; its order stays in the history. `archive_enemies`: the
    enemies who fought in it (taken out or not) leave the board, archived (the event names
    them: Deshacer brings them back); else they stay (a recurring villain)."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := _done(campaign, idempotency_key)) is not None:
            return done
        now = fight_as_seen(campaign, expected)
        event: dict = {"kind": turn_order.KIND, "do": "end"}
        enemies = []
        if archive_enemies:
            enemies = list(
                campaign.characters.filter(
                    pk__in=now.fighting | set(now.out),
                    kind=Character.Kind.PNJ,
                    side=Character.Side.ENEMIGO,
                    archived_at__isnull=True,
                ).order_by("pk")
            )
            if enemies:
                event["archived"] = [c.pk for c in enemies]
        record = event_record(
            campaign=campaign, event=event, actor=actor, idempotency_key=idempotency_key
        )
        if enemies:
            campaign.characters.filter(pk__in=event["archived"]).update(archived_at=timezone.now())
        return record


def _place(order: list[turn_order.Slot], slot: turn_order.Slot) -> int | None:
    """The index in `order` of `slot`: the same one, or one sharing a member with it."""
    return next(
        (i for i, s in enumerate(order) if s.key == slot.key or set(s.members) & set(slot.members)),
        None,
    )


def _done(campaign: Campaign, key: str) -> StateEvent | None:
    """The event a repeated tap already recorded (a double tap records nothing more)."""
    return event_by_key(campaign=campaign, key=key)


def fight_as_seen(campaign: Campaign, expected: str) -> turn_order.Fight:
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
