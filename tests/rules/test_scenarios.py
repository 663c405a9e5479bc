"""Every worked case in tests/rules/scenarios/ runs against the engine (see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import RuleError, replay

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))


def test_the_scenarios_folder_is_there_and_not_empty():
    assert len(FILES) >= 47, f"expected at least 47 scenarios in {SCENARIOS}"


def _matches(state: dict, expect: dict) -> list[str]:
    problems = []
    for key, want in expect.items():
        if key == "pending_checks":
            got = sorted(p["check"] for p in state["pending"])
        elif isinstance(want, dict):
            for sub, sub_want in want.items():
                if state[key][sub] != sub_want:
                    problems.append(f"{key}.{sub}: got {state[key][sub]!r}, want {sub_want!r}")
            continue
        else:
            got = state[key]
        if got != want:
            problems.append(f"{key}: got {got!r}, want {want!r}")
    return problems


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario(path: Path):
    case = json.loads(path.read_text(encoding="utf-8"))
    events, options = case["events"], case.get("options") or {}
    if case.get("expect_error"):
        replay(events[:-1], options)  # everything before the last event is valid
        with pytest.raises(RuleError) as info:
            replay(events, options)
        assert info.value.index == len(events) - 1
        return
    state = replay(events, options)
    assert _matches(state, case["expect"]) == []
