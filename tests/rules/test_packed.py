"""The packed form a stored state is kept in (rules.packed / rules.unpacked): a pile of
unrolled checks is a letter a check, and the state comes back exactly as apply gave it."""

from __future__ import annotations

import json

from hypothesis import given

from rules import CHECK_LETTERS, CHECKS, apply, initial_state, packed, unpacked
from tests.rules.test_properties import _steps, common, logs


def _untreated(days: int) -> dict:
    state, _ = apply(None, {"kind": "attributes", "scores": {"FUE": 3, "VOL": 3}})
    state, _ = apply(state, {"kind": "suffer", "type": "heridas", "grade": "grave"})
    for _day in range(days):
        state, _ = apply(state, {"kind": "time", "hours": 16})
        state, _ = apply(state, {"kind": "descanso"})
    return state


def size(state: dict) -> int:
    return len(json.dumps(state))


def test_every_check_has_a_letter_of_its_own():
    assert CHECK_LETTERS.keys() == CHECKS.keys()
    assert len(set(CHECK_LETTERS.values())) == len(CHECKS)
    assert all(len(letter) == 1 for letter in CHECK_LETTERS.values())


def test_a_year_of_unrolled_checks_packs_into_a_letter_each():
    state = _untreated(365)

    kept = packed(state)

    assert len(state["pending"]) == 365
    assert "pending" not in kept
    assert kept["engine"]["pending"] == "i" * 365
    assert size(kept) < 2048 < 50 * 1024 < size(state)
    assert unpacked(kept) == state


def test_a_check_more_costs_a_byte():
    assert size(packed(_untreated(400))) - size(packed(_untreated(40))) < 360 + 32


def test_piles_keep_their_order_oldest_first():
    state, _ = apply(None, {"kind": "attributes", "scores": {"FUE": 3, "VOL": 3}})
    for event in (
        {"kind": "suffer", "type": "shock", "grade": "grave"},
        {"kind": "turn_end"},
        {"kind": "turn_end"},
        {"kind": "suffer", "type": "heridas", "grade": "grave"},
        {"kind": "time", "days": 1},
        {"kind": "turn_end"},
    ):
        state, _ = apply(state, event)
    names = [p["check"] for p in state["pending"]]

    letters = packed(state)["engine"]["pending"]

    assert letters == "".join(CHECK_LETTERS[name] for name in names)
    assert len(set(letters)) > 1
    assert unpacked(packed(state))["pending"] == state["pending"]


@common
@given(logs())
def test_every_state_of_a_random_log_comes_back_whole(case):
    opts, log, _refused = case
    for state in [initial_state(), *_steps(log, opts)]:
        stored = json.loads(json.dumps(packed(state)))  # as the database gives it back

        back = unpacked(stored)

        assert back == state
        assert list(back) == list(state)  # the same keys, in the same order
        assert apply(back, {"kind": "turn_end"}, opts) == apply(state, {"kind": "turn_end"}, opts)


def test_a_state_stored_before_packing_reads_as_it_is():
    state = _untreated(3)  # the public "pending" list is there: the old form

    assert unpacked(state) is state
    assert unpacked(json.loads(json.dumps(state))) == state


def test_what_is_not_a_whole_state_is_left_alone():
    odd_pile = {**initial_state(), "engine": {**initial_state()["engine"], "pending": [{"x": 1}]}}
    for value in (None, 3, "x", [], {}, {"clock": 0}, {"engine": []}, odd_pile):
        assert packed(value) == value
        assert unpacked(value) == value
    for pile in ("iz", "I", [["sin_descanso", 2]], 7, None):
        stored = {"clock": 0, "engine": {"pending": pile}}
        assert unpacked(stored) is stored
