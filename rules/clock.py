"""Time, sleep and Descanso (rules/README.md section 5): the timers that fire as the game
clock moves."""

from __future__ import annotations

from rules.engine import Char, Dice, suffer
from rules.vocab import (
    DAY,
    DESCANSO_SLEEP,
    GRAVE,
    HOUR,
    LEVE,
    MINUTE,
    PERSISTENTE,
    PERSISTENTE_MONTH,
    PERSISTENTE_WEEK,
)

# Timer kinds, in the order they fire when they fall at the same instant.
_T_FATIGA_LEVE, _T_FATIGA_GRAVE, _T_EMOCION, _T_SHOCK_LEVE, _T_SHOCK_END = 0, 1, 2, 3, 4
_T_WAKE, _T_INFECCION, _T_SIN_DESCANSO, _T_DEFERRED, _T_ESFUERZO = 5, 6, 7, 8, 9


# C901 on purpose: one loop over every timer kind in time order, a branch a rule.
def advance(c: Char, target: int, activity: str, calm: bool, dice: Dice) -> None:  # noqa: C901
    """Move the clock to `target`, firing every timer that falls on the way, in time order."""
    if target > c.clock:
        c.turn_ended = False  # time passing starts a new round (R13) ...
        c.shock_leve_own_turn = False  # ... so the turn under way is over (v2.2)
    while True:
        asleep = c.asleep
        act = "reposo" if asleep else activity
        if act == "esfuerzo":
            if c.esfuerzo_since is None:
                c.esfuerzo_since = c.clock
                c.esfuerzo_minutes = 0
        else:
            c.esfuerzo_since = None
        best = target + 1
        kind = -1
        marks = c.marks
        since = c.since
        if act == "reposo":
            f = marks["fatiga"]
            if f & LEVE:
                t = max(since["fatiga.leve"], c.reposo_since) + MINUTE
                if t < best:
                    best, kind = t, _T_FATIGA_LEVE
            if f & GRAVE:
                t = max(since["fatiga.grave"], c.reposo_since) + HOUR
                if t < best:
                    best, kind = t, _T_FATIGA_GRAVE
            if (calm or asleep) and marks["emocion"] & LEVE:  # R23: sleep is calm Reposo
                t = max(since["emocion.leve"], c.calm_since, c.reposo_since) + MINUTE
                if t < best:
                    best, kind = t, _T_EMOCION
        s = marks["shock"]
        if s & LEVE:
            t = since["shock.leve"] + c.opt["round_seconds"] * c.shock_leve_rounds
            if t < best:
                best, kind = t, _T_SHOCK_LEVE
        if c.shock_end is not None and c.shock_end < best:
            best, kind = c.shock_end, _T_SHOCK_END
        if asleep and c.wake_at is not None and c.wake_at < best:
            best, kind = c.wake_at, _T_WAKE
        if marks["heridas"] & GRAVE:
            t = since["heridas.grave"] + DAY * (c.infection_days + 1)
            if t < best:
                best, kind = t, _T_INFECCION
        t = c.last_descanso + DAY * (c.days_without + 1)
        if t < best:
            best, kind = t, _T_SIN_DESCANSO
        if c.deferred and not asleep and c.clock < best:
            best, kind = c.clock, _T_DEFERRED  # a waking without Descanso applies them now
        if act == "esfuerzo" and c.esfuerzo_since is not None:  # always set, just above
            # R27: the next whole minute of the streak not yet judged, and above the FUE in
            # force now; minutes already passed were judged with the FUE of their time.
            t = c.esfuerzo_since + MINUTE * (max(c.esfuerzo_minutes, c.scores["FUE"]) + 1)
            if t < best:
                best, kind = t, _T_ESFUERZO
        if kind < 0:
            break
        if best > c.clock:
            c.clock = best
        _fire(c, kind, dice)
        if c.pending:
            c.prune_checks()
    c.clock = target
    if c.esfuerzo_since is not None:  # every minute ending by now has been judged
        c.esfuerzo_minutes = (target - c.esfuerzo_since) // MINUTE
    # Reposo and calm count from the end of the last time that was neither; sleep is both
    # (R23), so it resets neither count.
    if not c.asleep:
        if activity != "reposo":
            c.reposo_since = target
            c.calm_since = target
        elif not calm:
            c.calm_since = target


def _fire(c: Char, kind: int, dice: Dice) -> None:
    if kind == _T_FATIGA_LEVE:
        c.unmark("fatiga", "leve", "R10")
    elif kind == _T_FATIGA_GRAVE:
        c.unmark("fatiga", "grave", "R10")
    elif kind == _T_EMOCION:
        c.unmark("emocion", "leve", "R17")
    elif kind == _T_SHOCK_LEVE:
        c.unmark("shock", "leve", "R13")
    elif kind == _T_SHOCK_END:
        for g in ("leve", "grave", "persistente"):
            c.unmark("shock", g, "R13")
        c.special_on("derribado", "R13")
    elif kind == _T_WAKE:
        wake(c, False, dice)
    elif kind == _T_INFECCION:
        c.infection_days += 1
        c.raise_check("heridas_grave_infeccion")
    elif kind == _T_SIN_DESCANSO:
        c.days_without += 1
        if c.asleep:
            c.deferred += 1  # decided at the waking (R24 Decision)
        else:
            day_without_descanso(c)
    elif kind == _T_DEFERRED:
        apply_deferred(c)
    else:
        assert c.esfuerzo_since is not None  # _T_ESFUERZO is only scheduled during a streak
        c.esfuerzo_minutes = (c.clock - c.esfuerzo_since) // MINUTE
        c.raise_check("esfuerzo_prolongado")


def day_without_descanso(c: Char) -> None:
    # R24: a state, not a blow: no R2, no R8.
    c.mark("fatiga", "persistente", "R24")
    c.persistente_descansos = 0  # R6: a month (or week) of Descanso must be unbroken
    c.raise_check("sin_descanso")


def fall_asleep(
    c: Char, hours: float | None, rule: str, *, faint: bool = False, descanso: bool = True
) -> None:
    c.asleep = True
    c.sleep_start = c.clock
    c.wake_at = None if hours is None else c.clock + round(hours * HOUR)
    c.faint = faint
    c.sleep_descanso = descanso
    extra: dict = {} if hours is None else {"hours": hours}
    if not descanso:
        extra["descanso"] = False
    c.emit(rule, "asleep", **extra)


def sleep_on(c: Char, hours: int, dice: Dice) -> None:
    """R24 with R23 (v2.2): the party lies down for `hours` while the PJ already sleeps.

    Its sleep goes on until the party wakes, counted from when it fell asleep (the faint's
    hours count towards the 6 of a Descanso). A faint (at most R24's 6 h from its check,
    so shorter than the party's night) ends inside that sleep and the PJ sleeps on; waking
    with the party is an ordinary waking: no `derribado`.
    """
    party_wake = c.clock + hours * HOUR
    c.emit("R24", "sleeps_on", hours=hours)
    faint_end = c.wake_at if c.faint else None
    c.wake_at = party_wake
    if faint_end is not None:
        if faint_end < party_wake:
            advance(c, faint_end, "reposo", True, dice)
        c.faint = False
        c.emit("R24", "faint_over")
    advance(c, party_wake, "reposo", True, dice)


def wake(c: Char, forced: bool, dice: Dice) -> None:
    """End the sleep, and with it the sleep's Shock persistente (R23, R13).

    Every Shock box is unmarked; only R24's faint leaves the PJ derribado. 6 h or more of
    sleep make a Descanso unless the sleep could not count as one (`descanso: false`).
    Woken by force before 6 h: no Descanso, and from the faint, Shock grave too.
    """
    assert c.sleep_start is not None  # set by fall_asleep, for as long as c.asleep
    slept = c.clock - c.sleep_start
    faint = c.faint
    c.asleep = False
    c.sleep_start = None
    c.wake_at = None
    c.faint = False
    c.emit("R23", "awake", forced=forced)
    for g in ("leve", "grave", "persistente"):
        c.unmark("shock", g, "R23")
    if faint:
        c.special_on("derribado", "R24")
    if slept >= DESCANSO_SLEEP and c.sleep_descanso:
        descanso(c)  # drops the marks that fell during the sleep, unless the day had one
    c.sleep_descanso = True
    if forced and faint and slept < DESCANSO_SLEEP:
        suffer(c, "shock", "grave", "R23", dice)
    # Marks still deferred now apply: at once after a `wake` event, or by the timer loop
    # inside `advance`, so that checks due at this same instant keep rule-number order.


def apply_deferred(c: Char) -> None:
    """The R24 marks that fell during a sleep which made no Descanso."""
    deferred, c.deferred = c.deferred, 0
    for _ in range(deferred):
        day_without_descanso(c)


def descanso(c: Char) -> bool:
    """Apply a Descanso (R22); False when the game day already had one."""
    day = c.clock // DAY
    if c.descanso_day == day:
        c.emit("R22", "descanso_spent")
        return False
    c.descanso_day = day
    c.last_descanso = c.clock
    c.days_without = 0
    c.deferred = 0
    c.healed = False
    c.emit("R22", "descanso")
    c.unmark("fatiga", "persistente", "R10")
    kept = []
    for p in c.pending:
        if p["check"] == "sin_descanso":
            c.emit("R22", "check_dropped", check="sin_descanso")
        else:
            kept.append(p)
    c.pending = kept
    heridas = c.marks["heridas"]
    if heridas == LEVE:
        c.raise_check("heridas_leve_descanso")
    if heridas & PERSISTENTE:
        c.persistente_descansos += 1
        needed = PERSISTENTE_WEEK if c.surgery else PERSISTENTE_MONTH
        if c.persistente_descansos >= needed and not any(
            p["check"] == "heridas_persistente_recuperacion" for p in c.pending
        ):
            c.persistente_descansos = 0
            c.raise_check("heridas_persistente_recuperacion")
    return True
