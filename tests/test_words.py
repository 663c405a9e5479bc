"""Every page a DJ, a player or a visitor meets, in Spanish, with no English word of the
engine and no internal code in its visible text (the cards' words, never the log's keys);
and in English, with none of the Spanish edition's labels (FUE, DES, VOL, TS, E.Esp)."""

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
# The Spanish edition's labels an English page must not show: its scores read STR, AGI, DEX,
# INT, WIL there (the log keeps the Spanish keys), a TS is a save, an E.Esp a special state.
SPANISH_LABELS = re.compile(r"\b(FUE|DES|VOL|TS)\b|\bE\.Esp\b")
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


def spanish_labels(html: str) -> list[str]:
    return sorted(
        {
            m.group(0) + " ⟵ " + line
            for line in visible(html).splitlines()
            for m in SPANISH_LABELS.finditer(line)
        }
    )


def read_all_in_english(client: Client, urls: list[str]) -> dict[str, list[str]]:
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    found = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["Content-Language"] == "en", url
        if response.get("Content-Type", "").startswith("text/html"):
            if bad := spanish_labels(response.content.decode()):
                found[url] = bad
    return found


def test_every_page_of_the_dj_in_english_reads_english_labels(demo):
    client = Client()
    client.force_login(demo.memberships.get(role="dj").user)
    pages = pages_of_the_dj(demo)
    pages.append(reverse("calculator", args=[demo.slug]) + "?pj=1&attribute=VOL&intent=fight")
    assert read_all_in_english(client, pages) == {}


def test_every_page_of_a_player_in_english_reads_english_labels(demo):
    client = Client()
    player = Character.objects.get(campaign=demo, name="Taro").player
    client.force_login(player)
    assert read_all_in_english(client, pages_of_a_player(demo, player)) == {}


def test_the_english_check_catches_a_spanish_label():
    assert spanish_labels("<p>FUE 3 · AGI 4</p>") and spanish_labels("<p>E.Esp: derribado</p>")
    assert spanish_labels('<abbr title="TS VOL">x</abbr>')
    assert not spanish_labels("<p>STR 3, DEX 4, WIL 2 · Special states: knocked down</p>")


def test_a_pj_with_a_special_state_reads_english_labels_on_every_page_of_it(demo):
    # The demo's PJ end with no E.Esp: one given here reaches the cards to print too.
    from campaign import services

    dj = demo.memberships.get(role="dj").user
    taro = Character.objects.get(campaign=demo, name="Taro")
    services.event_record(
        campaign=demo,
        character=taro,
        event={"kind": "special", "name": "derribado", "on": True},
        actor=dj,
    )
    client = Client()
    client.force_login(dj)
    slug = demo.slug
    pages = [
        reverse("board", args=[slug]),
        reverse("sheet", args=[slug, taro.pk]),
        reverse("character_cards", args=[slug, taro.pk]),
        reverse(
            "event_detail", args=[slug, StateEvent.objects.filter(campaign=demo).latest("seq").seq]
        ),
    ]
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    cards = client.get(pages[2]).content.decode()
    assert "Taro · Special state" in visible(cards)
    assert read_all_in_english(client, pages) == {}


# A Spanish label on an English page of docs only beside the English word it stands for.
ENGLISH_OF = {"E.Esp": "special state", "TS": "save", "FUE": "STR", "DES": "DEX", "VOL": "WIL"}
BLOCKS = ("p", "li", "td", "th", "h1", "h2", "h3", "h4", "dt", "dd")


class Blocks(HTMLParser):
    """The text of each paragraph, list item, cell or heading, apart (a nested list's items
    apart from the item that holds them)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[list[str]] = []
        self.done: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in BLOCKS:
            self.stack.append([])

    def handle_endtag(self, tag):
        if tag in BLOCKS and self.stack:
            self.done.append(" ".join("".join(self.stack.pop()).split()))

    def handle_data(self, data):
        if self.stack:
            self.stack[-1].append(data)


def unpaired_labels(html: str) -> list[str]:
    parser = Blocks()
    parser.feed(html)
    return [
        f"{label} ⟵ {block}"
        for block in parser.done
        for label, english in ENGLISH_OF.items()
        if re.search(rf"\b{re.escape(label)}\b", block) and english.lower() not in block.lower()
    ]


def test_the_rules_and_the_guide_in_english_say_a_spanish_label_only_beside_its_english(db):
    client = Client()
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    for name in ("rules", "guide"):
        response = client.get(reverse(name))
        assert response.headers["Content-Language"] == "en"
        assert unpaired_labels(response.content.decode()) == [], name


def test_the_docs_check_catches_a_spanish_label_alone():
    assert unpaired_labels("<ul><li>Give an E.Esp<ul><li>a special state</li></ul></li></ul>")
    assert unpaired_labels("<p>a save FUE appears</p>")
    assert not unpaired_labels("<li><strong>Special state</strong> (E.Esp): a state</li>")
    assert not unpaired_labels("<td>STR, AGI, DEX</td><p>FUE is STR</p>")
