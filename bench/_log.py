"""The benchmarks' synthetic log: a repeatable run of blows, checks and time, folded by the
rules as it is drawn (bench_board, bench_history and bench_backup write it in bulk)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import rules

BLOWS = [("heridas", "leve"), ("fatiga", "leve"), ("shock", "leve"), ("emocion", "leve")]


def folded_events(
    party: list, states: dict, options: dict, *, first_seq: int, last_seq: int, seed: int = 5
) -> Iterator[tuple[int, dict, list, dict]]:
    """(seq, event, targets, results) for each seq after `first_seq` up to `last_seq`.

    Every fifth event is two minutes of calm rest for the whole party; the others are a
    blow on a random PJ, or its first pending check passed. `results` maps each target's
    pk to what rules.apply gives from `states`, which the caller keeps up to date before
    asking for the next event (a voided event leaves it as it was). An event the rules
    refuse is drawn again.
    """
    rng = random.Random(seed)
    seq = first_seq
    while seq < last_seq:
        seq += 1
        if seq % 5 == 0:
            event = {"kind": "time", "minutes": 2, "activity": "reposo", "calm": True}
            targets = party
        else:
            target = party[rng.randrange(len(party))]
            state = states[target.pk]
            if state["pending"]:
                event = {"kind": "save", "check": state["pending"][0]["check"], "success": True}
            else:
                t, g = rng.choice(BLOWS)
                event = {"kind": "suffer", "type": t, "grade": g}
                if t == "emocion":
                    event["variant"] = "miedo"
            targets = [target]
        event["seed"] = seq
        try:
            results = {t.pk: rules.apply(states[t.pk], event, options) for t in targets}
        except rules.RuleError:
            seq -= 1
            continue
        yield seq, event, targets, results


# --- A table's log: sessions of fights and scenes, rest between them ---------------------

SCENE_BLOWS = [
    ("heridas", "leve"),
    ("heridas", "leve"),
    ("heridas", "grave"),
    ("fatiga", "leve"),
    ("fatiga", "grave"),
    ("shock", "leve"),
    ("shock", "grave"),
    ("emocion", "leve"),
    ("afeccion", "leve"),
]


@dataclass
class Step:
    """One event of a table's log, as the rules folded it from `states`."""

    seq: int
    event: dict
    targets: list  # the PJ it reaches: one, or the whole party for a party event, or none
    results: dict  # pk -> (state, effects)
    session: int  # the ordinal of the session it belongs to (0, 1, …)
    party: bool = False  # campaign-wide (no character): time, Descanso, a fight's steps
    void: bool = False  # voided at once: the PJ's state stays as it was
    secret: bool = False


def table_log(  # noqa: C901 - one generator of a whole table's log, step by step
    party: list, states: dict, options: dict, *, first_seq: int, last_seq: int, seed: int = 11
) -> Iterator[Step]:
    """A campaign's log as a table makes it, each seq after `first_seq` up to `last_seq`.

    Sessions of about 250 events: days of rest at the start (time and a party Descanso a
    day), then scenes. A fight is an order of the whole party, rounds of turns (a blow now
    and then, the PJ's checks rolled, its turn end, the pass) and a round of time after the
    last turn; other scenes are a PJ's blows, Curación and checks, with the party's minutes
    passing now and then. About 2 % of a PJ's events are voided at once, 1 % secret. The
    caller keeps `states` up to date from each step's results (but for a void) before
    asking for the next one; an event the rules refuse is drawn again.
    """
    rng = random.Random(seed + first_seq)
    seq = first_seq
    session = 0

    def attempt(event: dict, targets: list, *, party_wide: bool = False) -> Step | None:
        nonlocal seq
        if seq >= last_seq:
            return None
        event = dict(event, seed=rng.randrange(2**31))
        try:
            results = {t.pk: rules.apply(states[t.pk], event, options) for t in targets}
        except rules.RuleError:
            return None
        seq += 1
        lone = not party_wide and len(targets) == 1
        return Step(
            seq,
            event,
            targets,
            results,
            session,
            party=party_wide,
            void=lone and rng.random() < 0.02,
            secret=lone and event["kind"] == "suffer" and rng.random() < 0.01,
        )

    def checks(pj) -> Iterator[Step]:
        for _ in range(4):  # a failed check may raise the next; a few at most per turn
            pending = states[pj.pk]["pending"]
            if not pending:
                return
            save = {"kind": "save", "check": pending[0]["check"], "success": rng.random() < 0.6}
            if (step := attempt(save, [pj])) is None:
                return
            yield step

    def blow(pj) -> Step | None:
        t, g = rng.choice(SCENE_BLOWS)
        event = {"kind": "suffer", "type": t, "grade": g}
        if t == "emocion":
            event["variant"] = rng.choice(("miedo", "euforia"))
        return attempt(event, [pj])

    def fight() -> Iterator[Step]:
        order = [{"pj": pj.pk, "init": rng.randrange(1, 20)} for pj in party]
        order.sort(key=lambda slot: -slot["init"])
        if (
            step := attempt({"kind": "fight", "do": "start", "order": order}, [], party_wide=True)
        ) is None:
            return
        yield step
        by_pk = {pj.pk: pj for pj in party}
        for _round in range(rng.randrange(2, 6)):
            for i, slot in enumerate(order):
                pj = by_pk[slot["pj"]]
                if rng.random() < 0.35 and (step := blow(pj)):
                    yield step
                yield from checks(pj)
                if step := attempt({"kind": "turn_end"}, [pj]):
                    yield step
                passed = {"kind": "fight", "do": "pass", "slot": i, "lost": False}
                if step := attempt(passed, [], party_wide=True):
                    yield step
            if step := attempt({"kind": "time", "rounds": 1}, party, party_wide=True):
                yield step
        if step := attempt({"kind": "fight", "do": "end"}, [], party_wide=True):
            yield step

    def scene() -> Iterator[Step]:
        for _ in range(rng.randrange(15, 40)):
            pj = party[rng.randrange(len(party))]
            if states[pj.pk]["pending"]:
                yield from checks(pj)
                continue
            r = rng.random()
            if r < 0.55:
                step = blow(pj)
            elif r < 0.7:
                step = attempt({"kind": "heal"}, [pj])
            elif r < 0.8:
                step = attempt({"kind": "recover", "type": "afeccion", "grade": "leve"}, [pj])
            else:
                minutes = {"kind": "time", "minutes": rng.choice((5, 10, 30)), "activity": "activo"}
                step = attempt(minutes, party, party_wide=True)
            if step:
                yield step

    def rest() -> Iterator[Step]:
        for _day in range(rng.randrange(1, 6)):
            awake = {"kind": "time", "hours": 16, "activity": "reposo", "calm": True}
            for event in (awake, {"kind": "descanso"}):
                if step := attempt(event, party, party_wide=True):
                    yield step
        for pj in party:
            yield from checks(pj)

    while seq < last_seq:
        yield from rest()
        while seq < last_seq:
            yield from fight() if rng.random() < 0.6 else scene()
            if rng.random() < 0.25:
                break
        session += 1
