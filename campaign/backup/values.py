"""A backup's values read one by one: each checked for its kind (a whole number, a text, a
list...) and each error naming its place in the file ("events[3].event.hours"), in the
user's language."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, overload

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# The largest whole number a seq, joined_seq or session number may be (an integer column).
INT_MAX = 2**31 - 1


class BackupError(ValueError):
    """A file that cannot be imported; the message names the place, in the active language."""

    def __init__(self, message: str, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


# The JSON parser's reasons (json.JSONDecodeError.msg), in the user's words.
_JSON_REASONS = {
    "Expecting value": gettext_lazy("a value was expected"),
    "Expecting ',' delimiter": gettext_lazy("a comma was expected"),
    "Expecting ':' delimiter": gettext_lazy("a colon was expected"),
    "Expecting property name enclosed in double quotes": gettext_lazy(
        "a name in double quotes was expected"
    ),
    "Unterminated string starting at": gettext_lazy("a text is not closed"),
    "Invalid control character at": gettext_lazy("a text holds a control character"),
    "Invalid \\escape": gettext_lazy("a text holds an invalid escape"),
    "Extra data": gettext_lazy("there is more after the end of the document"),
    "Illegal trailing comma before end of object": gettext_lazy("a comma before a closing }"),
    "Illegal trailing comma before end of array": gettext_lazy("a comma before a closing ]"),
}


class _NotJsonConstant(ValueError):
    pass


def _reject_constant(name: str) -> None:
    raise _NotJsonConstant(name)


# What a field must be, for the messages: "events[3].seq must be a whole number (0 or more)."
_EXPECTED = {
    "count": gettext_lazy("a whole number (0 or more)"),
    "positive": gettext_lazy("a whole number (1 or more)"),
    "text": gettext_lazy("a text"),
    "bool": gettext_lazy("true or false"),
    "when": gettext_lazy("a date and time with its time zone (ISO 8601)"),
    "object": gettext_lazy("a JSON object"),
    "list": gettext_lazy("a list"),
}
_REQUIRED = object()


def _expected(place: str, kind: str, null: bool = False) -> BackupError:
    what = str(_EXPECTED[kind])
    if null:
        return BackupError(_("%(place)s must be %(expected)s or null.") % _p(place, what))
    return BackupError(_("%(place)s must be %(expected)s.") % _p(place, what))


def _p(place: str, expected: str = "") -> dict:
    return {"place": place, "expected": expected}


@overload
def _check(
    value: object, kind: Literal["object"], place: str, null: Literal[False] = False
) -> dict: ...
@overload
def _check(value: object, kind: str, place: str, null: bool = False) -> object: ...
def _check(value: object, kind: str, place: str, null: bool = False) -> object:
    """`value` when it is of `kind`, else a BackupError naming `place`."""
    if value is None and null:
        return None
    ok = False
    if kind == "count":
        ok = type(value) is int and value >= 0
    elif kind == "positive":
        ok = type(value) is int and value >= 1
    elif kind == "text":
        ok = isinstance(value, str)
    elif kind == "bool":
        ok = type(value) is bool
    elif kind == "object":
        ok = isinstance(value, dict)
    elif kind == "list":
        ok = isinstance(value, list)
    elif kind == "when":
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                pass
            else:
                ok = value.tzinfo is not None
    if not ok:
        raise _expected(place, kind, null)
    if kind in ("count", "positive") and isinstance(value, int) and value > INT_MAX:
        raise BackupError(
            _("%(place)s is too large (at most %(max)s).") % {"place": place, "max": INT_MAX}
        )
    return value


# What _get answers for each kind: its JSON value, checked (a "when" parsed), or None
# where null is allowed.
_Int = Literal["count", "positive"]


@overload
def _get(
    obj: dict,
    key: str,
    place: str,
    kind: _Int,
    *,
    default: object = ...,
    null: Literal[False] = ...,
) -> int: ...
@overload
def _get(
    obj: dict, key: str, place: str, kind: _Int, *, default: object = ..., null: Literal[True]
) -> int | None: ...
@overload
def _get(
    obj: dict,
    key: str,
    place: str,
    kind: Literal["text"],
    *,
    default: object = ...,
    null: Literal[False] = ...,
) -> str: ...
@overload
def _get(
    obj: dict,
    key: str,
    place: str,
    kind: Literal["text"],
    *,
    default: object = ...,
    null: Literal[True],
) -> str | None: ...
@overload
def _get(
    obj: dict, key: str, place: str, kind: Literal["bool"], *, default: object = ...
) -> bool: ...
@overload
def _get(
    obj: dict,
    key: str,
    place: str,
    kind: Literal["when"],
    *,
    default: object = ...,
    null: Literal[False] = ...,
) -> datetime: ...
@overload
def _get(
    obj: dict,
    key: str,
    place: str,
    kind: Literal["when"],
    *,
    default: object = ...,
    null: Literal[True],
) -> datetime | None: ...
@overload
def _get(
    obj: dict, key: str, place: str, kind: Literal["object"], *, default: object = ...
) -> dict: ...
@overload
def _get(
    obj: dict, key: str, place: str, kind: Literal["list"], *, default: object = ...
) -> list: ...
def _get(
    obj: dict, key: str, place: str, kind: str, *, default: object = _REQUIRED, null: bool = False
) -> object:
    """obj[key] checked to be of `kind`; `place` is obj's own place in the file."""
    here = _here(place, key)
    if key not in obj:
        if default is _REQUIRED:
            raise BackupError(_("%(place)s is missing.") % _p(here))
        return default
    return _check(obj[key], kind, here, null)


def _here(place: str, key: str) -> str:
    return f"{place}.{key}" if place else key


def _object(value: object, place: str) -> dict:
    return _check(value, "object", place)


def checked_name(obj: dict, key: str, place: str, max_length: int) -> str:
    name = _get(obj, key, place, "text").strip()
    if not name or len(name) > max_length:
        raise BackupError(
            _("%(place)s must be a name of 1 to %(max)s characters.")
            % {"place": _here(place, key), "max": max_length}
        )
    return name
