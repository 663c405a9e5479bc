"""A fight's turn order: who acts now, who is next, which round it is.

Zodiac's initiative rule is not in our chapter: the table decides the order and the DJ types
it in. A fight lives in the campaign's log, as campaign-wide events of kind "fight" that
reach no PJ (their effects are empty: no PJ's log holds them, the rules never see them),
so the history keeps it and Deshacer takes back a turn like any other tap:

    {"kind": "fight", "do": "start", "order": [slot, ...]}
    {"kind": "fight", "do": "order", "order": [slot, ...], "current": i}
    {"kind": "fight", "do": "pass", "slot": i, "lost": bool}
    {"kind": "fight", "do": "order", "order": [...], "current": i,
     "out": {"pj": pk, "why": "huye"}}                  (one taken out of the fight)
    {"kind": "fight", "do": "end", "archived": [pk, ...]}  (the enemies it archived)

A slot is a character, PJ or PNJ, {"pj": pk, "init": n} (the key says "pj" for both: the
logs kept it before there were PNJ), with {"also": [pk, ...]} for copies of one Plantilla
that act together in one turn, and {"esfuerzo": false} when the DJ marked it as not
exerting itself (R27: its rounds are then activo; a slot without the key exerts itself,
as every fight recorded before rules v2.2 reads); or, in logs from before PNJ, someone
named with no state, {"npc": n, "name": "Oni", "init": n}. "init" is the initiative
typed, or None.
The fight's round starts at 1; time passing (a round, or longer) starts the next round at
the first slot. Passing the last slot's turn records the round with it (services.fight).

Here: reading those events (`fold`, `turns`) and checking one before it is recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

KIND = "fight"
DOINGS = ("start", "order", "pass", "end")
# Why a combatant leaves the fight (Fuera de combate); the words are present's.
OUT_WHY = ("incapacitado", "inconsciente", "huye", "otro")
NAME_MAX = 40
SLOTS_MAX = 40
INIT_RANGE = (-99, 999)
# An initiative as typed: a sign (or none), then digits ("−" too: a phone's keyboard).
_INIT = re.compile(r"[-+\u2212]?[0-9]{1,6}")
# Numbers from two on, in words: "tres enemigos" (a group players see unrevealed).
NUMBERS = (
    gettext_lazy("two"),
    gettext_lazy("three"),
    gettext_lazy("four"),
    gettext_lazy("five"),
    gettext_lazy("six"),
    gettext_lazy("seven"),
    gettext_lazy("eight"),
    gettext_lazy("nine"),
    gettext_lazy("ten"),
    gettext_lazy("eleven"),
    gettext_lazy("twelve"),
)


@dataclass(frozen=True)
class Slot:
    pj: int | None = None
    npc: int | None = None
    name: str = ""
    init: int | None = None
    also: tuple[int, ...] = ()
    # R27 (v2.2): whether its rounds count as esfuerzo (False: the DJ says it does not
    # exert itself: it keeps watch, it hides).
    esfuerzo: bool = True

    @property
    def key(self) -> tuple[str, int]:
        """Who the slot is, whatever its place: ("pj", pk) or ("npc", n)."""
        return ("pj", self.pj) if self.pj is not None else ("npc", self.npc or 0)

    @property
    def members(self) -> tuple[int, ...]:
        """The characters who act in this slot's turn (a group: several)."""
        return (self.pj, *self.also) if self.pj is not None else ()

    def as_event(self) -> dict:
        if self.pj is not None:
            item: dict = {"pj": self.pj, "init": self.init}
            if self.also:
                item["also"] = list(self.also)
            if not self.esfuerzo:
                item["esfuerzo"] = False
            return item
        return {"npc": self.npc, "name": self.name, "init": self.init}

    @classmethod
    def read(cls, item: dict) -> Slot:
        if item.get("pj") is not None:
            return cls(
                pj=item["pj"],
                init=item.get("init"),
                also=tuple(item.get("also") or ()),
                esfuerzo=item.get("esfuerzo") is not False,
            )
        return cls(npc=item.get("npc"), name=item.get("name", ""), init=item.get("init"))


@dataclass
class Fight:
    """A fight going on: its order, its round (1, 2…) and whose turn it is."""

    order: list[Slot]
    round: int
    current: int
    start_seq: int
    # Who has had a turn and acted in it (a PNJ hidden until its first turn shows from
    # then on): the members of each slot whose turn passed not lost. A lost turn is no
    # appearance; the turn going on is reveal's to judge (whether it can act now).
    seen: set[int] = field(default_factory=set)
    # Who was taken out of the fight, and why (OUT_WHY).
    out: dict[int, str] = field(default_factory=dict)
    # Whether the turn going on is one its slot acts in, as the log tells it once the turn
    # has passed (not lost: True, lost: False; `turns` sets it for the history); None: the
    # turn is going on, judged by what its slot can do now (campaign.reveal).
    acts: bool | None = None
    # The last event that changed it (its start, an order, a pass, a round).
    seq: int = 0

    def copy(self) -> Fight:
        """The fight as it stands, apart from what happens to this one next."""
        return Fight(
            list(self.order),
            self.round,
            self.current,
            self.start_seq,
            set(self.seen),
            dict(self.out),
            self.acts,
            self.seq,
        )

    @property
    def current_slot(self) -> Slot | None:
        return self.order[self.current] if 0 <= self.current < len(self.order) else None

    @property
    def next_slot(self) -> Slot | None:
        """Who acts after the current slot: the next one, or the first of the next round."""
        if not self.order:
            return None
        return self.order[(self.current + 1) % len(self.order)]

    @property
    def last_turn(self) -> bool:
        """Whether the current turn is the round's last: passing it passes the round."""
        return self.current >= len(self.order) - 1

    @property
    def token(self) -> str:
        """Where the fight stands, as a page saw it: "round:turn" (a tap from a page that
        saw another turn is refused, not applied to the wrong one)."""
        return f"{self.round}:{self.current}"

    @property
    def version(self) -> str:
        """The whole fight as a page saw it: its `token`, the last event that changed it
        and a digest of its order (who, in which groups, with which initiative) and of who
        left it. The order page's save is refused when the fight is no longer this one."""
        body = json.dumps(
            [[s.as_event() for s in self.order], sorted(self.out.items()), self.round, self.current]
        )
        digest = hashlib.blake2s(body.encode(), digest_size=4).hexdigest()
        return f"{self.token}:{self.seq}:{digest}"

    def slot_of(self, pk: int) -> int | None:
        """The slot `pk` acts in (alone, or with its group), or None."""
        return next((i for i, s in enumerate(self.order) if pk in s.members), None)

    @property
    def fighting(self) -> set[int]:
        """Every character in the order."""
        return {pk for s in self.order for pk in s.members}


def turn_lost(states: list[dict]) -> bool:
    """Whether a slot's turn is lost, from its members' stored states: none of them can
    act. One stunned during this very turn (a Shock leve marked in its own turn, R13 of
    rules v2.2) has had that turn: the one it loses is its next."""
    return bool(states) and not any(
        state["can_act"] or state.get("engine", {}).get("shock_leve_own_turn") for state in states
    )


def initiative_error() -> str:
    """What a refused initiative is told, wherever it was typed or stored."""
    return _("The initiative: a whole number from %(low)s to %(high)s, or blank.") % {
        "low": INIT_RANGE[0],
        "high": INIT_RANGE[1],
    }


def initiative_read(text: str | None) -> int | None:
    """The initiative typed, the one rule of every form that takes one (the board's PNJ
    form, the order page's lines and its add form): blank is None; a whole number within
    INIT_RANGE, with its sign, is that number; anything else (letters, decimals, "--3", a
    number out of range) is refused with `initiative_error`."""
    text = (text or "").strip()
    if not text:
        return None
    if not _INIT.fullmatch(text):
        raise ValidationError(initiative_error(), code="init")
    value = int(text.replace("\u2212", "-"))
    if not INIT_RANGE[0] <= value <= INIT_RANGE[1]:
        raise ValidationError(initiative_error(), code="init")
    return value


def is_fight(event: dict) -> bool:
    return isinstance(event, dict) and event.get("kind") == KIND


def step(fight: Fight | None, seq: int, event: dict) -> Fight | None:
    """The fight after one more (non-void, campaign-wide) event of the log."""
    kind = event.get("kind")
    if kind == KIND:
        doing = event.get("do")
        if doing == "start":
            return Fight([Slot.read(s) for s in event["order"]], 1, 0, seq, seq=seq)
        if fight is None:
            return None
        if doing == "end":
            return None
        fight.seq = seq
        if doing == "order":
            fight.order = [Slot.read(s) for s in event["order"]]
            fight.current = event["current"]
            for pk in fight.fighting:  # one taken out and put back by the DJ: in it again
                fight.out.pop(pk, None)
            if isinstance(out := event.get("out"), dict):
                fight.out[out["pj"]] = out["why"]
        elif doing == "pass":
            if not event.get("lost") and 0 <= event["slot"] < len(fight.order):
                fight.seen.update(fight.order[event["slot"]].members)
            fight.current = event["slot"] + 1
        return fight
    if fight is not None and kind in ("time", "descanso"):
        fight.seq = seq
        rounds = event.get("rounds")
        fight.round += rounds if kind == "time" and isinstance(rounds, int) else 1
        fight.current = 0
    return fight


def fold(events: Iterable[tuple[int, dict]]) -> Fight | None:
    """The fight going on after `events` ((seq, event), in seq order), or None."""
    fight = None
    for seq, event in events:
        fight = step(fight, seq, event)
    return fight


def turns(events: Iterable[tuple[int, dict]], seqs: Iterable[int]) -> dict[int, Fight]:
    """For each of `seqs` that happened during a fight, the fight as it stood then (its
    round, and the slot whose turn it was), with how that turn went (`acts`) when `events`
    reach its pass: `events` are the fight's and time's events from a fight's start before
    the first of `seqs` (or earlier) to the last, and some after it."""
    timeline = list(events)
    after: list[Fight | None] = []  # the fight right after each event of the timeline
    fight = None
    for seq, event in timeline:
        fight = step(fight, seq, event)
        after.append(fight.copy() if fight is not None else None)
    # How the turn going on after each event went: its pass, lost or not; None when no pass
    # ended it within the timeline (it goes on, or the order or the round moved it).
    acts: list[bool | None] = [None] * len(timeline)
    for i in range(len(timeline) - 2, -1, -1):
        here, then, event = after[i], after[i + 1], timeline[i + 1][1]
        if here is None or here.current_slot is None:
            continue
        if is_fight(event) and event.get("do") == "pass":
            acts[i] = not event.get("lost")
        elif (
            then is not None
            and then.round == here.round
            and then.current_slot is not None
            and then.current_slot.key == here.current_slot.key
        ):
            acts[i] = acts[i + 1]  # the same turn goes on (a new order kept it)
    out: dict[int, Fight] = {}
    cursor = 0
    for seq in sorted(seqs):
        while cursor < len(timeline) and timeline[cursor][0] < seq:
            cursor += 1
        at = cursor - 1
        if cursor < len(timeline) and timeline[cursor][0] == seq:
            event = timeline[cursor][1]
            if is_fight(event) and event.get("do") == "start":
                at = cursor  # the start belongs to the fight it starts
        here = after[at] if at >= 0 else None
        if here is not None and here.current_slot is not None:
            out[seq] = here.copy()
            out[seq].acts = acts[at]
    return out


def slot_name(slot: Slot, names: Mapping[int, str]) -> str:
    """The slot as the order reads it: its character, a group's members, or the name typed
    (a PNJ a viewer may not see is left out of a group, `names` lacking it)."""
    if slot.pj is None:
        return slot.name
    if not slot.also:
        return names.get(slot.pj, "?")
    # A group: its members, the same name once with its count ("tres enemigos").
    shown = [names[pk] for pk in slot.members if pk in names]
    return counted_names(shown) or "?"


def counted_names(names: list[str]) -> str:
    """A group's names, each once with how many ("Bandido 1, Bandido 2", "tres enemigos",
    "Oni ×2")."""
    counts = {name: names.count(name) for name in names}
    return ", ".join(counted(name, n) for name, n in counts.items())


def counted(name: str, n: int) -> str:
    """`name` that comes back `n` times: "tres enemigos" for those players read unrevealed
    (campaign.reveal's words), as the table says it; else "Oni ×2"."""
    if n < 2:
        return name
    if name in (_("an enemy"), _("an ally")):
        many = _("%(n)s enemies") if name == _("an enemy") else _("%(n)s allies")
        return many % {"n": NUMBERS[n - 2] if n - 2 < len(NUMBERS) else n}
    return f"{name} ×{n}"


def order_text(fight: Fight, names: dict[int, str]) -> str:
    """ "Aiko (15) → Oni (12) → Kenji": the order, with the initiatives typed."""
    return " → ".join(
        f"{slot_name(s, names)} ({s.init})" if s.init is not None else slot_name(s, names)
        for s in fight.order
    )


def with_pj(event: dict, mapping: dict[int, int]) -> dict:
    """`event` with the PJ of its order renamed by `mapping` (a backup's refs and a
    campaign's pks, either way); a PJ not in `mapping` keeps its number, which check()
    then refuses."""
    if not is_fight(event):
        return event

    def renamed(item: object) -> object:
        if not isinstance(item, dict) or "pj" not in item:
            return item
        item = {**item, "pj": mapping.get(item["pj"], item["pj"])}
        if isinstance(item.get("also"), list):
            item["also"] = [mapping.get(pk, pk) for pk in item["also"]]
        return item

    event = {**event}
    if isinstance(event.get("order"), list):
        event["order"] = [renamed(item) for item in event["order"]]
    if isinstance(event.get("out"), dict):
        event["out"] = renamed(event["out"])
    if isinstance(event.get("archived"), list):
        event["archived"] = [mapping.get(pk, pk) for pk in event["archived"]]
    return event


def check(event: dict, *, in_play: set[int]) -> None:
    """Refuse (ValidationError) a fight event that is not well formed, or names a PJ that
    is not in play. Whether it fits the fight going on is services.fight's to say."""
    doing = event.get("do")
    allowed = {"kind", "do", "order", "current", "slot", "lost", "seed", "out", "archived"}
    if doing not in DOINGS or set(event) - allowed:
        raise ValidationError(_("That is not a fight action."), code="invalid")
    seen: set = set()
    if doing in ("start", "order"):
        order = event.get("order")
        if not isinstance(order, list) or not order:
            raise ValidationError(_("A fight needs someone in its order."), code="empty")
        if len(order) > SLOTS_MAX:
            raise ValidationError(
                _("At most %(n)s in a fight's order.") % {"n": SLOTS_MAX}, code="too_many"
            )
        for item in order:
            slot = _slot(item, in_play)
            keys = {slot.key} | {("pj", pk) for pk in slot.also}
            if keys & seen or len(keys) < 1 + len(slot.also):
                raise ValidationError(_("Someone is twice in the order."), code="twice")
            seen |= keys
        if doing == "order" and not _index(event.get("current"), len(order)):
            raise ValidationError(_("Whose turn it is must be in the order."), code="invalid")
    if "out" in event and (
        doing != "order"
        or not isinstance(out := event["out"], dict)
        or set(out) != {"pj", "why"}
        or out["why"] not in OUT_WHY
        or not isinstance(out["pj"], int)
        or ("pj", out["pj"]) in seen
    ):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    if "archived" in event and (
        doing != "end"
        or not isinstance(event["archived"], list)
        or not all(isinstance(pk, int) and not isinstance(pk, bool) for pk in event["archived"])
    ):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    if doing == "pass" and (
        not _index(event.get("slot"), SLOTS_MAX) or not isinstance(event.get("lost"), bool)
    ):
        raise ValidationError(_("That is not a fight action."), code="invalid")


def _index(value: object, length: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < length


def _pk_in(pk: object, in_play: set[int]) -> bool:
    return isinstance(pk, int) and not isinstance(pk, bool) and pk in in_play


def _slot(item: object, in_play: set[int]) -> Slot:
    if not isinstance(item, dict):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    init = item.get("init")
    if init is not None and (
        not isinstance(init, int)
        or isinstance(init, bool)
        or not INIT_RANGE[0] <= init <= INIT_RANGE[1]
    ):
        raise ValidationError(initiative_error(), code="init")
    if "pj" in item:
        also = item.get("also", [])
        if set(item) - {"pj", "init", "also", "esfuerzo"} or not isinstance(
            item.get("esfuerzo", False), bool
        ):
            raise ValidationError(_("That is not a fight action."), code="invalid")
        if (
            not _pk_in(item["pj"], in_play)
            or not isinstance(also, list)
            or not all(_pk_in(pk, in_play) for pk in also)
        ):
            raise ValidationError(_("That PJ or PNJ is not in play."), code="pj")
        return Slot(
            pj=item["pj"], init=init, also=tuple(also), esfuerzo=item.get("esfuerzo") is not False
        )
    name = item.get("name")
    if set(item) - {"npc", "name", "init"} or not _index(item.get("npc"), 10_000):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
        raise ValidationError(
            _("Each one in the order needs a name of at most %(n)s characters.") % {"n": NAME_MAX},
            code="name",
        )
    return Slot(npc=item["npc"], name=name, init=init)
