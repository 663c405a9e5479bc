"""What the table forgets, prompted on the board: "Se levanta" on a card derribado, "Ya no
está expuesto" when a fight ends, the Obstáculo of a patient's Afección in the Curación
chooser."""

import re

import pytest
from django.urls import reverse

from campaign import services
from campaign.selectors import character_state

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def record(campaign, pj, **event):
    return services.event_record(campaign=campaign, character=pj, event=event)


def board(client) -> str:
    return client.get(reverse("board", args=["kiso"])).content.decode()


def card_html(html: str, pk: int) -> str:
    return re.search(rf'<article[^>]*id="pj-{pk}".*?</article>', html, re.S).group(0)


# -- Se levanta ---------------------------------------------------------------------------


def test_a_card_derribado_offers_se_levanta_and_one_tap_takes_it_off(
    dj_client, campaign, aiko, kenji
):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    for pj in (aiko, oni):
        record(campaign, pj, kind="special", name="derribado", on=True)

    html = board(dj_client)
    assert "Se levanta" in card_html(html, aiko.pk) and "Se levanta" in card_html(html, oni.pk)
    assert "Se levanta" not in card_html(html, kenji.pk)

    response = dj_client.post(
        reverse("act", args=["kiso", aiko.pk]),
        {"action": "special", "name": "derribado", "on": "0", "key": "up-1"},
        headers=HX,
    )
    assert response.status_code == 200
    assert "derribado" not in character_state(character=aiko)["specials"]
    assert "Se levanta" not in card_html(response.content.decode(), aiko.pk)


def test_one_who_cannot_act_does_not_get_up(dj_client, campaign, aiko):
    record(campaign, aiko, kind="special", name="derribado", on=True)
    record(campaign, aiko, kind="special", name="incapacitado", on=True)
    assert "Se levanta" not in card_html(board(dj_client), aiko.pk)
