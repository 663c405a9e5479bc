"""The party's time: time or a Descanso for every PJ in play (some keeping watch, all
along or by turns, those asleep sleeping on), a PJ catching up with the party's clock, and
rounds (with the turn ends they need, and in a fight each one's effort)."""

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import Campaign, Character, CharacterSnapshot, StateEvent
from ..selectors import (
    campaign_clock,
    fight_now,
    party_ids,
    party_members,
    round_reach,
    turn_end_missing,
)
from .changes import lock
from .events import event_record, tap_done, tap_key


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


DESCANSO_MINUTES = 8 * 60
DESCANSO_SLEEP = 6 * 60  # R22: the sleep a Descanso needs


def _hours(minutes: int) -> int | float:
    return minutes // 60 if minutes % 60 == 0 else minutes / 60


def watch_steps(start: int, end: int, span: int = DESCANSO_MINUTES) -> list[dict]:
    """One PJ's night around its watch, from `start` to `end` minutes into a Descanso of
    `span`: awake (activo) on watch, asleep the rest, as the rules' events.

    Sleep cut in two by a watch yet adding up to a Descanso's 6 hours (a watch of 2 h in
    8) is one: the watch is recorded first and the sleep in one piece after it, so the
    rules, which count a Descanso from one sleep of 6 hours (R22, R23), give it. Otherwise
    the night is recorded in its order (a sleep shorter than 6 hours is no Descanso)."""
    before, after = start, span - end
    awake = {"kind": "time", "minutes": end - start, "activity": "activo"}
    if before and after and before + after >= DESCANSO_SLEEP:
        return [awake, {"kind": "sleep", "hours": _hours(before + after)}]
    steps: list[dict] = [{"kind": "sleep", "hours": _hours(before)}] if before else []
    steps.append(awake)
    if after:
        steps.append({"kind": "sleep", "hours": _hours(after)})
    return steps


class WatchRefused(ValidationError):
    """A watch by turns refused: `pk` is the PJ whose watch it is."""

    def __init__(self, message: str, *, pk: int) -> None:
        super().__init__(message, code="watch")
        self.pk = pk


def party_event(
    *,
    campaign: Campaign,
    event: dict,
    watch: frozenset[int] = frozenset(),
    shifts: Sequence[tuple[int, int, int]] = (),
    actor: User | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """Time or a Descanso for the party, in one transaction, while the PJ in `watch` keep
    watch: they stay awake and get the same time as activity, with what that brings (a
    Descanso's 8 hours, for a Descanso). In a Descanso, `shifts` are watches by turns, (pk,
    from, to) in minutes into its 8 hours: each of those PJ sleeps the rest (watch_steps).
    A PJ already asleep (its own sleep, or R24's faint) and not on watch sleeps on with the
    party (rules v2.2: the Descanso reaches it too, and it wakes with them). The events
    recorded, the party's first; Deshacer takes them back together."""
    if event.get("kind") not in ("time", "descanso"):
        raise ValidationError(_("Only time and a Descanso can leave PJ out."), code="invalid")
    if shifts and event["kind"] != "descanso":
        raise ValidationError(_("Watches by turns are for the party Descanso."), code="shifts")
    with transaction.atomic():
        lock(campaign)
        if done := tap_done(campaign, idempotency_key):
            return done
        _no_fight_on(campaign)
        party = party_members(campaign=campaign)
        watchers = list(party.filter(pk__in=watch))
        on_shift = {
            c.pk: c
            for c in party.filter(pk__in=[pk for pk, _s, _e in shifts]).select_related("snapshot")
        }
        for pk, _start, _end in shifts:
            if pk not in on_shift:
                raise WatchRefused(_("Unknown PJ."), pk=pk)
            if on_shift[pk].snapshot.state["asleep"]:
                raise WatchRefused(
                    _("%(name)s is asleep: wake them before their watch, or leave it out.")
                    % {"name": on_shift[pk].name},
                    pk=pk,
                )
        on_watch = {c.pk for c in watchers} | set(on_shift)  # awake some hours, or all
        members = party_ids(campaign=campaign)
        records = []
        # All on watch (by turns, often): no party event. Nobody at all: its error.
        if not (on_watch and members <= on_watch):
            records.append(
                event_record(
                    campaign=campaign,
                    event=event,
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, ""),
                    leave_out=frozenset(on_watch),
                )
            )
        if event["kind"] == "descanso":
            awake = {"kind": "time", "hours": 8, "activity": "activo"}
        else:
            awake = {k: v for k, v in event.items() if k not in ("activity", "calm", "seed")}
            awake["activity"] = "activo"
        # Each PJ on watch gets its events keyed ":w<n>", n counting every one of them (the
        # first has the tap's own key when there is no party event: a repeat finds it).
        nights = [(c, [awake]) for c in watchers]
        nights += [(on_shift[pk], watch_steps(start, end)) for pk, start, end in shifts]
        steps = [(c, step) for c, night in nights for step in night]
        anchored = bool(records)
        for n, (watcher, step) in enumerate(steps):
            suffix = f":w{n}" if anchored or n else ""
            records.append(
                event_record(
                    campaign=campaign,
                    character=watcher,
                    event=step,
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, suffix),
                )
            )
    return records


CATCH_UP = ("activo", "reposo", "dormir")


def catch_up(
    *,
    character: Character,
    how: str,
    actor: User | None = None,
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
        if done := tap_done(campaign, idempotency_key, first=":c0"):
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
    steps: list[dict] = []
    left, night, day = gap, 8 * 3600, 16 * 3600
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
    *, campaign: Campaign, actor: User | None = None, idempotency_key: str = ""
) -> list[StateEvent]:
    """A round passes for the whole party, in one transaction: first the turn end of every
    PJ in Shock grave whose turn end was not recorded this round (so its end-of-turn TS VOL,
    R13, is never skipped), then the round. The events recorded, in order.
    """
    with transaction.atomic():
        lock(campaign)
        if done := tap_done(campaign, idempotency_key):
            return done
        _no_fight_on(campaign)
        return round_records(campaign=campaign, actor=actor, idempotency_key=idempotency_key)


def turn_end_record(
    *, campaign: Campaign, character: Character, actor: User | None, key: str
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
    actor: User | None,
    idempotency_key: str,
    suffix: str = "",
) -> list[StateEvent]:
    """The round's events, inside the caller's transaction: the turn ends still missing
    (turn_end_missing), then one round of time, keyed as one tap (the round's own key is
    `idempotency_key` plus `suffix`).

    In a fight with the option `esfuerzo_prolongado` (R27, rules v2.2), the round is
    esfuerzo for each one of the order who can act as it passes (and has a FUE score for
    the rule to count), unless the DJ marked it as not exerting itself: the round reaches
    them as one `esfuerzo` event, after a plain round for each of the others it reaches
    (keyed ":q<pk>"), so that every round stays one campaign-wide event."""
    records = [
        turn_end_record(campaign=campaign, character=character, actor=actor, key=idempotency_key)
        for character in turn_end_missing(campaign=campaign)
    ]
    exerting, others = _effort(campaign)
    round_event: dict = {"kind": "time", "rounds": 1}
    if exerting:
        for character in others:
            records.append(
                event_record(
                    campaign=campaign,
                    character=character,
                    event=dict(round_event),
                    actor=actor,
                    idempotency_key=tap_key(idempotency_key, f":q{character.pk}"),
                )
            )
        round_event["activity"] = "esfuerzo"
    records.append(
        event_record(
            campaign=campaign,
            event=round_event,
            actor=actor,
            idempotency_key=tap_key(idempotency_key, suffix),
            leave_out=frozenset(c.pk for c in others) if exerting else frozenset(),
        )
    )
    return records


def _effort(campaign: Campaign) -> tuple[list[Character], list[Character]]:
    """R27 (v2.2): those a fight's round reaches who exert themselves in it, and the others
    it reaches ([] and [] but in a fight with the option on)."""
    if not campaign.esfuerzo_prolongado:
        return [], []
    now = fight_now(campaign=campaign)
    if now is None:
        return [], []
    calm = {pk for slot in now.order if not slot.esfuerzo for pk in slot.members}
    exerting, others = [], []
    for character in round_reach(campaign=campaign, fight=now).select_related("snapshot"):
        state = character.snapshot.state
        if (
            character.pk in now.fighting
            and character.pk not in calm
            and state["can_act"]
            and "FUE" in state["engine"]["scores"]
        ):
            exerting.append(character)
        else:
            others.append(character)
    return exerting, others
