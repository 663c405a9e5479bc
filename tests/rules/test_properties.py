"""Properties over random logs (hypothesis): the -3 cap, replay = fold of apply, resume."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import RuleError, apply, initial_state, public_state, replay

TYPES = ("heridas", "fatiga", "shock", "emocion", "afeccion")
GRADES = ("leve", "grave", "persistente")
VARIANT = {"leve": ("miedo", "euforia"), "grave": ("terror", "ira"), "persistente": (None,)}
CHECKS = (
    "heridas_leve_descanso",
    "heridas_grave_infeccion",
    "heridas_persistente_recuperacion",
    "shock_grave_fin_turno",
    "sin_descanso",
    "esfuerzo_prolongado",
)

seeds = st.integers(min_value=0, max_value=2**31)


@st.composite
def suffer(draw):
    t = draw(st.sampled_from(TYPES))
    g = draw(st.sampled_from(GRADES))
    ev = {"kind": "suffer", "type": t, "grade": g}
    if t == "emocion":
        variant = draw(st.sampled_from(VARIANT[g]))
        if variant:
            ev["variant"] = variant
        if g == "grave":
            ev["cause"] = "el oni"
    if t == "afeccion":
        ev["source"] = draw(st.sampled_from(("infeccion", "fiebre", "veneno de fugu")))
    if t == "heridas" and g == "persistente":
        ev["especifico"] = draw(st.sampled_from(("lesion", "ceguera")))
    if draw(st.booleans()):
        ev["roll"] = draw(st.integers(min_value=1, max_value=3))
    if draw(st.booleans()):
        ev["own_turn"] = draw(st.booleans())  # R13 (v2.2)
    return ev


def _time(draw):
    unit = draw(st.sampled_from(("rounds", "minutes", "hours", "days")))
    top = {"rounds": 20, "minutes": 90, "hours": 30, "days": 3}[unit]
    ev = {"kind": "time", unit: draw(st.integers(min_value=1, max_value=top))}
    activity = draw(st.sampled_from((None, "activo", "reposo", "esfuerzo")))
    if activity:
        ev["activity"] = activity
    if activity == "reposo" and draw(st.booleans()):
        ev["calm"] = True
    return ev


events = st.one_of(
    suffer(),
    st.composite(_time)(),
    st.builds(
        lambda c, s, r: {"kind": "save", "check": c, "success": s, "roll": r},
        st.sampled_from(CHECKS),
        st.booleans(),
        st.integers(1, 6),
    ),  # fmt: skip
    st.builds(lambda c: {"kind": "dismiss", "check": c}, st.sampled_from(CHECKS)),
    st.builds(
        lambda k, s, r, ok: {"kind": k, "by_self": s, "regeneracion": r, "success": ok},
        st.sampled_from(("heal", "surgery")),
        st.booleans(),
        st.booleans(),
        st.booleans(),
    ),  # fmt: skip
    st.sampled_from(
        [
            {"kind": "turn_end"},
            {"kind": "turn_end"},
            {"kind": "sleep"},
            {"kind": "sleep", "hours": 7},
            {"kind": "sleep", "hours": 7, "descanso": False},
            {"kind": "sleep", "descanso": False},
            {"kind": "wake"},
            {"kind": "wake", "forced": True},
            {"kind": "descanso"},
            {"kind": "safe"},
            {"kind": "surgery"},
            {"kind": "progress", "type": "afeccion"},
            {"kind": "special", "name": "derribado", "on": False},
            {"kind": "special", "name": "incapacitado", "on": False},
            {"kind": "special", "name": "fiebre", "on": False},
            {"kind": "attributes", "scores": {"FUE": 2, "VOL": 3}},
        ]
    ),
    st.builds(
        lambda t, g: {"kind": "recover", "type": t, "grade": g},
        st.sampled_from(TYPES),
        st.sampled_from(GRADES),
    ),  # fmt: skip
)
options = st.fixed_dictionaries(
    {
        "especificos": st.booleans(),
        "esfuerzo_prolongado": st.booleans(),
        "round_seconds": st.sampled_from((6, 10)),
    }
)


@st.composite
def logs(draw):
    """A valid log: proposed events that the engine refuses are left out (and kept aside)."""
    opts = draw(options)
    proposed = draw(st.lists(st.tuples(events, seeds), min_size=1, max_size=40))
    state = initial_state()
    valid, refused = [], []
    for ev, seed in proposed:
        ev = {**ev, "seed": seed}
        try:
            state, _ = apply(state, ev, opts)
        except RuleError:
            refused.append((len(valid), ev))
            continue
        valid.append(ev)
    return opts, valid, refused


common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _steps(log, opts):
    state = initial_state()
    out = []
    for ev in log:
        state, _ = apply(state, ev, opts)
        out.append(state)
    return out


@common
@given(logs())
def test_every_modifier_is_at_least_minus_3_after_every_event(case):
    opts, log, _ = case
    for state in _steps(log, opts):
        for key in ("modifiers", "modifiers_flee", "modifiers_fight"):
            assert min(state[key].values()) >= -3, (key, state[key])


@common
@given(logs())
def test_replay_equals_folding_apply_step_by_step(case):
    opts, log, _ = case
    folded = _steps(log, opts)[-1] if log else initial_state()
    assert replay(log, opts) == public_state(folded)


@common
@given(logs(), st.integers(min_value=0, max_value=40))
def test_a_state_saved_as_json_and_resumed_gives_the_same_result(case, cut):
    opts, log, _ = case
    cut = min(cut, len(log))
    state = initial_state()
    for ev in log[:cut]:
        state, _ = apply(state, ev, opts)
    state = json.loads(json.dumps(state))
    for ev in log[cut:]:
        state, _ = apply(state, ev, opts)
    assert public_state(state) == replay(log, opts)


@common
@given(logs())
def test_replay_is_deterministic(case):
    opts, log, _ = case
    assert replay(copy.deepcopy(log), opts) == replay(copy.deepcopy(log), opts)


@common
@given(logs())
def test_can_act_is_false_exactly_when_shocked_asleep_or_incapacitado(case):
    opts, log, _ = case
    for state in _steps(log, opts):
        blocked = (
            bool(state["marks"]["shock"]) or state["asleep"] or "incapacitado" in state["specials"]
        )
        assert state["can_act"] is not blocked


@common
@given(logs())
def test_an_invalid_event_leaves_the_state_unchanged(case):
    opts, log, refused = case
    states = [initial_state(), *_steps(log, opts)]
    for position, ev in refused:
        before = states[position]
        kept = copy.deepcopy(before)
        try:
            apply(before, ev, opts)
        except RuleError as err:
            assert err.index == len(log[:position])
        else:  # refused while building the log, so it must be refused again
            raise AssertionError(f"accepted {ev} that was refused before")
        assert before == kept


@common
@given(logs())
def test_every_state_is_plain_json(case):
    opts, log, _ = case
    for state in _steps(log, opts):
        assert json.loads(json.dumps(state)) == state


@common
@given(logs(), st.sampled_from(TYPES), st.sampled_from(GRADES))
def test_a_shock_leve_marked_in_its_own_turn_outlives_that_turns_end(case, type_, grade):
    """R13 (v2.2): whatever the state, a blow in the PJ's own turn that marks Shock leve
    (directly or down a cascade) leaves it marked after the turn end that follows."""
    opts, log, _ = case
    state = initial_state()
    for ev in log:
        state, _ = apply(state, ev, opts)
    blow = {"kind": "suffer", "type": type_, "grade": grade, "own_turn": True, "seed": 7}
    if type_ == "emocion":
        blow["variant"] = VARIANT[grade][0] or "abatimiento"
    if type_ == "heridas" and grade == "persistente" and opts["especificos"]:
        blow["especifico"] = "lesion"
    try:
        state, effects = apply(state, blow, opts)
    except RuleError:
        return
    marked = any(
        e["change"] == "mark" and e.get("type") == "shock" and e.get("grade") == "leve"
        for e in effects
    )
    after, _ = apply(state, {"kind": "turn_end", "seed": 8}, opts)
    if marked:
        assert "leve" in after["marks"]["shock"]
        assert {"rule": "R13", "change": "own_turn", "type": "shock", "grade": "leve"} in effects


@common
@given(logs())
def test_a_descanso_never_fails_for_a_pj_asleep(case):
    """R24 with R23 (v2.2): the party's Descanso reaches a sleeper, who sleeps on and wakes
    with the party, not derribado by the faint."""
    opts, log, _ = case
    state = initial_state()
    for ev in log:
        state, _ = apply(state, ev, opts)
    if not state["asleep"]:
        return
    after, effects = apply(state, {"kind": "descanso", "seed": 9}, opts)
    assert after["clock"] == state["clock"] + 8 * 3600
    assert after["asleep"] is False
    # No derribado for the faint (a knock-out's own end, R13, may still give one).
    assert {"rule": "R24", "change": "special_on", "name": "derribado"} not in effects
