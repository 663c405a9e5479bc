"""The board's presenter (campaign.present.board): how its narrow places name a turn."""

from campaign.present.board import short_name
from campaign.turn_order import Slot, slot_name

NAMES = {1: "Bandido 1", 2: "Bandido 2", 3: "Bandido 3", 4: "Bandido 5", 5: "Aiko", 6: "Lobo 1"}


def test_a_run_of_three_copies_or_more_reads_as_a_range():
    assert short_name(Slot(pj=1, also=(2, 3)), NAMES) == "Bandido 1–3"


def test_copies_not_in_a_run_and_a_pair_are_listed_by_number():
    assert short_name(Slot(pj=1, also=(3, 4)), NAMES) == "Bandido 1, 3, 5"
    assert short_name(Slot(pj=1, also=(2,)), NAMES) == "Bandido 1, 2"


def test_anything_else_reads_as_the_order_reads_it():
    mixed = Slot(pj=1, also=(6,))  # two names: each whole
    for slot in (mixed, Slot(pj=5), Slot(name="Emboscada"), Slot(pj=5, also=(1,))):
        assert short_name(slot, NAMES) == slot_name(slot, NAMES)
