"""The board's template tags written in Python for speed (campaign.templatetags.board): the
same addresses as `{% url %}` and the same escaping as the template markup they replace."""

import pytest
from django.http import HttpResponse
from django.template import Context, Template
from django.test import override_settings
from django.urls import path, reverse, set_script_prefix

from campaign.present.card import Box, Chip, TypeRow
from campaign.templatetags.board import card_url, chip_item


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
        f'aria-label="Afección &lt;&quot;x&quot;&gt; leve" title="Leve: {leve.state_word}">'
        "L</button>"
        '<button type="submit" class="box" name="type_grade" value="afeccion:grave" '
        'data-shortcut-type="afeccion" data-shortcut-grade="grave" '
        f'aria-label="Afección &lt;&quot;x&quot;&gt; grave" title="Grave: {grave.state_word}">'
        "G</button>"
    )
    assert compact == (
        '<li class="condition is-active grade-leve"><span class="type">'
        f'Afección &lt;&quot;x&quot;&gt;</span> <span class="boxes">{boxes}</span></li>'
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
