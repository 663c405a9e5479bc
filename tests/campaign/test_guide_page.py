"""The guide page /guia/: docs/guia.md in Spanish, docs/guide.md in English, open to all."""

import pytest
from django.urls import reverse

from campaign.reference import guide_page, rules_page
from tests.factories import UserFactory


def test_the_guide_is_readable_without_logging_in_in_spanish(client, db):
    response = client.get("/guia/")
    assert response.status_code == 200
    assert reverse("guide") == "/guia/"
    html = response.content.decode()
    assert '<html lang="es">' in html
    assert "<h1>Guía para el DJ y los jugadores</h1>" in html
    assert 'href="#preparar-una-campana"' in html and 'id="preparar-una-campana"' in html
    assert 'href="/guia/" class="topbar-link" aria-current="page">Guía</a>' in html


def test_the_guide_in_english(client, db):
    response = client.post(
        reverse("set_language"), {"language": "en", "next": "/guia/"}, follow=True
    )
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/guia/"
    assert '<html lang="en">' in html
    assert "<h1>Guide for the DJ and the players</h1>" in html
    assert 'id="setting-up-a-campaign"' in html and "Contents" in html
    assert "Guía para el DJ" not in html


@pytest.mark.parametrize("language", ["es", "en"])
def test_both_guides_have_the_same_sections(language):
    other = "en" if language == "es" else "es"
    assert len(guide_page(language).sections) == len(guide_page(other).sections) >= 6


def test_every_page_links_to_the_guide_beside_the_rules(client, db):
    login_page = client.get(reverse("login")).content.decode()
    assert '<a href="/reglas/" class="topbar-link">Reglas</a>' in login_page
    assert '<a href="/guia/" class="topbar-link">Guía</a>' in login_page
    client.force_login(UserFactory())
    assert 'href="/guia/"' in client.get("/").content.decode()
    assert client.get("/guia/").status_code == 200


def test_the_guide_is_kept_per_language_apart_from_the_rules():
    assert guide_page("es") is guide_page("es")
    assert guide_page("en") is not guide_page("es")
    assert guide_page("fr").title == guide_page("es").title
    assert guide_page("es").title != rules_page("es").title
