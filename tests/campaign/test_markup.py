"""The markup of the rendered pages, as an outside audit read it: accessible names that hold
what a control shows (WCAG 2.5.3), names only where ARIA allows them, valid `datetime`
values, no empty forms, and a description for each page."""

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign import services
from campaign.templatetags.html_time import datetime_attr

HX = {"HX-Request": "true"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
VOID |= {"track", "wbr"}
CONTROLS = {"a", "button", "summary", "select", "textarea"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], hidden: bool):
        self.tag, self.attrs, self.hidden = tag, attrs, hidden
        self.text = ""  # what it shows: hidden text (visually-hidden, aria-hidden) left out
        self.children: list[Element] = []


class Page(HTMLParser):
    """A page's elements, each with its attributes and the text it shows."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        values = {name: value or "" for name, value in attrs}
        hidden = bool(self._open and self._open[-1].hidden)
        hidden |= "visually-hidden" in values.get("class", "").split()
        hidden |= values.get("aria-hidden") == "true"
        element = Element(tag, values, hidden)
        if self._open:
            self._open[-1].children.append(element)
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            if not self._open[-1].hidden:
                element.text += data

    def find(self, tag: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag]


def words(text: str) -> str:
    return " ".join(text.split()).lower()


def names_missing_their_label(html: str) -> list[str]:
    """Each control named by aria-label whose name does not hold the words it shows (a
    symbol alone, × or ↑, has no words to hold)."""
    missing = []
    for element in Page(html).elements:
        label = element.attrs.get("aria-label")
        shown = words(element.text)
        if element.tag not in CONTROLS or label is None or not re.search(r"\w", shown):
            continue
        if shown not in words(label):
            missing.append(f"<{element.tag} aria-label={label!r}> shows {shown!r}")
    return missing


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def record(pj, **event):
    return services.event_record(campaign=pj.campaign, character=pj, event=event)


# -- accessible names ---------------------------------------------------------------------


def test_the_check_finds_a_name_without_its_visible_words():
    html = (
        '<button aria-label="Keep Fobia secret">hide</button><button aria-label="Close">×</button>'
    )
    assert names_missing_their_label(html) == [
        "<button aria-label='Keep Fobia secret'> shows 'hide'"
    ]
    shown = (
        '<a aria-label="Hide Fobia from the player">hide<span class="visually-hidden">!</span></a>'
    )
    assert names_missing_their_label(shown) == []


@pytest.mark.parametrize("language", ["es", "en"])
def test_each_board_control_is_named_with_the_words_it_shows(
    dj_client, campaign, aiko, kenji, language
):
    dj_client.cookies["django_language"] = language
    record(aiko, kind="special", name="fobia", on=True)
    record(aiko, kind="special", name="derribado", on=True)
    services.character_secrets_set(character=aiko, add=["fobia"], remove=[])
    record(kenji, kind="suffer", type="shock", grade="grave")
    for _ in range(2):
        record(kenji, kind="turn_end")
    pages = [
        reverse("board", args=["kiso"]),
        reverse("fight_setup", args=["kiso"]),
        reverse("history", args=["kiso"]),
        reverse("sheet", args=["kiso", aiko.pk]),
        reverse("rules"),
    ]

    for url in pages:
        html = dj_client.get(url).content.decode()
        assert names_missing_their_label(html) == [], url
    board = dj_client.get(pages[0]).content.decode()
    # The secret chips' buttons: each name starts with the words it shows.
    chips = {
        "es": (
            'Ocultar al jugador: [^"]+" title="[^"]+">ocultar al jugador<',
            'Mostrar al jugador: [^"]+" title="[^"]+">mostrar al jugador<',
        ),
        "en": (
            'Hide from the player: [^"]+" title="[^"]+">hide from the player<',
            'Show to the player: [^"]+" title="[^"]+">show to the player<',
        ),
    }
    for name in chips[language]:
        assert re.search('aria-label="' + name, board)


# -- names only where ARIA allows one ----------------------------------------------------

# Elements whose role (paragraph, generic, strong...) cannot be named: an aria-label there
# is not allowed, and screen readers may say nothing of it.
UNNAMED = {"p", "div", "span", "strong", "em", "b", "i", "small", "code", "del", "ins"}
UNNAMED_ROLES = {"", "generic", "paragraph", "presentation", "none"}


def names_not_allowed(html: str) -> list[str]:
    return [
        f"<{e.tag} aria-label={e.attrs['aria-label']!r}>"
        for e in Page(html).elements
        if "aria-label" in e.attrs and e.tag in UNNAMED and e.attrs.get("role", "") in UNNAMED_ROLES
    ]


def test_the_check_finds_a_name_on_a_paragraph():
    html = '<p class="scores" aria-label="Scores">x</p><span role="img" aria-label="L">L</span>'
    assert names_not_allowed(html) == ["<p aria-label='Scores'>"]


def test_no_page_names_what_cannot_be_named_yet_each_still_says_it(
    client, dj, campaign, aiko, joined
):
    client.force_login(dj)
    session = services.session_start(campaign=campaign)
    record(aiko, kind="suffer", type="shock", grade="grave")
    for _ in range(2):
        record(aiko, kind="turn_end")  # two TS waiting: "×2"
    services.session_end(session=session)
    pages = {
        "board": reverse("board", args=["kiso"]),
        "sheet": reverse("sheet", args=["kiso", aiko.pk]),
        "carry": reverse("session_sheets", args=["kiso", 1]),
    }
    html = {name: client.get(url).content.decode() for name, url in pages.items()}

    for name, page in html.items():
        assert names_not_allowed(page) == [], name
    # What the names said is now text for screen readers only: the scores ("INT" not
    # given), the pile of checks, each box of the carry-over sheet.
    hidden = '<span class="visually-hidden">'
    for name in ("board", "sheet"):
        assert f'<p class="scores">{hidden}Puntuaciones: </span>' in html[name]
        assert f'<span aria-hidden="true">–</span>{hidden}sin dar</span>' in html[name]
        assert f'<span aria-hidden="true">×2</span>{hidden}2 pendientes</span>' in html[name]
    assert f'<span aria-hidden="true">☒</span> Grave{hidden}: marcada</span>' in html["carry"]


# -- datetime values ---------------------------------------------------------------------

# HTML's date, time, and local or global date and time strings: seconds with at most three
# decimals, an offset as Z, +hh:mm or +hhmm.
TIME = r"\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?"
DATETIME = re.compile(rf"\d{{4}}-\d{{2}}-\d{{2}}([T ]{TIME}(Z|[+-]\d{{2}}:?\d{{2}})?)?|{TIME}")


def test_datetime_attr_writes_seconds_in_the_current_time_zone():
    value = datetime(2026, 5, 1, 19, 30, 5, 293971, tzinfo=UTC)
    with timezone.override("Europe/Madrid"):
        assert datetime_attr(value) == "2026-05-01T21:30:05+02:00"
    assert datetime_attr(None) == "" and datetime_attr("") == ""


def test_the_check_refuses_microseconds():
    assert DATETIME.fullmatch("2026-12-03T14:42:23.293+01:00")
    assert DATETIME.fullmatch("2026-12-03T14:42:23Z") and DATETIME.fullmatch("2026-12-03")
    assert not DATETIME.fullmatch("2026-12-03T14:42:23.293971+01:00")


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_datetime_attribute_is_one_html_allows(client, dj, campaign, aiko, joined, language):
    client.cookies["django_language"] = language
    services.session_start(campaign=campaign)
    record(aiko, kind="suffer", type="heridas", grade="leve")
    client.force_login(dj)
    pages = [
        reverse("sheet", args=["kiso", aiko.pk]),
        reverse("history", args=["kiso"]),
        reverse("session_detail", args=["kiso", 1]),
    ]

    found = 0
    for url in pages:
        for element in Page(client.get(url).content.decode()).elements:
            if "datetime" in element.attrs:
                found += 1
                assert DATETIME.fullmatch(element.attrs["datetime"]), (url, element.attrs)
    assert found >= 3  # the sheet's time, and each page's events


# -- forms -------------------------------------------------------------------------------


def descendants(element: Element):
    for child in element.children:
        yield child
        yield from descendants(child)


def empty_forms(html: str) -> list[str]:
    """Each form with nothing to fill in or press (hidden fields only, or nothing)."""
    empty = []
    for form in Page(html).find("form"):
        controls = [
            e
            for e in descendants(form)
            if e.tag in {"button", "select", "textarea"}
            or (e.tag == "input" and e.attrs.get("type") != "hidden")
        ]
        if not controls:
            empty.append(
                f"<form action={form.attrs.get('action')!r} class={form.attrs.get('class')!r}>"
            )
    return empty


def test_the_check_finds_a_form_of_hidden_fields_only():
    html = '<form action="/a"><input type="hidden" name="k"></form><form><button>Go</button></form>'
    assert empty_forms(html) == ["<form action='/a' class=None>"]


def test_more_actions_hold_no_empty_form_with_javascript_or_without(dj_client, campaign, aiko):
    url = reverse("ask", args=["kiso", aiko.pk, "more"])
    pages = {"page": dj_client.get(url), "fragment": dj_client.get(url, headers=HX)}
    for name, response in pages.items():
        assert response.status_code == 200
        assert empty_forms(response.content.decode()) == [], name
    # Each state that offers one of those actions: the form is there, with its button.
    for event, button in [
        ({"type": "emocion", "grade": "grave", "variant": "ira", "cause": "Oni"}, "safe"),
        ({"type": "afeccion", "grade": "leve", "source": "fiebre"}, "progress"),
    ]:
        record(aiko, kind="suffer", **event)
        html = dj_client.get(url).content.decode()
        assert empty_forms(html) == [] and f'value="{button}"' in html
    record(aiko, kind="sleep", descanso=True)
    html = dj_client.get(url).content.decode()
    assert empty_forms(html) == [] and 'value="wake"' in html
    assert empty_forms(dj_client.get(reverse("board", args=["kiso"])).content.decode()) == []


# -- descriptions ------------------------------------------------------------------------


def descriptions(html: str) -> list[str]:
    return [
        m.attrs.get("content", "")
        for m in Page(html).find("meta")
        if m.attrs.get("name") == "description"
    ]


@pytest.mark.parametrize("language", ["es", "en"])
def test_each_page_has_one_description_the_main_ones_their_own(
    client, dj, campaign, aiko, joined, language
):
    client.cookies["django_language"] = language
    client.force_login(dj)
    urls = {
        "home": reverse("home"),
        "board": reverse("board", args=["kiso"]),
        "sheet": reverse("sheet", args=["kiso", aiko.pk]),
        "rules": reverse("rules"),
        "guide": reverse("guide"),
        "history": reverse("history", args=["kiso"]),
    }
    found = {}
    for name, url in urls.items():
        html = client.get(url).content.decode()
        assert f'<html lang="{language}">' in html
        (found[name],) = descriptions(html)  # one, and only one
        assert len(found[name]) >= 50, (name, found[name])
    client.logout()
    client.cookies["django_language"] = language
    (found["login"],) = descriptions(client.get(reverse("login")).content.decode())

    # The default, in the page's language, where a page has none of its own.
    default = {
        "es": "Zodiac tracker: los Estados Alterados de una campaña de Zodiac",
        "en": "Zodiac tracker: the Estados Alterados of a Zodiac campaign",
    }[language]
    for name in ("home", "history", "login"):
        assert found[name].startswith(default), name
    for name in ("board", "sheet", "rules", "guide"):
        assert not found[name].startswith(default), name
    assert "Kiso" in found["board"] and "Aiko" in found["sheet"] and "Kiso" in found["sheet"]
    assert len(set(found.values())) == 5
