"""The working state of one PJ and what suffering an E.Alt does to it (rules/README.md
sections 2-3)."""

from __future__ import annotations

import random
from typing import Any

from rules.errors import RuleError
from rules.vocab import (
    BIT,
    CHECKS,
    GRAVE,
    HOUR,
    LEVE,
    MINUTE,
    OPTION_DEFAULTS,
    PERSISTENTE,
    PHASE_ORDER,
    TYPES,
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
    """The mutable working state of one PJ. `to_engine`/`from_engine` carry it between requests."""

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
        "faint",
        "sleep_descanso",
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
        "esfuerzo_minutes",
        "turn_ended",
        "shock_leve_rounds",
        "shock_leve_own_turn",
        # not stored: the blow's own_turn, the options and the effects of the event applied
        "own_turn",
        "opt",
        "fx",
    )

    def __init__(self) -> None:
        self.n = 0
        self.clock = 0
        self.marks = dict.fromkeys(TYPES, 0)
        self.since: dict[str, int] = {}  # "type.grade" -> clock when the box was marked
        self.emotion: dict[str, str | None] = {
            "leve": None,
            "grave": None,
            "grave_cause": None,
            "persistente": None,
        }
        self.afflictions: list[str] = []
        self.specials: list[str] = []  # given ones; derived ones are added on output
        self.pending: list[dict] = []
        self.scores: dict[str, int] = {}
        self.asleep = False
        self.sleep_start: int | None = None
        self.wake_at: int | None = None
        self.faint = False  # the sleep is R24's faint (derribado on waking, R23 forced waking)
        self.sleep_descanso = True  # False: `sleep` with `descanso: false` (R23)
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
        self.esfuerzo_minutes = 0  # R27: whole minutes of the streak already judged
        self.turn_ended = False  # a turn_end since time last passed (R13, v2.1)
        self.shock_leve_rounds = 1  # round passes the marked Shock leve lasts without a turn end
        # R13 (v2.2): the Shock leve was marked during the PJ's own turn, still under way:
        # that turn's end does not unmark it (the next one does).
        self.shock_leve_own_turn = False
        self.own_turn = False  # the `suffer` being applied happens during the PJ's own turn
        self.opt = OPTION_DEFAULTS
        self.fx: list[Effect] | None = None

    # -- persistence -------------------------------------------------------------------------

    _STORED = __slots__[:-3]
    # Keys added by rules v2, v2.1 and v2.2: a state stored before them resumes with these.
    _ADDED = {
        "faint": False,
        "sleep_descanso": True,
        "esfuerzo_minutes": 0,
        "turn_ended": False,
        "shock_leve_rounds": 1,
        "shock_leve_own_turn": False,
    }

    def to_engine(self) -> dict:
        return _copy_containers({name: getattr(self, name) for name in self._STORED})

    @classmethod
    def from_engine(cls, d: dict) -> Char:
        c = cls.__new__(cls)
        try:
            if not d.keys() >= cls._ADDED.keys():
                d = {**cls._ADDED, **d}
            for name, value in _copy_containers({n: d[n] for n in cls._STORED}).items():
                setattr(c, name, value)
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError("bad_state") from exc
        c.own_turn = False
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
        own_turn = False
        if t == "shock" and g == "leve":
            # R13 (v2.1): it takes the PJ's next turn. Without turn ends recorded, that is
            # this round's if the PJ's turn is still to come, else the next round's. v2.2:
            # marked during its own turn, it counts as marked after that turn ended.
            own_turn = self.own_turn
            self.shock_leve_own_turn = own_turn
            self.shock_leve_rounds = 2 if self.turn_ended or own_turn else 1
        elif t == "heridas":
            if g == "grave":
                self.infection_days = 0
            elif g == "persistente":
                self.persistente_descansos = 0
                self.surgery = False
        self.emit(rule, "mark", type=t, grade=g, **extra)
        if own_turn:
            self.emit("R13", "own_turn", type=t, grade=g)

    def unmark(self, t: str, g: str, rule: str) -> None:
        bit = BIT[g]
        if not self.marks[t] & bit:
            return
        self.marks[t] &= ~bit
        self.since.pop(t + "." + g, None)
        if t == "shock" and g == "persistente":
            self.shock_end = None
        elif t == "shock" and g == "leve":
            self.shock_leve_own_turn = False
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
        _attribute, optional, rule = CHECKS[name]
        if optional and any(p["check"] == name for p in self.pending):
            return  # fine print: an optional check already pending is not raised again
        self.pending.append(pending_check(name))
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


def pending_check(name: str) -> dict:
    """A pending check as the state lists it: its name, attribute and whether optional."""
    attribute, optional, _rule = CHECKS[name]
    return {"check": name, "attribute": attribute, "optional": optional}


def _copy_containers(d: dict) -> dict:
    """`d` with its mutable values copied, so a stored state and a live Char never share one."""
    d["marks"] = dict(d["marks"])
    d["since"] = dict(d["since"])
    d["emotion"] = dict(d["emotion"])
    d["afflictions"] = list(d["afflictions"])
    d["specials"] = list(d["specials"])
    d["pending"] = [dict(p) for p in d["pending"]]
    d["scores"] = dict(d["scores"])
    return d


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
        c.special_on("incapacitado", "R5")  # R3 + R5: and nothing more is marked ...
        if g == "persistente" and not bits & PERSISTENTE:
            # ... except the persistente box, which the wound marks even at grave (R5, R7).
            c.mark("heridas", "persistente", "R5")
            if ev.get("especifico"):
                c.special_on(ev["especifico"], "R7")
        else:
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
            if g == "persistente":
                _knock_out(c, _direct_duration(ev, dice), "R11")  # as suffered directly
            else:
                _knock_out(c, dice.d(6) * MINUTE, "R11")  # by accumulation
        else:
            suffer(c, "fatiga", g, "R11", dice)
    elif g != "grave" and bits & BIT[g]:
        c.mark("shock", "grave", "R2")
    elif g == "persistente":
        _knock_out(c, _direct_duration(ev, dice), "base")
    else:
        c.mark("shock", g, "base")


def _direct_duration(ev: dict, dice: Dice) -> int:
    """R13: Shock persistente suffered directly lasts the event's minutes, or 1d3 hours."""
    minutes = ev.get("duration_minutes")
    return minutes * MINUTE if minutes else dice.d(3) * HOUR


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
            mark_emotion(c, "persistente", "abatimiento", None, "R14")
        return
    variant = ev.get("variant")
    if g == "leve":
        if not bits & LEVE:
            mark_emotion(c, "leve", variant, None, "base")
        elif variant is not None and emotion["leve"] == variant:
            mark_emotion(c, "grave", VARIANT_UP[variant], ev.get("cause"), "R15")
        else:
            emotion["leve"] = variant  # R15: one leve emotion replaces the other
            c.since["emocion.leve"] = c.clock
            c.emit("R15", "variant", type="emocion", grade="leve", variant=variant)
    elif g == "grave":
        mark_emotion(c, "grave", variant, ev.get("cause"), "base")
    elif bits & PERSISTENTE:
        c.emit("R15", "nothing")
    else:
        mark_emotion(c, "persistente", "abatimiento", None, "base")


def mark_emotion(c: Char, g: str, variant: str | None, cause: str | None, rule: str) -> None:
    c.mark("emocion", g, rule, variant=variant)
    c.emotion[g] = variant
    if g == "grave":
        c.emotion["grave_cause"] = cause


def _suffer_afeccion(c: Char, g: str, source: str | None) -> None:
    if source and source not in c.afflictions:
        c.afflictions.append(source)
        c.afflictions.sort()
        c.emit("R18", "affliction", source=source)
    phase = afeccion_phase(c)
    if phase is None:
        c.mark("afeccion", g, "base")
    elif phase == "leve" and g == "leve":
        move_phase(c, phase, "grave", "R2")
    elif phase == "grave":
        move_phase(c, phase, "persistente", "R18")
    elif PHASE_ORDER.index(g) > PHASE_ORDER.index(phase):
        move_phase(c, phase, g, "R18")
    else:
        c.emit("R18", "nothing")


def afeccion_phase(c: Char) -> str | None:
    bits = c.marks["afeccion"]
    for g in PHASE_ORDER:
        if bits & BIT[g]:
            return g
    return None


def move_phase(c: Char, old: str, new: str, rule: str) -> None:
    c.unmark("afeccion", old, rule)
    c.mark("afeccion", new, rule)
