"""Benchmark of a campaign that lasts years: what each page and action costs as the log grows.

Target (issue #17, "flat cost"): every page (the board, a player's sheet, the history, one
event, a session, its end-of-session sheets, its timeline) and every action (a PJ's event,
a party event, a void) costs at most 1.25x at 100,000 events what it costs at 1,000, on
SQLite and on PostgreSQL (a throwaway cluster, when initdb and pg_ctl exist).

The log is a table's (bench/_log.py's table_log): weekly sessions of about 250 events,
fights in turns, scenes of one PJ's blows and checks, days of rest between sessions, 2 %
of a PJ's events voided, 1 % secret; 8 PJ, each with its player. It is written in bulk,
each state folded by the rules, then grown in place: 1,000 events, measured, 10,000,
measured, 100,000, measured. Requests go through Django's test client in this process,
with every middleware (no network): the time is what the server spends. Each figure is a
median of RUNS requests (20); the query count of each is printed too.

Knobs: STAGES ("1000,10000,100000"), RUNS, PROFILE (1: each page's slowest queries).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

STAGES = [int(n) for n in os.environ.get("STAGES", "1000,10000,100000").split(",")]
RUNS = int(os.environ.get("RUNS", "20"))
PROFILE = bool(os.environ.get("PROFILE"))
PARTY = 8
RATIO = 1.25
# Below this a figure is within the clock's and the machine's noise: a page that takes
# 3 ms at 1,000 events is not judged "grown" for taking 4 ms at 100,000.
NOISE_MS = 2.0


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "true"  # the query log; templates are cached all the same
    os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
    import logging

    import django

    django.setup()
    logging.getLogger("axes").setLevel(logging.WARNING)  # a line for each login otherwise


class Table:
    """The benchmark's campaign, and its log grown in bulk by table_log."""

    def __init__(self) -> None:
        from django.contrib.auth import get_user_model
        from django.utils import timezone

        from campaign import services
        from campaign.models import Membership

        users = get_user_model().objects
        self.dj = users.create_user("bench-dj", password="bench-password-1")
        self.campaign = services.campaign_create(name="Bench", slug="bench", dj=self.dj)
        self.party = []
        for n in range(PARTY):
            player = users.create_user(f"bench-player-{n}", password="bench-password-1")
            services.membership_set(
                campaign=self.campaign, user=player, role=Membership.Role.PLAYER
            )
            self.party.append(
                services.character_create(
                    campaign=self.campaign,
                    name=f"PJ {n}",
                    player=player,
                    attributes={"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3},
                )
            )
        # The generated clock: a session a week, from long ago, so that a few years of
        # sessions still lie in the past.
        self.clock = timezone.now() - timedelta(days=7 * 450)
        self.session = None
        self.session_ordinal = -1

    def grow(self, to: int) -> float:
        """Write the log up to `to` events; the seconds it took."""
        from _log import table_log
        from django.db import connection

        from campaign.models import (
            Campaign,
            CampaignChange,
            CharacterSnapshot,
            EventSnapshot,
            StateEvent,
        )

        started = time.perf_counter()
        self._close_open()
        campaign = Campaign.objects.get(pk=self.campaign.pk)
        options = campaign.rule_options()
        states = {
            s.character_id: s.state
            for s in CharacterSnapshot.objects.filter(character__in=self.party)
        }
        seq, cursor = campaign.last_seq, campaign.change_cursor
        events, snaps, changes = [], [], []

        def flush() -> None:
            StateEvent.objects.bulk_create(events)
            EventSnapshot.objects.bulk_create(snaps)
            CampaignChange.objects.bulk_create(changes)
            events.clear()
            snaps.clear()
            changes.clear()

        ordinal_seen = None
        for step in table_log(self.party, states, options, first_seq=seq, last_seq=to):
            if step.session != ordinal_seen:
                flush()
                self._next_session(states)
                ordinal_seen = step.session
            self.clock += timedelta(seconds=20)
            seq, cursor = step.seq, cursor + 1
            record = StateEvent(
                campaign=campaign,
                character=None if step.party else step.targets[0],
                session=self.session,
                seq=step.seq,
                created_at=self.clock,
                actor=self.dj,
                event=step.event,
                effects={str(pk): fx for pk, (_state, fx) in step.results.items()},
                idempotency_key=f"bench-{step.seq}",
                secret=step.secret,
            )
            events.append(record)
            for pk, (state, _fx) in step.results.items():
                snaps.append(
                    EventSnapshot(event=record, character_id=pk, seq=record.seq, state=state)
                )
                if not step.void:
                    states[pk] = state
            changes.append(
                CampaignChange(
                    campaign=campaign,
                    cursor=cursor,
                    character=None if step.party else step.targets[0],
                    kind=CampaignChange.Kind.EVENT,
                    created_at=self.clock,
                )
            )
            if step.void:
                record.void_at, record.void_by = self.clock, self.dj
                record.void_reason = "Error al apuntar"
                cursor += 1
                changes.append(
                    CampaignChange(
                        campaign=campaign,
                        cursor=cursor,
                        character=step.targets[0],
                        kind=CampaignChange.Kind.VOID,
                        created_at=self.clock,
                    )
                )
            if len(events) >= 2000:
                flush()
        flush()
        for pk, state in states.items():
            CharacterSnapshot.objects.filter(character_id=pk).update(state=state, seq=seq)
        Campaign.objects.filter(pk=campaign.pk).update(last_seq=seq, change_cursor=cursor)
        self._no_fight_on()
        self.campaign.refresh_from_db()
        if connection.vendor == "postgresql":
            # What autovacuum does on a server that took these events over months (the
            # planner's statistics, the visibility map), done before the measures rather
            # than during them.
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        return time.perf_counter() - started

    def _next_session(self, states: dict) -> None:
        """End the open session (its sheets from `states`) and open the next, a week on."""
        import rules
        from campaign.models import GameSession

        if self.session is not None:
            self.session.ended_at = self.clock
            self.session.sheet_summary = {
                str(pj.pk): {"name": pj.name, "state": rules.public_state(states[pj.pk])}
                for pj in self.party
            }
            self.session.save()
        self.session_ordinal += 1
        self.clock = max(self.clock, self._week(self.session_ordinal))
        self.session = GameSession.objects.create(
            campaign=self.campaign,
            number=self.session_ordinal + 1,
            title=f"Bench {self.session_ordinal + 1}",
            started_at=self.clock,
        )

    def _week(self, ordinal: int):
        from django.utils import timezone

        return timezone.now() - timedelta(days=7 * 450) + timedelta(days=7 * ordinal)

    def _close_open(self) -> None:
        """Before growing: the measured actions' events get the generated clock, and the
        open session is ended through the service, as a DJ ends it."""
        from campaign import services
        from campaign.models import StateEvent

        if self.session is None:
            return
        StateEvent.objects.filter(campaign=self.campaign, created_at__gt=self.clock).update(
            created_at=self.clock
        )
        services.session_end(session=self.session, ended_at=self.clock)
        self.session = None

    def _no_fight_on(self) -> None:
        """A stage ends between fights: the party's time is refused during one."""
        from campaign import selectors, services

        if selectors.fight_now(campaign=self.campaign) is not None:
            services.fight_end(campaign=self.campaign, actor=self.dj)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(table: Table) -> dict[str, tuple[float, int]]:
    """Each page's and action's median server time (ms) and SQL queries, on `table` now."""
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from campaign.models import StateEvent

    dj, player = Client(), Client()
    dj.force_login(table.dj)
    pj = table.party[0]
    player.force_login(pj.player)
    base = f"/c/{table.campaign.slug}"
    # The same session and the same event at every stage (the first session, its 100th
    # event): what they cost is what the log's growth adds, not what they hold.
    first = 1
    fixed = (
        StateEvent.objects.filter(campaign=table.campaign, session__number=first)
        .order_by("seq")
        .values_list("seq", flat=True)[100]
    )
    pages = [
        ("board", dj, f"{base}/"),
        ("sheet (player)", player, f"{base}/pj/{pj.pk}/hoja/"),
        ("history", dj, f"{base}/historia/"),
        ("one event", dj, f"{base}/evento/{fixed}/"),
        ("session", dj, f"{base}/sesion/{first}/"),
        ("end-of-session sheets", dj, f"{base}/sesion/{first}/hojas/"),
        ("timeline (SVG)", dj, f"{base}/sesion/{first}/linea.svg"),
    ]
    figures: dict[str, tuple[float, int]] = {}
    for name, client, url in pages:
        client.get(url)  # warm the caches
        reset_queries()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        count = len(queries)  # before the runs refill the bounded query log
        if PROFILE:
            slow = sorted(queries.captured_queries, key=lambda q: -float(q["time"]))[:3]
            for q in (q for q in slow if float(q["time"]) >= 0.002):
                print(f"    {name}: {float(q['time']) * 1000:.1f} ms {q['sql'][:300]}")
        samples = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            client.get(url)
            samples.append(time.perf_counter() - t0)
        figures[name] = (median_ms(samples), count)

    hx = {"HX-Request": "true"}
    timed: dict[str, list[float]] = {"a PJ's event": [], "void": [], "party event": []}
    counted: dict[str, int] = {}

    def post(name: str, url: str, form: dict, *, ok: int = 200):
        reset_queries()
        with CaptureQueriesContext(connection) as queries:
            t0 = time.perf_counter()
            response = dj.post(url, form, headers=hx)
            timed[name].append(time.perf_counter() - t0)
        assert response.status_code == ok, (url, response.status_code, response.content[:300])
        counted[name] = len(queries)

    for i in range(RUNS):
        target = table.party[i % PARTY]
        post(
            "a PJ's event",
            f"{base}/pj/{target.pk}/accion/",
            {
                "action": "suffer",
                "type_grade": "fatiga:leve",
                "key": f"m{table.campaign.last_seq}-{i}",
            },
        )
        newest = StateEvent.objects.filter(campaign=table.campaign).order_by("-seq").first()
        post("void", f"{base}/anular/", {"seq": newest.seq, "reason": "Bench"})
        post(
            "party event",
            f"{base}/tiempo/",
            {"amount": "1", "unit": "minutes", "key": f"t{table.campaign.last_seq}-{i}"},
        )
    for name, samples in timed.items():
        figures[name] = (median_ms(samples), counted[name])
    return figures


def run_one(database_url: str, label: str) -> int:
    setup_django(database_url)
    from django.core.management import call_command
    from django.db import connection

    print(f"{label}: {connection.vendor}, stages {STAGES}, {RUNS} runs a figure")
    call_command("migrate", verbosity=0)
    table = Table()
    by_stage: dict[int, dict[str, tuple[float, int]]] = {}
    for stage in STAGES:
        took = table.grow(stage)
        print(
            f"{label}: log grown to {table.campaign.last_seq} events, "
            f"{table.session.number} sessions, in {took:.1f} s",
            flush=True,
        )
        by_stage[stage] = measure(table)
    first, last = STAGES[0], STAGES[-1]
    names = list(by_stage[first])
    heads = [f"{n:,} events" for n in STAGES]
    print(f"\n{label}: median ms (SQL queries)")
    print(f"| {'':24} | " + " | ".join(f"{h:>16}" for h in heads) + " | ratio |")
    print(f"|{'-' * 26}|" + "|".join("-" * 18 for _ in heads) + "|-------|")
    missed = []
    for name in names:
        cells = [f"{by_stage[n][name][0]:8.1f} ({by_stage[n][name][1]:>3})" for n in STAGES]
        base_ms, end_ms = by_stage[first][name][0], by_stage[last][name][0]
        ratio = end_ms / base_ms
        grew = end_ms > RATIO * base_ms and end_ms - base_ms > NOISE_MS
        if grew:
            missed.append(name)
        print(
            f"| {name:24} | "
            + " | ".join(f"{c:>16}" for c in cells)
            + f" | {ratio:4.2f}{'!' if grew else ' '} |"
        )
    if missed:
        print(f"{label}: MISSED (over {RATIO}x of {first:,} events): {', '.join(missed)}")
        return 1
    print(f"{label}: OK (every figure within {RATIO}x of {first:,} events)")
    return 0


def child(database_url: str, label: str) -> int:
    command = [sys.executable, __file__, "--database-url", database_url, "--label", label]
    try:
        return subprocess.run(command, cwd=ROOT, timeout=1500).returncode
    except subprocess.TimeoutExpired:
        print(f"{label}: gave up after 1500 s", file=sys.stderr)
        return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="run once against this database (internal)")
    parser.add_argument("--label", default="")
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    args = parser.parse_args()
    if args.database_url:
        return run_one(args.database_url, args.label)
    from _pg import throwaway_postgresql

    results = []
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory(prefix="zodiac-bench-growth.") as tmp:
            results.append(child(f"sqlite:///{tmp}/bench.sqlite3", "SQLite"))
    if args.only != "sqlite":
        with throwaway_postgresql() as url:
            if url is not None:
                results.append(child(url, "PostgreSQL"))
    return 1 if any(results) else 0


if __name__ == "__main__":
    sys.exit(main())
