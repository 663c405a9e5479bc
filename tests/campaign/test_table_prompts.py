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


# -- the Obstáculo of the patient's Afección ---------------------------------------------


@pytest.mark.parametrize(
    ("phase", "words"),
    [
        ("leve", "Medicina con Obstáculo −1 por la Afección leve del paciente"),
        ("grave", "Medicina con Obstáculo −3 por la Afección grave del paciente"),
        ("persistente", "Medicina con Obstáculo −2 por la Afección persistente del paciente"),
    ],
)
@pytest.mark.parametrize("kind", ["heal", "surgery"])
def test_the_curacion_chooser_names_the_obstaculo_of_the_patients_afeccion(
    dj_client, campaign, aiko, kenji, phase, words, kind
):
    record(campaign, aiko, kind="suffer", type="heridas", grade="persistente")
    record(campaign, aiko, kind="suffer", type="afeccion", grade=phase, source="fugu")
    url = reverse("ask", args=["kiso", aiko.pk, kind])

    html = dj_client.get(url, headers=HX).content.decode()

    assert words in html and 'href="/reglas/#R19"' in html


def test_a_patient_without_afeccion_gives_no_obstaculo(dj_client, campaign, aiko, kenji):
    record(campaign, aiko, kind="suffer", type="heridas", grade="leve")
    html = dj_client.get(reverse("ask", args=["kiso", aiko.pk, "heal"]), headers=HX)
    assert "Obstáculo" not in html.content.decode()
