"""Benchmark of the DJ's board: reading it and acting on it, measured as server time.

Targets (the DJ's table issue, #17 for the heavy board, #26 for the PNJ), on this 2-core
machine, each board read cold: every card rendered, no fragment cache left from the read
before (the figure a DJ gets after a party event touched every card; the warm figure is
printed beside it):
- the board of 8 PJ in a campaign whose log holds 50,000 events: at most 12 SQL queries,
  median server time <= 30 ms;
- the board of 8 PJ in the heaviest state a table reaches (every type active, E.Esp of
  Heridas and Emoción and of the DJ, three Afección sources, secrets, a pending check, a
  fight on): median server time <= 30 ms;
- the board of 8 PJ and 12 PNJ in a heavy fight (6 copies of a Plantilla in one turn, 3 of
  another, 3 PNJ of their own, some with Heridas, Shock, Fatiga and checks pending, all of
  them in the fight's order): at most 12 SQL queries, median server time <= 30 ms; each
  PNJ's "Tarjeta entera" closed, as the board opens;
- applying an event, request to rendered card: median <= 50 ms;
- a party Descanso for 8 PJ: median <= 150 ms.

Requests go through Django's test client in this process (no network): the time is what
the server spends. The database is a throwaway SQLite file, or `DATABASE_URL` if set (it
must point at an empty database that may be written to).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_tmp = tempfile.TemporaryDirectory(prefix="zodiac-bench-board-")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_tmp.name}/bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DEBUG"] = "true"
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")

import django  # noqa: E402

django.setup()

from _log import folded_events  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from campaign import services  # noqa: E402
from campaign.models import (  # noqa: E402
    Campaign,
    CampaignChange,
    CharacterSnapshot,
    EventSnapshot,
    StateEvent,
)

LOG_EVENTS = 50_000
PARTY = 8
BOARD_QUERIES = 12
BOARD_MS = 30.0
APPLY_MS = 50.0
DESCANSO_MS = 150.0
RUNS = 40


def build_campaign() -> tuple[Campaign, list, object]:
    """A campaign with 8 PJ and a 50,000-event log, written in bulk (states from the rules)."""
    from django.contrib.auth import get_user_model

    dj = get_user_model().objects.create_user("bench-dj", password="bench-password-1")
    campaign = services.campaign_create(name="Bench", slug="bench", dj=dj)
    party = [
        services.character_create(
            campaign=campaign,
            name=f"PJ {n}",
            attributes={"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3},
        )
        for n in range(PARTY)
    ]
    options = campaign.rule_options()
    # Read back: the PJ that character_create returns holds its snapshot from before its
    # `attributes` event.
    states = {
        s.character_id: s.state for s in CharacterSnapshot.objects.filter(character__in=party)
    }
    campaign.refresh_from_db()
    seq = campaign.last_seq
    batch_events, batch_snaps = [], []

    def flush() -> None:
        StateEvent.objects.bulk_create(batch_events)
        EventSnapshot.objects.bulk_create(batch_snaps)
        batch_events.clear()
        batch_snaps.clear()

    log = folded_events(party, states, options, first_seq=seq, last_seq=LOG_EVENTS)
    for seq, event, targets, results in log:
        record = StateEvent(
            campaign=campaign,
            character=None if len(targets) > 1 else targets[0],
            seq=seq,
            event=event,
            effects={str(pk): fx for pk, (_s, fx) in results.items()},
        )
        batch_events.append(record)
        for pk, (state, _fx) in results.items():
            states[pk] = state
            batch_snaps.append(
                EventSnapshot(event=record, character_id=pk, seq=record.seq, state=state)
            )
        if len(batch_events) >= 2000:
            flush()
    flush()
    for pk, state in states.items():
        CharacterSnapshot.objects.filter(character_id=pk).update(state=state, seq=seq)
    Campaign.objects.filter(pk=campaign.pk).update(last_seq=seq)
    campaign.refresh_from_db()
    return campaign, party, dj


# The heaviest board a table reaches: every type active on every PJ, Heridas and Emoción
# E.Esp, three Afección sources, E.Esp given by the DJ, some names kept secret, checks
# pending (a Shock grave's turn end, an infection), in a fight.
HEAVY_EVENTS = [
    {"kind": "suffer", "type": "heridas", "grade": "leve"},
    {"kind": "suffer", "type": "heridas", "grade": "grave"},
    {"kind": "suffer", "type": "heridas", "grade": "persistente", "especifico": "lesion"},
    {"kind": "suffer", "type": "fatiga", "grade": "leve"},
    {"kind": "suffer", "type": "fatiga", "grade": "grave"},
    {
        "kind": "suffer",
        "type": "emocion",
        "grade": "leve",
        "variant": "miedo",
        "cause": "la sombra",
    },
    {
        "kind": "suffer",
        "type": "emocion",
        "grade": "grave",
        "variant": "ira",
        "cause": "el traidor",
    },
    {"kind": "suffer", "type": "emocion", "grade": "persistente", "especifico": "fobia"},
    {"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "ponzoña azul"},
    {"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "fiebre del pantano"},
    {"kind": "suffer", "type": "afeccion", "grade": "grave", "source": "maldición del eco"},
    {"kind": "special", "name": "derribado", "on": True},
    {"kind": "special", "name": "ceguera", "on": True},
    {"kind": "special", "name": "paranoia", "on": True},
    {"kind": "time", "hours": 2},
    {"kind": "suffer", "type": "shock", "grade": "leve"},
    {"kind": "suffer", "type": "shock", "grade": "grave"},
    {"kind": "turn_end"},
]


def build_heavy() -> tuple[Campaign, list, object]:
    """A campaign of 8 PJ, each in HEAVY_EVENTS' state, written through the services."""
    from django.contrib.auth import get_user_model

    import rules
    from campaign import turn_order

    dj = get_user_model().objects.create_user("heavy-dj", password="bench-password-1")
    campaign = services.campaign_create(name="Heavy", slug="heavy", dj=dj)
    Campaign.objects.filter(pk=campaign.pk).update(especificos=True)
    campaign.refresh_from_db()
    services.session_start(campaign=campaign, title="Heavy")
    party = [
        services.character_create(
            campaign=campaign,
            name=f"PJ pesado {n}",
            attributes={"FUE": 2, "AGI": 2, "DES": 2, "VOL": 2},
        )
        for n in range(PARTY)
    ]
    refused = 0
    for pj in party:
        for event in HEAVY_EVENTS:
            try:
                services.event_record(campaign=campaign, character=pj, event=dict(event), actor=dj)
            except rules.RuleError:
                refused += 1
        services.character_secrets_set(character=pj, add=["maldición del eco"], remove=())
    order = [turn_order.Slot(pj=pj.pk, init=10 - n) for n, pj in enumerate(party)]
    services.fight_start(campaign=campaign, order=order, actor=dj)
    assert not refused, f"{refused} heavy events refused"
    return campaign, party, dj


# What the PNJ of the 8 + 12 board have been through, by their place in the fight's order
# (the first 6: one Plantilla's copies, one turn; 3 of another; 3 of their own).
PNJ_EVENTS = {
    0: [{"kind": "suffer", "type": "heridas", "grade": "leve"}],
    1: [
        {"kind": "suffer", "type": "heridas", "grade": "grave"},
        {"kind": "suffer", "type": "shock", "grade": "grave"},
        {"kind": "turn_end"},
    ],
    2: [{"kind": "suffer", "type": "fatiga", "grade": "leve"}],
    4: [
        {"kind": "suffer", "type": "shock", "grade": "leve"},
        {"kind": "suffer", "type": "fatiga", "grade": "grave"},
    ],
    6: [
        {"kind": "suffer", "type": "heridas", "grade": "leve"},
        {"kind": "suffer", "type": "heridas", "grade": "grave"},
    ],
    7: [{"kind": "suffer", "type": "shock", "grade": "grave"}, {"kind": "turn_end"}],
    9: [
        {"kind": "suffer", "type": "heridas", "grade": "grave"},
        {"kind": "suffer", "type": "fatiga", "grade": "leve"},
        {"kind": "suffer", "type": "shock", "grade": "leve"},
    ],
    11: [{"kind": "special", "name": "derribado", "on": True}],
}
PNJ_COUNT = 12


def build_pnj_fight() -> tuple[Campaign, list, list, object]:
    """The heavy board of 8 PJ (build_heavy's states) and 12 PNJ in a fight with them all:
    6 copies of a Plantilla sharing one turn, 3 of another (a turn each), 3 of their own."""
    from django.contrib.auth import get_user_model

    import rules
    from campaign import turn_order

    dj = get_user_model().objects.create_user("pnj-dj", password="bench-password-1")
    campaign = services.campaign_create(name="PNJ", slug="pnj", dj=dj)
    Campaign.objects.filter(pk=campaign.pk).update(especificos=True)
    campaign.refresh_from_db()
    services.session_start(campaign=campaign, title="PNJ")
    party = [
        services.character_create(
            campaign=campaign,
            name=f"PJ {n}",
            attributes={"FUE": 2, "AGI": 2, "DES": 2, "VOL": 2},
        )
        for n in range(PARTY)
    ]
    bandido = services.template_save(
        campaign=campaign,
        name="Bandido",
        attributes={"FUE": 3, "AGI": 2, "DES": 2, "VOL": 1},
        notes="Cuchillo y honda. Huye si cae el jefe.",
    )
    lobo = services.template_save(
        campaign=campaign, name="Lobo gris", attributes={"FUE": 2, "AGI": 3, "VOL": 1}
    )
    pnj = [
        *services.pnj_create(campaign=campaign, template=bandido, count=6),
        *services.pnj_create(campaign=campaign, template=lobo, count=3),
        *services.pnj_create(campaign=campaign, name="Jefe Ruiz", attributes={"FUE": 3, "VOL": 3}),
        *services.pnj_create(campaign=campaign, name="Bruja del pantano", notes="Maldice."),
        *services.pnj_create(
            campaign=campaign, name="Guía Tomé", side="aliado", attributes={"AGI": 3}
        ),
    ]
    assert len(pnj) == PNJ_COUNT
    refused = 0
    for pj in party:
        for event in HEAVY_EVENTS:
            try:
                services.event_record(campaign=campaign, character=pj, event=dict(event), actor=dj)
            except rules.RuleError:
                refused += 1
        services.character_secrets_set(character=pj, add=["maldición del eco"], remove=())
    for n, events in PNJ_EVENTS.items():
        for event in events:
            try:
                services.event_record(
                    campaign=campaign, character=pnj[n], event=dict(event), actor=dj
                )
            except rules.RuleError:
                refused += 1
    assert not refused, f"{refused} events refused"
    order = [turn_order.Slot(pj=pj.pk, init=20 - n) for n, pj in enumerate(party)]
    order.append(turn_order.Slot(pj=pnj[0].pk, also=tuple(c.pk for c in pnj[1:6]), init=11))
    order += [turn_order.Slot(pj=c.pk, init=9 - n) for n, c in enumerate(pnj[6:])]
    services.fight_start(campaign=campaign, order=order, actor=dj)
    return campaign, party, pnj, dj


def board_read(client: Client, campaign: Campaign) -> tuple[float, float, int, int]:
    """The board's median server time (ms) cold and warm, its SQL queries and its size in
    bytes. Cold, the judged figure: the fragment caches emptied before each read, so every
    card is rendered (the board a DJ gets after a party event touched every card); warm:
    the same board read again at once, its E.Alt texts from the cache. The two alternate,
    so both meet the machine alike."""
    url = f"/c/{campaign.slug}/"
    client.get(url)  # warm the template and translation caches
    # The query log is a bounded deque: once full, a capture would count nothing.
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    count = len(queries)  # now: the query log is a bounded deque, and the runs refill it
    cold, warm = [], []
    for _ in range(RUNS):
        cache.clear()
        t0 = time.perf_counter()
        client.get(url)
        t1 = time.perf_counter()
        client.get(url)
        cold.append(t1 - t0)
        warm.append(time.perf_counter() - t1)
    return median_ms(cold), median_ms(warm), count, len(response.content)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> int:
    print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    campaign, party, dj = build_campaign()
    print(
        f"built a {campaign.last_seq}-event log for {PARTY} PJ in "
        f"{time.perf_counter() - started:.1f} s"
    )
    client = Client()
    client.force_login(dj)
    board_ms, board_warm, board_queries, _size = board_read(client, campaign)

    hx = {"HX-Request": "true"}
    samples = []
    for i in range(RUNS):
        pj = party[i % PARTY]
        t0 = time.perf_counter()
        response = client.post(
            f"/c/{campaign.slug}/pj/{pj.pk}/accion/",
            {"action": "suffer", "type_grade": "fatiga:leve", "key": f"a{i}"},
            headers=hx,
        )
        samples.append(time.perf_counter() - t0)
        assert response.status_code in (200, 422), response.status_code
    apply_ms = median_ms(samples)

    samples = []
    for i in range(10):
        # A day passes so that each Descanso counts (one per game day).
        client.post(f"/c/{campaign.slug}/tiempo/", {"amount": "1", "unit": "days"}, headers=hx)
        t0 = time.perf_counter()
        response = client.post(f"/c/{campaign.slug}/descanso/", {"key": f"d{i}"}, headers=hx)
        samples.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.content[:300]
    descanso_ms = median_ms(samples)

    print(
        f"board of {PARTY} PJ, {campaign.last_seq} events: {board_queries} queries "
        f"(target <= {BOARD_QUERIES}), median {board_ms:.1f} ms cold (target <= "
        f"{BOARD_MS:.0f}), {board_warm:.1f} ms warm"
    )
    print(f"apply one event, request to card: median {apply_ms:.1f} ms (target <= {APPLY_MS:.0f})")
    print(
        f"party Descanso for {PARTY} PJ: median {descanso_ms:.1f} ms (target <= {DESCANSO_MS:.0f})"
    )
    print(f"changes recorded: {CampaignChange.objects.filter(campaign=campaign).count()}")

    heavy, _party, heavy_dj = build_heavy()
    client.force_login(heavy_dj)
    heavy_ms, heavy_warm, heavy_queries, size = board_read(client, heavy)
    print(
        f"heavy board of {PARTY} PJ (every type active, E.Esp, Afección sources, checks, "
        f"a fight): {heavy_queries} queries, {size / 1024:.0f} KiB, "
        f"median {heavy_ms:.1f} ms cold (target <= {BOARD_MS:.0f}), {heavy_warm:.1f} ms warm"
    )

    fight, _party, _pnj, fight_dj = build_pnj_fight()
    client.force_login(fight_dj)
    pnj_ms, pnj_warm, pnj_queries, size = board_read(client, fight)
    print(
        f"board of {PARTY} PJ + {PNJ_COUNT} PNJ (a heavy fight, all in its order): "
        f"{pnj_queries} queries (target <= {BOARD_QUERIES}), {size / 1024:.0f} KiB, "
        f"median {pnj_ms:.1f} ms cold (target <= {BOARD_MS:.0f}), {pnj_warm:.1f} ms warm"
    )
    ok = (
        board_queries <= BOARD_QUERIES
        and heavy_queries <= BOARD_QUERIES
        and pnj_queries <= BOARD_QUERIES
        and pnj_ms <= BOARD_MS
        and board_ms <= BOARD_MS
        and heavy_ms <= BOARD_MS
        and apply_ms <= APPLY_MS
        and descanso_ms <= DESCANSO_MS
    )
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
