"""Backup, step 2, for the DJ's PNJ: a file's Plantillas, its PNJ's own fields and its
reminders, checked as backup.check checks the rest (which reads them from here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .. import turn_order
from ..limits import powers_validate, scores_validate
from ..models import Character, Reminder, Template, max_length
from .values import BackupError, _get, _here, _object, checked_name

_TEMPLATE_NAME_MAX = min(max_length(Template, "name"), turn_order.NAME_MAX - 3)
_REMINDER_MAX = max_length(Reminder, "text")
# A PNJ's own fields, with the value a PNJ takes when its row leaves one out; a PJ has none.
PNJ_FIELDS = {
    "side": Character.Side.ENEMIGO.value,
    "template": None,
    "in_party": False,
    "revealed": False,
    "lurking": False,
    "shows": Character.Shows.PALABRAS.value,
    "turn_with": None,  # the ref of the PNJ whose turn it shares (one added as a group)
}


@dataclass(slots=True)
class _Template:
    ref: int
    name: str
    side: str
    attributes: dict
    powers: list
    notes: str


@dataclass(slots=True)
class _Reminder:
    text: str
    when: str
    ref: int | None  # the character's ref
    round: int | None
    every: bool
    spent_seq: int | None
    created_at: datetime | None


def _one_of(obj: dict, key: str, place: str, allowed: list[str]) -> str:
    """obj[key], a text that must be one of `allowed`."""
    value = _get(obj, key, place, "text")
    if value not in allowed:
        raise BackupError(
            _("%(place)s must be one of: %(allowed)s.")
            % {"place": _here(place, key), "allowed": ", ".join(allowed)}
        )
    return value


def _templates(items: list) -> list[_Template]:
    """The Plantillas (version 2), each with a ref its copies name it by."""
    templates: list[_Template] = []
    refs: set[int] = set()
    names: dict[str, str] = {}
    for i, item in enumerate(items):
        place = f"templates[{i}]"
        item = _object(item, place)
        ref = _get(item, "ref", place, "positive")
        if ref in refs:
            raise BackupError(
                _("%(place)s: another template of the file has the ref %(ref)s.")
                % {"place": f"{place}.ref", "ref": ref}
            )
        refs.add(ref)
        name = checked_name(item, "name", place, _TEMPLATE_NAME_MAX)
        if (folded := name.casefold()) in names:  # as template_save: "Oni" and "oni" clash
            raise BackupError(
                _(
                    "%(place)s: the name “%(name)s” is used by another template of the file "
                    "(%(other)s)."
                )
                % {"place": f"{place}.name", "name": name, "other": names[folded]}
            )
        names[folded] = place
        side = _one_of(item, "side", place, Character.Side.values)
        attributes = _get(item, "attributes", place, "object", default={})
        powers = _get(item, "powers", place, "list", default=[])
        try:
            attributes = scores_validate(attributes)
            powers = powers_validate(powers)
        except ValidationError as err:  # its message is already in the active language
            raise BackupError(f"{place}: {' '.join(err.messages)}") from None
        templates.append(
            _Template(
                ref=ref,
                name=name,
                side=side,
                attributes=attributes,
                powers=powers,
                notes=_get(item, "notes", place, "text", default=""),
            )
        )
    return templates


def _pnj_fields(item: dict, place: str, kind: str, templates: set[int]) -> dict:
    """A PNJ's own fields (PNJ_FIELDS, defaults for those left out); a PJ must have none,
    and a PNJ no player."""
    if kind == Character.Kind.PJ:
        if extra := sorted(set(PNJ_FIELDS) & set(item)):
            raise BackupError(
                _("%(place)s: only a PNJ has this; this character is a PJ.")
                % {"place": _here(place, extra[0])}
            )
        return {}
    if item.get("player") is not None:
        raise BackupError(_("%(place)s: a PNJ has no player.") % {"place": _here(place, "player")})
    side = (
        _one_of(item, "side", place, Character.Side.values)
        if "side" in item
        else PNJ_FIELDS["side"]
    )
    template = _get(item, "template", place, "positive", default=None, null=True)
    if template is not None and template not in templates:
        raise BackupError(
            _("%(place)s: no template of the file has the ref %(ref)s.")
            % {"place": _here(place, "template"), "ref": template}
        )
    in_party = _get(item, "in_party", place, "bool", default=False)
    if in_party and side != Character.Side.ALIADO:
        raise BackupError(
            _("%(place)s: only an ally travels with the party.")
            % {"place": _here(place, "in_party")}
        )
    shows = (
        _one_of(item, "shows", place, Character.Shows.values)
        if "shows" in item
        else PNJ_FIELDS["shows"]
    )
    return {
        "side": side,
        "template": template,
        "in_party": in_party,
        "revealed": _get(item, "revealed", place, "bool", default=False),
        "lurking": _get(item, "lurking", place, "bool", default=False),
        "shows": shows,
        "turn_with": _get(item, "turn_with", place, "positive", default=None, null=True),
    }


def _reminders(items: list, refs: set[int]) -> list[_Reminder]:
    """The DJ's notes pinned to a fight (version 2): to a character's turn, or to a round."""
    reminders: list[_Reminder] = []
    for i, item in enumerate(items):
        place = f"reminders[{i}]"
        item = _object(item, place)
        text = _get(item, "text", place, "text").strip()
        if not text or len(text) > _REMINDER_MAX:
            raise BackupError(
                _("%(place)s must be a text of 1 to %(max)s characters.")
                % {"place": f"{place}.text", "max": _REMINDER_MAX}
            )
        when = _one_of(item, "when", place, Reminder.When.values)
        ref = _get(item, "character", place, "positive", default=None, null=True)
        if ref is not None and ref not in refs:
            raise BackupError(
                _("%(place)s: no PJ of the file has the ref %(ref)s.")
                % {"place": f"{place}.character", "ref": ref}
            )
        if ref is None and when != Reminder.When.ROUND:
            raise BackupError(
                _("%(place)s: a note for a turn needs whose turn it is.")
                % {"place": f"{place}.character"}
            )
        round_ = _get(item, "round", place, "positive", default=None, null=True)
        if round_ is None and when == Reminder.When.ROUND:
            raise BackupError(
                _("%(place)s: a note for a round needs its round.") % {"place": f"{place}.round"}
            )
        reminders.append(
            _Reminder(
                text=text,
                when=when,
                ref=ref,
                round=round_,
                every=_get(item, "every", place, "bool", default=False),
                spent_seq=_get(item, "spent_seq", place, "positive", default=None, null=True),
                created_at=_get(item, "created_at", place, "when", default=None, null=True),
            )
        )
    return reminders
