"""The audit trail: a campaign's events as rows to read, and a PJ's state around one event.

Used by the history pages, the session log exports (history.exports) and the event detail.
Each viewer gets what they may see: the DJ everything; a player their own PJ's events and
the campaign-wide ones, with the names the DJ keeps secret taken out, and the PNJ of the
fights only as the DJ revealed them (history.fights).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery, TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext as _

import rules
from rules import texts
from rules.vocab import GRADES, TYPES

from .. import selectors, turn_order
from ..models import Campaign, Character, EventSnapshot, GameSession, StateEvent
from ..present import lang
from ..present.board import party_who
from ..present.card import Card, build
from ..present.events import event_label, linked, trail_text
from ..present.figures import clock_parts, score_words, signed
from .fights import FightNames, fight_row, slot_text

PAGE = 100
# The fight's steps read past a page's last event, to learn how its last turn went.
AFTER = 40


@dataclass
class Viewer:
    """Who reads the history: the DJ (`characters` None: every PJ) or a player (their PJ)."""

    characters: set[int] | None
    secret: set[str] = field(default_factory=set)

    @property
    def is_dj(self) -> bool:
        return self.characters is None


def viewer_for(*, campaign: Campaign, user, is_dj: bool) -> Viewer:
    if is_dj:
        return Viewer(None)
    own = list(Character.objects.filter(campaign=campaign, player=user, kind=Character.Kind.PJ))
    # Lowercase, as the scrubbing compares: a name kept with capitals stays hidden too.
    secret = {name.lower() for c in own for name in (c.secret_names or [])}
    return Viewer({c.pk for c in own}, secret)


@dataclass
class Row:
    seq: int
    created_at: datetime
    clock: dict | None
    round: int
    actor: str
    who: str
    character_id: int | None
    label: str
    lines: list[tuple[str, str]]
    plain_trail: str
    void_at: datetime | None
    void_by: str
    void_reason: str
    secret: bool
    session: int | None
    turn: str = ""  # during a fight: whose turn it was

    @property
    def is_void(self) -> bool:
        return self.void_at is not None

    @property
    def clock_text(self) -> str:
        if self.clock is None:
            return ""
        return _("Day %(day)s %(hh)02d:%(mm)02d") % self.clock

    @property
    def when_text(self) -> str:
        """ "Día 1 00:05 · Ronda 2 · Turno de Oni": when it happened in the game."""
        parts = [self.clock_text] if self.clock else []
        if self.clock or self.turn:
            parts.append(_("Round %(round)s") % {"round": self.round})
        if self.turn:
            parts.append(_("%(name)s's turn") % {"name": self.turn})
        return " · ".join(parts)


def events_for(
    *,
    campaign: Campaign,
    viewer: Viewer,
    session: GameSession | None = None,
    character: Character | None = None,
    type_: str | None = None,
) -> QuerySet[StateEvent]:
    """The events a viewer may read, with the filters asked for, in log order."""
    events = StateEvent.objects.filter(campaign=campaign)
    if session is not None:
        events = events.filter(session=session)
    if not viewer.is_dj:
        events = events.filter(Q(character__in=viewer.characters) | Q(character__isnull=True))
    if character is not None:
        events = events.filter(selectors.in_log_of(character))
    if type_ in TYPES:
        # The event names the type, or its rule trail touched it (a Shock that led to Fatiga).
        events = events.annotate(effects_text=Cast("effects", TextField())).filter(
            Q(event__type=type_) | Q(effects_text__contains=f'"{type_}"')
        )
    return events.order_by("seq")


def _names_any(event: dict, names: set[str] | None) -> bool:
    """Whether an event names one of `names` (its source, E.Esp or específico)."""
    return names is not None and any(
        isinstance(event.get(key), str) and event[key].lower() in names
        for key in ("source", "name", "especifico")
    )


def _scrub_event(event: dict, secret: set[str]) -> dict:
    if not secret:
        return event
    masked = dict(event)
    for key in ("source", "name", "especifico"):
        if isinstance(masked.get(key), str) and masked[key].lower() in secret:
            masked[key] = _("(secret)")
    return masked


def _scrub_effects(effects: list[dict], secret: set[str]) -> list[dict]:
    if not secret:
        return effects
    return [
        e
        for e in effects
        if not any(
            isinstance(e.get(k), str) and e[k].lower() in secret
            for k in ("source", "name", "especifico")
        )
    ]


def _clocks_before(campaign: Campaign, ids: list[int]) -> dict[int, int]:
    """The game clock at each event of `ids` that changed no PJ's state (a fight's start,
    order or pass): the clock after the last event standing before it that did, so the
    history says its day and time like any other's. Two queries, however long the log."""
    if not ids:
        return {}
    last = (
        StateEvent.objects.filter(campaign=campaign, void_at__isnull=True, seq__lt=OuterRef("seq"))
        .filter(Exists(EventSnapshot.objects.filter(event=OuterRef("pk"))))
        .order_by("-seq")
        .values("pk")[:1]
    )
    before = dict(
        StateEvent.objects.filter(pk__in=ids)
        .annotate(before=Subquery(last))
        .exclude(before=None)
        .values_list("pk", "before")
    )
    at: dict[int, int] = {}
    for event_id, clock in EventSnapshot.objects.filter(
        event_id__in=set(before.values())
    ).values_list("event_id", "state__clock"):
        if isinstance(clock, int | float):
            at[event_id] = max(at.get(event_id, 0), int(clock))
    return {pk: at[was] for pk, was in before.items() if was in at}


def _rounds(campaign: Campaign, seqs: list[int]) -> dict[int, int]:
    """The board's round (1, 2…) at each of `seqs`: 1 + rounds passed since the last
    campaign-wide time not counted in rounds (or a Descanso, or a fight's start)."""
    if not seqs:
        return {}
    wide = list(
        StateEvent.objects.filter(
            campaign=campaign, character__isnull=True, void_at__isnull=True, seq__lte=max(seqs)
        )
        .filter(
            Q(event__kind="time")
            | Q(event__kind="descanso")
            | Q(event__kind=turn_order.KIND, event__do="start")
        )
        .order_by("-seq")
        .values_list("seq", "event")
    )
    # Walk back to the last reset before the first seq asked for, then forwards.
    start = 0
    for i, (seq, event) in enumerate(wide):
        if seq < min(seqs) and (event.get("kind") != "time" or "rounds" not in event):
            start = i
            break
    else:
        start = len(wide)
    timeline = list(reversed(wide[: start + 1] if start < len(wide) else wide))
    rounds_at: dict[int, int] = {}
    rounds, cursor = 0, 0
    for seq in sorted(seqs):
        while cursor < len(timeline) and timeline[cursor][0] <= seq:
            event = timeline[cursor][1]
            if event.get("kind") == "time" and isinstance(event.get("rounds"), int):
                rounds += event["rounds"]
            else:
                rounds = 0  # longer time, a Descanso, a fight's start: round 1 again
            cursor += 1
        rounds_at[seq] = rounds + 1
    return rounds_at


def _fights(campaign: Campaign, seqs: list[int]) -> dict[int, turn_order.Fight]:
    """The fight as it stood at each of `seqs` that happened during one (turn_order.turns)."""
    if not seqs:
        return {}
    wide = StateEvent.objects.filter(
        campaign=campaign, character__isnull=True, void_at__isnull=True
    )
    start = (
        wide.filter(event__kind=turn_order.KIND, event__do="start", seq__lte=min(seqs))
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    later = wide.filter(event__kind=turn_order.KIND, seq__gte=min(seqs), seq__lte=max(seqs))
    if start is None and not later.exists():
        return {}
    steps = (
        wide.filter(
            Q(event__kind=turn_order.KIND) | Q(event__kind="time") | Q(event__kind="descanso")
        )
        .order_by("seq")
        .values_list("seq", "event")
    )
    events = list(steps.filter(seq__gte=start or min(seqs), seq__lte=max(seqs)))
    # A few steps after the last: how the turn going on then went (its pass, lost or not).
    events += steps.filter(seq__gt=max(seqs))[:AFTER]
    return turn_order.turns(events, seqs)


def rows(
    *, campaign: Campaign, events: list[StateEvent], viewer: Viewer, names: dict[int, str]
) -> list[Row]:
    """The events (already fetched, with actor, void_by and character) as rows to read."""
    ids = [e.pk for e in events]
    clocks: dict[int, int] = {}
    for event_id, clock in EventSnapshot.objects.filter(event_id__in=ids).values_list(
        "event_id", "state__clock"
    ):
        if isinstance(clock, int | float):
            clocks[event_id] = max(clocks.get(event_id, 0), int(clock))
    clocks.update(_clocks_before(campaign, [e.pk for e in events if e.pk not in clocks]))
    rounds = _rounds(campaign, [e.seq for e in events])
    fights = _fights(campaign, [e.seq for e in events])
    # For the DJ, a row is secret when the event was, or when it names what the DJ keeps
    # from that PJ's player (a poison made secret later).
    kept: dict[int, set[str]] = {}
    in_play: set[int] = set()  # the party in play: "Everyone" is all of them
    if viewer.is_dj:
        for pk, hidden, archived_at, kind, in_party in Character.objects.filter(
            campaign=campaign
        ).values_list("pk", "secret_names", "archived_at", "kind", "in_party"):
            kept[pk] = {name.lower() for name in hidden or []}
            if archived_at is None and (kind == Character.Kind.PJ or in_party):
                in_play.add(pk)  # as selectors.in_party()
    fighters = FightNames(campaign, names, for_player=not viewer.is_dj)
    out = []
    for event in events:
        effects = event.effects or {}
        lines = []
        for pk, trail in effects.items():
            if viewer.characters is not None and int(pk) not in viewer.characters:
                continue
            if event.character_id is None and not any(e.get("rule") != "base" for e in trail):
                continue
            text = trail_text(_scrub_effects(trail, viewer.secret))
            if text:
                lines.append((names.get(int(pk), "?"), text))
        shown = event.event if viewer.is_dj else _scrub_event(event.event, viewer.secret)
        clock = clocks.get(event.pk)
        during = fights.get(event.seq)
        label = event_label(shown)
        turn = (
            slot_text(during.current_slot, fighters.shown(during))
            if during and during.current_slot
            else ""
        )
        if turn_order.is_fight(event.event):
            fight = fight_row(event, during, fighters)
            if fight is None:
                continue  # a step of the fight this viewer may not know of
            label, turn = fight.label, fight.turn
            lines += fight.lines
        out.append(
            Row(
                seq=event.seq,
                created_at=event.created_at,
                clock=clock_parts(clock) if clock is not None else None,
                round=during.round if during else rounds.get(event.seq, 1),
                turn=turn,
                actor=event.actor.get_username() if event.actor else "",
                # A player reads "Everyone" for the party: the others left out are not theirs.
                who=party_who(event, names, in_play)
                if viewer.is_dj or event.character_id or turn_order.is_fight(event.event)
                else _("Everyone"),
                character_id=event.character_id,
                label=label,
                lines=[(who, linked(text)) for who, text in lines],
                plain_trail=" · ".join(
                    f"{who}: {text}" if len(lines) > 1 or not event.character_id else text
                    for who, text in lines
                ),
                void_at=event.void_at,
                void_by=event.void_by.get_username() if event.void_by else "",
                void_reason=event.void_reason,
                secret=viewer.is_dj
                and (event.secret or _names_any(event.event, kept.get(event.character_id or 0))),
                session=event.session.number if event.session else None,
            )
        )
    return out


# -- one event: each PJ's state right before and right after ---------------------------


@dataclass
class Change:
    character: Character
    before: Card
    after: Card
    differences: list[str]


def _diff(before: dict, after: dict, secret: set[str], for_player: bool) -> list[str]:
    code = lang()
    out = []
    for type_ in TYPES:
        label = texts.TYPE_LABELS[type_][code]
        was, now = set(before["marks"][type_]), set(after["marks"][type_])
        grades = texts.GRADE_LABELS
        for grade in sorted(now - was, key=GRADES.index):
            out.append(
                _("%(type)s %(grade)s marked") % {"type": label, "grade": grades[grade][code]}
            )
        for grade in sorted(was - now, key=GRADES.index):
            out.append(
                _("%(type)s %(grade)s cleared") % {"type": label, "grade": grades[grade][code]}
            )
    hidden = {name.lower() for name in secret} if for_player else set()
    for name in sorted(set(after["specials"]) - set(before["specials"])):
        if name.lower() not in hidden:
            out.append(_("Gains %(name)s") % {"name": texts.special_label(name, code)})
    for name in sorted(set(before["specials"]) - set(after["specials"])):
        if name.lower() not in hidden:
            out.append(_("Loses %(name)s") % {"name": texts.special_label(name, code)})
    for key, value in after["modifiers"].items():
        old = before["modifiers"].get(key, 0)
        if value != old:
            out.append(
                _("%(attribute)s modifier %(old)s → %(new)s")
                % {"attribute": score_words(key), "old": signed(old), "new": signed(value)}
            )
    # Counted, not just named: a pile of one check grows and shrinks one at a time.
    checks_before = Counter(p["check"] for p in before["pending"])
    checks_after = Counter(p["check"] for p in after["pending"])
    for check in sorted(checks_before | checks_after):
        label = texts.check_text(check, code)["label"]
        held, count = checks_before[check], checks_after[check]
        if count > held:
            words = _("New check: %(check)s") % {"check": label}
        elif count < held:
            words = _("Check done: %(check)s") % {"check": label}
        else:
            continue
        out.append(words if max(held, count) == 1 else f"{words} (×{held} → ×{count})")
    if before["can_act"] != after["can_act"]:
        out.append(_("Can act again") if after["can_act"] else _("Can no longer act"))
    return out


def event_changes(
    *, event: StateEvent, viewer: Viewer, catalogue: dict, especificos: bool
) -> list[Change]:
    """Each PJ the event touched (that the viewer may see): before, after, what changed."""
    touched = [int(pk) for pk in (event.effects or {})]
    if event.character_id and event.character_id not in touched:
        touched.append(event.character_id)
    if not viewer.is_dj:
        touched = [pk for pk in touched if pk in (viewer.characters or set())]
    characters = {c.pk: c for c in Character.objects.filter(pk__in=touched).order_by("name")}
    after = {
        s.character_id: s.state
        for s in EventSnapshot.objects.filter(event=event, character_id__in=touched)
    }
    out = []
    for pk, character in characters.items():
        previous = selectors.snapshot_before(character_id=pk, seq=event.seq)
        state_before = previous.state if previous else rules.initial_state()
        state_after = after.get(pk, state_before) if not event.is_void else state_before
        secret = set(character.secret_names or [])
        for_player = not viewer.is_dj

        def card(state: dict, character=character, for_player=for_player) -> Card:
            return build(
                character,
                state,
                catalogue=catalogue,
                for_player=for_player,
                especificos=especificos,
            )

        out.append(
            Change(
                character,
                card(state_before),
                card(state_after),
                _diff(
                    rules.public_state(state_before),
                    rules.public_state(state_after),
                    secret,
                    for_player,
                ),
            )
        )
    return out


def with_people(events: QuerySet[StateEvent]) -> QuerySet[StateEvent]:
    """The events with who recorded and voided them, and their session, read along."""
    return events.select_related("actor", "void_by", "session")


def event_for(*, campaign: Campaign, viewer: Viewer, seq: int) -> StateEvent | None:
    """One event the viewer may read, by its number (None: none, or not theirs to read)."""
    events = events_for(campaign=campaign, viewer=viewer)
    return with_people(events).select_related("character").filter(seq=seq).first()


def page(
    events: QuerySet[StateEvent], *, after: int | None, last: bool, size: int = PAGE
) -> tuple[list[StateEvent], dict]:
    """A window of `size` events: after seq `after` (exclusive), or the last ones; and the
    seqs to go to the next and previous windows."""
    events = with_people(events)
    if last:
        window = list(events.order_by("-seq")[: size + 1])
        has_before = len(window) > size
        window = list(reversed(window[:size]))
        has_after = False
    else:
        window = list(events.filter(seq__gt=after or 0)[: size + 1])
        has_after = len(window) > size
        window = window[:size]
        has_before = bool(after)
    nav = {"next": window[-1].seq if has_after and window else None, "previous": None}
    if has_before and window:
        earlier = list(
            events.filter(seq__lt=window[0].seq)
            .order_by("-seq")
            .values_list("seq", flat=True)[: size + 1]
        )
        if earlier:  # a hand-typed `desde` may start before anything the filters keep
            nav["previous"] = earlier[size] if len(earlier) > size else 0
            nav["has_previous"] = True
    return window, nav
