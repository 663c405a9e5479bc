"""The rules reference page /reglas/: open to all, in the UI language, built from docs/."""

import re

import pytest
from django.template import Context, Template
from django.urls import reverse

from campaign.reference import render_markdown, rule_url, rules_page
from tests.factories import UserFactory

RULES = [f"R{n}" for n in range(1, 28)]


def _ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def test_it_is_readable_without_logging_in(client, db):
    response = client.get("/reglas/")
    assert response.status_code == 200
    assert reverse("rules") == "/reglas/"
    html = response.content.decode()
    assert '<html lang="es">' in html
    assert "<h1>Reglas de Estados Alterados</h1>" in html
    assert "Dan Gordillo" in html and "CC BY-SA 4.0" in html


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_rule_has_its_anchor_and_a_contents_link(client, db, language):
    client.cookies["django_language"] = language
    html = client.get("/reglas/").content.decode()
    assert f'<html lang="{language}">' in html
    assert set(RULES) <= _ids(html)
    for rule in RULES:
        assert html.count(f'id="{rule}"') == 1
        assert f'href="#{rule}"' in html


def test_switching_to_english_shows_the_english_reference(client, db):
    response = client.post(
        reverse("set_language"), {"language": "en", "next": "/reglas/"}, follow=True
    )
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/reglas/"
    assert "<h1>Estados Alterados rules</h1>" in html
    assert "Prolonged exertion" in html and "Contents" in html
    assert "Reglas de Estados Alterados" not in html


def test_both_documents_have_the_same_sections_and_rules():
    spanish, english = rules_page("es"), rules_page("en")
    assert [s.anchor for s in spanish.sections][0] == "lo-basico"
    assert len(spanish.sections) == len(english.sections)
    for es, en in zip(spanish.sections, english.sections, strict=True):
        assert [anchor for anchor, _ in es.rules] == [anchor for anchor, _ in en.rules]
    listed = [anchor for section in spanish.sections for anchor, _ in section.rules]
    assert listed == RULES


def test_a_user_logged_in_sees_it_too(client, db):
    client.force_login(UserFactory())
    assert client.get("/reglas/").status_code == 200


def test_the_top_bar_links_to_the_rules_for_everyone(client, db):
    login_page = client.get(reverse("login")).content.decode()
    assert '<a href="/reglas/" class="topbar-link">Reglas</a>' in login_page
    client.force_login(UserFactory())
    home = client.get("/").content.decode()
    assert 'href="/reglas/"' in home
    rules = client.get("/reglas/").content.decode()
    assert 'href="/reglas/" class="topbar-link" aria-current="page">Reglas</a>' in rules


def test_raw_html_in_the_markdown_is_escaped_not_passed_through():
    page = render_markdown(
        "# T\n\nintro <b>bold</b>\n\n## S\n\n"
        '<script>alert("x")</script>\n\n<img src=x onerror="alert(1)">\n\n'
        "[link](javascript:alert(1)) and `code <i>`\n"
    )
    html = page.intro + page.body
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert 'href="javascript' not in html
    assert "&lt;i&gt;" in html


def test_the_served_page_has_no_markup_beyond_what_markdown_makes(client, db):
    html = client.get("/reglas/").content.decode()
    article = html.split('<article class="reference">', 1)[1].split("</article>", 1)[0]
    tags = set(re.findall(r"<([a-z0-9]+)", article))
    allowed = {"h1", "h2", "h3", "p", "ul", "ol", "li", "a", "em", "strong", "code"}
    allowed |= {"div", "section", "table", "thead", "tbody", "tr", "th", "td", "nav", "span"}
    assert tags <= allowed
    assert " style=" not in article and "<script" not in html.split("</head>", 1)[1]


@pytest.mark.parametrize(
    ("language", "name"), [("es", "Tabla: Lo básico"), ("en", "Table: The basics")]
)
def test_a_long_table_scrolls_inside_its_own_box_a_keyboard_can_reach(client, db, language, name):
    client.cookies["django_language"] = language
    html = client.get("/reglas/").content.decode()
    # Focusable and named after its section, so a keyboard scrolls it and a screen reader
    # says what it holds.
    wrap = f'<section class="table-wrap" tabindex="0" aria-label="{name}"><table>'
    assert wrap in html


def test_each_table_is_named_after_the_heading_above_it_its_name_escaped():
    page = render_markdown(
        "# T\n\n## A <b> & c\n\n| x |\n| - |\n| 1 |\n\n### R2 · Dos\n\n| y |\n| - |\n| 2 |\n"
    )
    html = str(page.body)
    assert 'tabindex="0" aria-label="Tabla: A &lt;b&gt; &amp; c"><table>' in html
    assert 'aria-label="Tabla: R2 · Dos"><table>' in html


def test_rule_url_links_to_one_rule():
    assert rule_url("R11") == "/reglas/#R11"
    assert rule_url("R27") == "/reglas/#R27"
    for bad in ("R0", "R28", "base", "DJ", "r11", "R011"):
        with pytest.raises(ValueError):
            rule_url(bad)


def test_the_rule_url_filter_links_r_numbers_and_leaves_others_blank():
    template = Template("{% load rules_reference %}[{{ a|rule_url }}][{{ b|rule_url }}]")
    assert template.render(Context({"a": "R5", "b": "DJ"})) == "[/reglas/#R5][]"


def test_the_rendered_reference_is_kept_per_language():
    assert rules_page("es") is rules_page("es")
    assert rules_page("en") is not rules_page("es")
    assert rules_page("fr").title == rules_page("es").title
