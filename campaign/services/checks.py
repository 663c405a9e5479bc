"""Checks: "Tirar todas", a PJ's pending checks rolled one after another."""

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules

from ..models import Campaign, Character, CharacterSnapshot, StateEvent
from ..selectors import event_by_key, tap_of
from .changes import lock
from .events import event_record, tap_key

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
    actor: User | None = None,
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
        records: list[StateEvent] = []
        rolls: list[tuple[int, int | str] | None] = []
        stopped = ""
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
                            "%(name)s has no %(attribute)s score: add it to their sheet (Edit), "
                            "or mark success or failure."
                        )
                        % {
                            "name": character.name,
                            "attribute": rules.texts.score_label(attribute, get_language() or "es"),
                        },
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
