"""A PJ's stored state after a simulated year: how big it gets (issue #17, "long stretches").

The stored state (what each snapshot row holds: the SPEC section 8 state and the engine's
own) is measured as JSON, in bytes, for three years:

- a table's year: 52 weekly sessions of bench/_log.py's table_log for 8 PJ, the checks
  rolled as they come, as a table does; the largest state any PJ reached is the figure;
- a year of untreated Heridas grave, nobody rolling: a day's infection check piles up
  each day (SPEC: mandatory checks pile up, one per trigger);
- a long fight in Shock grave, nobody rolling: one end-of-turn TS VOL per turn end.

Target: a table's year stays under 8 KiB a PJ. The two piles are reported: they grow with
the checks left unrolled, one entry each (Tirar todas clears them in a few taps).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _log import table_log  # noqa: E402

import rules  # noqa: E402

TABLE_KIB = 8.0
SESSION_EVENTS = 250


def size(state: dict) -> int:
    return len(json.dumps(state, ensure_ascii=False).encode())


def a_tables_year() -> tuple[int, int, int]:
    """(largest state at any point, median at the end, events) over 52 sessions."""
    party = [SimpleNamespace(pk=n) for n in range(8)]
    attributes = {"kind": "attributes", "scores": {"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3}}
    states = {pj.pk: rules.apply(None, attributes)[0] for pj in party}
    largest = 0
    last = 0
    for step in table_log(party, states, {}, first_seq=0, last_seq=52 * SESSION_EVENTS):
        last = step.seq
        for pk, (state, _fx) in step.results.items():
            if not step.void:
                states[pk] = state
                largest = max(largest, size(state))
    return largest, int(statistics.median(size(s) for s in states.values())), last


def untreated_year() -> tuple[int, int]:
    state, _ = rules.apply(None, {"kind": "attributes", "scores": {"FUE": 3, "VOL": 3}})
    state, _ = rules.apply(state, {"kind": "suffer", "type": "heridas", "grade": "grave"})
    for _day in range(365):
        state, _ = rules.apply(state, {"kind": "time", "hours": 16})
        state, _ = rules.apply(state, {"kind": "descanso"})
    return size(state), len(state["pending"])


def long_fight(turns: int = 600) -> tuple[int, int]:
    state, _ = rules.apply(None, {"kind": "attributes", "scores": {"VOL": 3}})
    state, _ = rules.apply(state, {"kind": "suffer", "type": "shock", "grade": "grave"})
    for _turn in range(turns):
        state, _ = rules.apply(state, {"kind": "turn_end"})
        state, _ = rules.apply(state, {"kind": "time", "rounds": 1})
    return size(state), len(state["pending"])


def main() -> int:
    largest, median, events = a_tables_year()
    print(
        f"a table's year ({events:,} events, 8 PJ, checks rolled): largest stored state "
        f"{largest / 1024:.1f} KiB, median at the end {median / 1024:.1f} KiB "
        f"(target <= {TABLE_KIB:.0f} KiB)"
    )
    pile, count = untreated_year()
    print(
        f"a year of untreated Heridas grave, nobody rolling: {pile / 1024:.1f} KiB, "
        f"{count} checks waiting"
    )
    pile, count = long_fight()
    print(
        f"600 turn ends in Shock grave, nobody rolling: {pile / 1024:.1f} KiB, "
        f"{count} checks waiting"
    )
    ok = largest <= TABLE_KIB * 1024
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
