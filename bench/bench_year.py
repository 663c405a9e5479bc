"""A PJ's stored state after a simulated year: how big it gets (issue #17, "long stretches").

The stored state is what each snapshot row holds (rules/README.md section 8 and the engine's
own, in the packed form campaign.models.StateField writes: rules.packed), measured as JSON,
in bytes, for three years:

- a table's year: 52 weekly sessions of bench/_log.py's table_log for 8 PJ, the checks
  rolled as they come, as a table does; the largest state any PJ reached is the figure;
- a year of untreated Heridas grave, nobody rolling: a day's infection check piles up
  each day (rules/README.md §9: mandatory checks pile up, one per trigger);
- a long fight in Shock grave, nobody rolling: one end-of-turn TS VOL per turn end.

Target: each stays under 8 KiB a PJ (a check left waiting costs one byte packed; the state
as rules.apply gives it, with every check listed, is printed beside it).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _log import table_log

import rules

TABLE_KIB = 8.0
SESSION_EVENTS = 250


def size(state: dict) -> int:
    """The bytes of `state` as a snapshot row stores it."""
    return len(json.dumps(rules.packed(state), ensure_ascii=False).encode())


def listed(state: dict) -> int:
    """The bytes of `state` with every check listed (rules.apply's own form)."""
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


def untreated_year() -> tuple[int, int, int]:
    state, _ = rules.apply(None, {"kind": "attributes", "scores": {"FUE": 3, "VOL": 3}})
    state, _ = rules.apply(state, {"kind": "suffer", "type": "heridas", "grade": "grave"})
    for _day in range(365):
        state, _ = rules.apply(state, {"kind": "time", "hours": 16})
        state, _ = rules.apply(state, {"kind": "descanso"})
    return size(state), listed(state), len(state["pending"])


def long_fight(turns: int = 600) -> tuple[int, int, int]:
    state, _ = rules.apply(None, {"kind": "attributes", "scores": {"VOL": 3}})
    state, _ = rules.apply(state, {"kind": "suffer", "type": "shock", "grade": "grave"})
    for _turn in range(turns):
        state, _ = rules.apply(state, {"kind": "turn_end"})
        state, _ = rules.apply(state, {"kind": "time", "rounds": 1})
    return size(state), listed(state), len(state["pending"])


def main() -> int:
    largest, median, events = a_tables_year()
    print(
        f"a table's year ({events:,} events, 8 PJ, checks rolled): largest stored state "
        f"{largest / 1024:.1f} KiB, median at the end {median / 1024:.1f} KiB "
        f"(target <= {TABLE_KIB:.0f} KiB)"
    )
    piles = [
        ("a year of untreated Heridas grave, nobody rolling", untreated_year()),
        ("600 turn ends in Shock grave, nobody rolling", long_fight()),
    ]
    for what, (pile, whole, count) in piles:
        print(
            f"{what}: stored {pile / 1024:.1f} KiB (target <= {TABLE_KIB:.0f} KiB), "
            f"{count} checks waiting ({whole / 1024:.0f} KiB with each listed)"
        )
    ok = largest <= TABLE_KIB * 1024 and all(p <= TABLE_KIB * 1024 for _w, (p, _l, _c) in piles)
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
