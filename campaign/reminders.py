"""The DJ's turn reminders, read: which notes are still to come, and which are due now.

A note is a Reminder row, never an event: no player's page, export or history reads it
(only the DJ's board and the DJ's backup do). It is pinned to the start or the end of a
combatant's turn, or to a round of a fight. A one-time note is spent by the pass of the
turn it belongs to (services.reminders.reminders_spend, inside services.fight_pass): its
`spent_seq` names that pass, and it counts as spent only while that pass stands, so
Deshacer of the pass brings it back. A note pinned "every" time is never spent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q, QuerySet

from .models import Campaign, Reminder, StateEvent
from .turn_order import Fight

START, END, ROUND = Reminder.When.START, Reminder.When.END, Reminder.When.ROUND


def unspent(campaign: Campaign) -> QuerySet[Reminder]:
    """The campaign's notes still to come: every-time ones, and one-time ones that no pass
    standing in the log spent (never spent, or spent by a pass voided since)."""
    spent_by = StateEvent.objects.filter(
        campaign=OuterRef("campaign"), seq=OuterRef("spent_seq"), void_at__isnull=True
    )
    return campaign.reminders.filter(Q(every=True) | ~Exists(spent_by))


def pinned(*, campaign: Campaign) -> list[Reminder]:
    """The notes still to come, oldest first, with their characters; a note of a character
    no longer in play waits with it (it shows again if it is restored)."""
    notes = unspent(campaign).filter(
        Q(character__isnull=True) | Q(character__archived_at__isnull=True)
    )
    return list(notes.select_related("character").order_by("created_at", "pk"))


@dataclass
class Due:
    """The notes pinned, split by when they show: now, at the start or the end of the turn
    going on and in its round, or later (another turn, round or fight)."""

    start: list[Reminder] = field(default_factory=list)
    end: list[Reminder] = field(default_factory=list)
    round: list[Reminder] = field(default_factory=list)
    later: list[Reminder] = field(default_factory=list)
    # Still to come, in the order pinned: `later`, and the end notes of the turn going on,
    # shown beside its pass button but due only when it passes.
    to_come: list[Reminder] = field(default_factory=list)

    @property
    def now(self) -> list[Reminder]:
        return [*self.round, *self.start, *self.end]


def due(notes: list[Reminder], fight: Fight | None) -> Due:
    """`notes` (pinned) as the fight stands: the start and end notes of everyone of the
    current slot (a group: each of its members), the notes of its round; outside a fight,
    every note is for later."""
    found = Due()
    slot = fight.current_slot if fight is not None else None
    members = set(slot.members) if slot is not None else set()
    for note in notes:
        if fight is not None and note.when == ROUND and note.round == fight.round:
            found.round.append(note)
        elif note.when == START and note.character_id in members:
            found.start.append(note)
        elif note.when == END and note.character_id in members:
            found.end.append(note)
            found.to_come.append(note)
        else:
            found.later.append(note)
            found.to_come.append(note)
    return found
