"""R18-R19: the Afección counter, its phases and sources, and the Medicina Obstáculo."""

import pytest

from tests.rules.helpers import marks, recover, special, state_of, suffer

PROGRESS = {"kind": "progress", "type": "afeccion"}


def afeccion(grade, source=None):
    fields = {} if source is None else {"source": source}
    return suffer("afeccion", grade, **fields)


# --- R18 phases ---------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["leve", "grave", "persistente"])
def test_r18_with_no_phase_the_suffered_grade_is_marked(grade):
    state = state_of(afeccion(grade))
    assert marks(state, "afeccion") == [grade]
    assert state["active"]["afeccion"] == grade


@pytest.mark.parametrize(
    ("first", "second", "phase"),
    [
        ("leve", "leve", "grave"),
        ("leve", "grave", "grave"),
        ("leve", "persistente", "persistente"),
        ("grave", "leve", "persistente"),
        ("grave", "grave", "persistente"),
        ("grave", "persistente", "persistente"),
        ("persistente", "leve", "persistente"),
        ("persistente", "grave", "persistente"),
        ("persistente", "persistente", "persistente"),
    ],
)
def test_r18_phases_follow_each_other_and_only_one_box_is_marked(first, second, phase):
    state = state_of(afeccion(first), afeccion(second))
    assert marks(state, "afeccion") == [phase]


def test_r18_the_phase_never_goes_back():
    state = state_of(afeccion("persistente"), afeccion("leve"), afeccion("leve"))
    assert marks(state, "afeccion") == ["persistente"]


def test_r18_sources_join_the_list_sorted_and_once():
    state = state_of(
        afeccion("leve", "veneno de fugu"),
        afeccion("leve", "infeccion"),
        afeccion("leve", "infeccion"),
    )
    assert state["afflictions"] == ["infeccion", "veneno de fugu"]
    assert state["specials"].count("infeccion") == 1
    assert "veneno de fugu" in state["specials"]
    assert state["specials"] == sorted(state["specials"])


def test_r18_afeccion_without_source_adds_no_name():
    state = state_of(afeccion("leve"))
    assert state["afflictions"] == []
    state = state_of(afeccion("leve", "peste"), afeccion("leve"))
    assert state["afflictions"] == ["peste"]
    assert marks(state, "afeccion") == ["grave"]


def test_r18_source_example_incubation_then_poison_reaches_grave_for_both():
    state = state_of(afeccion("leve", "infeccion"), afeccion("leve", "veneno de fugu"))
    assert marks(state, "afeccion") == ["grave"]
    assert state["afflictions"] == ["infeccion", "veneno de fugu"]


def test_r18_progress_moves_one_phase_on():
    assert marks(state_of(afeccion("leve"), PROGRESS), "afeccion") == ["grave"]
    assert marks(state_of(afeccion("leve"), PROGRESS, PROGRESS), "afeccion") == ["persistente"]
    assert marks(state_of(afeccion("grave"), PROGRESS), "afeccion") == ["persistente"]


def test_r18_progress_keeps_the_sources():
    state = state_of(afeccion("leve", "peste"), PROGRESS)
    assert state["afflictions"] == ["peste"]


# --- R19 effects and recovery -------------------------------------------------------------


@pytest.mark.parametrize(("grade", "value"), [("leve", -1), ("grave", -3), ("persistente", -2)])
def test_r19_medicine_obstacle_is_the_patients_phase(grade, value):
    state = state_of(afeccion(grade, "peste"))
    assert state["medicine_obstacle"] == value


@pytest.mark.parametrize("grade", ["leve", "grave", "persistente"])
def test_r19_afeccion_gives_no_obstaculo_of_its_own(grade):
    state = state_of(afeccion(grade, "peste"))
    assert state["modifiers"] == {"FUE": 0, "AGI": 0, "DES": 0, "VOL": 0, "otro": 0}
    assert state["modifiers_flee"] == {"FUE": 0, "VOL": 0}
    assert state["modifiers_fight"] == {"FUE": 0, "VOL": 0}
    assert state["can_act"] is True


def test_r19_recover_of_the_phase_ends_the_afeccion_and_empties_the_list():
    state = state_of(
        afeccion("leve", "peste"),
        afeccion("leve", "infeccion"),
        recover("afeccion", "grave"),
    )
    assert marks(state, "afeccion") == []
    assert state["afflictions"] == []
    assert "peste" not in state["specials"]
    assert "infeccion" not in state["specials"]
    assert state["medicine_obstacle"] == 0


def test_r19_special_off_removes_that_source_only():
    state = state_of(
        afeccion("leve", "peste"),
        afeccion("leve", "veneno de fugu"),
        special("veneno de fugu", False),
    )
    assert state["afflictions"] == ["peste"]
    assert "veneno de fugu" not in state["specials"]
    assert "peste" in state["specials"]
    assert marks(state, "afeccion") == ["grave"]


def test_r19_after_recovery_a_new_afeccion_starts_again_at_its_grade():
    state = state_of(
        afeccion("grave", "peste"), recover("afeccion", "grave"), afeccion("leve", "gripe")
    )
    assert marks(state, "afeccion") == ["leve"]
    assert state["afflictions"] == ["gripe"]


def test_r19_special_off_of_the_last_source_leaves_the_phase():
    state = state_of(afeccion("leve", "peste"), special("peste", False))
    assert state["afflictions"] == []
    assert marks(state, "afeccion") == ["leve"]
