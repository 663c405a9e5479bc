"""Display texts for the Zodiac tracker: labels, condition cards, checks and E.Esp.

All wording here is our own short summary of the rules (rules/README.md); Spanish first,
English second. The audit's lines (a rule's name, an effect in words) are rules.trail's.
"""

from rules.vocab import SCORES

__all__ = [
    "CARDS",
    "CHECKS",
    "GRADE_LABELS",
    "LANGS",
    "SPECIALS",
    "TYPE_LABELS",
    "SCORE_LABELS",
    "SCORE_NAMES",
    "VARIANT_LABELS",
    "card",
    "check_text",
    "score_label",
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


# The scores as a page reads them: the log keeps the Spanish abbreviations (FUE), an English
# page reads its own (STR, DEX, WIL: strength, dexterity, will; AGI and INT are the same).
SCORE_LABELS: dict[str, dict[str, str]] = {
    "FUE": {"es": "FUE", "en": "STR"},
    "AGI": {"es": "AGI", "en": "AGI"},
    "DES": {"es": "DES", "en": "DEX"},
    "INT": {"es": "INT", "en": "INT"},
    "VOL": {"es": "VOL", "en": "WIL"},
}
SCORE_NAMES: dict[str, dict[str, str]] = {
    "FUE": {"es": "Fuerza", "en": "Strength"},
    "AGI": {"es": "Agilidad", "en": "Agility"},
    "DES": {"es": "Destreza", "en": "Dexterity"},
    "INT": {"es": "Intelecto", "en": "Intellect"},
    "VOL": {"es": "Voluntad", "en": "Will"},
}


def score_label(key: str, lang: str = "es") -> str:
    """A score's abbreviation in `lang` ("FUE" reads "STR" in English); a score of the
    table's own (not one of the game's five) as it was typed."""
    return SCORE_LABELS.get(key, {}).get(_lang(lang), key)


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
    "Bonus +1 on STR or WIL to flee or fight; Obstacle −1 on the rest.",
    "After 1 minute of calm Rest (sleep counts), away from any stress.",
)
_EMO_TERROR = _card_text(
    "Facilidad +1 en FUE o VOL para huir de la causa; Obstáculo −3 al resto.",
    "Al saberse a salvo de la causa: pasa a miedo.",
    "Bonus +1 on STR or WIL to flee the cause; Obstacle −3 on the rest.",
    "Once knowingly safe from the cause: becomes Fear.",
)
_EMO_IRA = _card_text(
    "Facilidad +1 en FUE o VOL para atacar la causa; Obstáculo −3 al resto.",
    "Al saberse a salvo de la causa: pasa a euforia.",
    "Bonus +1 on STR or WIL to fight the cause; Obstacle −3 on the rest.",
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
        "Obstacle −1 on STR, AGI or DEX actions.",
        "Save STR after each Long rest if it's your only wound; Healing turns it into "
        "Light Fatigue.",
    ),
    ("heridas", "grave"): _card_text(
        "Obstáculo −3 en acciones de FUE, AGI o DES.",
        "Solo Curación la baja a leve; cada día sin ella, TS FUE o infección.",
        "Obstacle −3 on STR, AGI or DEX actions.",
        "Only Healing lowers it to Light; each day without it, save STR or get infected.",
    ),
    ("heridas", "persistente"): _card_text(
        "Obstáculo −2 en acciones de FUE, AGI o DES.",
        "TS FUE por cada mes de Descanso (semana tras cirugía): pasa a leve.",
        "Obstacle −2 on STR, AGI or DEX actions.",
        "Save STR per month of Long rest (per week after surgery): becomes Light.",
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
        "At the end of its turn, save WIL: on success it drops to Light.",
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
        "Bonus +1 on STR or WIL to flee (Terror) or fight (Rage) the cause; Obstacle −3 on "
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


# R13 (v2.1): a Shock leve marked after the PJ's turn ended this round takes next round's;
# v2.2: so does one marked during the PJ's own turn.
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
    if key == ("shock", "leve") and (
        engine.get("shock_leve_own_turn")
        or (engine.get("shock_leve_rounds") == 2 and engine.get("turn_ended"))
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
            "label": "Save STR: heal Light Wounds",
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
            "label": "Save STR: resist infection",
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
            "label": "Save STR: recover Persistent Wounds",
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
            "label": "Save WIL: shake off Serious Shock",
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
            "label": "Save WIL: a day without Long rest",
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
            "label": "Save STR: prolonged exertion",
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
