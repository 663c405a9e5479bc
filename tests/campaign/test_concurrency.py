"""Concurrent writers into one campaign: seq stays contiguous and nothing is lost."""

import threading

import pytest
from django.db import connection

from campaign import services
from campaign.audit import campaign_replay_check
from campaign.models import StateEvent
from tests.factories import CampaignFactory, CharacterFactory

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
