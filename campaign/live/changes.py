"""A campaign's changes as the live pages need them: what one is (`Change`), who sees it,
several said as one message, and their reads from the database (the hub's, live.hub).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection
from django.db.models import Q

from ..models import Campaign, CampaignChange

WINDOW = 1000  # changes kept per campaign; a stream further behind reads the database
FETCH_LIMIT = 5000  # rows per poll; a longer backlog is read over the next polls


@dataclass(frozen=True, slots=True)
class Change:
    """One step of a campaign's cursor, as a page needs it."""

    cursor: int
    pj: int | None  # the PJ whose card changed; None: every card
    player: int | None = None  # the user who plays that PJ, when the hub read the change
    kind: str = "event"  # CampaignChange.Kind: a player's stream checks again what it may hear
    pnj: bool = False  # the card that changed is a PNJ's: players hear it as their view of PNJ
    # The browser whose tap made it, when that tap's page was its browser's only page of
    # the campaign (live.channel.answered): its stream needs no rendering of it. Known
    # only in the writer's process (never read from the database).
    answered: str | None = field(default=None, compare=False, repr=False)


def visible(change: Change, *, player: int | None) -> bool:
    """Whether a viewer sees `change`: the DJ (player None) sees all, a player their own PJ
    and the PNJ (what a player sees of them is campaign.reveal's to say)."""
    return player is None or change.pj is None or change.pnj or change.player == player


def summary(changes: Sequence[Change], *, dj: bool = True) -> dict:
    """Several changes as one message: the last cursor, the card ids, whether all changed,
    the kinds of change (a page redraws its session bar after a session's), and for a
    player (`dj` False) whether the PNJ changed, their ids left out."""
    data = {
        "cursor": changes[-1].cursor,
        "pj": sorted({c.pj for c in changes if c.pj is not None and (dj or not c.pnj)}),
        "all": any(c.pj is None for c in changes),
        "kinds": sorted({str(c.kind) for c in changes}),
    }
    if not dj and (data["all"] or any(c.pnj for c in changes)):
        data["foes"] = True
    return data


def changes_between(
    *, campaign_id: int, after: int, upto: int, limit: int = WINDOW
) -> list[Change]:
    """The changes with `after < cursor <= upto`, from the database.

    More than `limit` of them, or `after` beyond `upto` (a restored database), become one
    change of every card at `upto`: re-reading the whole page is cheaper and as correct.
    """
    if after == upto:
        return []
    if after > upto or upto - after > limit:
        return [Change(upto, None)]
    rows = (
        CampaignChange.objects.filter(campaign_id=campaign_id, cursor__gt=after, cursor__lte=upto)
        .order_by("cursor")
        .values_list("cursor", "character_id", "character__player_id", "kind", "character__kind")
    )
    return [Change(*row[:4], row[4] == "pnj") for row in rows]


def moved(cursors: dict[int, int]) -> dict[int, int]:
    """Those of `cursors` whose campaign's cursor moved past the one given, in one plain
    query: the campaign's cursor moves in the transaction that adds its changes, most reads
    find nothing, and the ORM's query costs about ten times the CPU of this one."""
    if not cursors:
        return {}
    table = connection.ops.quote_name(Campaign._meta.db_table)
    pk = connection.ops.quote_name(str(Campaign._meta.pk.column))
    column = connection.ops.quote_name(str(Campaign._meta.get_field("change_cursor").column))
    marks = ", ".join(["%s"] * len(cursors))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {pk}, {column} FROM {table} WHERE {pk} IN ({marks})", list(cursors))
        return {pk: cursors[pk] for pk, now in cursor.fetchall() if now > cursors[pk]}


def changes_after(
    cursors: dict[int, int], limit: int = FETCH_LIMIT, *, sweep: bool = True
) -> dict[int, list[Change]]:
    """Each campaign's changes after its cursor, in one query: {campaign id: [Change]}.

    A `sweep` (a poll's tick over every campaign a process follows, hundreds of them, most
    of them quiet) first reads the campaigns' own cursors (`moved`), and then the changes of
    those that moved only. Without it the caller knows they moved (a NOTIFY named them).
    """
    if sweep:
        cursors = moved(cursors)
    if not cursors:
        return {}
    where = Q()
    for campaign_id, cursor in cursors.items():
        where |= Q(campaign_id=campaign_id, cursor__gt=cursor)
    rows = (
        CampaignChange.objects.filter(where)
        .order_by("campaign_id", "cursor")
        .values_list(
            "campaign_id",
            "cursor",
            "character_id",
            "character__player_id",
            "kind",
            "character__kind",
        )[:limit]
    )
    found: dict[int, list[Change]] = {}
    for campaign_id, cursor, pj, player, kind, character_kind in rows:
        found.setdefault(campaign_id, []).append(
            Change(cursor, pj, player, kind, character_kind == "pnj")
        )
    return found


class Commits:
    """Whether any connection, of any process, committed to this SQLite database since the
    last look: the hub's tick asks before it reads the cursors, so an idle tick costs a
    pragma on the event loop's thread, not a read on the hub's.

    SQLite's `PRAGMA data_version` changes, on one connection, whenever another one has
    committed. The connection is this class's own (read-only, opened on first use from the
    database's file); an in-memory database, another engine, or any failure to read says
    "committed" (the tick reads as it always did).
    """

    def __init__(self, settings_dict: dict) -> None:
        name = str(settings_dict.get("NAME") or "")
        self.path = (
            name
            if settings_dict.get("ENGINE") == "django.db.backends.sqlite3"
            and name
            and name != ":memory:"
            and "mode=memory" not in name
            else None
        )
        self.connection: sqlite3.Connection | None = None
        self.seen: int | None = None

    def since_last(self) -> bool:
        if self.path is None:
            return True
        try:
            if self.connection is None:
                uri = f"{Path(self.path).resolve().as_uri()}?mode=ro"
                self.connection = sqlite3.connect(uri, uri=True, timeout=0, check_same_thread=False)
            version = self.connection.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            self.close()
            return True
        committed = version != self.seen
        self.seen = version
        return committed

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        self.connection, self.seen = None, None
