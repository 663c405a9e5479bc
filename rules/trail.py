"""The rule trail in words: one line per rule, and each effect of an event described, for
the audit and the toasts. Our own short wording; Spanish first, English second."""

import re
from typing import Any

from rules.texts import (
    CHECKS,
    VARIANT_LABELS,
    _capfirst,
    _label,
    _lang,
    _title,
    score_label,
    score_order,
    special_label,
)

__all__ = ["RULES", "chain", "describe"]


def _rule(es: str, en: str) -> dict[str, str]:
    """Build one audit summary in both languages."""
    return {"es": es, "en": en}


# One line per rule of rules/README.md, for the audit view; "base" and "DJ" tag effects with
# no R-number.
RULES: dict[str, dict[str, str]] = {
    "R1": _rule(
        "Por tipo cuenta la casilla más seria: grave, luego persistente, luego leve.",
        "Per type the most severe box counts: serious, then persistent, then light.",
    ),
    "R2": _rule(
        "Repetir un leve o persistente ya marcado sube a grave.",
        "Repeating a marked light or persistent box escalates to serious.",
    ),
    "R3": _rule(
        "Con grave ya marcado, decide el desborde propio del tipo.",
        "With serious already marked, the type's own overflow rule decides.",
    ),
    "R4": _rule(
        "Heridas: Obstáculo en FUE, AGI y DES (leve −1, persistente −2, grave −3).",
        "Wounds: Obstacle on STR, AGI and DEX (light −1, persistent −2, serious −3).",
    ),
    "R5": _rule(
        "Más Heridas sobre grave, o grave sobre otra Herida: incapacitado.",
        "More Wounds on serious, or serious on any wound: incapacitated.",
    ),
    "R6": _rule(
        "Cómo sanan las Heridas; grave sin Curación arriesga infección cada día.",
        "How Wounds mend; serious without Healing risks infection every day.",
    ),
    "R7": _rule(
        "Opcional: Heridas persistente trae su E.Esp específico.",
        "Optional: Persistent Wounds bring their specific special state.",
    ),
    "R8": _rule(
        "Fatiga sobre grave: persistente y Shock leve; si ya estaba, Heridas.",
        "Fatigue on serious: persistent plus Light Shock; if already there, Wounds.",
    ),
    "R9": _rule(
        "Fatiga: Obstáculo a todo (leve −1, persistente −2, grave −3).",
        "Fatigue: Obstacle on everything (light −1, persistent −2, serious −3).",
    ),
    "R10": _rule(
        "Fatiga se va con Reposo (1 min o 1 h) o con un Descanso.",
        "Fatigue goes with Rest (1 min or 1 h) or with a Long rest.",
    ),
    "R11": _rule(
        "Shock sobre grave: persistente; si ya estaba, Fatiga del mismo grado.",
        "Shock on serious: persistent; if already there, Fatigue of the same grade.",
    ),
    "R12": _rule(
        "En Shock no se actúa y se queda desprevenido.",
        "In Shock: no actions, and off guard.",
    ),
    "R13": _rule(
        "Shock dura una Ronda, hasta superar TS VOL, o deja inconsciente.",
        "Shock lasts a round, until a save WIL, or knocks out.",
    ),
    "R14": _rule(
        "Emoción sobre grave: abatimiento (u otro E.Esp con específicos).",
        "Emotion on serious: despondency (or a special state with the option).",
    ),
    "R15": _rule(
        "Miedo y euforia: repetir sube a grave, alternar reemplaza.",
        "Fear and elation: repeating escalates, switching replaces.",
    ),
    "R16": _rule(
        "Emoción: Facilidad para huir o luchar, Obstáculo al resto.",
        "Emotion: Bonus to flee or fight, Obstacle on everything else.",
    ),
    "R17": _rule(
        "Emoción se calma con Reposo tranquilo, al estar a salvo o por el DJ.",
        "Emotion fades with calm Rest, once safe, or by the GM.",
    ),
    "R18": _rule(
        "Afección avanza por fases y nunca retrocede.",
        "Affliction moves through phases and never goes back.",
    ),
    "R19": _rule(
        "Afección: cada mal fija sus efectos; Medicina al paciente sufre Obstáculo.",
        "Affliction: each illness sets its effects; Medicine on the patient takes an Obstacle.",
    ),
    "R20": _rule(
        "El Obstáculo total nunca baja de −3.",
        "Total Obstacle never goes below −3.",
    ),
    "R21": _rule(
        "A qué acciones afecta cada tipo.",
        "Which actions each type affects.",
    ),
    "R22": _rule(
        "Descanso: comer y dormir 6-8 h; uno por día de juego.",
        "Long rest: food and 6-8 h of sleep; one per game day.",
    ),
    "R23": _rule(
        "Dormir cuenta como Shock persistente; despertar lo borra; a la fuerza, sin Descanso.",
        "Sleep counts as Persistent Shock, cleared on waking; woken by force, no Long rest.",
    ),
    "R24": _rule(
        "Cada día sin Descanso: Fatiga persistente, y TS VOL o cae rendido (luego, derribado).",
        "Each day without a Long rest: Persistent Fatigue, and save WIL or collapse "
        "(then knocked down).",
    ),
    "R25": _rule(
        "Curación o cirugía: nunca a uno mismo ni dos veces sin Descanso o Herida nueva.",
        "Healing or surgery: never on oneself, nor twice without a Long rest or a new wound.",
    ),
    "R26": _rule(
        "Curación baja Heridas grave a leve, o leve a Fatiga leve.",
        "Healing lowers Serious Wounds to Light, or Light Wounds to Light Fatigue.",
    ),
    "R27": _rule(
        "Opcional: esforzarse más minutos que la FUE pide TS FUE.",
        "Optional: exertion for more minutes than STR calls for save STR.",
    ),
    "base": _rule("Efecto directo", "Direct effect"),
    "DJ": _rule("Decisión del DJ", "GM decision"),
}

_R_NUMBER = re.compile(r"R\d+")


def _check_label(name: object, lang: str) -> str:
    """Return a check's label, or its name when unknown."""
    entry = CHECKS.get(name) if isinstance(name, str) else None
    return entry[lang]["label"] if entry else str(name)


def _duration(minutes: object, lang: str) -> str:
    """Render minutes as "4 min" or, for whole hours, "2 h"."""
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        return ""
    # Whole hours read better in hours: an R13 knock-out of 1d3 h should not show as "120 min".
    if minutes > 0 and minutes % 60 == 0:
        return f"{int(minutes // 60)} h"
    amount = int(minutes) if float(minutes).is_integer() else minutes
    return f"{amount} min"


# (es, en) templates per change; fields are filled in by describe().
_PHRASES: dict[str, tuple[str, str]] = {
    "suffer": ("Sufre {title}", "Suffers {title}"),
    "mark": ("Marca {title}", "Marks {title}"),
    "unmark": ("Desmarca {title}", "Clears {title}"),
    "variant": ("{title} pasa a {variant}", "{title} becomes {variant}"),
    "special_on": ("Gana {special}", "Gains {special}"),
    "special_off": ("Pierde {special}", "Loses {special}"),
    "affliction": ("Afección: se suma {special}", "Affliction: adds {special}"),
    "check_raised": ("Tirada pendiente: {check}", "Check due: {check}"),
    "check_passed": ("Supera {check}", "Passes {check}"),
    "check_failed": ("Falla {check}", "Fails {check}"),
    "check_dismissed": ("Descarta {check}", "Skips {check}"),
    "check_dropped": ("Ya no procede: {check}", "No longer applies: {check}"),
    "descanso": ("Aplica un Descanso", "Long rest applied"),
    "descanso_spent": (
        "Ya tuvo Descanso hoy: sin efecto",
        "Already had a Long rest today: no effect",
    ),
    "nothing": ("Sin más efecto", "No further effect"),
    # R13 (v2.2): a Shock leve marked during the PJ's own turn, and that turn's end.
    "own_turn": (
        "Marcado en su propio Turno: le quita el siguiente",
        "Marked during its own turn: it takes the next one",
    ),
    "kept": (
        "{title} sigue: se marcó en este mismo Turno",
        "{title} stays: it was marked during this very turn",
    ),
    # R24 with R23 (v2.2): the faint's end inside the party's sleep.
    "faint_over": ("Se acaba el desmayo: sigue durmiendo", "The faint is over: sleeps on"),
    "surgery": (
        "Cirugía con éxito: la TS de Heridas persistentes llega cada semana",
        "Successful surgery: the Persistent Wounds save comes every week",
    ),
    "heal_failed": (
        "Curación fallida: sin cambios, pero el tratamiento queda gastado",
        "Healing failed: nothing changes, but the treatment is used up",
    ),
    "surgery_failed": (
        "Cirugía fallida: sin cambios, pero el tratamiento queda gastado",
        "Surgery failed: nothing changes, but the treatment is used up",
    ),
}


def describe(effect: dict[str, Any], lang: str = "es") -> str:
    """Return one short human line for an effect record; never raises on odd input."""
    code = _lang(lang)
    en = code == "en"
    if not isinstance(effect, dict):
        return "Cambio desconocido" if not en else "Unknown change"
    change = effect.get("change")
    type_, grade = effect.get("type"), effect.get("grade")

    if change == "asleep":
        hours = effect.get("hours")
        text = "Falls asleep" if en else "Se duerme"
        if hours not in (None, ""):
            shown = str(hours) if en else str(hours).replace(".", ",")
            text = f"{text} ({shown} h)"
        if effect.get("descanso") is False:
            text += ", not a Long rest" if en else ", sin contar como Descanso"
        return text
    if change == "sleeps_on":
        hours = effect.get("hours")
        text = "Sleeps on with the party" if en else "Sigue durmiendo con el grupo"
        return f"{text} ({hours} h)" if isinstance(hours, int) else text
    if change == "awake":
        if effect.get("forced"):
            return "Woken by force" if en else "Despierta a la fuerza"
        return "Wakes up" if en else "Despierta"
    if change == "scores":
        scores = effect.get("scores")
        listed = (
            ", ".join(f"{score_label(k, code)} {v}" for k, v in score_order(scores))
            if isinstance(scores, dict)
            else ""
        )
        text = "Attribute scores" if en else "Puntuaciones"
        return f"{text}: {listed}" if listed else text
    if change == "duration":
        # Shock persistente is what lasts a while: name it by its E.Esp, "Inconsciente".
        if type_ == "shock" and grade == "persistente":
            what = special_label("inconsciente", code)
        else:
            what = _title(type_, grade, None, code) or ("Duration" if en else "Duración")
        span = _duration(effect.get("minutes"), code)
        if not span:
            return what
        return f"{what} for {span}" if en else f"{what} durante {span}"

    phrase = _PHRASES.get(change) if isinstance(change, str) else None
    if phrase is None:
        # Unknown changes still show something a reader can follow in the audit view.
        name = change if change else "?"
        return f"Change: {name}" if en else f"Cambio: {name}"
    special = effect.get("name") if change != "affliction" else effect.get("source")
    return phrase[1 if en else 0].format(
        title=_title(type_, grade, effect.get("variant") if change != "variant" else None, code),
        variant=_label(VARIANT_LABELS, effect.get("variant"), code),
        special=_capfirst(special_label(special, code))
        if isinstance(special, str)
        else str(special),
        check=_check_label(effect.get("check"), code),
    )


def chain(effects: list[dict[str, Any]], lang: str = "es") -> str:
    """Join effect lines into an audit chain: "Sufre Shock Leve → R11 → Sufre Fatiga Leve".

    The same step repeated in a row is said once with its count: a Curación that drops
    three piled infection checks reads "Ya no procede: TS FUE: evitar infección ×3".
    """
    steps: list[list] = []  # [rule, text, count]
    for effect in effects:
        rule = effect.get("rule") if isinstance(effect, dict) else None
        text = describe(effect, lang)
        if steps and steps[-1][:2] == [rule, text]:
            steps[-1][2] += 1
        else:
            steps.append([rule, text, 1])
    parts: list[str] = []
    previous = None
    for rule, text, count in steps:
        if count > 1:
            text = f"{text} ×{count}"
        # Only R-numbers explain a step; "base" and "DJ" effects just follow with a bare arrow.
        # A rule named by the step before it is not named again: "R26 → A → B".
        if isinstance(rule, str) and _R_NUMBER.fullmatch(rule) and rule != previous:
            parts.append(f"→ {rule} → {text}" if not parts else f" → {rule} → {text}")
        else:
            parts.append(f" → {text}" if parts else text)
        previous = rule
    return "".join(parts)
