"""R11-R13: Shock overflow, no action while stunned, and how long each grade lasts."""

import random

import pytest

import rules
from tests.rules.helpers import (
    TURN_END,
    error_of,
    has_step,
    in_order,
    last_effects,
    marks,
    pending,
    recover,
    save,
    special,
    state_of,
    suffer,
    time,
)

# Shock grave and persistente by accumulation, lasting 3 minutes.
GRAVE_AND_PERSISTENTE = [suffer("shock", "grave"), suffer("shock", "leve", roll=3)]


# --- R11 overflow -------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["leve", "grave"])
def test_r11_shock_on_grave_marks_persistente_by_accumulation(grade):
    state = state_of(suffer("shock", "grave"), suffer("shock", grade, roll=4))
    assert marks(state, "shock") == ["grave", "persistente"]
    assert "inconsciente" in state["specials"]
    assert marks(state, "fatiga") == []


def test_r11_accumulation_lasts_1d6_minutes_then_every_shock_box_goes_with_derribado():
    state = state_of(suffer("shock", "grave"), suffer("shock", "leve", roll=4), time(minutes=3))
    assert marks(state, "shock") == ["grave", "persistente"]
    assert "derribado" not in state["specials"]
    state = state_of(suffer("shock", "grave"), suffer("shock", "leve", roll=4), time(minutes=4))
    assert marks(state, "shock") == []
    assert "derribado" in state["specials"]
    assert "inconsciente" not in state["specials"]


@pytest.mark.parametrize("grade", ["leve", "grave"])
def test_r11_leve_or_grave_on_grave_last_1d6_minutes_even_with_duration_minutes(grade):
    events = [suffer("shock", "grave"), suffer("shock", grade, roll=2, duration_minutes=60)]
    state = state_of(*events, time(minutes=1))
    assert marks(state, "shock") == ["grave", "persistente"]
    state = state_of(*events, time(minutes=2))
    assert marks(state, "shock") == []
    assert "derribado" in state["specials"]


def test_r11_shock_persistente_suffered_at_grave_lasts_as_suffered_directly_1d3_hours():
    events = [suffer("shock", "grave"), suffer("shock", "persistente", roll=2)]
    state = state_of(*events)
    assert marks(state, "shock") == ["grave", "persistente"]
    assert "inconsciente" in state["specials"]
    assert marks(state_of(*events, time(minutes=119)), "shock") == ["grave", "persistente"]
    state = state_of(*events, time(minutes=120))
    assert marks(state, "shock") == []
    assert "derribado" in state["specials"]
    effects = last_effects(*events)
    assert has_step(("R11", "mark", "shock", "persistente"), effects)
    assert [e["minutes"] for e in effects if e["change"] == "duration"] == [120]


def test_r11_shock_persistente_suffered_at_grave_takes_the_events_duration_minutes():
    events = [suffer("shock", "grave"), suffer("shock", "persistente", duration_minutes=45)]
    assert marks(state_of(*events, time(minutes=44)), "shock") == ["grave", "persistente"]
    assert marks(state_of(*events, time(minutes=45)), "shock") == []


def test_r11_shock_persistente_suffered_at_grave_rolls_a_d3_not_a_d6():
    err = error_of(suffer("shock", "grave"), suffer("shock", "persistente", roll=4))
    assert err.code == "roll_range"
    seed = 2024
    hours = random.Random(seed).randint(1, 3)
    events = [suffer("shock", "grave"), suffer("shock", "persistente", seed=seed)]
    state = state_of(*events, time(minutes=hours * 60 - 1))
    assert marks(state, "shock") == ["grave", "persistente"]
    assert marks(state_of(*events, time(minutes=hours * 60)), "shock") == []


def test_r11_accumulation_die_comes_from_the_seed_without_roll():
    seed = 12345
    minutes = random.Random(seed).randint(1, 6)
    events = [suffer("shock", "grave"), suffer("shock", "leve", seed=seed)]
    if minutes > 1:
        state = state_of(*events, time(minutes=minutes - 1))
        assert marks(state, "shock") == ["grave", "persistente"]
    state = state_of(*events, time(minutes=minutes))
    assert marks(state, "shock") == []


def test_r11_effects_name_r11_for_the_persistente_it_marks():
    effects = last_effects(suffer("shock", "grave"), suffer("shock", "leve", roll=2))
    assert has_step(("R11", "mark", "shock", "persistente"), effects)


@pytest.mark.parametrize("grade", ["leve", "grave", "persistente"])
def test_r11_shock_on_grave_and_persistente_becomes_fatiga_of_the_same_grade(grade):
    state = state_of(*GRAVE_AND_PERSISTENTE, suffer("shock", grade))
    assert marks(state, "shock") == ["grave", "persistente"]
    assert marks(state, "fatiga") == [grade]


def test_r11_r8_r5_cascade_shock_leve_reaches_incapacitado_in_order():
    events = [
        suffer("fatiga", "persistente"),
        suffer("fatiga", "grave"),
        suffer("heridas", "grave"),
        *GRAVE_AND_PERSISTENTE,
        suffer("shock", "leve"),
    ]
    effects = last_effects(*events)
    assert in_order(
        [
            ("R11", "suffer", "fatiga", "leve"),
            ("R8", "suffer", "heridas", "leve"),
            ("R5", "special_on", "incapacitado"),
        ],
        effects,
    )
    state = state_of(*events)
    assert "incapacitado" in state["specials"]
    assert marks(state, "heridas") == ["grave"]
    assert marks(state, "fatiga") == ["grave", "persistente"]


def test_r11_r8_cascade_marks_heridas_leve_when_heridas_is_empty():
    events = [
        suffer("fatiga", "persistente"),
        suffer("fatiga", "grave"),
        *GRAVE_AND_PERSISTENTE,
        suffer("shock", "leve"),
    ]
    state = state_of(*events)
    assert marks(state, "heridas") == ["leve"]
    assert "incapacitado" not in state["specials"]
    assert in_order(
        [("R11", "suffer", "fatiga", "leve"), ("R8", "suffer", "heridas", "leve")],
        last_effects(*events),
    )


# --- R12 effect ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "events",
    [
        [suffer("shock", "leve")],
        [suffer("shock", "grave")],
        [suffer("shock", "persistente", duration_minutes=10)],
    ],
    ids=["leve", "grave", "persistente"],
)
def test_r12_any_shock_box_means_no_action_and_desprevenido_but_no_obstaculo(events):
    state = state_of(*events)
    assert state["can_act"] is False
    assert "desprevenido" in state["specials"]
    assert state["modifiers"] == {"FUE": 0, "AGI": 0, "DES": 0, "VOL": 0, "otro": 0}
    assert state["modifiers_flee"] == {"FUE": 0, "VOL": 0}


def test_r12_when_shock_ends_the_pj_can_act_and_desprevenido_goes():
    state = state_of(suffer("shock", "leve"), time(rounds=1))
    assert state["can_act"] is True
    assert "desprevenido" not in state["specials"]


def test_r12_decision_incapacitado_given_by_the_dj_means_no_action():
    state = state_of(special("incapacitado", True))
    assert state["can_act"] is False
    state = state_of(special("incapacitado", True), special("incapacitado", False))
    assert state["can_act"] is True


# --- R13 leve -----------------------------------------------------------------------------


def test_r13_shock_leve_ends_when_a_round_passes():
    assert marks(state_of(suffer("shock", "leve")), "shock") == ["leve"]
    assert marks(state_of(suffer("shock", "leve"), time(rounds=1)), "shock") == []


def test_r13_shock_leve_ends_when_longer_time_passes():
    assert marks(state_of(suffer("shock", "leve"), time(minutes=1)), "shock") == []
    assert marks(state_of(suffer("shock", "leve"), time("reposo", hours=1)), "shock") == []


def test_r13_v21_shock_leve_ends_at_the_pjs_next_turn_end():
    state = state_of(suffer("shock", "leve"), TURN_END)
    assert marks(state, "shock") == []
    assert state["can_act"] is True and pending(state) == []


def test_r13_v21_shocked_after_its_turn_it_loses_the_next_rounds_turn():
    after_its_turn = [TURN_END, suffer("shock", "leve")]
    assert marks(state_of(*after_its_turn, time(rounds=1)), "shock") == ["leve"]
    assert marks(state_of(*after_its_turn, time(rounds=1), TURN_END), "shock") == []
    # Without a turn end recorded, the second round pass ends it.
    assert marks(state_of(*after_its_turn, time(rounds=2)), "shock") == []
    assert marks(state_of(*after_its_turn, time(rounds=1), time(rounds=1)), "shock") == []


def test_r13_v21_time_passing_starts_a_new_round_for_its_turn():
    # Its turn ended, then a round passed: shocked now, its turn is still to come.
    state = state_of(TURN_END, time(rounds=1), suffer("shock", "leve"), time(rounds=1))
    assert marks(state, "shock") == []


def test_r13_v21_a_stored_state_from_before_resumes_as_a_turn_still_to_come():
    stored, _ = rules.apply(None, suffer("shock", "leve", seed=1))
    engine = dict(stored["engine"])
    del engine["turn_ended"], engine["shock_leve_rounds"]
    state, _ = rules.apply({**stored, "engine": engine}, time(rounds=1))
    assert marks(state, "shock") == []


# --- R13 leve marked during the PJ's own turn (v2.2) -------------------------------------

OWN_TURN = suffer("shock", "leve", own_turn=True)


def test_r13_v22_shocked_during_its_own_turn_that_turns_end_does_not_end_it():
    state = state_of(OWN_TURN, TURN_END)
    assert marks(state, "shock") == ["leve"]
    assert state["can_act"] is False


def test_r13_v22_shocked_during_its_own_turn_it_loses_the_next_rounds_turn():
    assert marks(state_of(OWN_TURN, TURN_END, time(rounds=1)), "shock") == ["leve"]
    assert marks(state_of(OWN_TURN, TURN_END, time(rounds=1), TURN_END), "shock") == []


def test_r13_v22_without_turn_ends_it_lasts_until_the_second_round_pass():
    assert marks(state_of(OWN_TURN, time(rounds=1)), "shock") == ["leve"]
    assert marks(state_of(OWN_TURN, time(rounds=1), time(rounds=1)), "shock") == []
    assert marks(state_of(OWN_TURN, time(rounds=2)), "shock") == []


def test_r13_v22_a_round_passing_ends_the_turn_under_way():
    # No turn end recorded for the turn it was shocked in: the round's pass closed that
    # turn, so the next turn end (next round's) is the turn it lost.
    state = state_of(OWN_TURN, time(rounds=1), TURN_END)
    assert marks(state, "shock") == []


def test_r13_v22_longer_time_still_ends_it():
    assert marks(state_of(OWN_TURN, time(minutes=1)), "shock") == []


def test_r13_v22_a_shock_leve_from_a_cascade_during_its_own_turn_is_its_too():
    # Fatiga on grave marks persistente and Shock leve (R8): the blow came in its own turn.
    events = [suffer("fatiga", "grave"), suffer("fatiga", "leve", own_turn=True), TURN_END]
    state = state_of(*events)
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == ["leve"]


@pytest.mark.parametrize("own_turn", [False, None])
def test_r13_v22_own_turn_false_or_absent_is_v21(own_turn):
    blow = suffer("shock", "leve") if own_turn is None else suffer("shock", "leve", own_turn=False)
    assert marks(state_of(blow, TURN_END), "shock") == []
    assert marks(state_of(blow, time(rounds=1)), "shock") == []


def test_r13_v22_own_turn_does_not_touch_a_shock_leve_marked_before():
    # Shocked before its turn; a second Shock leve in its turn reaches grave (R2): the leve
    # already marked still ends with the turn it took, and the grave asks for its TS.
    state = state_of(suffer("shock", "leve"), OWN_TURN, TURN_END)
    assert marks(state, "shock") == ["grave"]
    assert pending(state) == ["shock_grave_fin_turno"]


def test_r13_v22_own_turn_on_other_blows_changes_nothing():
    plain = state_of(suffer("heridas", "leve"), TURN_END, time(rounds=1))
    own = state_of(suffer("heridas", "leve", own_turn=True), TURN_END, time(rounds=1))
    assert own == plain


def test_r13_v22_effects_say_it_was_its_own_turn_and_that_its_end_keeps_it():
    assert in_order(
        [("base", "mark", "shock", "leve"), ("R13", "own_turn", "shock", "leve")],
        last_effects(OWN_TURN),
    )
    at_turn_end = last_effects(OWN_TURN, TURN_END)
    assert has_step(("R13", "kept", "shock", "leve"), at_turn_end)
    assert not has_step(("R13", "unmark", "shock", "leve"), at_turn_end)
    assert has_step(("R13", "unmark", "shock", "leve"), last_effects(OWN_TURN, TURN_END, TURN_END))


def test_r13_v22_own_turn_must_be_a_bool():
    err = error_of(suffer("shock", "leve", own_turn="yes"))
    assert err.code == "bad_bool" and err.field == "own_turn"


def test_r13_v22_a_stored_state_from_v21_resumes_with_no_shock_of_its_own_turn():
    stored, _ = rules.apply(None, suffer("shock", "leve", seed=1))
    engine = dict(stored["engine"])
    del engine["shock_leve_own_turn"]
    state, _ = rules.apply({**stored, "engine": engine}, TURN_END)
    assert marks(state, "shock") == []


def test_r13_round_seconds_option_sets_the_rounds_length():
    state = state_of(suffer("shock", "leve"), time(rounds=1), round_seconds=10)
    assert state["clock"] == 10
    assert marks(state, "shock") == []


# --- R13 grave ----------------------------------------------------------------------------


def test_r13_shock_grave_raises_a_mandatory_vol_check_at_turn_end():
    state = state_of(suffer("shock", "grave"), TURN_END)
    assert state["pending"] == [
        {"check": "shock_grave_fin_turno", "attribute": "VOL", "optional": False}
    ]


def test_r13_shock_grave_stays_while_time_passes():
    state = state_of(suffer("shock", "grave"), time(minutes=10))
    assert marks(state, "shock") == ["grave"]
    assert state["can_act"] is False


def test_r13_success_unmarks_grave_and_marks_leve():
    state = state_of(
        suffer("shock", "grave"), TURN_END, save("shock_grave_fin_turno", True, roll=2)
    )
    assert marks(state, "shock") == ["leve"]
    assert pending(state) == []


def test_r13_failure_keeps_grave():
    state = state_of(
        suffer("shock", "grave"), TURN_END, save("shock_grave_fin_turno", False, roll=6)
    )
    assert marks(state, "shock") == ["grave"]
    assert pending(state) == []


def test_r13_v21_leve_from_a_successful_check_lasts_through_the_next_turn():
    base = [
        suffer("shock", "grave"),
        time(rounds=3),
        TURN_END,
        save("shock_grave_fin_turno", True, roll=1),
    ]
    assert marks(state_of(*base), "shock") == ["leve"]
    assert marks(state_of(*base, time(rounds=1)), "shock") == ["leve"]
    assert marks(state_of(*base, time(rounds=1), TURN_END), "shock") == []
    assert marks(state_of(*base, time(rounds=2)), "shock") == []


def test_r13_checks_pile_up_one_per_turn_end():
    state = state_of(suffer("shock", "grave"), TURN_END, TURN_END, TURN_END)
    assert pending(state) == ["shock_grave_fin_turno"] * 3
    state = state_of(
        suffer("shock", "grave"),
        TURN_END,
        TURN_END,
        save("shock_grave_fin_turno", False, roll=5),
    )
    assert pending(state) == ["shock_grave_fin_turno"]


def test_r13_pending_turn_checks_disappear_when_grave_ends():
    state = state_of(
        suffer("shock", "grave"),
        TURN_END,
        TURN_END,
        save("shock_grave_fin_turno", True, roll=1),
    )
    assert marks(state, "shock") == ["leve"]
    assert pending(state) == []


def test_r13_turn_end_without_shock_grave_is_a_no_op():
    before = state_of(suffer("heridas", "leve"))
    after = state_of(suffer("heridas", "leve"), TURN_END)
    assert after == before
    assert not [e for e in last_effects(TURN_END) if e["change"] == "check_raised"]


# --- R13 persistente ----------------------------------------------------------------------


def test_r13_direct_persistente_is_inconsciente_for_1d3_hours():
    events = [suffer("shock", "persistente", roll=2)]
    state = state_of(*events)
    assert marks(state, "shock") == ["persistente"]
    assert "inconsciente" in state["specials"]
    assert "desprevenido" in state["specials"]
    state = state_of(*events, time(minutes=119))
    assert marks(state, "shock") == ["persistente"]
    state = state_of(*events, time(minutes=120))
    assert marks(state, "shock") == []
    assert "inconsciente" not in state["specials"]
    assert "derribado" in state["specials"]


def test_r13_direct_persistente_effects_report_its_duration():
    effects = last_effects(suffer("shock", "persistente", roll=3))
    durations = [e for e in effects if e["change"] == "duration"]
    assert len(durations) == 1
    assert durations[0]["minutes"] == 180
    assert durations[0]["rule"] == "R13"


def test_r13_direct_persistente_die_comes_from_the_seed_without_roll():
    seed = 777
    hours = random.Random(seed).randint(1, 3)
    events = [suffer("shock", "persistente", seed=seed)]
    state = state_of(*events, time(minutes=hours * 60 - 1))
    assert marks(state, "shock") == ["persistente"]
    state = state_of(*events, time(minutes=hours * 60))
    assert marks(state, "shock") == []


def test_r13_duration_minutes_overrides_the_1d3_hours():
    events = [suffer("shock", "persistente", duration_minutes=10)]
    assert marks(state_of(*events, time(minutes=9)), "shock") == ["persistente"]
    assert marks(state_of(*events, time(minutes=10)), "shock") == []


def test_r13_end_of_persistente_unmarks_every_shock_box_and_drops_turn_checks():
    state = state_of(*GRAVE_AND_PERSISTENTE, TURN_END, time(minutes=3))
    assert marks(state, "shock") == []
    assert pending(state) == []
    assert "derribado" in state["specials"]
    assert state["can_act"] is True


def test_r13_derribado_stays_until_the_dj_removes_it():
    events = [suffer("shock", "persistente", duration_minutes=5), time(minutes=30)]
    assert "derribado" in state_of(*events)["specials"]
    assert "derribado" not in state_of(*events, special("derribado", False))["specials"]


def test_r13_recover_of_shock_persistente_unmarks_that_box_only_without_derribado():
    state = state_of(*GRAVE_AND_PERSISTENTE, recover("shock", "persistente"))
    assert marks(state, "shock") == ["grave"]
    assert "derribado" not in state["specials"]
    assert "inconsciente" not in state["specials"]


def test_r13_recovered_persistente_does_not_end_again_when_its_time_is_up():
    state = state_of(*GRAVE_AND_PERSISTENTE, recover("shock", "persistente"), time(minutes=5))
    assert marks(state, "shock") == ["grave"]
    assert "derribado" not in state["specials"]


def test_r13_leve_under_a_grave_reached_by_r2_ends_after_a_round_grave_stays():
    state = state_of(suffer("shock", "leve"), suffer("shock", "leve"), time(rounds=1))
    assert marks(state, "shock") == ["grave"]


def test_r13_dropped_turn_checks_do_not_come_back_when_grave_returns():
    state = state_of(
        suffer("shock", "grave"),
        TURN_END,
        TURN_END,
        save("shock_grave_fin_turno", True, roll=1),
        suffer("shock", "leve"),
    )
    assert marks(state, "shock") == ["leve", "grave"]
    assert pending(state) == []


def test_r13_effects_unmark_leve_when_the_round_passes():
    effects = last_effects(suffer("shock", "leve"), time(rounds=1))
    assert has_step(("R13", "unmark", "shock", "leve"), effects)


def test_r13_check_effects_raised_then_passed():
    raised = last_effects(suffer("shock", "grave"), TURN_END)
    assert has_step(("R13", "check_raised", "shock_grave_fin_turno"), raised)
    passed = last_effects(
        suffer("shock", "grave"), TURN_END, save("shock_grave_fin_turno", True, roll=1)
    )
    kinds = [(e["change"], e.get("type"), e.get("grade")) for e in passed]
    assert ("unmark", "shock", "grave") in kinds
    assert ("mark", "shock", "leve") in kinds


def test_dice_roll_is_used_before_the_seed():
    events = [suffer("shock", "persistente", roll=1, seed=99)]
    assert marks(state_of(*events, time(minutes=59)), "shock") == ["persistente"]
    assert marks(state_of(*events, time(minutes=60)), "shock") == []


def test_r12_desprevenido_is_listed_once_with_shock_and_sleep():
    state = state_of(suffer("shock", "grave"), {"kind": "sleep"})
    assert state["specials"].count("desprevenido") == 1
    assert state["specials"] == sorted(state["specials"])


def test_special_on_adds_a_name_once_and_off_removes_it():
    state = state_of(special("lesion", True), special("lesion", True), special("ceguera", True))
    assert state["specials"] == ["ceguera", "lesion"]
    state = state_of(special("lesion", True), special("lesion", False))
    assert state["specials"] == []


def test_r13_a_new_accumulation_gets_its_own_duration():
    events = [
        *GRAVE_AND_PERSISTENTE,
        recover("shock", "persistente"),
        suffer("shock", "leve", roll=5),
    ]
    assert marks(state_of(*events, time(minutes=3)), "shock") == ["grave", "persistente"]
    assert marks(state_of(*events, time(minutes=5)), "shock") == []


def test_r13_turn_checks_disappear_when_the_dj_recovers_grave():
    state = state_of(suffer("shock", "grave"), TURN_END, recover("shock", "grave"))
    assert pending(state) == []
    assert state["can_act"] is True
