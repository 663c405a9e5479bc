"""Backup, step 2: a file checked whole before anything is written (its log is then folded
with the rules: backup.fold). What a valid file holds (its format and limits) is here."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

import rules
from rules.vocab import TIME_UNITS

from .. import turn_order
from ..limits import ROUND_SECONDS_MAX, TIME_MAX, powers_validate, scores_validate
from ..models import (
    Campaign,
    CatalogueEntry,
    Character,
    GameSession,
    Membership,
    max_length,
)
from .check_pnj import (
    _one_of,
    _pnj_fields,
    _Reminder,
    _reminders,
    _Template,
    _templates,
)
from .values import (
    _JSON_REASONS,
    BackupError,
    _expected,
    _get,
    _NotJsonConstant,
    _object,
    _p,
    _reject_constant,
    checked_name,
)

FORMAT = "zodiac-campaign"
# Version 2 added the PNJ (a character's kind and reveal settings), Plantillas and
# reminders; a version 1 file reads as one with PJ only, no Plantillas, no reminders.
VERSION = 2
READS = (1, 2)
# The largest file the import page takes (the command reads any size).
MAX_BYTES = 50 * 1024 * 1024
# Events read per database round trip by the export; rows written per bulk insert.
EXPORT_CHUNK = 2000
IMPORT_BATCH = 1000

NAME_MAX = max_length(Campaign, "name")
_PJ_NAME_MAX = max_length(Character, "name")
_TITLE_MAX = max_length(GameSession, "title")
_ENTRY_NAME_MAX = max_length(CatalogueEntry, "name")
# As services.pnj.template_save: a copy's name and number fit a fight's order line.
ENTRY_TEXTS = ("effect", "effect_leve", "effect_grave", "effect_persistente")


@dataclass(slots=True)
class _Character:
    ref: int
    name: str
    player: str | None
    attributes: dict
    powers: list
    notes: str
    joined_seq: int
    archived_at: datetime | None
    secret_names: list
    kind: str = Character.Kind.PJ.value
    # A PNJ's fields (PNJ_FIELDS; "template" is a Plantilla's ref); a PJ's: empty.
    pnj: dict = field(default_factory=dict)


@dataclass(slots=True)
class _Session:
    number: int
    title: str
    started_at: datetime
    ended_at: datetime | None
    recap: str
    sheet_summary: dict  # ref (as text) -> what session_end kept
    dj_note: str = ""  # the DJ's own note (a file made before it had none)


@dataclass(slots=True)
class _Event:
    place: str
    seq: int
    ref: int | None
    session: int | None
    created_at: datetime
    actor: str | None
    event: dict
    void_at: datetime | None
    void_by: str | None
    void_reason: str
    secret: bool
    party: tuple[int, ...] | None = None  # a campaign-wide event's PJ; None: every one joined


@dataclass
class Backup:
    name: str
    options: dict
    players_see_party: bool
    created_at: datetime
    catalogue: list[dict]
    memberships: list[tuple[str, str]]
    characters: list[_Character]
    sessions: list[_Session]
    events: list[_Event]
    templates: list[_Template] = field(default_factory=list)
    reminders: list[_Reminder] = field(default_factory=list)


def backup_parse(data: bytes | str) -> dict:
    """The file's JSON document; BackupError, with the line and column, when it is not JSON."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise BackupError(
                _("The file is not UTF-8 text (byte %(position)s).") % {"position": err.start}
            ) from None
    try:
        document = json.loads(data, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        raise BackupError(
            _("The file is not valid JSON: %(reason)s at line %(line)s, column %(column)s.")
            % {
                "reason": _JSON_REASONS.get(err.msg, err.msg),
                "line": err.lineno,
                "column": err.colno,
            }
        ) from None
    except _NotJsonConstant as err:
        raise BackupError(
            _("The file is not valid JSON: it holds %(value)s, which JSON does not allow.")
            % {"value": err}
        ) from None
    except RecursionError:
        raise BackupError(_("The file is not valid JSON: it is nested too deeply.")) from None
    return document


def backup_check(document: object) -> Backup:
    """The file's content, checked field by field; BackupError naming the first bad place."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(
            _("This is not a Zodiac campaign backup: its “format” is not “%(format)s”.")
            % {"format": FORMAT}
        )
    version = _get(document, "version", "", "positive")
    if version not in READS:
        raise BackupError(
            _("This backup is version %(version)s; this server reads versions 1 to %(latest)s.")
            % {"version": version, "latest": VERSION}
        )
    head = _object(_get(document, "campaign", "", "object"), "campaign")
    options = _get(head, "options", "campaign", "object")
    backup = Backup(
        name=checked_name(head, "name", "campaign", NAME_MAX),
        options={
            "especificos": _get(options, "especificos", "campaign.options", "bool"),
            "esfuerzo_prolongado": _get(options, "esfuerzo_prolongado", "campaign.options", "bool"),
            "round_seconds": _get(options, "round_seconds", "campaign.options", "positive"),
        },
        players_see_party=_get(head, "players_see_party", "campaign", "bool", default=False),
        created_at=_get(head, "created_at", "campaign", "when"),
        catalogue=_catalogue(_get(document, "catalogue", "", "list")),
        memberships=_memberships(_get(document, "memberships", "", "list")),
        templates=_templates(_get(document, "templates", "", "list", default=[])),
        characters=[],
        sessions=[],
        events=[],
    )
    backup.characters = _characters(
        _get(document, "characters", "", "list"), {t.ref for t in backup.templates}
    )
    if backup.options["round_seconds"] > ROUND_SECONDS_MAX:
        raise BackupError(
            _("%(place)s must be a whole number from 1 to %(max)s.")
            % {"place": "campaign.options.round_seconds", "max": ROUND_SECONDS_MAX}
        )
    refs = {c.ref for c in backup.characters}
    backup.sessions = _sessions(_get(document, "sessions", "", "list"), refs)
    numbers = {s.number for s in backup.sessions}
    pnj = {c.ref for c in backup.characters if c.kind == Character.Kind.PNJ}
    backup.events = _events(_get(document, "events", "", "list"), refs, numbers, pnj)
    backup.reminders = _reminders(_get(document, "reminders", "", "list", default=[]), refs)
    return backup


def _catalogue(items: list) -> list[dict]:
    entries, seen = [], set()
    kinds = CatalogueEntry.Kind.values
    for i, item in enumerate(items):
        place = f"catalogue[{i}]"
        item = _object(item, place)
        name = checked_name(item, "name", place, _ENTRY_NAME_MAX)
        if name in seen:
            raise BackupError(
                _("%(place)s: “%(name)s” is in the catalogue twice.")
                % {"place": f"{place}.name", "name": name}
            )
        seen.add(name)
        kind = _one_of(item, "kind", place, kinds)
        texts = {t: _get(item, t, place, "text", default="") for t in ENTRY_TEXTS}
        entries.append({"name": name, "kind": kind, **texts})
    return entries


def _memberships(items: list) -> list[tuple[str, str]]:
    members, seen = [], set()
    roles = Membership.Role.values
    for i, item in enumerate(items):
        place = f"memberships[{i}]"
        item = _object(item, place)
        username = _get(item, "username", place, "text")
        if username in seen:
            raise BackupError(
                _("%(place)s: “%(username)s” is listed twice.")
                % {"place": f"{place}.username", "username": username}
            )
        seen.add(username)
        role = _one_of(item, "role", place, roles)
        members.append((username, role))
    return members


def _characters(items: list, templates: set[int]) -> list[_Character]:
    characters: list[_Character] = []
    refs: set[int] = set()
    names: dict[str, str] = {}
    for i, item in enumerate(items):
        place = f"characters[{i}]"
        item = _object(item, place)
        ref = _get(item, "ref", place, "positive")
        if ref in refs:
            raise BackupError(
                _("%(place)s: another PJ of the file has the ref %(ref)s.")
                % {"place": f"{place}.ref", "ref": ref}
            )
        refs.add(ref)
        name = checked_name(item, "name", place, _PJ_NAME_MAX)
        if name in names:
            raise BackupError(
                _("%(place)s: the name “%(name)s” is used by another PJ of the file (%(other)s).")
                % {"place": f"{place}.name", "name": name, "other": names[name]}
            )
        names[name] = place
        # A file of version 1 has PJ only: no kind.
        kind = (
            _one_of(item, "kind", place, Character.Kind.values)
            if "kind" in item
            else Character.Kind.PJ.value
        )
        pnj = _pnj_fields(item, place, kind, templates)
        attributes = _get(item, "attributes", place, "object", default={})
        powers = _get(item, "powers", place, "list", default=[])
        secret_names = _get(item, "secret_names", place, "list", default=[])
        if not all(isinstance(s, str) for s in secret_names):
            raise BackupError(_("%(place)s must be a list of texts.") % _p(f"{place}.secret_names"))
        try:
            attributes = scores_validate(attributes)
            powers = powers_validate(powers)
        except ValidationError as err:  # its message is already in the active language
            raise BackupError(f"{place}: {' '.join(err.messages)}") from None
        characters.append(
            _Character(
                ref=ref,
                name=name,
                player=_get(item, "player", place, "text", default=None, null=True),
                attributes=attributes,
                powers=powers,
                notes=_get(item, "notes", place, "text", default=""),
                joined_seq=_get(item, "joined_seq", place, "count"),
                archived_at=_get(item, "archived_at", place, "when", default=None, null=True),
                secret_names=secret_names,
                kind=kind,
                pnj=pnj,
            )
        )
    # A PNJ added with its group shares the turn of one of them: a PNJ of the file.
    pnj_refs = {c.ref for c in characters if c.kind == Character.Kind.PNJ}
    for i, c in enumerate(characters):
        if (lead := c.pnj.get("turn_with")) is not None and lead not in pnj_refs:
            raise BackupError(
                _("%(place)s: no PNJ of the file has the ref %(ref)s.")
                % {"place": f"characters[{i}].turn_with", "ref": lead}
            )
    return characters


def _sessions(items: list, refs: set[int]) -> list[_Session]:
    sessions: list[_Session] = []
    numbers: set[int] = set()
    open_place = None
    for i, item in enumerate(items):
        place = f"sessions[{i}]"
        item = _object(item, place)
        number = _get(item, "number", place, "positive")
        if number in numbers:
            raise BackupError(
                _("%(place)s: another session of the file has the number %(number)s.")
                % {"place": f"{place}.number", "number": number}
            )
        numbers.add(number)
        title = _get(item, "title", place, "text", default="")
        if len(title) > _TITLE_MAX:
            raise BackupError(
                _("%(place)s is longer than %(max)s characters.")
                % {"place": f"{place}.title", "max": _TITLE_MAX}
            )
        ended_at = _get(item, "ended_at", place, "when", default=None, null=True)
        if ended_at is None:
            if open_place is not None:
                raise BackupError(
                    _("%(place)s: only one session can be open (without ended_at); %(other)s is.")
                    % {"place": f"{place}.ended_at", "other": open_place}
                )
            open_place = place
        summary = _get(item, "sheet_summary", place, "object", default={})
        for key, sheet in summary.items():
            if not (key.isascii() and key.isdigit() and int(key) in refs):
                raise BackupError(
                    _("%(place)s: no PJ of the file has the ref %(ref)s.")
                    % {"place": f"{place}.sheet_summary", "ref": key}
                )
            if not _sheet_readable(sheet):
                raise BackupError(
                    _("%(place)s is not an end-of-session sheet this app can read.")
                    % {"place": f"{place}.sheet_summary.{key}"}
                )
        sessions.append(
            _Session(
                number=number,
                title=title,
                started_at=_get(item, "started_at", place, "when"),
                ended_at=ended_at,
                recap=_get(item, "recap", place, "text", default=""),
                sheet_summary=summary,
                dj_note=_get(item, "dj_note", place, "text", default=""),
            )
        )
    return sessions


def _sheet_readable(sheet: object) -> bool:
    """Whether the end-of-session sheets page can show this summary (session_end's shape):
    a state of the engine's public shape."""
    return isinstance(sheet, dict) and rules.is_public_state(sheet.get("state"))


def _time_bounded(event: dict, place: str) -> None:
    """As on the board (limits.TIME_MAX): the engine walks every day of a time event, so a
    hand-made 10^30 rounds would hold the import for ever."""
    for unit in TIME_UNITS:
        amount = event.get(unit)
        # A JSON number (not true or false) beyond the board's own limit.
        if (
            isinstance(amount, int | float)
            and not isinstance(amount, bool)
            and amount > TIME_MAX[unit]
        ):
            raise BackupError(
                _("%(place)s is too large (at most %(max)s).")
                % {"place": f"{place}.event.{unit}", "max": TIME_MAX[unit]}
            )


def _fight_refs(event: dict, place: str, refs: set[int], pnj: set[int]) -> None:
    """What turn_order.check leaves to the log's writer: the one taken out of the fight is a
    character of the file, and a fight's end archived PNJ of the file (its enemies)."""
    out = event.get("out")
    if isinstance(out, dict) and out["pj"] not in refs:
        raise BackupError(
            _("%(place)s: no PJ of the file has the ref %(ref)s.")
            % {"place": f"{place}.event.out.pj", "ref": out["pj"]}
        )
    for pk in event.get("archived", []):
        if pk not in pnj:
            raise BackupError(
                _("%(place)s: no PNJ of the file has the ref %(ref)s.")
                % {"place": f"{place}.event.archived", "ref": pk}
            )


def _events(items: list, refs: set[int], numbers: set[int], pnj: set[int]) -> list[_Event]:
    events: list[_Event] = []
    kinds = frozenset(rules.EVENT_KINDS)
    previous = 0
    for i, item in enumerate(items):
        place = f"events[{i}]"
        if not isinstance(item, dict):
            raise _expected(place, "object")
        seq = _get(item, "seq", place, "positive")
        if seq <= previous:
            raise BackupError(
                _(
                    "%(place)s is %(seq)s, not more than the previous event's %(previous)s: "
                    "seq must be strictly increasing."
                )
                % {"place": f"{place}.seq", "seq": seq, "previous": previous}
            )
        previous = seq
        ref = _get(item, "character", place, "positive", null=True)
        if ref is not None and ref not in refs:
            raise BackupError(
                _("%(place)s: no PJ of the file has the ref %(ref)s.")
                % {"place": f"{place}.character", "ref": ref}
            )
        session = _get(item, "session", place, "positive", default=None, null=True)
        if session is not None and session not in numbers:
            raise BackupError(
                _("%(place)s: the file has no session number %(number)s.")
                % {"place": f"{place}.session", "number": session}
            )
        party = item.get("party") if ref is None else None  # a PJ's own event has no party
        if party is not None:
            if not isinstance(party, list) or any(
                type(r) is not int or r not in refs for r in party
            ):
                raise BackupError(
                    _("%(place)s must list refs of the file's PJ.") % _p(f"{place}.party")
                )
            party = tuple(sorted(set(party)))
        event = _get(item, "event", place, "object")
        kind = event.get("kind")
        if kind is None:
            raise BackupError(_("%(place)s is missing.") % _p(f"{place}.event.kind"))
        if kind == turn_order.KIND:
            # The turn order: campaign-wide, reaching no PJ, naming PJ by their refs.
            try:
                if ref is not None or party:
                    raise ValidationError("")
                turn_order.check(event, in_play=refs)
            except ValidationError:
                raise BackupError(
                    _("%(place)s is not a fight's turn order this app reads.")
                    % _p(f"{place}.event")
                ) from None
            _fight_refs(event, place, refs, pnj)
            party = ()
        elif not isinstance(kind, str) or kind not in kinds:
            raise BackupError(
                _("%(place)s: unknown event kind “%(kind)s”.")
                % {"place": f"{place}.event.kind", "kind": kind}
            )
        if kind == "time":
            _time_bounded(event, place)
        events.append(
            _Event(
                place=place,
                seq=seq,
                ref=ref,
                session=session,
                created_at=_get(item, "created_at", place, "when"),
                actor=_get(item, "actor", place, "text", default=None, null=True),
                event=event,
                void_at=_get(item, "void_at", place, "when", default=None, null=True),
                void_by=_get(item, "void_by", place, "text", default=None, null=True),
                void_reason=_get(item, "void_reason", place, "text", default=""),
                secret=_get(item, "secret", place, "bool", default=False),
                party=party,
            )
        )
    return events
