"""Benchmark of the session history: a session of 5,000 events, read by the DJ.

Target (the session history issue), on this 2-core machine: the session's timeline page
with 5,000 events in at most 15 SQL queries and a median server time of at most 100 ms.
Also measured, without a target: the last window of the session, the campaign's history,
one event's before and after, and the session's log as Markdown and CSV.

Requests go through Django's test client in this process (no network). The database is a
throwaway SQLite file, or `DATABASE_URL` if set (an empty database that may be written to).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_board  # sets Django up on a throwaway database
from django.conf import settings
from django.core.management import call_command
from django.db import connection, reset_queries
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaign import services
from campaign.models import GameSession, StateEvent

SESSION_EVENTS = 5_000
QUERIES = 15
PAGE_MS = 100.0
RUNS = 30


def timed(client: Client, url: str, runs: int = RUNS) -> tuple[float, int, int]:
    """Median ms, query count and response size of GET `url`."""
    client.get(url)  # warm the template and translation caches
    reset_queries()  # the log of queries is bounded, and building the session filled it
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        client.get(url)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000, len(queries), len(response.content)


def main() -> int:
    print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
    call_command("migrate", verbosity=0)
    bench_board.LOG_EVENTS = SESSION_EVENTS
    started = time.perf_counter()
    campaign, party, dj = bench_board.build_campaign()
    session = services.session_start(campaign=campaign, title="Bench")
    StateEvent.objects.filter(campaign=campaign).update(session=session)
    voided = StateEvent.objects.filter(campaign=campaign).order_by("-seq").first()
    services.event_void(event=voided, actor=dj, reason="bench")
    count = StateEvent.objects.filter(session=session).count()
    print(f"built a session of {count} events in {time.perf_counter() - started:.1f} s")
    assert GameSession.objects.filter(campaign=campaign).count() == 1

    client = Client()
    client.force_login(dj)
    base = f"/c/{campaign.slug}"
    page_ms, page_queries, size = timed(client, f"{base}/sesion/{session.number}/")
    print(
        f"session page ({count} events, first window): {page_queries} queries "
        f"(target <= {QUERIES}), median {page_ms:.1f} ms (target <= {PAGE_MS:.0f}), "
        f"{size / 1024:.0f} KiB"
    )
    others = [
        ("session page, last window", f"{base}/sesion/{session.number}/?final=1"),
        ("session page, one PJ", f"{base}/sesion/{session.number}/?pj={party[0].pk}"),
        ("campaign history", f"{base}/historia/"),
        ("one event, before and after", f"{base}/evento/{voided.seq - 1}/"),
        ("end-of-session sheets", f"{base}/sesion/{session.number}/hojas/"),
        ("timeline picture (SVG)", f"{base}/sesion/{session.number}/linea.svg"),
        ("session log, Markdown", f"{base}/sesion/{session.number}/registro.md"),
        ("session log, CSV", f"{base}/sesion/{session.number}/registro.csv"),
    ]
    for name, url in others:
        slow = "registro" in url or "svg" in url
        ms, queries, size = timed(client, url, runs=5 if slow else RUNS)
        print(f"  {name}: {queries} queries, median {ms:.1f} ms, {size / 1024:.0f} KiB")
    ok = page_queries <= QUERIES and page_ms <= PAGE_MS
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
