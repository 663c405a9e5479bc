"""The DJ's board: its cards and the panels every action refreshes (clock, fight, undo,
recent events), from the board's data (selectors.board_view)."""

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext

from rules import texts
from rules.vocab import GRADES

from .. import reveal
from ..models import Character, Reminder, StateEvent
from ..reminders import END, ROUND, START, due
from ..selectors import BoardView, pnj_made, tap_base
from ..taps import CALCULATOR_ATTRIBUTES, WATCH_ROWS_MAX, WatchRow
from ..turn_order import OUT_WHY, Fight, Slot, slot_name, turn_lost
from . import lang
from .card import Card, board_card
from .figures import clock_parts

# The E.Alt an area blow may give: those that need no second choice (an emotion, a source).
AREA_TYPES = ("heridas", "fatiga", "shock")

# Why one leaves the fight, in the board's words (turn_order.OUT_WHY).
OUT_WORDS = {
    "incapacitado": _lazy("incapacitated"),
    "inconsciente": _lazy("unconscious"),
    "huye": _lazy("fled"),
    "otro": _lazy("another reason"),  # not "out of the fight" again: the choices' heading
}

TIME_BUTTONS = (
    (1, "minutes", "+1 min"),
    (10, "minutes", "+10 min"),
    (1, "hours", "+1 h"),
)


def party_clock(characters: list[Character]) -> int:
    """The party's game time: the furthest the PJ in play (`characters`) have got."""
    return max((c.snapshot.state["clock"] for c in characters), default=0)


def cards(view: BoardView) -> list[Card]:
    """Every card of the board, in its order."""
    clock = party_clock(view.characters)
    return [
        board_card(view.campaign, c, view.catalogue, party_clock=clock) for c in view.characters
    ]


def card(view: BoardView, character: Character) -> Card:
    """One PJ's or PNJ's card on the board (`character` may be one no longer in play). A
    PNJ lives on its own clock: never "behind the party"."""
    clock = 0 if character.is_pnj else party_clock(view.characters)
    return board_card(view.campaign, character, view.catalogue, party_clock=clock)


def pnj_groups(view: BoardView) -> list[dict]:
    """The PNJ section's groups: the copies of one Plantilla folded under its name (when
    there are two or more in play), every other PNJ a group of its own. Out of a fight, a
    group added with "one turn for all" says so (`one_turn`): the next order starts so."""
    groups: list[dict] = []
    leads: dict[int, set] = {}  # each folded group's turn_with, for `one_turn`
    by_template: dict[int, dict] = {}
    count: dict[int, int] = {}
    for c in view.pnj:
        if c.template_id is not None:
            count[c.template_id] = count.get(c.template_id, 0) + 1
    for c in view.pnj:
        entry = board_card(view.campaign, c, view.catalogue)
        if c.template_id is not None and count[c.template_id] > 1:
            if c.template_id not in by_template:
                assert c.template is not None  # read with the PNJ (selectors.board_pnj)
                by_template[c.template_id] = {"name": c.template.name, "cards": []}
                groups.append(by_template[c.template_id])
            by_template[c.template_id]["cards"].append(entry)
            leads.setdefault(c.template_id, set()).add(c.turn_with_id)
        else:
            groups.append({"name": None, "cards": [entry]})
    for template_id, group in by_template.items():
        shared = leads[template_id]
        group["one_turn"] = view.fight is None and len(shared) == 1 and None not in shared
    return groups


def party_who(event: StateEvent, names: dict[int, str], in_play: set[int]) -> str:
    """Who an event is about, as the board names them: its PJ; for a campaign-wide event,
    "Everyone" when it reached every PJ in play (`in_play`), else the PJ it reached (the DJ
    left some out: they kept watch)."""
    if event.character_id:
        return names.get(event.character_id, "?")
    if (event.event or {}).get("kind") == "fight":  # the turn order reaches no PJ
        return _("Fight")
    reached = {int(pk) for pk in event.effects or {}}
    if in_play <= reached:
        return _("Everyone")
    return ", ".join(sorted(names.get(pk, "?") for pk in reached))


# A copy's name: its Plantilla's (or the name typed) and its number ("Bandido 3").
_NUMBERED = re.compile(r"^(.*\S) (\d{1,3})$")


def short_name(slot: Slot, names: dict[int, str]) -> str:
    """A slot as the board's narrow places read it (its order's chips, its turn line and
    pass button): a group of copies by their name and numbers, "Bandido 1–6" for a run of
    three or more, else "Bandido 1, 3"; any other slot as turn_order.slot_name reads it."""
    if slot.pj is not None and slot.also:
        found = [_NUMBERED.match(names.get(pk, "")) for pk in slot.members]
        copies = [m for m in found if m is not None]
        if len(copies) == len(found) and len({m.group(1) for m in copies}) == 1:
            base, numbers = copies[0].group(1), sorted(int(m.group(2)) for m in copies)
            if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
                return f"{base} {numbers[0]}–{numbers[-1]}"
            return f"{base} {', '.join(map(str, numbers))}"
    return slot_name(slot, names)


def fight_view(
    now: Fight | None, names: dict[int, str], in_play: dict[int, Character]
) -> dict | None:
    """The fight going on as the pages show it: its round, its order with whose turn it is
    and who is next, and whether the PJ whose turn it is loses it. `names` holds every PJ
    of its order (selectors.board_view reads them)."""
    if now is None:
        return None
    slots = []
    for i, slot in enumerate(now.order):
        acting = [in_play[pk] for pk in slot.members if pk in in_play]
        name, full = short_name(slot, names), slot_name(slot, names)
        slots.append(
            {
                "name": name,
                "full": full if full != name else "",  # the chip's title: every copy by name
                "pj": slot.pj,
                "members": slot.members,
                "init": slot.init,
                "current": i == now.current,
                "next": slot is now.next_slot and i != now.current,
                "away": slot.pj is not None and not acting,  # archived meanwhile
                # The turn is lost when none of it can act (a group: none of its copies).
                "cannot_act": turn_lost([c.snapshot.state for c in acting]),
            }
        )
    current = slots[now.current] if 0 <= now.current < len(slots) else None
    following = next((s for s in slots if s["next"]), current)
    return {
        "round": now.round,
        "token": now.token,
        "slots": slots,
        "current": current,
        "next": following,
        "last_turn": now.last_turn,
        "lost": bool(current and current["cannot_act"]),
        "out": now.out,
        "fighting": now.fighting,
        # Who has had a turn (a PNJ hidden until its first turn shows from then on).
        "seen": reveal.appeared(now, in_play),
        "has_enemies": any(
            in_play[pk].is_pnj and in_play[pk].side == Character.Side.ENEMIGO
            for pk in now.fighting | set(now.out)
            if pk in in_play
        ),
        "out_names": [
            {"name": names.get(pk, "?"), "why": OUT_WORDS.get(why, why)}
            for pk, why in now.out.items()
        ],
    }


def reminder_when(note: Reminder) -> str:
    """When a note shows, in the board's words."""
    name = note.character.name if note.character is not None else "?"
    if note.when == START:
        return _("at the start of %(name)s's turn") % {"name": name}
    if note.when == END:
        return _("at the end of %(name)s's turn") % {"name": name}
    return _("in round %(round)s") % {"round": note.round}


def reminder_panel(view: BoardView, fighting: dict | None) -> dict:
    """The DJ's notes on the board: those due now (the round's and the turn's start
    under the order, the turn's end beside its pass button), the ones still to come, and
    the pin form's choices (the fight's combatants, else everyone in play)."""
    notes = due(view.reminders, view.fight)

    def shown(note: Reminder) -> dict:
        return {
            "pk": note.pk,
            "who": note.character_id,
            "text": note.text,
            "when": reminder_when(note),
            "every": note.every,
        }

    if fighting is not None:
        who = [(pk, view.names.get(pk, "?")) for s in fighting["slots"] for pk in s["members"]]
    else:
        who = [(c.pk, c.name) for c in [*view.characters, *view.pnj]]
    return {
        "now": [shown(n) for n in [*notes.round, *notes.start]],
        "start": [shown(n) for n in notes.start],
        "end": [shown(n) for n in notes.end],
        "turn_pks": {n.character_id for n in [*notes.start, *notes.end]},
        # Under "Recordatorios (n)…": every note still to come, the end of this turn's too.
        "later": [shown(n) for n in notes.to_come],
        "who": who,
        "round": fighting["round"] + 1 if fighting is not None else 1,
        "whens": [
            (START, _("at the start of the turn of")),
            (END, _("at the end of the turn of")),
            (ROUND, _("in round")),
        ],
    }


def undo_made(latest: StateEvent, recent: list[StateEvent]) -> str:
    """When Deshacer would take back an add of PNJ (selectors.pnj_made: it archives them),
    its button's title: the PNJ that tap made, as far as `recent` goes; else ""."""
    base = tap_base(latest)
    made = [
        e.character.name
        for e in reversed(recent)
        if base and e.character is not None and pnj_made(e) and tap_base(e) == base
    ]
    if not made:
        return ""
    return ngettext("PNJ added: %(names)s", "PNJ added: %(names)s", len(made)) % {
        "names": ", ".join(made)
    }


def _ended(event: StateEvent | None) -> bool:
    return event is not None and event.session is not None and event.session.ended_at is not None


def panels(view: BoardView) -> dict:
    """The clock, the fight's order, the undo button and recent events: what every action
    refreshes."""
    from .events import event_label  # present.events reads party_who from here

    in_play = {c.pk for c in view.characters}
    for event in view.recent:  # for the template, each said once (the list, the void form)
        event.who = party_who(event, view.names, in_play)  # type: ignore[attr-defined]
        event.words = event_label(event.event, view.names)  # type: ignore[attr-defined]
    latest = view.latest
    if latest is not None and not hasattr(latest, "who"):  # older than `recent`
        latest.who = party_who(latest, view.names, in_play)  # type: ignore[attr-defined]
        latest.words = event_label(latest.event, view.names)  # type: ignore[attr-defined]
    # Deshacer takes back the newest event, unless its session has ended (then the event's
    # own page voids it).
    undo_note = _("Nothing to undo")
    if _ended(latest):
        undo_note = _("The last event is from a session that has ended: void it from the history.")
    fighting = fight_view(view.fight, view.names, {c.pk: c for c in [*view.characters, *view.pnj]})
    return {
        "campaign": view.campaign,
        "characters": view.characters,
        "clock": clock_parts(party_clock(view.characters)),
        "round": view.round,
        "fight": fighting,
        "reminders": reminder_panel(view, fighting),
        "recent": view.recent,
        "latest": None if _ended(latest) else latest,
        "undo_made": undo_made(latest, view.recent) if latest else "",
        "undo_note": undo_note,
        "voidable": any(not e.is_void for e in view.recent),
        "time_buttons": TIME_BUTTONS + ((1, "days", _("+1 day")),),
        "attribute_choices": CALCULATOR_ATTRIBUTES,
        "out_choices": [(why, OUT_WORDS[why]) for why in OUT_WHY],
        "area_types": [(t, texts.TYPE_LABELS[t][lang()]) for t in AREA_TYPES],
        "area_grades": [(g, texts.GRADE_LABELS[g][lang()]) for g in GRADES],
        "after_fight": [(c, emotion_grave_words(c.snapshot.state)) for c in view.after_fight],
        "watch_rows": watch_rows_blank(view.characters),
    }


def watch_rows_blank(characters: list[Character]) -> list[WatchRow]:
    """The blank lines of the watches by turns: one a PJ in play (a few at most), none for
    a party of one."""
    count = min(len(characters), WATCH_ROWS_MAX) if len(characters) > 1 else 0
    return [WatchRow(i) for i in range(count)]


def emotion_grave_words(state: dict) -> str:
    """An Emoción grave as the fight's end prompt names it: "ira: el oni"."""
    emotion = state["emotion"]
    variant = emotion["grave"]
    words = texts.VARIANT_LABELS[variant][lang()] if variant in texts.VARIANT_LABELS else ""
    return f"{words}: {emotion['grave_cause']}" if emotion["grave_cause"] else words


def page(view: BoardView) -> dict:
    """The whole board: its panels, every card and the open session."""
    return {
        **panels(view),
        "cards": cards(view),
        "pnj_groups": pnj_groups(view),
        "pnj": view.pnj,
        "templates": view.templates,
        "session": view.session,
    }
