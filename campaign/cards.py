"""The condition card of a PJ as templates show it: the engine's state in the table's words.

Pure presentation: takes a PJ and its public state (selectors give both) and returns plain
data in the active language. The DJ's board and the player's sheet share it; `for_player`
leaves out what the DJ keeps secret.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rules import ENGINE_KEY, texts
from rules.state import modifier_sources
from rules.vocab import (
    CHECKS,
    DERIVED_SPECIALS,
    GRADES,
    MODIFIED_SCORES,
    OBSTACULO,
    SCORES,
    TYPES,
)

from . import fight, selectors
from .models import Campaign, Character

DAY = 86400

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


def lang() -> str:
    return (translation.get_language() or "es")[:2]


def clock_parts(seconds: int) -> dict:
    """Day (from 1), hours and minutes of a game clock in seconds."""
    day, rest = divmod(int(seconds), DAY)
    return {"day": day + 1, "hh": rest // 3600, "mm": rest % 3600 // 60, "ss": rest % 60}


@dataclass
class Box:
    grade: str
    label: str
    marked: bool
    active: bool
    ask: str = ""  # the choice applying this grade needs first (board.ask), if any

    # Words of the box's button, here rather than in the template (a board has 120 boxes).
    @property
    def state_word(self) -> str:
        return _("marked") if self.marked else _("not marked")

    @property
    def initial(self) -> str:
        return self.label[:1]


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

    @property
    def secret_label(self) -> str:
        if self.secret:
            return _("Show %(name)s to the player") % {"name": self.label}
        return _("Keep %(name)s secret") % {"name": self.label}

    @property
    def secret_word(self) -> str:
        return _("show") if self.secret else _("hide")


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
    behind: int = 0  # seconds its clock is behind the party's (board cards only)

    @property
    def pending_total(self) -> int:
        """Every check waiting, each pile counted whole."""
        return sum(p.count for p in self.pending)

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


def _ask(type_: str, grade: str, especificos: bool, marked: list[str] = ()) -> str:
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
    catalogue: dict[str, object] | None = None,
    for_player: bool = False,
    especificos: bool = False,
) -> Card:
    """The card of `character` in `state` (public SPEC §8 keys), in the active language.

    `catalogue` maps names to CatalogueEntry rows, for the effect text of E.Esp, diseases
    and poisons; `for_player` drops the names the DJ marked secret.
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
        if for_player and name in secret:
            continue
        entry = catalogue.get(name)
        effect = ""
        if entry is not None and phase:
            effect = getattr(entry, f"effect_{phase}", "") or getattr(entry, "effect", "")
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
            attribute=p["attribute"],
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


INTENTS = ("normal", "flee", "fight")
CAP = -3


def modifier_breakdown(data, characters: list[Character]) -> dict | None:
    """R20/R21 for one action: each source of Obstáculo or Facilidad, the sum and the cap.

    `data` holds pj (a PJ's pk), attribute, intent (normal, flee, fight) and situational
    (a whole number, e.g. -1 or +2). None when no PJ is chosen yet.
    """
    pk = (data.get("pj") or "").strip()
    if not pk:
        return None
    character = next((c for c in characters if str(c.pk) == pk), None)
    if character is None:
        raise ValidationError(_("Choose a PJ of this campaign."))
    attribute = (data.get("attribute") or "FUE").strip().upper()
    if attribute not in (*ATTRIBUTES, "INT", "OTRO"):
        raise ValidationError(_("Choose an attribute."))
    intent = (data.get("intent") or "normal").strip()
    if intent not in INTENTS:
        raise ValidationError(_("Choose normal, flee or fight."))
    raw = (data.get("situational") or "0").strip().replace("+", "").replace("−", "-")
    try:
        situational = int(raw or "0")
    except ValueError:
        raise ValidationError(
            _("The situational modifier is a whole number, e.g. -1 or 2.")
        ) from None
    if not -10 <= situational <= 10:
        raise ValidationError(_("The situational modifier must be between -10 and 10."))
    state = character.snapshot.state
    active = state["active"]
    code = lang()
    # The engine says which E.Alt modify this action and by how much (R20/R21); the card
    # only puts each in words.
    key = attribute if attribute in MODIFIED_SCORES else "otro"
    purpose = None if intent == "normal" else intent
    lines = []
    for kind, rule, value in modifier_sources(active, state["emotion"]["grave"], key, purpose):
        variant = state["emotion"][active["emocion"]] if kind == "emocion" else None
        title = texts.card(kind, active[kind], variant, lang=code)["title"]
        lines.append((title, rule, value))
    if situational:
        lines.append((_("Situational"), "", situational))
    total = sum(value for _label, _rule, value in lines)
    return {
        "character": character,
        "attribute": attribute,
        "intent": intent,
        "situational": situational,
        "lines": lines,
        "raw": total,
        "total": max(CAP, total),
        "capped": total < CAP,
    }


# -- the DJ's board ------------------------------------------------------------------

TIME_BUTTONS = (
    (1, "minutes", "+1 min"),
    (10, "minutes", "+10 min"),
    (1, "hours", "+1 h"),
)
ATTRIBUTE_CHOICES = (*MODIFIED_SCORES, "INT", "OTRO")


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


def party_clock(characters: list[Character]) -> int:
    """The party's game time: the furthest the PJ in play (`characters`) have got."""
    return max((c.snapshot.state["clock"] for c in characters), default=0)


def gap_words(seconds: int) -> str:
    """A stretch of game time in words: "8 h", "1 día y 2 h", "25 min", "12 s"."""
    days, rest = divmod(int(seconds), DAY)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if days:
        parts.append(ngettext("%(n)s day", "%(n)s days", days) % {"n": days})
    if hours:
        parts.append(f"{hours} h")
    if minutes:
        parts.append(f"{minutes} min")
    if secs and not days and not hours:
        parts.append(f"{secs} s")
    if len(parts) > 1:
        return _("%(first)s and %(last)s") % {"first": ", ".join(parts[:-1]), "last": parts[-1]}
    return parts[0] if parts else ""


def party_who(event, names: dict[int, str], in_play: set[int]) -> str:
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


def signed(value: int) -> str:
    """+1, 0, −3 as a modifier is read at the table (with a real minus sign)."""
    if not isinstance(value, int) or value == 0:
        return "0"
    return f"+{value}" if value > 0 else f"−{-value}"


def fight_view(
    now, names: dict[int, str], in_play: dict[int, Character], campaign: Campaign
) -> dict | None:
    """The fight going on (campaign.fight.Fight) as the pages show it: its round, its order
    with whose turn it is and who is next, and whether the PJ whose turn it is loses it."""
    if now is None:
        return None
    if any(s.pj is not None and s.pj not in names for s in now.order):
        names = selectors.character_names(campaign=campaign)  # a PJ archived mid-fight
    slots = []
    for i, slot in enumerate(now.order):
        pj = in_play.get(slot.pj) if slot.pj is not None else None
        slots.append(
            {
                "name": fight.slot_name(slot, names),
                "pj": slot.pj,
                "init": slot.init,
                "current": i == now.current,
                "next": slot is now.next_slot and i != now.current,
                "away": slot.pj is not None and pj is None,  # archived meanwhile
                "cannot_act": pj is not None and not pj.snapshot.state["can_act"],
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
    }


def sheet_card(
    campaign: Campaign, character: Character, catalogue: dict, *, party: int | None = None
) -> Card:
    """A player's own card, saying how far its PJ is behind the party's clock (`party`, read
    from the campaign when not given: one who renders many cards reads it once)."""
    card = build(character, character.snapshot.state, catalogue=catalogue, for_player=True)
    if party is None:
        party = selectors.campaign_clock(campaign=campaign)
    card.behind = max(0, party - character.snapshot.state["clock"])
    return card


NOT_READ = object()


def turn_for(
    campaign: Campaign, pk: int, *, now: object = NOT_READ, names: dict | None = None
) -> dict | None:
    """Where PJ `pk` stands in the fight going on, for its player's sheet: whose turn it is,
    whether it is this PJ's, or next, or after whom it comes; None with no fight on.
    `now` (the fight, or None) and `names` are read from the campaign when not given."""
    if now is NOT_READ:
        now = selectors.fight_now(campaign=campaign)
    if now is None or now.current_slot is None:
        return None
    if names is None:
        names = selectors.character_names(campaign=campaign)
    mine = now.slot_of(pk)
    before = None
    if mine is not None and mine != now.current:
        before = fight.slot_name(now.order[mine - 1], names) if mine > 0 else None
    return {
        "round": now.round,
        "now": fight.slot_name(now.current_slot, names),
        "mine": mine == now.current,
        "in_order": mine is not None,
        "next": mine is not None and now.next_slot is now.order[mine] and mine != now.current,
        "first": mine == 0 and now.current != 0,
        "after": before,
    }


def _undoable(recent: list) -> object | None:
    """What Deshacer would take back: the newest event not void nor a PJ's scores, unless
    its session has ended (then nothing: the event's own page voids it)."""
    latest = next(
        (e for e in recent if not e.is_void and e.event.get("kind") not in selectors.NOT_UNDONE),
        None,
    )
    if latest is not None and latest.session_id and latest.session.ended_at is not None:
        return None
    return latest


def _undo_note(recent: list) -> str:
    """Why Deshacer is off: nothing recorded yet, or the last event's session has ended."""
    latest = next(
        (e for e in recent if not e.is_void and e.event.get("kind") not in selectors.NOT_UNDONE),
        None,
    )
    if latest is not None and latest.session_id and latest.session.ended_at is not None:
        return _("The last event is from a session that has ended: void it from the history.")
    return _("Nothing to undo")


def board_panels(campaign: Campaign, characters: list[Character]) -> dict:
    """The clock, the fight's order, the undo button and recent events: what every action
    refreshes."""
    clock = party_clock(characters)
    recent = selectors.recent_events(campaign=campaign)
    # The names the board holds already; the database only for a PJ it does not (one
    # archived since a party event reached it, or in a fight's order).
    names = {c.pk: c.name for c in characters}
    names.update((e.character_id, e.character.name) for e in recent if e.character_id)
    wanted = {int(pk) for e in recent if not e.character_id for pk in e.effects or {}}
    if not wanted <= set(names):
        names = selectors.character_names(campaign=campaign)
    fighting = fight_view(
        selectors.fight_now(campaign=campaign), names, {c.pk: c for c in characters}, campaign
    )
    in_play = {c.pk for c in characters}
    for event in recent:
        event.who = party_who(event, names, in_play)
    return {
        "campaign": campaign,
        "characters": characters,
        "clock": clock_parts(clock),
        "round": fighting["round"] if fighting else selectors.current_round(campaign=campaign) + 1,
        "fight": fighting,
        "recent": recent,
        "latest": _undoable(recent),
        "undo_note": _undo_note(recent),
        "voidable": any(not e.is_void for e in recent),
        "time_buttons": TIME_BUTTONS + ((1, "days", _("+1 day")),),
        "attribute_choices": ATTRIBUTE_CHOICES,
    }
