"""R22-R24 and the fine print of sections 5 and 9: clock, days, Descanso, sleep, faints."""

import random

import pytest

from tests.rules.helpers import (
    DAY,
    DESCANSO,
    HOUR,
    TURN_END,
    attributes,
    changes,
    days_of_descanso,
    error_of,
    has_step,
    heal,
    in_order,
    kind,
    last_effects,
    marks,
    pending,
    save,
    state_of,
    suffer,
    time,
    trail_of,
)

SLEEP = {"kind": "sleep"}
WAKE = {"kind": "wake"}
FORCED = {"kind": "wake", "forced": True}


def sleep(hours):
    return {"kind": "sleep", "hours": hours}


def start(clock):
    return {"kind": "start", "clock": clock}


# --- section 5: the clock -----------------------------------------------------------------


def test_start_sets_the_clock():
    assert state_of(start(1000))["clock"] == 1000
    assert state_of(start(1000), time(minutes=1))["clock"] == 1060


@pytest.mark.parametrize(
    ("amount", "seconds"),
    [({"rounds": 3}, 18), ({"minutes": 2}, 120), ({"hours": 2}, 7200), ({"days": 1}, DAY)],
)
def test_time_units_move_the_clock(amount, seconds):
    assert state_of(time(**amount))["clock"] == seconds


def test_round_seconds_option_default_is_6_and_can_be_changed():
    assert state_of(time(rounds=2))["clock"] == 12
    assert state_of(time(rounds=2), round_seconds=10)["clock"] == 20
    assert state_of(time(minutes=1), round_seconds=10)["clock"] == 60


def test_descanso_moves_the_clock_8_hours():
    assert state_of(DESCANSO)["clock"] == 8 * HOUR
    assert state_of(start(5000), DESCANSO)["clock"] == 5000 + 8 * HOUR


def test_sleep_with_hours_moves_the_clock_and_wakes():
    state = state_of(sleep(3))
    assert state["clock"] == 3 * HOUR
    assert state["asleep"] is False


def test_sleep_and_wake_without_hours_do_not_move_the_clock():
    assert state_of(SLEEP)["clock"] == 0
    assert state_of(SLEEP, time(hours=2), WAKE)["clock"] == 2 * HOUR


def test_the_day_is_the_clock_divided_by_86400_two_descansos_on_two_days():
    # 14 h -> 22 h is a Descanso of day 0; 22 h -> 30 h one of day 1: both count.
    state = state_of(time(hours=14), DESCANSO, suffer("fatiga", "persistente"), DESCANSO)
    assert state["clock"] == 30 * HOUR
    assert marks(state, "fatiga") == []


def test_start_clock_decides_the_game_day():
    # From 20 h: both Descansos end on day 1, so the second gives nothing.
    state = state_of(start(20 * HOUR), DESCANSO, suffer("fatiga", "persistente"), DESCANSO)
    assert marks(state, "fatiga") == ["persistente"]
    # From 12 h: the first ends on day 0 (20 h), the second on day 1 (28 h).
    state = state_of(start(12 * HOUR), DESCANSO, suffer("fatiga", "persistente"), DESCANSO)
    assert marks(state, "fatiga") == []


# --- R22 Descanso -------------------------------------------------------------------------


def test_r22_descanso_unmarks_fatiga_persistente():
    state = state_of(suffer("fatiga", "persistente"), DESCANSO)
    assert marks(state, "fatiga") == []


def test_r22_second_descanso_of_a_day_gives_nothing():
    base = [DESCANSO, suffer("heridas", "leve"), suffer("fatiga", "persistente")]
    state = state_of(*base, DESCANSO)
    assert state["clock"] == 16 * HOUR
    assert marks(state, "fatiga") == ["persistente"]
    assert "heridas_leve_descanso" not in pending(state)
    first, second = trail_of(DESCANSO, DESCANSO)
    assert "descanso" in changes(first)
    assert "descanso" not in changes(second)


def test_r22_second_descanso_of_a_day_does_not_reset_the_curacion_limit():
    events = [DESCANSO, suffer("heridas", "grave"), heal(), DESCANSO, heal()]
    assert error_of(*events).code == "heal_twice"


def test_r22_descanso_raises_the_r6_heridas_checks():
    state = state_of(suffer("heridas", "leve"), DESCANSO)
    assert pending(state) == ["heridas_leve_descanso"]


def test_r22_descanso_resets_the_count_of_days_without_descanso():
    state = state_of(DESCANSO, time(hours=23))
    assert marks(state, "fatiga") == []
    assert pending(state) == []
    state = state_of(DESCANSO, time(hours=24))
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]


def test_r22_second_descanso_of_a_day_does_not_reset_the_count():
    # The Descanso that counts ends at 8 h; the day without Descanso ends at 32 h.
    state = state_of(DESCANSO, DESCANSO, time(hours=16))
    assert state["clock"] == 32 * HOUR
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]


def test_r22_one_descanso_a_day_for_many_days_keeps_the_pj_fresh():
    state = state_of(*days_of_descanso(5))
    assert state["clock"] == 5 * DAY
    assert marks(state, "fatiga") == []
    assert pending(state) == []


# --- R23 asleep ---------------------------------------------------------------------------


def test_r23_asleep_counts_as_shock_persistente_with_dormido_inconsciente_desprevenido():
    state = state_of(SLEEP)
    assert state["asleep"] is True
    assert state["can_act"] is False
    assert marks(state, "shock") == ["persistente"]
    assert state["active"]["shock"] == "persistente"
    assert {"dormido", "inconsciente", "desprevenido"} <= set(state["specials"])


def test_r23_waking_after_6_hours_applies_a_descanso_without_derribado():
    state = state_of(suffer("fatiga", "persistente"), SLEEP, time(hours=6), WAKE)
    assert state["asleep"] is False
    assert state["can_act"] is True
    assert marks(state, "shock") == []
    assert marks(state, "fatiga") == []
    assert not {"dormido", "inconsciente", "desprevenido", "derribado"} & set(state["specials"])


def test_r23_waking_before_6_hours_is_no_descanso_and_no_shock():
    state = state_of(suffer("fatiga", "persistente"), SLEEP, time(hours=5), WAKE)
    assert state["asleep"] is False
    assert marks(state, "fatiga") == ["persistente"]
    assert marks(state, "shock") == []


def test_r23_sleep_with_hours_counts_as_descanso_from_6_hours():
    assert marks(state_of(suffer("fatiga", "persistente"), sleep(5)), "fatiga") == ["persistente"]
    assert marks(state_of(suffer("fatiga", "persistente"), sleep(6)), "fatiga") == []


def test_r23_forced_waking_from_ordinary_sleep_costs_only_the_descanso():
    events = [suffer("heridas", "leve"), suffer("fatiga", "persistente"), SLEEP, time(hours=3)]
    state = state_of(*events, FORCED)
    assert state["asleep"] is False
    assert marks(state, "shock") == []
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == []
    assert not {"dormido", "derribado", "desprevenido"} & set(state["specials"])
    assert state["can_act"] is True
    assert "suffer" not in changes(last_effects(*events, FORCED))


def test_r23_forced_wake_after_6_hours_is_a_descanso_without_shock():
    state = state_of(suffer("fatiga", "persistente"), SLEEP, time(hours=7), FORCED)
    assert marks(state, "fatiga") == []
    assert marks(state, "shock") == []


def test_r23_forced_waking_from_the_faint_unmarks_every_shock_box_then_shock_grave():
    # Shock grave before the faint: the waking ends the sleep's Shock persistente and every
    # Shock box with it, derribado; only then the Shock grave, which finds nothing marked
    # (no R11, no die needed).
    events = [
        time(days=1),
        suffer("shock", "grave"),
        save("sin_descanso", False, roll=3),
        time(hours=1),
        FORCED,
    ]
    state = state_of(*events)
    assert marks(state, "shock") == ["grave"]
    assert marks(state, "fatiga") == ["persistente"]
    assert "derribado" in state["specials"]
    assert in_order(
        [
            ("R23", "awake"),
            ("R23", "unmark", "shock", "grave"),
            ("R24", "special_on", "derribado"),
            ("R23", "suffer", "shock", "grave"),
            ("base", "mark", "shock", "grave"),
        ],
        last_effects(*events),
    )


def test_r23_sleeps_shock_persistente_counts_for_r2():
    state = state_of(SLEEP, suffer("shock", "persistente", duration_minutes=30))
    assert marks(state, "shock") == ["grave", "persistente"]


def test_r23_sleeps_shock_persistente_counts_for_r11():
    state = state_of(SLEEP, suffer("shock", "grave"), suffer("shock", "leve"))
    assert marks(state, "shock") == ["grave", "persistente"]
    assert marks(state, "fatiga") == ["leve"]


def test_r23_waking_unmarks_every_shock_box_without_derribado():
    # Waking is the end of the sleep's Shock persistente (R13): every Shock box goes with it.
    state = state_of(SLEEP, suffer("shock", "grave"), time(hours=1), WAKE)
    assert marks(state, "shock") == []
    assert state["pending"] == []
    assert state["can_act"] is True
    assert not {"derribado", "dormido", "desprevenido"} & set(state["specials"])
    state = state_of(suffer("shock", "grave"), TURN_END, SLEEP, time(hours=1), WAKE)
    assert marks(state, "shock") == []
    assert pending(state) == []  # the turn check went with the grave


def test_r23_descanso_effects_fall_asleep_and_give_a_descanso():
    effects = last_effects(DESCANSO)
    assert "asleep" in changes(effects)
    assert "descanso" in changes(effects)
    assert changes(effects).index("asleep") < changes(effects).index("descanso")


# --- R24 days without Descanso ------------------------------------------------------------


def test_r24_a_day_without_descanso_marks_fatiga_persistente_and_raises_sin_descanso():
    state = state_of(time(hours=23))
    assert marks(state, "fatiga") == []
    assert pending(state) == []
    state = state_of(time(hours=24))
    assert marks(state, "fatiga") == ["persistente"]
    assert state["pending"] == [{"check": "sin_descanso", "attribute": "VOL", "optional": False}]


def test_r24_counts_from_the_start_clock():
    assert marks(state_of(start(50000), time(hours=23)), "fatiga") == []
    assert marks(state_of(start(50000), time(hours=24)), "fatiga") == ["persistente"]


def test_r24_fatiga_persistente_does_not_accumulate_through_r2():
    state = state_of(suffer("fatiga", "persistente"), time(days=1))
    assert marks(state, "fatiga") == ["persistente"]
    state = state_of(time(days=3))
    assert marks(state, "fatiga") == ["persistente"]


def test_r24_is_a_state_not_a_blow_r8_does_not_apply():
    state = state_of(suffer("fatiga", "grave"), time(days=1))
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == []


def test_r24_one_mandatory_check_per_day_without_descanso():
    state = state_of(time(days=3))
    assert pending(state) == ["sin_descanso"] * 3


def test_r24_check_success_changes_nothing_else():
    state = state_of(time(days=1), save("sin_descanso", True, roll=1))
    assert pending(state) == []
    assert state["asleep"] is False
    assert marks(state, "fatiga") == ["persistente"]


def test_r24_failure_faints_for_1d6_hours_no_descanso_under_6():
    events = [time(days=1), save("sin_descanso", False, roll=3)]
    state = state_of(*events)
    assert state["asleep"] is True
    assert {"dormido", "inconsciente", "desprevenido"} <= set(state["specials"])
    assert state_of(*events, time(hours=2))["asleep"] is True
    state = state_of(*events, time(hours=3))
    assert state["asleep"] is False
    assert marks(state, "fatiga") == ["persistente"]
    assert marks(state, "shock") == []


def test_r24_faint_of_6_hours_counts_as_a_descanso():
    state = state_of(time(days=1), save("sin_descanso", False, roll=6), time(hours=6))
    assert state["asleep"] is False
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r24_faint_hours_come_from_the_seed_without_roll():
    seed = 4242
    hours = random.Random(seed).randint(1, 6)
    events = [time(days=1), save("sin_descanso", False, seed=seed)]
    if hours > 1:
        assert state_of(*events, time(hours=hours - 1))["asleep"] is True
    assert state_of(*events, time(hours=hours))["asleep"] is False


def test_r24_faint_cut_short_by_a_forced_wake_gives_shock_grave():
    events = [time(days=1), save("sin_descanso", False, roll=5), time(hours=2), FORCED]
    state = state_of(*events)
    assert state["asleep"] is False
    assert marks(state, "shock") == ["grave"]
    assert marks(state, "fatiga") == ["persistente"]
    # The cut-short faint does not wake the PJ again, nor turn into a Descanso later.
    state = state_of(*events, time(hours=5))
    assert state["asleep"] is False
    assert marks(state, "fatiga") == ["persistente"]


def test_r24_a_descanso_drops_the_pending_sin_descanso_checks():
    state = state_of(time(days=2), DESCANSO)
    assert pending(state) == []
    assert marks(state, "fatiga") == []


def test_r24_mark_during_sleep_is_dropped_by_the_waking_descanso():
    state = state_of(time(hours=20), DESCANSO)
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r24_mark_at_the_moment_of_waking_is_dropped_by_its_descanso():
    state = state_of(*days_of_descanso(1))
    assert state["clock"] == DAY
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r24_mark_during_sleep_is_applied_at_a_waking_without_descanso():
    state = state_of(time(hours=20), sleep(5))
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]


def test_r24_mark_during_sleep_waits_for_the_waking():
    base = [time(hours=22), SLEEP, time(hours=3)]
    state = state_of(*base)
    assert state["asleep"] is True
    assert "sin_descanso" not in pending(state)
    assert marks(state, "fatiga") == []
    state = state_of(*base, WAKE)
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]


# --- section 9: checks at one instant -----------------------------------------------------


def test_checks_at_one_instant_r6_before_r24():
    state = state_of(suffer("heridas", "grave"), time(days=1))
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso"]


def test_checks_are_listed_oldest_first_and_by_rule_within_an_instant():
    state = state_of(suffer("heridas", "grave"), time(days=2))
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso"] * 2


def test_checks_at_one_instant_r6_r24_r27_in_rule_order():
    state = state_of(
        attributes(FUE=1),
        suffer("heridas", "grave"),
        time(minutes=24 * 60 - 2),
        time("esfuerzo", minutes=2),
        esfuerzo_prolongado=True,
    )
    assert state["clock"] == DAY
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso", "esfuerzo_prolongado"]


def test_r23_sleep_then_wake_at_once_is_no_descanso_and_no_shock():
    state = state_of(kind("sleep"), kind("wake"))
    assert marks(state, "shock") == []
    assert state["asleep"] is False
    assert state["clock"] == 0


def test_r24_count_goes_on_from_the_last_descanso_after_a_short_faint():
    events = [time(days=1), save("sin_descanso", False, roll=2), time(hours=2), time(hours=21)]
    state = state_of(*events)
    assert state["clock"] == 47 * HOUR
    assert pending(state) == []
    state = state_of(*events, time(hours=1))
    assert pending(state) == ["sin_descanso"]


def test_r24_mark_during_sleep_applied_at_a_forced_waking_of_ordinary_sleep():
    state = state_of(time(hours=22), SLEEP, time(hours=3), FORCED)
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]
    assert marks(state, "shock") == []


def test_r24_effects_name_r24():
    effects = last_effects(time(days=1))
    kinds = [(e["rule"], e["change"], e.get("type") or e.get("check")) for e in effects]
    assert ("R24", "mark", "fatiga") in kinds
    assert ("R24", "check_raised", "sin_descanso") in kinds


def test_r22_effects_unmark_fatiga_persistente():
    effects = last_effects(suffer("fatiga", "persistente"), DESCANSO)
    kinds = [(e["change"], e.get("type"), e.get("grade")) for e in effects]
    assert ("unmark", "fatiga", "persistente") in kinds


def test_r22_second_descanso_of_a_day_is_still_sleep_and_sleep_is_reposo():
    state = state_of(DESCANSO, suffer("fatiga", "grave"), DESCANSO)
    assert marks(state, "fatiga") == []


def test_checks_deferred_to_a_wake_event_are_ordered_by_rule_at_that_instant():
    # Grave at 2 h: its infection check falls at 26 h, the waking; the 24 h mark fell during
    # the sleep and is decided at that same waking (no Descanso): R6 first, then R24.
    events = [time(hours=2), suffer("heridas", "grave"), time(hours=20), SLEEP]
    state = state_of(*events, time(hours=4), WAKE)
    assert state["clock"] == 26 * HOUR
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso"]


def test_checks_deferred_to_the_waking_of_a_timed_sleep_are_ordered_by_rule():
    events = [time(hours=2), suffer("heridas", "grave"), time(hours=20), sleep(4)]
    state = state_of(*events)
    assert state["clock"] == 26 * HOUR
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso"]


def test_checks_deferred_to_the_end_of_a_faint_are_ordered_by_rule():
    # Grave at 25 h: infection at 49 h. The faint runs 47 h -> 49 h; the second 24 h mark
    # (48 h) falls in it and is decided at the waking, 49 h, with no Descanso.
    events = [
        time(hours=25),
        suffer("heridas", "grave"),
        time(hours=22),
        save("sin_descanso", False, roll=2),
        time(hours=2),
    ]
    state = state_of(*events)
    assert state["clock"] == 49 * HOUR
    assert state["asleep"] is False
    assert pending(state) == ["heridas_grave_infeccion", "sin_descanso"]


def test_r24_marks_deferred_to_the_end_of_a_faint_are_applied_without_descanso():
    # Only the 24 h mark is pending at 47 h; the faint runs 47 h -> 49 h over the 48 h mark.
    events = [time(hours=47), save("sin_descanso", False, roll=2)]
    assert marks(state_of(*events, time(hours=1)), "fatiga") == ["persistente"]
    assert pending(state_of(*events, time(hours=1))) == []
    state = state_of(*events, time(hours=2))
    assert state["asleep"] is False
    assert pending(state) == ["sin_descanso"]
    assert marks(state, "fatiga") == ["persistente"]


def test_r24_every_mark_of_a_long_sleep_is_dropped_by_its_descanso():
    assert pending(state_of(time(hours=20), SLEEP, time(hours=30), WAKE)) == []
    state = state_of(time(hours=20), sleep(30))
    assert state["clock"] == 50 * HOUR
    assert pending(state) == []
    assert marks(state, "fatiga") == []


def test_r24_mark_at_the_moment_of_a_waking_without_descanso_is_applied():
    state = state_of(time(hours=19), sleep(5))
    assert state["clock"] == DAY
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]
    state = state_of(time(hours=19), SLEEP, time(hours=5), WAKE)
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]


def test_r24_the_faint_descanso_resets_the_count_of_days():
    base = [time(days=1), save("sin_descanso", False, roll=6), time(hours=6)]
    state = state_of(*base, time(hours=23))
    assert pending(state) == []
    assert marks(state, "fatiga") == []
    state = state_of(*base, time(hours=24))
    assert pending(state) == ["sin_descanso"]


def test_r23_sleeps_shock_persistente_counts_for_r11_fatiga_of_the_same_grade():
    state = state_of(SLEEP, suffer("shock", "grave"), suffer("shock", "persistente"))
    assert marks(state, "fatiga") == ["persistente"]
    assert marks(state, "shock") == ["grave", "persistente"]


# --- rules v2: waking, the faint, and sleep without Descanso ------------------------------


def test_r24_waking_from_the_faint_gives_derribado_ordinary_sleep_does_not():
    faint = [time(days=1), save("sin_descanso", False, roll=2), time(hours=2)]
    state = state_of(*faint)
    assert state["asleep"] is False
    assert "derribado" in state["specials"]
    assert has_step(("R24", "special_on", "derribado"), last_effects(*faint))
    for ordinary in ([sleep(2)], [SLEEP, time(hours=2), WAKE], [DESCANSO]):
        state = state_of(*ordinary)
        assert state["asleep"] is False
        assert "derribado" not in state["specials"], ordinary


def test_r24_forced_waking_from_the_faint_after_a_natural_one_is_not_a_faint_again():
    # The faint is over at its waking: a later ordinary sleep cut short gives no Shock grave.
    events = [time(days=1), save("sin_descanso", False, roll=1), time(hours=1)]
    state = state_of(*events, SLEEP, time(hours=1), FORCED)
    assert marks(state, "shock") == []
    assert state["can_act"] is True


def test_r24_a_failed_check_while_asleep_turns_the_sleep_into_the_faint():
    # The day's check was left open; failed while asleep, the sleep becomes the faint.
    events = [time(days=1), SLEEP, save("sin_descanso", False, roll=3), time(hours=1)]
    state = state_of(*events, FORCED)
    assert marks(state, "shock") == ["grave"]
    assert "derribado" in state["specials"]
    state = state_of(*events, time(hours=2))
    assert state["asleep"] is False
    assert "derribado" in state["specials"]


def test_r23_sleep_with_descanso_false_applies_no_descanso_at_its_waking():
    base = [suffer("heridas", "grave"), heal(), suffer("fatiga", "persistente")]
    state = state_of(*base, {"kind": "sleep", "hours": 8, "descanso": False})
    assert state["clock"] == 8 * HOUR
    assert state["asleep"] is False
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == []  # no R6 check: that needs a Descanso
    assert "descanso" not in changes(
        last_effects(*base, {"kind": "sleep", "hours": 8, "descanso": False})
    )
    # The Curación limit stays spent, and the day without Descanso still counts from 0 h.
    events = [*base, {"kind": "sleep", "descanso": False}, time(hours=9), WAKE]
    assert error_of(*events, heal()).code == "heal_twice"
    state = state_of(*events, time(hours=15))
    assert pending(state) == ["sin_descanso"]


def test_r23_sleep_with_descanso_false_applies_the_r24_marks_that_fell_in_it():
    state = state_of(time(hours=20), {"kind": "sleep", "hours": 8, "descanso": False})
    assert marks(state, "fatiga") == ["persistente"]
    assert pending(state) == ["sin_descanso"]
    state = state_of(time(hours=20), {"kind": "sleep", "hours": 8, "descanso": True})
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r23_descanso_false_is_for_that_sleep_only():
    events = [suffer("fatiga", "persistente"), {"kind": "sleep", "hours": 7, "descanso": False}]
    assert marks(state_of(*events), "fatiga") == ["persistente"]
    state = state_of(*events, time(hours=17), sleep(7))
    assert marks(state, "fatiga") == []


def test_r23_sleep_effect_says_when_it_cannot_be_a_descanso():
    effects = last_effects({"kind": "sleep", "descanso": False})
    assert [(e["change"], e.get("descanso")) for e in effects] == [("asleep", False)]
    assert "descanso" not in last_effects(SLEEP)[0]


# --- rules v2.2: a PJ asleep when the party lies down sleeps on with it ---------------------

# A day without Descanso, and the TS VOL failed: the PJ faints for `roll` hours.
FAINTED = [time(days=1), save("sin_descanso", False, roll=1)]


def test_r24_v22_fainted_when_the_party_lies_down_it_sleeps_on_to_a_descanso():
    # The second table's case: a 1 h faint, the party's Descanso begins at once. The PJ
    # sleeps with them (9 h of sleep, the faint's included), wakes with them, rested.
    state = state_of(*FAINTED, DESCANSO)
    assert state["clock"] == DAY + 8 * HOUR
    assert state["asleep"] is False
    assert marks(state, "fatiga") == []
    assert marks(state, "shock") == []
    assert "derribado" not in state["specials"]
    assert pending(state) == []
    # So the next day starts its count from that Descanso: no TS VOL a day after the faint.
    assert pending(state_of(*FAINTED, DESCANSO, time(hours=16))) == []


def test_r24_v22_the_hours_of_the_faint_count_towards_the_six():
    # Fainted for 6 h; 5 h in, the party lies down: the sleep goes on to the party's waking
    # (13 h in all), and it is that waking that brings the Descanso.
    events = [time(days=1), save("sin_descanso", False, roll=6), time(hours=5), DESCANSO]
    state = state_of(*events)
    assert state["clock"] == DAY + 13 * HOUR
    assert state["asleep"] is False and "derribado" not in state["specials"]
    assert marks(state, "fatiga") == []
    trail = changes(last_effects(*events))
    assert trail.index("faint_over") < trail.index("awake") < trail.index("descanso")


def test_r24_v22_the_faint_ends_inside_the_partys_sleep_without_derribado():
    effects = last_effects(*FAINTED, DESCANSO)
    assert in_order(
        [("R24", "sleeps_on"), ("R24", "faint_over"), ("R23", "awake"), ("R22", "descanso")],
        effects,
    )
    assert not has_step(("R24", "special_on", "derribado"), effects)
    assert [e["hours"] for e in effects if e["change"] == "sleeps_on"] == [8]


def test_r24_v22_an_ordinary_sleep_goes_on_until_the_party_wakes():
    # Gone to bed 2 h before the others (open-ended): wakes with them, 10 h slept.
    state = state_of(time(hours=14), SLEEP, time(hours=2), DESCANSO)
    assert state["clock"] == 24 * HOUR
    assert state["asleep"] is False
    assert "descanso" in changes(last_effects(time(hours=14), SLEEP, time(hours=2), DESCANSO))


def test_r24_v22_a_sleep_that_could_not_be_a_descanso_stays_so():
    # Asleep without food or a fit place (descanso: false) when the party lies down: the
    # sleep goes on as it was, and its waking is no Descanso.
    events = [suffer("fatiga", "persistente"), kind("sleep", descanso=False), DESCANSO]
    state = state_of(*events)
    assert state["asleep"] is False and state["clock"] == 8 * HOUR
    assert marks(state, "fatiga") == ["persistente"]
    assert "descanso" not in changes(last_effects(*events))


def test_r24_v22_one_descanso_a_day_holds_for_the_sleep_on_too():
    events = [DESCANSO, time(hours=1), SLEEP, DESCANSO]  # the second, within the same day
    effects = last_effects(*events)
    assert "descanso_spent" in changes(effects) and "descanso" not in changes(effects)


def test_r24_v22_a_day_mark_that_falls_while_it_sleeps_on_is_dropped_by_its_descanso():
    # Asleep at 20 h, the party lies down at 22 h: the 24 h mark falls in that sleep, and
    # the waking's Descanso drops it.
    state = state_of(time(hours=20), SLEEP, time(hours=2), DESCANSO)
    assert state["clock"] == 30 * HOUR
    assert marks(state, "fatiga") == []
    assert pending(state) == []


def test_r24_v22_a_faint_made_longer_by_a_second_failed_check_still_ends_inside():
    # Two days without Descanso; asleep, the first TS failed (6 h), then 5 h later the
    # second (6 h again, from then): the party lies down at once and the faint ends 6 h
    # into its night; the PJ sleeps on and wakes with them.
    events = [
        time(days=2),
        SLEEP,
        save("sin_descanso", False, roll=6),
        time(hours=5),
        save("sin_descanso", False, roll=6),
        DESCANSO,
    ]
    state = state_of(*events)
    assert state["asleep"] is False and "derribado" not in state["specials"]
    assert marks(state, "fatiga") == [] and pending(state) == []


def test_r24_v22_sleep_while_asleep_is_still_an_error():
    # Only the party's Descanso (`descanso`) reaches a sleeper; `sleep` twice is a slip.
    assert error_of(*FAINTED, sleep(8)).code == "asleep_already"
    assert error_of(SLEEP, SLEEP).code == "asleep_already"
