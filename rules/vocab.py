"""The game's vocabulary as the engine spells it: types, grades, variants, checks, E.Esp."""

TYPES = ("heridas", "fatiga", "shock", "emocion", "afeccion")
GRADES = ("leve", "grave", "persistente")

# One bit per box, so that a type's marks fit in one small int.
LEVE, GRAVE, PERSISTENTE = 1, 2, 4
BIT = {"leve": LEVE, "grave": GRAVE, "persistente": PERSISTENTE}
# R1: the grade that applies is the most severe marked one, in this priority.
ACTIVE_ORDER = (("grave", GRAVE), ("persistente", PERSISTENTE), ("leve", LEVE))
# R18: the order in which the phases of an Afección follow each other.
PHASE_ORDER = ("leve", "grave", "persistente")

# Obstáculo of an active grade (R4, R9, R16, R19).
OBSTACULO = {"leve": -1, "persistente": -2, "grave": -3}

VARIANTS = {
    "leve": ("miedo", "euforia"),
    "grave": ("terror", "ira"),
    "persistente": ("abatimiento",),
}
# R15: doubling a leve emotion reaches its grave; R17: leaving the cause goes back.
VARIANT_UP = {"miedo": "terror", "euforia": "ira"}
VARIANT_DOWN = {"terror": "miedo", "ira": "euforia"}

ESPECIFICOS = {
    "heridas": ("desangramiento", "lesion", "ceguera", "sordera"),
    "emocion": ("fobia", "paranoia", "compulsion", "amnesia", "bloqueo_empatico", "catatonia"),
}

# Checks: name -> (attribute, optional, rule that raises it).
CHECKS = {
    "heridas_leve_descanso": ("FUE", True, "R6"),
    "heridas_grave_infeccion": ("FUE", False, "R6"),
    "heridas_persistente_recuperacion": ("FUE", True, "R6"),
    "shock_grave_fin_turno": ("VOL", False, "R13"),
    "sin_descanso": ("VOL", False, "R24"),
    "esfuerzo_prolongado": ("FUE", False, "R27"),
}

# E.Esp that the engine derives from Shock and sleep; the DJ cannot give or take them.
DERIVED_SPECIALS = ("desprevenido", "inconsciente", "dormido")

SPECIALS = (
    "incapacitado",
    "desprevenido",
    "derribado",
    "inconsciente",
    "dormido",
    "infeccion",
    "desangramiento",
    "lesion",
    "ceguera",
    "sordera",
    "fobia",
    "paranoia",
    "compulsion",
    "amnesia",
    "bloqueo_empatico",
    "catatonia",
)

EVENT_KINDS = (
    "start",
    "attributes",
    "suffer",
    "heal",
    "surgery",
    "save",
    "dismiss",
    "time",
    "turn_end",
    "sleep",
    "wake",
    "descanso",
    "safe",
    "progress",
    "recover",
    "special",
)
ACTIVITIES = ("activo", "reposo", "esfuerzo")
TIME_UNITS = ("rounds", "minutes", "hours", "days")

OPTION_DEFAULTS = {"especificos": False, "esfuerzo_prolongado": False, "round_seconds": 6}

MINUTE = 60
HOUR = 3600
DAY = 86400
DESCANSO_SLEEP = 6 * HOUR  # R23: this much sleep makes a Descanso
DESCANSO_HOURS = 8  # the `descanso` shorthand sleeps this long
PERSISTENTE_MONTH = 30  # R6 Decision: Descansos in a month
PERSISTENTE_WEEK = 7  # ... and in a week, after a surgery


# The scores every PJ has, in the order of the sheet; the E.Alt modify all but INT by
# name (R20) and every other action as "otro". Heridas hinder the physical ones (R4);
# an Emoción changes FUE and VOL to flee or to fight (R16).
SCORES = ("FUE", "AGI", "DES", "INT", "VOL")
MODIFIED_SCORES = ("FUE", "AGI", "DES", "VOL")
PHYSICAL_SCORES = ("FUE", "AGI", "DES")
FLEE_FIGHT_SCORES = ("FUE", "VOL")
