"""The board's PNJ taps (campaign.views.board_pnj): PNJ added in one step, into the fight;
the area blow on the PNJ marked; Fuera de combate; the end of a fight archiving its enemies
or keeping them."""

import re

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


def test_a_group_sharing_a_turn_says_so_on_the_board_until_its_fight(dj_client, campaign, aiko):
    services.template_save(campaign=campaign, name="Bandido")
    services.template_save(campaign=campaign, name="Ronin")
    dj_client.post(url("pnj_add"), {"name": "bandido", "count": "3", "together": "1"}, headers=HX)
    dj_client.post(url("pnj_add"), {"name": "ronin", "count": "2"}, headers=HX)

    def summaries() -> list[str]:
        html = dj_client.get(reverse("board", args=["kiso"])).content.decode()
        found = re.findall(r'<details class="pnj-group" open>\s*<summary>(.*?)</summary>', html)
        return [re.sub(r"<[^>]+>|\s+", " ", s).split() for s in found]

    assert summaries() == [["Bandido", "×3", "un", "turno", "para", "todos"], ["Ronin", "×2"]]
    made = selectors.board_pnj(campaign=campaign)
    services.fight_start(campaign=campaign, order=[Slot(pj=c.pk) for c in [aiko, *made]])
    assert summaries() == [["Bandido", "×3"], ["Ronin", "×2"]]  # the order says it now


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
    # The button says what the phones will read: the PNJ's level, words by default.
    words = "Revelar a los jugadores: nombre y estado en palabras"
    assert words in dj_client.get(whole, headers=HX).content.decode()
    for shows, says in (("nombre", "su nombre"), ("ficha", "su ficha entera")):
        services.pnj_settings_set(character=oni, shows=shows)
        part = dj_client.get(whole, headers=HX).content.decode()
        assert f"Revelar a los jugadores: {says}" in part
    services.pnj_settings_set(character=oni, shows="palabras")
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


# -- Deshacer of an add: the PNJ it made leave the board ------------------------------------
# Found playing it: Deshacer after "Añadir al combate" took back the joining only, and the
# PNJ stayed on the board; after a plain "Añadir" it took back the tap before (or, with a
# clock, voided the last PNJ's joining the campaign).


def undo(client, campaign):
    latest = selectors.latest_event(campaign=campaign)
    return client.post(url("undo"), {"seq": str(latest.seq)}, headers=HX)


def test_deshacer_takes_back_pnj_added_into_the_fight(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk, init=10)])
    services.fight_pass(campaign=campaign)  # round 2: the order as Deshacer must leave it
    order = selectors.fight_now(campaign=campaign).order
    form = {"name": "Oni", "count": "2", "init": "12", "together": "1", "fight": "1"}
    dj_client.post(url("pnj_add"), {**form, "key": "add"}, headers=HX)
    made = selectors.board_pnj(campaign=campaign)
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert re.search(r'title="#\d+ PNJ añadidos: Oni 1, Oni 2"', board)

    answer = undo(dj_client, campaign)

    html = answer.content.decode()
    assert answer.status_code == 200
    assert "Deshecho: Oni 1, Oni 2 salen de la mesa (archivados, quedan en el historial)" in html
    assert not selectors.board_pnj(campaign=campaign)
    assert selectors.fight_now(campaign=campaign).order == order
    for oni in made:
        oni.refresh_from_db()
        assert oni.is_archived  # on record, with their making in their log
        log = selectors.character_log(character=oni)
        assert {e.event["kind"] for e in log if not e.is_void} <= {"start", "attributes"}
        assert any(e.event["kind"] == "attributes" and not e.is_void for e in log)
    assert f'id="pj-{made[0].pk}"' not in html


def test_one_pnj_made_without_scores_reads_plainly_and_so_does_its_undo(dj_client, campaign):
    dj_client.post(url("pnj_add"), {"name": "Jefe", "count": "1", "key": "k1"}, headers=HX)
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    # Its making, in the recent events: no "Puntuaciones: aún ninguna" on a PNJ just made.
    assert "Sin puntuaciones" in board and "aún ninguna" not in board

    undone = undo(dj_client, campaign).content.decode()

    assert "Deshecho: Jefe sale de la mesa (archivado, queda en el historial)" in undone


@pytest.mark.parametrize("clock", [False, True])
def test_deshacer_takes_back_a_plain_add_and_then_the_tap_before(dj_client, campaign, aiko, clock):
    if clock:  # with time passed, each PNJ made also records its joining the campaign
        services.party_event(campaign=campaign, event={"kind": "time", "minutes": 10})
    blow = {"kind": "suffer", "type": "heridas", "grade": "leve"}
    services.event_record(campaign=campaign, character=aiko, event=blow, idempotency_key="b")
    dj_client.post(url("pnj_add"), {"name": "Bandido", "count": "3", "key": "k1"}, headers=HX)
    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    assert re.search(r'title="#\d+ PNJ añadidos: Bandido 1, Bandido 2, Bandido 3"', board)

    undone = undo(dj_client, campaign)

    assert "Deshecho: Bandido 1, Bandido 2, Bandido 3 salen de la mesa" in undone.content.decode()
    assert not selectors.board_pnj(campaign=campaign)
    # The next Deshacer is the blow on Aiko, the tap before the add.
    latest = selectors.latest_event(campaign=campaign)
    assert latest.character == aiko and latest.event["kind"] == "suffer"
    undo(dj_client, campaign)
    assert selectors.character_state(character=aiko)["marks"]["heridas"] == []


def test_a_pnj_an_undone_add_made_comes_back_as_it_was_made(dj_client, campaign, aiko):
    services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    dj_client.post(url("pnj_add"), {"name": "Bandido", "key": "k1"}, headers=HX)
    answer = undo(dj_client, campaign)
    bandido = campaign.characters.get(name="Bandido")
    assert answer.get("HX-Retarget") is None  # the board answers whole: its card is gone
    assert f'id="pj-{bandido.pk}"' not in answer.content.decode()

    services.character_restore(character=bandido)

    made = [(e.event["scores"], e.is_void) for e in selectors.character_log(character=bandido)]
    assert made == [({"VOL": 2}, False)]
    # In play again, its add is the one Deshacer would take back again.
    assert selectors.latest_event(campaign=campaign).character == bandido


def test_deshacer_of_an_order_saved_with_new_pnj_archives_them(dj_client, campaign, aiko):
    form = {"slot": [f"pj:{aiko.pk}", "new:1:0:enemigo:1:2"], "name": ["", "Lobo"]}
    form |= {"init": ["", "5"], "mode": "start", "key": "save"}
    assert dj_client.post(reverse("fight_setup", args=["kiso"]), form).status_code == 302
    assert len(selectors.fight_now(campaign=campaign).order[1].members) == 2

    undo(dj_client, campaign)

    assert selectors.fight_now(campaign=campaign) is None
    assert not selectors.board_pnj(campaign=campaign)
    lobos = campaign.characters.filter(name__in=["Lobo 1", "Lobo 2"], archived_at__isnull=False)
    assert lobos.count() == 2


def test_voiding_the_join_from_recent_events_leaves_the_pnj(dj_client, campaign, aiko):
    """Anular (one event, with a reason) is not Deshacer: the PNJ stay, out of the order."""
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])
    dj_client.post(url("pnj_add"), {"name": "Oni", "fight": "1", "key": "k1"}, headers=HX)
    join = selectors.latest_event(campaign=campaign)
    form = {"seq": str(join.seq), "reason": "error"}
    assert dj_client.post(url("void"), form, headers=HX).status_code == 200
    assert [c.name for c in selectors.board_pnj(campaign=campaign)] == ["Oni"]
    assert len(selectors.fight_now(campaign=campaign).order) == 1


def test_after_a_big_add_is_undone_deshacer_still_reaches_the_tap_before(dj_client, campaign, aiko):
    """Twenty PNJ made and taken back fill the recent events with their making: the undo
    button looks further back, to the blow before them."""
    blow = {"kind": "suffer", "type": "heridas", "grade": "leve"}
    before = services.event_record(campaign=campaign, character=aiko, event=blow)
    dj_client.post(url("pnj_add"), {"name": "Rata", "count": "20", "key": "k1"}, headers=HX)
    undo(dj_client, campaign)

    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()

    assert f'name="seq" value="{before.seq}"' in board
    assert re.search(rf'title="#{before.seq} Aiko: [^"]*Heridas', board)
