"""The order page's words about the fight itself: what changed in it since the page saw it
(another tab added enemies, took one out, passed the turn) and how it stands now, for the
notice the page shows and the refusal of a save from a page that saw another fight."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..turn_order import Fight, order_text, slot_name
from .events import WHY


def _names(pks: list[int], names: Mapping[int, str]) -> str:
    return ", ".join(names.get(pk, "?") for pk in pks)


def changes(before: Fight | None, after: Fight | None, names: Mapping[int, str]) -> list[str]:
    """What changed from `before` (the fight a page saw) to `after` (the fight now), in the
    DJ's words: who joined it, who left it and why, whose turn it is; "the order changed"
    when only that did."""
    if before is None and after is None:
        return []
    if after is None:
        return [_("the fight has ended")]
    if before is None:
        return [_("a fight has started")]
    said = []
    joined = [pk for slot in after.order for pk in slot.members if pk not in before.fighting]
    if joined:
        said.append(
            ngettext("%(names)s joined the order", "%(names)s joined the order", len(joined))
            % {"names": _names(joined, names)}
        )
    gone = [pk for slot in before.order for pk in slot.members if pk not in after.fighting]
    for pk in gone:
        why = after.out.get(pk)
        if why is None:
            said.append(_("%(name)s left the order") % {"name": names.get(pk, "?")})
        else:
            said.append(
                _("%(name)s left the fight (%(why)s)")
                % {"name": names.get(pk, "?"), "why": WHY.get(why, why)}
            )
    turn = (after.round, after.current_slot and after.current_slot.key)
    if turn != (before.round, before.current_slot and before.current_slot.key):
        said.append(now_words(after, names))
    elif not said and before.order != after.order:
        said.append(_("the order changed"))
    return said


def now_words(fight: Fight, names: Mapping[int, str]) -> str:
    """ "round 2, Ryo's turn" """
    name = slot_name(fight.current_slot, names) if fight.current_slot else "?"
    return _("round %(round)s, %(name)s's turn") % {"round": fight.round, "name": name}


def standing(fight: Fight | None, names: Mapping[int, str]) -> dict:
    """The fight as it stands, for the notice: whose turn, its order, who left it."""
    if fight is None:
        return {"over": True}
    return {
        "over": False,
        "turn": now_words(fight, names),
        "order": order_text(fight, dict(names)),
        "out": ", ".join(
            f"{names.get(pk, '?')} ({WHY.get(why, why)})" for pk, why in fight.out.items()
        ),
    }
