"""The benchmarks' synthetic log: a repeatable run of blows, checks and time, folded by the
rules as it is drawn (bench_board, bench_history and bench_backup write it in bulk)."""

from __future__ import annotations

import random
from collections.abc import Iterator

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
