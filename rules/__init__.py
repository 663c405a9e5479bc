"""Estados Alterados rule engine: pure Python, replayable from a character's event log.

`replay(events, options)` folds a whole log; `apply(state, event, options)` takes one step on a
stored state. Both raise `RuleError` for an invalid event, which then changes nothing.
"""

from __future__ import annotations

from typing import Any

from rules.engine import Char
from rules.errors import MESSAGES, RuleError
from rules.events import step
from rules.state import action_modifier, public
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
    """Only the SPEC section 8 keys of a stored state."""
    return {k: v for k, v in state.items() if k != ENGINE_KEY}


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
    c.fx = effects = []
    step(c, event)
    c.fx = None
    return _stored(c), effects


def replay(events: list, options: dict | None = None) -> dict:
    """Fold a whole log (oldest first) into the SPEC section 8 state."""
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
    "action_modifier",
    "apply",
    "initial_state",
    "normalize_options",
    "public_state",
    "replay",
    "replay_trail",
]
