"""Ways back: check outcomes, Curación and leaving the cause of an Emoción grave."""

from __future__ import annotations

from rules.clock import fall_asleep
from rules.engine import Char, Dice, mark_emotion, suffer
from rules.vocab import CHECKS, GRAVE, HOUR, LEVE, VARIANT_DOWN


def resolve_check(c: Char, name: str, success: bool, dice: Dice) -> None:
    """What passing or failing the check `name` brings (R6, R13, R24, R27)."""
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
            if c.asleep:  # the sleep turns into the faint, and lasts at least its hours
                c.wake_at = max(c.wake_at or c.clock, c.clock + hours * HOUR)
                c.faint = True
                c.emit("R24", "asleep", hours=hours)
            else:
                fall_asleep(c, hours, "R24", faint=True)
    elif not success:  # esfuerzo_prolongado
        suffer(c, "fatiga", "leve", "R27", dice)


def heal(c: Char, success: bool, dice: Dice) -> None:
    """Curación (R26); the limits of R25 are checked by the caller."""
    if not success:
        c.emit("R25", "heal_failed")  # a failed Medicina spends the treatment, nothing else
    elif c.marks["heridas"] & GRAVE:
        c.unmark("heridas", "grave", "R26")
        c.mark("heridas", "leve", "R26")
    else:
        c.unmark("heridas", "leve", "R26")
        suffer(c, "fatiga", "leve", "R26", dice)
    # R25: spent, even when its own cascade (Fatiga -> R8) brought Heridas back.
    c.healed = True


def surgery(c: Char, success: bool) -> None:
    """Medicina "cirugía" on Heridas persistente (R6); R25's limits are checked by the caller."""
    if success:
        c.surgery = True  # R6: a check per week of Descanso while the box stays marked
        c.persistente_descansos = 0  # ... counted from now
        c.emit("R6", "surgery")
    else:
        c.emit("R25", "surgery_failed")
    c.healed = True


def emotion_safe(c: Char) -> None:
    """R17: away from the cause of terror or ira, it steps down to miedo or euforia."""
    grave = c.emotion["grave"]
    if grave is None:
        return
    c.unmark("emocion", "grave", "R17")
    down = VARIANT_DOWN[grave]
    if c.marks["emocion"] & LEVE:
        c.unmark("emocion", "leve", "R17")
    mark_emotion(c, "leve", down, None, "R17")
