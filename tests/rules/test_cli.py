"""`python -m rules replay FILE.json` prints the state as JSON, or the error and exit 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_it_prints_the_state_of_a_list_of_events(tmp_path):
    log = tmp_path / "log.json"
    log.write_text(json.dumps([{"kind": "suffer", "type": "heridas", "grade": "grave"}]))
    out = run("replay", str(log))
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["marks"]["heridas"] == ["grave"]
    assert state["modifiers"]["FUE"] == -3


def test_it_reads_events_with_options(tmp_path):
    log = tmp_path / "log.json"
    body = {
        "events": [
            {"kind": "suffer", "type": "shock", "grade": "leve"},
            {"kind": "time", "rounds": 1},
        ],
        "options": {"round_seconds": 10},
    }
    log.write_text(json.dumps(body))
    state = json.loads(run("replay", str(log)).stdout)
    assert state["clock"] == 10
    assert state["marks"]["shock"] == []


def test_it_exits_1_naming_the_invalid_event(tmp_path):
    log = tmp_path / "log.json"
    log.write_text(json.dumps([{"kind": "time", "hours": 1}, {"kind": "heal"}]))
    out = run("replay", str(log))
    assert out.returncode == 1
    assert out.stdout == ""
    assert "event 1" in out.stderr and "Heridas" in out.stderr


def test_it_speaks_spanish_when_asked(tmp_path):
    log = tmp_path / "log.json"
    log.write_text(json.dumps([{"kind": "wake"}]))
    out = run("replay", str(log), "--lang", "es")
    assert out.returncode == 1
    assert "no está dormido" in out.stderr


def test_it_prints_the_effects_trail_on_request(tmp_path):
    log = tmp_path / "log.json"
    log.write_text(json.dumps([{"kind": "suffer", "type": "heridas", "grade": "leve"}] * 2))
    out = json.loads(run("replay", str(log), "--trail").stdout)
    assert [e["rule"] for e in out["effects"][1] if e["change"] != "suffer"] == ["R2", "R5"]


def test_it_refuses_an_unreadable_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = run("replay", str(bad))
    assert out.returncode == 2
    assert "cannot read" in out.stderr
