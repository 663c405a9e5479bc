"""A fight's turn order in the history's words, for one viewer: the DJ reads every PNJ by
name, a group by its members; a player reads PNJ only as campaign.reveal says, with the
fight as it stood at that event (an unrevealed one as "un enemigo", none while it lurks
unseen), and their state only when the DJ shows it (why one left the fight, a lost turn).
The audit rows, the event page and the session exports all read fights here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from .. import reveal
from ..models import Campaign, Character, StateEvent
from ..present.events import event_label, out_label
from ..turn_order import Fight, Slot, counted_names, step


class FightNames:
    """Whom a viewer reads in fights: the DJ (`for_player` False) every character by name;
    a player the PJ by name and each PNJ as reveal.seen says. The campaign's PNJ are read
    once, the first time a player's row needs them."""

    def __init__(self, campaign: Campaign, names: dict[int, str], *, for_player: bool) -> None:
        self.names = names
        self.for_player = for_player
        self._campaign = campaign
        self._pnj: dict[int, Character] | None = None

    @property
    def pnj(self) -> dict[int, Character]:
        if self._pnj is None:
            found = Character.objects.filter(campaign=self._campaign, kind=Character.Kind.PNJ)
            self._pnj = {c.pk: c for c in found.select_related("snapshot")}
        return self._pnj

    def shown(self, fight: Fight) -> dict[int, str]:
        """The names the viewer reads for the characters in `fight`'s order (one a player
        does not see is left out)."""
        if not self.for_player:
            return {pk: self.names.get(pk, "?") for pk in fight.fighting}
        return reveal.slot_names(fight, self.pnj, self.names)

    def one(self, pk: int, fight: Fight) -> str | None:
        """`pk`'s name as the viewer reads it in `fight` (one taken out of it too); None:
        the viewer does not see it."""
        if not self.for_player or pk not in self.pnj:
            return self.names.get(pk, "?")
        how = reveal.seen(self.pnj[pk], fight, acting=reveal.turn_acts(fight, self.pnj))
        return how.name if how is not None else None

    def state_shown(self, pk: int) -> bool:
        """Whether the viewer reads `pk`'s state: why it left the fight, a turn it lost."""
        return not self.for_player or pk not in self.pnj or reveal.state_shown(self.pnj[pk])


@dataclass
class FightRow:
    """A fight event as one viewer reads it in the history: what it did, its lines (the
    order, the enemies archived) and whose turn it was."""

    label: str
    lines: list[tuple[str, str]]
    turn: str


def fight_row(record: StateEvent, during: Fight | None, fighters: FightNames) -> FightRow | None:
    """A fight event (`during`: the fight as it stood before it) as the viewer reads it;
    None when the viewer may not know it happened: the pass of a turn a PNJ still hidden
    from players lost. Players read a lost turn as a turn passed unless they see the state
    of everyone in its slot, and why one left the fight only when they see its state."""
    event = record.event
    doing = event.get("do")
    after = fight_after(record, during)
    label = event_label(event)
    slot = during.current_slot if during is not None else None
    turn = slot_text(slot, fighters.shown(during)) if during is not None and slot else ""
    if doing == "pass" and during is not None and slot is not None:
        if fighters.for_player and not reveal.visible(slot, fighters.shown(during)):
            return None
        if event.get("lost") and not all(fighters.state_shown(pk) for pk in slot.members):
            label = event_label({**event, "lost": False})
    out = event.get("out")
    if doing == "order" and after is not None and isinstance(out, dict):
        pk = out.get("pj")
        name = fighters.one(pk, after) if isinstance(pk, int) else None
        if isinstance(pk, int) and name is not None:
            why = out.get("why") if fighters.state_shown(pk) else None
            label = out_label(name, why)
    lines = _lines(record, after, fighters) if doing in ("start", "order", "end") else []
    return FightRow(label, lines, turn)


def fight_after(record: StateEvent, during: Fight | None) -> Fight | None:
    """The fight right after `record` (its end: as it stood before it), a copy of its own."""
    if record.event.get("do") == "end" or during is None:
        return during or step(None, record.seq, record.event)
    return step(during.copy(), record.seq, record.event)


def _lines(record: StateEvent, fight: Fight | None, fighters: FightNames) -> list[tuple[str, str]]:
    """A fight event's lines: the order it started with, changed to or ended with, and (the
    DJ's) the enemies its end archived; each PNJ named as the viewer may read it."""
    if fight is None:
        return []
    lines = []
    if order := order_text(fight, fighters.shown(fight)):
        lines.append((_("Fight"), _("Order: %(order)s") % {"order": order}))
    archived = record.event.get("archived")
    if (
        record.event.get("do") == "end"
        and archived
        and isinstance(archived, list)
        and not fighters.for_player
    ):
        lines.append((_("Fight"), archived_text(archived, lambda pk: fighters.names.get(pk, "?"))))
    return lines


def slot_text(slot: Slot, shown: dict[int, str]) -> str:
    """A slot's name: a group lists its members ("Bandido 1, Bandido 2"), a name that comes
    back once with how many ("three enemies"); "" when the viewer sees none of it."""
    if slot.pj is None:
        return slot.name  # someone named in a log from before PNJ
    return counted_names([shown[pk] for pk in slot.members if pk in shown])


def order_text(fight: Fight, shown: dict[int, str]) -> str:
    """ "Aiko (15) → Bandido 1, Bandido 2 (12) → Kenji": the slots the viewer sees, with
    the initiatives typed."""
    parts = []
    for slot in fight.order:
        if name := slot_text(slot, shown):
            parts.append(f"{name} ({slot.init})" if slot.init is not None else name)
    return " → ".join(parts)


def archived_text(pks: list, names: Callable[[int], str]) -> str:
    """ "Enemies archived: Bandido 1, Jefe" (the DJ's: players are not told)."""
    return _("Enemies archived: %(names)s") % {"names": ", ".join(names(pk) for pk in pks)}
