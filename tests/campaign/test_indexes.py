"""The log's indexes are the ones its hot queries use (read from the database's plan)."""

import pytest
from django.db import connection

from campaign.models import StateEvent
from tests.factories import CampaignFactory


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
