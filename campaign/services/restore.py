"""A backup restored: a file checked whole (backup.check) and its log folded (backup.fold),
then written as a new campaign, in bulk, in one transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import turn_order
from ..backup.check import (
    IMPORT_BATCH,
    NAME_MAX,
    Backup,
    BackupError,
    backup_check,
    backup_parse,
    checked_name,
)
from ..backup.fold import Fold, fold_check
from ..models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    Reminder,
    StateEvent,
    Template,
)
from .campaigns import campaign_create


@dataclass
class ImportResult:
    campaign: Campaign
    characters: int  # the PJ
    sessions: int
    events: int
    pnj: int = 0
    # What the file had that this server could not take (unknown accounts), in words.
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> str:
        """ "4 PJ, 3 PNJ, 1 sesión, 120 eventos", in the active language (no PNJ: not said)."""
        parts = [ngettext("%(n)s PJ", "%(n)s PJ", self.characters) % {"n": self.characters}]
        if self.pnj:
            parts.append(ngettext("%(n)s PNJ", "%(n)s PNJ", self.pnj) % {"n": self.pnj})
        parts += [
            ngettext("%(n)s session", "%(n)s sessions", self.sessions) % {"n": self.sessions},
            ngettext("%(n)s event", "%(n)s events", self.events) % {"n": self.events},
        ]
        return ", ".join(parts)


def _nul_place(document: object) -> str | None:
    """Where `document` holds a NUL character, in a text or a key (its first place, as the
    checks name places: "characters[0].name"), or None."""
    stack = [(document, "")]
    while stack:
        value, here = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return here or "?"
        elif isinstance(value, dict):
            items = [(f"{here}.{k}" if here else str(k), k, v) for k, v in value.items()]
            for place, key, _v in items:
                if isinstance(key, str) and "\x00" in key:
                    return place
            stack.extend((v, place) for place, _k, v in reversed(items))
        elif isinstance(value, list):
            stack.extend((v, f"{here}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


def campaign_import(
    data: bytes | str,
    *,
    dj: User | None = None,
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
    if (place := _nul_place(document)) is not None:
        # PostgreSQL refuses it in a text; SQLite would keep it: refused on either alike.
        raise BackupError(
            _("%(place)s holds a NUL character (\\u0000), which no text here may hold.")
            % {"place": place}
        )
    if name.strip():
        backup.name = checked_name({"name": name}, "name", "", NAME_MAX)
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
        fold_check(backup)
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
            templates = {
                t.ref: Template.objects.create(
                    campaign=campaign,
                    name=t.name,
                    side=t.side,
                    attributes=t.attributes,
                    powers=t.powers,
                    notes=t.notes,
                )
                for t in backup.templates
            }
            pks = {}
            for c in backup.characters:
                own = dict(c.pnj)  # a PNJ's fields, its Plantilla by ref
                if own:
                    own["template"] = templates.get(own["template"])
                    own.pop("turn_with")  # a ref: set once every character has its pk
                character = Character.objects.create(
                    campaign=campaign,
                    name=c.name,
                    kind=c.kind,
                    player=players.get(c.ref),
                    attributes=c.attributes,
                    powers=c.powers,
                    notes=c.notes,
                    joined_seq=c.joined_seq,
                    archived_at=c.archived_at,
                    secret_names=c.secret_names,
                    **own,
                )
                pks[c.ref] = character.pk
            for c in backup.characters:
                if (lead := c.pnj.get("turn_with")) is not None:
                    Character.objects.filter(pk=pks[c.ref]).update(turn_with=pks[lead])
            sessions = {}
            for s in backup.sessions:
                session = GameSession.objects.create(
                    campaign=campaign,
                    number=s.number,
                    title=s.title,
                    started_at=s.started_at,
                    ended_at=s.ended_at,
                    recap=s.recap,
                    dj_note=s.dj_note,
                    sheet_summary={str(pks[int(k)]): v for k, v in s.sheet_summary.items()},
                )
                sessions[s.number] = session.pk
            _write_log(backup, campaign, pks, sessions, users)
            Reminder.objects.bulk_create(
                Reminder(
                    campaign=campaign,
                    text=r.text,
                    when=r.when,
                    character_id=pks[r.ref] if r.ref is not None else None,
                    round=r.round,
                    every=r.every,
                    spent_seq=r.spent_seq,
                    **({"created_at": r.created_at} if r.created_at is not None else {}),
                )
                for r in backup.reminders
            )
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
    pnj = sum(c.kind == Character.Kind.PNJ for c in backup.characters)
    return ImportResult(
        campaign=campaign,
        characters=len(backup.characters) - pnj,
        pnj=pnj,
        sessions=len(backup.sessions),
        events=len(backup.events),
        notes=notes,
    )


def _users(backup: Backup) -> dict[str, User]:
    """The accounts of this server that the file names, by username."""
    names = {username for username, _role in backup.memberships}
    names |= {c.player for c in backup.characters if c.player}
    names |= {e.actor for e in backup.events if e.actor}
    names |= {e.void_by for e in backup.events if e.void_by}
    user_model = get_user_model()
    found = user_model._default_manager.filter(**{f"{user_model.USERNAME_FIELD}__in": names})
    return {user.get_username(): user for user in found}


def _people(
    backup: Backup,
    users: dict[str, User],
    dj: User | None,
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
    members: list[tuple[User, str]] = []
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
    backup: Backup,
    campaign: Campaign,
    pks: dict[int, int],
    sessions: dict[int, int],
    users: dict[str, User],
) -> None:
    """The events, each PJ's state after each, and each PJ's current state, in bulk."""
    user_pks = {username: user.pk for username, user in users.items()}
    events: list[StateEvent] = []
    states: list[list[tuple[int, dict]]] = []

    def flush() -> None:
        StateEvent.objects.bulk_create(events)
        EventSnapshot.objects.bulk_create(
            (
                EventSnapshot(event=record, character_id=pks[ref], seq=record.seq, state=state)
                for record, touched in zip(events, states, strict=True)
                for ref, state in touched
            ),
            batch_size=IMPORT_BATCH,
        )
        events.clear()
        states.clear()

    fold = Fold.start(backup)
    for event, effects, touched in fold.events():
        events.append(
            StateEvent(
                campaign=campaign,
                character_id=pks[event.ref] if event.ref is not None else None,
                session_id=sessions[event.session] if event.session is not None else None,
                seq=event.seq,
                created_at=event.created_at,
                actor_id=user_pks.get(event.actor) if event.actor is not None else None,
                event=turn_order.with_pj(event.event, pks),
                effects={str(pks[ref]): fx for ref, fx in effects.items()},
                void_at=event.void_at,
                void_by_id=(
                    user_pks.get(event.void_by)
                    if event.void_at and event.void_by is not None
                    else None
                ),
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
