"""campaign.numbers: the one way a request's whole numbers are read."""

import pytest

from campaign.numbers import decimal, whole, wholes


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", 12),
        (" 7 ", 7),
        ("0", 0),
        ("", None),
        (None, None),
        ("-1", None),
        ("1.5", None),
        ("²", None),
        ("１２", None),
        ("1e3", None),
        ("9" * 19, None),
        ("9" * 18, 10**18 - 1),
    ],
)
def test_a_whole_number_is_plain_ascii_digits_of_a_bounded_length(value, expected):
    assert whole(value) == expected


def test_a_list_of_whole_numbers_is_all_or_nothing():
    assert wholes(["3", "4"]) == [3, 4]
    assert wholes(["3", "x"]) is None
    assert wholes([]) == []
    assert whole("1234", digits=3) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10", 10.0),
        ("1,5", 1.5),
        (" 0.25 ", 0.25),
        ("", None),
        (None, None),
        ("1e3", None),
        ("inf", None),
        ("nan", None),
        ("-2", None),
        ("½", None),
        ("0x10", None),
        ("1.", None),
        ("1,5,0", None),
        ("１０", None),
    ],
)
def test_a_decimal_is_written_as_people_do_and_nothing_else(value, expected):
    assert decimal(value) == expected
