"""One handler per event kind (rules/README.md section 7): validate the event, then let the
engine act."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, overload

from rules import clock, engine, recovery
from rules.engine import Char, Dice
from rules.errors import RuleError
from rules.vocab import (
    ACTIVITIES,
    BIT,
    CHECKS,
    DAY,
    DERIVED_SPECIALS,
    DESCANSO_HOURS,
    ESPECIFICOS,
    GRADES,
    GRAVE,
    HOUR,
    LEVE,
    MINUTE,
    PERSISTENTE,
    PHASE_ORDER,
    TIME_UNITS,
    TYPES,
    VARIANTS,
)

# -- field readers: each raises a RuleError naming the field ----------------------------------


def _choice(ev: dict, field: str, allowed: tuple[str, ...], index: int) -> str:
    value = ev.get(field)
    if value is None:
        raise RuleError("missing_field", index=index, field=field)
    if value not in allowed:
        raise RuleError(
            "bad_choice", index=index, field=field, value=value, allowed=", ".join(allowed)
        )
    return value


def _bool(
    ev: dict, field: str, index: int, *, required: bool = False, default: bool = False
) -> bool:
    value = ev.get(field)
    if value is None:
        if required:
            raise RuleError("missing_field", index=index, field=field)
        return default
    if type(value) is not bool:
        raise RuleError("bad_bool", index=index, field=field)
    return value


@overload
def _positive(ev: dict, field: str, index: int, *, whole: Literal[True]) -> int: ...
@overload
def _positive(ev: dict, field: str, index: int, *, whole: bool = False) -> float | int: ...
def _positive(ev: dict, field: str, index: int, *, whole: bool = False) -> float | int:
    value = ev[field]
    ok = type(value) is int if whole else type(value) in (int, float)
    if not ok or not value > 0 or value != value or value == float("inf"):
        raise RuleError("bad_integer" if whole else "bad_number", index=index, field=field)
    return value


@overload
def _text(ev: dict, field: str, index: int, *, required: Literal[True]) -> str: ...
@overload
def _text(ev: dict, field: str, index: int, *, required: bool = False) -> str | None: ...
def _text(ev: dict, field: str, index: int, *, required: bool = False) -> str | None:
    value = ev.get(field)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        if value is None:
            raise RuleError("missing_field", index=index, field=field)
        raise RuleError("bad_text", index=index, field=field)
    return value.strip()


def _check_name(ev: dict, c: Char, index: int) -> tuple[str, int]:
    name = ev.get("check")
    if name is None:
        raise RuleError("missing_field", index=index, field="check")
    if name not in CHECKS:
        raise RuleError("check_unknown", index=index, field="check", value=name)
    for i, p in enumerate(c.pending):
        if p["check"] == name:
            return name, i
    raise RuleError("check_not_pending", index=index, field="check", value=name)


# -- handlers ---------------------------------------------------------------------------------


def on_start(c: Char, ev: dict, index: int, dice: Dice) -> None:
    if c.n:
        raise RuleError("start_not_first", index=index, field="kind")
    clock = ev.get("clock", 0)
    if type(clock) is not int or clock < 0:
        raise RuleError("bad_integer", index=index, field="clock")
    c.clock = c.last_descanso = c.reposo_since = c.calm_since = clock


def on_attributes(c: Char, ev: dict, index: int, dice: Dice) -> None:
    scores = ev.get("scores")
    if not isinstance(scores, dict) or not all(
        isinstance(k, str) and k.strip() and type(v) is int and v >= 0 for k, v in scores.items()
    ):
        raise RuleError("bad_scores", index=index, field="scores")
    c.scores = {k.strip().upper(): v for k, v in scores.items()}
    c.emit("base", "scores", scores=dict(c.scores))


def on_suffer(c: Char, ev: dict, index: int, dice: Dice) -> None:
    t = _choice(ev, "type", TYPES, index)
    g = _choice(ev, "grade", GRADES, index)
    blow: dict = {}
    variant = ev.get("variant")
    if t == "emocion":
        allowed = VARIANTS[g]
        if variant is None:
            if g != "persistente":
                raise RuleError(
                    "variant_missing", index=index, field="variant", grade=g,
                    allowed=", ".join(allowed),
                )  # fmt: skip
            variant = "abatimiento"
        elif variant not in allowed:
            raise RuleError(
                "variant_grade", index=index, field="variant", value=variant, grade=g,
                allowed=", ".join(allowed),
            )  # fmt: skip
        blow["variant"] = variant
        cause = _text(ev, "cause", index)
        if cause:
            blow["cause"] = cause
    elif variant is not None:
        raise RuleError("variant_outside_emocion", index=index, field="variant")
    especifico = ev.get("especifico")
    if especifico is not None:
        if not c.opt["especificos"]:
            raise RuleError("especifico_option_off", index=index, field="especifico")
        allowed = ESPECIFICOS.get(t, ())
        if especifico not in allowed:
            raise RuleError(
                "especifico_bad", index=index, field="especifico", value=especifico, type=t,
                allowed=", ".join(allowed) or "-",
            )  # fmt: skip
        blow["especifico"] = especifico
    elif c.opt["especificos"] and t == "heridas" and g == "persistente":
        raise RuleError(
            "especifico_missing", index=index, field="especifico",
            allowed=", ".join(ESPECIFICOS["heridas"]),
        )  # fmt: skip
    if t == "afeccion":
        source = _text(ev, "source", index)
        if source:
            blow["source"] = source
    if "duration_minutes" in ev:
        blow["duration_minutes"] = _positive(ev, "duration_minutes", index, whole=True)
    # R13 (v2.2): a Shock leve this blow marks (directly or down a cascade) during the PJ's
    # own turn takes its next turn, not the rest of this one.
    c.own_turn = _bool(ev, "own_turn", index)
    try:
        engine.suffer(c, t, g, "base", dice, blow)
    finally:
        c.own_turn = False


def _curacion(c: Char, ev: dict, index: int) -> bool:
    """R25's limits, shared by `heal` and `surgery`; returns the event's `success`."""
    by_self = _bool(ev, "by_self", index)
    regeneracion = _bool(ev, "regeneracion", index)
    success = _bool(ev, "success", index, default=True)
    if by_self and not regeneracion:
        raise RuleError("self_heal", index=index, field="by_self")
    if c.healed:
        raise RuleError("heal_twice", index=index, field="kind")
    return success


def on_heal(c: Char, ev: dict, index: int, dice: Dice) -> None:
    success = _curacion(c, ev, index)
    if not c.marks["heridas"] & (GRAVE | LEVE):
        raise RuleError("heal_nothing", index=index, field="kind")
    recovery.heal(c, success, dice)


def on_surgery(c: Char, ev: dict, index: int, dice: Dice) -> None:
    success = _curacion(c, ev, index)
    if not c.marks["heridas"] & PERSISTENTE:
        raise RuleError("surgery_nothing", index=index, field="kind")
    recovery.surgery(c, success)


def on_save(c: Char, ev: dict, index: int, dice: Dice) -> None:
    name, i = _check_name(ev, c, index)
    success = _bool(ev, "success", index, required=True)
    del c.pending[i]
    recovery.resolve_check(c, name, success, dice)


def on_dismiss(c: Char, ev: dict, index: int, dice: Dice) -> None:
    name, i = _check_name(ev, c, index)
    if not CHECKS[name][1]:
        raise RuleError("check_mandatory", index=index, field="check", value=name)
    del c.pending[i]
    c.emit(CHECKS[name][2], "check_dismissed", check=name)


def on_time(c: Char, ev: dict, index: int, dice: Dice) -> None:
    units = [u for u in TIME_UNITS if u in ev]
    if len(units) != 1:
        raise RuleError("time_one_unit", index=index, field="rounds")
    unit = units[0]
    if unit == "rounds":
        seconds = _positive(ev, unit, index, whole=True) * c.opt["round_seconds"]
    else:
        scale = {"minutes": MINUTE, "hours": HOUR, "days": DAY}[unit]
        seconds = round(_positive(ev, unit, index) * scale)
    activity = "activo"
    if ev.get("activity") is not None:
        activity = _choice(ev, "activity", ACTIVITIES, index)
    calm = _bool(ev, "calm", index)
    if activity == "esfuerzo":
        if not c.opt["esfuerzo_prolongado"]:
            activity = "activo"
        elif unit in ("hours", "days"):
            raise RuleError("esfuerzo_long", index=index, field=unit)
        elif "FUE" not in c.scores:
            raise RuleError("esfuerzo_no_fue", index=index, field="activity")
    clock.advance(c, c.clock + seconds, activity, calm, dice)


def on_turn_end(c: Char, ev: dict, index: int, dice: Dice) -> None:
    # R13: the turn a Shock leve took is over; a Shock grave asks for its TS VOL. v2.2: a
    # Shock leve marked during this very turn stays, for the PJ's next turn to end it.
    if c.shock_leve_own_turn:
        c.shock_leve_own_turn = False
        c.emit("R13", "kept", type="shock", grade="leve")
    else:
        c.unmark("shock", "leve", "R13")
    if c.marks["shock"] & GRAVE:
        c.raise_check("shock_grave_fin_turno")
    c.turn_ended = True


def on_sleep(c: Char, ev: dict, index: int, dice: Dice) -> None:
    if c.asleep:
        raise RuleError("asleep_already", index=index, field="kind")
    hours = _positive(ev, "hours", index) if ev.get("hours") is not None else None
    descanso = _bool(ev, "descanso", index, default=True)
    _sleep(c, hours, descanso, dice)


def on_descanso(c: Char, ev: dict, index: int, dice: Dice) -> None:
    if c.asleep:
        # R24 with R23 (v2.2): the party lies down for its Descanso around a PJ already
        # asleep (its own sleep or the faint): it sleeps on with them.
        clock.sleep_on(c, DESCANSO_HOURS, dice)
        return
    _sleep(c, DESCANSO_HOURS, True, dice)


def _sleep(c: Char, hours: float | None, descanso: bool, dice: Dice) -> None:
    clock.fall_asleep(c, hours, "R23", descanso=descanso)
    if c.wake_at is not None:
        clock.advance(c, c.wake_at, "reposo", True, dice)  # R23: sleep is calm Reposo


def on_wake(c: Char, ev: dict, index: int, dice: Dice) -> None:
    forced = _bool(ev, "forced", index)
    if not c.asleep:
        raise RuleError("not_asleep", index=index, field="kind")
    clock.wake(c, forced, dice)
    clock.apply_deferred(c)


def on_safe(c: Char, ev: dict, index: int, dice: Dice) -> None:
    recovery.emotion_safe(c)


def on_progress(c: Char, ev: dict, index: int, dice: Dice) -> None:
    if _choice(ev, "type", TYPES, index) != "afeccion":
        raise RuleError("progress_type", index=index, field="type")
    phase = engine.afeccion_phase(c)
    if phase is None:
        raise RuleError("progress_none", index=index, field="type")
    if phase == "persistente":
        raise RuleError("progress_max", index=index, field="type")
    engine.move_phase(c, phase, PHASE_ORDER[PHASE_ORDER.index(phase) + 1], "R18")


def on_recover(c: Char, ev: dict, index: int, dice: Dice) -> None:
    t = _choice(ev, "type", TYPES, index)
    g = _choice(ev, "grade", GRADES, index)
    if not c.marks[t] & BIT[g]:
        if t == "shock" and g == "persistente" and c.asleep:
            raise RuleError("recover_sleep", index=index, field="grade")
        raise RuleError("recover_not_marked", index=index, field="grade", type=t, grade=g)
    c.unmark(t, g, "DJ")
    if t == "afeccion":
        for source in c.afflictions:
            c.emit("DJ", "special_off", name=source)
        c.afflictions = []


def on_special(c: Char, ev: dict, index: int, dice: Dice) -> None:
    name = _text(ev, "name", index, required=True)
    on = _bool(ev, "on", index, required=True)
    if name in DERIVED_SPECIALS:
        raise RuleError("special_derived", index=index, field="name", value=name)
    if on:
        c.special_on(name, "DJ")
    elif name in c.specials:
        c.specials.remove(name)
        c.emit("DJ", "special_off", name=name)
    elif name in c.afflictions:
        c.afflictions.remove(name)
        c.emit("DJ", "special_off", name=name)
    else:
        raise RuleError("special_missing", index=index, field="name", value=name)


HANDLERS: dict[str, Callable[[Char, dict, int, Dice], None]] = {
    "start": on_start,
    "attributes": on_attributes,
    "suffer": on_suffer,
    "heal": on_heal,
    "surgery": on_surgery,
    "save": on_save,
    "dismiss": on_dismiss,
    "time": on_time,
    "turn_end": on_turn_end,
    "sleep": on_sleep,
    "wake": on_wake,
    "descanso": on_descanso,
    "safe": on_safe,
    "progress": on_progress,
    "recover": on_recover,
    "special": on_special,
}

# Kinds whose handler can never drop a pending check, so the prune pass can be skipped.
_NO_PRUNE = frozenset({"start", "attributes", "dismiss", "turn_end", "special"})


def step(c: Char, ev: object) -> None:
    """Apply one event to `c` in place; on a RuleError `c` may be half-changed (callers copy)."""
    index = c.n
    if not isinstance(ev, dict):
        raise RuleError("not_an_object", index=index)
    kind = ev.get("kind")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        if kind is None:
            raise RuleError("missing_field", index=index, field="kind")
        raise RuleError("unknown_kind", index=index, field="kind", value=kind)
    handler(c, ev, index, Dice(ev, index))
    if c.pending and kind not in _NO_PRUNE:
        c.prune_checks()
    c.n = index + 1
