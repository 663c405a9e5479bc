"""R4-R7: Heridas penalties, incapacitado, recovery checks and the optional específicos."""

import pytest

from tests.rules.helpers import (
    DESCANSO,
    HOUR,
    SURGERY,
    days_of_descanso,
    dismiss,
    has_step,
    heal,
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

ESPECIFICOS = ("desangramiento", "lesion", "ceguera", "sordera")


# --- R4 penalty ---------------------------------------------------------------------------


@pytest.mark.parametrize(("grade", "value"), [("leve", -1), ("persistente", -2), ("grave", -3)])
def test_r4_heridas_obstaculo_on_fue_agi_des_only(grade, value):
    state = state_of(suffer("heridas", grade))
    assert state["modifiers"] == {"FUE": value, "AGI": value, "DES": value, "VOL": 0, "otro": 0}
    assert state["modifiers_flee"] == {"FUE": value, "VOL": 0}
    assert state["modifiers_fight"] == {"FUE": value, "VOL": 0}


def test_r4_penalty_follows_the_active_grade_persistente_over_leve():
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "persistente"))
    assert state["modifiers"]["AGI"] == -2


# --- R5 incapacitado ----------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["leve", "grave"])
def test_r5_any_heridas_on_grave_gives_incapacitado_and_marks_nothing_more(grade):
    state = state_of(suffer("heridas", "grave"), suffer("heridas", grade))
    assert marks(state, "heridas") == ["grave"]
    assert "incapacitado" in state["specials"]
    assert state["can_act"] is False


def test_r5_persistente_on_grave_gives_incapacitado_and_marks_persistente_too():
    events = [suffer("heridas", "grave"), suffer("heridas", "persistente")]
    state = state_of(*events)
    assert marks(state, "heridas") == ["grave", "persistente"]
    assert state["active"]["heridas"] == "grave"
    assert "incapacitado" in state["specials"]
    effects = last_effects(*events)
    assert has_step(("R5", "special_on", "incapacitado"), effects)
    assert has_step(("R5", "mark", "heridas", "persistente"), effects)
    assert "nothing" not in [e["change"] for e in effects]


def test_r5_persistente_on_grave_and_persistente_marks_nothing_more():
    events = [
        suffer("heridas", "persistente"),
        suffer("heridas", "leve"),
        suffer("heridas", "grave"),
        suffer("heridas", "persistente"),
    ]
    state = state_of(*events)
    assert marks(state, "heridas") == ["leve", "grave", "persistente"]
    assert has_step(("R5", "nothing"), last_effects(*events))


def test_r5_persistente_marked_at_grave_starts_its_own_r6_count():
    base = [suffer("heridas", "grave"), suffer("heridas", "persistente"), heal()]
    state = state_of(*base, *days_of_descanso(29))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(30))
    assert "heridas_persistente_recuperacion" in pending(state)


def test_r5_persistente_reaching_grave_through_r8_is_marked_too():
    # Fatiga full: a Fatiga persistente becomes Heridas persistente (R8), on Heridas grave.
    state = state_of(
        suffer("heridas", "grave"),
        suffer("fatiga", "persistente"),
        suffer("fatiga", "grave"),
        suffer("fatiga", "persistente"),
        especificos=True,
    )
    assert marks(state, "heridas") == ["grave", "persistente"]
    assert "incapacitado" in state["specials"]
    assert not set(ESPECIFICOS) & set(state["specials"])


def test_r5_grave_on_an_empty_heridas_track_gives_no_incapacitado():
    state = state_of(suffer("heridas", "grave"))
    assert marks(state, "heridas") == ["grave"]
    assert "incapacitado" not in state["specials"]
    assert state["can_act"] is True


@pytest.mark.parametrize("first", ["leve", "persistente"])
def test_r5_grave_on_any_marked_heridas_marks_grave_and_gives_incapacitado(first):
    state = state_of(suffer("heridas", first), suffer("heridas", "grave"))
    assert marks(state, "heridas") == sorted(
        [first, "grave"], key=["leve", "grave", "persistente"].index
    )
    assert "incapacitado" in state["specials"]
    assert state["can_act"] is False


def test_r5_decision_leve_on_leve_reaches_grave_and_gives_incapacitado():
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "leve"))
    assert marks(state, "heridas") == ["leve", "grave"]
    assert "incapacitado" in state["specials"]


def test_r5_decision_persistente_on_persistente_reaches_grave_and_gives_incapacitado():
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "persistente"))
    assert marks(state, "heridas") == ["grave", "persistente"]
    assert "incapacitado" in state["specials"]


def test_r5_leve_on_persistente_is_no_grave_and_no_incapacitado():
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "leve"))
    assert marks(state, "heridas") == ["leve", "persistente"]
    assert "incapacitado" not in state["specials"]


def test_r5_effects_name_r5_for_incapacitado():
    effects = last_effects(suffer("heridas", "leve"), suffer("heridas", "grave"))
    assert has_step(("R5", "special_on", "incapacitado"), effects)


def test_r5_incapacitado_is_listed_once_and_special_off_removes_it():
    state = state_of(
        suffer("heridas", "grave"), suffer("heridas", "leve"), suffer("heridas", "leve")
    )
    assert state["specials"].count("incapacitado") == 1
    state = state_of(
        suffer("heridas", "grave"), suffer("heridas", "leve"), special("incapacitado", False)
    )
    assert "incapacitado" not in state["specials"]
    assert state["can_act"] is True
    assert marks(state, "heridas") == ["grave"]


# --- R6 leve ------------------------------------------------------------------------------


def test_r6_descanso_raises_optional_fue_check_when_leve_is_the_only_heridas_box():
    state = state_of(suffer("heridas", "leve"), DESCANSO)
    assert state["pending"] == [
        {"check": "heridas_leve_descanso", "attribute": "FUE", "optional": True}
    ]


def test_r6_no_leve_check_when_another_heridas_box_is_marked():
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "persistente"), DESCANSO)
    assert "heridas_leve_descanso" not in pending(state)


def test_r6_leve_check_success_unmarks_leve():
    state = state_of(
        suffer("heridas", "leve"), DESCANSO, save("heridas_leve_descanso", True, roll=2)
    )
    assert marks(state, "heridas") == []
    assert pending(state) == []


def test_r6_leve_check_failure_keeps_leve_and_closes_the_check():
    state = state_of(
        suffer("heridas", "leve"), DESCANSO, save("heridas_leve_descanso", False, roll=6)
    )
    assert marks(state, "heridas") == ["leve"]
    assert pending(state) == []


def test_r6_leve_check_dismissed_comes_back_after_the_next_days_descanso():
    state = state_of(suffer("heridas", "leve"), DESCANSO, dismiss("heridas_leve_descanso"))
    assert pending(state) == []
    state = state_of(
        suffer("heridas", "leve"),
        DESCANSO,
        dismiss("heridas_leve_descanso"),
        *days_of_descanso(1),
    )
    assert pending(state) == ["heridas_leve_descanso"]


def test_r6_optional_leve_check_already_pending_is_not_raised_again():
    state = state_of(suffer("heridas", "leve"), *days_of_descanso(3))
    assert pending(state) == ["heridas_leve_descanso"]


def test_r6_leve_check_disappears_when_leve_is_no_longer_the_only_box():
    state = state_of(suffer("heridas", "leve"), DESCANSO, suffer("heridas", "persistente"))
    assert marks(state, "heridas") == ["leve", "persistente"]
    assert "heridas_leve_descanso" not in pending(state)


def test_r6_leve_check_disappears_when_curacion_turns_leve_into_fatiga():
    state = state_of(suffer("heridas", "leve"), DESCANSO, heal())
    assert marks(state, "heridas") == []
    assert "heridas_leve_descanso" not in pending(state)


# --- R6 grave: infection ------------------------------------------------------------------


def test_r6_grave_raises_mandatory_infection_check_after_a_full_day():
    state = state_of(suffer("heridas", "grave"), time(hours=23))
    assert "heridas_grave_infeccion" not in pending(state)
    state = state_of(suffer("heridas", "grave"), time(hours=23), time(hours=1))
    assert pending(state).count("heridas_grave_infeccion") == 1
    entry = state["pending"][pending(state).index("heridas_grave_infeccion")]
    assert entry == {"check": "heridas_grave_infeccion", "attribute": "FUE", "optional": False}


def test_r6_infection_checks_pile_up_one_per_full_day():
    state = state_of(suffer("heridas", "grave"), time(days=3))
    assert pending(state).count("heridas_grave_infeccion") == 3


def test_r6_infection_days_count_from_the_marking_of_grave():
    base = [time(hours=12), suffer("heridas", "grave"), time(hours=12)]
    state = state_of(*base)
    assert "heridas_grave_infeccion" not in pending(state)
    state = state_of(*base, time(hours=11))
    assert "heridas_grave_infeccion" not in pending(state)
    state = state_of(*base, time(hours=12))
    assert pending(state).count("heridas_grave_infeccion") == 1


def test_r6_infection_counts_through_descansos_since_only_curacion_lowers_grave():
    state = state_of(suffer("heridas", "grave"), *days_of_descanso(2))
    assert marks(state, "heridas") == ["grave"]
    assert pending(state).count("heridas_grave_infeccion") == 2


def test_r6_infection_failure_gives_afeccion_leve_with_source_infeccion():
    state = state_of(
        suffer("heridas", "grave"), time(days=1), save("heridas_grave_infeccion", False)
    )
    assert marks(state, "afeccion") == ["leve"]
    assert state["afflictions"] == ["infeccion"]
    assert "infeccion" in state["specials"]
    assert state["medicine_obstacle"] == -1
    assert "heridas_grave_infeccion" not in pending(state)


def test_r6_infection_success_gives_nothing():
    state = state_of(
        suffer("heridas", "grave"), time(days=1), save("heridas_grave_infeccion", True, roll=1)
    )
    assert marks(state, "afeccion") == []
    assert state["afflictions"] == []
    assert "heridas_grave_infeccion" not in pending(state)


def test_r6_two_failed_infection_checks_reach_afeccion_grave():
    state = state_of(
        suffer("heridas", "grave"),
        time(days=2),
        save("heridas_grave_infeccion", False),
        save("heridas_grave_infeccion", False),
    )
    assert marks(state, "afeccion") == ["grave"]
    assert state["afflictions"] == ["infeccion"]


def test_r6_infection_checks_disappear_when_curacion_heals_grave_and_do_not_come_back():
    state = state_of(suffer("heridas", "grave"), time(days=2), heal())
    assert marks(state, "heridas") == ["leve"]
    assert "heridas_grave_infeccion" not in pending(state)
    state = state_of(suffer("heridas", "grave"), time(days=2), heal(), time(days=2))
    assert "heridas_grave_infeccion" not in pending(state)


def test_r6_infection_checks_disappear_when_the_dj_recovers_grave():
    state = state_of(suffer("heridas", "grave"), time(days=1), recover("heridas", "grave"))
    assert "heridas_grave_infeccion" not in pending(state)


# --- R6 persistente -----------------------------------------------------------------------


def test_r6_persistente_check_after_30_descansos_not_before():
    state = state_of(suffer("heridas", "persistente"), *days_of_descanso(29))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(suffer("heridas", "persistente"), *days_of_descanso(30))
    assert state["pending"] == [
        {"check": "heridas_persistente_recuperacion", "attribute": "FUE", "optional": True}
    ]


def test_r6_persistente_only_one_descanso_per_game_day_counts():
    # 30 back-to-back `descanso` events span 10 game days: at most 10 Descansos count.
    state = state_of(suffer("heridas", "persistente"), *[DESCANSO] * 30)
    assert state["clock"] == 30 * 8 * HOUR
    assert "heridas_persistente_recuperacion" not in pending(state)


def test_r6_persistente_after_surgery_needs_7_descansos():
    state = state_of(suffer("heridas", "persistente"), SURGERY, *days_of_descanso(6))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(suffer("heridas", "persistente"), SURGERY, *days_of_descanso(7))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_a_successful_surgery_restarts_the_persistente_count():
    # 5 Descansos before the surgery no longer count towards its week.
    base = [suffer("heridas", "persistente"), *days_of_descanso(5), SURGERY]
    state = state_of(*base, *days_of_descanso(6))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(7))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_a_failed_surgery_neither_restarts_the_count_nor_switches_to_weeks():
    failed = {"kind": "surgery", "success": False}
    base = [suffer("heridas", "persistente"), *days_of_descanso(5), failed]
    state = state_of(*base, *days_of_descanso(7))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(24))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(25))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_a_day_without_descanso_restarts_the_persistente_count():
    base = [suffer("heridas", "persistente"), *days_of_descanso(20), time(hours=24)]
    state = state_of(*base)
    assert pending(state) == ["sin_descanso"]
    state = state_of(*base, *days_of_descanso(29))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(30))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_a_day_without_descanso_restarts_the_week_after_surgery_too():
    base = [suffer("heridas", "persistente"), SURGERY, *days_of_descanso(5), time(hours=24)]
    assert "heridas_persistente_recuperacion" not in pending(state_of(*base, *days_of_descanso(6)))
    assert "heridas_persistente_recuperacion" in pending(state_of(*base, *days_of_descanso(7)))


def test_r6_a_24_h_mark_dropped_by_the_wakings_descanso_does_not_restart_the_count():
    # The 24 h mark falls in the sleep (20 h -> 28 h after the last Descanso) whose own
    # waking is a Descanso: no day went without one, the month goes on.
    base = [suffer("heridas", "persistente"), *days_of_descanso(20), time(hours=20), DESCANSO]
    state = state_of(*base, *days_of_descanso(8))
    assert "heridas_persistente_recuperacion" not in pending(state)
    state = state_of(*base, *days_of_descanso(9))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_persistente_count_starts_at_the_marking():
    state = state_of(
        *days_of_descanso(10), suffer("heridas", "persistente"), SURGERY, *days_of_descanso(6)
    )
    assert "heridas_persistente_recuperacion" not in pending(state)


def test_r6_persistente_check_success_unmarks_persistente_and_marks_leve():
    state = state_of(
        suffer("heridas", "persistente"),
        SURGERY,
        *days_of_descanso(7),
        save("heridas_persistente_recuperacion", True, roll=1),
    )
    assert marks(state, "heridas") == ["leve"]
    assert pending(state) == []


def test_r6_persistente_check_failure_keeps_persistente():
    state = state_of(
        suffer("heridas", "persistente"),
        SURGERY,
        *days_of_descanso(7),
        save("heridas_persistente_recuperacion", False, roll=6),
    )
    assert marks(state, "heridas") == ["persistente"]
    assert pending(state) == []


def test_r6_persistente_count_restarts_when_its_check_is_raised():
    base = [suffer("heridas", "persistente"), SURGERY, *days_of_descanso(7)]
    base.append(dismiss("heridas_persistente_recuperacion"))
    state = state_of(*base, *days_of_descanso(6))
    assert pending(state) == []
    state = state_of(*base, *days_of_descanso(7))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_persistente_check_after_30_descansos_restarts_too():
    base = [suffer("heridas", "persistente"), *days_of_descanso(30)]
    base.append(dismiss("heridas_persistente_recuperacion"))
    state = state_of(*base, *days_of_descanso(29))
    assert pending(state) == []
    state = state_of(*base, *days_of_descanso(30))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_optional_persistente_check_already_pending_is_not_raised_again():
    state = state_of(suffer("heridas", "persistente"), SURGERY, *days_of_descanso(15))
    assert pending(state) == ["heridas_persistente_recuperacion"]


def test_r6_persistente_check_disappears_when_the_box_is_recovered():
    state = state_of(
        suffer("heridas", "persistente"),
        SURGERY,
        *days_of_descanso(7),
        recover("heridas", "persistente"),
    )
    assert marks(state, "heridas") == []
    assert pending(state) == []


# --- R7 específicos -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ESPECIFICOS)
def test_r7_persistente_with_especifico_gains_it_as_an_e_esp(name):
    state = state_of(suffer("heridas", "persistente", especifico=name), especificos=True)
    assert marks(state, "heridas") == ["persistente"]
    assert name in state["specials"]


def test_r7_especifico_is_ignored_when_r2_turns_the_blow_into_grave():
    state = state_of(
        suffer("heridas", "persistente", especifico="desangramiento"),
        suffer("heridas", "persistente", especifico="ceguera"),
        especificos=True,
    )
    assert marks(state, "heridas") == ["grave", "persistente"]
    assert "desangramiento" in state["specials"]
    assert "ceguera" not in state["specials"]
    assert "incapacitado" in state["specials"]


def test_r7_especifico_is_gained_when_r5_marks_persistente_on_grave():
    events = [
        suffer("heridas", "grave"),
        suffer("heridas", "persistente", especifico="sordera"),
    ]
    state = state_of(*events, especificos=True)
    assert marks(state, "heridas") == ["grave", "persistente"]
    assert {"sordera", "incapacitado"} <= set(state["specials"])
    assert has_step(("R7", "special_on", "sordera"), last_effects(*events, especificos=True))


def test_r7_especifico_is_ignored_on_grave_when_persistente_is_already_marked():
    state = state_of(
        suffer("heridas", "persistente", especifico="lesion"),
        suffer("heridas", "grave"),
        suffer("heridas", "persistente", especifico="ceguera"),
        especificos=True,
    )
    assert "lesion" in state["specials"]
    assert "ceguera" not in state["specials"]


def test_r7_cascade_heridas_persistente_needs_no_especifico_and_gains_none():
    state = state_of(
        suffer("fatiga", "persistente"),
        suffer("fatiga", "grave"),
        suffer("fatiga", "persistente"),
        especificos=True,
    )
    assert marks(state, "heridas") == ["persistente"]
    assert not set(ESPECIFICOS) & set(state["specials"])


def test_r7_without_the_option_persistente_needs_no_especifico():
    state = state_of(suffer("heridas", "persistente"))
    assert marks(state, "heridas") == ["persistente"]
    assert not set(ESPECIFICOS) & set(state["specials"])


# --- more on R6: counts restart, checks do not come back, effects -------------------------


def test_r6_infection_days_restart_when_grave_is_marked_again():
    # Grave at 0 h, healed at 20 h, marked again at 20 h (leve + leve): 24 h from then is 44 h.
    base = [suffer("heridas", "grave"), time(hours=20), heal(), suffer("heridas", "leve")]
    state = state_of(*base, time(hours=23))
    assert marks(state, "heridas") == ["leve", "grave"]
    assert "heridas_grave_infeccion" not in pending(state)
    state = state_of(*base, time(hours=24))
    assert pending(state).count("heridas_grave_infeccion") == 1


def test_r6_persistente_count_restarts_when_the_box_is_marked_again():
    state = state_of(
        suffer("heridas", "persistente"),
        *days_of_descanso(20),
        recover("heridas", "persistente"),
        suffer("heridas", "persistente"),
        *days_of_descanso(10),
    )
    assert "heridas_persistente_recuperacion" not in pending(state)


def test_r6_dropped_leve_check_does_not_come_back_when_leve_is_alone_again():
    state = state_of(
        suffer("heridas", "leve"),
        DESCANSO,
        suffer("heridas", "persistente"),
        recover("heridas", "persistente"),
    )
    assert marks(state, "heridas") == ["leve"]
    assert pending(state) == []


def test_r6_check_effects_raised_passed_failed_dismissed_dropped():
    raised = last_effects(suffer("heridas", "leve"), DESCANSO)
    assert has_step(("R6", "check_raised", "heridas_leve_descanso"), raised)
    passed = last_effects(
        suffer("heridas", "leve"), DESCANSO, save("heridas_leve_descanso", True, roll=1)
    )
    assert "check_passed" in [e["change"] for e in passed]
    assert has_step(("R6", "unmark", "heridas", "leve"), passed)
    failed = last_effects(
        suffer("heridas", "grave"), time(days=1), save("heridas_grave_infeccion", False)
    )
    assert "check_failed" in [e["change"] for e in failed]
    assert has_step(("R6", "suffer", "afeccion", "leve"), failed)
    dismissed = last_effects(suffer("heridas", "leve"), DESCANSO, dismiss("heridas_leve_descanso"))
    assert "check_dismissed" in [e["change"] for e in dismissed]
    dropped = last_effects(suffer("heridas", "grave"), time(days=1), heal())
    assert ("check_dropped", "heridas_grave_infeccion") in [
        (e["change"], e.get("check")) for e in dropped
    ]


def test_r6_the_faint_descanso_raises_the_leve_check_too():
    state = state_of(
        suffer("heridas", "leve"),
        time(days=1),
        save("sin_descanso", False, roll=6),
        time(hours=6),
    )
    assert pending(state) == ["heridas_leve_descanso"]
