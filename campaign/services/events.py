"""The log: append an event, void one. The rules decide; the projections follow."""

import json
import secrets
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import rules
from rules import RuleError

from .. import turn_order
from ..live.channel import change_record
from ..models import (
    Campaign,
    CampaignChange,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    StateEvent,
    max_length,
)
from ..selectors import (
    campaign_clock,
    character_log,
    characters_touched,
    event_by_key,
    fight_now,
    in_play_ids,
    open_session,
    pnj_made,
    round_reach,
    snapshot_before,
    tap_of,
)
from .changes import Gone, lock


class EventVoidRefused(ValueError):
    """Voiding an event would make later events of the log invalid.

    `blocking` names every one of them, in log order, each with the PJ whose log it breaks
    and the rules' reason (a later event that only fails because an earlier one of these
    does is named too: voiding them all, newest first, lets this one go). The first of them
    is also `blocking_event`, `character` and `error`.
    """

    def __init__(
        self,
        *,
        event: StateEvent,
        blocking: list[tuple[StateEvent, Character, RuleError]],
    ) -> None:
        self.event = event
        self.blocking = sorted(blocking, key=lambda found: found[0].seq)
        self.blocking_event, self.character, self.error = self.blocking[0]
        # For logs; the pages say it in the user's words (present.events.void_refused).
        later = ", ".join(f"{c.name}'s #{e.seq}" for e, c, _err in self.blocking)
        super().__init__(
            f"#{event.seq} cannot be voided: {later} would no longer hold. "
            f"{self.error.message('en')}"
        )


def _fresh_seed() -> int:
    return secrets.randbelow(2**31)


def _event_checked(
    campaign: Campaign, event: object, character: Character | None, session: GameSession | None
) -> None:
    """What an event must be before the rules see it: a kind, plain JSON, and of this
    campaign's PJ and session."""
    if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
        raise ValidationError(_("An event needs a kind."), code="invalid_event")
    if character is not None and character.campaign_id != campaign.pk:
        raise ValidationError(_("That PJ belongs to another campaign."), code="wrong_campaign")
    if session is not None and session.campaign_id != campaign.pk:
        raise ValidationError(_("That session belongs to another campaign."), code="wrong_campaign")
    try:
        json.dumps(event, allow_nan=False)
    except (TypeError, ValueError):
        raise ValidationError(_("An event must be plain JSON."), code="invalid_event") from None


def _turn_of(campaign: Campaign, character: Character) -> bool:
    """Whether a fight is on and its turn is `character`'s (its slot's: a group's copies
    share one turn). A blow then lands during its own turn (R13)."""
    now = fight_now(campaign=campaign)
    slot = now.current_slot if now is not None else None
    return slot is not None and character.pk in slot.members


def _dated(campaign: Campaign, recorded_at: datetime | None) -> datetime:
    """When the next event of the log happened: `recorded_at` (never before the previous
    event), or now."""
    latest_at = (
        StateEvent.objects.filter(campaign=campaign)
        .order_by("-seq")
        .values_list("created_at", flat=True)
        .first()
    )
    created_at = recorded_at or timezone.now()
    if latest_at is not None and created_at < latest_at:
        if recorded_at is not None:
            raise ValidationError(
                _("An event cannot be dated before the previous one."),
                code="out_of_order",
            )
        # The wall clock stepped back: keep created_at in seq order for state_at.
        created_at = latest_at
    return created_at


def _targets(
    campaign: Campaign, character: Character | None, stored: dict, leave_out: frozenset[int]
) -> list[Character]:
    """The PJ an event reaches, with their snapshots: its PJ; none for the fight's order;
    else the party in play but for `leave_out`. (`stored` gains what a Curación needs.)"""
    if character is not None:
        targets = [Character.objects.select_related("snapshot").get(pk=character.pk)]
        # Its sheet can still be edited (scores); nothing happens to it in the game.
        if targets[0].is_archived and stored["kind"] != "attributes":
            raise ValidationError(
                _("%(name)s is archived: restore the PJ to record anything for it.")
                % {"name": targets[0].name},
                code="archived",
            )
        if stored["kind"] in ("heal", "surgery"):  # both are Curación (R25)
            stored["regeneracion"] = "regeneracion" in targets[0].powers
    elif turn_order.is_fight(stored):
        # The fight's order: it reaches no PJ (no PJ's log holds it; see campaign.turn_order).
        turn_order.check(stored, in_play=in_play_ids(campaign=campaign))
        targets = []
    else:
        # The party; a round in a fight reaches its combatants too (PNJ on their own clock).
        round_in_fight = stored["kind"] == "time" and "rounds" in stored
        now = fight_now(campaign=campaign) if round_in_fight else None
        in_play = round_reach(campaign=campaign, fight=now)
        targets = [c for c in in_play.select_related("snapshot") if c.pk not in leave_out]
        if not targets:
            raise ValidationError(
                _("No PJ of the party is in play for a campaign-wide event."),
                code="no_characters",
            )

    return targets


def event_record(
    *,
    campaign: Campaign,
    event: dict,
    character: Character | None = None,
    actor: User | None = None,
    session: GameSession | None = None,
    idempotency_key: str | None = None,
    secret: bool = False,
    recorded_at: datetime | None = None,
    leave_out: frozenset[int] = frozenset(),
    for_player: User | None = None,
) -> StateEvent:
    """Append one rules/README.md §7 event to the log, for one PJ or (character None) the party.

    The party is every PJ in play: archived PJ take no part (their log is frozen while
    archived), nor the PJ whose pk is in `leave_out` (the DJ left them out: one keeps
    watch). The PJ a campaign-wide event reached are the keys of its `effects`, which is
    what puts it in their logs (selectors.in_log_of).

    The rules validate it against the current snapshot(s): a RuleError propagates and
    nothing is written. A repeated idempotency key returns the first event untouched.
    The event is stored with a fresh dice `seed`; an open session is attached. A `suffer`
    for the one whose turn it is in the fight going on (PJ or PNJ) is stored with
    `own_turn: true` (R13: a Shock leve it marks takes the next turn).

    `for_player`: the event is a player's own tap on their sheet; it is Gone (nothing
    written) when, once the lock is held, they no longer play `character` (the DJ took it
    back from them meanwhile).
    """
    _event_checked(campaign, event, character, session)
    key = (idempotency_key or "").strip()
    if len(key) > max_length(StateEvent, "idempotency_key"):
        raise ValidationError(_("The idempotency key is too long."), code="invalid_key")

    with transaction.atomic():
        campaign = lock(campaign)
        if for_player is not None and not (
            character is not None
            and Character.objects.filter(pk=character.pk, player=for_player).exists()
        ):
            raise Gone("No such PJ.")
        if key and (first := event_by_key(campaign=campaign, key=key)) is not None:
            return first

        created_at = _dated(campaign, recorded_at)
        if session is None:
            session = open_session(campaign=campaign)

        stored = {k: v for k, v in event.items() if k != "seed"}
        stored["seed"] = _fresh_seed()
        if stored["kind"] == "suffer" and "own_turn" not in stored and character is not None:
            if _turn_of(campaign, character):
                stored["own_turn"] = True  # R13 (v2.2): a Shock leve then takes its next turn
        targets = _targets(campaign, character, stored, leave_out)
        options = campaign.rule_options()
        results = []
        for target in targets:
            try:
                results.append((target, *rules.apply(target.snapshot.state, stored, options)))
            except RuleError as err:
                if character is None:
                    err.add_note(f"PJ: {target.name}")
                raise

        # A PJ's own time that takes it past the party's clock changes every card's "behind"
        # (read before the snapshots are written).
        news_for = character
        if character is not None:
            before, after = targets[0].snapshot.state["clock"], results[0][1]["clock"]
            if after > before and after > campaign_clock(campaign=campaign):
                news_for = None
        campaign.last_seq += 1
        campaign.save(update_fields=["last_seq"])
        record = StateEvent.objects.create(
            campaign=campaign,
            character=character,
            session=session,
            seq=campaign.last_seq,
            created_at=created_at,
            actor=actor,
            event=stored,
            effects={str(t.pk): effects for t, _state, effects in results},
            idempotency_key=key,
            secret=secret,
        )
        for target, state, _effects in results:
            snapshot = target.snapshot
            snapshot.state = state
            snapshot.seq = record.seq
            snapshot.save(update_fields=["state", "seq", "updated_at"])
        EventSnapshot.objects.bulk_create(
            EventSnapshot(event=record, character=t, seq=record.seq, state=state)
            for t, state, _effects in results
        )
        change_record(campaign=campaign, kind=CampaignChange.Kind.EVENT, character=news_for)
    return record


def tap_key(key: str, suffix: str) -> str:
    """The idempotency key of one of the events a tap records: the tap's key and a suffix
    (":t<pk>", ":w<pk>", ":s<pk>", ":c<n>", ":r<n>", ":q<pk>"), by which selectors.tap_of
    finds them together."""
    return f"{key}{suffix}"[:100] if key else ""


def tap_done(campaign: Campaign, key: str, *, first: str = "") -> list[StateEvent]:
    """The events a repeated tap recorded the first time, oldest first ([] when its first
    event's key, `key` with the suffix `first`, is not taken). A tap of several events is
    done once: a second one with the same key records nothing more, whatever its form says
    now (other watch boxes, another way to catch up) or however the party moved on since."""
    found = event_by_key(campaign=campaign, key=tap_key(key, first))
    return sorted(tap_of(event=found), key=lambda e: e.seq) if found is not None else []


def events_void(*, events: list[StateEvent], actor: User | None = None, reason: str = "") -> None:
    """Void several events as one (a tap's), newest first: all, or none when one refuses."""
    with transaction.atomic():
        for event in sorted(events, key=lambda e: -e.seq):
            event_void(event=event, actor=actor, reason=reason)


def tap_undo(
    *, events: list[StateEvent], actor: User | None = None, reason: str = ""
) -> tuple[list[StateEvent], list[Character]]:
    """Deshacer of one tap (`events`, selectors.tap_of): all or nothing, its events void
    but for the making of the PNJ it made (selectors.pnj_made): those leave the board,
    archived, their making kept in their log (a PNJ restored comes back as it was made).
    The events voided and the PNJ archived."""
    made = {e.character_id for e in events if pnj_made(e) and e.character_id is not None}
    voided = [e for e in events if not pnj_made(e)]
    with transaction.atomic():
        campaign = lock(events[0].campaign)
        events_void(events=voided, actor=actor, reason=reason)
        archived = list(
            Character.objects.filter(campaign=campaign, pk__in=made, archived_at__isnull=True)
            .select_related("campaign")
            .order_by("pk")
        )
        for character in archived:
            character.archived_at = timezone.now()
            character.save(update_fields=["archived_at"])
            change_record(
                campaign=campaign, kind=CampaignChange.Kind.CHARACTER, character=character
            )
    return voided, archived


def event_void(*, event: StateEvent, actor: User | None = None, reason: str = "") -> StateEvent:
    """Mark an event void and re-fold the PJ it touched from their non-void log.

    Refused with EventVoidRefused, naming the first later event that would become
    invalid, when the rest of the log no longer replays without it.
    """
    with transaction.atomic():
        campaign = lock(event.campaign)
        event = StateEvent.objects.select_related("campaign").get(pk=event.pk)
        if event.is_void:
            raise ValidationError(
                _("Event #%(seq)s is already void.") % {"seq": event.seq},
                code="already_void",
            )
        touched = characters_touched(event=event)
        party_before = campaign_clock(campaign=campaign)
        options = campaign.rule_options()
        changed_events: dict[int, StateEvent] = {}
        blocking: dict[int, tuple[StateEvent, Character, RuleError]] = {}
        for character in touched:
            for found in _refold_without(
                character=character,
                voided=event,
                options=options,
                changed_events=changed_events,
            ):
                blocking.setdefault(found[0].seq, found)  # an event of two PJ: named once
        if blocking:
            # Leaving the atomic block by this exception rolls back every re-fold.
            raise EventVoidRefused(event=event, blocking=list(blocking.values()))
        StateEvent.objects.bulk_update(changed_events.values(), ["effects"])
        if turn_order.is_fight(event.event) and isinstance(event.event.get("archived"), list):
            # Deshacer "Terminar combate": the enemies it archived are back in play.
            Character.objects.filter(campaign=campaign, pk__in=event.event["archived"]).update(
                archived_at=None
            )
        event.void_at = timezone.now()
        event.void_by = actor
        event.void_reason = reason
        event.save(update_fields=["void_at", "void_by", "void_reason"])
        # A PJ's time taken back can move the party's clock: then every card's "behind" (and
        # every sheet's clock line) changes with it, as when that time was recorded.
        news_for = event.character
        if news_for is not None and campaign_clock(campaign=campaign) != party_before:
            news_for = None
        change_record(campaign=campaign, kind=CampaignChange.Kind.VOID, character=news_for)
    return event


def _refold_without(
    *,
    character: Character,
    voided: StateEvent,
    options: dict,
    changed_events: dict[int, StateEvent],
) -> list[tuple[StateEvent, Character, RuleError]]:
    """Re-apply a PJ's events after `voided`, starting from its state just before it.

    The later events that no longer hold, each with its reason ([] when every one does:
    then the PJ's snapshots are rewritten). One that fails is left out and the fold goes
    on, so the events that fail only because of it are found too."""
    base = snapshot_before(character_id=character.pk, seq=voided.seq)
    state = base.state if base else rules.initial_state()
    last_seq = base.seq if base else character.joined_seq
    later = list(character_log(character=character).filter(seq__gt=voided.seq))
    saved = {
        s.event_id: s for s in EventSnapshot.objects.filter(character=character, event__in=later)
    }
    key = str(character.pk)
    broken: list[tuple[StateEvent, Character, RuleError]] = []
    for later_event in later:
        try:
            state, effects = rules.apply(state, later_event.event, options)
        except RuleError as err:
            broken.append((later_event, character, err))
            continue
        if broken:
            continue  # the void is refused: nothing of this fold is written
        later_event = changed_events.setdefault(later_event.pk, later_event)
        later_event.effects = {**later_event.effects, key: effects}
        saved[later_event.pk].state = state
        last_seq = later_event.seq
    if broken:
        return broken
    EventSnapshot.objects.bulk_update(saved.values(), ["state"])
    CharacterSnapshot.objects.filter(character=character).update(
        state=state, seq=last_seq, updated_at=timezone.now()
    )
    return []
