"""The fight's pages through the Django client: the order page (moves write nothing), the
board's fight bar, passing and ending the turn, and what the player's sheet says."""

import re

import pytest
from django.urls import reverse

from campaign import selectors, services
from campaign.models import StateEvent
from campaign.turn_order import Slot

HX = {"HX-Request": "true"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


def setup_url():
    return reverse("fight_setup", args=["kiso"])


def rows(*slots):
    """The order form's rows: (slot, name, init) each."""
    return {
        "slot": [s for s, _n, _i in slots],
        "name": [n for _s, n, _i in slots],
        "init": [i for _s, _n, i in slots],
    }


def test_the_order_page_starts_with_every_pj_in_play(dj_client, campaign, aiko, kenji):
    services.character_archive(character=kenji)

    html = dj_client.get(setup_url()).content.decode()

    assert "Empezar un combate" in html and "La regla de iniciativa de Zodiac no está" in html
    assert f'value="pj:{aiko.pk}"' in html and f'value="pj:{kenji.pk}"' not in html


def test_moves_come_back_as_the_page_and_write_nothing(dj_client, campaign, aiko, kenji):
    form = rows((f"pj:{aiko.pk}", "", "8"), (f"pj:{kenji.pk}", "", "15"))

    added = dj_client.post(
        setup_url(),
        {**form, "step": "add", "new": "npc", "new_name": "  Oni   rojo ", "new_init": "11"},
    )
    html = added.content.decode()
    assert added.status_code == 200 and 'value="Oni rojo"' in html
    sorted_ = dj_client.post(
        setup_url(),
        {
            **rows(
                (f"pj:{aiko.pk}", "", "8"), (f"pj:{kenji.pk}", "", "15"), ("npc:1", "Oni", "11")
            ),
            "step": "sort",
        },
    ).content.decode()
    assert [m for m in re.findall(r'name="slot" value="([^"]+)"', sorted_)] == [
        f"pj:{kenji.pk}",
        "npc:1",
        f"pj:{aiko.pk}",
    ]
    moved = dj_client.post(setup_url(), {**form, "step": "up:1"}).content.decode()
    assert re.findall(r'name="slot" value="([^"]+)"', moved) == [f"pj:{kenji.pk}", f"pj:{aiko.pk}"]
    dropped = dj_client.post(setup_url(), {**form, "step": "drop:0"}).content.decode()
    assert re.findall(r'name="slot" value="([^"]+)"', dropped) == [f"pj:{kenji.pk}"]
    assert not StateEvent.objects.filter(event__kind="fight").exists()


INIT_ERROR = "La iniciativa: un número entero de -99 a 999, o en blanco."


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"init": ["doce", ""]}, INIT_ERROR),
        ({"init": ["1000", ""]}, INIT_ERROR),
    ],
)
def test_a_bad_initiative_is_refused_by_its_line(dj_client, campaign, aiko, kenji, form, error):
    data = {**rows((f"pj:{aiko.pk}", "", ""), (f"pj:{kenji.pk}", "", "")), **form}

    response = dj_client.post(setup_url(), data)

    assert response.status_code == 422
    assert re.search(
        rf'id="fight-row-0-error" role="alert">{re.escape(error)}<', response.content.decode()
    )
    assert not StateEvent.objects.filter(event__kind="fight").exists()


def test_an_unnamed_other_and_an_empty_order_are_refused(dj_client, campaign, aiko):
    unnamed = dj_client.post(setup_url(), rows(("npc:1", " ", "")))
    empty = dj_client.post(setup_url(), {})
    added = dj_client.post(
        setup_url(), {"step": "add", "new": "npc", "new_name": "", "new_init": "5"}
    )

    assert unnamed.status_code == 422 and "Ponle nombre." in unnamed.content.decode()
    assert (
        empty.status_code == 422 and "Pon primero a alguien en el orden." in empty.content.decode()
    )
    assert added.status_code == 422 and "Pon nombre a quien entra" in added.content.decode()
    assert not StateEvent.objects.filter(event__kind="fight").exists()


def test_starting_the_fight_puts_its_bar_on_the_board(dj_client, campaign, aiko, kenji):
    form = rows((f"pj:{kenji.pk}", "", "15"), ("npc:1", "Oni", "11"), (f"pj:{aiko.pk}", "", ""))

    response = dj_client.post(setup_url(), form, follow=True)

    html = response.content.decode()
    assert response.redirect_chain[-1][0] == reverse("board", args=["kiso"])
    assert "Empieza el combate: turno de Kenji." in html
    assert "Combate · ronda 1" in html and "Turno de Kenji" in html and "después, Oni" in html
    assert re.search(rf'class="pj-card[^"]*is-turn"[^>]*id="pj-{kenji.pk}"', html)
    assert "Fin de turno → Oni" in html


def test_a_fight_started_with_no_session_open_may_open_the_next(dj_client, campaign, aiko):
    services.session_end(session=services.session_start(campaign=campaign))

    page = dj_client.get(setup_url()).content.decode()

    assert "No hay ninguna sesión abierta" in page
    assert re.search(r'name="open_session" value="1" checked> Empezar también la sesión 2', page)
    form = {**rows((f"pj:{aiko.pk}", "", "")), "mode": "start", "open_session": "1"}
    response = dj_client.post(setup_url(), form, follow=True)
    assert "La sesión 2 está abierta: el combate es parte de ella." in response.content.decode()
    start = StateEvent.objects.get(event__kind="fight", event__do="start")
    assert start.session.number == 2 and start.session.ended_at is None


def test_a_fight_started_with_the_box_unticked_opens_no_session(dj_client, campaign, aiko):
    form = {**rows((f"pj:{aiko.pk}", "", "")), "mode": "start"}  # an unticked box posts nothing

    dj_client.post(setup_url(), form)

    assert StateEvent.objects.get(event__kind="fight", event__do="start").session is None
    assert selectors.open_session(campaign=campaign) is None
    services.session_start(campaign=campaign)
    services.fight_end(campaign=campaign)
    assert "No hay ninguna sesión abierta" not in dj_client.get(setup_url()).content.decode()


def test_passing_the_turn_from_the_board_and_a_stale_tap(dj_client, campaign, aiko, kenji):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(npc=1, name="Oni")])
    url = reverse("fight_pass", args=["kiso"])

    done = dj_client.post(url, {"turn": "1:0", "key": "a"}, headers=HX)
    stale = dj_client.post(url, {"turn": "1:0", "key": "b"}, headers=HX)

    assert done.status_code == 200 and "Turno de Oni" in done.content.decode()
    assert stale.status_code == 409 and stale["HX-Retarget"] == "#fight-error"
    assert "El turno ya ha pasado" in stale.content.decode()
    assert selectors.fight_now(campaign=campaign).current == 1
    # The tab that came too late gets the turn as it is now beside the reason.
    fresh = re.search(
        r'<div class="fight" id="fight" hx-swap-oob="true">.*', stale.content.decode(), re.S
    )
    assert fresh and "Turno de Oni" in fresh.group(0)
    # And the turn bar of a phone's width, with it.
    bar = re.search(
        r'<div class="turnbar" id="turnbar" hx-swap-oob="true">(.*?)</div>\s*$',
        stale.content.decode(),
        re.S,
    )
    assert bar and "Turno de Oni" in bar.group(1) and 'value="1:1"' in bar.group(1)


def test_ending_the_fight_and_the_board_offers_a_new_one(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])

    response = dj_client.post(reverse("fight_end", args=["kiso"]), {"turn": "1:0"}, headers=HX)

    assert response.status_code == 200
    assert selectors.fight_now(campaign=campaign) is None
    assert "Empezar combate" in dj_client.get(reverse("board", args=["kiso"])).content.decode()


def test_the_players_sheet_says_whose_turn_and_when_theirs_comes(
    client, campaign, joined, player, kenji
):
    services.fight_start(
        campaign=campaign,
        order=[Slot(pj=kenji.pk), Slot(npc=1, name="Oni"), Slot(pj=joined.pk)],
    )
    client.force_login(player)
    sheet = reverse("sheet", args=["kiso", joined.pk])

    page = client.get(sheet).content.decode()
    assert "Turno de Kenji · te toca después del turno de Oni · faltan 2 turnos" in page
    services.fight_pass(campaign=campaign)
    page = client.get(sheet).content.decode()
    assert "Turno de Oni · <strong>te toca a continuación</strong>" in page
    services.fight_pass(campaign=campaign)
    assert "<strong>Tu turno</strong>" in client.get(sheet).content.decode()


def test_the_turns_to_go_count_round_the_end_of_the_round(client, campaign, joined, player, kenji):
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=kenji.pk),
            Slot(pj=joined.pk),
            Slot(npc=1, name="Oni"),
            Slot(npc=2, name="Ko"),
        ],
    )
    services.fight_pass(campaign=campaign)  # Kenji's turn ends
    services.fight_pass(campaign=campaign)  # the player's: now the Oni's, the Ko's, Kenji's
    client.force_login(player)

    page = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()

    assert "te toca después del turno de Kenji · faltan 3 turnos" in page


def test_a_bad_initiative_is_refused_when_added_and_marked_when_sorting(dj_client, campaign, aiko):
    added = dj_client.post(
        setup_url(),
        {
            **rows((f"pj:{aiko.pk}", "", "")),
            "step": "add",
            "new": "npc",
            "new_name": "Oni",
            "new_init": "1e3",
        },
    )
    sorted_ = dj_client.post(setup_url(), {**rows((f"pj:{aiko.pk}", "", "abc")), "step": "sort"})

    page = added.content.decode()
    assert added.status_code == 422
    assert f'id="fight-add-error" role="alert">{INIT_ERROR}<' in page
    # Nothing joined the order, and the form keeps what was typed.
    assert 'name="slot" value="new:' not in page
    assert re.search(r'name="new_name" id="fight-add-name" value="Oni"', page)
    assert re.search(r'name="new_init" id="fight-add-init" value="1e3"', page)
    html = sorted_.content.decode()
    assert sorted_.status_code == 422
    assert re.search(rf'id="fight-row-0-error" role="alert">{INIT_ERROR}<', html)


def test_no_next_round_button_during_a_fight(dj_client, campaign, aiko):
    board = reverse("board", args=["kiso"])
    assert 'data-shortcut="n"' in dj_client.get(board).content.decode()

    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])

    html = dj_client.get(board).content.decode()
    assert 'data-shortcut="n"' not in html and 'data-shortcut="p"' in html


def test_a_fight_steps_page_says_it_changes_no_pj(dj_client, campaign, aiko):
    start = services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])

    html = dj_client.get(reverse("event_detail", args=["kiso", start.seq])).content.decode()

    assert "no cambia el estado de ningún PJ" in html and "Orden: Aiko" in html


def test_the_order_page_says_whose_turn_and_the_change_says_who_has_it(
    dj_client, campaign, aiko, kenji
):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])

    page = dj_client.get(setup_url()).content.decode()
    done = dj_client.post(
        setup_url(), {**rows((f"pj:{kenji.pk}", "", "")), "turn": "1:0"}, follow=True
    )

    assert "Ahora: turno de Aiko." in page
    assert "El orden de turnos ha cambiado: turno de Kenji." in done.content.decode()


def test_taking_out_the_last_one_to_act_says_the_round_begins(dj_client, campaign, aiko, kenji):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    services.fight_pass(campaign=campaign)  # Kenji's turn, the round's last

    done = dj_client.post(
        setup_url(), {**rows((f"pj:{aiko.pk}", "", "")), "turn": "1:1"}, follow=True
    )

    assert (
        "No quedaba en él nadie por actuar en esta ronda, así que empieza la ronda 2: "
        "turno de Aiko." in done.content.decode()
    )
    on = selectors.fight_now(campaign=campaign)
    assert (on.round, on.current_slot.pj) == (2, aiko.pk)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("next_round", {}),
        ("party_time", {"amount": "1", "unit": "minutes", "activity": "activo"}),
        ("party_descanso", {}),
    ],
)
def test_the_partys_time_waits_for_the_fight_to_end(dj_client, campaign, aiko, name, data):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(npc=1, name="Oni")])
    count = StateEvent.objects.count()

    refused = dj_client.post(reverse(name, args=["kiso"]), data, headers=HX)

    assert refused.status_code in (409, 422)
    assert (
        "Hay un combate en marcha: su ronda pasa con el último turno." in refused.content.decode()
    )
    assert StateEvent.objects.count() == count
    assert selectors.fight_now(campaign=campaign).current == 0


def test_a_pass_toast_says_whose_turn_ended_and_whose_it_is_with_the_rules(
    dj_client, campaign, aiko
):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(npc=1, name="Oni")])

    html = dj_client.post(
        reverse("fight_pass", args=["kiso"]), {"turn": "1:0"}, headers=HX
    ).content.decode()

    toast = html.split('id="toasts"')[1]
    assert "Aiko pierde el turno → Turno de Oni" in toast
    assert "Desmarca Shock Leve" in toast  # R13: the turn its Shock leve took


def test_deshacer_stops_at_an_ended_session(dj_client, campaign, aiko):
    session = services.session_start(campaign=campaign)
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    services.session_end(session=session)

    board = dj_client.get(reverse("board", args=["kiso"])).content.decode()
    refused = dj_client.post(reverse("undo", args=["kiso"]), headers=HX)

    assert (
        'data-shortcut="u" disabled title="El último evento es de una sesión ya terminada' in board
    )
    assert refused.status_code == 409
    assert "El último evento es de la sesión 1, que ya terminó" in refused.content.decode()
    assert not StateEvent.objects.filter(void_at__isnull=False).exists()


def test_a_save_refused_as_stale_shows_the_turn_now_and_the_next_save_goes(
    dj_client, campaign, aiko, kenji
):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    seen = dj_client.get(setup_url()).content.decode()
    assert 'name="turn" value="1:0"' in seen
    services.fight_pass(campaign=campaign)  # another tab passes Aiko's turn
    form = {**rows((f"pj:{kenji.pk}", "", ""), (f"pj:{aiko.pk}", "", "")), "mode": "order"}

    refused = dj_client.post(setup_url(), {**form, "turn": "1:0"})
    html = refused.content.decode()
    assert refused.status_code == 409 and "No se ha guardado nada" in html
    assert 'name="turn" value="1:1"' in html and "Ahora: turno de Kenji." in html
    again = dj_client.post(setup_url(), {**form, "turn": "1:1"})

    assert again.status_code == 302
    assert [s.pj for s in selectors.fight_now(campaign=campaign).order] == [kenji.pk, aiko.pk]


def test_a_start_page_whose_fight_another_tab_started_records_nothing(
    dj_client, campaign, aiko, kenji
):
    services.fight_start(campaign=campaign, order=[Slot(npc=1, name="Oni"), Slot(pj=aiko.pk)])
    count = StateEvent.objects.count()
    form = {**rows(("npc:1", "Lobo", ""), (f"pj:{kenji.pk}", "", "")), "mode": "start"}

    refused = dj_client.post(setup_url(), form)

    html = refused.content.decode()
    assert refused.status_code == 409 and "Mientras tanto se empezó un combate" in html
    assert 'value="Oni"' in html and 'value="Lobo"' not in html  # the fight's own order
    assert StateEvent.objects.count() == count


def test_a_name_typed_becomes_a_pnj_when_the_order_is_saved(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(npc=1, name="Oni"), Slot(pj=aiko.pk)])
    form = {**rows(("npc:1", "Oni", ""), (f"pj:{aiko.pk}", "", "")), "mode": "order"}

    html = dj_client.post(
        setup_url(), {**form, "turn": "1:0", "step": "add", "new": "npc", "new_name": "Lobo"}
    ).content.decode()
    assert 'name="slot" value="new:1:0:enemigo"' in html and 'value="Lobo"' in html
    assert not campaign.characters.filter(name="Lobo").exists()  # a move writes nothing

    saved = dj_client.post(
        setup_url(),
        {
            **rows(("npc:1", "Oni", ""), (f"pj:{aiko.pk}", "", ""), ("new:1:0", "Lobo", "4")),
            "mode": "order",
            "turn": "1:0",
        },
    )
    assert saved.status_code == 302
    lobo = campaign.characters.get(name="Lobo")
    assert lobo.is_pnj and lobo.side == "enemigo"
    order = selectors.fight_now(campaign=campaign).order
    assert [s.npc for s in order] == [1, None, None]  # the old name-only slot reads as before
    assert order[2].pj == lobo.pk and order[2].init == 4


def test_copies_of_a_template_join_the_order_numbered(dj_client, campaign, aiko):
    services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    form = rows((f"pj:{aiko.pk}", "", ""))

    html = dj_client.post(
        setup_url(),
        {**form, "step": "add", "new": "npc", "new_name": "bandido", "new_count": "3"},
    ).content.decode()
    for n in (1, 2, 3):
        assert f'value="Bandido {n}"' in html

    template = campaign.templates.get()
    started = dj_client.post(
        setup_url(),
        {
            **rows(
                (f"pj:{aiko.pk}", "", ""),
                *((f"new:{n}:{template.pk}", f"Bandido {n}", "") for n in (1, 2, 3)),
            ),
            "mode": "start",
        },
    )
    assert started.status_code == 302
    made = list(campaign.characters.filter(template=template).order_by("name"))
    assert [c.name for c in made] == ["Bandido 1", "Bandido 2", "Bandido 3"]
    assert [s.pj for s in selectors.fight_now(campaign=campaign).order[1:]] == [c.pk for c in made]


def test_one_turn_for_all_adds_copies_as_one_line_that_shares_a_turn(dj_client, campaign, aiko):
    """Found playing it: ×N on the order page made a line each; the board could group them."""
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    services.pnj_create(campaign=campaign, template=template)  # Bandido, already in play
    add = {"step": "add", "new": "npc", "new_name": "bandido", "new_count": "3"}
    form = rows((f"pj:{aiko.pk}", "", "12"))

    html = dj_client.post(
        setup_url(), {**form, **add, "new_init": "9", "new_together": "1"}
    ).content.decode()

    slot = f"new:1:{template.pk}:enemigo:2:3"
    assert re.findall(r'name="slot" value="([^"]+)"', html) == [f"pj:{aiko.pk}", slot]
    assert "Bandido 2, Bandido 3, Bandido 4" in html and "grupo nuevo, un turno" in html
    assert not campaign.characters.filter(name="Bandido 2").exists()  # a move writes nothing

    started = dj_client.post(
        setup_url(), {**rows((f"pj:{aiko.pk}", "", "12"), (slot, "Bandido", "9")), "mode": "start"}
    )

    assert started.status_code == 302
    group = selectors.fight_now(campaign=campaign).order[1]
    made = [campaign.characters.get(pk=pk) for pk in group.members]
    assert [c.name for c in made] == ["Bandido 2", "Bandido 3", "Bandido 4"]
    assert group.init == 9 and all(c.template == template for c in made)


def test_a_new_pnj_of_the_order_page_may_be_an_ally(dj_client, campaign, aiko):
    add = {"step": "add", "new": "npc", "new_name": "Guía", "new_side": "aliado"}
    html = dj_client.post(setup_url(), {**rows((f"pj:{aiko.pk}", "", "")), **add}).content.decode()
    assert 'name="slot" value="new:1:0:aliado"' in html

    form = rows((f"pj:{aiko.pk}", "", ""), ("new:1:0:aliado", "Guía", ""))
    assert dj_client.post(setup_url(), {**form, "mode": "start"}).status_code == 302
    assert campaign.characters.get(name="Guía").side == "aliado"


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("new_name", "", "Pon nombre a quien entra en el orden (un enemigo, un aliado…)."),
        ("new_count", "50", "Cuántos: de 1 a 20."),
        ("new_init", "abc", INIT_ERROR),
        ("new_side", "neutral", "Elige enemigo o aliado."),
    ],
)
def test_a_refused_add_keeps_what_was_typed_and_says_why_by_its_field(
    dj_client, campaign, aiko, field, value, error
):
    typed = {"new_name": "Oni", "new_count": "2", "new_init": "7", "new_side": "aliado"}
    typed["new_together"] = "1"
    typed[field] = value
    data = {**rows((f"pj:{aiko.pk}", "", "")), "step": "add", "new": "npc", **typed}

    answer = dj_client.post(setup_url(), data)

    html = answer.content.decode()
    assert answer.status_code == 422
    assert re.findall(r'name="slot" value="([^"]+)"', html) == [f"pj:{aiko.pk}"]
    # The error under its own field, which says so to assistive technology.
    ids = {"new_name": "name", "new_count": "count", "new_init": "init", "new_side": "side"}
    assert re.search(
        rf'id="fight-add-{ids[field]}"[^>]*aria-invalid="true" aria-describedby="fight-add-error"',
        html,
    )
    assert f'<p class="control-error" id="fight-add-error" role="alert">{error}</p>' in html
    # Everything else typed is there still.
    for name, kept in typed.items():
        if name in (field, "new_side", "new_together"):
            continue
        assert re.search(rf'name="{name}" id="[^"]+"[^>]* value="{kept}"', html), name
    if field != "new_side":
        assert '<option value="aliado" selected>' in html
    assert re.search(r'name="new_together" value="1" checked', html)


def test_the_add_form_is_empty_again_once_its_pnj_joined(dj_client, campaign, aiko):
    data = {**rows((f"pj:{aiko.pk}", "", "")), "step": "add", "new": "npc"}
    html = dj_client.post(
        setup_url(), {**data, "new_name": "Oni", "new_init": "7", "new_count": "2"}
    ).content.decode()
    assert 'value="Oni 1"' in html and 'value="Oni 2"' in html
    assert re.search(r'name="new_name" id="fight-add-name" value=""', html)
    assert re.search(r'name="new_count" id="fight-add-count" min="1" max="20" value="1"', html)


def test_a_group_keeps_its_one_slot_through_the_page(dj_client, campaign, aiko):
    made = services.pnj_create(campaign=campaign, name="Oni", count=2)
    group = "pj:" + "+".join(str(c.pk) for c in made)
    services.fight_start(
        campaign=campaign,
        order=[Slot(pj=aiko.pk), Slot(pj=made[0].pk, also=(made[1].pk,))],
    )
    html = dj_client.get(setup_url()).content.decode()
    assert f'name="slot" value="{group}"' in html and "Oni 1, Oni 2" in html

    saved = dj_client.post(
        setup_url(),
        {**rows((group, "", "9"), (f"pj:{aiko.pk}", "", "")), "mode": "order", "turn": "1:0"},
    )
    assert saved.status_code == 302
    assert selectors.fight_now(campaign=campaign).order[0].members == tuple(c.pk for c in made)


def test_the_hint_on_groups_shows_only_with_a_button_it_names(dj_client, campaign, aiko, kenji):
    hint = "«Con el de arriba» pone una"
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    assert hint not in dj_client.get(setup_url()).content.decode()  # PJ only: no button

    services.fight_end(campaign=campaign)
    made = services.pnj_create(campaign=campaign, name="Oni", count=2)
    services.fight_start(
        campaign=campaign,
        order=[Slot(pj=aiko.pk), Slot(pj=made[0].pk, also=(made[1].pk,))],
    )
    html = dj_client.get(setup_url()).content.decode()
    assert hint in html and "Un turno cada uno" in html  # the group's own button


def test_moving_one_still_to_act_before_the_turn_says_they_wait_a_round(
    dj_client, campaign, aiko, kenji
):
    services.fight_start(
        campaign=campaign, order=[Slot(pj=aiko.pk), Slot(npc=1, name="Oni"), Slot(pj=kenji.pk)]
    )
    services.fight_pass(campaign=campaign)  # the Oni's turn; Kenji still to act
    form = rows((f"pj:{kenji.pk}", "", ""), (f"pj:{aiko.pk}", "", ""), ("npc:1", "Oni", ""))

    done = dj_client.post(setup_url(), {**form, "mode": "order", "turn": "1:1"}, follow=True)

    assert "Kenji aún no había actuado y ahora va antes del turno actual" in done.content.decode()


# -- rules v2.2: the order page's "no se esfuerza" (R27) -------------------------------------


@pytest.fixture
def effort(campaign):
    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    return campaign


def calm_boxes(html: str) -> dict[str, bool]:
    """Each "no se esfuerza" box of the page: its line's slot, and whether it is ticked."""
    return {
        m.group(1): bool(m.group(2))
        for m in re.finditer(r'name="calm" value="([^"]+)"( checked)?', html)
    }


def test_not_exerting_itself_is_offered_only_with_prolonged_effort(dj_client, campaign, aiko):
    html = dj_client.get(setup_url()).content.decode()
    assert calm_boxes(html) == {} and "no se esfuerza" not in html
    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    html = dj_client.get(setup_url()).content.decode()
    assert calm_boxes(html) == {f"pj:{aiko.pk}": False}
    assert "Aiko: </span>no se esfuerza" in html and "Esfuerzo prolongado activado" in html


def test_a_line_marked_not_exerting_itself_is_kept_by_moves_and_saved(
    dj_client, effort, aiko, kenji
):
    form = rows((f"pj:{aiko.pk}", "", "8"), (f"pj:{kenji.pk}", "", "15"))
    moved = dj_client.post(setup_url(), {**form, "calm": [f"pj:{kenji.pk}"], "step": "sort"})
    assert calm_boxes(moved.content.decode()) == {f"pj:{kenji.pk}": True, f"pj:{aiko.pk}": False}

    dj_client.post(setup_url(), {**form, "calm": [f"pj:{kenji.pk}"], "mode": "start"})

    order = StateEvent.objects.get(event__kind="fight").event["order"]
    assert order == [
        {"pj": aiko.pk, "init": 8},
        {"pj": kenji.pk, "init": 15, "esfuerzo": False},
    ]
    # The page of the fight going on shows it ticked, and an untick is saved too.
    html = dj_client.get(setup_url()).content.decode()
    assert calm_boxes(html) == {f"pj:{aiko.pk}": False, f"pj:{kenji.pk}": True}
    token = selectors.fight_now(campaign=effort).token
    dj_client.post(setup_url(), {**form, "mode": "order", "turn": token})
    assert all(s.esfuerzo for s in selectors.fight_now(campaign=effort).order)


def test_new_pnj_of_the_order_page_can_be_marked_and_keep_it(dj_client, effort, aiko):
    added = dj_client.post(
        setup_url(),
        {**rows((f"pj:{aiko.pk}", "", "")), "step": "add", "new": "npc", "new_name": "Arquero"},
    ).content.decode()
    slot = next(s for s in calm_boxes(added) if s.startswith("new:"))
    assert "(sin FUE: su esfuerzo no se cuenta)" in added  # a name alone has no scores

    dj_client.post(
        setup_url(),
        {**rows((f"pj:{aiko.pk}", "", ""), (slot, "Arquero", "")), "calm": [slot], "mode": "start"},
    )

    archer = effort.characters.get(name="Arquero")
    assert selectors.fight_now(campaign=effort).order[1] == Slot(pj=archer.pk, esfuerzo=False)


def test_fuera_de_combate_of_one_of_a_group_keeps_the_groups_mark(dj_client, effort, aiko, dj):
    bandits = services.pnj_create(
        campaign=effort, name="Bandido", attributes={"FUE": 2}, count=2, actor=dj
    )
    services.fight_start(
        campaign=effort,
        order=[Slot(pj=aiko.pk), Slot(pj=bandits[0].pk, also=(bandits[1].pk,), esfuerzo=False)],
    )
    services.fight_out(campaign=effort, character=bandits[0], why="huye")
    assert selectors.fight_now(campaign=effort).order[1] == Slot(pj=bandits[1].pk, esfuerzo=False)


def test_every_way_of_recording_a_blow_in_its_own_turn_says_so(dj_client, campaign, aiko, kenji):
    """R13 (v2.2): a box's tap, a chooser's second tap (an Emoción's variant) and the
    form without JavaScript, all during Aiko's turn; a blow on Kenji is not his turn."""
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    url = reverse("act", args=["kiso", aiko.pk])
    blows = [
        ({"action": "suffer", "type": "shock", "grade": "leve"}, HX),
        ({"action": "suffer", "type": "emocion", "grade": "leve", "variant": "miedo"}, HX),
        ({"action": "suffer", "type": "heridas", "grade": "leve"}, {}),  # no JavaScript
    ]
    for data, headers in blows:
        response = dj_client.post(url, data, headers=headers)
        assert response.status_code in (200, 302)
        assert StateEvent.objects.order_by("-seq").first().event["own_turn"] is True
    dj_client.post(
        reverse("act", args=["kiso", kenji.pk]),
        {"action": "suffer", "type": "shock", "grade": "leve"},
        headers=HX,
    )
    assert "own_turn" not in StateEvent.objects.order_by("-seq").first().event
    # Aiko's Fin de turno leaves her Shock leve; the toast says why.
    token = selectors.fight_now(campaign=campaign).token
    passed = dj_client.post(reverse("fight_pass", args=["kiso"]), {"turn": token}, headers=HX)
    assert "se marcó en este mismo Turno" in passed.content.decode()
    assert "Aiko pierde el turno" not in passed.content.decode()
    aiko.snapshot.refresh_from_db()
    assert aiko.snapshot.state["marks"]["shock"] == ["leve"]


def version_of(html: str) -> str:
    return re.search(r'name="fight" value="([^"]*)"', html).group(1)


def slots_of(html: str) -> list[str]:
    return re.findall(r'name="slot" value="([^"]+)"', html)


def test_a_save_from_a_page_that_saw_another_fight_writes_nothing(dj_client, campaign, aiko, kenji):
    """The playtest's stale tab: the turn is still Aiko's, but three Bandidos joined from
    the board; its save would have dropped them."""
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    page = dj_client.get(setup_url()).content.decode()
    services.pnj_create(
        campaign=campaign, name="Bandido", count=3, join={"init": 10, "together": True}
    )
    count = StateEvent.objects.count()
    form = {**rows((f"pj:{kenji.pk}", "", "15"), (f"pj:{aiko.pk}", "", "")), "mode": "order"}

    refused = dj_client.post(setup_url(), {**form, "turn": "1:0", "fight": version_of(page)})

    html = refused.content.decode()
    assert refused.status_code == 409 and StateEvent.objects.count() == count
    assert (
        "No se ha guardado nada: el combate ha cambiado mientras tanto (¿en otra pestaña?): "
        "Bandido 1, Bandido 2, Bandido 3 han entrado en el orden." in html
    )
    assert "El orden que tenía esta página, sin guardar: Kenji (iniciativa 15) → Aiko." in html
    bandidos = "+".join(str(c.pk) for c in campaign.characters.filter(name__startswith="Band"))
    assert slots_of(html) == [f"pj:{aiko.pk}", f"pj:{kenji.pk}", f"pj:{bandidos}"]
    fight = selectors.fight_now(campaign=campaign)
    assert version_of(html) == fight.version != version_of(page)


def test_after_a_refused_save_the_one_taken_out_stays_out(dj_client, campaign, aiko, kenji):
    """The playtest: Bandido 3 taken out and the turn passed from the board; the order tab's
    save refused, then pressed again, put him back with his turn."""
    bandidos = services.pnj_create(campaign=campaign, name="Bandido", count=3)
    group = Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk))
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), group, Slot(pj=kenji.pk)])
    page = dj_client.get(setup_url()).content.decode()
    services.fight_out(campaign=campaign, character=bandidos[2], why="inconsciente")
    services.fight_pass(campaign=campaign)
    stale = {
        "slot": slots_of(page),
        "name": ["", "", ""],
        "init": ["", "", ""],
        "mode": "order",
        "turn": "1:0",
        "fight": version_of(page),
    }

    refused = dj_client.post(setup_url(), stale)

    html = refused.content.decode()
    assert refused.status_code == 409
    assert "Bandido 3 ha salido del combate (inconsciente)" in html
    fresh = slots_of(html)
    assert fresh == [f"pj:{aiko.pk}", f"pj:{bandidos[0].pk}+{bandidos[1].pk}", f"pj:{kenji.pk}"]
    # Bandido 3 is offered to add again, saying why he is out; only that choice brings him.
    offered = f'<option value="pj:{bandidos[2].pk}">Bandido 3 (PNJ, fuera de combate: inconsciente)'
    assert offered in html
    again = dj_client.post(
        setup_url(),
        {**stale, "slot": fresh, "turn": "1:1", "fight": version_of(html)},
    )
    assert again.status_code == 302
    fight = selectors.fight_now(campaign=campaign)
    assert bandidos[2].pk not in fight.fighting and fight.out == {bandidos[2].pk: "inconsciente"}


def test_a_save_from_an_order_page_whose_fight_ended_starts_nothing(dj_client, campaign, aiko):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk)])
    page = dj_client.get(setup_url()).content.decode()
    services.fight_end(campaign=campaign)
    form = {**rows((f"pj:{aiko.pk}", "", "")), "mode": "order", "turn": "1:0"}

    refused = dj_client.post(setup_url(), {**form, "fight": version_of(page)})

    assert refused.status_code == 409
    assert "el combate terminó mientras tanto" in refused.content.decode()
    assert selectors.fight_now(campaign=campaign) is None


@pytest.mark.parametrize(("kept", "words"), [("0", "Actualizado"), ("1", "desde que se abrió")])
def test_the_page_asked_with_the_fight_it_saw_says_what_changed(
    dj_client, campaign, aiko, kenji, kept, words
):
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), Slot(pj=kenji.pk)])
    seen = version_of(dj_client.get(setup_url()).content.decode())
    unchanged = dj_client.get(setup_url(), {"visto": seen, "cambios": kept}).content.decode()
    services.fight_pass(campaign=campaign)

    html = dj_client.get(setup_url(), {"visto": seen, "cambios": kept}).content.decode()

    notice = re.search(r'<div id="fight-changed".*?</div>', html, re.S).group(0)
    assert words in notice and "ronda 1, turno de Kenji" in notice
    assert ("si lo guardas, se rechaza" in notice) == (kept == "1")
    assert "<p>" not in re.search(r'<div id="fight-changed".*?</div>', unchanged, re.S).group(0)


def test_the_next_fights_page_keeps_the_last_ones_groups_without_those_it_took_out(
    dj_client, campaign, aiko, kenji
):
    """The playtest: PNJ kept from a fight came back to the next one's page one a line,
    the group's turn lost, and one taken out of it was in the order again."""
    bandidos = services.pnj_create(campaign=campaign, name="Bandido", count=3)
    arquero = services.pnj_create(campaign=campaign, name="Arquero")[0]
    group = Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk))
    services.fight_start(campaign=campaign, order=[Slot(pj=aiko.pk), group, Slot(pj=arquero.pk)])
    services.fight_out(campaign=campaign, character=bandidos[1], why="huye")
    services.fight_out(campaign=campaign, character=arquero, why="inconsciente")
    services.fight_end(campaign=campaign)

    html = dj_client.get(setup_url()).content.decode()

    pair = f"pj:{bandidos[0].pk}+{bandidos[2].pk}"
    assert slots_of(html) == [f"pj:{aiko.pk}", f"pj:{kenji.pk}", pair]
    assert "Arquero (PNJ, fuera del último combate: inconsciente)" in html
    assert "Bandido 2 (PNJ, fuera del último combate: huye)" in html


def test_a_player_who_cannot_act_reads_that_the_turn_coming_is_lost(
    client, campaign, joined, player, kenji
):
    """Found playing: a Shock leve taken in Hana's own turn costs her next one, and her
    phone said only "vas primero en la siguiente ronda", the very turn she loses."""
    services.fight_start(campaign=campaign, order=[Slot(pj=joined.pk), Slot(pj=kenji.pk)])
    services.event_record(
        campaign=campaign,
        character=joined,
        event={"kind": "suffer", "type": "shock", "grade": "leve", "own_turn": True},
    )
    services.fight_pass(campaign=campaign)
    client.force_login(player)

    page = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()

    line = re.search(r"<p class=\"sheet-turn[^\"]*\">(.*?)</p>", page, re.S).group(1)
    assert "te toca a continuación</strong> · <strong>no puedes actuar: pierdes ese turno" in line
    services.event_record(campaign=campaign, event={"kind": "time", "minutes": 10})
    page = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()
    assert "pierdes ese turno" not in page
