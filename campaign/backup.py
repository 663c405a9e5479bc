"""Campaign backups: a campaign as one versioned JSON file, and that file as a new campaign.

The format ("zodiac-campaign", version 1) is described in README.md, "Backup and restore".
It holds what cannot be derived: the campaign and its options, catalogue, memberships, PJ,
game sessions and the whole log (voided and secret events included, each event as stored,
with its dice seed). The projections (snapshots, per-event states, effects trails), the
change cursor, invitations and idempotency keys are left out: the import rebuilds the first
from the log and the others are transient.

The export streams: events are read in chunks and written one line each, so memory does not
grow with the log. The import checks the whole file first (nothing is written for a bad
one), folds the log with the rules in memory (the stored states are never trusted: an event
the rules refuse stops the import), then writes everything in bulk, in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import Min
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import rules
from rules.vocab import TIME_UNITS

from . import cards
from .forms import TIME_MAX
from .models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    StateEvent,
)
from .services.campaigns import ROUND_SECONDS_MAX, campaign_create
from .services.characters import powers_validate, scores_validate

FORMAT = "zodiac-campaign"
VERSION = 1
# The largest file the import page takes (the command reads any size).
MAX_BYTES = 50 * 1024 * 1024
# Events read per database round trip by the export; rows written per bulk insert.
EXPORT_CHUNK = 2000
IMPORT_BATCH = 1000

# The largest whole number a seq, joined_seq or session number may be (an integer column).
_INT_MAX = 2**31 - 1
_NAME_MAX = Campaign._meta.get_field("name").max_length
_PJ_NAME_MAX = Character._meta.get_field("name").max_length
_TITLE_MAX = GameSession._meta.get_field("title").max_length
_ENTRY_NAME_MAX = CatalogueEntry._meta.get_field("name").max_length
_ENTRY_TEXTS = ("effect", "effect_leve", "effect_grave", "effect_persistente")


# -- export ---------------------------------------------------------------------------------


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _username(user: AbstractBaseUser | None) -> str | None:
    return user.get_username() if user is not None else None


def export_filename(campaign: Campaign) -> str:
    """zodiac-<slug>-<local date>.json"""
    return f"zodiac-{campaign.slug}-{timezone.localdate().isoformat()}.json"


def export_chunks(campaign: Campaign) -> Iterator[str]:
    """The campaign's backup as JSON text, in pieces: one line per item, one per event.

    Events are read `EXPORT_CHUNK` at a time and written as they come, so the memory used
    does not depend on the length of the log. The log is cut at the campaign's last seq as
    the export starts: what is recorded meanwhile (the table may be playing) is left for the
    next backup, and so is a PJ created meanwhile (its first event is after the cut).
    """
    cut = Campaign.objects.filter(pk=campaign.pk).values_list("last_seq", flat=True).get()
    first_seq = dict(
        StateEvent.objects.filter(campaign=campaign, character__isnull=False)
        .values("character")
        .annotate(first=Min("seq"))
        .values_list("character", "first")
    )
    characters = [
        c
        for c in campaign.characters.select_related("player").order_by("pk")
        if first_seq.get(c.pk, 0) <= cut
    ]
    refs = {c.pk: n for n, c in enumerate(characters, start=1)}
    yield f'{{\n"format": {_dumps(FORMAT)},\n"version": {VERSION},\n'
    yield f'"exported_at": {_dumps(_when(timezone.now()))},\n'
    head = {
        "name": campaign.name,
        "slug": campaign.slug,
        "options": campaign.rule_options(),
        "players_see_party": campaign.players_see_party,
        "created_at": _when(campaign.created_at),
    }
    yield f'"campaign": {_dumps(head)},\n'
    catalogue = [
        {"name": e.name, "kind": e.kind, **{t: getattr(e, t) for t in _ENTRY_TEXTS}}
        for e in campaign.catalogue.order_by("kind", "name")
    ]
    yield _list("catalogue", catalogue)
    memberships = [
        {"username": _username(m.user), "role": m.role}
        for m in campaign.memberships.select_related("user").order_by("role", "user__pk")
    ]
    yield _list("memberships", memberships)
    yield _list(
        "characters",
        [
            {
                "ref": refs[c.pk],
                "name": c.name,
                "player": _username(c.player),
                "attributes": c.attributes,
                "powers": c.powers,
                "notes": c.notes,
                "joined_seq": c.joined_seq,
                "archived_at": _when(c.archived_at),
                "secret_names": c.secret_names,
            }
            for c in characters
        ],
    )
    yield _list(
        "sessions",
        [
            {
                "number": s.number,
                "title": s.title,
                "started_at": _when(s.started_at),
                "ended_at": _when(s.ended_at),
                "recap": s.recap,
                "sheet_summary": {
                    str(refs[int(pk)]): sheet
                    for pk, sheet in (s.sheet_summary or {}).items()
                    if pk.isdigit() and int(pk) in refs
                },
            }
            for s in campaign.sessions.order_by("number")
        ],
    )
    username = get_user_model().USERNAME_FIELD
    rows = (
        StateEvent.objects.filter(campaign=campaign, seq__lte=cut)
        .order_by("seq")
        .values_list(
            "seq",
            "character_id",
            "session__number",
            "created_at",
            f"actor__{username}",
            "event",
            "void_at",
            f"void_by__{username}",
            "void_reason",
            "secret",
        )
    )
    yield '"events": ['
    separator = "\n"
    for (
        seq,
        pk,
        session,
        created_at,
        actor,
        event,
        void_at,
        void_by,
        reason,
        secret,
    ) in rows.iterator(chunk_size=EXPORT_CHUNK):
        item = {
            "seq": seq,
            "character": refs[pk] if pk is not None else None,
            "session": session,
            "created_at": _when(created_at),
            "actor": actor,
            "event": event,
            "void_at": _when(void_at),
            "void_by": void_by,
            "void_reason": reason,
            "secret": secret,
        }
        yield separator + _dumps(item)
        separator = ",\n"
    yield "\n]\n}\n"


def _list(key: str, items: list) -> str:
    body = ",\n".join(_dumps(item) for item in items)
    return f'"{key}": [\n{body}\n],\n' if items else f'"{key}": [],\n'


def export_batched(campaign: Campaign, size: int = 64 * 1024) -> Iterator[bytes]:
    """export_chunks as UTF-8 bytes, gathered into pieces of about `size` bytes."""
    pending: list[str] = []
    length = 0
    for chunk in export_chunks(campaign):
        pending.append(chunk)
        length += len(chunk)
        if length >= size:
            yield "".join(pending).encode()
            pending, length = [], 0
    if pending:
        yield "".join(pending).encode()


# -- import: reading and checking the file -------------------------------------------------


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
    if kind in ("count", "positive") and value > _INT_MAX:
        raise BackupError(
            _("%(place)s is too large (at most %(max)s).") % {"place": place, "max": _INT_MAX}
        )
    return value


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
    return _check(value, "object", place)  # type: ignore[return-value]


def _name(obj: dict, key: str, place: str, max_length: int) -> str:
    name = _get(obj, key, place, "text").strip()
    if not name or len(name) > max_length:
        raise BackupError(
            _("%(place)s must be a name of 1 to %(max)s characters.")
            % {"place": _here(place, key), "max": max_length}
        )
    return name


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


@dataclass(slots=True)
class _Session:
    number: int
    title: str
    started_at: datetime
    ended_at: datetime | None
    recap: str
    sheet_summary: dict  # ref (as text) -> what session_end kept


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


@dataclass
class _Backup:
    name: str
    options: dict
    players_see_party: bool
    created_at: datetime
    catalogue: list[dict]
    memberships: list[tuple[str, str]]
    characters: list[_Character]
    sessions: list[_Session]
    events: list[_Event]


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


def backup_check(document: object) -> _Backup:
    """The file's content, checked field by field; BackupError naming the first bad place."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(
            _("This is not a Zodiac campaign backup: its “format” is not “%(format)s”.")
            % {"format": FORMAT}
        )
    version = _get(document, "version", "", "positive")
    if version != VERSION:
        raise BackupError(
            _("This backup is version %(version)s; this server reads version %(known)s only.")
            % {"version": version, "known": VERSION}
        )
    head = _object(_get(document, "campaign", "", "object"), "campaign")
    options = _get(head, "options", "campaign", "object")
    backup = _Backup(
        name=_name(head, "name", "campaign", _NAME_MAX),
        options={
            "especificos": _get(options, "especificos", "campaign.options", "bool"),
            "esfuerzo_prolongado": _get(options, "esfuerzo_prolongado", "campaign.options", "bool"),
            "round_seconds": _get(options, "round_seconds", "campaign.options", "positive"),
        },
        players_see_party=_get(head, "players_see_party", "campaign", "bool", default=False),
        created_at=_get(head, "created_at", "campaign", "when"),
        catalogue=_catalogue(_get(document, "catalogue", "", "list")),
        memberships=_memberships(_get(document, "memberships", "", "list")),
        characters=_characters(_get(document, "characters", "", "list")),
        sessions=[],
        events=[],
    )
    if backup.options["round_seconds"] > ROUND_SECONDS_MAX:
        raise BackupError(
            _("%(place)s must be a whole number from 1 to %(max)s.")
            % {"place": "campaign.options.round_seconds", "max": ROUND_SECONDS_MAX}
        )
    refs = {c.ref for c in backup.characters}
    backup.sessions = _sessions(_get(document, "sessions", "", "list"), refs)
    numbers = {s.number for s in backup.sessions}
    backup.events = _events(_get(document, "events", "", "list"), refs, numbers)
    return backup


def _one_of(obj: dict, key: str, place: str, allowed: list[str]) -> str:
    """obj[key], a text that must be one of `allowed`."""
    value = _get(obj, key, place, "text")
    if value not in allowed:
        raise BackupError(
            _("%(place)s must be one of: %(allowed)s.")
            % {"place": _here(place, key), "allowed": ", ".join(allowed)}
        )
    return value


def _catalogue(items: list) -> list[dict]:
    entries, seen = [], set()
    kinds = CatalogueEntry.Kind.values
    for i, item in enumerate(items):
        place = f"catalogue[{i}]"
        item = _object(item, place)
        name = _name(item, "name", place, _ENTRY_NAME_MAX)
        if name in seen:
            raise BackupError(
                _("%(place)s: “%(name)s” is in the catalogue twice.")
                % {"place": f"{place}.name", "name": name}
            )
        seen.add(name)
        kind = _one_of(item, "kind", place, kinds)
        texts = {t: _get(item, t, place, "text", default="") for t in _ENTRY_TEXTS}
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


def _characters(items: list) -> list[_Character]:
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
        name = _name(item, "name", place, _PJ_NAME_MAX)
        if name in names:
            raise BackupError(
                _("%(place)s: the name “%(name)s” is used by another PJ of the file (%(other)s).")
                % {"place": f"{place}.name", "name": name, "other": names[name]}
            )
        names[name] = place
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
            )
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
            )
        )
    return sessions


def _sheet_readable(sheet: object) -> bool:
    """Whether the end-of-session sheets page can show this summary (session_end's shape)."""
    if not isinstance(sheet, dict) or not isinstance(sheet.get("state"), dict):
        return False
    try:
        cards.build(Character(name="", attributes={}), sheet["state"])
    except Exception:  # a key missing, a value of another type: the page would fail alike
        return False
    return True


def _events(items: list, refs: set[int], numbers: set[int]) -> list[_Event]:
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
        event = _get(item, "event", place, "object")
        kind = event.get("kind")
        if kind is None:
            raise BackupError(_("%(place)s is missing.") % _p(f"{place}.event.kind"))
        if not isinstance(kind, str) or kind not in kinds:
            raise BackupError(
                _("%(place)s: unknown event kind “%(kind)s”.")
                % {"place": f"{place}.event.kind", "kind": kind}
            )
        if kind == "time":
            # As on the board (forms.TIME_MAX): the engine walks every day of it, so a
            # hand-made 10^30 rounds would hold the import for ever.
            for unit in TIME_UNITS:
                amount = event.get(unit)
                if type(amount) in (int, float) and amount > TIME_MAX[unit]:
                    raise BackupError(
                        _("%(place)s is too large (at most %(max)s).")
                        % {"place": f"{place}.event.{unit}", "max": TIME_MAX[unit]}
                    )
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
            )
        )
    return events


# -- import: folding the log ----------------------------------------------------------------


@dataclass
class _Fold:
    """Each PJ's log folded as event_record and event_void would have left it."""

    backup: _Backup
    options: dict
    # by ref: the state after the PJ's non-void log so far, and that log's last seq
    state: dict[int, dict] = field(default_factory=dict)
    last_seq: dict[int, int] = field(default_factory=dict)
    # by ref: positions (in backup.events) of the PJ's log so far, void events included
    log: dict[int, list[int]] = field(default_factory=dict)
    # by ref: the PJ's void events so far as (index in its log, void_at, state before it)
    voided: dict[int, list[tuple[int, datetime, dict]]] = field(default_factory=dict)
    latest_void: dict[int, datetime] = field(default_factory=dict)

    @classmethod
    def start(cls, backup: _Backup) -> _Fold:
        fold = cls(backup=backup, options=rules.normalize_options(backup.options))
        for c in backup.characters:
            fold.state[c.ref] = rules.initial_state()
            fold.last_seq[c.ref] = c.joined_seq
            fold.log[c.ref] = []
            fold.voided[c.ref] = []
        return fold

    def events(self) -> Iterator[tuple[_Event, dict[int, list], list[tuple[int, dict]]]]:
        """Every event with its effects and the states it leaves, by ref, in seq order.

        A PJ's log is its own events and the campaign-wide ones with a seq above its
        joined_seq (selectors.character_log); a campaign-wide event goes to each of those
        PJ in file order (event_record's pk order). BackupError names an event the rules
        refuse. Afterwards `state` and `last_seq` hold each PJ's current state.
        """
        characters = self.backup.characters
        names = {c.ref: c.name for c in characters}
        for position, event in enumerate(self.backup.events):
            if event.ref is not None:
                targets = [event.ref]
            else:
                targets = [c.ref for c in characters if c.joined_seq < event.seq]
            effects: dict[int, list] = {}
            states: list[tuple[int, dict]] = []
            for ref in targets:
                if event.void_at is None:
                    try:
                        state, fx = rules.apply(self.state[ref], event.event, self.options)
                    except rules.RuleError as err:
                        raise _refused(event, names[ref], err) from None
                    except Exception as err:  # a field the engine did not expect
                        raise _unreadable(event, names[ref], err) from err
                    self.state[ref] = state
                    self.last_seq[ref] = event.seq
                else:
                    state, fx = _void_state(self, ref, event)
                self.log[ref].append(position)
                effects[ref] = fx
                states.append((ref, state))
            yield event, effects, states


def _refused(event: _Event, name: str, err: rules.RuleError) -> BackupError:
    return BackupError(
        _("%(place)s: event #%(seq)s (%(kind)s) breaks a rule for %(character)s: %(reason)s")
        % {
            "place": event.place,
            "seq": event.seq,
            "kind": event.event.get("kind"),
            "character": name,
            "reason": err.message(translation.get_language() or "es"),
        }
    )


def _unreadable(event: _Event, name: str, err: Exception) -> BackupError:
    return BackupError(
        _("%(place)s: event #%(seq)s (%(kind)s) cannot be applied to %(character)s: %(reason)s")
        % {
            "place": event.place,
            "seq": event.seq,
            "kind": event.event.get("kind"),
            "character": name,
            "reason": f"{type(err).__name__}: {err}",
        }
    )


def _void_state(fold: _Fold, ref: int, event: _Event) -> tuple[dict, list]:
    """The state and effects a void event kept: those of its last fold while it counted.

    event_record folded it on the log of its time, and each earlier void made while it
    still counted folded it again without the event voided (event_void); once void, it is
    left alone. So it follows the PJ's earlier events that were not void yet when it was:
    the non-void ones and those voided after it.
    """
    voided_at = event.void_at
    base = fold.state[ref]
    log = fold.log[ref]
    voided = fold.voided[ref]
    if voided and fold.latest_void[ref] > voided_at:
        # An earlier event was voided after this one: fold from just before it, with it.
        start, before = next((i, s) for i, when, s in voided if when > voided_at)
        base = before
        events = fold.backup.events
        for position in log[start:]:
            earlier = events[position]
            if earlier.void_at is None or earlier.void_at > voided_at:
                try:
                    base, _fx = rules.apply(base, earlier.event, fold.options)
                except Exception:  # a RuleError, or a field the engine did not expect
                    base = fold.state[ref]
                    break
    voided.append((len(log), voided_at, fold.state[ref]))
    if ref not in fold.latest_void or fold.latest_void[ref] < voided_at:
        fold.latest_void[ref] = voided_at
    try:
        return rules.apply(base, event.event, fold.options)
    except Exception:  # a RuleError, or a field the engine did not expect
        # It counts for nothing: a void event the rules now refuse leaves the state as it was.
        return base, []


def _fold_check(backup: _Backup) -> None:
    """Fold the whole log without writing: a refused event stops the import before any write."""
    for _item in _Fold.start(backup).events():
        pass


# -- import: writing ------------------------------------------------------------------------


@dataclass
class ImportResult:
    campaign: Campaign
    characters: int
    sessions: int
    events: int
    # What the file had that this server could not take (unknown accounts), in words.
    notes: list[str] = field(default_factory=list)


def campaign_import(
    data: bytes | str,
    *,
    dj: AbstractBaseUser | None = None,
    name: str = "",
    link_accounts: bool = True,
) -> ImportResult:
    """A backup file as a new campaign; BackupError (nothing written) for a bad file.

    `dj` becomes the campaign's DJ, the file's DJs then become nothing (said in the notes);
    without `dj`, the file's DJs whose accounts exist here are its DJs. Accounts are never
    made: memberships and players whose username is unknown here are left out (said in the
    notes), and events' actor and void_by become empty. `name` replaces the file's name;
    the address (slug) is made from the name, as for any new campaign.

    `link_accounts=False` (an import from the app, by any logged-in user) makes nobody but
    the DJ a member and links no PJ to a player: a file must not put a campaign on other
    people's home pages. The DJ invites the players again.
    """
    document = backup_parse(data)
    backup = backup_check(document)
    if name.strip():
        backup.name = _name({"name": name}, "name", "", _NAME_MAX)
    notes: list[str] = []
    try:
        # Half a surrogate pair is no text: PostgreSQL refuses it, SQLite keeps it escaped in
        # a JSON column and then no page that shows it can be sent (UnicodeEncodeError).
        json.dumps(document, ensure_ascii=False).encode("utf-8")
        users = _users(backup)
        djs, members, players = _people(backup, users, dj, notes)
        if not link_accounts and (members or players):
            members, players = [], {}
            notes.append(
                _(
                    "Players are not linked by an import in the app: invite them again "
                    "from Jugadores."
                )
            )
        _fold_check(backup)
        with transaction.atomic():
            campaign = campaign_create(name=backup.name, dj=djs[0], **backup.options)
            Campaign.objects.filter(pk=campaign.pk).update(
                players_see_party=backup.players_see_party,
                created_at=backup.created_at,
                last_seq=max(
                    [e.seq for e in backup.events[-1:]] + [c.joined_seq for c in backup.characters],
                    default=0,
                ),
            )
            campaign.catalogue.all().delete()
            CatalogueEntry.objects.bulk_create(
                CatalogueEntry(campaign=campaign, **entry) for entry in backup.catalogue
            )
            Membership.objects.bulk_create(
                Membership(campaign=campaign, user=user, role=role)
                for user, role in [(d, Membership.Role.DJ) for d in djs[1:]] + members
            )
            pks = {}
            for c in backup.characters:
                character = Character.objects.create(
                    campaign=campaign,
                    name=c.name,
                    player=players.get(c.ref),
                    attributes=c.attributes,
                    powers=c.powers,
                    notes=c.notes,
                    joined_seq=c.joined_seq,
                    archived_at=c.archived_at,
                    secret_names=c.secret_names,
                )
                pks[c.ref] = character.pk
            sessions = {}
            for s in backup.sessions:
                session = GameSession.objects.create(
                    campaign=campaign,
                    number=s.number,
                    title=s.title,
                    started_at=s.started_at,
                    ended_at=s.ended_at,
                    recap=s.recap,
                    sheet_summary={str(pks[int(k)]): v for k, v in s.sheet_summary.items()},
                )
                sessions[s.number] = session.pk
            _write_log(backup, campaign, pks, sessions, users)
            campaign.refresh_from_db()
    except (DatabaseError, UnicodeError, ValidationError) as err:
        # What the checks above let through and this database still refuses (PostgreSQL
        # takes no NUL character in a text, no text takes half a surrogate pair).
        reason = " ".join(err.messages) if isinstance(err, ValidationError) else str(err)
        raise BackupError(
            _("The database refused the file's content, so nothing was written: %(reason)s")
            % {"reason": reason},
            code="database",
        ) from err
    return ImportResult(
        campaign=campaign,
        characters=len(backup.characters),
        sessions=len(backup.sessions),
        events=len(backup.events),
        notes=notes,
    )


def _users(backup: _Backup) -> dict[str, AbstractBaseUser]:
    """The accounts of this server that the file names, by username."""
    names = {username for username, _role in backup.memberships}
    names |= {c.player for c in backup.characters if c.player}
    names |= {e.actor for e in backup.events if e.actor}
    names |= {e.void_by for e in backup.events if e.void_by}
    User = get_user_model()
    found = User._default_manager.filter(**{f"{User.USERNAME_FIELD}__in": names})
    return {user.get_username(): user for user in found}


def _people(
    backup: _Backup,
    users: dict[str, AbstractBaseUser],
    dj: AbstractBaseUser | None,
    notes: list[str],
) -> tuple[list, list, dict]:
    """The DJs, the other members (user, role) and each PJ's player (by ref) to write."""
    role_label = dict(Membership.Role.choices)
    if dj is not None:
        djs = [dj]
    else:
        djs = [users[u] for u, role in backup.memberships if role == "dj" and u in users]
        if not djs:
            raise BackupError(
                _("None of the file's DJs has an account on this server: name the DJ."),
                code="no_dj",
            )
    dj_pks = {d.pk for d in djs}
    members: list[tuple[AbstractBaseUser, str]] = []
    member_pks = set(dj_pks)
    for username, role in backup.memberships:
        user = users.get(username)
        if user is None:
            notes.append(
                _("No account “%(username)s” on this server: left out (%(role)s).")
                % {"username": username, "role": role_label[role]}
            )
        elif user.pk in member_pks:
            continue
        elif role == Membership.Role.DJ:
            notes.append(
                _("“%(username)s” was a DJ in the file and is not one here: the DJ is %(dj)s.")
                % {"username": username, "dj": djs[0].get_username()}
            )
        else:
            members.append((user, role))
            member_pks.add(user.pk)
    players = {}
    for c in backup.characters:
        if c.player is None:
            continue
        user = users.get(c.player)
        if user is None:
            notes.append(
                _("No account “%(username)s” on this server: %(name)s has no player.")
                % {"username": c.player, "name": c.name}
            )
        elif user.pk in dj_pks:
            notes.append(
                _("%(name)s was played by %(username)s, a DJ here: it has no player.")
                % {"username": c.player, "name": c.name}
            )
        else:
            players[c.ref] = user
            if user.pk not in member_pks:
                members.append((user, Membership.Role.PLAYER))
                member_pks.add(user.pk)
    return djs, members, players


def _write_log(
    backup: _Backup,
    campaign: Campaign,
    pks: dict[int, int],
    sessions: dict[int, int],
    users: dict[str, AbstractBaseUser],
) -> None:
    """The events, each PJ's state after each, and each PJ's current state, in bulk."""
    user_pks = {username: user.pk for username, user in users.items()}
    events: list[StateEvent] = []
    states: list[list[tuple[int, dict]]] = []

    def flush() -> None:
        StateEvent.objects.bulk_create(events)
        EventSnapshot.objects.bulk_create(
            (
                EventSnapshot(event=record, character_id=pks[ref], state=state)
                for record, touched in zip(events, states, strict=True)
                for ref, state in touched
            ),
            batch_size=IMPORT_BATCH,
        )
        events.clear()
        states.clear()

    fold = _Fold.start(backup)
    for event, effects, touched in fold.events():
        events.append(
            StateEvent(
                campaign=campaign,
                character_id=pks[event.ref] if event.ref is not None else None,
                session_id=sessions[event.session] if event.session is not None else None,
                seq=event.seq,
                created_at=event.created_at,
                actor_id=user_pks.get(event.actor),
                event=event.event,
                effects={str(pks[ref]): fx for ref, fx in effects.items()},
                void_at=event.void_at,
                void_by_id=user_pks.get(event.void_by) if event.void_at else None,
                void_reason=event.void_reason,
                secret=event.secret,
            )
        )
        states.append(touched)
        if len(events) >= IMPORT_BATCH:
            flush()
    flush()
    CharacterSnapshot.objects.bulk_create(
        CharacterSnapshot(character_id=pks[ref], state=state, seq=fold.last_seq[ref])
        for ref, state in fold.state.items()
    )
