"""Every page a DJ, a player or a visitor meets, in Spanish, with no English word of the
engine and no internal code in its visible text (the cards' words, never the log's keys)."""

import io
import re
from html.parser import HTMLParser

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from campaign.models import Campaign, CatalogueEntry, Character, StateEvent

# Engine codes and English words a Spanish page must not show (\b: "especial" is fine).
FORBIDDEN = re.compile(
    r"\b("
    r"calm|save|saves|by_self|surgery|dismiss|success|failure|sin_descanso|turn_end|"
    r"regeneracion|bloqueo_empatico|infeccion|compulsion|lesion|desangramiento_|recover|"
    r"special|heal|wake|sleep|progress|suffer|descanso_day|shock_grave_fin_turno|"
    r"heridas_leve_descanso|heridas_grave_infeccion|heridas_persistente_recuperacion|"
    r"esfuerzo_prolongado|especificos|round_seconds|duration_minutes|players_see_party|"
    r"None|True|False|undefined|null|Undo|Roll|Cancel|Close|Delete|Edit|Back|Next round|"
    r"minutes|hours|rounds|days|Recap|Session|Event|Everyone"
    r")\b"
)
# Slips of Spanish itself: a misspelling, a plural after one, a space before a colon.
SLIPS = re.compile(r"carácteres|\b1 (sesiones|eventos|días|horas|minutos|rondas)\b|\w :")
# Attributes a person reads or hears, besides the text.
READ_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")


class Visible(HTMLParser):
    """The text a person reads on a page: text outside scripts and styles, and the
    attributes above."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self.hidden += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden and data.strip():
            self.parts.append(data.strip())


def visible(html: str) -> str:
    parser = Visible()
    parser.feed(html)
    return "\n".join(parser.parts)


def slips(html: str) -> list[str]:
    text = visible(html)
    return sorted(
        {
            m.group(0) + " ⟵ " + line
            for line in text.splitlines()
            for pattern in (FORBIDDEN, SLIPS)
            for m in pattern.finditer(line)
        }
    )


@pytest.fixture
def demo(db):
    call_command("demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    return campaign


def pages_of_the_dj(campaign) -> list[str]:
    slug = campaign.slug
    pjs = list(Character.objects.filter(campaign=campaign, kind=Character.Kind.PJ))
    pnj = list(Character.objects.filter(campaign=campaign, kind=Character.Kind.PNJ))
    entry = CatalogueEntry.objects.filter(campaign=campaign).first()
    events = StateEvent.objects.filter(campaign=campaign).order_by("seq")
    urls = [
        reverse("home"),
        reverse("campaign_new"),
        reverse("campaign_import"),
        reverse("board", args=[slug]),
        reverse("history", args=[slug]),
        reverse("campaign_settings", args=[slug]),
        reverse("character_list", args=[slug]),
        reverse("character_new", args=[slug]),
        reverse("pnj_list", args=[slug]),
        reverse("catalogue", args=[slug]),
        reverse("catalogue_edit", args=[slug, entry.pk]),
        reverse("players", args=[slug]),
        reverse("session_detail", args=[slug, 1]),
        reverse("session_sheets", args=[slug, 1]),
        reverse("password_change"),
        reverse("calculator", args=[slug]) + f"?pj={pjs[0].pk}&attribute=FUE&intent=flee",
    ]
    for pj in pjs:
        urls += [
            reverse("sheet", args=[slug, pj.pk]),
            reverse("character_edit", args=[slug, pj.pk]),
            reverse("character_cards", args=[slug, pj.pk]),
            reverse("history", args=[slug]) + f"?pj={pj.pk}",
        ]
        for kind in (
            "more",
            "heal",
            "surgery",
            "afeccion",
            "especifico",
            "emocion-leve",
            "emocion-grave",
        ):
            urls.append(reverse("ask", args=[slug, pj.pk, kind]) + "?grade=grave")
    urls += [reverse("pnj_edit", args=[slug, c.pk]) for c in pnj]
    urls += [reverse("template_edit", args=[slug, t.pk]) for t in campaign.templates.all()]
    urls += [reverse("event_detail", args=[slug, e.seq]) for e in events]
    return urls


def pages_of_a_player(campaign, player) -> list[str]:
    slug = campaign.slug
    pj = Character.objects.get(campaign=campaign, player=player)
    events = StateEvent.objects.filter(campaign=campaign, character=pj).order_by("seq")
    return [
        reverse("home"),
        reverse("sheet", args=[slug, pj.pk]),
        reverse("history", args=[slug]),
        reverse("session_detail", args=[slug, 1]),
        reverse("session_sheets", args=[slug, 1]),
        reverse("character_cards", args=[slug, pj.pk]),
        reverse("password_change"),
        *[reverse("event_detail", args=[slug, e.seq]) for e in events],
    ]


def read_all(client: Client, urls: list[str]) -> dict[str, list[str]]:
    found = {}
    for url in urls:
        response = client.get(url, headers={"accept-language": "es"})
        assert response.status_code == 200, url
        if response.get("Content-Type", "").startswith("text/html"):
            if bad := slips(response.content.decode()):
                found[url] = bad
    return found


def test_every_page_of_the_dj_speaks_spanish(demo):
    client = Client()
    client.force_login(demo.memberships.get(role="dj").user)
    assert read_all(client, pages_of_the_dj(demo)) == {}


def test_every_page_of_a_player_speaks_spanish(demo):
    client = Client()
    player = Character.objects.get(campaign=demo, name="Taro").player
    client.force_login(player)
    assert read_all(client, pages_of_a_player(demo, player)) == {}


def test_every_page_of_a_visitor_speaks_spanish(db):
    client = Client()
    names = ("login", "signup", "join_code", "rules", "guide")
    pages = [*(reverse(name) for name in names), "/nada/"]
    found = {}
    for url in pages:
        response = client.get(url)
        if bad := slips(response.content.decode()):
            found[url] = bad
    assert found == {}


def test_the_check_itself_catches_a_slip():
    assert slips("<p>+1 min (reposo, calm)</p>") and slips('<a title="sin_descanso">x</a>')
    assert slips("<p>Situación : −2</p>") and slips("<p>1 sesiones</p>")
    assert not slips("<p>Un E.Esp especial: desprevenido</p><script>calm()</script>")


def test_the_check_reads_the_pages_it_is_given(demo):
    # In English the same pages are full of the words the Spanish ones must not have.
    client = Client()
    client.force_login(demo.memberships.get(role="dj").user)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    found = read_all(client, pages_of_the_dj(demo)[:5])
    assert any("Next round" in line for lines in found.values() for line in lines)
