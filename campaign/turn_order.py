"""A fight's turn order: who acts now, who is next, which round it is.

Zodiac's initiative rule is not in our chapter: the table decides the order and the DJ types
it in. A fight lives in the campaign's log, as campaign-wide events of kind "fight" that
reach no PJ (their effects are empty: no PJ's log holds them, the rules never see them),
so the history keeps it and Deshacer takes back a turn like any other tap:

    {"kind": "fight", "do": "start", "order": [slot, ...]}
    {"kind": "fight", "do": "order", "order": [slot, ...], "current": i}
    {"kind": "fight", "do": "pass", "slot": i, "lost": bool}
    {"kind": "fight", "do": "end"}

A slot is a PJ, {"pj": pk, "init": n}, or someone else who acts (an enemy, an ally: a name,
no state), {"npc": n, "name": "Oni", "init": n}; "init" is the initiative typed, or None.
The fight's round starts at 1; time passing (a round, or longer) starts the next round at
the first slot. Passing the last slot's turn records the round with it (services.fight).

Here: reading those events (`fold`, `turns`) and checking one before it is recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

KIND = "fight"
DOINGS = ("start", "order", "pass", "end")
NAME_MAX = 40
SLOTS_MAX = 40
INIT_RANGE = (-99, 999)


@dataclass(frozen=True)
class Slot:
    pj: int | None = None
    npc: int | None = None
    name: str = ""
    init: int | None = None

    @property
    def key(self) -> tuple[str, int]:
        """Who the slot is, whatever its place: ("pj", pk) or ("npc", n)."""
        return ("pj", self.pj) if self.pj is not None else ("npc", self.npc or 0)

    def as_event(self) -> dict:
        if self.pj is not None:
            return {"pj": self.pj, "init": self.init}
        return {"npc": self.npc, "name": self.name, "init": self.init}

    @classmethod
    def read(cls, item: dict) -> Slot:
        if item.get("pj") is not None:
            return cls(pj=item["pj"], init=item.get("init"))
        return cls(npc=item.get("npc"), name=item.get("name", ""), init=item.get("init"))


@dataclass
class Fight:
    """A fight going on: its order, its round (1, 2…) and whose turn it is."""

    order: list[Slot]
    round: int
    current: int
    start_seq: int

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

    def slot_of(self, pk: int) -> int | None:
        return next((i for i, s in enumerate(self.order) if s.pj == pk), None)


def is_fight(event: dict) -> bool:
    return isinstance(event, dict) and event.get("kind") == KIND


def step(fight: Fight | None, seq: int, event: dict) -> Fight | None:
    """The fight after one more (non-void, campaign-wide) event of the log."""
    kind = event.get("kind")
    if kind == KIND:
        doing = event.get("do")
        if doing == "start":
            return Fight([Slot.read(s) for s in event["order"]], 1, 0, seq)
        if fight is None:
            return None
        if doing == "end":
            return None
        if doing == "order":
            fight.order = [Slot.read(s) for s in event["order"]]
            fight.current = event["current"]
        elif doing == "pass":
            fight.current = event["slot"] + 1
        return fight
    if fight is not None and kind in ("time", "descanso"):
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
    round, and the slot whose turn it was): `events` are the fight's and time's events from
    a fight's start before the first of `seqs` (or earlier) to the last."""
    timeline = list(events)
    out: dict[int, Fight] = {}
    fight, cursor = None, 0
    for seq in sorted(seqs):
        while cursor < len(timeline) and timeline[cursor][0] < seq:
            fight = step(fight, *timeline[cursor])
            cursor += 1
        here = fight
        if cursor < len(timeline) and timeline[cursor][0] == seq:
            event = timeline[cursor][1]
            if is_fight(event) and event.get("do") == "start":
                here = step(None, seq, event)  # the start belongs to the fight it starts
        if here is not None and here.current_slot is not None:
            out[seq] = Fight(list(here.order), here.round, here.current, here.start_seq)
    return out


def slot_name(slot: Slot, names: dict[int, str]) -> str:
    return names.get(slot.pj, "?") if slot.pj is not None else slot.name


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
    if not is_fight(event) or not isinstance(event.get("order"), list):
        return event
    order = [
        {**item, "pj": mapping.get(item["pj"], item["pj"])}
        if isinstance(item, dict) and "pj" in item
        else item
        for item in event["order"]
    ]
    return {**event, "order": order}


def check(event: dict, *, in_play: set[int]) -> None:
    """Refuse (ValidationError) a fight event that is not well formed, or names a PJ that
    is not in play. Whether it fits the fight going on is services.fight's to say."""
    doing = event.get("do")
    allowed = {"kind", "do", "order", "current", "slot", "lost", "seed"}
    if doing not in DOINGS or set(event) - allowed:
        raise ValidationError(_("That is not a fight action."), code="invalid")
    if doing in ("start", "order"):
        order = event.get("order")
        if not isinstance(order, list) or not order:
            raise ValidationError(_("A fight needs someone in its order."), code="empty")
        if len(order) > SLOTS_MAX:
            raise ValidationError(
                _("At most %(n)s in a fight's order.") % {"n": SLOTS_MAX}, code="too_many"
            )
        seen = set()
        for item in order:
            slot = _slot(item, in_play)
            if slot.key in seen:
                raise ValidationError(_("Someone is twice in the order."), code="twice")
            seen.add(slot.key)
        if doing == "order" and not _index(event.get("current"), len(order)):
            raise ValidationError(_("Whose turn it is must be in the order."), code="invalid")
    if doing == "pass" and (
        not _index(event.get("slot"), SLOTS_MAX) or not isinstance(event.get("lost"), bool)
    ):
        raise ValidationError(_("That is not a fight action."), code="invalid")


def _index(value: object, length: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < length


def _slot(item: object, in_play: set[int]) -> Slot:
    if not isinstance(item, dict):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    init = item.get("init")
    if init is not None and (
        not isinstance(init, int)
        or isinstance(init, bool)
        or not INIT_RANGE[0] <= init <= INIT_RANGE[1]
    ):
        raise ValidationError(
            _("An initiative is a whole number from %(low)s to %(high)s.")
            % {"low": INIT_RANGE[0], "high": INIT_RANGE[1]},
            code="init",
        )
    if "pj" in item:
        if set(item) - {"pj", "init"} or item["pj"] not in in_play:
            raise ValidationError(_("That PJ is not in play."), code="pj")
        return Slot(pj=item["pj"], init=init)
    name = item.get("name")
    if set(item) - {"npc", "name", "init"} or not _index(item.get("npc"), 10_000):
        raise ValidationError(_("That is not a fight action."), code="invalid")
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
        raise ValidationError(
            _("Each one in the order needs a name of at most %(n)s characters.") % {"n": NAME_MAX},
            code="name",
        )
    return Slot(npc=item["npc"], name=name, init=init)
