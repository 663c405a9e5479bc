"""The log's indexes are the ones its hot queries use (read from the database's plan)."""

import pytest
from django.core.management import call_command
from django.db import connection

from campaign import services
from campaign.models import EventSnapshot, StateEvent
from tests.factories import CampaignFactory, CharacterFactory


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's EXPLAIN QUERY PLAN")
def test_the_campaign_wide_events_newest_first_use_their_partial_index(db):
    campaign = CampaignFactory()
    query = (
        StateEvent.objects.filter(campaign=campaign, character__isnull=True, void_at__isnull=True)
        .order_by("-seq")
        .values_list("event", flat=True)[:200]
    )

    plan = query.explain()

    assert "event_party_seq" in plan, plan


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's EXPLAIN QUERY PLAN")
def test_a_pj_s_last_state_before_an_event_walks_its_index(db):
    query = (
        EventSnapshot.objects.filter(character_id=1, seq__lt=500, event__void_at__isnull=True)
        .order_by("-seq")
        .only("state", "seq")[:1]
    )

    plan = query.explain()

    assert "event_snapshot_pj_seq" in plan, plan
    assert "TEMP B-TREE" not in plan, plan  # read in the index's order, not sorted


def test_upgrading_copies_each_snapshot_s_seq_from_its_event(transactional_db):
    pj = CharacterFactory()
    for grade in ("leve", "leve", "grave"):
        services.event_record(
            campaign=pj.campaign,
            character=pj,
            event={"kind": "suffer", "type": "fatiga", "grade": grade},
        )
    call_command("migrate", "campaign", "0006_party_events_index", verbosity=0)  # drops seq
    call_command("migrate", "campaign", verbosity=0)

    rows = list(EventSnapshot.objects.values_list("seq", "event__seq"))

    assert len(rows) >= 3
    assert all(seq == event_seq for seq, event_seq in rows), rows


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's EXPLAIN QUERY PLAN")
def test_a_repeated_tap_and_its_siblings_are_found_by_the_key_index(db):
    from campaign import tap_reads

    keyed = tap_reads._keyed(1)
    by_key = keyed.filter(idempotency_key="1:abc").order_by()
    siblings = keyed.filter(idempotency_key__gte="1:abc:", idempotency_key__lt="1:abc;")

    for query in (by_key, siblings):
        plan = query.explain()
        assert "event_idempotency_key_unique" in plan, plan
