"""What the table forgets, prompted on the board: "Se levanta" on a card derribado, "Ya no
está expuesto" when a fight ends, the Obstáculo of a patient's Afección in the Curación
chooser."""

import re

import pytest
from django.urls import reverse

from campaign import services
from campaign.selectors import character_state
from campaign.turn_order import Slot
from tests.factories import CharacterFactory

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


# -- Ya no está expuesto, when a fight ends ----------------------------------------------


@pytest.fixture
def fought(campaign, aiko, kenji):
    """A fight of Aiko (ira at the oni), Kenji (terror), Mei (calm), the Oni (ira: an enemy
    the DJ keeps) and a Bandido (ira, taken out of the fight); Taro, in ira, not in it."""
    mei = CharacterFactory(campaign=campaign, name="Mei")
    taro = CharacterFactory(campaign=campaign, name="Taro")
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    bandido = services.pnj_create(campaign=campaign, name="Bandido")[0]
    emotions = {aiko: ("ira", "el oni"), kenji: ("terror", ""), oni: ("ira", "Aiko")}
    emotions |= {bandido: ("ira", ""), taro: ("ira", "")}
    for who, (variant, cause) in emotions.items():
        event = {"kind": "suffer", "type": "emocion", "grade": "grave", "variant": variant}
        record(campaign, who, **(event | ({"cause": cause} if cause else {})))
    order = [Slot(pj=c.pk) for c in (aiko, kenji, mei, oni, bandido)]
    services.fight_start(campaign=campaign, order=order)
    services.fight_out(campaign=campaign, character=bandido, why="huye")
    return {"mei": mei, "taro": taro, "oni": oni, "bandido": bandido}


def prompt(html: str) -> str:
    found = re.search(r'<div class="after-fight".*?</div>', html, re.S)
    return found.group(0) if found else ""


def safe_buttons(html: str) -> list[str]:
    return re.findall(r'Ya no está expuesto<span class="visually-hidden"> \((\w+)\)', prompt(html))


def test_the_end_of_a_fight_offers_ya_no_esta_expuesto_to_who_fought_in_emocion_grave(
    dj_client, campaign, aiko, kenji, fought
):
    end = reverse("fight_end", args=["kiso"])
    answer = dj_client.post(end, {"enemies": "keep", "key": "end-1"}, headers=HX)

    assert answer.status_code == 200
    html = answer.content.decode()
    assert safe_buttons(html) == ["Aiko", "Kenji", "Bandido", "Oni"]
    assert "Aiko</strong> (ira: el oni)" in prompt(html)
    assert safe_buttons(board(dj_client)) == ["Aiko", "Kenji", "Bandido", "Oni"]

    # One tap each: the answer's clock bar lists the others still.
    tapped = dj_client.post(
        reverse("act", args=["kiso", aiko.pk]), {"action": "safe", "key": "s-1"}, headers=HX
    )
    assert character_state(character=aiko)["active"]["emocion"] == "leve"
    assert safe_buttons(tapped.content.decode()) == ["Kenji", "Bandido", "Oni"]


def test_archived_enemies_are_not_offered(dj_client, campaign, fought):
    end = reverse("fight_end", args=["kiso"])
    html = dj_client.post(end, {"enemies": "archive", "key": "end-1"}, headers=HX)
    assert safe_buttons(html.content.decode()) == ["Aiko", "Kenji"]


def test_the_prompt_outlives_time_and_goes_with_a_descanso_not_there_during_the_fight(
    dj_client, campaign, fought
):
    """Found playing: +10 min after the fight took the prompt away, and Ren stayed in ira
    through the night's Descanso with nothing to remind the table."""
    assert prompt(board(dj_client)) == ""  # the fight is on
    services.fight_end(campaign=campaign)
    assert prompt(board(dj_client)) != ""
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    assert safe_buttons(board(dj_client)) == ["Aiko", "Kenji", "Bandido", "Oni"]
    services.party_event(campaign=campaign, event={"kind": "descanso"})
    assert prompt(board(dj_client)) == ""


def test_no_prompt_when_nobody_is_in_emocion_grave(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])
    services.fight_end(campaign=campaign)
    assert prompt(board(dj_client)) == ""
