"""Display texts for the Zodiac tracker: labels, condition cards, checks and audit lines.

All wording here is our own short summary of the rules (see SPEC.md); Spanish first, English second.
"""

import re
from typing import Any

from rules.vocab import SCORES

__all__ = [
    "CARDS",
    "CHECKS",
    "GRADE_LABELS",
    "LANGS",
    "RULES",
    "SPECIALS",
    "TYPE_LABELS",
    "VARIANT_LABELS",
    "card",
    "chain",
    "check_text",
    "describe",
    "special_label",
]

LANGS = ("es", "en")

# Keyed name -> lang -> label, like every table below, so a missing translation is easy to spot.
TYPE_LABELS: dict[str, dict[str, str]] = {
    "heridas": {"es": "Heridas", "en": "Wounds"},
    "fatiga": {"es": "Fatiga", "en": "Fatigue"},
    "shock": {"es": "Shock", "en": "Shock"},
    "emocion": {"es": "Emoción", "en": "Emotion"},
    "afeccion": {"es": "Afección", "en": "Affliction"},
}

GRADE_LABELS: dict[str, dict[str, str]] = {
    "leve": {"es": "Leve", "en": "Light"},
    "grave": {"es": "Grave", "en": "Serious"},
    "persistente": {"es": "Persistente", "en": "Persistent"},
}

# Spanish keeps the game's lower-case spelling of the variants ("Emoción Leve: miedo").
VARIANT_LABELS: dict[str, dict[str, str]] = {
    "miedo": {"es": "miedo", "en": "Fear"},
    "euforia": {"es": "euforia", "en": "Elation"},
    "terror": {"es": "terror", "en": "Terror"},
    "ira": {"es": "ira", "en": "Rage"},
    "abatimiento": {"es": "abatimiento", "en": "Despondency"},
}


def _lang(lang: object) -> str:
    """Return a supported language code, defaulting to Spanish."""
    # Accept locale-style codes ("en-us", "EN") as Django's get_language() may hand them over.
    if isinstance(lang, str):
        code = lang.split("-")[0].split("_")[0].lower()
        if code in LANGS:
            return code
    return "es"


def _card_text(es_effect: str, es_ends: str, en_effect: str, en_ends: str) -> dict:
    """Build one card entry in both languages."""
    return {
        "es": {"effect": es_effect, "ends": es_ends},
        "en": {"effect": en_effect, "ends": en_ends},
    }


# Emoción leve has the same effect whichever variant it is; only the title differs.
_EMO_LEVE = _card_text(
    "Facilidad +1 en FUE o VOL para huir o luchar; Obstáculo −1 al resto.",
    "Tras 1 minuto de Reposo en calma (dormir cuenta), lejos de toda tensión.",
    "Bonus +1 on FUE or VOL to flee or fight; Obstacle −1 on the rest.",
    "After 1 minute of calm Rest (sleep counts), away from any stress.",
)
_EMO_TERROR = _card_text(
    "Facilidad +1 en FUE o VOL para huir de la causa; Obstáculo −3 al resto.",
    "Al saberse a salvo de la causa: pasa a miedo.",
    "Bonus +1 on FUE or VOL to flee the cause; Obstacle −3 on the rest.",
    "Once knowingly safe from the cause: becomes Fear.",
)
_EMO_IRA = _card_text(
    "Facilidad +1 en FUE o VOL para atacar la causa; Obstáculo −3 al resto.",
    "Al saberse a salvo de la causa: pasa a euforia.",
    "Bonus +1 on FUE or VOL to fight the cause; Obstacle −3 on the rest.",
    "Once knowingly safe from the cause: becomes Elation.",
)
_EMO_ABATIMIENTO = _card_text(
    "Obstáculo −2 a cualquier acción.",
    "Solo cuando el DJ lo decida.",
    "Obstacle −2 on any action.",
    "Only when the GM says so.",
)

# Cards per (type, grade); Emoción also per (type, grade, variant), which is what a PJ holds.
CARDS: dict[tuple[str, ...], dict[str, dict[str, str]]] = {
    ("heridas", "leve"): _card_text(
        "Obstáculo −1 en acciones de FUE, AGI o DES.",
        "TS FUE tras cada Descanso si es tu única Herida; Curación la vuelve Fatiga leve.",
        "Obstacle −1 on FUE, AGI or DES actions.",
        "Save FUE after each Long rest if it's your only wound; Healing turns it into "
        "Light Fatigue.",
    ),
    ("heridas", "grave"): _card_text(
        "Obstáculo −3 en acciones de FUE, AGI o DES.",
        "Solo Curación la baja a leve; cada día sin ella, TS FUE o infección.",
        "Obstacle −3 on FUE, AGI or DES actions.",
        "Only Healing lowers it to Light; each day without it, save FUE or get infected.",
    ),
    ("heridas", "persistente"): _card_text(
        "Obstáculo −2 en acciones de FUE, AGI o DES.",
        "TS FUE por cada mes de Descanso (semana tras cirugía): pasa a leve.",
        "Obstacle −2 on FUE, AGI or DES actions.",
        "Save FUE per month of Long rest (per week after surgery): becomes Light.",
    ),
    ("fatiga", "leve"): _card_text(
        "Obstáculo −1 a cualquier acción.",
        "Tras 1 minuto de Reposo.",
        "Obstacle −1 on any action.",
        "After 1 minute of Rest.",
    ),
    ("fatiga", "grave"): _card_text(
        "Obstáculo −3 a cualquier acción.",
        "Tras 1 hora de Reposo.",
        "Obstacle −3 on any action.",
        "After 1 hour of Rest.",
    ),
    ("fatiga", "persistente"): _card_text(
        "Obstáculo −2 a cualquier acción.",
        "Con un Descanso.",
        "Obstacle −2 on any action.",
        "After a Long rest.",
    ),
    ("shock", "leve"): _card_text(
        "Aturdido: pierde su próximo Turno; desprevenido.",
        "Al final de su próximo Turno (sin fin de Turno anotado, al pasar la Ronda).",
        "Stunned: loses its next turn; off guard.",
        "At the end of its next turn (with no turn end recorded, when the round is over).",
    ),
    ("shock", "grave"): _card_text(
        "Aturdido: no puede actuar; desprevenido.",
        "Al final de su Turno, TS VOL: si la supera, baja a leve.",
        "Stunned: cannot act; off guard.",
        "At the end of its turn, save VOL: on success it drops to Light.",
    ),
    ("shock", "persistente"): _card_text(
        "Inconsciente: no puede actuar.",
        "1d6 min si viene de acumular Shock, 1d3 h si es directo; luego, derribado.",
        "Unconscious: cannot act.",
        "1d6 min if built up from Shock, 1d3 h if direct; then knocked down.",
    ),
    ("emocion", "leve"): _EMO_LEVE,
    ("emocion", "grave"): _card_text(
        "Facilidad +1 en FUE o VOL para huir (terror) o atacar (ira) la causa; "
        "Obstáculo −3 al resto.",
        "Al saberse a salvo de la causa: baja a leve.",
        "Bonus +1 on FUE or VOL to flee (Terror) or fight (Rage) the cause; Obstacle −3 on "
        "the rest.",
        "Once knowingly safe from the cause: drops to Light.",
    ),
    ("emocion", "persistente"): _EMO_ABATIMIENTO,
    ("emocion", "leve", "miedo"): _EMO_LEVE,
    ("emocion", "leve", "euforia"): _EMO_LEVE,
    ("emocion", "grave", "terror"): _EMO_TERROR,
    ("emocion", "grave", "ira"): _EMO_IRA,
    ("emocion", "persistente", "abatimiento"): _EMO_ABATIMIENTO,
    ("afeccion", "leve"): _card_text(
        "Efectos según cada enfermedad o veneno. Medicina para tratarle: Obstáculo −1.",
        "Cuando el DJ lo diga; si no, avanza a grave.",
        "Effects set by each disease or poison. Medicine to treat them: Obstacle −1.",
        "When the GM says so; otherwise it moves on to Serious.",
    ),
    ("afeccion", "grave"): _card_text(
        "Efectos según cada enfermedad o veneno. Medicina para tratarle: Obstáculo −3.",
        "Cuando el DJ lo diga; si no, avanza a persistente.",
        "Effects set by each disease or poison. Medicine to treat them: Obstacle −3.",
        "When the GM says so; otherwise it moves on to Persistent.",
    ),
    ("afeccion", "persistente"): _card_text(
        "Efectos según cada enfermedad o veneno. Medicina para tratarle: Obstáculo −2.",
        "Solo cuando el DJ lo decida.",
        "Effects set by each disease or poison. Medicine to treat them: Obstacle −2.",
        "Only when the GM says so.",
    ),
}


def _label(table: dict[str, dict[str, str]], key: object, lang: str) -> str:
    """Translate key with table, or return it as text when the table lacks it."""
    entry = table.get(key) if isinstance(key, str) else None
    if entry is None:
        return "" if key is None else str(key)
    return entry.get(lang) or entry["es"]


def _title(type_: object, grade: object, variant: object, lang: str) -> str:
    """Name a condition the way each language reads it: "Fatiga Leve", "Light Fatigue"."""
    type_label = _label(TYPE_LABELS, type_, lang)
    grade_label = _label(GRADE_LABELS, grade, lang)
    # English puts the adjective first; Spanish keeps the game's "Tipo Grado" order.
    title = f"{grade_label} {type_label}" if lang == "en" else f"{type_label} {grade_label}"
    if variant:
        title += f": {_label(VARIANT_LABELS, variant, lang)}"
    return title.strip()


# R13 (v2.1): a Shock leve marked after the PJ's turn ended this round takes next round's.
_SHOCK_LEVE_NEXT_ROUND = {
    "es": "Al final de su próximo Turno, el de la Ronda siguiente (sin fin de Turno anotado, "
    "al pasar esa Ronda).",
    "en": "At the end of its next turn, next round's (with no turn end recorded, when that "
    "round is over).",
}


def score_order(scores: dict) -> list[tuple[str, object]]:
    """Attribute scores in the game's order (FUE, AGI, DES, INT, VOL), any others after."""
    rank = {name: i for i, name in enumerate(SCORES)}
    return sorted(scores.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))


# R23: while asleep the PJ counts as Shock persistente, which waking ends.
_SHOCK_ASLEEP = {
    "es": {
        "effect": "Duerme: ni percibe ni actúa; desprevenido.",
        "ends": "Al despertar (Despertar, o al acabar las horas de sueño).",
    },
    "en": {
        "effect": "Asleep: cannot perceive or act; off guard.",
        "ends": "On waking (Wake up, or when the hours of sleep are over).",
    },
}


def card(
    type: str,
    grade: str,
    variant: str | None = None,
    lang: str = "es",
    *,
    engine: dict | None = None,
) -> dict[str, str]:
    """Return the card for an E.Alt as {"title", "effect", "ends"}.

    `engine` (a stored state's engine part) makes "ends" exact where it depends on more
    than the grade. Unknown lang falls back to Spanish; an unknown type, grade or variant
    raises KeyError.
    """
    code = _lang(lang)
    key = (type, grade, variant) if variant else (type, grade)
    text = dict(CARDS[key][code])
    engine = engine or {}
    if (
        key == ("shock", "leve")
        and engine.get("shock_leve_rounds") == 2
        and engine.get("turn_ended")
    ):
        text["ends"] = _SHOCK_LEVE_NEXT_ROUND[code]
    if key == ("shock", "persistente") and engine.get("asleep"):
        text = dict(_SHOCK_ASLEEP[code])  # the sleep's: it ends when the PJ wakes (R23)
    return {"title": _title(type, grade, variant, code), **text}


CHECKS: dict[str, dict[str, dict[str, str]]] = {
    "heridas_leve_descanso": {
        "es": {
            "label": "TS FUE: curar Heridas leve",
            "fail": "Sigue herido; otro intento tras el próximo Descanso.",
            "success": "Se borra Heridas leve.",
        },
        "en": {
            "label": "Save FUE: heal Light Wounds",
            "fail": "Still wounded; try again after the next Long rest.",
            "success": "Light Wounds cleared.",
        },
    },
    "heridas_grave_infeccion": {
        "es": {
            "label": "TS FUE: evitar infección",
            "fail": "Sufre Afección leve por infección.",
            "success": "Esta vez no hay infección.",
        },
        "en": {
            "label": "Save FUE: resist infection",
            "fail": "Suffers Light Affliction from infection.",
            "success": "No infection this time.",
        },
    },
    "heridas_persistente_recuperacion": {
        "es": {
            "label": "TS FUE: mejorar Heridas persistente",
            "fail": "Sin cambios hasta el próximo plazo.",
            "success": "Pasa a Heridas leve.",
        },
        "en": {
            "label": "Save FUE: recover Persistent Wounds",
            "fail": "No change until the next period.",
            "success": "Becomes Light Wounds.",
        },
    },
    "shock_grave_fin_turno": {
        "es": {
            "label": "TS VOL: salir de Shock grave",
            "fail": "Sigue en Shock grave.",
            "success": "Baja a Shock leve.",
        },
        "en": {
            "label": "Save VOL: shake off Serious Shock",
            "fail": "Stays in Serious Shock.",
            "success": "Drops to Light Shock.",
        },
    },
    "sin_descanso": {
        "es": {
            "label": "TS VOL: día sin Descanso",
            "fail": "Cae rendido: duerme inconsciente 1d6 horas.",
            "success": "Aguanta despierto.",
        },
        "en": {
            "label": "Save VOL: a day without Long rest",
            "fail": "Collapses: sleeps unconscious for 1d6 hours.",
            "success": "Stays awake.",
        },
    },
    "esfuerzo_prolongado": {
        "es": {
            "label": "TS FUE: esfuerzo prolongado",
            "fail": "Sufre Fatiga leve.",
            "success": "Aguanta un minuto más.",
        },
        "en": {
            "label": "Save FUE: prolonged exertion",
            "fail": "Suffers Light Fatigue.",
            "success": "Holds on one more minute.",
        },
    },
}


def check_text(name: str, lang: str = "es") -> dict[str, str]:
    """Return {"label", "fail", "success"} for a check; unknown names raise KeyError."""
    return dict(CHECKS[name][_lang(lang)])


def _special(es_label: str, es_effect: str, en_label: str, en_effect: str) -> dict:
    """Build one E.Esp catalogue entry in both languages."""
    return {
        "es": {"label": es_label, "effect": es_effect},
        "en": {"label": en_label, "effect": en_effect},
    }


# Seed catalogue only: the E.Esp chapter is not in our source, so effects stay generic and
# each campaign edits its own copy.
SPECIALS: dict[str, dict[str, dict[str, str]]] = {
    "incapacitado": _special(
        "Incapacitado",
        "No puede actuar hasta que el DJ se lo quite.",
        "Incapacitated",
        "Cannot act until the DJ takes it off.",
    ),
    "desprevenido": _special(
        "Desprevenido",
        "Cogido por sorpresa; reacciona tarde.",
        "Off guard",
        "Caught by surprise; slow to react.",
    ),
    "derribado": _special(
        "Derribado",
        "En el suelo; levantarse cuesta una acción.",
        "Knocked down",
        "On the ground; standing up takes an action.",
    ),
    "inconsciente": _special(
        "Inconsciente",
        "Sin sentido: ni percibe ni actúa.",
        "Unconscious",
        "Out cold: cannot perceive or act.",
    ),
    "dormido": _special(
        "Dormido",
        "Duerme: ni percibe ni actúa hasta despertar.",
        "Asleep",
        "Sleeping: unaware and unable to act until woken.",
    ),
    "infeccion": _special(
        "Infección",
        "Herida infectada; sus efectos siguen la fase de Afección.",
        "Infection",
        "Infected wound; its effects follow the Affliction phase.",
    ),
    "desangramiento": _special(
        "Desangramiento",
        "Pierde sangre; necesita atención pronto.",
        "Bleeding",
        "Losing blood; needs care soon.",
    ),
    "lesion": _special(
        "Lesión",
        "Una parte del cuerpo dañada limita lo que puede hacer.",
        "Injury",
        "A damaged body part limits what they can do.",
    ),
    "ceguera": _special("Ceguera", "No ve.", "Blindness", "Cannot see."),
    "sordera": _special("Sordera", "No oye.", "Deafness", "Cannot hear."),
    "fobia": _special(
        "Fobia",
        "Un temor fijo a algo concreto.",
        "Phobia",
        "A lasting fear of one specific thing.",
    ),
    "paranoia": _special(
        "Paranoia",
        "Desconfía de todos y de todo.",
        "Paranoia",
        "Distrusts everyone and everything.",
    ),
    "compulsion": _special(
        "Compulsión",
        "Necesita repetir cierto acto.",
        "Compulsion",
        "Driven to repeat a certain act.",
    ),
    "amnesia": _special(
        "Amnesia",
        "Ha perdido parte de sus recuerdos.",
        "Amnesia",
        "Part of their memory is gone.",
    ),
    "bloqueo_empatico": _special(
        "Bloqueo empático",
        "No conecta con lo que sienten los demás.",
        "Empathic block",
        "Cannot connect with what others feel.",
    ),
    "catatonia": _special(
        "Catatonia",
        "Ausente; apenas se mueve ni responde.",
        "Catatonia",
        "Absent; barely moves or responds.",
    ),
}


def _capfirst(text: str) -> str:
    """A name as the cards' chips show it: its first letter a capital."""
    return text[:1].upper() + text[1:]


def special_label(name: str, lang: str = "es") -> str:
    """Return an E.Esp's label, or the name unchanged when it is not in the seed catalogue."""
    # Diseases and poisons are named freely by the DJ ("veneno de fugu"): show them as typed.
    entry = SPECIALS.get(name)
    if entry is None:
        return name
    return entry[_lang(lang)]["label"]


def _rule(es: str, en: str) -> dict[str, str]:
    """Build one audit summary in both languages."""
    return {"es": es, "en": en}


# One line per rule of SPEC.md, for the audit view; "base" and "DJ" tag effects with no R-number.
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
        "Wounds: Obstacle on FUE, AGI and DES (light −1, persistent −2, serious −3).",
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
        "Shock lasts a round, until a save VOL, or knocks out.",
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
        "Each day without a Long rest: Persistent Fatigue, and save VOL or collapse "
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
        "Optional: exertion for more minutes than FUE calls for save FUE.",
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
    # Whole hours read better in hours: an R13 faint of 1d3 h should not show as "120 min".
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
    if change == "awake":
        if effect.get("forced"):
            return "Woken by force" if en else "Despierta a la fuerza"
        return "Wakes up" if en else "Despierta"
    if change == "scores":
        scores = effect.get("scores")
        listed = (
            ", ".join(f"{k} {v}" for k, v in score_order(scores))
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
