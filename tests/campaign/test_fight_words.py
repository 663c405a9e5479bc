"""The fight's words the PNJ playtest found unclear or wrong: the history says a fight's
events' day and time like any other's, Deshacer says who left the fight and counts who
leaves the board, Fuera de combate names no reason twice, and labels that cover PNJ say
so."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaign import selectors, services
from campaign.turn_order import Slot

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def undo(client, campaign):
    latest = selectors.latest_event(campaign=campaign)
    return client.post(reverse("undo", args=["kiso"]), {"seq": str(latest.seq)}, headers=HX)


def whens(html: str) -> list[str]:
    return re.findall(r'<span class="timeline-clock">([^<]*)</span>', html)


def test_a_fights_events_in_the_history_say_their_day_and_time(dj_client, campaign, aiko):
    services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=oni.pk)])
    services.fight_pass(campaign=campaign)

    html = dj_client.get(reverse("history", args=["kiso"])).content.decode()

    # Aiko's scores, the time, the Oni's joining and scores, then the fight: its start,
    # Aiko's turn end and its pass (a fight's own events changed no PJ's state).
    assert whens(html) == [
        "Día 1 00:00 · Ronda 1",
        *["Día 1 00:10 · Ronda 1"] * 3,
        *["Día 1 00:10 · Ronda 1 · Turno de Aiko"] * 3,
    ]


def test_undoing_one_taken_out_of_the_fight_says_who(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=oni.pk)])
    services.fight_out(campaign=campaign, character=oni, why="inconsciente")

    html = undo(dj_client, campaign).content.decode()

    assert "Oni sale del combate (inconsciente)" in html
    assert "Alguien sale" not in html and "Uno sale" not in html


def test_undoing_one_pnj_added_says_it_leaves_the_board(dj_client, campaign, aiko):
    dj_client.post(reverse("pnj_add", args=["kiso"]), {"name": "Lobo", "key": "k"}, headers=HX)

    html = undo(dj_client, campaign).content.decode()

    assert "Deshecho: Lobo sale de la mesa (archivado, queda en el historial)" in html


def test_fuera_de_combate_names_each_reason_once(dj_client, campaign, aiko):
    oni = services.pnj_create(campaign=campaign, name="Oni")[0]
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=oni.pk)])
    whole = reverse("ask", args=["kiso", oni.pk, "whole"])

    html = dj_client.get(whole, headers=HX).content.decode()

    choices = re.findall(r'name="why" value="[^"]+" class="button-small">([^<]*)<', html)
    assert choices == ["incapacitado", "inconsciente", "huye", "otro motivo"]


def test_the_history_filter_says_it_covers_pnj_for_the_dj(
    dj_client, client, campaign, joined, player
):
    services.pnj_create(campaign=campaign, name="Oni")
    dj_html = dj_client.get(reverse("history", args=["kiso"])).content.decode()
    assert '<label for="filter-pj">PJ o PNJ</label>' in dj_html
    client.force_login(player)
    mine = client.get(reverse("history", args=["kiso"])).content.decode()
    assert '<label for="filter-pj">PJ</label>' in mine


def test_an_order_naming_one_not_in_play_says_pj_or_pnj(campaign, aiko):
    with pytest.raises(ValidationError, match="Ese PJ o PNJ no está en juego"):
        services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=99999)])
