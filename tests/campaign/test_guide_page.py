"""The guide page /guia/: docs/guia.md in Spanish, docs/guide.md in English, open to all."""

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

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


# The board's main controls, by their msgid: each guide names them as its own UI shows them.
MAIN_CONTROLS = (
    "New campaign",
    "Add PJ",
    "Add a template",
    "Add PNJ by name",
    "Make",
    "Start session",
    "End session",
    "Undo",
    "Roll them all (%(n)s)",
    "End of turn",
    "More actions",
    "Next round",
    "Other time…",
    "Start fight",
    "End fight",
    "Recent events",
    "Void this event…",
)


def guide_text(name: str) -> str:
    """A guide's Markdown without emphasis marks, on one line."""
    text = (Path(__file__).resolve().parents[2] / "docs" / name).read_text(encoding="utf-8")
    return " ".join(text.replace("*", "").split())


def label(msgid: str, language: str) -> str:
    with translation.override(language):
        return gettext(msgid).replace("%(n)s", "N")


@pytest.mark.parametrize("msgid", MAIN_CONTROLS)
def test_the_english_guide_names_the_english_controls(msgid):
    # A Spanish label may follow the English one in parentheses, for a table playing in
    # Spanish; anywhere else the English reader would look for a button they do not have.
    english, spanish = label(msgid, "en"), label(msgid, "es")
    assert english != spanish
    guide = guide_text("guide.md")
    assert english in guide
    assert spanish not in guide.replace(f"{english} ({spanish}", "")


@pytest.mark.parametrize("msgid", MAIN_CONTROLS)
def test_the_spanish_guide_names_the_spanish_controls(msgid):
    assert label(msgid, "es") in guide_text("guia.md")
