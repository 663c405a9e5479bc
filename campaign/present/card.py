"""A character's condition card as templates show it: the engine's state in the table's words.

Takes a character and its state (a screen's selector reads both) and returns plain data in
the active language. The DJ's board and the player's sheet share it; `for_player` leaves
out what the DJ keeps secret.
"""

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.text import capfirst
from django.utils.translation import gettext as _

from rules import ENGINE_KEY, texts
from rules.vocab import (
    CHECKS,
    DERIVED_SPECIALS,
    GRADES,
    MODIFIED_SCORES,
    OBSTACULO,
    SCORES,
    TYPES,
)

from ..models import Campaign, Character
from . import lang
from .figures import clock_parts, gap_words, signed

# The rules a card links for each type (its effect, overflow and recovery).
TYPE_RULES = {
    "heridas": ("R4", "R5", "R6"),
    "fatiga": ("R8", "R9", "R10"),
    "shock": ("R11", "R12", "R13"),
    "emocion": ("R14", "R16", "R17"),
    "afeccion": ("R18", "R19"),
}
CHECK_RULE = {name: rule for name, (_attribute, _optional, rule) in CHECKS.items()}
ATTRIBUTES = MODIFIED_SCORES


def calc_key(state: dict) -> str:
    """What the modifier calculator reads of a state (the active grades, the Emoción's
    variants and cause), as a short key: a card and the calculator's result that carry the
    same key agree, and the calculator asks again when its PJ's card changes key."""
    active, emotion = state["active"], state["emotion"]
    read = [active[t] or "" for t in TYPES]
    read += [emotion[g] or "" for g in GRADES] + [emotion["grave_cause"] or ""]
    return f"{zlib.crc32(chr(31).join(read).encode()):08x}"


@dataclass
class Box:
    grade: str
    label: str
    marked: bool
    active: bool
    ask: str = ""  # the choice applying this grade needs first (board.ask), if any


@dataclass
class TypeRow:
    type: str
    label: str
    boxes: list[Box]
    active: str | None
    title: str = ""
    effect: str = ""
    ends: str = ""
    rules: tuple[str, ...] = ()
    obstaculo: int = 0
    # Emoción persistente (abatimiento) marked under another active Emoción: its own text.
    also: dict | None = None


@dataclass
class Chip:
    name: str
    label: str
    effect: str = ""
    secret: bool = False
    removable: bool = True  # False for E.Esp the engine derives (Shock, sleep)

    # The chip's buttons' words, written here rather than in the template: a heavy board
    # has a hundred chips, and each word in the template is a node rendered each time.
    @property
    def remove_label(self) -> str:
        return _("Remove %(name)s") % {"name": self.label}

    # Each name starts with the words its button shows (secret_word), so a voice command
    # that says them reaches it (WCAG 2.5.3).
    @property
    def secret_label(self) -> str:
        if self.secret:
            return _("Show to the player: %(name)s") % {"name": self.label}
        return _("Hide from the player: %(name)s") % {"name": self.label}

    @property
    def secret_word(self) -> str:
        return _("show to the player") if self.secret else _("hide from the player")


@dataclass
class PendingCheck:
    check: str
    label: str
    attribute: str
    score: int | None
    optional: bool
    rule: str
    success: str
    fail: str
    # The checks of this name waiting, counted as one row: mandatory ones pile up (one a
    # turn end, one a day), and a roll resolves the oldest of its name.
    count: int = 1


@dataclass
class Card:
    character: Character
    state: dict
    can_act: bool
    asleep: bool
    rows: list[TypeRow]
    specials: list[Chip]
    afflictions: list[Chip]
    phase: str | None
    pending: list[PendingCheck]
    modifiers: list[tuple[str, int]]
    flee: list[tuple[str, int]]
    fight: list[tuple[str, int]]
    emotion_cause: str | None
    clock: dict
    medicine_obstacle: int
    shock_grave: bool = False
    behind: int = 0  # seconds its clock is behind the party's

    @property
    def pending_total(self) -> int:
        """Every check waiting, each pile counted whole."""
        return sum(p.count for p in self.pending)

    @property
    def medicine_note(self) -> str:
        """The Obstáculo a healer's Medicina takes from this patient's Afección (R19), for
        the DJ; "" when none."""
        if not self.medicine_obstacle or not self.phase:
            return ""
        return _("Medicina with Obstáculo %(value)s for the patient's %(phase)s Afección") % {
            "value": signed(self.medicine_obstacle),
            "phase": texts.GRADE_LABELS[self.phase][lang()].lower(),
        }

    @property
    def gets_up(self) -> bool:
        """Whether the card offers "Se levanta": derribado, and able to act."""
        return self.can_act and "derribado" in self.state["specials"]

    @property
    def calc_key(self) -> str:
        return calc_key(self.state)

    @property
    def treated(self) -> bool:
        """Curación or Cirugía already given (R25): another needs a Descanso or new Heridas."""
        return bool(self.state.get(ENGINE_KEY, {}).get("healed"))

    @property
    def scores(self) -> list[tuple[str, int | None]]:
        """The PJ's attribute scores in the game's order (None: not given), then any other
        score the table uses (PER 3), by name."""
        given = self.character.attributes or {}
        others = sorted((name, value) for name, value in given.items() if name not in SCORES)
        return [(name, given.get(name)) for name in SCORES] + others

    @property
    def behind_text(self) -> str:
        return gap_words(self.behind)

    @property
    def has_modifiers(self) -> bool:
        return any(value for _key, value in self.modifiers)

    @property
    def modifier_rows(self) -> list[tuple[str, int, int | None, int | None]]:
        """Each attribute's modifier to actions, and to flee or to fight where one applies."""
        flee, fight = dict(self.flee), dict(self.fight)
        return [(key, value, flee.get(key), fight.get(key)) for key, value in self.modifiers]

    @property
    def marked_rows(self) -> list[TypeRow]:
        return [row for row in self.rows if row.active]

    @property
    def recoverable(self) -> list[tuple[TypeRow, Box]]:
        """The boxes the DJ may recover by hand: every marked one but the Shock persistente
        a sleep shows (waking ends it, R23)."""
        return [
            (row, box)
            for row in self.rows
            for box in row.boxes
            if box.marked
            and not (self.asleep and row.type == "shock" and box.grade == "persistente")
        ]


def _ask(type_: str, grade: str, especificos: bool, marked: Sequence[str] = ()) -> str:
    """Which second tap applying `type_` at `grade` needs (a variant, a source...)."""
    if type_ == "emocion" and grade in ("leve", "grave"):
        return f"emocion-{grade}"
    if type_ == "emocion" and especificos and "grave" in marked:
        return "emocion-persistente"  # R14: abatimiento, or a specific E.Esp instead
    if type_ == "afeccion":
        return "afeccion"
    if type_ == "heridas" and grade == "persistente" and especificos:
        return "especifico"
    return ""


def build(
    character: Character,
    state: dict,
    *,
    catalogue: Mapping[str, object] | None = None,
    for_player: bool = False,
    owner: bool = True,
    especificos: bool = False,
) -> Card:
    """The card of `character` in `state` (public keys, rules/README.md §8), in the UI language.

    `catalogue` maps names to CatalogueEntry rows, for the effect text of E.Esp, diseases
    and poisons; `for_player` drops the names the DJ marked secret. A secret Afección still
    shows its owner its phase's effect, under no name; `owner` False (another player's
    view: the party, a PNJ) shows nothing of it.
    """
    code = lang()
    catalogue = catalogue or {}
    secret = set(character.secret_names or [])
    rows = []
    for type_ in TYPES:
        marked = state["marks"][type_]
        active = state["active"][type_]
        boxes = [
            Box(
                g,
                texts.GRADE_LABELS[g][code],
                g in marked,
                g == active,
                _ask(type_, g, especificos, marked),
            )
            for g in GRADES
        ]
        row = TypeRow(type_, texts.TYPE_LABELS[type_][code], boxes, active)
        if active:
            variant = state["emotion"][active] if type_ == "emocion" else None
            shown = texts.card(type_, active, variant, lang=code, engine=state.get("engine"))
            row.title, row.effect, row.ends = shown["title"], shown["effect"], shown["ends"]
            row.rules = TYPE_RULES[type_]
            if type_ in ("heridas", "fatiga"):
                row.obstaculo = OBSTACULO[active]
        if type_ == "emocion" and "persistente" in marked and active != "persistente":
            row.also = texts.card(type_, "persistente", state["emotion"]["persistente"], lang=code)
        rows.append(row)

    afflictions = set(state["afflictions"])
    phase = state["active"]["afeccion"]
    given = set(state.get("engine", {}).get("specials", [])) if "engine" in state else None
    specials = []
    for name in state["specials"]:
        if name in afflictions:
            continue
        if for_player and name in secret:
            continue
        entry = catalogue.get(name)
        effect = getattr(entry, "effect", "") or (
            texts.SPECIALS[name][code]["effect"] if name in texts.SPECIALS else ""
        )
        removable = name in given if given is not None else name not in DERIVED_SPECIALS
        specials.append(
            Chip(name, capfirst(texts.special_label(name, code)), effect, name in secret, removable)
        )
    affliction_chips = []
    for name in state["afflictions"]:
        entry = catalogue.get(name)
        effect = ""
        if entry is not None and phase:
            effect = getattr(entry, f"effect_{phase}", "") or getattr(entry, "effect", "")
        if for_player and name in secret:
            # The player feels the phase's effect, but does not learn its source's name:
            # a chip without a name, so the DJ need not say the symptoms aloud.
            if owner:
                affliction_chips.append(Chip("", capfirst(_("secret source")), effect))
            continue
        affliction_chips.append(
            Chip(name, capfirst(texts.special_label(name, code)), effect, name in secret)
        )

    scores = character.attributes or {}
    pending: list[PendingCheck] = []
    by_name: dict[str, PendingCheck] = {}
    for p in state["pending"]:
        if (same := by_name.get(p["check"])) is not None:
            same.count += 1
            continue
        text = texts.check_text(p["check"], code)
        by_name[p["check"]] = PendingCheck(
            check=p["check"],
            label=text["label"],
            attribute=texts.score_label(p["attribute"], code),
            score=scores.get(p["attribute"]),
            optional=p["optional"],
            rule=CHECK_RULE[p["check"]],
            success=text["success"],
            fail=text["fail"],
        )
        pending.append(by_name[p["check"]])
    modifiers = [(k, state["modifiers"][k]) for k in (*ATTRIBUTES, "otro")]
    return Card(
        character=character,
        state=state,
        can_act=state["can_act"],
        asleep=state["asleep"],
        rows=rows,
        specials=specials,
        afflictions=affliction_chips,
        phase=phase,
        pending=pending,
        modifiers=modifiers,
        flee=list(state["modifiers_flee"].items()),
        fight=list(state["modifiers_fight"].items()),
        emotion_cause=state["emotion"]["grave_cause"],
        clock=clock_parts(state["clock"]),
        medicine_obstacle=state["medicine_obstacle"],
        shock_grave="grave" in state["marks"]["shock"],
    )


def board_card(
    campaign: Campaign, character: Character, catalogue: dict, *, party_clock: int = 0
) -> Card:
    """A PJ's card as the DJ's board shows it, saying how far it is behind `party_clock`."""
    # The stored state (engine key included) tells given E.Esp from derived ones.
    card = build(
        character,
        character.snapshot.state,
        catalogue=catalogue,
        especificos=campaign.especificos,
    )
    card.behind = max(0, party_clock - character.snapshot.state["clock"])
    return card


def sheet_card(character: Character, catalogue: dict, *, party: int) -> Card:
    """A player's own card, saying how far its PJ is behind the party's clock `party`."""
    card = build(character, character.snapshot.state, catalogue=catalogue, for_player=True)
    card.behind = max(0, party - character.snapshot.state["clock"])
    return card
