"""The starting catalogue of every new campaign: the rules/README.md §1 E.Esp names.

The game's chapter on E.Esp is not in our source, so these are the table's own short
reminders, written for this app; each campaign's DJ edits them on its catalogue page.
"""

from .models import CatalogueEntry

Kind = CatalogueEntry.Kind

# (name, kind, effect, {phase: effect} for diseases and poisons)
SEED: list[tuple[str, str, str, dict[str, str]]] = [
    ("incapacitado", Kind.ESPECIAL, "No puede actuar hasta recuperarse.", {}),
    ("desprevenido", Kind.ESPECIAL, "Aturdido: no reacciona ni se defiende bien.", {}),
    ("derribado", Kind.ESPECIAL, "Ha caído al suelo y tiene que levantarse.", {}),
    ("inconsciente", Kind.ESPECIAL, "Sin sentido: ni percibe ni actúa.", {}),
    ("dormido", Kind.ESPECIAL, "Duerme; cuenta como Shock persistente.", {}),
    (
        "infeccion",
        Kind.ENFERMEDAD,
        "Una herida grave sin curar se ha infectado.",
        {
            "leve": "Fiebre y malestar.",
            "grave": "Fiebre alta y debilidad.",
            "persistente": "Postrado en cama; peligro de muerte sin tratamiento.",
        },
    ),
    (
        "veneno paralizante",
        Kind.VENENO,
        "Entumece los músculos desde la herida o el bocado.",
        {
            "leve": "Hormigueo y torpeza en las manos.",
            "grave": "Le cuesta moverse; apenas sostiene un arma.",
            "persistente": "Rígido y sin fuerzas; respira con dificultad.",
        },
    ),
    (
        "veneno somnífero",
        Kind.VENENO,
        "Adormece poco a poco a quien lo toma.",
        {
            "leve": "Bosteza y se distrae.",
            "grave": "Se le cierran los ojos; cabecea en cuanto se queda quieto.",
            "persistente": "Cae en un sueño hondo del que cuesta despertarlo.",
        },
    ),
    ("desangramiento", Kind.ESPECIAL, "Pierde sangre hasta que lo atiendan.", {}),
    ("lesion", Kind.ESPECIAL, "Una parte del cuerpo dañada por mucho tiempo.", {}),
    ("ceguera", Kind.ESPECIAL, "No ve.", {}),
    ("sordera", Kind.ESPECIAL, "No oye.", {}),
    ("fobia", Kind.ESPECIAL, "Miedo sin razón a algo concreto.", {}),
    ("paranoia", Kind.ESPECIAL, "Desconfía de todo y de todos.", {}),
    ("compulsion", Kind.ESPECIAL, "Necesita repetir un gesto o un ritual.", {}),
    ("amnesia", Kind.ESPECIAL, "Le faltan recuerdos.", {}),
    ("bloqueo_empatico", Kind.ESPECIAL, "No logra ponerse en el lugar de otros.", {}),
    ("catatonia", Kind.ESPECIAL, "Inmóvil y ausente; no responde.", {}),
]


def catalogue_entries(campaign) -> list[CatalogueEntry]:
    """Unsaved catalogue rows for a campaign, one per SEED name."""
    return [
        CatalogueEntry(
            campaign=campaign,
            name=name,
            kind=kind,
            effect=effect,
            effect_leve=phases.get("leve", ""),
            effect_grave=phases.get("grave", ""),
            effect_persistente=phases.get("persistente", ""),
        )
        for name, kind, effect, phases in SEED
    ]
