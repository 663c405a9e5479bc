"""Numbers from a request: the one way the app reads an id, a cursor, a count or an amount."""

import re

# "10", "1.5", "1,5": digits, and a decimal part after a point or a comma. Not "1e3",
# "inf", "nan", "½" or "0x10", all of which float() would take or choke on.
_DECIMAL = re.compile(r"[0-9]{1,9}(?:[.,][0-9]{1,6})?")


def whole(value: str | None, *, digits: int = 18) -> int | None:
    """`value` (spaces around it aside) as a whole number when it is plain ASCII digits, at
    most `digits` of them; else None.

    isascii matters: "²".isdigit() is true, and int("²") raises. The length keeps a number
    inside the database's integer columns.
    """
    value = (value or "").strip()
    if not value or not value.isascii() or not value.isdigit() or len(value) > digits:
        return None
    return int(value)


def wholes(values: list[str], *, digits: int = 18) -> list[int] | None:
    """Every one of `values` as a whole number (see `whole`), or None when one is not."""
    found = []
    for value in values:
        number = whole(value, digits=digits)
        if number is None:
            return None
        found.append(number)
    return found


def decimal(value: str | None) -> float | None:
    """`value` (spaces around it aside) as a plain decimal number, written as people do
    ("10", "1,5", "0.5"), else None."""
    value = (value or "").strip()
    if not _DECIMAL.fullmatch(value):
        return None
    return float(value.replace(",", "."))
