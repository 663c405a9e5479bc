"""One initiative rule (turn_order.initiative_read) for every form that takes one: the
board's PNJ form in a fight, the order page's add form and its lines. Found playing it: each
had its own limits and its own words, and a huge number passed one to be refused later."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaign import selectors, services, turn_order
from campaign.models import StateEvent
from campaign.turn_order import Slot

HX = {"HX-Request": "true"}
ERROR = "La iniciativa: un número entero de -99 a 999, o en blanco."
REFUSED = ["doce", "1.5", "1,5", "1e3", "--3", "-", "+-2", "1000", "-100", "9999999", "½", "３"]
TAKEN = [("", None), ("0", 0), ("12", 12), ("-3", -3), ("−3", -3), ("+5", 5), (" 7 ", 7)]
TAKEN += [("999", 999), ("-99", -99)]


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


@pytest.fixture
def fight(campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk, init=10)])


def board_add(client, init):
    form = {"name": "Oni", "init": init, "fight": "1"}
    return client.post(reverse("pnj_add", args=["kiso"]), form, headers=HX)


def order_add(client, aiko, init):
    form = {"slot": [f"pj:{aiko.pk}"], "name": [""], "init": ["10"], "mode": "order"}
    form |= {"turn": "1:0", "step": "add", "new": "npc", "new_name": "Oni", "new_init": init}
    return client.post(reverse("fight_setup", args=["kiso"]), form)


def order_line(client, aiko, init):
    form = {"slot": [f"pj:{aiko.pk}"], "name": [""], "init": [init], "mode": "order"}
    return client.post(reverse("fight_setup", args=["kiso"]), {**form, "turn": "1:0"})


@pytest.mark.parametrize("text", REFUSED)
def test_the_rule_refuses(text):
    with pytest.raises(ValidationError) as refused:
        turn_order.initiative_read(text)
    assert refused.value.code == "init"


@pytest.mark.parametrize(("text", "value"), TAKEN)
def test_the_rule_takes(text, value):
    assert turn_order.initiative_read(text) == value


@pytest.mark.parametrize("text", REFUSED)
def test_every_form_refuses_the_same_initiative_with_the_same_words(
    dj_client, campaign, aiko, fight, text
):
    order = selectors.fight_now(campaign=campaign).order

    board = board_add(dj_client, text)
    added = order_add(dj_client, aiko, text)
    line = order_line(dj_client, aiko, text)

    assert board.status_code == 422 and board["HX-Retarget"] == "#pnj-error"
    assert board.content.decode() == ERROR
    assert added.status_code == 422
    assert f'id="fight-add-error" role="alert">{ERROR}<' in added.content.decode()
    assert line.status_code == 422
    assert re.search(rf'id="fight-row-0-error" role="alert">{ERROR}<', line.content.decode())
    assert not selectors.board_pnj(campaign=campaign)
    assert selectors.fight_now(campaign=campaign).order == order


@pytest.mark.parametrize(("text", "value"), TAKEN)
def test_every_form_takes_the_same_initiative(dj_client, campaign, aiko, fight, text, value):
    assert order_add(dj_client, aiko, text).status_code == 200
    assert order_line(dj_client, aiko, text).status_code == 302
    assert selectors.fight_now(campaign=campaign).order[0].init == value

    assert board_add(dj_client, text).status_code == 200
    oni = selectors.board_pnj(campaign=campaign)[0]
    now = selectors.fight_now(campaign=campaign)
    assert now.order[now.slot_of(oni.pk)].init == value


def test_a_stored_initiative_out_of_the_rule_is_refused_in_its_words(campaign, aiko):
    event = {"kind": "fight", "do": "start", "order": [{"pj": aiko.pk, "init": 1000}]}
    with pytest.raises(ValidationError) as refused:
        turn_order.check(event, in_play={aiko.pk})
    assert refused.value.messages == [ERROR]
    assert not StateEvent.objects.filter(event__kind="fight").exists()
