"""The incremental face for the app: apply() on a stored state, its effects trail and errors."""

from __future__ import annotations

import copy
import json

import pytest

from rules import MESSAGES, RuleError, apply, initial_state, public_state, replay, replay_trail
from rules.trail import chain

SPEC_KEYS = {
    "clock", "marks", "active", "emotion", "afflictions", "specials", "can_act", "asleep",
    "modifiers", "modifiers_flee", "modifiers_fight", "medicine_obstacle", "pending",
}  # fmt: skip


def test_replay_returns_every_spec_key_and_nothing_else():
    assert set(replay([])) == SPEC_KEYS


def test_a_stored_state_carries_the_spec_keys_for_templates_to_read():
    state, _ = apply(None, {"kind": "suffer", "type": "fatiga", "grade": "leve"})
    assert SPEC_KEYS <= set(state)
    assert state["marks"]["fatiga"] == ["leve"]
    assert set(public_state(state)) == SPEC_KEYS


def test_apply_does_not_change_the_state_it_is_given():
    state, _ = apply(None, {"kind": "suffer", "type": "heridas", "grade": "leve"})
    kept = copy.deepcopy(state)
    apply(state, {"kind": "suffer", "type": "heridas", "grade": "leve"})
    assert state == kept


def test_the_effects_trail_shows_a_whole_cascade_in_order():
    state = initial_state()
    for ev in (
        {"kind": "suffer", "type": "shock", "grade": "grave"},
        {"kind": "suffer", "type": "shock", "grade": "leve", "roll": 3},
        {"kind": "suffer", "type": "fatiga", "grade": "grave"},
    ):
        state, _ = apply(state, ev)
    # Fatiga on grave -> R8 persistente and Shock leve -> R11 (Shock full) -> Fatiga leve
    # -> R8 (Fatiga full) -> Heridas leve.
    state, effects = apply(state, {"kind": "suffer", "type": "fatiga", "grade": "persistente"})
    steps = [(e["rule"], e["change"], e.get("type"), e.get("grade")) for e in effects]
    assert steps == [
        ("base", "suffer", "fatiga", "persistente"),
        ("R8", "mark", "fatiga", "persistente"),
        ("R8", "suffer", "shock", "leve"),
        ("R11", "suffer", "fatiga", "leve"),
        ("R8", "suffer", "heridas", "leve"),
        ("base", "mark", "heridas", "leve"),
    ]
    # The same blow again now reaches Heridas grave by R2, and R5 incapacitates.
    state, effects = apply(state, {"kind": "suffer", "type": "shock", "grade": "leve"})
    assert [(e["rule"], e["change"]) for e in effects][-3:] == [
        ("R8", "suffer"),
        ("R2", "mark"),
        ("R5", "special_on"),
    ]
    assert state["specials"] == ["desprevenido", "incapacitado", "inconsciente"]
    assert "R11" in chain(effects, "es") and "R8" in chain(effects, "en")


def test_an_error_names_the_event_index_and_field_in_both_languages():
    state, _ = apply(None, {"kind": "time", "minutes": 1})
    with pytest.raises(RuleError) as info:
        apply(state, {"kind": "suffer", "type": "heridas", "grade": "mortal"})
    err = info.value
    assert (err.index, err.field, err.code) == (1, "grade", "bad_choice")
    assert "mortal" in err.message("es") and "mortal" in err.message("en")
    assert err.message("es") != err.message("en")
    assert str(err).startswith("event 1:")


def test_a_broken_stored_state_is_refused_cleanly():
    with pytest.raises(RuleError) as info:
        apply({"clock": 0}, {"kind": "turn_end"})
    assert info.value.code == "bad_state"


def test_a_state_stored_before_rules_v2_still_resumes():
    # v1 states lack the keys v2 added (faint, sleep_descanso, esfuerzo_minutes) and carry
    # one it dropped; they resume as an ordinary sleep, a Descanso-able one, no streak.
    log = [{"kind": "suffer", "type": "fatiga", "grade": "persistente"}, {"kind": "sleep"}]
    stored = initial_state()
    for event in log:
        stored, _ = apply(stored, event)
    old = copy.deepcopy(stored)
    for key in ("faint", "sleep_descanso", "esfuerzo_minutes"):
        del old["engine"][key]
    old["engine"]["esfuerzo_checks"] = 0
    follow = [{"kind": "time", "hours": 7}, {"kind": "wake", "forced": True}]
    for event in follow:
        old, _ = apply(old, event)
    assert public_state(old) == replay(log + follow)
    assert old["marks"]["fatiga"] == [] and old["marks"]["shock"] == []
    broken = copy.deepcopy(stored)
    del broken["engine"]["healed"]
    with pytest.raises(RuleError) as info:
        apply(broken, {"kind": "turn_end"})
    assert info.value.code == "bad_state"


@pytest.mark.parametrize(
    "options", [{"round_seconds": 0}, {"round_seconds": "6"}, {"especificos": "yes"}]
)
def test_bad_campaign_options_are_refused(options):
    with pytest.raises(RuleError) as info:
        replay([], options)
    assert info.value.code == "bad_option"


def test_replay_trail_gives_one_list_of_effects_per_event():
    events = [
        {"kind": "suffer", "type": "fatiga", "grade": "leve"},
        {"kind": "time", "minutes": 1, "activity": "reposo"},
    ]
    state, trail = replay_trail(events)
    assert state == replay(events)
    assert len(trail) == 2
    assert trail[1] == [{"rule": "R10", "change": "unmark", "type": "fatiga", "grade": "leve"}]


def test_dice_come_from_the_seed_when_no_roll_is_given():
    events = [
        {"kind": "suffer", "type": "shock", "grade": "grave"},
        {"kind": "suffer", "type": "shock", "grade": "leve", "seed": 12345},
    ]
    _, trail = replay_trail(events)
    minutes = [e["minutes"] for e in trail[1] if e["change"] == "duration"]
    import random

    assert minutes == [random.Random(12345).randint(1, 6)]
    with pytest.raises(RuleError) as info:
        replay(events[:1] + [{"kind": "suffer", "type": "shock", "grade": "leve"}])
    assert info.value.code == "dice_missing"


def test_states_survive_a_json_round_trip_exactly():
    state, _ = apply(None, {"kind": "sleep"})
    assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_every_error_message_reads_in_spanish_and_english(code):
    err = RuleError(
        code,
        index=2,
        field="grade",
        value="x",
        allowed="a, b",
        type="heridas",
        grade="leve",
        sides=6,
    )
    es, en = err.message("es"), err.message("en")
    assert es and en and "{" not in es + en
    assert es != en
    assert "heridas" not in es + en  # game values show as labels, not as JSON words
