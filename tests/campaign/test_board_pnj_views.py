"""The board's PNJ taps (campaign.views.board_pnj): PNJ added in one step, into the fight;
the area blow on the PNJ marked; Fuera de combate; the end of a fight archiving its enemies
or keeping them."""

import pytest
from django.urls import reverse

from campaign import selectors, services
from campaign.turn_order import Slot

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def url(name):
    return reverse(name, args=["kiso"])


def test_pnj_are_added_from_a_template_by_its_name(dj_client, campaign, aiko):
    services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    answer = dj_client.post(url("pnj_add"), {"name": "bandido", "count": "3"}, headers=HX)
    assert answer.status_code == 200
    made = selectors.board_pnj(campaign=campaign)
    assert [c.name for c in made] == ["Bandido 1", "Bandido 2", "Bandido 3"]
    assert all(c.template.name == "Bandido" for c in made)
    html = answer.content.decode()
    assert 'id="pj-' + str(made[0].pk) + '"' in html and "Bandido 1, Bandido 2" in html


def test_pnj_join_the_fight_from_the_board_as_one_group(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk, init=10)])
    services.fight_pass(campaign=campaign)  # a page that saw another turn still adds
    form = {"name": "Oni", "count": "2", "init": "12", "together": "1", "fight": "1"}
    assert dj_client.post(url("pnj_add"), form, headers=HX).status_code == 200
    order = selectors.fight_now(campaign=campaign).order
    assert len(order) == 2 and len(order[0].members) == 2 and order[0].init == 12


def test_a_bad_initiative_is_refused_next_to_the_add_form(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])
    form = {"name": "Oni", "init": "doce", "fight": "1"}
    answer = dj_client.post(url("pnj_add"), form, headers=HX)
    assert answer.status_code == 422 and answer["HX-Retarget"] == "#pnj-error"
    assert "iniciativa" in answer.content.decode()
    assert not selectors.board_pnj(campaign=campaign)


def test_an_area_blow_with_no_pnj_marked_says_so_by_its_form(dj_client, campaign, aiko):
    services.pnj_create(campaign=campaign, name="Oni")
    form = {"area": [str(aiko.pk)], "type": "heridas", "grade": "leve"}
    answer = dj_client.post(url("area_blow"), form, headers=HX)
    assert answer.status_code == 422 and answer["HX-Retarget"] == "#area-error"
    assert "Marca los PNJ" in answer.content.decode()


def test_an_area_blow_reaches_only_pnj_marked(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni", count=2)
    form = {"area": [str(oni[0].pk), str(aiko.pk)], "type": "fatiga", "grade": "leve"}
    assert dj_client.post(url("area_blow"), form, headers=HX).status_code == 200
    assert selectors.character_state(character=oni[0])["marks"]["fatiga"] == ["leve"]
    assert selectors.character_state(character=oni[1])["marks"]["fatiga"] == []
    assert selectors.character_state(character=aiko)["marks"]["fatiga"] == []


def test_fuera_de_combate_from_the_board(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=oni.pk)])
    form = {"pj": str(oni.pk), "why": "huye", "turn": "1:0"}
    answer = dj_client.post(url("fight_out"), form, headers=HX)
    assert answer.status_code == 200 and "Oni (huye)" in answer.content.decode()
    assert selectors.fight_now(campaign=campaign).out == {oni.pk: "huye"}


@pytest.mark.parametrize(("choice", "archived"), [("archive", True), ("keep", False)])
def test_the_end_of_the_fight_archives_or_keeps_its_enemies(
    dj_client, campaign, aiko, choice, archived
):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=oni.pk)])
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert 'name="enemies" value="archive" checked' in board
    dj_client.post(url("fight_end"), {"turn": "1:0", "enemies": choice}, headers=HX)
    oni.refresh_from_db()
    assert oni.is_archived is archived


def test_a_pnj_is_revealed_and_hidden_from_its_card(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    whole = reverse("ask", args=["kiso", oni.pk, "whole"])
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert f'data-lazy="{whole}"' in board  # "Tarjeta entera", asked for when it opens
    assert "Revelar a los jugadores" in dj_client.get(whole, headers=HX).content.decode()
    reveal = reverse("pnj_reveal", args=["kiso", oni.pk])

    shown = dj_client.post(reveal, {"revealed": "1"}, headers=HX)
    oni.refresh_from_db()
    assert shown.status_code == 200 and oni.revealed
    assert "Ocultar a los jugadores" in dj_client.get(whole, headers=HX).content.decode()
    dj_client.post(reveal, {"revealed": "0"}, headers=HX)
    oni.refresh_from_db()
    assert not oni.revealed


def test_a_pjs_number_reveals_nothing(dj_client, campaign, aiko):
    answer = dj_client.post(reverse("pnj_reveal", args=["kiso", aiko.pk]), {"revealed": "1"})
    assert answer.status_code == 404


def test_the_whole_card_of_a_pnj_is_asked_for_when_it_opens(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni", notes="Teme al fuego.")[0]
    services.event_record(
        campaign=campaign, character=oni, event={"kind": "special", "name": "derribado", "on": True}
    )
    whole = reverse("ask", args=["kiso", oni.pk, "whole"])
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert "Teme al fuego." not in board and "pnj-whole-body" not in board
    assert f'<a href="{whole}">Abrir la tarjeta entera' in board  # without JavaScript

    part = dj_client.get(whole, headers=HX).content.decode()
    assert part.lstrip().startswith('<div class="pnj-whole-body">')
    assert "Teme al fuego." in part and "Derribado" in part
    assert "Revelar a los jugadores" in part and "Más acciones" in part
    page = dj_client.get(whole).content.decode()  # its own page, without JavaScript
    assert "<h1>Oni</h1>" in page and "Teme al fuego." in page


def test_a_pj_has_no_whole_card_to_ask_for(dj_client, campaign, aiko):
    answer = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "whole"]), headers=HX)
    assert answer.status_code == 400
