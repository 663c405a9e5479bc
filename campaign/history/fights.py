"""A fight's turn order in the history's words, for one viewer: the DJ reads every PNJ by
name, a group by its members; a player reads PNJ only as campaign.reveal says, with the
fight as it stood at that event (an unrevealed one as "un enemigo", none while it lurks
unseen). The audit rows, the event page and the session exports all read fights here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import reveal
from ..models import Campaign, Character
from ..turn_order import Fight, Slot

# Why one left the fight (turn_order.OUT_WHY), as the history says it.
WHY = {
    "incapacitado": gettext_lazy("incapacitated"),
    "inconsciente": gettext_lazy("unconscious"),
    "huye": gettext_lazy("flees"),
    "otro": gettext_lazy("another reason"),
}


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
        how = reveal.seen(self.pnj[pk], fight)
        return how.name if how is not None else None


def slot_text(slot: Slot, shown: dict[int, str]) -> str:
    """A slot's name: a group lists its members ("Bandido 1, Bandido 2"), a name that comes
    back once with how many ("an enemy ×3"); "" when the viewer sees none of it."""
    if slot.pj is None:
        return slot.name  # someone named in a log from before PNJ
    counted = Counter(shown[pk] for pk in slot.members if pk in shown)
    return ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counted.items())


def order_text(fight: Fight, shown: dict[int, str]) -> str:
    """ "Aiko (15) → Bandido 1, Bandido 2 (12) → Kenji": the slots the viewer sees, with
    the initiatives typed."""
    parts = []
    for slot in fight.order:
        if name := slot_text(slot, shown):
            parts.append(f"{name} ({slot.init})" if slot.init is not None else name)
    return " → ".join(parts)


def out_text(name: str, why: object) -> str:
    """ "Bandido 2 out of the fight (flees)" """
    reason = WHY.get(why) if isinstance(why, str) else None
    if reason is None:
        return _("%(name)s out of the fight") % {"name": name}
    return _("%(name)s out of the fight (%(why)s)") % {"name": name, "why": reason}


def archived_text(pks: list, names: Callable[[int], str]) -> str:
    """ "Enemies archived: Bandido 1, Jefe" (the DJ's: players are not told)."""
    return _("Enemies archived: %(names)s") % {"names": ", ".join(names(pk) for pk in pks)}
