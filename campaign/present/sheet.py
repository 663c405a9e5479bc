"""A player's sheet: its own card, the party's cards and where its PJ stands in the fight,
from the sheet's data (selectors.sheet_view)."""

from django.utils.translation import gettext as _

from .. import reveal
from ..models import Character
from ..selectors import PartyNow, SheetView
from ..turn_order import slot_name
from .card import Card, build, sheet_card
from .figures import clock_parts


def party_card(character: Character, catalogue: dict) -> Card:
    """Another PJ of the party as a player sees it (what the DJ keeps secret left out, a
    secret Afección's effect too: that is its own player's)."""
    state = character.snapshot.state
    return build(character, state, catalogue=catalogue, for_player=True, owner=False)


def turn_for(pk: int, now: PartyNow) -> dict | None:
    """Where PJ `pk` stands in the fight going on: whose turn it is, whether it is this
    PJ's, or next, or after whom it comes; None with no fight on."""
    fight = now.fight
    if fight is None or fight.current_slot is None:
        return None
    mine = fight.slot_of(pk)
    before, left = None, 0
    if mine is not None and mine != fight.current:
        # The one players see last before this PJ (a PNJ still hidden is not named).
        seen = [s for s in fight.order[:mine] if reveal.visible(s, now.names)]
        before = slot_name(seen[-1], now.names) if seen else None
        # The turns players see still to come before this PJ's, the one going on included:
        # "after the three enemies" is one turn of a group, not three.
        c = fight.current
        coming = fight.order[c:mine] if mine > c else fight.order[c:] + fight.order[:mine]
        left = sum(1 for s in coming if reveal.visible(s, now.names))
    current = fight.current_slot
    return {
        "round": fight.round,
        # A turn players do not see (a hidden PNJ's lost turn) is nobody's to them.
        "now": slot_name(current, now.names) if reveal.visible(current, now.names) else "",
        "mine": mine == fight.current,
        "in_order": mine is not None,
        "next": mine is not None and fight.next_slot is fight.order[mine] and mine != fight.current,
        "first": mine is not None and mine != fight.current and before is None,
        "after": before,
        "left": left,
    }


def foes(now: PartyNow, catalogue: dict) -> list[dict]:
    """The PNJ of the fight going on as players see them (campaign.reveal), in the order's
    order, those taken out last: "an enemy", a name, its state in words, or its card. One
    taken out says so ("out of the fight"), why only when its state is shown."""
    fight = now.fight
    if fight is None:
        return []
    by_pk = {c.pk: c for c in now.pnj}
    acting = reveal.turn_acts(fight, by_pk)
    fighting = [pk for s in fight.order for pk in s.members]
    shown = []
    for pk in fighting + [pk for pk in fight.out if pk not in fighting]:
        character = by_pk.get(pk)
        how = reveal.seen(character, fight, acting=acting) if character is not None else None
        if character is None or how is None:
            continue
        words = how.words or ([_("out of the fight")] if pk in fight.out else [])
        card = None
        if how.card:
            state = character.snapshot.state
            card = build(character, state, catalogue=catalogue, for_player=True, owner=False)
        shown.append(
            {
                "name": how.name,
                "named": how.named,
                "ally": character.side == Character.Side.ALIADO,
                "words": ", ".join(words),
                "out": pk in fight.out,
                "card": card,
                "turn": fight.current_slot is not None and pk in fight.current_slot.members,
            }
        )
    return shown


def own_card(view: SheetView, character: Character | None = None) -> Card:
    """The sheet's own card (of `character`, read anew, when given)."""
    return sheet_card(character or view.character, view.catalogue, party=view.now.clock)


def page(view: SheetView) -> dict:
    """What the sheet's page shows."""
    return {
        "campaign": view.campaign,
        "character": view.character,
        "card": own_card(view),
        "party": [party_card(c, view.catalogue) for c in view.party],
        "clock": clock_parts(view.now.clock),
        "round": view.now.round,
        "in_fight": view.now.fight is not None,
        "turn": turn_for(view.character.pk, view.now),
        "foes": foes(view.now, view.catalogue),
    }
