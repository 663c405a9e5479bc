"""The Estados Alterados fold: one character's state, built event by event (SPEC sections 2-7)."""

from __future__ import annotations

import random
from typing import Any

from rules.errors import RuleError
from rules.vocab import (
    BIT,
    CHECKS,
    DAY,
    DESCANSO_SLEEP,
    GRAVE,
    HOUR,
    LEVE,
    MINUTE,
    OPTION_DEFAULTS,
    PERSISTENTE,
    PERSISTENTE_MONTH,
    PERSISTENTE_WEEK,
    PHASE_ORDER,
    TYPES,
    VARIANT_DOWN,
    VARIANT_UP,
)

Effect = dict[str, Any]


class Dice:
    """The dice of one event: its `roll` first, then draws from `Random(seed)` in order."""

    __slots__ = ("event", "index", "roll_used", "rng")

    def __init__(self, event: dict, index: int) -> None:
        self.event = event
        self.index = index
        self.roll_used = False
        self.rng: random.Random | None = None

    def d(self, sides: int) -> int:
        roll = self.event.get("roll")
        if roll is not None and not self.roll_used:
            self.roll_used = True
            if type(roll) is not int or not 1 <= roll <= sides:
                raise RuleError("roll_range", index=self.index, field="roll", sides=sides)
            return roll
        if self.rng is None:
            seed = self.event.get("seed")
            if seed is None or isinstance(seed, (bool, float, dict, list)):
                raise RuleError("dice_missing", index=self.index, field="roll", sides=sides)
            self.rng = random.Random(seed)
        return self.rng.randint(1, sides)


class Char:
    """The mutable working state of one PJ. `to_json`/`from_json` carry it between requests."""

    __slots__ = (
        "n",
        "clock",
        "marks",
        "since",
        "emotion",
        "afflictions",
        "specials",
        "pending",
        "scores",
        "asleep",
        "sleep_start",
        "wake_at",
        "deferred",
        "shock_end",
        "last_descanso",
        "descanso_day",
        "days_without",
        "infection_days",
        "healed",
        "persistente_descansos",
        "surgery",
        "reposo_since",
        "calm_since",
        "esfuerzo_since",
        "esfuerzo_checks",
        # not stored: the options and the effects of the event being applied
        "opt",
        "fx",
    )

    def __init__(self) -> None:
        self.n = 0
        self.clock = 0
        self.marks = dict.fromkeys(TYPES, 0)
        self.since: dict[str, int] = {}  # "type.grade" -> clock when the box was marked
        self.emotion = {"leve": None, "grave": None, "grave_cause": None, "persistente": None}
        self.afflictions: list[str] = []
        self.specials: list[str] = []  # given ones; derived ones are added on output
        self.pending: list[dict] = []
        self.scores: dict[str, int] = {}
        self.asleep = False
        self.sleep_start: int | None = None
        self.wake_at: int | None = None
        self.deferred = 0  # R24 marks that fell during sleep, decided at the waking
        self.shock_end: int | None = None
        self.last_descanso = 0
        self.descanso_day: int | None = None
        self.days_without = 0
        self.infection_days = 0
        self.healed = False
        self.persistente_descansos = 0
        self.surgery = False
        self.reposo_since = 0
        self.calm_since = 0
        self.esfuerzo_since: int | None = None
        self.esfuerzo_checks = 0
        self.opt = OPTION_DEFAULTS
        self.fx: list[Effect] | None = None

    # -- persistence -------------------------------------------------------------------------

    _STORED = __slots__[:-2]

    def to_engine(self) -> dict:
        d = {name: getattr(self, name) for name in self._STORED}
        d["marks"] = dict(self.marks)
        d["since"] = dict(self.since)
        d["emotion"] = dict(self.emotion)
        d["afflictions"] = list(self.afflictions)
        d["specials"] = list(self.specials)
        d["pending"] = [dict(p) for p in self.pending]
        d["scores"] = dict(self.scores)
        return d

    @classmethod
    def from_engine(cls, d: dict) -> Char:
        c = cls.__new__(cls)
        try:
            for name in cls._STORED:
                setattr(c, name, d[name])
        except (KeyError, TypeError) as exc:
            raise RuleError("bad_state") from exc
        c.marks = dict(c.marks)
        c.since = dict(c.since)
        c.emotion = dict(c.emotion)
        c.afflictions = list(c.afflictions)
        c.specials = list(c.specials)
        c.pending = [dict(p) for p in c.pending]
        c.scores = dict(c.scores)
        c.opt = OPTION_DEFAULTS
        c.fx = None
        return c

    # -- small helpers -------------------------------------------------------------------------

    def emit(self, rule: str, change: str, **data: Any) -> None:
        if self.fx is not None:
            self.fx.append({"rule": rule, "change": change, **data})

    def shock_bits(self) -> int:
        # R23 / fine print: while asleep, the sleep's Shock persistente counts as marked.
        return self.marks["shock"] | (PERSISTENTE if self.asleep else 0)

    def mark(self, t: str, g: str, rule: str, **extra: Any) -> None:
        bit = BIT[g]
        if self.marks[t] & bit:
            return
        self.marks[t] |= bit
        self.since[t + "." + g] = self.clock
        if t == "heridas":
            if g == "grave":
                self.infection_days = 0
            elif g == "persistente":
                self.persistente_descansos = 0
                self.surgery = False
        self.emit(rule, "mark", type=t, grade=g, **extra)

    def unmark(self, t: str, g: str, rule: str) -> None:
        bit = BIT[g]
        if not self.marks[t] & bit:
            return
        self.marks[t] &= ~bit
        self.since.pop(t + "." + g, None)
        if t == "shock" and g == "persistente":
            self.shock_end = None
        elif t == "emocion":
            self.emotion[g] = None
            if g == "grave":
                self.emotion["grave_cause"] = None
        elif t == "heridas" and g == "persistente":
            self.surgery = False
        self.emit(rule, "unmark", type=t, grade=g)

    def special_on(self, name: str, rule: str) -> None:
        if name not in self.specials:
            self.specials.append(name)
            self.specials.sort()
            self.emit(rule, "special_on", name=name)

    def raise_check(self, name: str) -> None:
        attribute, optional, rule = CHECKS[name]
        if optional and any(p["check"] == name for p in self.pending):
            return  # fine print: an optional check already pending is not raised again
        self.pending.append({"check": name, "attribute": attribute, "optional": optional})
        self.emit(rule, "check_raised", check=name)

    def prune_checks(self) -> None:
        """Drop the pending checks whose cause no longer holds (they do not come back)."""
        heridas = self.marks["heridas"]
        shock = self.marks["shock"]
        kept = []
        for p in self.pending:
            name = p["check"]
            if (
                (name == "heridas_leve_descanso" and heridas != LEVE)
                or (name == "heridas_grave_infeccion" and not heridas & GRAVE)
                or (name == "heridas_persistente_recuperacion" and not heridas & PERSISTENTE)
                or (name == "shock_grave_fin_turno" and not shock & GRAVE)
            ):
                self.emit(CHECKS[name][2], "check_dropped", check=name)
            else:
                kept.append(p)
        self.pending = kept


# -- suffering (sections 2 and 3) ------------------------------------------------------------


def suffer(c: Char, t: str, g: str, rule: str, dice: Dice, ev: dict | None = None) -> None:
    """The PJ suffers an E.Alt of type `t` and grade `g`; `ev` carries the blow's own fields."""
    ev = ev or {}
    variant = {"variant": ev["variant"]} if "variant" in ev else {}
    c.emit(rule, "suffer", type=t, grade=g, **variant)
    if t == "heridas":
        c.healed = False  # R25: new Heridas open the way to another Curación
        _suffer_heridas(c, g, ev)
    elif t == "fatiga":
        _suffer_fatiga(c, g, dice)
    elif t == "shock":
        _suffer_shock(c, g, dice, ev)
    elif t == "emocion":
        _suffer_emocion(c, g, ev)
    else:
        _suffer_afeccion(c, g, ev.get("source"))


def _suffer_heridas(c: Char, g: str, ev: dict) -> None:
    bits = c.marks["heridas"]
    if bits & GRAVE:
        c.special_on("incapacitado", "R5")  # R3 + R5: and nothing more is marked
        c.emit("R5", "nothing")
        return
    if g != "grave" and bits & BIT[g]:
        c.mark("heridas", "grave", "R2")
        c.special_on("incapacitado", "R5")
        return
    c.mark("heridas", g, "base")
    if g == "grave" and bits:
        c.special_on("incapacitado", "R5")
    elif g == "persistente" and ev.get("especifico"):
        c.special_on(ev["especifico"], "R7")


def _suffer_fatiga(c: Char, g: str, dice: Dice) -> None:
    bits = c.marks["fatiga"]
    if bits & GRAVE:
        if not bits & PERSISTENTE:
            c.mark("fatiga", "persistente", "R8")
            suffer(c, "shock", "leve", "R8", dice)
        else:
            suffer(c, "heridas", g, "R8", dice)
    elif g != "grave" and bits & BIT[g]:
        c.mark("fatiga", "grave", "R2")
    else:
        c.mark("fatiga", g, "base")


def _suffer_shock(c: Char, g: str, dice: Dice, ev: dict) -> None:
    bits = c.shock_bits()
    if bits & GRAVE:
        if not bits & PERSISTENTE:
            _knock_out(c, dice.d(6) * MINUTE, "R11")  # by accumulation, whatever the grade
        else:
            suffer(c, "fatiga", g, "R11", dice)
    elif g != "grave" and bits & BIT[g]:
        c.mark("shock", "grave", "R2")
    elif g == "persistente":
        minutes = ev.get("duration_minutes")
        _knock_out(c, minutes * MINUTE if minutes else dice.d(3) * HOUR, "base")
    else:
        c.mark("shock", g, "base")


def _knock_out(c: Char, seconds: int, rule: str) -> None:
    c.mark("shock", "persistente", rule)
    c.shock_end = c.clock + seconds
    c.emit("R13", "duration", type="shock", grade="persistente", minutes=seconds // MINUTE)


def _suffer_emocion(c: Char, g: str, ev: dict) -> None:
    bits = c.marks["emocion"]
    emotion = c.emotion
    if bits & GRAVE:
        if ev.get("especifico"):
            c.special_on(ev["especifico"], "R14")
        elif bits & PERSISTENTE:
            c.emit("R14", "nothing")
        else:
            _mark_emotion(c, "persistente", "abatimiento", None, "R14")
        return
    variant = ev.get("variant")
    if g == "leve":
        if not bits & LEVE:
            _mark_emotion(c, "leve", variant, None, "base")
        elif emotion["leve"] == variant:
            _mark_emotion(c, "grave", VARIANT_UP[variant], ev.get("cause"), "R15")
        else:
            emotion["leve"] = variant  # R15: one leve emotion replaces the other
            c.since["emocion.leve"] = c.clock
            c.emit("R15", "variant", type="emocion", grade="leve", variant=variant)
    elif g == "grave":
        _mark_emotion(c, "grave", variant, ev.get("cause"), "base")
    elif bits & PERSISTENTE:
        c.emit("R15", "nothing")
    else:
        _mark_emotion(c, "persistente", "abatimiento", None, "base")


def _mark_emotion(c: Char, g: str, variant: str, cause: str | None, rule: str) -> None:
    c.mark("emocion", g, rule, variant=variant)
    c.emotion[g] = variant
    if g == "grave":
        c.emotion["grave_cause"] = cause


def _suffer_afeccion(c: Char, g: str, source: str | None) -> None:
    if source and source not in c.afflictions:
        c.afflictions.append(source)
        c.afflictions.sort()
        c.emit("R18", "affliction", source=source)
    phase = _phase(c)
    if phase is None:
        c.mark("afeccion", g, "base")
    elif phase == "leve" and g == "leve":
        _move_phase(c, phase, "grave", "R2")
    elif phase == "grave":
        _move_phase(c, phase, "persistente", "R18")
    elif PHASE_ORDER.index(g) > PHASE_ORDER.index(phase):
        _move_phase(c, phase, g, "R18")
    else:
        c.emit("R18", "nothing")


def _phase(c: Char) -> str | None:
    bits = c.marks["afeccion"]
    for g in PHASE_ORDER:
        if bits & BIT[g]:
            return g
    return None


def _move_phase(c: Char, old: str, new: str, rule: str) -> None:
    c.unmark("afeccion", old, rule)
    c.mark("afeccion", new, rule)


# -- time, sleep and Descanso (section 5) ----------------------------------------------------

# Timer kinds, in the order they fire when they fall at the same instant.
_T_FATIGA_LEVE, _T_FATIGA_GRAVE, _T_EMOCION, _T_SHOCK_LEVE, _T_SHOCK_END = 0, 1, 2, 3, 4
_T_WAKE, _T_INFECCION, _T_SIN_DESCANSO, _T_DEFERRED, _T_ESFUERZO = 5, 6, 7, 8, 9


def advance(c: Char, target: int, activity: str, calm: bool, dice: Dice) -> None:
    """Move the clock to `target`, firing every timer that falls on the way, in time order."""
    while True:
        asleep = c.asleep
        act = "reposo" if asleep else activity
        if act == "esfuerzo":
            if c.esfuerzo_since is None:
                c.esfuerzo_since = c.clock
                c.esfuerzo_checks = 0
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
            if calm and not asleep and marks["emocion"] & LEVE:
                t = max(since["emocion.leve"], c.calm_since, c.reposo_since) + MINUTE
                if t < best:
                    best, kind = t, _T_EMOCION
        s = marks["shock"]
        if s & LEVE:
            t = since["shock.leve"] + c.opt["round_seconds"]
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
        if act == "esfuerzo":
            t = c.esfuerzo_since + MINUTE * (c.scores["FUE"] + c.esfuerzo_checks + 1)
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
    # Reposo and calm count from the end of the last time that was neither.
    if c.asleep or activity == "reposo":
        if c.asleep or not calm:
            c.calm_since = target
    else:
        c.reposo_since = target
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
        c.esfuerzo_checks += 1
        c.raise_check("esfuerzo_prolongado")


def day_without_descanso(c: Char) -> None:
    # R24: a state, not a blow: no R2, no R8.
    c.mark("fatiga", "persistente", "R24")
    c.raise_check("sin_descanso")


def fall_asleep(c: Char, hours: float | None, rule: str) -> None:
    c.asleep = True
    c.sleep_start = c.clock
    c.wake_at = None if hours is None else c.clock + round(hours * HOUR)
    c.emit(rule, "asleep", **({} if hours is None else {"hours": hours}))


def wake(c: Char, forced: bool, dice: Dice) -> None:
    """End the sleep: 6 h or more make a Descanso; forced before that, Shock grave (R23)."""
    slept = c.clock - c.sleep_start
    c.asleep = False
    c.sleep_start = None
    c.wake_at = None
    c.calm_since = c.clock  # sleep is Reposo but never calm
    c.emit("R23", "awake", forced=forced)
    if slept >= DESCANSO_SLEEP:
        descanso(c)  # drops the marks that fell during the sleep, unless the day had one
    if forced and slept < DESCANSO_SLEEP:
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


# -- check outcomes --------------------------------------------------------------------------


def resolve_check(c: Char, name: str, success: bool, dice: Dice) -> None:
    rule = CHECKS[name][2]
    c.emit(rule, "check_passed" if success else "check_failed", check=name)
    if name == "heridas_leve_descanso":
        if success:
            c.unmark("heridas", "leve", "R6")
    elif name == "heridas_grave_infeccion":
        if not success:
            suffer(c, "afeccion", "leve", "R6", dice, {"source": "infeccion"})
    elif name == "heridas_persistente_recuperacion":
        if success:
            c.unmark("heridas", "persistente", "R6")
            c.mark("heridas", "leve", "R6")
    elif name == "shock_grave_fin_turno":
        if success:
            c.unmark("shock", "grave", "R13")
            c.unmark("shock", "leve", "R13")  # the new leve lasts its own round
            c.mark("shock", "leve", "R13")
    elif name == "sin_descanso":
        if not success:
            hours = dice.d(6)
            if c.asleep:
                c.wake_at = max(c.wake_at or c.clock, c.clock + hours * HOUR)
                c.emit("R24", "asleep", hours=hours)
            else:
                fall_asleep(c, hours, "R24")
    elif not success:  # esfuerzo_prolongado
        suffer(c, "fatiga", "leve", "R27", dice)


def heal(c: Char, dice: Dice) -> None:
    """Curación (R26); the limits of R25 are checked by the caller."""
    heridas = c.marks["heridas"]
    c.healed = True
    if heridas & GRAVE:
        c.unmark("heridas", "grave", "R26")
        c.mark("heridas", "leve", "R26")
    else:
        c.unmark("heridas", "leve", "R26")
        suffer(c, "fatiga", "leve", "R26", dice)


def emotion_safe(c: Char) -> None:
    """R17: away from the cause of terror or ira, it steps down to miedo or euforia."""
    grave = c.emotion["grave"]
    if grave is None:
        return
    c.unmark("emocion", "grave", "R17")
    down = VARIANT_DOWN[grave]
    if c.marks["emocion"] & LEVE:
        c.unmark("emocion", "leve", "R17")
    _mark_emotion(c, "leve", down, None, "R17")
