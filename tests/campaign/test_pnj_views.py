"""The DJ's PNJ page (campaign.views.pnj): Plantillas made, edited, copied and deleted; PNJ
made by name, set up (side, party, what players see), archived and restored; never a PJ
through a PNJ's address, nor a PNJ through a PJ's."""

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaign import services
from campaign.models import Character, Membership, StateEvent, Template
from tests.factories import CampaignFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


@pytest.fixture
def bandido(campaign):
    return services.template_save(
        campaign=campaign,
        name="Bandido",
        attributes={"FUE": 3, "VOL": 2, "PER": 4},
        powers=["regeneracion", "Sigilo"],
        notes="Cuchillo largo.",
    )


@pytest.fixture
def oni(campaign, dj):
    return services.pnj_create(campaign=campaign, name="Oni", attributes={"FUE": 6}, actor=dj)[0]


def html(response) -> str:
    return response.content.decode()


def flashed(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def url(name: str, *args) -> str:
    return reverse(name, args=["kiso", *args])


def template_data(**overrides) -> dict:
    data = {
        "name": "Ronin",
        "side": "enemigo",
        "FUE": "4",
        "AGI": "",
        "DES": "3",
        "INT": "",
        "VOL": "2",
        "other_scores": "PER 3",
        "other_powers": "Vuelo",
        "notes": "Sin señor.",
    }
    return {**data, **overrides}


def pnj_data(character: Character, **overrides) -> dict:
    data = {
        "name": character.name,
        "side": character.side,
        "shows": character.shows,
        "FUE": "5",
        "notes": character.notes,
    }
    return {**data, **overrides}


def rows() -> tuple:
    """Everything a refused form must leave alone."""
    return (
        list(Character.objects.order_by("pk").values_list()),
        list(Template.objects.order_by("pk").values_list()),
        StateEvent.objects.count(),
    )


# -- the page ------------------------------------------------------------------------------


def test_the_nav_links_the_pnj_page_after_the_pj_one(dj_client, campaign):
    page = html(dj_client.get(url("pnj_list")))

    nav = page[page.index('class="campaign-nav"') :]
    pj, pnj = nav.index(f'href="{url("character_list")}"'), nav.index(f'href="{url("pnj_list")}"')
    assert pj < pnj < nav.index(f'href="{url("players")}"')
    assert f'href="{url("pnj_list")}" aria-current="page">PNJ</a>' in page


def test_the_page_lists_templates_then_enemies_allies_and_the_archived(
    dj_client, campaign, bandido, oni, dj
):
    services.pnj_create(campaign=campaign, template=bandido, count=2, actor=dj)
    ally = services.pnj_create(campaign=campaign, name="Monje", side="aliado", actor=dj)[0]
    services.pnj_settings_set(character=ally, in_party=True, revealed=True, shows="ficha")
    gone = services.pnj_create(campaign=campaign, name="Espía", actor=dj)[0]
    services.character_archive(character=gone)

    page = html(dj_client.get(url("pnj_list")))

    assert page.index("Plantillas") < page.index("Enemigos") < page.index("Aliados")
    template = page[page.index(f'id="template-{bandido.pk}"') :]
    assert "Enemigo" in template[:400] and "2 copias en juego" in template
    assert template.index("<dt>FUE</dt><dd>3</dd>") < template.index("<dt>PER</dt><dd>4</dd>")
    assert "Regeneración, Sigilo" in template and "Cuchillo largo." in template
    enemies = page[page.index('id="enemies-title"') : page.index('id="allies-title"')]
    assert enemies.index("Bandido 1") < enemies.index("Bandido 2")
    assert "Oni" in enemies and "Copia de Bandido" in enemies and "Sin plantilla" in enemies
    assert "Sin revelar: los jugadores leen «un enemigo»." in enemies
    allies = page[page.index('id="allies-title"') : page.index('id="archived-title"')]
    assert "Monje" in allies and "Viaja con el grupo" in allies
    assert "Revelado: los jugadores ven su ficha entera." in allies
    archived = page[page.index('id="archived-title"') :]
    assert "Espía" in archived and url("pnj_restore", gone.pk) in archived
    assert "Espía" not in enemies


def test_an_empty_page_says_so(dj_client, campaign):
    page = html(dj_client.get(url("pnj_list")))

    assert "Aún no hay plantillas." in page
    assert "No hay enemigos en juego." in page and "No hay aliados en juego." in page
    assert 'id="archived-title"' not in page


def test_the_players_page_and_the_pj_page_list_no_pnj(dj_client, campaign, aiko, oni):
    for name in ("players", "character_list"):
        page = html(dj_client.get(url(name)))
        assert "Aiko" in page and "Oni" not in page, name


# -- Plantillas ----------------------------------------------------------------------------


def test_the_dj_adds_a_template(dj_client, campaign):
    response = dj_client.post(url("template_new"), template_data(side="aliado"))

    assert response.status_code == 302 and response["Location"] == url("pnj_list")
    template = campaign.templates.get()
    assert (template.name, template.side) == ("Ronin", "aliado")
    assert template.attributes == {"FUE": 4, "DES": 3, "VOL": 2, "PER": 3}
    assert template.powers == ["Vuelo"] and template.notes == "Sin señor."
    assert flashed(response) == ["Plantilla Ronin añadida."]


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": "  "}, "name", "Ponle un nombre a la plantilla."),
        ({"name": "x" * 37}, "name", "36"),
        ({"name": "bandido"}, "name", "Ya hay una plantilla llamada bandido."),
        ({"side": "neutral"}, "side", "neutral"),
        ({"side": ""}, "side", "Elige enemigo o aliado."),
        ({"FUE": "11"}, "FUE", "FUE: pon un número entero del 0 al 10"),
        ({"other_scores": "PER"}, "other_scores", "PER"),
        ({"notes": "a\x00b"}, "notes", "nulo"),
    ],
)
def test_a_bad_template_is_shown_again_by_its_field_and_nothing_is_written(
    dj_client, campaign, bandido, overrides, field, message
):
    before = rows()

    response = dj_client.post(url("template_new"), template_data(**overrides))

    page = html(response)
    assert response.status_code == 200
    assert "Hay un problema" in page
    assert f'id="template_{field}_error"' in page
    assert message in page
    assert '<details class="add-entry" open>' in page  # the form in view, as it was typed
    assert rows() == before


def test_the_dj_edits_a_template_and_its_copies_keep_theirs(dj_client, campaign, bandido, dj):
    copy = services.pnj_create(campaign=campaign, template=bandido, actor=dj)[0]
    form = html(dj_client.get(url("template_edit", bandido.pk)))
    assert 'value="Bandido"' in form and 'value="PER 4"' in form and "Sigilo" in form
    assert "¿Borrar la plantilla Bandido? El PNJ hecho con ella se queda como está." in form

    response = dj_client.post(
        url("template_edit", bandido.pk), template_data(name="Bandolero", FUE="5")
    )

    assert response.status_code == 302
    bandido.refresh_from_db()
    assert bandido.name == "Bandolero" and bandido.attributes["FUE"] == 5
    copy.refresh_from_db()
    assert copy.name == "Bandido" and copy.attributes == {"FUE": 3, "VOL": 2, "PER": 4}
    assert flashed(response) == ["Plantilla Bandolero guardada."]


def test_a_bad_template_edit_keeps_the_saved_name_in_the_title(dj_client, campaign, bandido):
    services.template_save(campaign=campaign, name="Ronin")
    before = rows()

    response = dj_client.post(url("template_edit", bandido.pk), template_data(name="RONIN"))

    page = html(response)
    assert response.status_code == 200
    assert "<h1>Editar Bandido</h1>" in page
    assert 'id="id_name_error"' in page and "Ya hay una plantilla llamada RONIN." in page
    assert rows() == before


def test_the_dj_deletes_a_template_and_its_pnj_stay(dj_client, campaign, bandido, dj):
    made = services.pnj_create(campaign=campaign, template=bandido, count=2, actor=dj)

    response = dj_client.post(url("template_delete", bandido.pk))

    assert response.status_code == 302
    assert not campaign.templates.exists()
    assert [c.name for c in campaign.characters.filter(template=None)] == [m.name for m in made]
    assert flashed(response) == ["Plantilla Bandido borrada; los PNJ hechos con ella siguen."]


def test_crear_makes_the_copies_in_one_step_and_names_them(dj_client, campaign, bandido):
    response = dj_client.post(url("template_copies", bandido.pk), {"count": "3", "key": "k1"})

    assert response.status_code == 302 and response["Location"] == url("pnj_list")
    made = list(campaign.characters.filter(kind="pnj").order_by("pk"))
    assert [c.name for c in made] == ["Bandido 1", "Bandido 2", "Bandido 3"]
    assert all(c.template == bandido and c.player is None for c in made)
    assert flashed(response) == ["3 PNJ creados: Bandido 1, Bandido 2, Bandido 3."]
    page = html(dj_client.get(url("pnj_list")))
    assert "3 copias en juego" in page


def test_a_repeated_crear_makes_no_more(dj_client, campaign, bandido):
    for _ in range(2):
        response = dj_client.post(url("template_copies", bandido.pk), {"count": "2", "key": "k"})
        assert response.status_code == 302
        if _ == 0:
            dj_client.get(url("pnj_list"))  # the first one's message read

    assert campaign.characters.filter(kind="pnj").count() == 2
    assert flashed(response) == ["2 PNJ creados: Bandido 1, Bandido 2."]


@pytest.mark.parametrize("count", ["0", "21", "", "tres", "2.5", "-1", "9" * 30])
def test_a_bad_count_is_refused_next_to_its_box(dj_client, campaign, bandido, count):
    before = rows()

    response = dj_client.post(url("template_copies", bandido.pk), {"count": count})

    page = html(response)
    assert response.status_code == 200
    assert f'id="copies_{bandido.pk}_count_error"' in page
    assert "De 1 a 20 de una vez." in page
    # The summary names the Plantilla and leads to its box.
    assert f'href="#copies_{bandido.pk}_count">Copias de Bandido: De 1 a 20' in page
    assert rows() == before


def test_a_template_name_leaves_room_for_its_copies_numbers(campaign):
    longest = "x" * 36
    template = services.template_save(campaign=campaign, name=longest)
    made = services.pnj_create(campaign=campaign, template=template, count=20)
    assert made[-1].name == f"{longest} 20"
    with pytest.raises(ValidationError):
        services.template_save(campaign=campaign, name="y" * 37)


# -- PNJ by name -------------------------------------------------------------------------


def test_the_dj_makes_pnj_by_name_with_a_count_and_a_side(dj_client, campaign):
    data = {"name": "Monje", "count": "2", "side": "aliado", "key": "m"}

    response = dj_client.post(url("pnj_new"), data)

    assert response.status_code == 302
    made = list(campaign.characters.filter(kind="pnj").order_by("pk"))
    assert [(c.name, c.side, c.template) for c in made] == [
        ("Monje 1", "aliado", None),
        ("Monje 2", "aliado", None),
    ]
    assert flashed(response) == ["2 PNJ creados: Monje 1, Monje 2."]


def test_one_pnj_by_name_keeps_its_name(dj_client, campaign):
    response = dj_client.post(url("pnj_new"), {"name": "Jefe", "count": "1", "side": "enemigo"})

    assert flashed(response) == ["PNJ creado: Jefe."]
    assert campaign.characters.get(kind="pnj").name == "Jefe"


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": ""}, "name", "Ponle un nombre al PNJ."),
        ({"name": "x" * 41}, "name", "40"),
        ({"name": "x" * 38, "count": "2"}, "name", "36"),  # no room left for its number
        ({"count": "0"}, "count", "De 1 a 20 de una vez."),
        ({"count": "21"}, "count", "De 1 a 20 de una vez."),
        ({"side": "jefe"}, "side", "jefe"),
    ],
)
def test_a_bad_new_pnj_is_shown_again_by_its_field_and_nothing_is_made(
    dj_client, campaign, overrides, field, message
):
    before = rows()
    data = {"name": "Oni", "count": "1", "side": "enemigo", **overrides}

    response = dj_client.post(url("pnj_new"), data)

    page = html(response)
    assert response.status_code == 200
    assert f'id="new_{field}_error"' in page and message in page
    assert page.count('<details class="add-entry" open>') == 1
    assert rows() == before


# -- a PNJ's own page ----------------------------------------------------------------------


def test_the_edit_page_has_no_player_field_and_starts_from_the_pnj(dj_client, oni):
    page = html(dj_client.get(url("pnj_edit", oni.pk)))

    assert 'name="player"' not in page
    assert 'value="Oni"' in page and 'value="6"' in page
    assert 'name="side" value="enemigo"' in page and "checked" in page
    assert "Viaja con el grupo" in page and "Oculto hasta su primer turno" in page
    assert "Su estado en palabras" in page and "Enemigo" in page


def test_the_dj_sets_what_players_see_and_the_scores_go_to_the_log(dj_client, campaign, oni):
    data = pnj_data(
        oni, name="Oni rojo", side="aliado", in_party="on", revealed="on", shows="ficha"
    )
    data["lurking"] = "on"

    response = dj_client.post(url("pnj_edit", oni.pk), data)

    assert response.status_code == 302 and response["Location"] == reverse("board", args=["kiso"])
    oni.refresh_from_db()
    assert (oni.name, oni.side, oni.in_party, oni.revealed, oni.lurking, oni.shows) == (
        "Oni rojo",
        "aliado",
        True,
        True,
        True,
        "ficha",
    )
    assert oni.attributes == {"FUE": 5}
    assert oni.events.filter(event__kind="attributes", event__scores={"FUE": 5}).exists()
    assert flashed(response) == ["Se han guardado los cambios de Oni rojo."]


def test_a_saved_pnj_goes_back_where_the_dj_opened_it(dj_client, campaign, oni):
    board = reverse("board", args=["kiso"]) + f"#pj-{oni.pk}"
    page = html(dj_client.get(url("pnj_edit", oni.pk), {"next": board}))
    assert f'name="next" value="{board}"' in page
    assert f'href="{board}" class="link-cancel"' in page  # Cancel goes back there too

    for came_from in (board, url("pnj_list") + f"#pnj-{oni.pk}"):
        response = dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, next=came_from))
        assert response.status_code == 302 and response["Location"] == came_from
    # Only to a page of this site: anywhere else, to the board.
    for elsewhere in ("https://evil.example/", "//evil.example/", "board"):
        response = dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, next=elsewhere))
        assert response["Location"] == reverse("board", args=["kiso"])
    # A refused save keeps where it goes back to.
    page = html(dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, name="", next=board)))
    assert f'name="next" value="{board}"' in page


def test_the_edit_links_say_where_they_were_opened(dj_client, campaign, oni):
    listed = html(dj_client.get(url("pnj_list")))
    assert f'{url("pnj_edit", oni.pk)}?next=/c/kiso/pnj/%23pnj-{oni.pk}"' in listed
    whole = html(dj_client.get(reverse("ask", args=["kiso", oni.pk, "whole"])))
    assert f'{url("pnj_edit", oni.pk)}?next=/c/kiso/%23pj-{oni.pk}"' in whole


def test_an_enemy_does_not_travel_with_the_party(dj_client, oni):
    dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, in_party="on"))

    oni.refresh_from_db()
    assert oni.side == "enemigo" and not oni.in_party


def test_a_posted_player_is_ignored_and_the_service_refuses_one(dj_client, campaign, oni):
    mei = UserFactory(username="mei")
    MembershipFactory(campaign=campaign, user=mei, role=Membership.Role.PLAYER)

    dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, player=str(mei.pk)))

    oni.refresh_from_db()
    assert oni.player is None
    with pytest.raises(ValidationError) as refused:
        services.character_update(character=oni, player=mei)
    assert "player" in refused.value.error_dict
    with pytest.raises(ValidationError):
        services.character_create(campaign=campaign, name="Otro", player=mei, pnj={})
    with pytest.raises(ValidationError):
        services.invitation_create(character=oni, by=campaign.memberships.get(role="dj").user)
    oni.refresh_from_db()
    assert oni.player is None and not oni.invitations.exists()


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": "aiko"}, "name", "Esta campaña ya tiene un PJ llamado Aiko."),
        ({"name": "x" * 41}, "name", "40"),
        ({"shows": "todo"}, "shows", "todo"),
        ({"side": ""}, "side", "Elige enemigo o aliado."),
        ({"FUE": "x"}, "FUE", "FUE: pon un número entero del 0 al 10"),
    ],
)
def test_a_bad_pnj_edit_is_shown_again_by_its_field_and_nothing_changes(
    dj_client, aiko, oni, overrides, field, message
):
    before = rows()

    response = dj_client.post(url("pnj_edit", oni.pk), pnj_data(oni, **overrides))

    page = html(response)
    assert response.status_code == 200
    assert f'id="id_{field}_error"' in page and message in page
    assert rows() == before


def test_a_pj_of_that_name_sees_the_pnj_named_on_its_own_form(dj_client, campaign, oni):
    response = dj_client.post(url("character_new"), {"name": "ONI", "player": ""})

    assert "Un PNJ de esta campaña ya se llama Oni." in html(response)


def test_archiving_takes_a_pnj_out_of_play_and_restoring_brings_it_back(dj_client, oni):
    response = dj_client.post(url("pnj_archive", oni.pk))

    oni.refresh_from_db()
    assert response.status_code == 302 and oni.is_archived
    assert flashed(response)[0].startswith("Se ha archivado a Oni: fuera de juego")
    assert dj_client.post(url("pnj_archive", oni.pk)).status_code == 404
    assert dj_client.get(url("pnj_edit", oni.pk)).status_code == 200  # still editable

    response = dj_client.post(url("pnj_restore", oni.pk))

    oni.refresh_from_db()
    assert response.status_code == 302 and not oni.is_archived
    assert flashed(response) == ["Oni vuelve a estar en juego."]
    assert dj_client.post(url("pnj_restore", oni.pk)).status_code == 404


# -- one kind's address never opens the other kind ---------------------------------------


def test_a_pjs_pk_in_a_pnj_address_is_404(dj_client, aiko):
    services.character_archive(character=aiko)
    for name in ("pnj_edit", "pnj_archive", "pnj_restore"):
        for method in ("get", "post"):
            assert getattr(dj_client, method)(url(name, aiko.pk)).status_code in (404, 405)
    assert dj_client.get(url("pnj_edit", aiko.pk)).status_code == 404


def test_a_pnjs_pk_in_a_pj_address_is_404(dj_client, oni):
    assert dj_client.get(url("character_edit", oni.pk)).status_code == 404
    for name in ("character_edit", "character_archive", "invite", "player_remove"):
        assert dj_client.post(url(name, oni.pk)).status_code == 404, name
    assert dj_client.post(url("password_link", oni.pk)).status_code == 404
    services.character_archive(character=oni)
    assert dj_client.post(url("character_restore", oni.pk)).status_code == 404
    oni.refresh_from_db()
    assert oni.is_archived


def test_another_campaigns_template_is_404(dj_client, campaign):
    other = CampaignFactory(name="Otra", slug="otra", dj=UserFactory(username="otro"))
    theirs = services.template_save(campaign=other, name="Ajeno")
    for name in ("template_edit", "template_copies", "template_delete"):
        assert dj_client.post(url(name, theirs.pk)).status_code == 404, name
    assert Template.objects.filter(pk=theirs.pk).exists()
    assert not other.characters.exists()


@pytest.mark.parametrize("who", ["player", "other_dj", "visitor"])
def test_nobody_but_the_dj_reaches_the_page(client, campaign, bandido, oni, who):
    if who == "player":
        mei = UserFactory(username="mei")
        MembershipFactory(campaign=campaign, user=mei, role=Membership.Role.PLAYER)
        client.force_login(mei)
    elif who == "other_dj":
        other_dj = UserFactory(username="otro")
        CampaignFactory(name="Otra", slug="otra", dj=other_dj)
        client.force_login(other_dj)
    gets = [url("pnj_list"), url("pnj_edit", oni.pk), url("template_edit", bandido.pk)]
    posts = [url("pnj_new"), url("template_new"), url("template_copies", bandido.pk)]
    posts += [url("pnj_archive", oni.pk), url("template_delete", bandido.pk)]
    for path in gets + posts:
        response = client.post(path) if path in posts else client.get(path)
        if who == "visitor":
            assert response.status_code in (302, 404), path
            assert response.status_code == 404 or "/accounts/" in response["Location"]
        else:
            assert response.status_code == 404, path
    assert Template.objects.filter(pk=bandido.pk).exists()
    assert campaign.characters.filter(kind="pnj").count() == 1


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ("999999999999", "De 1 a 20 de una vez."),
        ("25", "De 1 a 20 de una vez."),
        ("tres", "Cuántos: un número entero."),
    ],
)
def test_the_boards_add_says_the_range_of_a_count_too_large(dj_client, campaign, count, message):
    response = dj_client.post(
        url("pnj_add"), {"name": "Bandido", "count": count}, HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 422
    assert html(response) == message
    assert not campaign.characters.filter(kind=Character.Kind.PNJ).exists()


def test_a_whole_number_field_says_its_range_of_a_number_too_long():
    from campaign.forms import WholeNumberField

    field = WholeNumberField(min_value=1, max_value=20)
    with pytest.raises(ValidationError) as too_long:
        field.clean("999999999999")
    assert too_long.value.code == "max_value"
    with pytest.raises(ValidationError) as words:
        field.clean("veinte")
    assert words.value.code == "invalid"


def test_one_turn_for_all_before_a_fight_groups_them_until_a_fight_splits_them(
    dj_client, campaign, dj
):
    from campaign import selectors
    from campaign.order_form import rows_of
    from campaign.turn_order import Slot

    response = dj_client.post(
        url("pnj_add"), {"name": "Bandido", "count": "3", "together": "1"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    bandidos = list(campaign.characters.filter(kind=Character.Kind.PNJ).order_by("pk"))
    assert {b.turn_with_id for b in bandidos} == {bandidos[0].pk}

    def lines():
        in_play = selectors.board_characters(campaign=campaign) + selectors.board_pnj(
            campaign=campaign
        )
        last = selectors.fight_last(campaign=campaign)
        return [row.slot for row in rows_of(None, in_play, last)]

    pks = [b.pk for b in bandidos]
    assert lines() == ["pj:" + "+".join(map(str, pks))]
    # A fight that gave them a turn each: the next starts as that one ended, a turn each.
    services.fight_start(campaign=campaign, order=[Slot(pj=pk) for pk in pks])
    services.fight_end(campaign=campaign)
    assert lines() == [f"pj:{pk}" for pk in pks]
