"""Parse the DJ's taps into events (rules/README.md §7); bad input is a ValidationError in
the user's language.

Each parser takes the POST data and returns the event to record; the rules engine then
decides whether the event is allowed (a RuleError), so these only check shape and words.
"""

import re
import secrets
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.formats import number_format
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from rules.texts import SPECIALS, score_label
from rules.vocab import (
    ACTIVITIES,
    CHECKS,
    ESPECIFICOS,
    GRADES,
    MODIFIED_SCORES,
    TIME_UNITS,
    TYPES,
    VARIANTS,
)

from .limits import TIME_MAX
from .models import Character
from .numbers import decimal

MAX_TEXT = 100


@dataclass
class Action:
    """What a form asks for: the event, and names to keep from the player (secret)."""

    event: dict
    secret_names: list[str] = field(default_factory=list)
    # A die the app rolled for a TS ("Tirar"): (die, score), shown in the toast.
    roll: tuple[int, int] | None = None


def _choice(data: QueryDict, name: str, allowed, message: str) -> str:
    value = (data.get(name) or "").strip()
    if value not in allowed:
        raise ValidationError(message)
    return value


def _flag(data: QueryDict, name: str, default: bool = False) -> bool:
    value = data.get(name)
    if value is None or value == "":
        return default
    if value in ("1", "true", "on", "yes"):
        return True
    if value in ("0", "false", "off", "no"):
        return False
    raise ValidationError(_("Unexpected value for %(field)s.") % {"field": name})


def _text(data: QueryDict, name: str) -> str:
    # No NUL: PostgreSQL refuses it in jsonb and in a text column.
    value = " ".join((data.get(name) or "").replace("\x00", "").split())
    if len(value) > MAX_TEXT:
        raise ValidationError(
            _("Keep it under %(max)s characters.") % {"max": MAX_TEXT}, code="too_long"
        )
    return value


UNIT_NAMES = {
    "rounds": gettext_lazy("rounds"),
    "minutes": gettext_lazy("minutes"),
    "hours": gettext_lazy("hours"),
    "days": gettext_lazy("days"),
}


def _amount(data: QueryDict, unit: str) -> int | float:
    raw = (data.get("amount") or "").strip()
    if re.fullmatch(r"[-−]\s*[0-9]+(?:[.,][0-9]+)?", raw):
        raise ValidationError(_("The amount of time must be more than zero."))
    if re.fullmatch(r"[0-9]{10,}(?:[.,][0-9]+)?", raw):
        raise ValidationError(
            _("That is too much time at once (at most %(max)s %(unit)s); record it in steps.")
            % {"max": number_format(TIME_MAX[unit], force_grouping=True), "unit": UNIT_NAMES[unit]}
        )
    value = decimal(raw)
    if value is None:
        raise ValidationError(_("Give the amount of time as a number, e.g. 10."))
    if value <= 0:
        raise ValidationError(_("The amount of time must be more than zero."))
    if value > TIME_MAX[unit]:
        raise ValidationError(
            _("That is too much time at once (at most %(max)s %(unit)s); record it in steps.")
            % {"max": number_format(TIME_MAX[unit], force_grouping=True), "unit": UNIT_NAMES[unit]}
        )
    if unit == "rounds":
        if value != int(value):
            raise ValidationError(_("Rounds are counted in whole numbers."))
        return int(value)
    return int(value) if value == int(value) else value


def time_event(data: QueryDict) -> dict:
    """A `time` event from amount, unit, activity and calm."""
    unit = _choice(data, "unit", TIME_UNITS, _("Choose rounds, minutes, hours or days."))
    event = {"kind": "time", unit: _amount(data, unit)}
    activity = (data.get("activity") or "activo").strip()
    if activity not in ACTIVITIES:
        raise ValidationError(_("Choose an activity: activo, reposo or esfuerzo."))
    if activity != "activo":
        event["activity"] = activity
    if _flag(data, "calm"):
        event["calm"] = True
    return event


def _type_grade(data: QueryDict) -> tuple[str, str]:
    """The type and grade of a tap: `type` and `grade`, or one `type_grade` "heridas:leve"."""
    type_grade = data.get("type_grade")
    if type_grade:
        data = data.copy()
        data["type"], _sep, data["grade"] = type_grade.partition(":")
    t = _choice(data, "type", TYPES, _("Choose one of the five E.Alt types."))
    g = _choice(data, "grade", GRADES, _("Choose leve, grave or persistente."))
    return t, g


def suffer_event(data: QueryDict, *, especificos: bool) -> Action:
    t, g = _type_grade(data)
    event: dict = {"kind": "suffer", "type": t, "grade": g}
    secret_names = []
    if t == "emocion":
        variant = (data.get("variant") or "").strip()
        if variant:
            if variant not in VARIANTS[g]:
                raise ValidationError(
                    _("That emotion does not fit the grade: choose %(allowed)s.")
                    % {"allowed": ", ".join(VARIANTS[g])}
                )
            event["variant"] = variant
        cause = _text(data, "cause")
        if cause:
            event["cause"] = cause
    if t == "afeccion":
        source = _text(data, "source") or _text(data, "new_source")
        if source:
            event["source"] = source.lower()
            if _flag(data, "secret"):
                secret_names.append(event["source"])
    especifico = (data.get("especifico") or "").strip()
    if especifico:
        if not especificos:
            raise ValidationError(_("This campaign does not use specific E.Esp."))
        if especifico not in ESPECIFICOS.get(t, ()):
            raise ValidationError(_("That specific E.Esp does not fit this type."))
        event["especifico"] = especifico
        if _flag(data, "secret"):
            secret_names.append(especifico)
    return Action(event, secret_names)


def treatment_event(data: QueryDict, *, kind: str, character: Character, healers) -> dict:
    """`heal` or `surgery`: who treats (another PJ, or the PJ itself) and whether it worked."""
    healer = (data.get("healer") or "").strip()
    success = _flag(data, "success", default=True)
    event: dict = {"kind": kind, "success": success}
    if healer == "self":
        event["by_self"] = True
        event["healer"] = character.name
    elif healer:
        match = next((h for h in healers if str(h.pk) == healer), None)
        if match is None or match.pk == character.pk:
            raise ValidationError(_("Choose who treats the wounds."))
        event["healer"] = match.name
    return event


def check_name(data: QueryDict) -> str:
    return _choice(data, "check", CHECKS, _("Unknown check."))


def roll_save(*, check: str, character: Character) -> Action:
    """The app rolls 1d6 against the PJ's score: success when the die is at most the score."""
    attribute = CHECKS[check][0]
    score = (character.attributes or {}).get(attribute)
    if not isinstance(score, int):
        raise ValidationError(
            _(
                "%(name)s has no %(attribute)s score: add it to their sheet (Edit), "
                "or mark success or failure."
            )
            % {"name": character.name, "attribute": score_label(attribute, get_language() or "es")}
        )
    die = secrets.randbelow(6) + 1
    event = {"kind": "save", "check": check, "success": die <= score, "ts_roll": die}
    return Action(event, roll=(die, score))


def sleep_event(data: QueryDict) -> dict:
    event: dict = {"kind": "sleep"}
    hours = (data.get("hours") or "").strip()
    if hours:
        value = decimal(hours)
        if value is None:
            raise ValidationError(_("Give the hours of sleep as a number, e.g. 8."))
        if not 0 < value <= 72:
            raise ValidationError(_("Hours of sleep must be more than 0 and at most 72."))
        event["hours"] = int(value) if value == int(value) else value
    if not _flag(data, "descanso", default=True):
        event["descanso"] = False
    return event


def recover_event(data: QueryDict) -> dict:
    t, g = _type_grade(data)
    return {"kind": "recover", "type": t, "grade": g}


# An E.Esp typed as the cards name it, in either language, is the one events name by key.
SPECIAL_BY_LABEL = {
    entry[lang]["label"].lower(): key for key, entry in SPECIALS.items() for lang in entry
}


def special_event(data: QueryDict) -> Action:
    name = _text(data, "name").lower()
    if not name:
        raise ValidationError(_("Name the E.Esp."))
    name = SPECIAL_BY_LABEL.get(name, name)  # "bloqueo empático" is bloqueo_empatico
    on = _flag(data, "on", default=True)
    secret = on and _flag(data, "secret")
    return Action({"kind": "special", "name": name, "on": on}, [name] if secret else [])


VOID_REASON_MAX = 500


def void_reason(data: QueryDict) -> str:
    """Why an event is voided, its spaces tidied: required, and at most VOID_REASON_MAX."""
    reason = " ".join((data.get("reason") or "").replace("\x00", "").split())
    if not reason:
        raise ValidationError(_("Say why the event is voided."))
    if len(reason) > VOID_REASON_MAX:
        raise ValidationError(
            _("Say why in at most %(max)s characters (this has %(n)s).")
            % {"max": VOID_REASON_MAX, "n": len(reason)}
        )
    return reason


# -- the modifier calculator ------------------------------------------------------------

CALCULATOR_ATTRIBUTES = (*MODIFIED_SCORES, "INT", "OTRO")
INTENTS = ("normal", "flee", "fight")


@dataclass
class CalculatorQuery:
    """One action the DJ asks the calculator about."""

    character: Character
    attribute: str
    intent: str  # normal, flee or fight
    situational: int
    # Whether the action flees from or fights the cause of the PJ's Emoción grave (terror,
    # ira): only then does it take that Emoción's Facilidad (R16). No answer is "no".
    against_cause: bool = False


def calculator_query(data: QueryDict, characters: list[Character]) -> CalculatorQuery | None:
    """The calculator's fields: pj (a PJ's pk, among `characters`), attribute, intent,
    situational (a whole number from -10 to 10, "+2" and "−1" read too) and against (1: the
    action is against, or flees from, the cause of its Emoción grave). None when no PJ is
    chosen yet."""
    pk = (data.get("pj") or "").strip()
    if not pk:
        return None
    character = next((c for c in characters if str(c.pk) == pk), None)
    if character is None:
        raise ValidationError(_("Choose a PJ of this campaign."))
    attribute = (data.get("attribute") or "FUE").strip().upper()
    if attribute not in CALCULATOR_ATTRIBUTES:
        raise ValidationError(_("Choose an attribute."))
    intent = (data.get("intent") or "normal").strip()
    if intent not in INTENTS:
        raise ValidationError(_("Choose normal, flee or fight."))
    raw = (data.get("situational") or "0").strip().replace("+", "").replace("−", "-")
    try:
        situational = int(raw or "0")
    except ValueError:
        raise ValidationError(
            _("The situational modifier is a whole number, e.g. -1 or 2.")
        ) from None
    if not -10 <= situational <= 10:
        raise ValidationError(_("The situational modifier must be between -10 and 10."))
    try:
        against = _flag(data, "against")
    except ValidationError:
        raise ValidationError(_("Answer yes or no: against the cause?")) from None
    return CalculatorQuery(character, attribute, intent, situational, against)


# -- a party Descanso's watches, hour by hour ----------------------------------------------

DESCANSO_MINUTES = 8 * 60  # the party Descanso's span: 8 hours
WATCH_ROWS_MAX = 6  # the lines of the watches form (a night is seldom cut in more)


@dataclass
class WatchRow:
    """A line of the watches form as typed (who, from and to, in hours into the Descanso),
    with what is wrong with it."""

    index: int
    pj: str = ""
    start: str = ""
    end: str = ""
    error: str = ""

    @property
    def blank(self) -> bool:
        return not (self.pj or self.start or self.end)


@dataclass(frozen=True)
class Watch:
    """One PJ's watch: from `start` to `end`, in minutes into the Descanso."""

    character: Character
    start: int
    end: int


def hours_text(minutes: int) -> str:
    """Minutes into a night as hours the table reads: 120 is "2", 150 is "2,5"."""
    hours = round(minutes / 60, 2)
    return number_format(int(hours) if hours == int(hours) else hours)


def watch_rows(data: QueryDict, count: int) -> list[WatchRow]:
    """The first `count` lines of the watches form, as typed (each field cut to 20 chars)."""

    def field(i: int, part: str) -> str:
        return (data.get(f"watch-{i}-{part}") or "").replace("\x00", "").strip()[:20]

    return [WatchRow(i, field(i, "pj"), field(i, "start"), field(i, "end")) for i in range(count)]


def watches_read(
    rows: list[WatchRow], characters: list[Character], *, whole: set[int]
) -> list[Watch]:
    """The watches `rows` say, each checked: a PJ of `characters` not already on watch all
    along (`whole`) nor on another line, hours within the Descanso's 8 with the end after
    the start, no two watches at the same time. A bad line gets its `error`; the watches
    are only worth anything when no line has one."""
    found: list[tuple[WatchRow, Watch]] = []
    span = hours_text(DESCANSO_MINUTES)
    for row in rows:
        if row.blank:
            continue
        who = next((c for c in characters if str(c.pk) == row.pj), None)
        start, end = decimal(row.start), decimal(row.end)
        if not row.pj:
            row.error = _("Choose who keeps this watch.")
        elif who is None:
            row.error = _("Unknown PJ.")
        elif not row.start or not row.end:
            row.error = _("Give the hours of the watch: from and to, e.g. 0 and 2.")
        elif start is None or end is None:
            row.error = _("Give the hours as numbers, e.g. 0 and 2.")
        elif end * 60 > DESCANSO_MINUTES:
            row.error = _("The Descanso lasts %(span)s h: a watch goes from 0 to %(span)s.") % {
                "span": span
            }
        elif round(end * 60) <= round(start * 60):
            row.error = _("A watch ends after it starts.")
        elif who.pk in whole:
            row.error = _("%(name)s keeps watch all along already (ticked above).") % {
                "name": who.name
            }
        elif twice := next((w for _r, w in found if w.character.pk == who.pk), None):
            row.error = _("%(name)s keeps another watch already (%(start)s–%(end)s h).") % {
                "name": who.name,
                "start": hours_text(twice.start),
                "end": hours_text(twice.end),
            }
        else:
            watch = Watch(who, round(start * 60), round(end * 60))
            other = next(
                (w for _r, w in found if w.start < watch.end and watch.start < w.end), None
            )
            if other is not None:
                row.error = _(
                    "At the same time as the watch of %(name)s (%(start)s–%(end)s h): "
                    "one watch at a time."
                ) % {
                    "name": other.character.name,
                    "start": hours_text(other.start),
                    "end": hours_text(other.end),
                }
            else:
                found.append((row, watch))
    return [watch for _row, watch in found]
