"""R8-R10 and R27: Fatiga overflow, penalty, recovery by Reposo, and esfuerzo prolongado."""

import pytest

from tests.rules.helpers import (
    DESCANSO,
    attributes,
    in_order,
    kind,
    last_effects,
    marks,
    pending,
    save,
    state_of,
    suffer,
    time,
)

ESFUERZO = {"esfuerzo_prolongado": True}


# --- R8 overflow --------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["leve", "grave", "persistente"])
def test_r8_fatiga_on_grave_without_persistente_marks_persistente_and_shock_leve(grade):
    state = state_of(suffer("fatiga", "grave"), suffer("fatiga", grade))
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == ["leve"]
    assert marks(state, "heridas") == []


def test_r8_effects_mark_persistente_then_suffer_shock_leve():
    effects = last_effects(suffer("fatiga", "grave"), suffer("fatiga", "leve"))
    assert in_order(
        [("R8", "mark", "fatiga", "persistente"), ("R8", "suffer", "shock", "leve")], effects
    )


@pytest.mark.parametrize("grade", ["leve", "grave", "persistente"])
def test_r8_fatiga_overflow_with_persistente_becomes_heridas_of_the_same_grade(grade):
    state = state_of(
        suffer("fatiga", "persistente"), suffer("fatiga", "grave"), suffer("fatiga", grade)
    )
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "heridas") == [grade]
    assert marks(state, "shock") == []


def test_r8_effects_name_r8_for_the_heridas_it_brings():
    effects = last_effects(
        suffer("fatiga", "persistente"), suffer("fatiga", "grave"), suffer("fatiga", "leve")
    )
    assert in_order([("R8", "suffer", "heridas", "leve")], effects)
    marked = [(e.get("type"), e.get("grade")) for e in effects if e["change"] == "mark"]
    assert marked == [("heridas", "leve")]


def test_r8_shock_leve_it_brings_goes_through_r2():
    state = state_of(suffer("shock", "leve"), suffer("fatiga", "grave"), suffer("fatiga", "leve"))
    assert marks(state, "shock") == ["leve", "grave"]


def test_r8_heridas_it_brings_goes_through_r5():
    state = state_of(
        suffer("heridas", "grave"),
        suffer("fatiga", "persistente"),
        suffer("fatiga", "grave"),
        suffer("fatiga", "leve"),
    )
    assert marks(state, "heridas") == ["grave"]
    assert "incapacitado" in state["specials"]


# --- R9 penalty ---------------------------------------------------------------------------


@pytest.mark.parametrize(("grade", "value"), [("leve", -1), ("persistente", -2), ("grave", -3)])
def test_r9_fatiga_obstaculo_on_all_actions(grade, value):
    state = state_of(suffer("fatiga", grade))
    assert state["modifiers"] == {k: value for k in ("FUE", "AGI", "DES", "VOL", "otro")}
    assert state["modifiers_flee"] == {"FUE": value, "VOL": value}
    assert state["modifiers_fight"] == {"FUE": value, "VOL": value}


# --- R10 recovery by Reposo ---------------------------------------------------------------


def test_r10_fatiga_leve_recovers_with_one_minute_of_reposo():
    state = state_of(suffer("fatiga", "leve"), time("reposo", minutes=1))
    assert marks(state, "fatiga") == []


def test_r10_fatiga_leve_needs_the_whole_minute():
    state = state_of(suffer("fatiga", "leve"), time("reposo", rounds=5))
    assert marks(state, "fatiga") == ["leve"]


def test_r10_consecutive_reposo_adds_up():
    state = state_of(suffer("fatiga", "leve"), time("reposo", rounds=5), time("reposo", rounds=5))
    assert marks(state, "fatiga") == []


def test_r10_activo_time_between_resets_the_reposo_count():
    base = [suffer("fatiga", "leve"), time("reposo", rounds=5), time("activo", rounds=1)]
    state = state_of(*base, time("reposo", rounds=5))
    assert marks(state, "fatiga") == ["leve"]
    state = state_of(*base, time("reposo", rounds=10))
    assert marks(state, "fatiga") == []


def test_r10_time_without_activity_is_activo():
    state = state_of(suffer("fatiga", "leve"), time(minutes=5))
    assert marks(state, "fatiga") == ["leve"]
    state = state_of(
        suffer("fatiga", "leve"), time("reposo", rounds=5), time(rounds=1), time("reposo", rounds=5)
    )
    assert marks(state, "fatiga") == ["leve"]


def test_r10_esfuerzo_without_the_option_is_activo_and_resets_reposo():
    state = state_of(
        suffer("fatiga", "leve"),
        time("reposo", rounds=5),
        time("esfuerzo", rounds=1),
        time("reposo", rounds=5),
    )
    assert marks(state, "fatiga") == ["leve"]


def test_r10_reposo_counts_from_the_marking_not_from_earlier_reposo():
    base = [time("reposo", minutes=10), suffer("fatiga", "leve")]
    state = state_of(*base, time("reposo", rounds=5))
    assert marks(state, "fatiga") == ["leve"]
    state = state_of(*base, time("reposo", rounds=5), time("reposo", rounds=5))
    assert marks(state, "fatiga") == []


def test_r10_fatiga_grave_recovers_with_one_hour_of_reposo():
    state = state_of(suffer("fatiga", "grave"), time("reposo", minutes=59))
    assert marks(state, "fatiga") == ["grave"]
    state = state_of(
        suffer("fatiga", "grave"), time("reposo", minutes=59), time("reposo", minutes=1)
    )
    assert marks(state, "fatiga") == []


def test_r10_each_box_counts_its_own_reposo_leve_goes_first():
    state = state_of(suffer("fatiga", "leve"), suffer("fatiga", "leve"), time("reposo", minutes=1))
    assert marks(state, "fatiga") == ["grave"]
    state = state_of(suffer("fatiga", "leve"), suffer("fatiga", "leve"), time("reposo", hours=1))
    assert marks(state, "fatiga") == []


def test_r10_fatiga_persistente_is_not_recovered_by_reposo():
    state = state_of(suffer("fatiga", "persistente"), time("reposo", hours=5))
    assert marks(state, "fatiga") == ["persistente"]


def test_r10_fatiga_persistente_recovers_with_a_descanso():
    state = state_of(suffer("fatiga", "persistente"), DESCANSO)
    assert marks(state, "fatiga") == []


def test_r10_sleep_counts_as_reposo_for_fatiga_grave():
    state = state_of(suffer("fatiga", "grave"), kind("sleep", hours=2))
    assert marks(state, "fatiga") == []
    assert state["asleep"] is False


def test_r10_a_descanso_clears_every_fatiga_box():
    state = state_of(
        suffer("fatiga", "leve"), suffer("fatiga", "leve"), suffer("fatiga", "leve"), DESCANSO
    )
    assert marks(state, "fatiga") == []


# --- R27 esfuerzo prolongado --------------------------------------------------------------


def test_r27_minutes_up_to_fue_are_free():
    state = state_of(attributes(FUE=3), time("esfuerzo", minutes=3), **ESFUERZO)
    assert pending(state) == []


def test_r27_each_minute_beyond_fue_raises_a_mandatory_fue_check():
    state = state_of(attributes(FUE=3), time("esfuerzo", minutes=4), **ESFUERZO)
    assert state["pending"] == [
        {"check": "esfuerzo_prolongado", "attribute": "FUE", "optional": False}
    ]
    state = state_of(attributes(FUE=3), time("esfuerzo", minutes=6), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"] * 3


def test_r27_consecutive_esfuerzo_events_add_up():
    state = state_of(
        attributes(FUE=3), time("esfuerzo", minutes=2), time("esfuerzo", minutes=2), **ESFUERZO
    )
    assert pending(state) == ["esfuerzo_prolongado"]


@pytest.mark.parametrize("other", ["activo", "reposo"])
def test_r27_any_other_activity_resets_the_count(other):
    state = state_of(
        attributes(FUE=3),
        time("esfuerzo", minutes=3),
        time(other, minutes=1),
        time("esfuerzo", minutes=3),
        **ESFUERZO,
    )
    assert pending(state) == []


def test_r27_check_falls_at_the_end_of_each_whole_minute_beyond_fue():
    base = [attributes(FUE=1), time("esfuerzo", rounds=15)]  # 90 s: half a minute beyond
    state = state_of(*base, **ESFUERZO)
    assert pending(state) == []
    state = state_of(*base, time("esfuerzo", rounds=5), **ESFUERZO)  # 120 s
    assert pending(state) == ["esfuerzo_prolongado"]


def test_r27_failure_gives_fatiga_leve():
    state = state_of(
        attributes(FUE=2),
        time("esfuerzo", minutes=3),
        save("esfuerzo_prolongado", False),
        **ESFUERZO,
    )
    assert marks(state, "fatiga") == ["leve"]
    assert pending(state) == []


def test_r27_two_failures_reach_fatiga_grave_by_r2():
    state = state_of(
        attributes(FUE=2),
        time("esfuerzo", minutes=4),
        save("esfuerzo_prolongado", False),
        save("esfuerzo_prolongado", False),
        **ESFUERZO,
    )
    assert marks(state, "fatiga") == ["leve", "grave"]


def test_r27_success_gives_nothing():
    state = state_of(
        attributes(FUE=2),
        time("esfuerzo", minutes=3),
        save("esfuerzo_prolongado", True, roll=2),
        **ESFUERZO,
    )
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r27_uses_the_latest_attributes_event():
    state = state_of(
        attributes(FUE=1), attributes(FUE=3, VOL=2), time("esfuerzo", minutes=3), **ESFUERZO
    )
    assert pending(state) == []
    state = state_of(
        attributes(FUE=3), attributes(FUE=1, VOL=2), time("esfuerzo", minutes=3), **ESFUERZO
    )
    assert pending(state) == ["esfuerzo_prolongado"] * 2


def test_r27_without_the_option_esfuerzo_is_plain_activo_time():
    state = state_of(time("esfuerzo", minutes=10))
    assert pending(state) == []
    assert state["clock"] == 600
    state = state_of(attributes(FUE=1), time("esfuerzo", minutes=10))
    assert pending(state) == []


def test_r27_esfuerzo_is_not_reposo_with_the_option_on():
    state = state_of(
        attributes(FUE=5),
        suffer("fatiga", "leve"),
        time("reposo", rounds=5),
        time("esfuerzo", rounds=1),
        time("reposo", rounds=5),
        **ESFUERZO,
    )
    assert marks(state, "fatiga") == ["leve"]


def test_r10_round_seconds_option_counts_for_reposo():
    state = state_of(suffer("fatiga", "leve"), time("reposo", rounds=2), round_seconds=30)
    assert marks(state, "fatiga") == []
    state = state_of(suffer("fatiga", "leve"), time("reposo", rounds=9))
    assert marks(state, "fatiga") == ["leve"]


def test_r10_effects_unmark_fatiga_leve_by_r10():
    effects = last_effects(suffer("fatiga", "leve"), time("reposo", minutes=1))
    assert ("R10", "unmark", "fatiga", "leve") in [
        (e["rule"], e["change"], e.get("type"), e.get("grade")) for e in effects
    ]


def test_r27_round_seconds_option_counts_for_esfuerzo():
    state = state_of(attributes(FUE=1), time("esfuerzo", rounds=2), round_seconds=60, **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"]


def test_r27_check_effect_names_r27():
    effects = last_effects(attributes(FUE=1), time("esfuerzo", minutes=2), **ESFUERZO)
    assert ("R27", "check_raised", "esfuerzo_prolongado") in [
        (e["rule"], e["change"], e.get("check")) for e in effects
    ]


def test_r10_a_box_that_stays_marked_through_r2_keeps_its_marking_time():
    # Leve marked at 0 s; the second leve at 30 s marks grave, leve stays marked from 0 s.
    state = state_of(
        suffer("fatiga", "leve"),
        time("reposo", rounds=5),
        suffer("fatiga", "leve"),
        time("reposo", rounds=5),
    )
    assert marks(state, "fatiga") == ["grave"]


# --- R27 with a changing FUE (rules v2) ---------------------------------------------------


def test_r27_each_minute_is_judged_with_the_fue_in_force_at_that_minute():
    base = [attributes(FUE=4), time("esfuerzo", minutes=5)]
    assert pending(state_of(*base, **ESFUERZO)) == ["esfuerzo_prolongado"]
    state = state_of(*base, attributes(FUE=5), time("esfuerzo", minutes=9), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"] * 10


def test_r27_minutes_already_passed_are_never_judged_again():
    # Three free minutes at FUE 5; at FUE 1 only the minutes still to come are judged.
    base = [attributes(FUE=5), time("esfuerzo", minutes=3), attributes(FUE=1)]
    assert pending(state_of(*base, time("esfuerzo", rounds=1), **ESFUERZO)) == []
    state = state_of(*base, time("esfuerzo", minutes=1), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"]
    state = state_of(*base, time("esfuerzo", minutes=2), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"] * 2


def test_r27_a_new_fue_mid_minute_counts_for_that_minute():
    # FUE 1: the second minute would raise a check at 120 s; FUE 2 from 90 s spares it.
    base = [attributes(FUE=1), time("esfuerzo", rounds=15), attributes(FUE=2)]
    assert pending(state_of(*base, time("esfuerzo", rounds=5), **ESFUERZO)) == []
    state = state_of(*base, time("esfuerzo", rounds=15), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"]


def test_r27_a_lower_fue_mid_streak_does_not_reach_back():
    base = [attributes(FUE=3), time("esfuerzo", minutes=2), attributes(FUE=0)]
    state = state_of(*base, time("esfuerzo", minutes=1), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"]
    assert state["clock"] == 180


def test_r27_a_new_streak_after_a_pause_uses_the_fue_of_its_own_minutes():
    state = state_of(
        attributes(FUE=1),
        time("esfuerzo", minutes=3),
        time("reposo", minutes=1),
        attributes(FUE=2),
        time("esfuerzo", minutes=3),
        **ESFUERZO,
    )
    assert pending(state) == ["esfuerzo_prolongado"] * 3


# --- R27 in a fight (rules v2.2) -----------------------------------------------------------
# With the option on, each round of a fight is `esfuerzo` for a combatant of the order that
# can act when it passes, and `activo` for the others (the app records each one's round).

TURN_END = kind("turn_end")


def test_r27_v22_a_fights_rounds_of_esfuerzo_add_up_to_minutes():
    # FUE 1: ten rounds (a minute) are free; the check falls at the twentieth's pass.
    rounds = [time("esfuerzo", rounds=1)] * 19
    assert pending(state_of(attributes(FUE=1), *rounds, **ESFUERZO)) == []
    state = state_of(attributes(FUE=1), *rounds, time("esfuerzo", rounds=1), **ESFUERZO)
    assert pending(state) == ["esfuerzo_prolongado"]


def test_r27_v22_what_happens_in_a_turn_does_not_break_the_streak():
    events = [attributes(FUE=1)]
    for _ in range(20):
        events += [TURN_END, time("esfuerzo", rounds=1)]
    events += [suffer("fatiga", "leve"), TURN_END, time("esfuerzo", rounds=10)]
    assert pending(state_of(*events, **ESFUERZO)) == ["esfuerzo_prolongado"] * 2


def test_r27_v22_a_round_not_exerting_itself_starts_the_count_again():
    # Nineteen rounds fighting, one keeping watch (or stunned: activo), twenty more: the
    # streak that counts is the last one alone.
    events = [attributes(FUE=1), *[time("esfuerzo", rounds=1)] * 19, time("activo", rounds=1)]
    events += [time("esfuerzo", rounds=1)] * 19
    assert pending(state_of(*events, **ESFUERZO)) == []
    assert pending(state_of(*events, time("esfuerzo", rounds=1), **ESFUERZO)) == [
        "esfuerzo_prolongado"
    ]


def test_r27_v22_asleep_its_rounds_are_reposo_whatever_they_say():
    events = [attributes(FUE=1), *[time("esfuerzo", rounds=1)] * 15, kind("sleep")]
    events += [time("esfuerzo", rounds=1)] * 10
    assert pending(state_of(*events, **ESFUERZO)) == []
