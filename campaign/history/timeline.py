"""A game session as a picture: what its SVG timeline shows (history.timeline_svg draws it).

The X axis is the game clock, from each PJ's clock before the session's first event to the
last event. Events at the same game second (a fight's round happens in one: its turns pass
no time) are drawn one after another in log order, each a step of the axis (`place`), so a
grade that came and went within one second (a Shock leve lost at the end of its turn) has
a width, in its place. Each PJ gets a lane (and, in the DJ's picture, each PNJ after them); in it a
band per E.Alt type is shaded by the grade active over time (the EventSnapshot after each
event: a grade that changed in the middle of a long `time` event is drawn changing at its
end, which is when the sheet showed it). Above the bands, markers for E.Esp gained or lost,
checks (TS) and voided events, each with its hover text. Markers at the same game time
stack in rows, then columns, then a "+N" badge.

Here the reading: each PJ's lane (its bands' stretches and its markers) from the session's
snapshots. The drawing is one <svg> element (timeline_svg.session_svg).

Two queries whatever the number of events (three when session.campaign is not cached).

For tests and pages that read it: the root carries data-session, data-from and data-to (the
axis, in game seconds) and data-x0 and data-x1 (where those fall); each lane is a
g.tl-lane[data-pj]; each band stretch a rect.tl-seg with data-pj, data-type, data-grade
(none, leve, grave, persistente), data-from and data-to; each marker a g.tl-marker with
data-kind (especial, check, void, more), data-seq, data-at, data-pj, data-variant (gained,
lost, success, failure) and, for E.Esp, data-gained and data-lost ("|"-separated names).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import OuterRef, Subquery
from django.db.models.fields.json import KeyTransform
from django.utils.translation import gettext as _

import rules
from rules import texts
from rules.vocab import TYPES

from ..models import Character, EventSnapshot, GameSession
from ..present.events import event_label
from ..present.figures import clock_parts

MIN_SPAN = 60  # seconds: a shorter session is drawn as one minute


@dataclass
class Segment:
    type: str
    grade: str | None
    start: int  # game seconds
    end: int
    # Where it starts and ends on the axis (Places: the seconds, and its events' steps);
    # left out, at `start` and `end`.
    p0: float = -1.0
    p1: float = -1.0

    def __post_init__(self) -> None:
        if self.p0 < 0:
            self.p0 = float(self.start)
        if self.p1 < 0:
            self.p1 = float(self.end)


@dataclass
class Marker:
    kind: str  # especial, check, void
    seq: int
    at: int  # game seconds
    title: str
    variant: str = ""  # especial: gained / lost; check: success / failure
    data: dict[str, str] = field(default_factory=dict)
    x: float = 0.0
    row: int = -1  # -1: not drawn (in a "+N" badge)
    p: float = -1.0  # where on the axis (Places); left out, at `at`

    def __post_init__(self) -> None:
        if self.p < 0:
            self.p = float(self.at)


@dataclass
class Lane:
    character: Character
    start: int  # the lane's first game second (the PJ's clock before the session)
    end: int
    segments: list[Segment]
    markers: list[Marker]
    # Per type, the grade still open and since when, in seconds and on the axis (closed at
    # the axis end).
    open_at: dict[str, tuple[int, float, str | None]]
    p_end: float = 0.0  # where `end` is on the axis


class Places:
    """Each event's place on the axis: its game second, then a step per event of the
    picture at that same second, in log order (all of them within that second, so the
    order of seconds stands). A lane's start, before any event, is the second itself."""

    def __init__(self, moments: list[tuple[int, int]]) -> None:
        by_second: dict[int, list[int]] = {}
        for second, seq in sorted(set(moments)):
            by_second.setdefault(second, []).append(seq)
        self._at = {
            (second, seq): second + (i + 1) / (len(seqs) + 1)
            for second, seqs in by_second.items()
            for i, seq in enumerate(seqs)
        }

    def __call__(self, second: int, seq: int | None = None) -> float:
        return float(second) if seq is None else self._at[(second, seq)]


# -- words ----------------------------------------------------------------------------------


def when(seconds: int) -> str:
    """ "Día 1 08:03": to the minute, as the board's clock reads."""
    p = clock_parts(seconds)
    time = f"{p['hh']:02d}:{p['mm']:02d}"
    return _("Day %(day)s %(time)s") % {"day": p["day"], "time": time}


def _grade_label(grade: str | None, code: str) -> str:
    return texts.GRADE_LABELS[grade][code] if grade else _("No grade")


def _mentions_secret(text: str, secret: set[str], code: str) -> bool:
    low = text.lower()
    return any(
        name and (name.lower() in low or texts.special_label(name, code).lower() in low)
        for name in secret
    )


def _words(record, secret: set[str], for_player: bool, code: str) -> str:
    """The event in words, or a neutral text where a player may not read them."""
    if for_player and record.secret:
        return _("Something the DJ keeps secret")
    words = event_label(record.event)
    if for_player and _mentions_secret(words, secret, code):
        return _("Something the DJ keeps secret")
    return words


def _load(session: GameSession, characters: list[Character] | None):
    """The session's snapshots (event and PJ with them) and each PJ's state before it."""
    # Only the three keys of each state the picture reads: a full state is a large JSON
    # document, and a long session has thousands of them.
    snapshots = (
        EventSnapshot.objects.filter(event__session=session)
        .select_related("event", "character")
        .only(
            "event_id",
            "character_id",
            "event__seq",
            "event__event",
            "event__void_at",
            "event__secret",
            "event__character_id",
            "character__name",
            "character__kind",
            "character__secret_names",
        )
        .annotate(
            _clock=KeyTransform("clock", "state"),
            _active=KeyTransform("active", "state"),
            _specials=KeyTransform("specials", "state"),
        )
        .order_by("event__seq", "character_id")
    )
    if characters is not None:
        snapshots = snapshots.filter(character_id__in=[c.pk for c in characters])
    read = list(snapshots)
    if not read:
        return [], {}
    for snapshot in read:
        snapshot.state = {
            "clock": snapshot._clock,
            "active": snapshot._active,
            "specials": snapshot._specials,
        }
    first_seq = read[0].event.seq
    lane_ids = {s.character_id for s in read}
    latest = (
        EventSnapshot.objects.filter(
            character=OuterRef("pk"), seq__lt=first_seq, event__void_at__isnull=True
        )
        .order_by("-seq")
        .values("pk")[:1]
    )
    before = Character.objects.filter(pk__in=lane_ids).annotate(b=Subquery(latest)).values("b")
    previous = {
        s.character_id: s.state
        for s in EventSnapshot.objects.filter(pk__in=before).only("character_id", "state")
    }
    return read, previous


def _start(rows, before: dict | None) -> int:
    """A lane's first game second: its PJ's clock before the session (or at its first event
    that counts, for a PJ new in it)."""
    if before:
        return before["clock"]
    live = [s for s in rows if s.event.void_at is None]
    return (live or rows)[0].state["clock"]


def _moments(by_pj: dict[int, list], previous) -> list[tuple[int, int]]:
    """(game second, seq) of every event drawn: a voided one where its PJ then stood."""
    moments = []
    for pk, rows in by_pj.items():
        kept_at = _start(rows, previous.get(pk))
        for s in rows:
            if s.event.void_at is None:
                kept_at = s.state["clock"]
            moments.append((kept_at, s.event.seq))
    return moments


def _lanes(snapshots, previous, *, for_player: bool, code: str) -> list[Lane]:
    by_pj: dict[int, list[EventSnapshot]] = {}
    for s in snapshots:
        by_pj.setdefault(s.character_id, []).append(s)
    place = Places(_moments(by_pj, previous))
    lanes = []
    for rows in by_pj.values():
        character = rows[0].character
        secret = set(character.secret_names or []) if for_player else set()
        before = previous.get(character.pk)
        state = rules.public_state(before) if before else None
        live = [s for s in rows if s.event.void_at is None]
        start = _start(rows, before)
        segments: list[Segment] = []
        open_at = {t: (start, place(start), state["active"][t] if state else None) for t in TYPES}
        markers: list[Marker] = []
        specials = set(state["specials"]) if state else set()
        kept_at = start  # the PJ's clock after its last event that still counts
        p_end = place(start)
        for s in rows:
            record = s.event
            at = s.state["clock"]
            if record.void_at is not None:
                # Where the PJ stood when it was recorded: the time a voided event moved the
                # clock to never was (an undone 10 h of Reposo stretches nothing).
                head = f"#{record.seq} · {when(kept_at)} · {character.name}: "
                words = _("Voided: %(event)s") % {"event": _words(record, secret, for_player, code)}
                here = place(kept_at, record.seq)
                markers.append(Marker("void", record.seq, kept_at, head + words, p=here))
                continue
            kept_at = at
            here = p_end = place(at, record.seq)
            head = f"#{record.seq} · {when(at)} · {character.name}: "
            for t in TYPES:
                grade = s.state["active"][t]
                since, since_p, old = open_at[t]
                if grade != old:
                    if at > since or old is not None:  # an empty stretch of nothing: none
                        segments.append(Segment(t, old, since, at, since_p, here))
                    open_at[t] = (at, here, grade)
            now = set(s.state["specials"])
            gained = sorted(n for n in now - specials if n not in secret)
            lost = sorted(n for n in specials - now if n not in secret)
            specials = now
            if gained or lost:
                hidden = for_player and record.secret
                changes = ", ".join(
                    [f"+{texts.special_label(n, code)}" for n in gained]
                    + [f"−{texts.special_label(n, code)}" for n in lost]
                )
                words = _words(record, secret, for_player, code)
                if not hidden:
                    words = _("%(event)s · E.Esp: %(changes)s") % {
                        "event": words,
                        "changes": changes,
                    }
                data = {} if hidden else {"gained": "|".join(gained), "lost": "|".join(lost)}
                variant = "gained" if gained else "lost"
                markers.append(
                    Marker("especial", record.seq, at, head + words, variant, data, p=here)
                )
            if record.event.get("kind") == "save" and record.character_id == character.pk:
                success = bool(record.event.get("success"))
                words = _words(record, secret, for_player, code)
                variant = "success" if success else "failure"
                markers.append(Marker("check", record.seq, at, head + words, variant, p=here))
        end = max((s.state["clock"] for s in live), default=start)
        lanes.append(Lane(character, start, end, segments, markers, open_at, p_end))
    # The PJ first, then the PNJ (the DJ's), each by name.
    lanes.sort(
        key=lambda lane: (lane.character.is_pnj, lane.character.name.lower(), lane.character.pk)
    )
    return lanes


# -- scale and ticks --------------------------------------------------------------------------


def _domain(lanes: list[Lane]) -> tuple[float, float]:
    """The axis, in places: from the earliest lane start to the latest lane end, a minute
    at least."""
    lo = float(min(lane.start for lane in lanes))
    hi = max(lane.p_end for lane in lanes)
    if hi - lo < MIN_SPAN:
        lo = max(0.0, lo - (MIN_SPAN - (hi - lo)) // 2)
        hi = max(hi, lo + MIN_SPAN)
    return lo, hi
