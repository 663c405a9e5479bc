"""The log: append an event, void one. The rules decide; the projections follow."""

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

import rules
from rules import RuleError

from .. import fight
from ..history.words import event_label
from ..live.channel import change_record
from ..models import (
    Campaign,
    CampaignChange,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    StateEvent,
)
from ..selectors import (
    campaign_clock,
    character_log,
    characters_touched,
    event_by_key,
    fight_now,
    in_play_ids,
    open_session,
    snapshot_before,
    tap_of,
    turn_end_missing,
)
from .changes import lock


class EventVoidRefused(ValueError):
    """Voiding an event would make a later event of the log invalid."""

    def __init__(
        self,
        *,
        event: StateEvent,
        blocking_event: StateEvent,
        character: Character,
        error: RuleError,
    ) -> None:
        self.event = event
        self.blocking_event = blocking_event
        self.character = character
        self.error = error
        super().__init__(self.message("en"))

    def message(self, lang: str | None = None) -> str:
        """Text for the UI, in `lang` (default: the active language)."""
        lang = (lang or translation.get_language() or "es")[:2]
        with translation.override(lang):
            text = _(
                "#%(seq)s cannot be voided: %(character)s's #%(blocking)s (%(what)s) would no "
                "longer hold. %(reason)s"
            )
            what = event_label(self.blocking_event.event)
        return text % {
            "seq": self.event.seq,
            "blocking": self.blocking_event.seq,
            "what": what,
            "character": self.character.name,
            "reason": self.error.message(lang),
        }


def _fresh_seed() -> int:
    return secrets.randbelow(2**31)


def event_record(
    *,
    campaign: Campaign,
    event: dict,
    character: Character | None = None,
    actor: AbstractBaseUser | None = None,
    session: GameSession | None = None,
    idempotency_key: str | None = None,
    secret: bool = False,
    recorded_at: datetime | None = None,
    leave_out: frozenset[int] = frozenset(),
) -> StateEvent:
    """Append one SPEC §7 event to the log, for one PJ or (character None) the party.

    The party is every PJ in play: archived PJ take no part (their log is frozen while
    archived), nor the PJ whose pk is in `leave_out` (the DJ left them out: one keeps
    watch). The PJ a campaign-wide event reached are the keys of its `effects`, which is
    what puts it in their logs (selectors.in_log_of).

    The rules validate it against the current snapshot(s): a RuleError propagates and
    nothing is written. A repeated idempotency key returns the first event untouched.
    The event is stored with a fresh dice `seed`; an open session is attached.
    """
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
    key = (idempotency_key or "").strip()
    if len(key) > StateEvent._meta.get_field("idempotency_key").max_length:
        raise ValidationError(_("The idempotency key is too long."), code="invalid_key")

    with transaction.atomic():
        campaign = lock(campaign)
        if key and (first := event_by_key(campaign=campaign, key=key)) is not None:
            return first

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
        if session is None:
            session = open_session(campaign=campaign)

        stored = {k: v for k, v in event.items() if k != "seed"}
        stored["seed"] = _fresh_seed()
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
        elif fight.is_fight(stored):
            # The fight's order: it reaches no PJ (no PJ's log holds it; see campaign.fight).
            fight.check(stored, in_play=in_play_ids(campaign=campaign))
            targets = []
        else:
            in_play = campaign.characters.filter(archived_at__isnull=True)
            targets = [
                c
                for c in in_play.select_related("snapshot").order_by("pk")
                if c.pk not in leave_out
            ]
            if not targets:
                raise ValidationError(
                    _("No PJ of the party is in play for a campaign-wide event."),
                    code="no_characters",
                )

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


def _no_fight_on(campaign: Campaign) -> None:
    """Refuse the party's time, Descanso or round while a fight is on: in a fight the round
    passes with its last turn, and time passing would skip the turns still to come."""
    lock(campaign)
    if fight_now(campaign=campaign) is not None:
        raise ValidationError(
            _(
                "A fight is on: its round passes with the last turn. End the fight "
                "before letting time pass for the party."
            ),
            code="fight_on",
        )


def tap_key(key: str, suffix: str) -> str:
    """The idempotency key of one of the events a tap records: the tap's key and a suffix
    (":t<pk>", ":w<pk>", ":c<n>", ":r<n>"), by which selectors.tap_of finds them together."""
    return f"{key}{suffix}"[:100] if key else ""


# A Descanso's 8 hours for a PJ already asleep: its sleep going on (resting, should it wake).
SLEEP_ON = {"kind": "time", "hours": 8, "activity": "reposo"}


def party_event(
    *,
    campaign: Campaign,
    event: dict,
    watch: frozenset[int] = frozenset(),
    actor: AbstractBaseUser | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """Time or a Descanso for the party, in one transaction, while the PJ in `watch` keep
    watch: they stay awake and get the same time as activity, with what that brings (a
    Descanso's 8 hours, for a Descanso). A PJ already asleep at a Descanso sleeps on: 8
    hours of its sleep (resting, should it wake). The events recorded, the party's first."""
    if event.get("kind") not in ("time", "descanso"):
        raise ValidationError(_("Only time and a Descanso can leave PJ out."), code="invalid")
    with transaction.atomic():
        lock(campaign)
        if done := _tap_done(campaign, idempotency_key):
            return done
        _no_fight_on(campaign)
        watchers = list(
            campaign.characters.filter(pk__in=watch, archived_at__isnull=True).order_by("pk")
        )
        sleepers = []
        if event["kind"] == "descanso":  # a Descanso of one asleep is no event of the rules
            sleepers = list(
                campaign.characters.filter(archived_at__isnull=True, snapshot__state__asleep=True)
                .exclude(pk__in=watch)
                .order_by("pk")
            )
            if set(in_play_ids(campaign=campaign)) <= {c.pk for c in watchers + sleepers}:
                # Nobody awake to take it: the party's 8 hours are its sleep going on.
                event, sleepers = dict(SLEEP_ON), []
        records = [
            event_record(
                campaign=campaign,
                event=event,
                actor=actor,
                idempotency_key=tap_key(idempotency_key, ""),
                leave_out=frozenset(c.pk for c in watchers + sleepers),
            )
        ]
        if event["kind"] == "descanso":
            awake = {"kind": "time", "hours": 8, "activity": "activo"}
        else:
            awake = {k: v for k, v in event.items() if k not in ("activity", "calm", "seed")}
            awake["activity"] = "activo"
        for watcher in watchers:
            records.append(
                event_record(
                    campaign=campaign,
                    character=watcher,
                    event=awake,
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, f":w{watcher.pk}"),
                )
            )
        for sleeper in sleepers:
            records.append(
                event_record(
                    campaign=campaign,
                    character=sleeper,
                    event=dict(SLEEP_ON),
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, f":s{sleeper.pk}"),
                )
            )
    return records


CATCH_UP = ("activo", "reposo", "dormir")


def catch_up(
    *,
    character: Character,
    how: str,
    actor: AbstractBaseUser | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """Bring a PJ's clock level with the party's, the time passing as the DJ says: awake
    (`activo`), resting (`reposo`), or asleep (`dormir`: a Descanso each night, awake
    between, a last short night slept through; a PJ asleep already sleeps on). The events
    recorded, in order."""
    if how not in CATCH_UP:
        raise ValidationError(_("Say how that time passed."), code="invalid")
    with transaction.atomic():
        campaign = lock(character.campaign)
        if done := _tap_done(campaign, idempotency_key, first=":c0"):
            return done
        snapshot = CharacterSnapshot.objects.get(character=character)
        gap = campaign_clock(campaign=campaign) - snapshot.state["clock"]
        if gap <= 0:
            raise ValidationError(
                _("%(name)s is not behind the party.") % {"name": character.name},
                code="level",
            )
        steps = _catch_up_steps(gap, how, asleep=snapshot.state["engine"]["asleep"])
        return [
            event_record(
                campaign=campaign,
                character=character,
                event=event,
                actor=actor,
                idempotency_key=tap_key(idempotency_key, f":c{i}"),
            )
            for i, event in enumerate(steps)
        ]


ROLL_ALL_MAX = 50  # rolls in one "Tirar todas": a long stretch's pile takes a few taps


@dataclass
class RolledAll:
    """What one "Tirar todas" recorded: each roll, oldest first, with its die and score,
    and why it stopped short of the checks still pending (`stopped`: "" when none is left,
    "changed", "no_score" or "limit")."""

    records: list[StateEvent]
    rolls: list[tuple[int, int | str] | None]
    left: int
    stopped: str


def checks_roll_all(
    *,
    character: Character,
    actor: AbstractBaseUser | None = None,
    idempotency_key: str = "",
    die: Callable[[], int] | None = None,
) -> RolledAll:
    """Roll a PJ's pending checks one after another, oldest first, 1d6 against its score,
    each roll recorded as its own event (one tap: Deshacer takes them back together).

    Stops after the first roll that changes the PJ (its boxes, E.Esp, sleep, or which
    checks still wait): what the next checks mean may have changed with it, so the DJ
    sees it before rolling on. Also stops at a check the PJ has no score for, and after
    ROLL_ALL_MAX rolls. Refused when nothing is pending, or the first check has no score.
    """
    die = die or (lambda: secrets.randbelow(6) + 1)
    scores = character.attributes or {}
    with transaction.atomic():
        campaign = lock(character.campaign)
        if idempotency_key and (done := _rolled_before(campaign, idempotency_key)):
            left = len(CharacterSnapshot.objects.get(character=character).state["pending"])
            return RolledAll(done, [_roll_of(e, scores) for e in done], left, "")
        records, rolls, stopped = [], [], ""
        state = CharacterSnapshot.objects.get(character=character).state
        if not state["pending"]:
            raise ValidationError(
                _("%(name)s has no checks to roll.") % {"name": character.name}, code="none"
            )
        while state["pending"]:
            if len(records) == ROLL_ALL_MAX:
                stopped = "limit"
                break
            check = state["pending"][0]["check"]
            attribute = rules.CHECKS[check][0]
            score = scores.get(attribute)
            if not isinstance(score, int):
                if not records:
                    raise ValidationError(
                        _(
                            "%(name)s has no %(attribute)s score: add it to the PJ, or mark "
                            "success or failure."
                        )
                        % {"name": character.name, "attribute": attribute},
                        code="no_score",
                    )
                stopped = "no_score"
                break
            rolled = die()
            records.append(
                event_record(
                    campaign=campaign,
                    character=character,
                    event={
                        "kind": "save",
                        "check": check,
                        "success": rolled <= score,
                        "ts_roll": rolled,
                    },
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, f":r{len(records)}"),
                )
            )
            rolls.append((rolled, score))
            after = CharacterSnapshot.objects.get(character=character).state
            if _changed_besides_the_roll(state, after):
                stopped = "changed" if after["pending"] else ""
                state = after
                break
            state = after
        return RolledAll(records, rolls, len(state["pending"]), stopped)


def _rolled_before(campaign: Campaign, key: str) -> list[StateEvent]:
    """The rolls a repeated "Tirar todas" tap recorded the first time, oldest first."""
    first = event_by_key(campaign=campaign, key=tap_key(key, ":r0"))
    return sorted(tap_of(event=first), key=lambda e: e.seq) if first is not None else []


def _roll_of(event: StateEvent, scores: dict) -> tuple[int, int | str] | None:
    """The die and score of a roll recorded before, for its toast; None for an event that
    is no roll (a key a client made up), and "?" for a score the PJ no longer has."""
    check = event.event.get("check")
    if event.event.get("kind") != "save" or check not in rules.CHECKS:
        return None
    if not isinstance(event.event.get("ts_roll"), int):
        return None
    return event.event["ts_roll"], scores.get(rules.CHECKS[check][0], "?")


def _changed_besides_the_roll(before: dict, after: dict) -> bool:
    """Whether a roll changed more than taking its own check off the list."""
    if [p["check"] for p in after["pending"]] != [p["check"] for p in before["pending"]][1:]:
        return True
    skip = {"pending", rules.ENGINE_KEY}
    return any(before[k] != after[k] for k in before if k not in skip)


def _catch_up_steps(gap: int, how: str, *, asleep: bool) -> list[dict]:
    def awake(seconds: int, activity: str = "activo") -> dict:
        minutes = seconds // 60 if seconds % 60 == 0 else seconds / 60
        return {"kind": "time", "minutes": minutes, "activity": activity}

    if asleep:
        return [awake(gap, "reposo")]  # the sleep goes on (sleep is Reposo)
    if how != "dormir":
        return [awake(gap, how)]
    # Each day a night first (a Descanso), then the day awake; a last night shorter than
    # 8 h is slept through, waking at the party's time.
    steps, left, night, day = [], gap, 8 * 3600, 16 * 3600
    while left > 0:
        if left >= night:
            steps.append({"kind": "descanso"})
            left -= night
        else:
            steps.append({"kind": "sleep", "hours": left / 3600 if left % 3600 else left // 3600})
            left = 0
        if left > 0:
            steps.append(awake(min(left, day)))
            left -= min(left, day)
    return steps


def round_pass(
    *, campaign: Campaign, actor: AbstractBaseUser | None = None, idempotency_key: str = ""
) -> list[StateEvent]:
    """A round passes for the whole party, in one transaction: first the turn end of every
    PJ in Shock grave whose turn end was not recorded this round (so its end-of-turn TS VOL,
    R13, is never skipped), then the round. The events recorded, in order.
    """
    with transaction.atomic():
        lock(campaign)
        if done := _tap_done(campaign, idempotency_key):
            return done
        _no_fight_on(campaign)
        return round_records(campaign=campaign, actor=actor, idempotency_key=idempotency_key)


def _tap_done(campaign: Campaign, key: str, *, first: str = "") -> list[StateEvent]:
    """The events a repeated tap recorded the first time, oldest first ([] when its first
    event's key, `key` with the suffix `first`, is not taken). A tap of several events is
    done once: a second one with the same key records nothing more, whatever its form says
    now (other watch boxes, another way to catch up) or however the party moved on since."""
    found = event_by_key(campaign=campaign, key=tap_key(key, first))
    return sorted(tap_of(event=found), key=lambda e: e.seq) if found is not None else []


def turn_end_record(
    *, campaign: Campaign, character: Character, actor: AbstractBaseUser | None, key: str
) -> StateEvent:
    """A PJ's turn end as one step of a tap (a round, a fight's pass): keyed ":t<pk>"."""
    return event_record(
        campaign=campaign,
        character=character,
        event={"kind": "turn_end"},
        actor=actor,
        idempotency_key=tap_key(key, f":t{character.pk}"),
    )


def round_records(
    *,
    campaign: Campaign,
    actor: AbstractBaseUser | None,
    idempotency_key: str,
    suffix: str = "",
) -> list[StateEvent]:
    """The round's events, inside the caller's transaction: the turn ends still missing
    (turn_end_missing), then one round of time, keyed as one tap (the round's own key is
    `idempotency_key` plus `suffix`)."""
    records = [
        turn_end_record(campaign=campaign, character=character, actor=actor, key=idempotency_key)
        for character in turn_end_missing(campaign=campaign)
    ]
    records.append(
        event_record(
            campaign=campaign,
            event={"kind": "time", "rounds": 1},
            actor=actor,
            idempotency_key=tap_key(idempotency_key, suffix),
        )
    )
    return records


def events_void(
    *, events: list[StateEvent], actor: AbstractBaseUser | None = None, reason: str = ""
) -> None:
    """Void several events as one (a tap's), newest first: all, or none when one refuses."""
    with transaction.atomic():
        for event in sorted(events, key=lambda e: -e.seq):
            event_void(event=event, actor=actor, reason=reason)


def event_void(
    *, event: StateEvent, actor: AbstractBaseUser | None = None, reason: str = ""
) -> StateEvent:
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
        refusals = []
        for character in touched:
            try:
                _refold_without(
                    character=character,
                    voided=event,
                    options=options,
                    changed_events=changed_events,
                )
            except EventVoidRefused as refused:
                refusals.append(refused)
        if refusals:
            # Leaving the atomic block by this exception rolls back every re-fold.
            raise min(refusals, key=lambda refused: refused.blocking_event.seq)
        StateEvent.objects.bulk_update(changed_events.values(), ["effects"])
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
) -> None:
    """Re-apply a PJ's events after `voided`, starting from its state just before it."""
    base = snapshot_before(character_id=character.pk, seq=voided.seq)
    state = base.state if base else rules.initial_state()
    last_seq = base.seq if base else character.joined_seq
    later = list(character_log(character=character).filter(seq__gt=voided.seq))
    saved = {
        s.event_id: s for s in EventSnapshot.objects.filter(character=character, event__in=later)
    }
    key = str(character.pk)
    for later_event in later:
        try:
            state, effects = rules.apply(state, later_event.event, options)
        except RuleError as err:
            raise EventVoidRefused(
                event=voided,
                blocking_event=later_event,
                character=character,
                error=err,
            ) from err
        later_event = changed_events.setdefault(later_event.pk, later_event)
        later_event.effects = {**later_event.effects, key: effects}
        saved[later_event.pk].state = state
        last_seq = later_event.seq
    EventSnapshot.objects.bulk_update(saved.values(), ["state"])
    CharacterSnapshot.objects.filter(character=character).update(
        state=state, seq=last_seq, updated_at=timezone.now()
    )
