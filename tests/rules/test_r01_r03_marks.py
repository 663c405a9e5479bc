"""R1-R3: boxes, the active grade, repeats that become grave, overflow; the state's shape."""

import json

import pytest

from rules import EVENT_KINDS, apply, initial_state, public_state, replay
from tests.rules.helpers import (
    TURN_END,
    has_step,
    last_effects,
    marks,
    state_of,
    suffer,
    time,
)

STATE_KEYS = {
    "clock",
    "marks",
    "active",
    "emotion",
    "afflictions",
    "specials",
    "can_act",
    "asleep",
    "modifiers",
    "modifiers_flee",
    "modifiers_fight",
    "medicine_obstacle",
    "pending",
}
TYPES = ("heridas", "fatiga", "shock", "emocion", "afeccion")


def test_state_of_an_empty_log_has_every_key_and_nothing_marked():
    state = replay([])
    assert set(state) == STATE_KEYS
    assert state["clock"] == 0
    assert state["marks"] == {t: [] for t in TYPES}
    assert state["active"] == {t: None for t in TYPES}
    assert state["emotion"] == {
        "leve": None,
        "grave": None,
        "grave_cause": None,
        "persistente": None,
    }
    assert state["afflictions"] == []
    assert state["specials"] == []
    assert state["can_act"] is True
    assert state["asleep"] is False
    assert state["modifiers"] == {"FUE": 0, "AGI": 0, "DES": 0, "VOL": 0, "otro": 0}
    assert state["modifiers_flee"] == {"FUE": 0, "VOL": 0}
    assert state["modifiers_fight"] == {"FUE": 0, "VOL": 0}
    assert state["medicine_obstacle"] == 0
    assert state["pending"] == []


def test_initial_state_public_part_is_the_empty_replay():
    assert public_state(initial_state()) == replay([])


def test_apply_event_by_event_gives_the_same_state_as_replay():
    events = [
        suffer("heridas", "leve"),
        suffer("fatiga", "grave"),
        suffer("shock", "grave"),
        TURN_END,
        suffer("emocion", "leve", variant="miedo"),
        time(minutes=3),
        suffer("afeccion", "leve", source="infeccion"),
    ]
    stored = initial_state()
    for event in events:
        stored, effects = apply(stored, event)
        assert isinstance(effects, list)
    assert public_state(stored) == replay(events)
    assert set(public_state(stored)) == STATE_KEYS


def test_keys_outside_the_event_table_are_ignored():
    plain = [suffer("heridas", "leve"), time(minutes=1)]
    noisy = [
        {**plain[0], "id": 17, "author": "dj", "recorded_at": "2024-01-01T00:00:00Z"},
        {**plain[1], "id": 18, "note": "camino"},
    ]
    assert replay(noisy) == replay(plain)


def test_r1_active_grade_is_grave_then_persistente_then_leve():
    state = state_of(suffer("heridas", "leve"))
    assert state["active"]["heridas"] == "leve"
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "persistente"))
    assert marks(state, "heridas") == ["leve", "persistente"]
    assert state["active"]["heridas"] == "persistente"
    state = state_of(suffer("fatiga", "persistente"), suffer("fatiga", "grave"))
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert state["active"]["fatiga"] == "grave"


def test_r1_marks_are_listed_in_grade_order_leve_grave_persistente():
    state = state_of(
        suffer("fatiga", "persistente"), suffer("fatiga", "grave"), suffer("heridas", "persistente")
    )
    assert marks(state, "fatiga") == ["grave", "persistente"]
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "leve"))
    assert marks(state, "heridas") == ["leve", "persistente"]


def test_r1_several_types_each_have_their_own_active_grade():
    state = state_of(
        suffer("heridas", "leve"),
        suffer("fatiga", "persistente"),
        suffer("emocion", "grave", variant="ira", cause="el bandido"),
    )
    assert state["active"] == {
        "heridas": "leve",
        "fatiga": "persistente",
        "shock": None,
        "emocion": "grave",
        "afeccion": None,
    }


@pytest.mark.parametrize("type_", ["heridas", "fatiga", "shock"])
def test_r2_leve_on_leve_marks_grave_and_the_leve_box_stays_marked(type_):
    state = state_of(suffer(type_, "leve"), suffer(type_, "leve"))
    assert marks(state, type_) == ["leve", "grave"]
    assert state["active"][type_] == "grave"


def test_r2_emocion_miedo_on_miedo_marks_grave_and_keeps_leve():
    state = state_of(
        suffer("emocion", "leve", variant="miedo"), suffer("emocion", "leve", variant="miedo")
    )
    assert marks(state, "emocion") == ["leve", "grave"]


def test_r2_fatiga_persistente_on_persistente_marks_grave_and_keeps_persistente():
    state = state_of(suffer("fatiga", "persistente"), suffer("fatiga", "persistente"))
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == []


def test_r2_heridas_persistente_on_persistente_marks_grave():
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "persistente"))
    assert marks(state, "heridas") == ["grave", "persistente"]


def test_r2_shock_persistente_on_persistente_marks_grave():
    state = state_of(
        suffer("shock", "persistente", duration_minutes=30),
        suffer("shock", "persistente", duration_minutes=30),
    )
    assert marks(state, "shock") == ["grave", "persistente"]
    assert marks(state, "fatiga") == []


def test_r2_effects_name_r2_for_the_grave_it_marks():
    effects = last_effects(suffer("fatiga", "leve"), suffer("fatiga", "leve"))
    assert has_step(("R2", "mark", "fatiga", "grave"), effects)


def test_r2_different_boxes_do_not_combine_leve_then_persistente_marks_both():
    state = state_of(suffer("fatiga", "leve"), suffer("fatiga", "persistente"))
    assert marks(state, "fatiga") == ["leve", "persistente"]
    assert state["active"]["fatiga"] == "persistente"


def test_r2_grave_suffered_with_nothing_marked_marks_only_grave():
    state = state_of(suffer("fatiga", "grave"))
    assert marks(state, "fatiga") == ["grave"]
    assert marks(state, "shock") == []


def test_r3_leve_on_marked_grave_uses_the_overflow_not_r2():
    # Fatiga leve + leve -> grave (R2); a third leve finds grave marked: R8, not R2.
    state = state_of(suffer("fatiga", "leve"), suffer("fatiga", "leve"), suffer("fatiga", "leve"))
    assert marks(state, "fatiga") == ["leve", "grave", "persistente"]
    assert marks(state, "shock") == ["leve"]


def test_r3_grave_on_grave_uses_the_overflow():
    state = state_of(suffer("fatiga", "grave"), suffer("fatiga", "grave"))
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == ["leve"]


def test_r3_persistente_on_grave_and_persistente_uses_the_overflow_not_r2():
    state = state_of(
        suffer("fatiga", "persistente"), suffer("fatiga", "grave"), suffer("fatiga", "persistente")
    )
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "heridas") == ["persistente"]
    assert marks(state, "shock") == []


# Every event kind, with timers (Shock persistente, sleep, faint), checks and options.
EVERY_KIND = [
    {"kind": "start", "clock": 3600},
    {"kind": "attributes", "scores": {"FUE": 2, "VOL": 3}},
    suffer("heridas", "persistente", especifico="lesion"),
    {"kind": "surgery"},
    suffer("heridas", "grave"),  # new Heridas: the treatment the surgery spent is back
    {"kind": "heal"},
    suffer("shock", "grave"),
    TURN_END,
    {"kind": "save", "check": "shock_grave_fin_turno", "success": False, "roll": 5},
    suffer("shock", "leve", roll=2),
    suffer("emocion", "grave", variant="terror", cause="el lobo"),
    {"kind": "safe"},
    suffer("afeccion", "leve", source="peste"),
    {"kind": "progress", "type": "afeccion"},
    time("esfuerzo", minutes=4),
    {"kind": "save", "check": "esfuerzo_prolongado", "success": False},
    {"kind": "special", "name": "derribado", "on": True},
    time("reposo", calm=True, minutes=3),
    {"kind": "sleep", "descanso": False},
    time(hours=2),
    {"kind": "wake", "forced": True},
    time(hours=30),
    {"kind": "save", "check": "sin_descanso", "success": False, "roll": 4},
    time(hours=2),
    {"kind": "wake", "forced": True},  # from the faint: Shock grave
    time(rounds=3),
    TURN_END,
    {"kind": "save", "check": "shock_grave_fin_turno", "success": True, "roll": 1},
    time(hours=4),
    {"kind": "recover", "type": "afeccion", "grade": "grave"},
    {"kind": "special", "name": "derribado", "on": False},
    {"kind": "recover", "type": "heridas", "grade": "persistente"},
    {"kind": "descanso"},
    {"kind": "dismiss", "check": "heridas_leve_descanso"},
    time(hours=2),
]
OPTIONS = {"especificos": True, "esfuerzo_prolongado": True, "round_seconds": 5}


def test_apply_with_a_json_round_trip_of_the_stored_state_matches_replay_at_every_step():
    stored = initial_state()
    for n, event in enumerate(EVERY_KIND, start=1):
        stored = json.loads(json.dumps(stored))
        stored, _effects = apply(stored, event, OPTIONS)
        assert public_state(stored) == replay(EVERY_KIND[:n], OPTIONS), n
    assert {e["kind"] for e in EVERY_KIND} == set(EVENT_KINDS)
