"""The admin: every model is there; the log and its projections are read-only."""

import pytest
from django.contrib import admin
from django.urls import reverse

from campaign import services
from campaign.models import Character, StateEvent
from tests.factories import CatalogueEntryFactory, GameSessionFactory, UserFactory


@pytest.fixture
def admin_client(client, db):
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def wound(campaign, aiko):
    return services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


def test_every_campaign_model_has_an_admin_page(admin_client, wound):
    GameSessionFactory(campaign=wound.campaign)
    CatalogueEntryFactory(campaign=wound.campaign)
    app_models = [m for m in admin.site._registry if m._meta.app_label == "campaign"]
    assert len(app_models) == 8
    for model in app_models:
        meta = model._meta
        listing = admin_client.get(reverse(f"admin:campaign_{meta.model_name}_changelist"))
        assert listing.status_code == 200, meta.model_name
        obj = model.objects.first()
        detail = admin_client.get(
            reverse(f"admin:campaign_{meta.model_name}_change", args=[obj.pk])
        )
        assert detail.status_code == 200, meta.model_name


def test_events_cannot_be_added_changed_or_deleted_in_the_admin(admin_client, wound):
    change_url = reverse("admin:campaign_stateevent_change", args=[wound.pk])
    before = StateEvent.objects.get(pk=wound.pk).event

    page = admin_client.get(change_url).content.decode()
    posted = admin_client.post(change_url, {"secret": "on", "void_reason": "x"})
    deleted = admin_client.post(
        reverse("admin:campaign_stateevent_delete", args=[wound.pk]), {"post": "yes"}
    )
    added = admin_client.get(reverse("admin:campaign_stateevent_add"))

    assert 'name="_save"' not in page
    assert posted.status_code == 403
    assert deleted.status_code == 403
    assert added.status_code == 403
    wound.refresh_from_db()
    assert wound.event == before
    assert not wound.secret


def test_a_pj_added_in_the_admin_gets_its_snapshot_and_first_event(admin_client, campaign):
    response = admin_client.post(
        reverse("admin:campaign_character_add"),
        {
            "campaign": campaign.pk,
            "name": "Mei",
            "player": "",
            "attributes": '{"FUE": 2, "VOL": 4}',
            "powers": '["regeneracion"]',
            "notes": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    mei = Character.objects.get(name="Mei")
    assert mei.snapshot.seq == 1
    assert mei.powers == ["regeneracion"]
    assert StateEvent.objects.get(character=mei).event["scores"] == {"FUE": 2, "VOL": 4}


def test_the_admin_explains_bad_scores_instead_of_failing(admin_client, campaign):
    response = admin_client.post(
        reverse("admin:campaign_character_add"),
        {
            "campaign": campaign.pk,
            "name": "Mei",
            "player": "",
            "attributes": '{"FUE": "mucha"}',
            "powers": "[]",
            "notes": "",
        },
    )
    assert response.status_code == 200
    assert "número entero" in response.content.decode()
    assert not Character.objects.filter(name="Mei").exists()


def test_changing_scores_in_the_admin_records_them_in_the_log(admin_client, aiko):
    response = admin_client.post(
        reverse("admin:campaign_character_change", args=[aiko.pk]),
        {
            "name": "Aiko",
            "player": "",
            "attributes": '{"FUE": 4, "AGI": 5, "DES": 4, "VOL": 3}',
            "powers": "[]",
            "notes": "Arquera",
        },
    )
    assert response.status_code == 302
    last = StateEvent.objects.filter(character=aiko).order_by("seq").last()
    assert last.event["scores"]["FUE"] == 4
