"""The state the engine shows (rules/README.md section 8): marks, active grades, modifiers,
checks."""

from __future__ import annotations

from dataclasses import dataclass

from rules.engine import Char
from rules.vocab import (
    ACTIVE_ORDER,
    BIT,
    CHECKS,
    FLEE_FIGHT_SCORES,
    GRADES,
    MODIFIED_SCORES,
    OBSTACULO,
    PERSISTENTE,
    PHYSICAL_SCORES,
    TYPES,
    VARIANTS,
)

# The marked grades of every bit pattern, in grade order (copied on output).
_MARK_LISTS = [[g for g in GRADES if bits & BIT[g]] for bits in range(8)]
_ACTIVE = [next((g for g, bit in ACTIVE_ORDER if bits & bit), None) for bits in range(8)]
CAP = -3  # R20: no total of modifiers goes below this


def emotion_modifiers(active: str | None, variant: str | None) -> tuple[int, int, int]:
    """R16: (every other action, FUE/VOL to flee, FUE/VOL to fight) for the active Emoción."""
    if active is None:
        return 0, 0, 0
    if active == "leve":
        return -1, 1, 1
    if active == "persistente":
        return -2, -2, -2
    if variant == "terror":
        return -3, 1, -3
    return -3, -3, 1  # ira


def modifier_sources(
    active: dict, emotion_grave: str | None, key: str, purpose: str | None
) -> list[tuple[str, str, int]]:
    """R20/R21 before the cap, source by source: (type, rule, value) for each E.Alt that
    modifies one kind of action, in the order the cards list them.

    `key` is FUE, AGI, DES, VOL or otro; `purpose` is "flee" or "fight" (FUE and VOL only).
    """
    sources = []
    if active["heridas"] and key in PHYSICAL_SCORES:
        sources.append(("heridas", "R4", OBSTACULO[active["heridas"]]))
    if active["fatiga"]:
        sources.append(("fatiga", "R9", OBSTACULO[active["fatiga"]]))
    other, flee, fight = emotion_modifiers(active["emocion"], emotion_grave)
    value = other
    if purpose == "flee" and key in FLEE_FIGHT_SCORES:
        value = flee
    elif purpose == "fight" and key in FLEE_FIGHT_SCORES:
        value = fight
    if value:
        sources.append(("emocion", "R16", value))
    return sources


def raw_modifier(active: dict, emotion_grave: str | None, key: str, purpose: str | None) -> int:
    """R20/R21 before the cap: every type's Obstáculo and Facilidad for one kind of action."""
    return sum(
        value for _type, _rule, value in modifier_sources(active, emotion_grave, key, purpose)
    )


def modifiers(active: dict, emotion_grave: str | None) -> tuple[dict, dict, dict]:
    """R20: ordinary, flee and fight modifiers, each total never below -3."""
    ordinary = {
        k: max(CAP, raw_modifier(active, emotion_grave, k, None))
        for k in (*MODIFIED_SCORES, "otro")
    }
    flee = {k: max(CAP, raw_modifier(active, emotion_grave, k, "flee")) for k in FLEE_FIGHT_SCORES}
    fight = {
        k: max(CAP, raw_modifier(active, emotion_grave, k, "fight")) for k in FLEE_FIGHT_SCORES
    }
    return ordinary, flee, fight


def public(c: Char) -> dict:
    """The rules/README.md section 8 state of `c`, as a fresh JSON-ready dict."""
    bits = dict(c.marks)
    if c.asleep:
        bits["shock"] |= PERSISTENTE  # R23: sleep shows as Shock persistente
    marks = {t: list(_MARK_LISTS[bits[t]]) for t in TYPES}
    active = {t: _ACTIVE[bits[t]] for t in TYPES}
    specials = set(c.specials)
    specials.update(c.afflictions)
    if bits["shock"]:
        specials.add("desprevenido")  # R12
        if bits["shock"] & PERSISTENTE:
            specials.add("inconsciente")  # R13
    if c.asleep:
        specials.add("dormido")
    ordinary, flee, fight = modifiers(active, c.emotion["grave"])
    return {
        "clock": c.clock,
        "marks": marks,
        "active": active,
        "emotion": dict(c.emotion),
        "afflictions": list(c.afflictions),
        "specials": sorted(specials),
        "can_act": not (bits["shock"] or c.asleep or "incapacitado" in specials),
        "asleep": c.asleep,
        "modifiers": ordinary,
        "modifiers_flee": flee,
        "modifiers_fight": fight,
        "medicine_obstacle": OBSTACULO.get(active["afeccion"] or "", 0),
        "pending": [dict(p) for p in c.pending],
    }


@dataclass(frozen=True)
class Breakdown:
    """R20/R21 for one action: each E.Alt's part (type, rule, value) before the cap, the
    situational modifier, their sum, and the total after the cap."""

    sources: list[tuple[str, str, int]]
    situational: int
    raw: int
    total: int

    @property
    def capped(self) -> bool:
        return self.total != self.raw


def action_breakdown(
    state: dict, attribute: str, purpose: str | None = None, situational: int = 0
) -> Breakdown:
    """R20: the parts and the total of one action, situational Obstáculo (-N) and Facilidad
    (+N) included. Everything is added first and the cap applies last, so a Facilidad cannot
    lift a character out of a penalty that was already past -3.

    `attribute` is a score (FUE, AGI, DES, VOL; any other counts as "otro"); `purpose` is
    None, "flee" or "fight" (FUE and VOL only)."""
    key = attribute.upper()
    if key not in MODIFIED_SCORES:
        key = "otro"
    sources = modifier_sources(state["active"], state["emotion"]["grave"], key, purpose)
    raw = sum(value for _type, _rule, value in sources) + situational
    return Breakdown(sources, situational, raw, max(CAP, raw))


def action_modifier(
    state: dict, attribute: str, purpose: str | None = None, situational: tuple[int, ...] = ()
) -> int:
    """R20: the total for one action (action_breakdown's), situational modifiers added."""
    return action_breakdown(state, attribute, purpose, sum(situational)).total


def _ints(value: object, keys: tuple[str, ...]) -> bool:
    return isinstance(value, dict) and all(type(value.get(k)) is int for k in keys)


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(n, str) for n in value)


def is_public_state(value: object) -> bool:
    """Whether `value` has the shape of a public state (section 8), every key of the type
    `public` gives it: what a page that shows a stored state (an end-of-session sheet from
    a backup) can read without failing."""
    if not isinstance(value, dict):
        return False
    marks, active, emotion = value.get("marks"), value.get("active"), value.get("emotion")
    if not (isinstance(marks, dict) and isinstance(active, dict) and isinstance(emotion, dict)):
        return False
    for t in TYPES:
        marked = marks.get(t)
        if not isinstance(marked, list) or not set(marked) <= set(GRADES):
            return False
        if active.get(t) not in (None, *GRADES):
            return False
    keys = ("leve", "grave", "grave_cause", "persistente")
    if not all(emotion.get(k) is None or isinstance(emotion.get(k), str) for k in keys):
        return False
    # The active Emoción, and an Emoción persistente marked under it, are shown by variant.
    shown = {active["emocion"]} | ({"persistente"} & set(marks["emocion"]))
    if any(emotion.get(g) not in VARIANTS[g] for g in shown - {None}):
        return False
    pending = value.get("pending")
    if not isinstance(pending, list) or not all(
        isinstance(p, dict)
        and p.get("check") in CHECKS
        and isinstance(p.get("attribute"), str)
        and isinstance(p.get("optional"), bool)
        for p in pending
    ):
        return False
    return (
        type(value.get("clock")) is int
        and type(value.get("medicine_obstacle")) is int
        and isinstance(value.get("can_act"), bool)
        and isinstance(value.get("asleep"), bool)
        and _names(value.get("afflictions"))
        and _names(value.get("specials"))
        and _ints(value.get("modifiers"), (*MODIFIED_SCORES, "otro"))
        and _ints(value.get("modifiers_flee"), FLEE_FIGHT_SCORES)
        and _ints(value.get("modifiers_fight"), FLEE_FIGHT_SCORES)
    )


__all__ = [
    "is_public_state",
    "CAP",
    "Breakdown",
    "action_breakdown",
    "action_modifier",
    "emotion_modifiers",
    "modifier_sources",
    "modifiers",
    "public",
    "raw_modifier",
]
