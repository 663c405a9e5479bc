"""R20-R21: adding Obstáculos and Facilidades, the -3 cap, and each type's scope."""

import pytest

from rules import action_modifier
from tests.rules.helpers import kind, state_of, suffer

KEYS = ("FUE", "AGI", "DES", "VOL", "otro")
MIEDO = suffer("emocion", "leve", variant="miedo")


# --- R20 cap ------------------------------------------------------------------------------


def test_r20_obstaculos_of_different_types_stack():
    state = state_of(suffer("heridas", "leve"), suffer("fatiga", "leve"))
    assert state["modifiers"] == {"FUE": -2, "AGI": -2, "DES": -2, "VOL": -1, "otro": -1}


def test_r20_only_the_active_grade_of_each_type_counts():
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "persistente"))
    assert state["modifiers"]["FUE"] == -2


def test_r20_total_is_never_below_minus_three():
    state = state_of(suffer("heridas", "grave"), suffer("fatiga", "grave"))
    assert state["modifiers"] == dict.fromkeys(KEYS, -3)
    state = state_of(
        suffer("heridas", "persistente"),
        suffer("fatiga", "persistente"),
        suffer("emocion", "persistente", variant="abatimiento"),
    )
    assert state["modifiers"] == dict.fromkeys(KEYS, -3)


def test_r20_facilidades_are_added_before_the_cap():
    # -3 (Heridas) -3 (Fatiga) +1 (miedo, to flee) is still -3.
    state = state_of(suffer("heridas", "grave"), suffer("fatiga", "grave"), MIEDO)
    assert state["modifiers_flee"] == {"FUE": -3, "VOL": -2}
    assert state["modifiers_fight"] == {"FUE": -3, "VOL": -2}
    assert action_modifier(state, "FUE", "flee") == -3


def test_r20_action_modifier_matches_the_state_for_ordinary_flee_and_fight_actions():
    state = state_of(suffer("heridas", "leve"), MIEDO)
    for key in KEYS:
        assert action_modifier(state, key) == state["modifiers"][key]
    for key in ("FUE", "VOL"):
        assert action_modifier(state, key, "flee") == state["modifiers_flee"][key]
        assert action_modifier(state, key, "fight") == state["modifiers_fight"][key]


@pytest.mark.parametrize(
    ("events", "situational", "expected"),
    [
        ([suffer("heridas", "leve")], (-1,), -2),
        ([suffer("heridas", "leve")], (2,), 1),
        ([suffer("heridas", "leve")], (-1, 1), -1),
        ([suffer("heridas", "leve")], (-5,), -3),
        ([suffer("heridas", "grave")], (1,), -2),
        ([suffer("heridas", "grave"), suffer("fatiga", "grave")], (2,), -3),
        ([suffer("heridas", "grave"), suffer("fatiga", "leve")], (2,), -2),
        ([], (), 0),
        ([], (1,), 1),
    ],
)
def test_r20_situational_obstaculo_and_facilidad_are_added_then_capped(
    events, situational, expected
):
    state = state_of(*events)
    assert action_modifier(state, "FUE", situational=situational) == expected


# --- R21 scopes ---------------------------------------------------------------------------


def test_r21_heridas_scope_is_fue_agi_des():
    state = state_of(suffer("heridas", "persistente"))
    assert [state["modifiers"][k] for k in KEYS] == [-2, -2, -2, 0, 0]


def test_r21_fatiga_scope_is_every_action():
    state = state_of(suffer("fatiga", "persistente"))
    assert state["modifiers"] == dict.fromkeys(KEYS, -2)


def test_r21_other_attributes_count_as_otro():
    state = state_of(suffer("heridas", "grave"), suffer("fatiga", "leve"))
    assert action_modifier(state, "INT") == state["modifiers"]["otro"] == -1
    assert action_modifier(state, "FUE") == -3


def test_r21_flee_or_fight_facilidad_applies_only_to_fue_and_vol():
    state = state_of(MIEDO)
    assert action_modifier(state, "FUE", "flee") == 1
    assert action_modifier(state, "VOL", "fight") == 1
    assert action_modifier(state, "AGI", "flee") == -1
    assert action_modifier(state, "DES", "fight") == -1
    assert action_modifier(state, "INT", "flee") == -1


def test_r21_shock_gives_no_modifier():
    state = state_of(suffer("shock", "grave"), suffer("fatiga", "leve"))
    assert state["modifiers"] == dict.fromkeys(KEYS, -1)


def test_r21_afeccion_gives_no_modifier():
    state = state_of(suffer("afeccion", "grave", source="peste"), suffer("heridas", "leve"))
    assert state["modifiers"] == {"FUE": -1, "AGI": -1, "DES": -1, "VOL": 0, "otro": 0}


def test_r21_a_pj_that_cannot_act_still_reports_modifiers():
    state = state_of(suffer("shock", "grave"), suffer("fatiga", "persistente"))
    assert state["can_act"] is False
    assert state["modifiers"] == dict.fromkeys(KEYS, -2)
    state = state_of(suffer("heridas", "persistente"), kind("sleep"))
    assert state["can_act"] is False
    assert state["asleep"] is True
    assert state["modifiers"]["DES"] == -2
    state = state_of(suffer("heridas", "grave"), suffer("heridas", "leve"))
    assert state["can_act"] is False
    assert state["modifiers"]["AGI"] == -3


def test_the_sources_of_a_modifier_add_up_to_it_and_name_their_rules():
    from rules.state import modifier_sources, raw_modifier

    active = {"heridas": "grave", "fatiga": "leve", "shock": None, "emocion": "grave"}
    for key in ("FUE", "AGI", "DES", "VOL", "otro"):
        for purpose in (None, "flee", "fight"):
            sources = modifier_sources(active, "terror", key, purpose)
            assert sum(value for *_named, value in sources) == raw_modifier(
                active, "terror", key, purpose
            )
    assert modifier_sources(active, "terror", "FUE", "flee") == [
        ("heridas", "R4", -3),
        ("fatiga", "R9", -1),
        ("emocion", "R16", 1),
    ]
    assert [kind for kind, *_rest in modifier_sources(active, "terror", "VOL", None)] == [
        "fatiga",
        "emocion",
    ]  # Heridas hinder FUE, AGI and DES only
