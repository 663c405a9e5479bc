"""Setting a campaign up from the app: new campaign, settings, PJ, catalogue, sessions."""

import re

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from campaign import services
from campaign.forms import parse_other_scores
from campaign.models import (
    Campaign,
    CampaignChange,
    CatalogueEntry,
    Character,
    GameSession,
    Membership,
    StateEvent,
)
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

HERIDAS_LEVE = {"kind": "suffer", "type": "heridas", "grade": "leve"}


@pytest.fixture
def dj_client(client, dj):
    client.force_login(dj)
    return client


@pytest.fixture
def mei(campaign):
    """A player of the campaign."""
    user = UserFactory(username="mei")
    MembershipFactory(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    return user


@pytest.fixture
def entry(campaign):
    return campaign.catalogue.get(name="infeccion")


def html(response) -> str:
    return response.content.decode()


def flashed(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def kinds(campaign) -> list[str]:
    return [e.kind for e in StateEvent.objects.filter(campaign=campaign).order_by("seq")]


def last_change(campaign) -> CampaignChange:
    return CampaignChange.objects.filter(campaign=campaign).order_by("-cursor").first()


def pj_data(**overrides) -> dict:
    data = {
        "name": "Hana",
        "player": "",
        "FUE": "3",
        "AGI": "4",
        "DES": "",
        "INT": "2",
        "VOL": "5",
        "other_scores": "",
        "other_powers": "",
        "notes": "",
    }
    return {**data, **overrides}


def entry_data(**overrides) -> dict:
    data = {
        "name": "Veneno de Fugu",
        "kind": "veneno",
        "effect": "Parálisis lenta.",
        "effect_leve": "Hormigueo.",
        "effect_grave": "Rigidez.",
        "effect_persistente": "Parálisis.",
    }
    return {**data, **overrides}


# -- who may reach what ------------------------------------------------------------------

# character_list is GET-only: a POST gets 405 before anyone is asked who they are.
GET_PAGES = [
    ("campaign_settings", False, False),
    ("character_list", False, False),
    ("character_new", False, False),
    ("character_edit", True, False),
    ("catalogue", False, False),
    ("catalogue_edit", False, True),
]
POST_ONLY = [
    ("character_archive", True, False),
    ("character_restore", True, False),
    ("catalogue_delete", False, True),
    ("session_start", False, False),
    ("session_end", False, False),
]


def get_status(name: str) -> int:
    return 405 if name in {n for n, _pj, _entry in POST_ONLY} else 404


def post_status(name: str) -> int:
    return 405 if name == "character_list" else 404


def url_for(name: str, campaign, pj: bool, entry_pk: bool, aiko, entry) -> str:
    args = [campaign.slug]
    if pj:
        args.append(aiko.pk)
    if entry_pk:
        args.append(entry.pk)
    return reverse(name, args=args)


@pytest.mark.parametrize(("name", "pj", "entry_pk"), GET_PAGES + POST_ONLY)
def test_a_visitor_is_sent_to_log_in(client, campaign, aiko, entry, name, pj, entry_pk):
    url = url_for(name, campaign, pj, entry_pk, aiko, entry)
    method = client.post if (name, pj, entry_pk) in POST_ONLY else client.get

    response = method(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(("name", "pj", "entry_pk"), GET_PAGES + POST_ONLY)
def test_a_player_of_the_campaign_gets_404(client, campaign, aiko, entry, mei, name, pj, entry_pk):
    client.force_login(mei)
    url = url_for(name, campaign, pj, entry_pk, aiko, entry)
    campaign.refresh_from_db()
    before = campaign.change_cursor

    assert client.get(url).status_code == get_status(name)
    assert client.post(url, {"name": "x", "title": "x"}).status_code == post_status(name)
    campaign.refresh_from_db()
    assert campaign.change_cursor == before


@pytest.mark.parametrize(("name", "pj", "entry_pk"), GET_PAGES + POST_ONLY)
def test_the_dj_of_another_campaign_gets_404(client, campaign, aiko, entry, name, pj, entry_pk):
    other_dj = UserFactory(username="other-dj")
    CampaignFactory(name="Otra", slug="otra", dj=other_dj)
    client.force_login(other_dj)
    url = url_for(name, campaign, pj, entry_pk, aiko, entry)

    assert client.get(url).status_code == get_status(name)
    assert client.post(url, {"name": "x", "title": "x"}).status_code == post_status(name)


@pytest.mark.parametrize(("name", "pj", "entry_pk"), POST_ONLY)
def test_post_only_endpoints_answer_get_with_405(
    dj_client, campaign, aiko, entry, name, pj, entry_pk
):
    url = url_for(name, campaign, pj, entry_pk, aiko, entry)
    assert dj_client.get(url).status_code == 405


def test_a_visitor_cannot_open_the_new_campaign_page(client, db):
    response = client.get(reverse("campaign_new"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_pj_or_entry_of_another_campaign_is_404(dj_client, campaign):
    other = CampaignFactory(name="Otra", slug="otra")
    stranger = CharacterFactory(campaign=other, name="Extraño")
    foreign_entry = other.catalogue.first()

    assert dj_client.get(reverse("character_edit", args=["kiso", stranger.pk])).status_code == 404
    assert (
        dj_client.post(reverse("character_archive", args=["kiso", stranger.pk])).status_code == 404
    )
    assert (
        dj_client.get(reverse("catalogue_edit", args=["kiso", foreign_entry.pk])).status_code == 404
    )
    assert (
        dj_client.post(reverse("catalogue_delete", args=["kiso", foreign_entry.pk])).status_code
        == 404
    )
    assert dj_client.get(reverse("character_edit", args=["kiso", 999999])).status_code == 404


# -- home and a new campaign -------------------------------------------------------------


def test_home_links_the_djs_campaign_to_its_board_with_the_role(dj_client, campaign):
    page = html(dj_client.get(reverse("home")))

    assert f'<a href="{reverse("board", args=["kiso"])}">Kiso</a>' in page
    assert "DJ" in page
    assert f'href="{reverse("campaign_new")}"' in page
    assert "Nueva campaña" in page


def test_home_shows_a_players_campaign_without_a_link_to_the_djs_board(client, campaign, mei):
    client.force_login(mei)
    page = html(client.get(reverse("home")))

    assert "Kiso" in page
    assert "Jugador" in page
    assert reverse("board", args=["kiso"]) not in page


def test_the_new_campaign_form_has_a_label_and_help_for_every_field(client, db):
    client.force_login(UserFactory())
    page = html(client.get(reverse("campaign_new")))

    for field in ("name", "especificos", "esfuerzo_prolongado", "round_seconds"):
        assert f'<label for="id_{field}">' in page
        assert f'id="id_{field}_helptext"' in page
    assert 'value="6"' in page
    assert "Crear campaña" in page


def test_creating_a_campaign_makes_its_creator_dj_and_goes_to_its_pj(client, db):
    user = UserFactory(username="sensei")
    client.force_login(user)

    response = client.post(
        reverse("campaign_new"),
        {"name": " La sombra de Kiso ", "especificos": "on", "round_seconds": "10"},
    )

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("character_list", args=["la-sombra-de-kiso"])
    assert campaign.name == "La sombra de Kiso"
    assert (campaign.especificos, campaign.esfuerzo_prolongado, campaign.round_seconds) == (
        True,
        False,
        10,
    )
    assert Membership.objects.get(campaign=campaign).user == user
    assert Membership.objects.get(campaign=campaign).role == Membership.Role.DJ
    assert campaign.catalogue.filter(name="infeccion", kind="enfermedad").exists()
    assert flashed(response) == ["Campaña La sombra de Kiso creada. Ahora, añade sus PJ."]


def test_a_second_campaign_with_the_same_name_gets_its_own_address(client, campaign):
    client.force_login(campaign.memberships.get().user)

    response = client.post(reverse("campaign_new"), {"name": "Kiso", "round_seconds": "6"})

    assert response["Location"] == reverse("character_list", args=["kiso-2"])
    assert Campaign.objects.filter(name="Kiso").count() == 2


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": "", "round_seconds": "6"}, "name", "Escribe el nombre de la campaña."),
        ({"name": "   ", "round_seconds": "6"}, "name", "Escribe el nombre de la campaña."),
        (
            {"name": "x" * 101, "round_seconds": "6"},
            "name",
            "Como mucho 100 caracteres (aquí hay 101).",
        ),
        ({"name": "Kiso", "round_seconds": "0"}, "round_seconds", "de 1 a 600"),
        ({"name": "Kiso", "round_seconds": "601"}, "round_seconds", "de 1 a 600"),
        ({"name": "Kiso", "round_seconds": "seis"}, "round_seconds", "de 1 a 600"),
        ({"name": "Kiso", "round_seconds": ""}, "round_seconds", "de 1 a 600"),
    ],
)
def test_a_bad_new_campaign_is_shown_again_with_its_error_and_nothing_is_made(
    client, db, data, field, message
):
    client.force_login(UserFactory())

    response = client.post(reverse("campaign_new"), data)

    page = html(response)
    assert response.status_code == 200
    assert "Hay un problema" in page
    assert f'href="#id_{field}"' in page
    assert f'id="id_{field}_error"' in page
    assert message in page
    assert not Campaign.objects.exists()


# -- services: campaigns -----------------------------------------------------------------


def test_campaign_create_numbers_clashing_slugs():
    slugs = [services.campaign_create(name="La Sombra").slug for _ in range(3)]
    assert slugs == ["la-sombra", "la-sombra-2", "la-sombra-3"]


def test_campaign_create_finds_a_slug_for_any_name():
    assert services.campaign_create(name="影の旅").slug == "campana"
    assert services.campaign_create(name="¡¡!!").slug == "campana-2"
    assert services.campaign_create(name="Ñandú Año").slug == "nandu-ano"
    long = services.campaign_create(name="a" * 100)
    again = services.campaign_create(name="a" * 100)
    assert long.slug == "a" * 100
    assert again.slug == "a" * 98 + "-2"


def test_campaign_create_refuses_a_blank_name_and_bad_round_seconds():
    with pytest.raises(ValidationError):
        services.campaign_create(name="  ")
    with pytest.raises(ValidationError):
        services.campaign_create(name="Kiso", round_seconds=601)
    with pytest.raises(ValidationError):
        services.campaign_create(name="Kiso", round_seconds=0)
    assert not Campaign.objects.exists()


def test_campaign_update_renames_and_tells_live_pages(campaign):
    before = campaign.change_cursor

    services.campaign_update(campaign=campaign, name="  Kiso II ")

    campaign.refresh_from_db()
    assert campaign.name == "Kiso II"
    assert campaign.slug == "kiso"
    assert campaign.change_cursor == before + 1
    assert last_change(campaign).kind == CampaignChange.Kind.CAMPAIGN


def test_campaign_update_changes_options_while_the_log_has_only_starts_and_scores(campaign, aiko):
    CharacterFactory(campaign=campaign, name="Kenji")  # start + attributes events only

    services.campaign_update(
        campaign=campaign, especificos=True, esfuerzo_prolongado=True, round_seconds=10
    )

    campaign.refresh_from_db()
    assert campaign.rule_options() == {
        "especificos": True,
        "esfuerzo_prolongado": True,
        "round_seconds": 10,
    }


def test_campaign_update_refuses_options_after_a_game_event_but_still_renames(campaign, aiko):
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    with pytest.raises(ValidationError) as refused:
        services.campaign_update(campaign=campaign, round_seconds=10)
    services.campaign_update(campaign=campaign, name="Kiso II", round_seconds=6)

    assert refused.value.code == "options_locked"
    campaign.refresh_from_db()
    assert (campaign.name, campaign.round_seconds) == ("Kiso II", 6)


def test_a_voided_game_event_does_not_lock_the_options(campaign, aiko):
    event = services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)
    services.event_void(event=event)

    services.campaign_update(campaign=campaign, especificos=True)

    campaign.refresh_from_db()
    assert campaign.especificos


def test_campaign_update_refuses_a_blank_name_and_round_seconds_out_of_range(campaign):
    with pytest.raises(ValidationError):
        services.campaign_update(campaign=campaign, name="")
    with pytest.raises(ValidationError):
        services.campaign_update(campaign=campaign, round_seconds=601)
    campaign.refresh_from_db()
    assert (campaign.name, campaign.round_seconds) == ("Kiso", 6)


# -- campaign settings -------------------------------------------------------------------


def test_the_settings_page_shows_the_campaign_and_its_options(dj_client, campaign):
    page = html(dj_client.get(reverse("campaign_settings", args=["kiso"])))

    assert 'value="Kiso"' in page
    assert 'name="especificos"' in page
    assert 'name="round_seconds"' in page
    assert 'aria-current="page">Ajustes</a>' in page


def test_the_dj_renames_the_campaign_and_changes_its_options(dj_client, campaign):
    response = dj_client.post(
        reverse("campaign_settings", args=["kiso"]),
        {"name": "Kiso II", "esfuerzo_prolongado": "on", "round_seconds": "5"},
    )

    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.name == "Kiso II"
    assert campaign.rule_options() == {
        "especificos": False,
        "esfuerzo_prolongado": True,
        "round_seconds": 5,
    }
    assert flashed(response) == ["Ajustes guardados."]


def test_after_a_game_event_the_options_are_read_only_and_say_why(dj_client, campaign, aiko):
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    page = html(dj_client.get(reverse("campaign_settings", args=["kiso"])))

    assert 'name="especificos"' not in page
    assert 'name="round_seconds"' not in page
    assert "cambiaría cómo se lee el registro" in page


def test_after_a_game_event_a_posted_option_is_ignored_and_the_name_saved(
    dj_client, campaign, aiko
):
    services.event_record(campaign=campaign, character=aiko, event=HERIDAS_LEVE)

    response = dj_client.post(
        reverse("campaign_settings", args=["kiso"]),
        {"name": "Kiso II", "especificos": "on", "round_seconds": "30"},
    )

    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.name == "Kiso II"
    assert (campaign.especificos, campaign.round_seconds) == (False, 6)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "round_seconds": "6"}, "Escribe el nombre de la campaña."),
        ({"name": "Kiso", "round_seconds": "700"}, "de 1 a 600"),
    ],
)
def test_bad_settings_are_shown_again_and_nothing_changes(dj_client, campaign, data, message):
    campaign.refresh_from_db()
    before = campaign.change_cursor

    response = dj_client.post(reverse("campaign_settings", args=["kiso"]), data)

    assert response.status_code == 200
    assert message in html(response)
    campaign.refresh_from_db()
    assert (campaign.name, campaign.round_seconds, campaign.change_cursor) == ("Kiso", 6, before)


# -- PJ ----------------------------------------------------------------------------------


def test_the_pj_page_lists_each_pj_with_player_scores_and_powers(dj_client, campaign, kenji, mei):
    CharacterFactory(
        campaign=campaign,
        name="Mei",
        player=mei,
        attributes={"PER": 2, "FUE": 9, "VOL": 8},
        powers=["vuelo"],
    )

    page = html(dj_client.get(reverse("character_list", args=["kiso"])))

    assert "Kenji" in page and "Mei" in page
    assert "Lo juega mei" in page
    assert "Regeneración" in page and "vuelo" in page
    # the five attributes first, in sheet order, then the others
    assert page.index("<dt>FUE</dt><dd>9</dd>") < page.index("<dt>VOL</dt><dd>8</dd>")
    assert page.index("<dt>VOL</dt><dd>8</dd>") < page.index("<dt>PER</dt><dd>2</dd>")
    assert 'Editar<span class="visually-hidden"> Kenji</span>' in page
    assert "Archivar a Kenji" in page
    assert f'href="{reverse("character_new", args=["kiso"])}"' in page


def test_the_pj_form_offers_the_campaigns_players_only(dj_client, campaign, mei):
    UserFactory(username="outsider")

    page = html(dj_client.get(reverse("character_new", args=["kiso"])))

    assert ">mei</option>" in page
    assert "outsider" not in page
    assert ">test-dj</option>" not in page
    assert "Nadie (lo lleva el DJ)" in page
    for field in ("name", "player", "FUE", "AGI", "DES", "INT", "VOL", "other_scores"):
        assert f'<label for="id_{field}">' in page
    assert '<label for="id_regeneracion">Regeneración</label>' in page


def test_the_dj_adds_a_pj_with_scores_powers_and_a_player(dj_client, campaign, mei):
    response = dj_client.post(
        reverse("character_new", args=["kiso"]),
        pj_data(
            player=str(mei.pk),
            other_scores="per 3,  CAR: 2",
            regeneracion="on",
            other_powers="Vuelo, visión nocturna, vuelo",
            notes="Ronin.",
        ),
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("character_list", args=["kiso"])
    hana = Character.objects.get(name="Hana")
    assert hana.player == mei
    assert hana.attributes == {"FUE": 3, "AGI": 4, "INT": 2, "VOL": 5, "PER": 3, "CAR": 2}
    assert hana.powers == ["Vuelo", "regeneracion", "visión nocturna"]
    assert hana.notes == "Ronin."
    assert hana.events.last().event["scores"] == hana.attributes
    assert flashed(response) == ["Se ha añadido a Hana."]


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": ""}, "name", "Escribe el nombre del PJ."),
        ({"name": "Aiko"}, "name", "Esta campaña ya tiene un PJ llamado Aiko."),
        ({"name": "  aiko "}, "name", "Esta campaña ya tiene un PJ llamado Aiko."),
        ({"FUE": "11"}, "FUE", "FUE: pon un número entero del 0 al 10"),
        ({"AGI": "-1"}, "AGI", "AGI: pon un número entero del 0 al 10"),
        ({"VOL": "tres"}, "VOL", "VOL: pon un número entero del 0 al 10"),
        # int() takes these; a sheet's score is plain digits.
        ({"DES": "1_0"}, "DES", "DES: pon un número entero del 0 al 10"),
        ({"DES": "+3"}, "DES", "DES: pon un número entero del 0 al 10"),
        ({"DES": "٣"}, "DES", "DES: pon un número entero del 0 al 10"),
        ({"other_scores": "PER"}, "other_scores", "«PER» no es una abreviatura y un número"),
        ({"other_scores": "PER 3 CAR"}, "other_scores", "«PER 3 CAR» no es"),
        ({"other_scores": "3 PER"}, "other_scores", "«3 PER» no es"),
        ({"other_scores": "FUE 3"}, "other_scores", "Pon FUE en su casilla"),
        ({"other_scores": "PER 3, per 4"}, "other_scores", "PER aparece dos veces."),
        ({"other_scores": "PER 11"}, "other_scores", "PER: las puntuaciones van del 0 al 10."),
        ({"player": "999999"}, "player", "Escoja una opción válida"),
    ],
)
def test_a_bad_pj_is_shown_again_with_its_error_and_nothing_is_written(
    dj_client, campaign, aiko, overrides, field, message
):
    events_before = StateEvent.objects.count()

    response = dj_client.post(reverse("character_new", args=["kiso"]), pj_data(**overrides))

    page = html(response)
    assert response.status_code == 200
    assert "Hay un problema" in page
    assert f'id="id_{field}_error"' in page
    assert message in page
    assert list(campaign.characters.values_list("name", flat=True)) == ["Aiko"]
    assert StateEvent.objects.count() == events_before


def test_an_archived_pjs_name_is_taken_too(dj_client, campaign, aiko):
    services.character_archive(character=aiko)

    response = dj_client.post(reverse("character_new", args=["kiso"]), pj_data(name="Aiko"))

    assert "Un PJ archivado de esta campaña ya se llama Aiko." in html(response)


def test_a_player_who_is_not_in_the_campaign_is_refused(dj_client, campaign):
    outsider = UserFactory(username="outsider")

    response = dj_client.post(
        reverse("character_new", args=["kiso"]), pj_data(player=str(outsider.pk))
    )

    assert response.status_code == 200
    assert not Character.objects.filter(name="Hana").exists()


def test_the_edit_form_starts_from_the_pjs_sheet(dj_client, campaign, kenji):
    services.character_update(
        character=kenji, attributes={**kenji.attributes, "PER": 2}, powers=["regeneracion", "vuelo"]
    )

    page = html(dj_client.get(reverse("character_edit", args=["kiso", kenji.pk])))

    assert 'value="Kenji"' in page
    assert 'name="FUE" value="5"' in page
    assert 'name="INT"' in page and 'name="INT" value' not in page
    assert 'value="PER 2"' in page
    assert re.search(r'<input type="checkbox" name="regeneracion"[^>]* checked>', page)
    assert 'value="vuelo"' in page


def test_editing_scores_records_an_attributes_event(dj_client, campaign, aiko):
    response = dj_client.post(
        reverse("character_edit", args=["kiso", aiko.pk]),
        pj_data(name="Aiko", FUE="4", AGI="5", DES="4", INT="", VOL="3", notes="Ninja."),
    )

    assert response.status_code == 302
    aiko.refresh_from_db()
    assert aiko.attributes == {"FUE": 4, "AGI": 5, "DES": 4, "VOL": 3}
    assert aiko.notes == "Ninja."
    last = StateEvent.objects.filter(character=aiko).order_by("-seq").first()
    assert last.event["kind"] == "attributes"
    assert last.event["scores"] == {"FUE": 4, "AGI": 5, "DES": 4, "VOL": 3}


def test_editing_without_new_scores_records_no_event(dj_client, campaign, aiko):
    events = StateEvent.objects.filter(character=aiko).count()

    dj_client.post(
        reverse("character_edit", args=["kiso", aiko.pk]),
        pj_data(name="Aiko Sato", FUE="3", AGI="5", DES="4", INT="", VOL="3"),
    )

    aiko.refresh_from_db()
    assert aiko.name == "Aiko Sato"
    assert StateEvent.objects.filter(character=aiko).count() == events


def test_editing_may_keep_the_pjs_own_name_but_not_take_another(dj_client, campaign, aiko, kenji):
    response = dj_client.post(
        reverse("character_edit", args=["kiso", aiko.pk]), pj_data(name="Kenji")
    )

    assert "Esta campaña ya tiene un PJ llamado Kenji." in html(response)
    aiko.refresh_from_db()
    assert aiko.name == "Aiko"


def test_archiving_hides_a_pj_and_restoring_brings_it_back(dj_client, campaign, aiko, kenji):
    response = dj_client.post(reverse("character_archive", args=["kiso", aiko.pk]))

    assert response.status_code == 302
    aiko.refresh_from_db()
    assert aiko.is_archived
    assert last_change(campaign).kind == CampaignChange.Kind.CHARACTER
    page = html(dj_client.get(reverse("character_list", args=["kiso"])))
    archived_section = page[page.index("PJ archivados") :]
    assert "Aiko" in archived_section
    assert "Archivar a Aiko" not in page
    assert 'Restaurar<span class="visually-hidden"> Aiko</span>' in page

    response = dj_client.post(reverse("character_restore", args=["kiso", aiko.pk]))

    assert response.status_code == 302
    aiko.refresh_from_db()
    assert not aiko.is_archived
    assert "PJ archivados" not in html(dj_client.get(reverse("character_list", args=["kiso"])))


def test_archiving_an_archived_pj_or_restoring_an_active_one_is_404(dj_client, campaign, aiko):
    assert dj_client.post(reverse("character_restore", args=["kiso", aiko.pk])).status_code == 404
    services.character_archive(character=aiko)
    assert dj_client.post(reverse("character_archive", args=["kiso", aiko.pk])).status_code == 404


def test_an_archived_pj_can_still_be_edited(dj_client, campaign, aiko):
    services.character_archive(character=aiko)

    response = dj_client.post(
        reverse("character_edit", args=["kiso", aiko.pk]), pj_data(name="Aiko", notes="Retirada.")
    )

    assert response.status_code == 302
    aiko.refresh_from_db()
    assert aiko.notes == "Retirada."
    assert aiko.is_archived


@pytest.mark.parametrize(
    ("text", "scores"),
    [
        ("", {}),
        ("PER 3", {"PER": 3}),
        ("per 3, car: 2", {"PER": 3, "CAR": 2}),
        ("PER=0 ,", {"PER": 0}),
        ("Maña 4", {"MAÑA": 4}),
    ],
)
def test_other_scores_are_parsed(text, scores):
    assert parse_other_scores(text) == scores


# -- catalogue ---------------------------------------------------------------------------


def test_the_catalogue_lists_the_seeded_entries_by_kind(dj_client, campaign):
    page = html(dj_client.get(reverse("catalogue", args=["kiso"])))

    especial = page.index('id="kind-especial"')
    enfermedad = page.index('id="kind-enfermedad"')
    veneno = page.index('id="kind-veneno"')
    # Named as words (the events keep their keys: "infeccion", "bloqueo_empatico").
    assert especial < page.index("<h3>Desprevenido</h3>") < enfermedad
    assert enfermedad < page.index("<h3>Infección</h3>") < veneno
    assert "<h3>Bloqueo empático</h3>" in page and "bloqueo_empatico</h3>" not in page
    assert "Fiebre alta y debilidad." in page
    assert veneno < page.index("<h3>Veneno paralizante</h3>")  # seeded poisons


def test_the_dj_adds_an_entry_named_as_events_spell_it(dj_client, campaign):
    response = dj_client.post(reverse("catalogue", args=["kiso"]), entry_data())

    entry = campaign.catalogue.get(name="veneno de fugu")
    assert response.status_code == 302
    assert response["Location"] == reverse("catalogue", args=["kiso"]) + f"#entry-{entry.pk}"
    assert (entry.kind, entry.effect_grave) == ("veneno", "Rigidez.")
    campaign.refresh_from_db()
    assert campaign.change_cursor == 0  # no card shows it: no page hears of it


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": ""}, "name", "Escribe el nombre de la entrada."),
        ({"name": "  INFECCION "}, "name", "El catálogo ya tiene una entrada llamada «infeccion»."),
        ({"kind": "maldicion"}, "kind", "Escoja una opción válida"),
        ({"name": "x" * 101}, "name", "Como mucho 100 caracteres (aquí hay 101)."),
    ],
)
def test_a_bad_entry_is_shown_again_with_its_error_and_nothing_is_added(
    dj_client, campaign, overrides, field, message
):
    count = campaign.catalogue.count()

    response = dj_client.post(reverse("catalogue", args=["kiso"]), entry_data(**overrides))

    page = html(response)
    assert response.status_code == 200
    assert "Hay un problema" in page
    assert f'id="id_{field}_error"' in page
    assert message in page
    assert '<details class="add-entry" open>' in page
    assert campaign.catalogue.count() == count


def test_the_dj_edits_an_entrys_texts_but_not_its_name(dj_client, campaign, entry):
    response = dj_client.post(
        reverse("catalogue_edit", args=["kiso", entry.pk]),
        {"name": "otra", "kind": "veneno", "effect": "Herida infectada.", "effect_leve": "Fiebre."},
    )

    assert response.status_code == 302
    entry.refresh_from_db()
    assert (entry.name, entry.kind) == ("infeccion", "enfermedad")
    assert (entry.effect, entry.effect_leve, entry.effect_grave) == (
        "Herida infectada.",
        "Fiebre.",
        "",
    )


def test_an_especial_entry_has_no_phase_fields_and_keeps_its_phase_texts(dj_client, campaign):
    fobia = campaign.catalogue.get(name="fobia")
    fobia.effect_leve = "guardado"
    fobia.save()

    page = html(dj_client.get(reverse("catalogue_edit", args=["kiso", fobia.pk])))
    dj_client.post(reverse("catalogue_edit", args=["kiso", fobia.pk]), {"effect": "Miedo."})

    assert 'name="effect"' in page and 'name="effect_leve"' not in page
    fobia.refresh_from_db()
    assert (fobia.effect, fobia.effect_leve) == ("Miedo.", "guardado")


def test_the_edit_page_asks_before_deleting_an_entry(dj_client, campaign, entry):
    page = html(dj_client.get(reverse("catalogue_edit", args=["kiso", entry.pk])))

    assert '<details class="confirm danger-zone">' in page
    assert "¿Borrar «Infección» del catálogo?" in page
    assert f'action="{reverse("catalogue_delete", args=["kiso", entry.pk])}"' in page
    assert "Sí, borrarla" in page


def test_the_dj_deletes_an_entry_and_the_log_keeps_its_name(dj_client, campaign, aiko, entry):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "infeccion"},
    )

    response = dj_client.post(reverse("catalogue_delete", args=["kiso", entry.pk]))

    assert response.status_code == 302
    assert response["Location"] == reverse("catalogue", args=["kiso"])
    assert flashed(response) == ["Se ha quitado «infeccion» del catálogo."]
    assert not campaign.catalogue.filter(name="infeccion").exists()
    assert StateEvent.objects.filter(event__source="infeccion").exists()
    change = last_change(campaign)  # Aiko's card loses the entry's text
    assert (change.kind, change.character) == (CampaignChange.Kind.CATALOGUE, aiko)
    assert "<h3>infeccion</h3>" not in html(dj_client.get(reverse("catalogue", args=["kiso"])))


def test_catalogue_entry_save_and_delete_services(campaign, aiko):
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "veneno de fugu"},
    )
    entry = services.catalogue_entry_save(
        campaign=campaign, name="  Veneno  DE fugu", kind="veneno", effect="x"
    )
    assert entry.name == "veneno de fugu"
    with pytest.raises(ValidationError):
        services.catalogue_entry_save(campaign=campaign, name="VENENO de fugu", kind="veneno")
    with pytest.raises(ValidationError):
        services.catalogue_entry_save(campaign=campaign, name="", kind="veneno")
    with pytest.raises(ValidationError):
        services.catalogue_entry_save(campaign=campaign, name="nuevo", kind="maldicion")

    services.catalogue_entry_save(campaign=campaign, entry=entry, effect_grave=" y ")
    entry.refresh_from_db()
    assert (entry.effect, entry.effect_grave) == ("x", "y")

    other = CampaignFactory()
    with pytest.raises(ValidationError):
        services.catalogue_entry_save(campaign=other, entry=entry, effect="z")

    campaign.refresh_from_db()
    before = campaign.change_cursor
    services.catalogue_entry_delete(entry=entry)
    campaign.refresh_from_db()
    assert not CatalogueEntry.objects.filter(pk=entry.pk).exists()
    assert campaign.change_cursor == before + 1


# -- game sessions -----------------------------------------------------------------------


def test_the_dj_starts_a_session_and_comes_back_to_the_page(dj_client, campaign):
    back = reverse("character_list", args=["kiso"])

    response = dj_client.post(
        reverse("session_start", args=["kiso"]), {"title": "El puerto", "next": back}
    )

    assert response.status_code == 302
    assert response["Location"] == back
    session = GameSession.objects.get(campaign=campaign)
    assert (session.number, session.title, session.is_open) == (1, "El puerto", True)
    assert flashed(response) == ["Sesión 1 empezada."]


def test_without_a_safe_next_the_session_buttons_go_to_the_board(dj_client, campaign):
    for target in ("", "https://evil.example/", "//evil.example/x"):
        response = dj_client.post(reverse("session_start", args=["kiso"]), {"next": target})
        assert response["Location"] == reverse("board", args=["kiso"])
        dj_client.post(reverse("session_end", args=["kiso"]))


def test_a_second_open_session_is_refused_with_a_message(dj_client, campaign):
    services.session_start(campaign=campaign, title="Uno")

    response = dj_client.post(reverse("session_start", args=["kiso"]), {"title": "Dos"})

    assert response["Location"] == reverse("board", args=["kiso"])
    assert flashed(response) == ["Termina la sesión abierta antes de empezar otra."]
    assert GameSession.objects.filter(campaign=campaign).count() == 1


def test_a_too_long_title_is_refused_by_its_field_keeping_what_was_typed(dj_client, campaign):
    response = dj_client.post(reverse("session_start", args=["kiso"]), {"title": "x" * 201})

    assert response.status_code == 302
    assert not GameSession.objects.exists()
    board = dj_client.get(response["Location"]).content.decode()
    assert 'value="' + "x" * 201 + '"' in board
    assert re.search(
        r'id="session-title-error" role="alert">Como mucho 200 caracteres \(aquí hay 201\)\.<',
        board,
    )
    again = dj_client.get(response["Location"]).content.decode()
    assert "session-title-error" not in again  # said once


def test_the_dj_ends_the_open_session_with_a_recap(dj_client, campaign, aiko):
    services.session_start(campaign=campaign, title="Uno")

    response = dj_client.post(
        reverse("session_end", args=["kiso"]), {"recap": "Llegaron a Kiso.", "next": "/"}
    )

    session = GameSession.objects.get(campaign=campaign)
    # On to what each PJ carries into the next session.
    assert response["Location"] == reverse("session_sheets", args=["kiso", 1])
    assert not session.is_open
    assert session.recap == "Llegaron a Kiso."
    assert str(aiko.pk) in session.sheet_summary
    assert flashed(response) == [
        "Sesión 1 terminada. Esto es lo que cada PJ se lleva a la siguiente."
    ]


def test_the_dj_ends_a_session_with_a_note_of_their_own_beside_the_recap(dj_client, campaign, aiko):
    services.session_start(campaign=campaign, title="Uno")

    dj_client.post(
        reverse("session_end", args=["kiso"]),
        {"recap": "Llegaron a Kiso.", "dj_note": "El posadero es un espía.\r\n", "next": "/"},
    )

    session = GameSession.objects.get(campaign=campaign)
    assert (session.recap, session.dj_note) == ("Llegaron a Kiso.", "El posadero es un espía.")
    assert not session.is_open


def test_a_note_too_long_keeps_the_session_open_and_both_texts_by_their_fields(
    dj_client, campaign, aiko
):
    services.session_start(campaign=campaign, title="Uno")

    response = dj_client.post(
        reverse("session_end", args=["kiso"]),
        {"recap": "Llegaron a Kiso.", "dj_note": "n" * 20_001, "next": "/c/kiso/"},
    )

    assert response["Location"] == "/c/kiso/"
    assert GameSession.objects.get(campaign=campaign).is_open
    board = dj_client.get("/c/kiso/").content.decode()
    assert re.search(r'id="session-note-error" role="alert">La nota del DJ es demasiado', board)
    assert ">Llegaron a Kiso.</textarea>" in board and "n" * 20_001 + "</textarea>" in board
    assert "session-recap-error" not in board


def test_ending_without_an_open_session_says_so(dj_client, campaign):
    response = dj_client.post(reverse("session_end", args=["kiso"]))

    assert response.status_code == 302
    assert flashed(response) == ["No hay ninguna sesión abierta que terminar."]


def render_partial(template: str, **context) -> str:
    request = RequestFactory().get("/c/kiso/")
    return render_to_string(template, context, request=request)


def test_the_session_bar_offers_to_end_the_open_session(campaign):
    session = services.session_start(campaign=campaign, title="El puerto")

    bar = render_partial("campaign/_session_bar.html", campaign=campaign, session=session)

    assert "Sesión 1" in bar and "El puerto" in bar
    assert reverse("session_end", args=["kiso"]) in bar
    assert 'name="recap"' in bar and "<details" in bar
    # The recap is the players' to read, and says so; the DJ's note sits beside it.
    assert "Resumen para la mesa" in bar and "Lo leen todos los jugadores" in bar
    assert 'name="dj_note"' in bar and "Solo para ti: ningún jugador la ve nunca." in bar
    assert "Terminar sesión" in bar
    assert 'name="next" value="/c/kiso/"' in bar


def test_the_session_bar_offers_to_start_one_when_none_is_open(campaign):
    bar = render_partial("campaign/_session_bar.html", campaign=campaign, session=None)

    assert "Sin sesión abierta" in bar
    assert reverse("session_start", args=["kiso"]) in bar
    assert 'name="title"' in bar
    assert "Empezar sesión" in bar


def test_the_campaign_nav_marks_the_active_screen(campaign):
    nav = render_partial("campaign/_campaign_nav.html", campaign=campaign, active="catalogue")

    assert f'<a href="{reverse("board", args=["kiso"])}">Mesa</a>' in nav
    assert f'href="{reverse("catalogue", args=["kiso"])}" aria-current="page">Catálogo' in nav
    assert ">PJ</a>" in nav and ">Ajustes</a>" in nav
