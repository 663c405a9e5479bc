"""A tap the page has given up on is refused, never applied late (campaign.deadline)."""

import time

import pytest
from django.urls import reverse

from campaign import deadline
from campaign.models import StateEvent

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def tap(client, campaign, pj, *, sent: float | None):
    headers = dict(HX)
    if sent is not None:
        headers[deadline.HEADER] = str(int(sent * 1000))
    return client.post(
        reverse("act", args=[campaign.slug, pj.pk]),
        {"action": "suffer", "type_grade": "heridas:leve", "key": "k1"},
        headers=headers,
    )


@pytest.mark.django_db
def test_a_fresh_tap_is_recorded(dj_client, campaign, aiko, monkeypatch):
    sent = time.time()
    # The server's clock stands still: a busy machine may take seconds to get there.
    monkeypatch.setattr(deadline, "now", lambda: sent)

    response = tap(dj_client, campaign, aiko, sent=sent)

    assert response.status_code == 200
    assert StateEvent.objects.filter(character=aiko, event__kind="suffer").count() == 1


@pytest.mark.django_db
def test_a_tap_that_reaches_the_server_after_its_deadline_is_refused_and_writes_nothing(
    dj_client, campaign, aiko
):
    before = StateEvent.objects.count()

    response = tap(dj_client, campaign, aiko, sent=time.time() - deadline.TAP_SECONDS - 1)

    assert response.status_code == 409
    assert response["HX-Reswap"] == "none" and response["X-Zodiac-Refused"] == "late"
    assert response.content.decode() == (
        "No se ha registrado: el toque llegó tarde al servidor. Mira la tarjeta y vuelve a tocar."
    )
    assert StateEvent.objects.count() == before


@pytest.mark.django_db
def test_a_tap_that_waited_for_the_campaigns_lock_past_its_deadline_is_refused(
    dj_client, campaign, aiko, monkeypatch
):
    """It reached the server in time, but another write held the campaign meanwhile."""
    sent = time.time()
    clock = iter([sent, sent + deadline.TAP_SECONDS + 1])  # at the door, then at the lock
    monkeypatch.setattr(deadline, "now", lambda: next(clock))
    before = StateEvent.objects.count()

    response = tap(dj_client, campaign, aiko, sent=sent)

    assert response.status_code == 409
    assert StateEvent.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["", "soon", "-5", "1.5", "9" * 40])
def test_a_tap_without_a_readable_date_has_no_deadline(dj_client, campaign, aiko, value):
    response = dj_client.post(
        reverse("act", args=[campaign.slug, aiko.pk]),
        {"action": "suffer", "type_grade": "heridas:leve"},
        headers={**HX, deadline.HEADER: value},
    )

    assert response.status_code == 200


@pytest.mark.django_db
def test_the_refusal_is_in_english_for_an_english_user(dj_client, campaign, aiko, settings):
    dj_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"

    response = tap(dj_client, campaign, aiko, sent=time.time() - 60)

    assert response.content.decode().startswith("Not recorded: this tap reached the server")


@pytest.mark.django_db
def test_a_late_roll_on_a_sheet_is_refused_too(client, campaign, aiko):
    from tests.factories import MembershipFactory, UserFactory

    player = UserFactory()
    MembershipFactory(user=player, campaign=campaign, role="player")
    aiko.player = player
    aiko.save(update_fields=["player"])
    client.force_login(player)
    before = StateEvent.objects.count()

    response = client.post(
        reverse("sheet_roll", args=[campaign.slug, aiko.pk]),
        {"check": "whatever"},
        headers={**HX, deadline.HEADER: str(int((time.time() - 60) * 1000))},
    )

    assert response.status_code == 409
    assert StateEvent.objects.count() == before
