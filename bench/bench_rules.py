"""Benchmark of the rule engine: replay of a realistic 100,000-event log, and single applies.

Targets (issue #2): replay >= 200,000 events/s (100,000 events in <= 0.5 s) on this 2-core
machine; one `apply` on a resumed state <= 50 us median.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import RuleError, apply, initial_state, replay

EVENTS = 100_000
REPLAY_TARGET = 200_000  # events per second
APPLY_TARGET_US = 50.0


def realistic_log(n: int, seed: int = 7) -> list[dict]:
    """A long campaign's log for one PJ: fights in rounds, rests, days, checks resolved.

    Built by proposing plausible events and keeping those the engine accepts, so the log
    is valid and exercises overflow, timers and checks the way a table does.
    """
    rng = random.Random(seed)
    log: list[dict] = [{"kind": "attributes", "scores": {"FUE": 3, "AGI": 2, "VOL": 3}}]
    state, _ = apply(initial_state(), log[0])
    blows = [
        ("heridas", "leve"),
        ("heridas", "leve"),
        ("heridas", "grave"),
        ("fatiga", "leve"),
        ("fatiga", "leve"),
        ("fatiga", "grave"),
        ("shock", "leve"),
        ("shock", "grave"),
        ("emocion", "leve"),
        ("afeccion", "leve"),
    ]
    while len(log) < n:
        if state["pending"]:
            p = state["pending"][0]
            ev = {"kind": "save", "check": p["check"], "success": rng.random() < 0.6}
        else:
            r = rng.random()
            if r < 0.30:
                t, g = rng.choice(blows)
                ev = {"kind": "suffer", "type": t, "grade": g}
                if t == "emocion":
                    ev["variant"] = rng.choice(("miedo", "euforia"))
            elif r < 0.55:
                ev = {"kind": "time", "rounds": 1}
            elif r < 0.65:
                ev = {"kind": "turn_end"}
            elif r < 0.75:
                ev = {"kind": "time", "minutes": rng.choice((1, 5, 10)), "activity": "reposo"}
            elif r < 0.80:
                ev = {"kind": "heal"}
            elif r < 0.84:
                ev = {"kind": "descanso"}
            elif r < 0.87:
                ev = {"kind": "time", "hours": rng.choice((1, 4, 12))}
            elif r < 0.90:
                ev = {"kind": "safe"}
            elif r < 0.93:
                ev = {"kind": "recover", "type": "heridas", "grade": "grave"}
            elif r < 0.96:
                ev = {"kind": "recover", "type": "afeccion", "grade": "leve"}
            else:
                ev = {"kind": "time", "minutes": 1, "activity": "reposo", "calm": True}
        ev["seed"] = rng.randrange(2**31)
        try:
            state, _ = apply(state, ev)
        except RuleError:
            continue
        log.append(ev)
    return log


def main() -> int:
    t0 = time.perf_counter()
    log = realistic_log(EVENTS)
    built = time.perf_counter() - t0
    kinds: dict[str, int] = {}
    for ev in log:
        kinds[ev["kind"]] = kinds.get(ev["kind"], 0) + 1
    print(f"log: {len(log)} events built in {built:.1f} s; kinds: {json.dumps(kinds)}")

    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        replay(log)
        runs.append(time.perf_counter() - t0)
    best = min(runs)
    rate = len(log) / best
    print(
        f"replay: best {best * 1000:.0f} ms of 5 runs, {rate:,.0f} events/s "
        f"(target >= {REPLAY_TARGET:,}) {'OK' if rate >= REPLAY_TARGET else 'MISSED'}"
    )

    # One apply on a state resumed from JSON, as the app does on every request.
    rng = random.Random(3)
    samples = []
    states = []
    st = None
    for i, ev in enumerate(log[:20_000]):
        st, _ = apply(st, ev)
        if i % 20 == 0:
            states.append((json.dumps(st), log[i + 1]))
    for stored, ev in states:
        resumed = json.loads(stored)
        t0 = time.perf_counter()
        apply(resumed, ev)
        samples.append((time.perf_counter() - t0) * 1e6)
    rng.shuffle(samples)
    median = statistics.median(samples)
    print(
        f"apply: median {median:.1f} us over {len(samples)} resumed states "
        f"(target <= {APPLY_TARGET_US:.0f} us) {'OK' if median <= APPLY_TARGET_US else 'MISSED'}"
    )
    return 0 if rate >= REPLAY_TARGET and median <= APPLY_TARGET_US else 1


if __name__ == "__main__":
    sys.exit(main())
