"""campaign.numbers: the one way a request's whole numbers are read."""

import pytest

from campaign.numbers import whole, wholes


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
