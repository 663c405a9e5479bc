"""Benchmark of campaign backups: exporting and importing a 50,000-event campaign.

Targets (the session history issue), on this 2-core machine:
- the export streams: its peak memory growth is at most 50 MB, measured two ways:
  * tracemalloc: the peak of Python allocations during the export, above what was
    allocated before it (in this process);
  * peak RSS: a child process sets Django up, opens the database and reads the campaign
    (its baseline RSS), then exports to a file; the growth of its peak resident set size
    (Linux's VmHWM, reset before the export) over that baseline. This one counts
    everything, SQLite's own buffers included. (Not getrusage's ru_maxrss: Linux carries
    the parent's peak over into a child, through fork and exec.)
- the import (checking, re-folding the log with the rules, writing it) takes at most 60 s.

The campaign has 8 PJ, 50 game sessions (the last one open), an event in 250 voided as the
DJ's Deshacer would, secret events and campaign-wide time every fifth event. It is written
in bulk with states from the rules, as event_record would leave it. After the import, every
PJ's state after every event and now is compared with the original's, byte for byte.

The database is a throwaway SQLite file, or `DATABASE_URL` if set (it must point at an
empty database that may be written to).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_tmp = tempfile.TemporaryDirectory(prefix="zodiac-bench-backup-")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_tmp.name}/bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")

import django  # noqa: E402
from asgiref.sync import async_to_sync  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import AsyncClient  # noqa: E402

# As in production: with DEBUG on, Django keeps the SQL of every query, bulk inserts of
# whole states included, and the import's memory would be mostly that log.
settings.DEBUG = False

from _log import folded_events  # noqa: E402

import rules  # noqa: E402
from campaign import backup, services  # noqa: E402
from campaign.backup import export_chunks  # noqa: E402
from campaign.models import (  # noqa: E402
    Campaign,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    StateEvent,
)
from campaign.services.restore import campaign_import  # noqa: E402

LOG_EVENTS = 50_000
PARTY = 8
SESSIONS = 50
VOID_EVERY = 250
EXPORT_MB = 50.0
IMPORT_S = 60.0
MB = 1024 * 1024


def build_campaign() -> Campaign:
    """A 50,000-event campaign written in bulk, its states and effects from the rules."""
    from django.contrib.auth import get_user_model

    dj = get_user_model().objects.create_user("bench-dj", password="bench-password-1")
    campaign = services.campaign_create(name="Bench", slug="bench", dj=dj)
    party = [
        services.character_create(
            campaign=campaign,
            name=f"PJ {n}",
            attributes={"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3},
            actor=dj,
        )
        for n in range(PARTY)
    ]
    options = campaign.rule_options()
    # Read back: the PJ that character_create returns holds its snapshot from before its
    # `attributes` event.
    snapshots = CharacterSnapshot.objects.filter(character__in=party)
    states = {s.character_id: s.state for s in snapshots}
    last = {s.character_id: s.seq for s in snapshots}
    campaign.refresh_from_db()
    seq = campaign.last_seq
    start = datetime(2025, 1, 1, 18, tzinfo=UTC)
    per_session = LOG_EVENTS // SESSIONS
    session = None
    batch_events, batch_snaps = [], []

    def flush() -> None:
        StateEvent.objects.bulk_create(batch_events)
        EventSnapshot.objects.bulk_create(batch_snaps, batch_size=2000)
        batch_events.clear()
        batch_snaps.clear()

    def session_end(at: int) -> None:
        flush()
        session.ended_at = start + timedelta(seconds=at)
        session.recap = f"Sesión {session.number}: el viaje sigue."
        session.sheet_summary = {
            str(c.pk): {"name": c.name, "state": rules.public_state(states[c.pk])} for c in party
        }
        session.save()

    log = folded_events(party, states, options, first_seq=seq, last_seq=LOG_EVENTS)
    for seq, event, targets, results in log:
        number = (seq - 1) // per_session + 1
        if number > (session.number if session else 0):
            if session is not None:
                session_end(seq - 1)
            session = GameSession.objects.create(
                campaign=campaign,
                number=number,
                title=f"Sesión {number}",
                started_at=start + timedelta(seconds=seq - 1),
            )
        created_at = start + timedelta(seconds=seq)
        void = seq % VOID_EVERY == 0  # recorded, then undone at once (Deshacer)
        record = StateEvent(
            campaign=campaign,
            character=None if len(targets) > 1 else targets[0],
            session=session,
            seq=seq,
            created_at=created_at,
            actor=dj,
            event=event,
            effects={str(pk): fx for pk, (_s, fx) in results.items()},
            void_at=created_at + timedelta(milliseconds=500) if void else None,
            void_by=dj if void else None,
            void_reason="Deshacer" if void else "",
            secret=seq % 97 == 0,
        )
        batch_events.append(record)
        for pk, (state, _fx) in results.items():
            batch_snaps.append(
                EventSnapshot(event=record, character_id=pk, seq=record.seq, state=state)
            )
            if not void:
                states[pk] = state
                last[pk] = seq
        if len(batch_events) >= 2000:
            flush()
    flush()
    for pk, state in states.items():
        CharacterSnapshot.objects.filter(character_id=pk).update(state=state, seq=last[pk])
    Campaign.objects.filter(pk=campaign.pk).update(last_seq=seq)
    campaign.refresh_from_db()
    return campaign


def export_to(campaign: Campaign, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for chunk in export_chunks(campaign):
            out.write(chunk)


def _rss_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise LookupError(key)


def child_export(slug: str, path: str) -> None:
    """In a child process: the growth of its peak RSS during an export, over a baseline.

    The baseline is taken after Django is set up, the database opened and the campaign
    read. The peak is the kernel's high-water mark of this process's resident set (VmHWM),
    reset to the current RSS just before the export (`5` into /proc/self/clear_refs).
    getrusage's ru_maxrss would not do: Linux carries it over from the parent through
    fork and exec, so the child would start with the parent's peak.
    """
    campaign = Campaign.objects.get(slug=slug)
    list(campaign.characters.all())
    StateEvent.objects.filter(campaign=campaign).order_by("seq").values_list("event").first()
    Path("/proc/self/clear_refs").write_text("5")
    before = _rss_kb("VmRSS")
    export_to(campaign, Path(path))
    peak = _rss_kb("VmHWM")
    print(json.dumps({"before_kb": before, "after_kb": peak}))


def states_by_seq(campaign: Campaign):
    """Every PJ's state after every event, by (seq, PJ name), as sorted JSON; in order."""
    rows = (
        EventSnapshot.objects.filter(event__campaign=campaign)
        .order_by("event__seq", "character__name")
        .values_list("event__seq", "character__name", "state")
    )
    for seq, name, state in rows.iterator(chunk_size=5000):
        yield seq, name, json.dumps(state, sort_keys=True)


def effects_by_seq(campaign: Campaign):
    """Every event's effects trail, by seq, keyed by PJ name, as sorted JSON; in order."""
    names = {str(pk): name for pk, name in campaign.characters.values_list("pk", "name")}
    rows = StateEvent.objects.filter(campaign=campaign).order_by("seq")
    for seq, effects in rows.values_list("seq", "effects").iterator(chunk_size=5000):
        yield seq, json.dumps({names[k]: v for k, v in effects.items()}, sort_keys=True)


def main() -> int:
    print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    campaign = build_campaign()
    print(
        f"built a {campaign.last_seq}-event log for {PARTY} PJ, {SESSIONS} sessions, "
        f"in {time.perf_counter() - started:.1f} s"
    )
    path = Path(_tmp.name) / "bench.json"

    t0 = time.perf_counter()
    export_to(campaign, path)
    export_s = time.perf_counter() - t0
    size_mb = path.stat().st_size / MB

    tracemalloc.start()
    base, _peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    export_to(campaign, Path(_tmp.name) / "traced.json")
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    traced_mb = (peak - base) / MB

    # The DJ's download, as uvicorn serves it: the view's response read as an async stream.
    client = AsyncClient()
    client.force_login(campaign.memberships.get(role="dj").user)

    async def download() -> int:
        response = await client.get(f"/c/{campaign.slug}/copia/")
        assert response.status_code == 200 and response.is_async
        size = 0
        async for piece in response.streaming_content:
            size += len(piece)
        return size

    tracemalloc.start()
    base, _peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    downloaded = async_to_sync(download)()
    view_s = time.perf_counter() - t0
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    view_mb = (peak - base) / MB
    assert downloaded == path.stat().st_size, (downloaded, path.stat().st_size)

    child = subprocess.run(
        [sys.executable, __file__, "--child-export", campaign.slug, f"{_tmp.name}/child.json"],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=True,
    )
    rss = json.loads(child.stdout.strip().splitlines()[-1])
    rss_mb = (rss["after_kb"] - rss["before_kb"]) / 1024

    data = path.read_bytes()
    Path("/proc/self/clear_refs").write_text("5")
    rss_before = _rss_kb("VmRSS")
    t0 = time.perf_counter()
    result = campaign_import(data, name="Bench copia")
    import_s = time.perf_counter() - t0
    import_mb = (_rss_kb("VmHWM") - rss_before) / 1024
    copy = result.campaign
    # The part before the write transaction (parse, check, the first fold), alone.
    t0 = time.perf_counter()
    backup.check.fold_check(backup.backup_check(backup.backup_parse(data)))
    check_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    same = all(a == b for a, b in zip(states_by_seq(campaign), states_by_seq(copy), strict=True))
    now = {
        s.character.name: (json.dumps(s.state, sort_keys=True), s.seq)
        for s in CharacterSnapshot.objects.filter(character__campaign=campaign).select_related(
            "character"
        )
    }
    now_copy = {
        s.character.name: (json.dumps(s.state, sort_keys=True), s.seq)
        for s in CharacterSnapshot.objects.filter(character__campaign=copy).select_related(
            "character"
        )
    }
    same = same and now == now_copy
    same = same and all(
        a == b for a, b in zip(effects_by_seq(campaign), effects_by_seq(copy), strict=True)
    )
    snapshots = EventSnapshot.objects.filter(event__campaign=copy).count()
    print(
        f"compared {snapshots} per-event states, {len(now)} current ones and "
        f"{result.events} effects trails in "
        f"{time.perf_counter() - t0:.1f} s: {'identical' if same else 'DIFFERENT'}"
    )

    print(f"export of {result.events} events ({size_mb:.1f} MB of JSON): {export_s:.1f} s")
    print(
        f"export peak memory growth, tracemalloc (Python allocations): {traced_mb:.1f} MB "
        f"(target <= {EXPORT_MB:.0f})"
    )
    print(
        f"the DJ's download through the view under ASGI: {view_s:.1f} s (with tracemalloc on), "
        f"peak memory growth (tracemalloc) {view_mb:.1f} MB (target <= {EXPORT_MB:.0f})"
    )
    print(
        f"export peak memory growth, peak RSS (VmHWM) of a child process over its baseline "
        f"({rss['before_kb'] / 1024:.0f} MB): {rss_mb:.1f} MB (target <= {EXPORT_MB:.0f})"
    )
    print(
        f"import of {result.events} events, {result.characters} PJ, {result.sessions} "
        f"sessions: {import_s:.1f} s (target <= {IMPORT_S:.0f})"
    )
    print(
        f"(not targets) of which checking and folding before writing: {check_s:.1f} s, the "
        f"write transaction: {import_s - check_s:.1f} s; peak memory growth (VmHWM): "
        f"{import_mb:.0f} MB"
    )
    ok = same and max(traced_mb, rss_mb, view_mb) <= EXPORT_MB and import_s <= IMPORT_S
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child-export":
        child_export(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
