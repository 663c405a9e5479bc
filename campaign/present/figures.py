"""Numbers as the table reads them: a game clock, a stretch of game time, a modifier, a
score's name."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rules import texts

from . import lang

DAY = 86400


def clock_parts(seconds: int) -> dict:
    """Day (from 1), hours, minutes and seconds of a game clock in seconds."""
    day, rest = divmod(int(seconds), DAY)
    return {"day": day + 1, "hh": rest // 3600, "mm": rest % 3600 // 60, "ss": rest % 60}


def gap_words(seconds: int) -> str:
    """A stretch of game time in words: "8 h", "1 día y 2 h", "25 min", "12 s"."""
    days, rest = divmod(int(seconds), DAY)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if days:
        parts.append(ngettext("%(n)s day", "%(n)s days", days) % {"n": days})
    if hours:
        parts.append(f"{hours} h")
    if minutes:
        parts.append(f"{minutes} min")
    if secs and not days and not hours:
        parts.append(f"{secs} s")
    if len(parts) > 1:
        return _("%(first)s and %(last)s") % {"first": ", ".join(parts[:-1]), "last": parts[-1]}
    return parts[0] if parts else ""


def signed(value: object) -> str:
    """+1, 0, −3 as a modifier is read at the table (with a real minus sign)."""
    if not isinstance(value, int) or value == 0:
        return "0"
    return f"+{value}" if value > 0 else f"−{-value}"


def score_words(key: str) -> str:
    """A score as this page's language abbreviates it (the log's FUE reads STR in English);
    "other" for the modifiers' catch-all, a table's own score as it was typed."""
    return _("other") if key == "otro" else texts.score_label(key, lang())


def score_name(key: str) -> str:
    """A score's whole name in this page's language (Fuerza, Strength), or its abbreviation
    when it is a table's own."""
    return texts.SCORE_NAMES.get(key, {}).get(lang(), score_words(key))
