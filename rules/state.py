"""The state the engine shows (SPEC section 8): marks, active grades, modifiers, checks."""

from __future__ import annotations

from rules.engine import Char
from rules.vocab import (
    ACTIVE_ORDER,
    BIT,
    FLEE_FIGHT_SCORES,
    GRADES,
    MODIFIED_SCORES,
    OBSTACULO,
    PERSISTENTE,
    PHYSICAL_SCORES,
    TYPES,
)

# The marked grades of every bit pattern, in grade order (copied on output).
_MARK_LISTS = [[g for g in GRADES if bits & BIT[g]] for bits in range(8)]
_ACTIVE = [next((g for g, bit in ACTIVE_ORDER if bits & bit), None) for bits in range(8)]
_CAP = -3


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
        k: max(_CAP, raw_modifier(active, emotion_grave, k, None))
        for k in (*MODIFIED_SCORES, "otro")
    }
    flee = {k: max(_CAP, raw_modifier(active, emotion_grave, k, "flee")) for k in FLEE_FIGHT_SCORES}
    fight = {
        k: max(_CAP, raw_modifier(active, emotion_grave, k, "fight")) for k in FLEE_FIGHT_SCORES
    }
    return ordinary, flee, fight


def public(c: Char) -> dict:
    """The SPEC section 8 state of `c`, as a fresh JSON-ready dict."""
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


def action_modifier(
    state: dict, attribute: str, purpose: str | None = None, situational: tuple[int, ...] = ()
) -> int:
    """R20: the total for one action, situational Obstáculo (-N) and Facilidad (+N) included.

    Everything is added first and the cap applies last, so a Facilidad cannot lift a PJ out
    of a penalty that was already past -3.
    """
    key = attribute.upper()
    if key not in MODIFIED_SCORES:
        key = "otro"
    raw = raw_modifier(state["active"], state["emotion"]["grave"], key, purpose)
    return max(_CAP, raw + sum(situational))


__all__ = [
    "action_modifier",
    "emotion_modifiers",
    "modifier_sources",
    "modifiers",
    "public",
    "raw_modifier",
]
