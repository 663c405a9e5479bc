"""Backup, step 1: a campaign as one versioned JSON file, streamed in chunks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Min
from django.utils import timezone

from .. import turn_order
from ..models import (
    Campaign,
    Character,
    StateEvent,
)
from .check import ENTRY_TEXTS, EXPORT_CHUNK, FORMAT, VERSION
from .check_pnj import PNJ_FIELDS


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _username(user: User | None) -> str | None:
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
    templates = list(campaign.templates.order_by("pk"))
    template_refs = {t.pk: n for n, t in enumerate(templates, start=1)}
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
        {"name": e.name, "kind": e.kind, **{t: getattr(e, t) for t in ENTRY_TEXTS}}
        for e in campaign.catalogue.order_by("kind", "name")
    ]
    yield _list("catalogue", catalogue)
    memberships = [
        {"username": _username(m.user), "role": m.role}
        for m in campaign.memberships.select_related("user").order_by("role", "user__pk")
    ]
    yield _list("memberships", memberships)
    yield _list(
        "templates",
        [
            {
                "ref": template_refs[t.pk],
                "name": t.name,
                "side": t.side,
                "attributes": t.attributes,
                "powers": t.powers,
                "notes": t.notes,
            }
            for t in templates
        ],
    )
    yield _list(
        "characters",
        [
            {
                "ref": refs[c.pk],
                "name": c.name,
                "kind": c.kind,
                "player": _username(c.player),
                "attributes": c.attributes,
                "powers": c.powers,
                "notes": c.notes,
                "joined_seq": c.joined_seq,
                "archived_at": _when(c.archived_at),
                "secret_names": c.secret_names,
                **(_pnj_fields(c, template_refs, refs) if c.is_pnj else {}),
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
                "dj_note": s.dj_note,
                "sheet_summary": {
                    str(refs[int(pk)]): sheet
                    for pk, sheet in (s.sheet_summary or {}).items()
                    if pk.isdigit() and int(pk) in refs
                },
            }
            for s in campaign.sessions.order_by("number")
        ],
    )
    yield _list(
        "reminders",
        [
            {
                "text": r.text,
                "when": r.when,
                "character": refs[r.character_id] if r.character_id is not None else None,
                "round": r.round,
                "every": r.every,
                "spent_seq": r.spent_seq,
                "created_at": _when(r.created_at),
            }
            for r in campaign.reminders.order_by("created_at", "pk")
            # A note pinned to a PNJ made after the cut goes with it.
            if r.character_id is None or r.character_id in refs
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
            "effects",
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
        effects,
    ) in rows.iterator(chunk_size=EXPORT_CHUNK):
        item = {
            "seq": seq,
            "character": refs[pk] if pk is not None else None,
            "session": session,
            "created_at": _when(created_at),
            "actor": actor,
            "event": turn_order.with_pj(event, refs),
            "void_at": _when(void_at),
            "void_by": void_by,
            "void_reason": reason,
            "secret": secret,
        }
        if pk is None:
            # The PJ a campaign-wide event reached (not those archived or left out).
            item["party"] = sorted(refs[int(k)] for k in effects if k.isdigit() and int(k) in refs)
        yield separator + _dumps(item)
        separator = ",\n"
    yield "\n]\n}\n"


def _pnj_fields(character: Character, template_refs: dict[int, int], refs: dict[int, int]) -> dict:
    """A PNJ's own fields (check.PNJ_FIELDS), its Plantilla and the PNJ whose turn it
    shares by their refs in the file."""
    fields = {
        name: getattr(character, name)
        for name in PNJ_FIELDS
        if name not in ("template", "turn_with")
    }
    fields["template"] = template_refs.get(character.template_id or 0)
    fields["turn_with"] = refs.get(character.turn_with_id or 0)
    return fields


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
