"""Small helpers for the per-rule tests: build events, fold logs, read states and effects.

Expectations live in the tests; these only shorten the writing of logs and the reading of
results (rules/README.md sections 7 and 8).
"""

from __future__ import annotations

import copy

import pytest

from rules import RuleError, apply, initial_state, public_state, replay, replay_trail

DAY = 86400
HOUR = 3600
MINUTE = 60


# --- events (rules/README.md section 7) ----------------------------------------------------


def suffer(type_: str, grade: str, **fields) -> dict:
    return {"kind": "suffer", "type": type_, "grade": grade, **fields}


def time(activity: str | None = None, calm: bool | None = None, **amount) -> dict:
    event = {"kind": "time", **amount}
    if activity is not None:
        event["activity"] = activity
    if calm is not None:
        event["calm"] = calm
    return event


def save(check: str, success: bool, **fields) -> dict:
    return {"kind": "save", "check": check, "success": success, **fields}


def dismiss(check: str) -> dict:
    return {"kind": "dismiss", "check": check}


def recover(type_: str, grade: str) -> dict:
    return {"kind": "recover", "type": type_, "grade": grade}


def special(name: str, on: bool) -> dict:
    return {"kind": "special", "name": name, "on": on}


def heal(**fields) -> dict:
    return {"kind": "heal", **fields}


def attributes(**scores) -> dict:
    return {"kind": "attributes", "scores": scores}


def kind(name: str, **fields) -> dict:
    return {"kind": name, **fields}


DESCANSO = {"kind": "descanso"}
TURN_END = {"kind": "turn_end"}
SAFE = {"kind": "safe"}
SURGERY = {"kind": "surgery"}


def days_of_descanso(n: int) -> list[dict]:
    """n game days, each with one Descanso: 16 h awake, then the 8 h `descanso` shorthand."""
    events: list[dict] = []
    for _ in range(n):
        events += [time(hours=16), dict(DESCANSO)]
    return events


# --- folding -----------------------------------------------------------------------------


def state_of(*events: dict, **options) -> dict:
    """The rules/README.md section 8 state after the events (options as keyword arguments)."""
    return replay(list(events), options or None)


def trail_of(*events: dict, **options) -> list[list[dict]]:
    """The effects of every event of the log."""
    _state, trail = replay_trail(list(events), options or None)
    return trail


def last_effects(*events: dict, **options) -> list[dict]:
    """The effects of the last event of the log."""
    return trail_of(*events, **options)[-1]


def error_of(*events: dict, **options) -> RuleError:
    with pytest.raises(RuleError) as info:
        replay(list(events), options or None)
    return info.value


def assert_error(events: list[dict], code: str, **options) -> RuleError:
    """The last event is invalid: the right code and index, both languages, nothing changed."""
    err = error_of(*events, **options)
    assert isinstance(err, ValueError)
    assert err.code == code, (err.code, str(err))
    assert err.index == len(events) - 1
    es, en = err.message("es"), err.message("en")
    assert es.strip() and en.strip()
    assert es != en
    # The same event through `apply` on the stored state raises and leaves it untouched.
    stored = initial_state()
    for event in events[:-1]:
        stored, _fx = apply(stored, event, options or None)
    before = copy.deepcopy(stored)
    with pytest.raises(RuleError) as info:
        apply(stored, events[-1], options or None)
    assert info.value.code == code
    assert stored == before
    assert public_state(stored) == replay(list(events[:-1]), options or None)
    return err


# --- reading states and effects ----------------------------------------------------------


def marks(state: dict, type_: str) -> list[str]:
    return state["marks"][type_]


def pending(state: dict) -> list[str]:
    return [p["check"] for p in state["pending"]]


def step(effect: dict) -> tuple:
    """One effect as a short tuple: (rule, change, what)."""
    what = tuple(
        effect[k]
        for k in ("type", "grade", "variant", "name", "check")
        if effect.get(k) is not None
    )
    return (effect.get("rule"), effect.get("change"), *what)


def steps(effects: list[dict]) -> list[tuple]:
    return [step(e) for e in effects]


def changes(effects: list[dict]) -> list[str]:
    return [e.get("change") for e in effects]


def in_order(expected: list[tuple], effects: list[dict]) -> bool:
    """The expected steps appear in the effects, in this order (others may sit between).

    An expected step matches an effect whose step starts with it.
    """
    got = iter(steps(effects))
    return all(any(s[: len(e)] == e for s in got) for e in expected)


def has_step(expected: tuple, effects: list[dict]) -> bool:
    return in_order([expected], effects)
