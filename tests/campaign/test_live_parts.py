"""campaign.live.parts: a change rendered once per kind of viewer, with nobody's token."""

import pytest
from django.urls import reverse

from campaign import services
from campaign.live import parts
from campaign.turn_order import Slot
from tests.factories import CharacterFactory, UserFactory


@pytest.fixture
def kenji(campaign):
    return CharacterFactory(campaign=campaign, name="Kenji", player=UserFactory())


def wound(character) -> None:
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


@pytest.mark.django_db
def test_the_boards_parts_are_the_djs_card_and_panels_without_anyones_token(campaign, aiko):
    wound(aiko)

    found = parts.render(campaign.pk, "es", parts.dj_keys([aiko.pk]))

    card, panels = found[("card", aiko.pk)], found[("panels",)]
    assert card.lstrip().startswith(f'<article class="pj-card" id="pj-{aiko.pk}"')
    assert "Heridas" in card and 'value="turn_end"' in card  # the DJ's own actions
    assert 'id="clock"' in panels and 'id="undo"' in panels and 'id="recent"' in panels
    for html in (card, panels):
        assert "csrfmiddlewaretoken" not in html and 'name="key"' not in html


@pytest.mark.django_db
def test_a_sheets_parts_are_its_own_card_the_partys_and_the_clock_line(campaign, aiko, kenji):
    found = parts.render(campaign.pk, "es", parts.sheet_keys(own=[aiko.pk], party=[kenji.pk]))

    own, party, status = found[("own", aiko.pk)], found[("party", kenji.pk)], found[("status",)]
    assert "sheet-card" in own and f'data-pj="{aiko.pk}"' in own
    assert "party-card" in party and "Kenji" in party and "Tirar" not in party
    assert 'id="sheet-status"' in status
    assert "csrfmiddlewaretoken" not in own and 'name="key"' not in own
    assert 'value="turn_end"' not in own  # never the DJ's actions on a sheet


@pytest.mark.django_db
def test_the_sheets_clock_line_says_the_round_only_in_a_fight(campaign, kenji, client):
    def lines() -> tuple[str, str]:
        live = parts.render(campaign.pk, "es", [("status",)])[("status",)]
        page = client.get(reverse("sheet", args=[campaign.slug, kenji.pk])).content.decode()
        return live, page.split('id="sheet-status"')[1].split("</p>")[0]

    client.force_login(kenji.player)
    assert not any("Ronda" in line for line in lines())
    services.fight_start(campaign=campaign, order=[Slot(pj=kenji.pk)])
    assert all("Ronda 1" in line for line in lines())


@pytest.mark.django_db
def test_a_pj_out_of_play_deletes_its_card_and_has_no_sheet(campaign, aiko, kenji):
    services.character_archive(character=kenji)

    found = parts.render(
        campaign.pk, "es", [("card", kenji.pk), ("party", kenji.pk), ("own", kenji.pk)]
    )

    deletes = f'<div id="pj-{kenji.pk}" hx-swap-oob="delete"></div>'
    assert found[("card", kenji.pk)] == found[("party", kenji.pk)] == deletes
    assert found[("own", kenji.pk)] is None


@pytest.mark.django_db
def test_the_pj_in_play_are_listed_with_their_players(campaign, aiko, kenji):
    found = parts.render(campaign.pk, "es", [("pks",)])

    assert sorted(found[("pks",)]) == sorted(
        [[aiko.pk, aiko.player_id], [kenji.pk, kenji.player_id]]
    )


@pytest.mark.django_db
def test_parts_are_rendered_in_the_language_asked(campaign, aiko):
    spanish = parts.render(campaign.pk, "es", [("card", aiko.pk)])[("card", aiko.pk)]
    english = parts.render(campaign.pk, "en", [("card", aiko.pk)])[("card", aiko.pk)]

    assert "Fin de turno" in spanish and "End of turn" in english


@pytest.mark.django_db
def test_an_unknown_part_is_an_error(campaign):
    with pytest.raises(ValueError):
        parts.render(campaign.pk, "es", [("secret",)])


def test_many_sheet_cards_read_the_party_clock_and_the_fight_once(
    campaign, aiko, kenji, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    mei = CharacterFactory(campaign=campaign, name="Mei")
    with CaptureQueriesContext(connection) as one:
        parts.render(campaign.pk, "es", [("own", aiko.pk)])

    with django_assert_max_num_queries(len(one)):
        parts.render(campaign.pk, "es", [("own", pk) for pk in (aiko.pk, kenji.pk, mei.pk)])
