"""What a campaign's fields and events may hold, checked alike where they come in: the
services (a form, a tap) and a backup's check (an imported file)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

ROUND_SECONDS_MAX = 600  # ten minutes; the messages say 600
RECAP_MAX = 20_000  # characters of a session's recap

# The most of each unit one time event may pass (a tap, an imported backup). The engine
# walks every day of it (a day without Descanso asks a TS, Heridas grave one too): a year
# takes it some 15 ms, ten thousand days ten seconds and a 3 MB state. Longer stretches
# are recorded in steps.
TIME_MAX = {"rounds": 10_000, "minutes": 10_000, "hours": 366 * 24, "days": 366}


def scores_validate(attributes: object) -> dict[str, int]:
    """Attribute scores as the log stores them, e.g. {"FUE": 4}; ValidationError if not."""
    if not isinstance(attributes, dict) or not all(
        isinstance(k, str) and k and type(v) is int and v >= 0 for k, v in attributes.items()
    ):
        raise ValidationError(
            _("Attribute scores must map abbreviations to whole numbers, e.g. FUE: 4."),
            code="invalid_attributes",
        )
    return {k.strip().upper(): v for k, v in attributes.items()}


def powers_validate(powers: object) -> list[str]:
    """A sorted list of power names without blanks or repeats; ValidationError if not."""
    if not isinstance(powers, list) or not all(isinstance(p, str) for p in powers):
        raise ValidationError(_("Powers must be a list of names."), code="invalid_powers")
    return sorted({p.strip() for p in powers if p.strip()})
