"""The modifier calculator: one action's Obstáculos and Facilidades in words (R20/R21).

The sum and the cap are the engine's (rules.action_breakdown); this only names each part.
"""

from django.utils.translation import gettext as _

import rules
from rules import texts

from ..taps import CalculatorQuery
from . import lang


def breakdown(query: CalculatorQuery) -> dict:
    """What the calculator shows for `query`: a line per source, the sum and the total."""
    state = query.character.snapshot.state
    purpose = None if query.intent == "normal" else query.intent
    parts = rules.action_breakdown(state, query.attribute, purpose, query.situational)
    code = lang()
    lines = []
    for kind, rule, value in parts.sources:
        active = state["active"][kind]
        variant = state["emotion"][active] if kind == "emocion" else None
        lines.append((texts.card(kind, active, variant, lang=code)["title"], rule, value))
    if query.situational:
        lines.append((_("Situational"), "", query.situational))
    return {
        "character": query.character,
        "attribute": query.attribute,
        "intent": query.intent,
        "situational": query.situational,
        "lines": lines,
        "raw": parts.raw,
        "total": parts.total,
        "capped": parts.capped,
    }
