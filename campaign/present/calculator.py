"""The modifier calculator: one action's Obstáculos and Facilidades in words (R20/R21).

The sum and the cap are the engine's (rules.action_breakdown); this only names each part,
and asks, for a PJ in terror or ira, whether the action is about the cause (R16).
"""

from django.utils.translation import gettext as _

import rules
from rules import texts

from ..taps import CalculatorQuery
from . import lang
from .card import calc_key


def _emotion_part(state: dict, attribute: str, purpose: str | None) -> int:
    parts = rules.action_breakdown(state, attribute, purpose)
    return sum(value for kind, _rule, value in parts.sources if kind == "emocion")


def cause_question(state: dict, attribute: str, purpose: str | None) -> str:
    """The question the calculator asks before it gives an Emoción grave's Facilidad: is
    the flight from (or the fight against) the cause of the terror or ira? "" when the
    answer would change nothing (no Emoción grave, an ordinary action, a score it does not
    reach, the fight of one in terror)."""
    if purpose is None or state["active"]["emocion"] != "grave":
        return ""
    if _emotion_part(state, attribute, purpose) == _emotion_part(state, attribute, None):
        return ""
    variant = state["emotion"]["grave"] or ""
    cause = state["emotion"]["grave_cause"]
    words = {
        ("flee", False): _("Fleeing from the cause of its %(variant)s?"),
        ("flee", True): _("Fleeing from the cause of its %(variant)s (%(cause)s)?"),
        ("fight", False): _("Against the cause of its %(variant)s?"),
        ("fight", True): _("Against the cause of its %(variant)s (%(cause)s)?"),
    }
    return words[purpose, bool(cause)] % {"variant": variant, "cause": cause}


def breakdown(query: CalculatorQuery) -> dict:
    """What the calculator shows for `query`: a line per source, the sum and the total."""
    state = query.character.snapshot.state
    purpose = None if query.intent == "normal" else query.intent
    question = cause_question(state, query.attribute, purpose)
    about_cause = ""
    if question and purpose is not None:
        # R16: a flight or a fight that is not about the cause of the terror or ira is any
        # other action for that Emoción.
        about_cause = {
            ("flee", True): _("fleeing from the cause"),
            ("flee", False): _("not fleeing from the cause"),
            ("fight", True): _("against the cause"),
            ("fight", False): _("not against the cause"),
        }[purpose, query.against_cause]
        if not query.against_cause:
            purpose = None
    parts = rules.action_breakdown(state, query.attribute, purpose, query.situational)
    code = lang()
    lines = []
    for kind, rule, value in parts.sources:
        active = state["active"][kind]
        variant = state["emotion"][active] if kind == "emocion" else None
        label = texts.card(kind, active, variant, lang=code)["title"]
        if kind == "emocion" and about_cause:
            label = f"{label} ({about_cause})"
        lines.append((label, rule, value))
    if query.situational:
        lines.append((_("Situational"), "", query.situational))
    return {
        "character": query.character,
        "attribute": query.attribute,
        "intent": query.intent,
        "situational": query.situational,
        "cause_question": question,
        "against_cause": query.against_cause,
        "calc_key": calc_key(state),
        "lines": lines,
        "raw": parts.raw,
        "total": parts.total,
        "capped": parts.capped,
    }
