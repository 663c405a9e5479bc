"""Concurrent writers into one campaign: seq stays contiguous and nothing is lost."""

import functools
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection

from campaign import services
from campaign.history.replay import campaign_replay_check
from campaign.models import StateEvent
from tests.factories import CampaignFactory, CharacterFactory

ROOT = Path(__file__).resolve().parents[2]
THREADS = 8
EVENTS_PER_THREAD = 200


def writer_event(thread: int, i: int) -> dict:
    events = [
        {"kind": "suffer", "type": "shock", "grade": "leve"},
        {"kind": "time", "rounds": 1},
        {"kind": "suffer", "type": "fatiga", "grade": "leve"},
        {"kind": "turn_end"},
        {"kind": "time", "minutes": 2, "activity": "reposo"},
    ]
    return events[(thread + i) % len(events)]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: the SQLite test database lives in one connection's memory",
)
@pytest.mark.django_db(transaction=True)
def test_eight_writers_get_contiguous_seq_and_lose_nothing():
    campaign = CampaignFactory()
    pjs = [CharacterFactory(campaign=campaign, name=f"PJ {n}") for n in range(4)]
    barrier = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def write(thread: int) -> None:
        try:
            barrier.wait(timeout=30)
            for i in range(EVENTS_PER_THREAD):
                wide = i % 10 == 0
                services.event_record(
                    campaign=campaign,
                    character=None if wide else pjs[(thread + i) % len(pjs)],
                    event={"kind": "time", "minutes": 1} if wide else writer_event(thread, i),
                    idempotency_key=f"{thread}-{i}",
                )
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert failures == []
    total = len(pjs) + THREADS * EVENTS_PER_THREAD
    seqs = list(
        StateEvent.objects.filter(campaign=campaign).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, total + 1))
    keys = set(
        StateEvent.objects.filter(campaign=campaign)
        .exclude(idempotency_key="")
        .values_list("idempotency_key", flat=True)
    )
    assert keys == {f"{t}-{i}" for t in range(THREADS) for i in range(EVENTS_PER_THREAD)}
    campaign.refresh_from_db()
    assert campaign.last_seq == total
    assert campaign_replay_check(campaign=campaign) == (len(pjs), [])


SQLITE_WRITERS = """
import threading
from django.db import connection
from campaign import services
from campaign.history.replay import campaign_replay_check

campaign = services.campaign_create(name="C", slug="c")
pjs = [services.character_create(campaign=campaign, name=f"P{n}") for n in range(3)]
failures = []

def write(thread):
    try:
        for i in range(100):
            services.event_record(
                campaign=campaign,
                character=None if i % 7 == 0 else pjs[i % 3],
                event={"kind": "time", "rounds": 1},
                idempotency_key=f"{thread}-{i}",
            )
    except Exception as exc:
        failures.append(repr(exc))
    finally:
        connection.close()

threads = [threading.Thread(target=write, args=(t,)) for t in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
seqs = list(campaign.events.order_by("seq").values_list("seq", flat=True))
print("failures", failures)
print("contiguous", seqs == list(range(1, 3 + 600 + 1)))
print("replay", campaign_replay_check(campaign=campaign))
"""


def test_six_writers_on_a_sqlite_file_get_contiguous_seq_and_lose_nothing(tmp_path):
    # The test database is in memory, so this runs against a real SQLite file in a
    # subprocess, as `make run` uses it.
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    run = functools.partial(
        subprocess.run, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    migrate = run([sys.executable, "manage.py", "migrate", "-v0"])
    assert migrate.returncode == 0, migrate.stderr
    result = run([sys.executable, "manage.py", "shell", "--no-imports", "-c", SQLITE_WRITERS])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "failures []",
        "contiguous True",
        "replay (3, [])",
    ]
