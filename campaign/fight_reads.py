"""The fight going on and the round, read from the campaign's newest campaign-wide events
(campaign.selectors re-exports them): never the whole log. And who, in the fight that has
just ended, is still in an Emoción grave."""

import itertools
from collections.abc import Iterable, Sequence

from django.db.models import QuerySet

from . import turn_order
from .models import Campaign, Character, StateEvent


def _wide(campaign: Campaign) -> QuerySet:
    """The campaign's campaign-wide events standing, newest first, as (seq, event)."""
    return (
        StateEvent.objects.filter(campaign=campaign, character__isnull=True, void_at__isnull=True)
        .order_by("-seq")
        .values_list("seq", "event")
    )


def fight_now(*, campaign: Campaign):
    """The fight going on (campaign.turn_order.Fight), or None.

    While a fight is on, the campaign-wide events it adds are its own and the rounds its last
    turns pass (the party's other time is refused meanwhile), so the log is read back from
    its newest campaign-wide event only as far as the fight's start, 100 rows a query: one
    query when no fight is on, the fight's length when one is, never the whole log.
    """
    return _fight_in(_newest_first(_wide(campaign), batch=100))


def fight_at(*, campaign: Campaign, seq: int):
    """The fight as it stood right after event `seq` (what a page saw then), or None: read
    back from `seq` as `fight_now` reads back from the newest event."""
    return _fight_in(_newest_first(_wide(campaign).filter(seq__lte=seq), batch=100))


def fight_last(*, campaign: Campaign):
    """The last fight that ended, as it stood at its end (turn_order.Fight), or None: the
    order page starts the next one from it (its groups, without those it took out)."""
    end = (
        _wide(campaign)
        .filter(event__kind=turn_order.KIND, event__do="end")
        .values_list("seq", flat=True)
        .first()
    )
    if end is None:
        return None
    return _fight_in(_newest_first(_wide(campaign).filter(seq__lt=end), batch=100))


def _fight_in(rows: Iterable[tuple[int, dict]]):
    """The fight going on, from the campaign-wide events newest first (fight_now)."""
    back = []
    for seq, event in rows:
        kind = event.get("kind")
        if kind == turn_order.KIND:
            if event.get("do") == "end":
                return None
            back.append((seq, event))
            if event.get("do") == "start":
                return turn_order.fold(reversed(back))
        elif kind == "time" and "rounds" in event:
            back.append((seq, event))  # a round passed (in a fight, by its last turn)
        else:
            return None  # other time or a Descanso: no fight since
    return None


def _newest_first(rows, *, batch: int):
    """(seq, event) rows of `rows` (ordered by -seq), read `batch` at a time, each batch a
    query of its own with LIMIT. Not QuerySet.iterator(): on PostgreSQL that is a cursor
    WITH HOLD, which copies every row of the result when its transaction ends."""
    before = None
    while True:
        found = list((rows if before is None else rows.filter(seq__lt=before))[:batch])
        yield from found
        if len(found) < batch:
            return
        before = found[-1][0]


ROUND_WINDOW = 200


def current_round(*, campaign: Campaign, window: int = ROUND_WINDOW) -> int:
    """Rounds since the last campaign-wide time not counted in rounds, Descanso or fight
    start (0: none).

    Reads at most `window` recent campaign-wide events, never the whole log.
    """
    return _rounds_in(event for _seq, event in _wide(campaign)[:window])


def _rounds_in(events: Iterable[dict]) -> int:
    """current_round from the campaign-wide events newest first."""
    rounds = 0
    for event in events:
        if event.get("kind") != "time":
            if event.get("kind") == "descanso" or (
                event.get("kind") == "fight" and event.get("do") == "start"
            ):
                break  # a Descanso, or a fight's start: round 1 again
            continue
        if "rounds" not in event:
            break
        rounds += event["rounds"] if isinstance(event["rounds"], int) else 0
    return rounds


def fight_and_round(*, campaign: Campaign) -> tuple[turn_order.Fight | None, int]:
    """fight_now and current_round from one read of the newest campaign-wide events (more,
    100 at a time, only for a fight longer than current_round's window)."""
    first = list(_wide(campaign)[:ROUND_WINDOW])
    rest: Iterable[tuple[int, dict]] = ()
    if len(first) == ROUND_WINDOW:
        rest = _newest_first(_wide(campaign).filter(seq__lt=first[-1][0]), batch=100)
    rounds = _rounds_in(event for _seq, event in first)
    return _fight_in(itertools.chain(first, rest)), rounds


def still_in_emotion_grave(
    *, campaign: Campaign, recent: Sequence[StateEvent], in_play: Sequence[Character]
) -> list[Character]:
    """Who fought in the fight that has just ended and is still in an Emoción grave: those
    of `in_play` (PJ and PNJ) the board prompts with "Ya no está expuesto".

    A fight has just ended while its end is the newest campaign-wide event standing of
    `recent` (the board's latest events) but for time passing: no Descanso or new fight
    since, and the table not many taps further on (an Emoción grave does not end with
    time: the minutes after a fight are when the table forgets it). Its order is read back
    from its end to its start only when one of `in_play` is in an Emoción grave."""
    grave = [c for c in in_play if c.snapshot.state["active"]["emocion"] == "grave"]
    if not grave:
        return []
    wide = next(
        (
            e
            for e in recent
            if e.character_id is None and not e.is_void and e.event.get("kind") != "time"
        ),
        None,
    )
    if wide is None or not (turn_order.is_fight(wide.event) and wide.event.get("do") == "end"):
        return []
    ended = _fight_in(_newest_first(_wide(campaign).filter(seq__lt=wide.seq), batch=100))
    if ended is None:
        return []
    fought = ended.fighting | set(ended.out)
    return [c for c in grave if c.pk in fought]
