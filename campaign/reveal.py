"""What players see of the DJ's PNJ. The DJ sees everything; a player sees of a PNJ only
what the DJ revealed (Character.revealed, lurking, shows):

- not revealed: "an enemy" / "an ally" in the fight's order, or nothing at all while it is
  `lurking` and its first turn has not come;
- revealed: its name, and (`shows`) its state in the words the table says aloud, or its
  whole card.

Every page, stream, export and picture a player gets reads PNJ through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .models import Character
from .turn_order import Fight, Slot


@dataclass(frozen=True)
class Seen:
    """One PNJ as players see it."""

    name: str
    named: bool
    words: list[str] = field(default_factory=list)
    card: bool = False


def anonymous(character: Character) -> str:
    return _("an ally") if character.side == Character.Side.ALIADO else _("an enemy")


def seen(character: Character, fight: Fight | None, *, acting: bool = False) -> Seen | None:
    """How players see `character` (a PJ: as it is); None: not at all. `acting`: the turn
    going on is one its slot acts in (`turn_acts`: a PNJ hidden until its first turn shows
    in it, not in a turn it loses)."""
    if not character.is_pnj:
        return Seen(character.name, True)
    if not character.revealed:
        if character.lurking and not _has_had_a_turn(character, fight, acting):
            return None
        return Seen(anonymous(character), False)
    shows = character.shows
    words: list[str] = []
    if shows != Character.Shows.NOMBRE:
        out = fight.out.get(character.pk) if fight is not None else None
        words = state_words(character.snapshot.state, out=out)
    return Seen(character.name, True, words, shows == Character.Shows.FICHA)


def state_shown(character: Character | None) -> bool:
    """Whether players read `character`'s state (a PJ; a PNJ revealed with its state or its
    card): why it left the fight, that it lost its turn. None: one players know nothing of."""
    return character is not None and (
        not character.is_pnj or (character.revealed and character.shows != Character.Shows.NOMBRE)
    )


def turn_acts(fight: Fight | None, characters: Mapping[int, Character]) -> bool:
    """Whether the turn going on is one its slot acts in: as the log tells it once passed
    (Fight.acts, the history's), else whether one of it can act now. A lost turn is no
    appearance, so a PNJ hidden until its first turn stays hidden through it."""
    slot = fight.current_slot if fight is not None else None
    if slot is None:
        return False
    if fight is not None and fight.acts is not None:
        return fight.acts
    return any(characters[pk].snapshot.state["can_act"] for pk in slot.members if pk in characters)


def _has_had_a_turn(character: Character, fight: Fight | None, acting: bool) -> bool:
    if fight is None:
        return False
    if character.pk in fight.out or character.pk in fight.seen:
        return True  # it acted in a turn, or it fought and was taken out
    slot = fight.current_slot
    return acting and slot is not None and character.pk in slot.members


def appeared(fight: Fight, characters: Mapping[int, Character]) -> set[int]:
    """Who of `fight` players have seen act (or leave it): a PNJ hidden until its first
    turn shows from then on (the DJ's board says which are still hidden)."""
    slot = fight.current_slot
    now = set(slot.members) if slot is not None and turn_acts(fight, characters) else set()
    return fight.seen | set(fight.out) | now


def slot_names(
    fight: Fight, characters: Mapping[int, Character], names: Mapping[int, str]
) -> dict[int, str]:
    """The names players read for the characters of `fight`'s order: PJ by name (`names`),
    PNJ as `seen` says; a PNJ players do not see is left out (its slot too, when nobody
    of it is seen: `visible`)."""
    acting = turn_acts(fight, characters)
    shown = {}
    for pk in fight.fighting:
        character = characters.get(pk)
        if character is None or not character.is_pnj:
            if pk in names:
                shown[pk] = names[pk]
            continue
        if (how := seen(character, fight, acting=acting)) is not None:
            shown[pk] = how.name
    return shown


def visible(slot: Slot, shown: Mapping[int, str]) -> bool:
    """Whether players see `slot` of the order at all (`shown`: slot_names)."""
    return slot.pj is None or any(pk in shown for pk in slot.members)


def state_words(state: dict, *, out: str | None = None) -> list[str]:
    """A state as the table says it aloud: "wounded", "dazed", "out of the fight"…
    (["unhurt"] when there is nothing to say)."""
    marks = state["marks"]
    words = []
    if "incapacitado" in state["specials"] and out is None:
        words.append(_("incapacitated"))
    if out is not None or "inconsciente" in state["specials"]:
        words.append(
            _("unconscious")
            if out == "inconsciente" or "inconsciente" in state["specials"]
            else _("out of the fight")
        )
    serious = {"grave", "persistente"}
    if heridas := marks["heridas"]:
        words.append(_("badly wounded") if serious & set(heridas) else _("wounded"))
    if marks["shock"] and "inconsciente" not in state["specials"]:
        words.append(_("dazed"))
    if fatiga := marks["fatiga"]:
        words.append(_("exhausted") if serious & set(fatiga) else _("tired"))
    if marks["emocion"]:
        words.append(_("shaken"))
    if state["afflictions"]:
        words.append(_("unwell"))
    if not state["can_act"] and out is None and not words:
        words.append(_("cannot act"))
    return words or [_("unhurt")]
