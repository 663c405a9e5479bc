"""The card's template tags written in Python for speed (campaign.templatetags.board and
card_parts): the same addresses as `{% url %}` and the same escaping as the template markup
they replace."""

import pytest
from django.http import HttpResponse
from django.template import Context, Template
from django.test import override_settings
from django.urls import path, reverse, set_script_prefix
from django.utils import translation
from django.utils.translation import gettext as _

import rules
from campaign import present
from campaign.present.card import Box, Chip, TypeRow
from campaign.templatetags.board import card_url, chip_item
from tests.factories import CharacterFactory


def _view(request, **kwargs):
    return HttpResponse()


# A urlconf of its own, for the test that card_url follows ROOT_URLCONF.
urlpatterns = [path("otra/<slug:slug>/<int:pk>/hecho/", _view, name="act")]


class FakeCampaign:
    def __init__(self, slug):
        self.slug = slug


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("act", (7,)),
        ("card", (12,)),
        ("ask", (3, "more")),
        ("ask", (3, "whole")),
        ("ask", (987654321, "afeccion")),  # the stand-in pk itself, as a real pk
        ("fight_pass", ()),
        ("players", ()),
    ],
)
def test_card_url_is_the_address_url_gives(name, args):
    for slug in ("kiso", "pj-7", "987654321"):
        context = Context({"campaign": FakeCampaign(slug)})
        assert card_url(context, name, *args) == reverse(name, args=[slug, *args])


def test_card_url_follows_the_script_prefix_and_the_urlconf():
    context = Context({"campaign": FakeCampaign("kiso")})
    assert card_url(context, "act", 5) == "/c/kiso/pj/5/accion/"
    set_script_prefix("/mesa/")
    try:
        assert card_url(context, "act", 5) == "/mesa/c/kiso/pj/5/accion/"
    finally:
        set_script_prefix("/")
    with override_settings(ROOT_URLCONF=__name__):
        assert card_url(context, "act", 5) == "/otra/kiso/5/hecho/"
    assert card_url(context, "act", 5) == "/c/kiso/pj/5/accion/"


def test_card_url_as_a_variable_in_a_template():
    html = Template("{% load board %}{% card_url 'ask' pk 'more' as u %}[{{ u }}]").render(
        Context({"campaign": FakeCampaign("kiso"), "pk": 4})
    )
    assert html == "[/c/kiso/pj/4/elegir/more/]"


def test_a_rows_boxes_name_their_grade_and_open_the_chooser_they_need():
    leve = Box("leve", "Leve", marked=True, active=True, ask="afeccion")
    grave = Box("grave", "Grave", marked=False, active=False)
    row = TypeRow("afeccion", 'Afección <"x">', [leve, grave], "leve")
    html = Template("{% load board %}{% box_row row %}|{% compact_rows rows %}").render(
        Context({"campaign": FakeCampaign("kiso"), "pk": 9, "row": row, "rows": [row]})
    )
    ask = reverse("ask", args=["kiso", 9, "afeccion"])
    boxes, compact = html.split("|")
    assert boxes == (
        f'<button type="submit" class="box marked active" formaction="{ask}" name="grade" '
        f'value="leve" hx-get="{ask}" hx-target="#pj-9-ask" hx-swap="innerHTML" '
        'data-shortcut-type="afeccion" data-shortcut-grade="leve" '
        f'aria-label="Afección &lt;&quot;x&quot;&gt; leve" title="Leve: {_("marked")}">'
        "L</button>"
        '<button type="submit" class="box" name="type_grade" value="afeccion:grave" '
        'data-shortcut-type="afeccion" data-shortcut-grade="grave" '
        f'aria-label="Afección &lt;&quot;x&quot;&gt; grave" title="Grave: {_("not marked")}">'
        "G</button>"
    )
    # Its name whole, and cut to its first letters for a phone's narrow card (app.css).
    assert compact == (
        '<li class="condition is-active grade-leve"><span class="type">'
        '<span class="type-long">Afección &lt;&quot;x&quot;&gt;</span>'
        '<span class="type-short" aria-hidden="true">Afe</span></span> '
        f'<span class="boxes">{boxes}</span></li>'
    )


def test_a_chip_escapes_what_the_dj_typed_once():
    chip = Chip('<i>"ponzoña"</i>', '<i>"Ponzoña"</i>', effect="a & b", secret=True)
    context = Context(
        {"pk": 3, "act_url": "/a/", "secret_url": "/s/", "common": True, "campaign": None}
    )
    html = chip_item(context, chip, True)
    assert "<i>" not in html
    assert 'title="a &amp; b"' in html and '<span class="chip-effect">a &amp; b</span>' in html
    assert '<span class="chip-name">&lt;i&gt;&quot;Ponzoña&quot;&lt;/i&gt;</span>' in html
    assert 'name="name" value="&lt;i&gt;&quot;ponzoña&quot;&lt;/i&gt;"' in html
    assert html.startswith('<li class="chip is-secret"') and 'value="0"' in html


def _card(events: list[dict], **character):
    """The card of a PJ (not saved) after `events`."""
    state = rules.initial_state()
    for event in events:
        state, _effects = rules.apply(state, event)
    return present.card.build(CharacterFactory.build(**character), rules.public_state(state))


EMOCION_GRAVE = {
    "kind": "suffer",
    "type": "emocion",
    "grade": "grave",
    "variant": "ira",
    "cause": '<b>"el traidor"</b>',
}


def test_an_ealt_text_and_its_rules_links_escape_the_cause(db):
    card = _card([EMOCION_GRAVE])
    row = next(r for r in card.rows if r.active)
    html = Template("{% load card_parts %}{% ealt_text row card %}").render(
        Context({"row": row, "card": card})
    )
    assert html.startswith('<div class="ealt"><p class="ealt-title"><strong>')
    assert ' <a class="rule" href="/reglas/#R14">R14</a>' in html
    assert "Causa: &lt;b&gt;&quot;el traidor&quot;&lt;/b&gt;" in html and "<b>" not in html
    set_script_prefix("/mesa/")
    try:
        moved = Template("{% load card_parts %}{% ealt_text row card %}").render(
            Context({"row": row, "card": card})
        )
    finally:
        set_script_prefix("/")
    assert 'href="/mesa/reglas/#R14"' in moved


def test_the_scores_line_says_which_score_is_not_given(db):
    card = _card([], attributes={"FUE": 3, "PER": 2})
    html = Template("{% load card_parts %}{% scores_line card %}").render(Context({"card": card}))
    assert '<abbr title="Fuerza">FUE</abbr> <strong>3</strong>' in html
    assert '<abbr title="PER">PER</abbr> <strong>2</strong>' in html  # the table's own
    assert '<abbr title="Agilidad">AGI</abbr> <strong><span aria-hidden="true">–</span>' in html
    with translation.override("en"):
        html = Template("{% load card_parts %}{% scores_line card %}").render(
            Context({"card": card})
        )
    assert '<abbr title="Strength">STR</abbr> <strong>3</strong>' in html
    assert '<abbr title="PER">PER</abbr> <strong>2</strong>' in html


def test_the_modifiers_in_a_table_in_a_line_and_to_flee_or_fight(db):
    calm, angry = _card([]), _card([EMOCION_GRAVE])
    render = Template(
        "{% load board %}{% modifier_table card %}|{% modifier_line card %}|{% intents card %}"
    ).render
    table, line, _intents = render(Context({"card": calm})).split("|")
    assert table == '<p class="mods-none">Sin modificadores a las acciones.</p>'
    assert line == "Sin modificadores."
    table, line, intents = render(Context({"card": angry})).split("|")
    assert '<th scope="col">otro</th>' in table and '<td class="mod mod-neg">−' in table
    assert f'<p class="mods-intent">{intents}</p>' in table and "Para huir:" in intents
    assert line.startswith('<span class="visually-hidden">Modificadores: </span>')
    assert '<span class="mod mod-zero">' not in line  # a 0 is left out of the line


def test_the_chip_rows_name_afeccion_and_eesp_only_when_there_are_some(db):
    card = _card([{"kind": "special", "name": "derribado", "on": True}])
    context = Context(
        {"card": card, "pk": 3, "act_url": "/a/", "secret_url": "/s/", "common": True}
    )
    html = Template("{% load board %}{% chip_rows card %}").render(context)
    assert html.count('<div class="chip-row">') == 1 and "E.Esp:" in html
    assert "Afección:" not in html and "Derribado" in html


def test_a_read_only_card_names_each_box_and_what_does_not_apply(db):
    card = _card([{"kind": "suffer", "type": "heridas", "grade": "leve"}])
    html = Template(
        "{% load card_parts %}{% readonly_rows card %}|{% modifier_rows card %}"
    ).render(Context({"card": card}))
    rows, mods = html.split("|")
    assert (
        '<span class="box box-readonly marked active" data-grade="leve" role="img" '
        'aria-label="Heridas leve: marcada" title="Leve: marcada">L</span>'
    ) in rows
    assert 'aria-label="Heridas grave: sin marcar"' in rows
    assert rows.count('<div class="ealt">') == 1  # the active one's text
    assert '<tr><th scope="row">FUE</th><td class="mod mod-neg">−1</td>' in mods
    assert '<span class="visually-hidden">no se aplica</span>' in mods
