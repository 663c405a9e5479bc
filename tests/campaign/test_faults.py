"""The server killed (SIGKILL) in the middle of a burst of DJ taps, then restarted on the
same database: bench/bench_faults.py's SQLite run, so the crash is in the suite too."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_faults

pytestmark = pytest.mark.slow  # a real uvicorn, killed and started again


def test_a_server_killed_mid_burst_keeps_every_acknowledged_write_and_comes_back(capfd):
    # Its own SQLite file in a temporary directory, in a process of its own (not the
    # test database): every acknowledged tap found by its key, nothing half-written,
    # replay_check passing, and the board answering and taking a new event after.
    code = bench_faults.on_sqlite()

    out, err = capfd.readouterr()
    assert code == 0, out + err[-3000:]
    assert "SQLite: OK" in out
    assert "half-written: 0 problems; replay_check exit 0" in out
