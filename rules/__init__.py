"""Estados Alterados rule engine: pure Python, replayable from a character's event log.

`replay(events, options)` folds a whole log; `apply(state, event, options)` takes one step on a
stored state. Both raise `RuleError` for an invalid event, which then changes nothing.
"""

from __future__ import annotations

from typing import Any

from rules.engine import Char, Effect, pending_check
from rules.errors import MESSAGES, RuleError
from rules.events import step
from rules.state import CAP, Breakdown, action_breakdown, action_modifier, is_public_state, public
from rules.vocab import CHECKS, EVENT_KINDS, GRADES, OPTION_DEFAULTS, SPECIALS, TYPES

ENGINE_KEY = "engine"


def normalize_options(options: dict | None) -> dict:
    """The campaign options with defaults filled in; a RuleError for a wrong value."""
    if options is None:
        return OPTION_DEFAULTS
    opt = dict(OPTION_DEFAULTS)
    for key in ("especificos", "esfuerzo_prolongado"):
        if key in options:
            if type(options[key]) is not bool:
                raise RuleError("bad_option", field=key)
            opt[key] = options[key]
    if "round_seconds" in options:
        value = options["round_seconds"]
        if type(value) is not int or value <= 0:
            raise RuleError("bad_option", field="round_seconds")
        opt["round_seconds"] = value
    return opt


def _stored(c: Char) -> dict:
    state = public(c)
    state[ENGINE_KEY] = c.to_engine()
    return state


def initial_state() -> dict:
    """The state of a PJ with an empty log, JSON-ready."""
    return _stored(Char())


def public_state(state: dict) -> dict:
    """Only the rules/README.md section 8 keys of a stored state."""
    return {k: v for k, v in state.items() if k != ENGINE_KEY}


# A pending check's letter in a packed state (the checks of rules.vocab.CHECKS).
CHECK_LETTERS = {
    "heridas_leve_descanso": "l",
    "heridas_grave_infeccion": "i",
    "heridas_persistente_recuperacion": "p",
    "shock_grave_fin_turno": "t",
    "sin_descanso": "s",
    "esfuerzo_prolongado": "e",
}
_LETTER_CHECKS = {letter: name for name, letter in CHECK_LETTERS.items()}


def packed(state: dict) -> dict:
    """The form a stored state is kept in: its pending checks as one letter each.

    The engine's pile of checks is a string, a letter a check, oldest first ("isisis": a
    day's infection check and lack of rest, three days running), and the public `pending`
    list (the same checks, with what CHECKS says of each) is left out: a year of unrolled
    checks costs a few hundred bytes, not fifty thousand. `unpacked` gives the state back as
    it was; a value that is not a whole stored state is returned as it is.
    """
    engine = state.get(ENGINE_KEY) if isinstance(state, dict) else None
    if not isinstance(engine, dict) or not isinstance(engine.get("pending"), list):
        return state
    letters = []
    for p in engine["pending"]:
        if (
            not isinstance(p, dict)
            or p.get("check") not in CHECK_LETTERS
            or pending_check(p["check"]) != p
        ):
            return state  # not the engine's own pile: kept word for word
        letters.append(CHECK_LETTERS[p["check"]])
    kept = {k: v for k, v in state.items() if k not in ("pending", ENGINE_KEY)}
    kept[ENGINE_KEY] = {**engine, "pending": "".join(letters)}
    return kept


def unpacked(stored: dict) -> dict:
    """A stored state as `apply` gave it, from its `packed` form (or as it is, if not one)."""
    engine = stored.get(ENGINE_KEY) if isinstance(stored, dict) else None
    if not isinstance(engine, dict) or "pending" in stored:
        return stored
    letters = engine.get("pending")
    if not isinstance(letters, str) or not set(letters) <= _LETTER_CHECKS.keys():
        return stored  # not a pile of known checks: from_engine refuses it as a bad state
    pending = [pending_check(_LETTER_CHECKS[letter]) for letter in letters]
    state = {k: v for k, v in stored.items() if k != ENGINE_KEY}
    state["pending"] = [dict(p) for p in pending]
    state[ENGINE_KEY] = {**engine, "pending": pending}
    return state


def apply(
    state: dict | None, event: dict, options: dict | None = None
) -> tuple[dict, list[dict[str, Any]]]:
    """One event on a stored state: the new state and the effects trail (rule by rule).

    `state` is not changed; a RuleError leaves nothing changed anywhere.
    """
    if state is None:
        c = Char()
    else:
        if not isinstance(state, dict) or not isinstance(state.get(ENGINE_KEY), dict):
            raise RuleError("bad_state")
        c = Char.from_engine(state[ENGINE_KEY])
    c.opt = normalize_options(options)
    effects: list[Effect] = []
    c.fx = effects
    step(c, event)
    c.fx = None
    return _stored(c), effects


def replay(events: list, options: dict | None = None) -> dict:
    """Fold a whole log (oldest first) into the rules/README.md section 8 state."""
    c = Char()
    c.opt = normalize_options(options)
    for event in events:
        step(c, event)
    return public(c)


def replay_trail(events: list, options: dict | None = None) -> tuple[dict, list[list[dict]]]:
    """Like `replay`, and also the effects of each event, for audits."""
    c = Char()
    c.opt = normalize_options(options)
    trail = []
    for event in events:
        c.fx = []
        step(c, event)
        trail.append(c.fx)
    c.fx = None
    return public(c), trail


__all__ = [
    "CHECKS",
    "EVENT_KINDS",
    "GRADES",
    "MESSAGES",
    "OPTION_DEFAULTS",
    "SPECIALS",
    "TYPES",
    "RuleError",
    "CAP",
    "Breakdown",
    "action_breakdown",
    "action_modifier",
    "apply",
    "is_public_state",
    "initial_state",
    "normalize_options",
    "packed",
    "public_state",
    "replay",
    "replay_trail",
    "unpacked",
]
