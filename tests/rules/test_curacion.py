"""R25-R26: who may heal and how often, and what Curación does to Heridas."""

from tests.rules.helpers import (
    DESCANSO,
    SURGERY,
    changes,
    error_of,
    has_step,
    heal,
    last_effects,
    marks,
    state_of,
    suffer,
    time,
)

# Fatiga grave and persistente marked: any further Fatiga becomes Heridas (R8).
FATIGA_FULL = [suffer("fatiga", "persistente"), suffer("fatiga", "grave")]


# --- R25 limits ---------------------------------------------------------------------------


def test_r25_a_pj_cannot_heal_itself():
    assert error_of(suffer("heridas", "grave"), heal(by_self=True)).code == "self_heal"


def test_r25_a_pj_with_regeneracion_can_heal_itself():
    state = state_of(suffer("heridas", "grave"), heal(by_self=True, regeneracion=True))
    assert marks(state, "heridas") == ["leve"]


def test_r25_regeneracion_alone_is_an_ordinary_curacion_by_another():
    state = state_of(suffer("heridas", "grave"), heal(regeneracion=True))
    assert marks(state, "heridas") == ["leve"]


def test_r25_no_second_curacion_before_a_descanso_or_new_heridas():
    err = error_of(suffer("heridas", "grave"), heal(), heal())
    assert err.code == "heal_twice"
    assert err.index == 2


def test_r25_other_types_suffered_do_not_reset_the_limit():
    events = [suffer("heridas", "grave"), heal(), suffer("fatiga", "leve"), time(hours=2), heal()]
    assert error_of(*events).code == "heal_twice"


def test_r25_self_healing_with_regeneracion_also_counts_for_the_limit():
    events = [suffer("heridas", "grave"), heal(by_self=True, regeneracion=True), heal()]
    assert error_of(*events).code == "heal_twice"


def test_r25_a_descanso_resets_the_limit():
    state = state_of(suffer("heridas", "grave"), heal(), DESCANSO, heal())
    assert marks(state, "heridas") == []
    assert marks(state, "fatiga") == ["leve"]


def test_r25_new_suffered_heridas_reset_the_limit():
    state = state_of(suffer("heridas", "grave"), heal(), suffer("heridas", "persistente"), heal())
    assert marks(state, "heridas") == ["persistente"]
    assert marks(state, "fatiga") == ["leve"]


def test_r25_heridas_from_a_curacions_own_cascade_do_not_give_the_treatment_back():
    # Curación turns Heridas leve into Fatiga leve; Fatiga is full, so R8 brings Heridas leve
    # back: suffered Heridas, but produced by the Curación itself, so the limit stays spent.
    events = [*FATIGA_FULL, suffer("heridas", "leve"), heal()]
    state = state_of(*events)
    assert marks(state, "heridas") == ["leve"]
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert error_of(*events, heal()).code == "heal_twice"
    state = state_of(*events, DESCANSO, heal())
    assert marks(state, "heridas") == []


def test_r25_heridas_from_any_other_cascade_still_give_the_treatment_back():
    # The same R8 cascade started by a blow (not by the Curación) is new Heridas: the leve
    # left by the first Curación becomes grave (R2), and a second Curación may lower it.
    events = [*FATIGA_FULL, suffer("heridas", "grave"), heal(), suffer("fatiga", "leve")]
    assert marks(state_of(*events), "heridas") == ["leve", "grave"]
    state = state_of(*events, heal())
    assert marks(state, "heridas") == ["leve"]
    assert marks(state, "fatiga") == ["grave", "persistente"]


# --- R26 effect ---------------------------------------------------------------------------


def test_r26_curacion_turns_heridas_grave_into_leve():
    state = state_of(suffer("heridas", "grave"), heal())
    assert marks(state, "heridas") == ["leve"]
    assert marks(state, "fatiga") == []


def test_r26_grave_with_leve_already_marked_leaves_only_leve():
    state = state_of(suffer("heridas", "leve"), suffer("heridas", "leve"), heal())
    assert marks(state, "heridas") == ["leve"]


def test_r26_grave_is_healed_before_leve_and_persistente_stays():
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "persistente"), heal())
    assert marks(state, "heridas") == ["leve", "persistente"]


def test_r26_curacion_turns_heridas_leve_into_fatiga_leve():
    state = state_of(suffer("heridas", "leve"), heal())
    assert marks(state, "heridas") == []
    assert marks(state, "fatiga") == ["leve"]


def test_r26_leve_to_fatiga_effects_unmark_then_suffer():
    effects = last_effects(suffer("heridas", "leve"), heal())
    kinds = [(e["change"], e.get("type"), e.get("grade")) for e in effects]
    assert ("unmark", "heridas", "leve") in kinds
    assert ("suffer", "fatiga", "leve") in kinds
    assert kinds.index(("unmark", "heridas", "leve")) < kinds.index(("suffer", "fatiga", "leve"))


def test_r26_the_fatiga_leve_goes_through_r2():
    state = state_of(suffer("fatiga", "leve"), suffer("heridas", "leve"), heal())
    assert marks(state, "fatiga") == ["leve", "grave"]
    assert marks(state, "heridas") == []


def test_r26_the_fatiga_leve_goes_through_r8():
    state = state_of(suffer("fatiga", "grave"), suffer("heridas", "leve"), heal())
    assert marks(state, "fatiga") == ["grave", "persistente"]
    assert marks(state, "shock") == ["leve"]
    assert marks(state, "heridas") == []


def test_r26_leve_with_persistente_heals_the_leve_only():
    state = state_of(suffer("heridas", "persistente"), suffer("heridas", "leve"), heal())
    assert marks(state, "heridas") == ["persistente"]
    assert marks(state, "fatiga") == ["leve"]


def test_r26_only_persistente_marked_is_an_error():
    assert error_of(suffer("heridas", "persistente"), heal()).code == "heal_nothing"


def test_r26_nothing_marked_is_an_error():
    assert error_of(heal()).code == "heal_nothing"


# --- R25: surgery is a Curación; failed treatments (rules v2) ----------------------------

PERSISTENTE = suffer("heridas", "persistente")


def test_r25_surgery_by_self_needs_regeneracion():
    err = error_of(PERSISTENTE, {"kind": "surgery", "by_self": True})
    assert err.code == "self_heal"
    assert err.field == "by_self"
    state = state_of(
        PERSISTENTE,
        {"kind": "surgery", "by_self": True, "regeneracion": True},
        *[ev for _ in range(7) for ev in (time(hours=16), DESCANSO)],
    )
    assert [p["check"] for p in state["pending"]] == ["heridas_persistente_recuperacion"]


def test_r25_surgery_spends_the_treatment():
    assert error_of(PERSISTENTE, suffer("heridas", "leve"), SURGERY, heal()).code == "heal_twice"
    assert error_of(PERSISTENTE, SURGERY, SURGERY).code == "heal_twice"


def test_r25_a_curacion_spends_the_surgery_too():
    events = [PERSISTENTE, suffer("heridas", "leve"), heal(), SURGERY]
    assert error_of(*events).code == "heal_twice"


def test_r25_a_descanso_or_new_heridas_give_the_surgery_back():
    assert marks(state_of(PERSISTENTE, SURGERY, DESCANSO, SURGERY), "heridas") == ["persistente"]
    state = state_of(PERSISTENTE, SURGERY, suffer("heridas", "leve"), heal())
    assert marks(state, "heridas") == ["persistente"]
    assert marks(state, "fatiga") == ["leve"]


def test_r25_a_failed_heal_spends_the_treatment_and_changes_nothing_else():
    events = [suffer("heridas", "grave"), time(days=1), heal(success=False)]
    before = state_of(*events[:-1])
    after = state_of(*events)
    assert after == before
    assert marks(after, "heridas") == ["grave"]
    assert "heridas_grave_infeccion" in [p["check"] for p in after["pending"]]
    assert error_of(*events, heal()).code == "heal_twice"
    assert marks(state_of(*events, DESCANSO, heal()), "heridas") == ["leve"]
    effects = last_effects(*events)
    assert changes(effects) == ["heal_failed"]
    assert effects[0]["rule"] == "R25"


def test_r25_a_failed_heal_on_leve_gives_no_fatiga():
    state = state_of(suffer("heridas", "leve"), heal(success=False))
    assert marks(state, "heridas") == ["leve"]
    assert marks(state, "fatiga") == []


def test_r25_a_failed_surgery_spends_the_treatment():
    failed = {"kind": "surgery", "success": False}
    assert error_of(PERSISTENTE, failed, SURGERY).code == "heal_twice"
    assert changes(last_effects(PERSISTENTE, failed)) == ["surgery_failed"]
    assert has_step(("R6", "surgery"), last_effects(PERSISTENTE, failed, DESCANSO, SURGERY))


def test_r26_a_failed_heal_with_nothing_to_heal_is_still_an_error():
    assert error_of(suffer("fatiga", "leve"), heal(success=False)).code == "heal_nothing"
    assert error_of(PERSISTENTE, heal(success=False)).code == "heal_nothing"


def test_r25_a_failed_surgery_without_heridas_persistente_is_still_an_error():
    err = error_of(suffer("heridas", "leve"), {"kind": "surgery", "success": False})
    assert err.code == "surgery_nothing"


def test_r25_success_defaults_to_true():
    assert state_of(suffer("heridas", "grave"), heal(success=True)) == state_of(
        suffer("heridas", "grave"), heal()
    )
