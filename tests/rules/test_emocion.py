"""R14-R17: Emoción overflow, leve variants, modifiers and recovery."""

import pytest

from tests.rules.helpers import (
    DESCANSO,
    SAFE,
    has_step,
    kind,
    last_effects,
    marks,
    recover,
    state_of,
    suffer,
    time,
)

ESPECIFICOS = ("fobia", "paranoia", "compulsion", "amnesia", "bloqueo_empatico", "catatonia")
KEYS = ("FUE", "AGI", "DES", "VOL", "otro")


def miedo(**kw):
    return suffer("emocion", "leve", variant="miedo", **kw)


def euforia(**kw):
    return suffer("emocion", "leve", variant="euforia", **kw)


def terror(cause="el lobo", **kw):
    return suffer("emocion", "grave", variant="terror", cause=cause, **kw)


def ira(cause="el bandido", **kw):
    return suffer("emocion", "grave", variant="ira", cause=cause, **kw)


def abatimiento(**kw):
    return suffer("emocion", "persistente", variant="abatimiento", **kw)


# --- R14 overflow -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "second",
    [miedo(), euforia(), terror("otra cosa"), ira("otro"), abatimiento()],
    ids=["miedo", "euforia", "terror", "ira", "abatimiento"],
)
def test_r14_any_emocion_on_grave_marks_persistente_abatimiento(second):
    state = state_of(terror(), second)
    assert marks(state, "emocion") == ["grave", "persistente"]
    assert state["emotion"]["persistente"] == "abatimiento"
    assert state["emotion"]["grave"] == "terror"
    assert state["active"]["emocion"] == "grave"


def test_r14_effects_name_r14():
    effects = last_effects(ira(), miedo())
    assert any(
        e["rule"] == "R14" and e["change"] == "mark" and e.get("grade") == "persistente"
        for e in effects
    )


@pytest.mark.parametrize("name", ESPECIFICOS)
def test_r14_with_especificos_the_event_may_name_an_e_esp_instead_of_abatimiento(name):
    state = state_of(terror(), miedo(especifico=name), especificos=True)
    assert name in state["specials"]
    assert marks(state, "emocion") == ["grave"]
    assert state["emotion"]["persistente"] is None


def test_r14_with_especificos_but_none_named_abatimiento_is_marked():
    state = state_of(terror(), miedo(), especificos=True)
    assert marks(state, "emocion") == ["grave", "persistente"]
    assert not set(ESPECIFICOS) & set(state["specials"])


def test_r14_decision_persistente_already_marked_nothing_more_happens():
    before = state_of(terror(), miedo())
    after = state_of(terror(), miedo(), euforia())
    assert after["marks"] == before["marks"]
    assert after["emotion"] == before["emotion"]
    assert after["specials"] == before["specials"]


def test_r14_v21_an_especifico_named_on_abatimiento_is_gained():
    state = state_of(terror(), miedo(), euforia(especifico="fobia"), especificos=True)
    assert "fobia" in state["specials"]
    assert marks(state, "emocion") == ["grave", "persistente"]
    assert state["emotion"]["persistente"] == "abatimiento"


# --- R15 leve variants --------------------------------------------------------------------


def test_r15_miedo_on_miedo_becomes_grave_terror():
    state = state_of(miedo(), miedo())
    assert marks(state, "emocion") == ["leve", "grave"]
    assert state["emotion"]["grave"] == "terror"
    assert state["emotion"]["leve"] == "miedo"


def test_r15_euforia_on_euforia_becomes_grave_ira():
    state = state_of(euforia(), euforia())
    assert marks(state, "emocion") == ["leve", "grave"]
    assert state["emotion"]["grave"] == "ira"


def test_r15_miedo_on_euforia_replaces_it_and_grave_is_not_reached():
    state = state_of(euforia(), miedo())
    assert marks(state, "emocion") == ["leve"]
    assert state["emotion"]["leve"] == "miedo"
    assert state["emotion"]["grave"] is None


def test_r15_euforia_on_miedo_replaces_it_and_grave_is_not_reached():
    state = state_of(miedo(), euforia())
    assert marks(state, "emocion") == ["leve"]
    assert state["emotion"]["leve"] == "euforia"


def test_r15_replaced_leve_then_same_leve_again_reaches_grave():
    state = state_of(miedo(), euforia(), euforia())
    assert state["emotion"]["grave"] == "ira"


def test_r15_decision_persistente_on_persistente_changes_nothing():
    before = state_of(abatimiento())
    after = state_of(abatimiento(), abatimiento())
    assert marks(after, "emocion") == ["persistente"]
    assert after["emotion"] == before["emotion"]
    assert after["emotion"]["grave"] is None


def test_r15_grave_suffered_directly_keeps_its_variant_and_cause():
    state = state_of(terror("el dragón"))
    assert marks(state, "emocion") == ["grave"]
    assert state["emotion"] == {
        "leve": None,
        "grave": "terror",
        "grave_cause": "el dragón",
        "persistente": None,
    }


def test_r15_grave_on_a_marked_leve_marks_grave_and_keeps_leve():
    state = state_of(euforia(), terror())
    assert marks(state, "emocion") == ["leve", "grave"]
    assert state["emotion"]["leve"] == "euforia"
    assert state["emotion"]["grave"] == "terror"


def test_r15_persistente_suffered_directly_is_abatimiento():
    state = state_of(abatimiento())
    assert marks(state, "emocion") == ["persistente"]
    assert state["emotion"]["persistente"] == "abatimiento"


# --- R16 modifiers ------------------------------------------------------------------------


@pytest.mark.parametrize("event", [miedo(), euforia()], ids=["miedo", "euforia"])
def test_r16_leve_plus_one_to_flee_or_fight_minus_one_to_the_rest(event):
    state = state_of(event)
    assert state["modifiers"] == dict.fromkeys(KEYS, -1)
    assert state["modifiers_flee"] == {"FUE": 1, "VOL": 1}
    assert state["modifiers_fight"] == {"FUE": 1, "VOL": 1}


def test_r16_grave_terror_plus_one_to_flee_minus_three_to_the_rest():
    state = state_of(terror())
    assert state["modifiers"] == dict.fromkeys(KEYS, -3)
    assert state["modifiers_flee"] == {"FUE": 1, "VOL": 1}
    assert state["modifiers_fight"] == {"FUE": -3, "VOL": -3}


def test_r16_grave_ira_plus_one_to_fight_minus_three_to_the_rest():
    state = state_of(ira())
    assert state["modifiers"] == dict.fromkeys(KEYS, -3)
    assert state["modifiers_fight"] == {"FUE": 1, "VOL": 1}
    assert state["modifiers_flee"] == {"FUE": -3, "VOL": -3}


def test_r16_persistente_minus_two_to_all_actions():
    state = state_of(abatimiento())
    assert state["modifiers"] == dict.fromkeys(KEYS, -2)
    assert state["modifiers_flee"] == {"FUE": -2, "VOL": -2}
    assert state["modifiers_fight"] == {"FUE": -2, "VOL": -2}


def test_r16_grave_and_persistente_marked_the_grave_applies():
    state = state_of(ira(), miedo())
    assert state["modifiers"]["otro"] == -3
    assert state["modifiers_fight"] == {"FUE": 1, "VOL": 1}


def test_r16_spec_example_heridas_grave_and_miedo():
    state = state_of(suffer("heridas", "grave"), miedo())
    assert state["modifiers"] == {"FUE": -3, "AGI": -3, "DES": -3, "VOL": -1, "otro": -1}
    assert state["modifiers_flee"] == {"FUE": -2, "VOL": 1}
    assert state["modifiers_fight"] == {"FUE": -2, "VOL": 1}


# --- R17 recovery -------------------------------------------------------------------------


def test_r17_leve_recovers_with_one_calm_minute_of_reposo():
    state = state_of(miedo(), time("reposo", calm=True, minutes=1))
    assert marks(state, "emocion") == []
    assert state["emotion"]["leve"] is None


def test_r17_reposo_without_calm_does_not_end_leve():
    state = state_of(miedo(), time("reposo", minutes=10))
    assert marks(state, "emocion") == ["leve"]


def test_r17_calm_without_reposo_does_not_end_leve():
    state = state_of(euforia(), time("activo", calm=True, minutes=10))
    assert marks(state, "emocion") == ["leve"]


def test_r17_calm_minutes_add_up_and_restart_after_non_calm_time():
    base = [miedo(), time("reposo", calm=True, rounds=5), time("reposo", rounds=1)]
    state = state_of(*base, time("reposo", calm=True, rounds=5))
    assert marks(state, "emocion") == ["leve"]
    state = state_of(*base, time("reposo", calm=True, rounds=10))
    assert marks(state, "emocion") == []
    state = state_of(
        miedo(), time("reposo", calm=True, rounds=5), time("reposo", calm=True, rounds=5)
    )
    assert marks(state, "emocion") == []


def test_r17_calm_counts_from_the_marking():
    base = [time("reposo", calm=True, minutes=10), miedo()]
    assert marks(state_of(*base, time("reposo", calm=True, rounds=5)), "emocion") == ["leve"]
    assert marks(state_of(*base, time("reposo", calm=True, minutes=1)), "emocion") == []


def test_r17_sleep_is_calm_reposo_emocion_leve_ends_after_a_minute_of_sleep():
    assert marks(state_of(miedo(), DESCANSO), "emocion") == []
    assert marks(state_of(miedo(), kind("sleep", hours=2)), "emocion") == []
    base = [euforia(), kind("sleep")]
    assert marks(state_of(*base, time(rounds=9)), "emocion") == ["leve"]
    state = state_of(*base, time(rounds=10))
    assert marks(state, "emocion") == []
    assert state["asleep"] is True
    assert has_step(("R17", "unmark", "emocion", "leve"), last_effects(*base, time(rounds=10)))


def test_r17_calm_minutes_of_sleep_and_calm_reposo_after_it_add_up():
    events = [miedo(), kind("sleep"), time(rounds=5), kind("wake")]
    assert marks(state_of(*events, time("reposo", calm=True, rounds=5)), "emocion") == []
    assert marks(state_of(*events, time("reposo", rounds=5)), "emocion") == ["leve"]
    assert marks(state_of(*events, time(rounds=5)), "emocion") == ["leve"]


def test_r17_safe_ends_terror_and_leaves_miedo():
    state = state_of(terror(), SAFE)
    assert marks(state, "emocion") == ["leve"]
    assert state["emotion"] == {
        "leve": "miedo",
        "grave": None,
        "grave_cause": None,
        "persistente": None,
    }


def test_r17_safe_ends_ira_and_leaves_euforia():
    state = state_of(ira(), SAFE)
    assert marks(state, "emocion") == ["leve"]
    assert state["emotion"]["leve"] == "euforia"


def test_r17_safe_turns_the_leve_into_the_grave_s_own_variant():
    state = state_of(euforia(), terror(), SAFE)
    assert marks(state, "emocion") == ["leve"]
    assert state["emotion"]["leve"] == "miedo"


def test_r17_safe_without_emocion_grave_is_a_no_op():
    before = state_of(miedo())
    assert state_of(miedo(), SAFE) == before
    assert state_of(SAFE) == state_of()


def test_r17_persistente_only_ends_when_the_dj_says_so():
    events = [abatimiento(), time("reposo", calm=True, hours=2), DESCANSO]
    assert marks(state_of(*events), "emocion") == ["persistente"]
    state = state_of(*events, recover("emocion", "persistente"))
    assert marks(state, "emocion") == []
    assert state["emotion"]["persistente"] is None


def test_r17_safe_leaves_persistente_marked():
    state = state_of(terror(), euforia(), SAFE)
    assert marks(state, "emocion") == ["leve", "persistente"]
    assert state["emotion"]["leve"] == "miedo"
    assert state["emotion"]["persistente"] == "abatimiento"
    assert state["active"]["emocion"] == "persistente"
