"""Players: invitations, joining, the sheet, the player's own roll, and what stays hidden."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaign import services
from campaign.models import (
    CampaignChange,
    Character,
    Invitation,
    Membership,
    StateEvent,
    WrongCode,
)
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

HX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def _no_code_tries_left_over():
    cache.clear()
    yield
    cache.clear()


def suffer(campaign, character, type_, grade, actor=None, **extra):
    return services.event_record(
        campaign=campaign,
        character=character,
        event={"kind": "suffer", "type": type_, "grade": grade, **extra},
        actor=actor,
    )


# -- invitations (services) ---------------------------------------------------------------


def test_an_invitation_is_an_unguessable_token_and_a_short_code_that_expire(aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)

    assert len(invitation.token) >= 40
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{8}", invitation.code)
    assert invitation.expires_at - invitation.created_at == timedelta(hours=48)
    assert services.invitation_find(token=invitation.token) == invitation
    assert services.invitation_find(code=invitation.code.lower()[:4] + "-" + invitation.code[4:])


def test_two_invitations_never_share_a_token_or_code(campaign, dj):
    pjs = [CharacterFactory(campaign=campaign) for _ in range(20)]
    invitations = [services.invitation_create(character=pj, by=dj) for pj in pjs]

    assert len({i.token for i in invitations}) == 20
    assert len({i.code for i in invitations}) == 20


def test_a_new_invitation_cancels_the_pj_s_earlier_one(aiko, dj):
    first = services.invitation_create(character=aiko, by=dj)
    second = services.invitation_create(character=aiko, by=dj)

    assert services.invitation_find(token=first.token) is None
    assert services.invitation_find(token=second.token) == second


def test_joining_links_the_player_to_the_pj_once(campaign, aiko, player, dj):
    invitation = services.invitation_create(character=aiko, by=dj)

    character = services.invitation_accept(invitation=invitation, user=player)

    assert character.player == player
    assert Membership.objects.get(campaign=campaign, user=player).role == "player"
    invitation.refresh_from_db()
    assert invitation.used_by == player and invitation.used_at is not None
    change = CampaignChange.objects.filter(campaign=campaign).last()
    assert change.kind == "character" and change.character_id == aiko.pk
    with pytest.raises(ValidationError, match="ya se usó"):
        services.invitation_accept(invitation=invitation, user=UserFactory())


def test_an_expired_or_cancelled_invitation_joins_nobody(aiko, player, dj):
    expired = services.invitation_create(character=aiko, by=dj)
    Invitation.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(1))
    assert services.invitation_find(token=expired.token) is None
    with pytest.raises(ValidationError, match="caducado"):
        services.invitation_accept(invitation=expired, user=player)

    cancelled = services.invitation_create(character=aiko, by=dj)
    services.invitation_cancel(invitation=cancelled)
    with pytest.raises(ValidationError, match="se canceló"):
        services.invitation_accept(invitation=cancelled, user=player)
    assert Character.objects.get(pk=aiko.pk).player is None


def test_the_dj_cannot_join_as_a_player_nor_invite_to_a_pj_that_has_one(
    campaign, aiko, dj, joined, kenji
):
    with pytest.raises(ValidationError, match="ya tiene jugador"):
        services.invitation_create(character=joined, by=dj)
    invitation = services.invitation_create(character=kenji, by=dj)
    with pytest.raises(ValidationError, match="Eres el DJ"):
        services.invitation_accept(invitation=invitation, user=dj)
    assert Character.objects.get(pk=kenji.pk).player is None


def test_removing_a_player_ends_their_membership_unless_they_play_another_pj(
    campaign, joined, kenji, player, dj
):
    services.invitation_accept(
        invitation=services.invitation_create(character=kenji, by=dj), user=player
    )
    services.player_remove(character=joined)
    assert Membership.objects.filter(campaign=campaign, user=player).exists()

    services.player_remove(character=Character.objects.get(pk=kenji.pk))

    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    assert not Character.objects.filter(player=player).exists()
    # Every sheet hears of it: the former player's own sheet then finds its PJ gone.
    assert CampaignChange.objects.filter(campaign=campaign).last().character_id is None


# -- the DJ's players page ------------------------------------------------------------------


def test_the_dj_invites_from_the_players_page_and_sees_link_code_and_qr(client, dj, aiko):
    client.force_login(dj)

    response = client.post(reverse("invite", args=["kiso", aiko.pk]), follow=True)

    invitation = Invitation.objects.get(character=aiko)
    html = response.content.decode()
    assert "Invitación para Aiko lista" in html
    assert f"{invitation.code[:4]}-{invitation.code[4:]}" in html
    assert f"http://testserver/unirse/{invitation.token}/" in html
    assert "<svg" in html and "QR" in html


def test_the_players_page_shows_who_joined_and_the_dj_can_remove_them(client, dj, joined, player):
    client.force_login(dj)

    html = client.get(reverse("players", args=["kiso"])).content.decode()
    assert "Lo juega mei" in html

    response = client.post(reverse("player_remove", args=["kiso", joined.pk]), follow=True)
    assert "mei ya no juega a Aiko" in response.content.decode()
    assert Character.objects.get(pk=joined.pk).player is None


def test_inviting_to_a_pj_with_a_player_says_why_and_writes_nothing(client, dj, joined):
    client.force_login(dj)

    response = client.post(reverse("invite", args=["kiso", joined.pk]), follow=True)

    assert "ya tiene jugador" in response.content.decode()
    assert not Invitation.objects.filter(character=joined).exclude(used_at__isnull=False).exists()


def test_the_dj_cancels_an_invitation(client, dj, aiko):
    client.force_login(dj)
    invitation = services.invitation_create(character=aiko, by=dj)

    client.post(reverse("invitation_cancel", args=["kiso", invitation.pk]))

    assert services.invitation_find(token=invitation.token) is None


# -- joining (views) ------------------------------------------------------------------------


def test_a_new_player_signs_up_from_the_link_and_lands_on_the_sheet(client, campaign, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    url = reverse("join", args=[invitation.token])
    assert "Jugar a Aiko" in client.get(url).content.decode()

    response = client.post(
        url, {"username": "mei", "password1": "tres-lunas-9", "password2": "tres-lunas-9"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("sheet", args=["kiso", aiko.pk])
    mei = get_user_model().objects.get(username="mei")
    assert Character.objects.get(pk=aiko.pk).player == mei
    assert client.get(response["Location"]).status_code == 200


def test_a_bad_sign_up_shows_the_errors_and_creates_nobody(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)

    response = client.post(
        reverse("join", args=[invitation.token]),
        {"username": "mei", "password1": "tres-lunas-9", "password2": "otra-cosa-9"},
    )

    assert response.status_code == 422
    assert "no coinciden" in response.content.decode()
    assert not get_user_model().objects.filter(username="mei").exists()
    assert services.invitation_find(token=invitation.token) is not None


def test_a_logged_in_player_joins_with_one_tap(client, aiko, player, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    client.force_login(player)
    url = reverse("join", args=[invitation.token])
    assert "Unirme como mei" in client.get(url).content.decode()

    response = client.post(url)

    assert response["Location"] == reverse("sheet", args=["kiso", aiko.pk])
    assert Character.objects.get(pk=aiko.pk).player == player


def test_a_spent_or_unknown_link_says_so_with_a_404(client, joined):
    invitation = Invitation.objects.get(character=joined)
    for token in (invitation.token, "no-such-token"):
        response = client.get(reverse("join", args=[token]))
        assert response.status_code == 404
        assert "no es válida" in response.content.decode()


def test_a_link_with_a_nul_byte_is_unknown_not_a_500(client, aiko, dj):
    # PostgreSQL refuses NUL in a text parameter: it must never reach the query.
    services.invitation_create(character=aiko, by=dj)

    response = client.get("/unirse/abc%00def/")

    assert response.status_code == 404


def test_the_code_leads_to_the_invitation(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    typed = f" {invitation.code[:4].lower()} {invitation.code[4:]} "

    response = client.post(reverse("join_code"), {"code": typed})

    assert response["Location"] == reverse("join", args=[invitation.token])


def test_an_empty_code_asks_for_the_code_and_is_not_counted(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    for _ in range(12):
        response = client.post(reverse("join_code"), {"code": " - "})
        assert response.status_code == 422
        assert "Escribe el código que te dio tu DJ" in response.content.decode()

    response = client.post(reverse("join_code"), {"code": invitation.code})

    assert response["Location"] == reverse("join", args=[invitation.token])


def test_the_wrong_code_limit_is_kept_in_the_database_not_a_processs_memory(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    for _ in range(10):
        client.post(reverse("join_code"), {"code": "ZZZZZZZZ"})
    cache.clear()  # another worker, or the server restarted: no memory of its own
    other = Client()  # same address (the test client's 127.0.0.1), a new browser

    response = other.post(reverse("join_code"), {"code": invitation.code})

    assert response.status_code == 429
    assert WrongCode.objects.count() == 10


def test_wrong_codes_past_the_window_no_longer_count(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    long_ago = timezone.now() - timedelta(minutes=16)
    WrongCode.objects.bulk_create(WrongCode(address="127.0.0.1", at=long_ago) for _ in range(10))

    response = client.post(reverse("join_code"), {"code": invitation.code})

    assert response["Location"] == reverse("join", args=[invitation.token])


def test_wrong_codes_are_limited_per_address(client, aiko, dj):
    invitation = services.invitation_create(character=aiko, by=dj)
    for _ in range(10):
        response = client.post(reverse("join_code"), {"code": "ZZZZZZZZ"})
        assert response.status_code == 422
        assert "Ninguna invitación tiene ese código" in response.content.decode()

    response = client.post(reverse("join_code"), {"code": invitation.code})

    assert response.status_code == 429
    assert "Demasiados códigos erróneos" in response.content.decode()


# -- the sheet --------------------------------------------------------------------------


def test_home_lists_the_player_s_pj_as_links_to_their_sheets(client, joined, player):
    client.force_login(player)

    html = client.get(reverse("home")).content.decode()

    assert f'href="{reverse("sheet", args=["kiso", joined.pk])}">Aiko</a>' in html


def test_the_sheet_shows_the_card_checks_and_modifiers_without_secrets(
    client, campaign, joined, player, dj
):
    suffer(campaign, joined, "shock", "grave")
    suffer(campaign, joined, "afeccion", "leve", source="ponzoña azul")
    services.character_secrets_set(character=joined, add=["ponzoña azul"], remove=())
    services.event_record(
        campaign=campaign,
        character=joined,
        event={"kind": "special", "name": "maldito", "on": True},
    )
    services.character_secrets_set(character=joined, add=["maldito"], remove=())
    services.event_record(campaign=campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(player)

    response = client.get(reverse("sheet", args=["kiso", joined.pk]))

    html = response.content.decode()
    assert re.search(
        rf'<article[^>]*id="pj-{joined.pk}"[^>]*aria-labelledby="pj-{joined.pk}-name"', html
    )
    assert "no puede actuar" in html and "Shock Grave" in html
    assert "Tirar" in html  # the Shock grave check is pending
    assert "Para huir" in html and "Para combatir" in html
    assert "ponzoña" not in html.lower() and "maldito" not in html.lower()
    assert "Origen secreto" in html  # the Afección shows, without its source
    assert 'action="/c/kiso/pj/' in html and "/accion/" not in html  # no DJ forms


def test_a_secret_afeccion_shows_its_player_the_phases_effect_without_its_name(
    client, campaign, joined, player
):
    services.catalogue_entry_save(
        campaign=campaign,
        name="Ponzoña azul",
        kind="veneno",
        effect_leve="Hormigueo en los labios.",
        effect_grave="Vómitos y visión borrosa.",
    )
    suffer(campaign, joined, "afeccion", "leve", source="ponzoña azul")
    services.character_secrets_set(character=joined, add=["ponzoña azul"], remove=())
    client.force_login(player)
    sheet = reverse("sheet", args=["kiso", joined.pk])
    refresh = reverse("sheet_refresh", args=["kiso", joined.pk]) + "?all=1"

    for url in (sheet, refresh):
        html = client.get(url).content.decode()
        assert "Hormigueo en los labios." in html and "Origen secreto" in html
        assert "ponzoña" not in html.lower()

    services.event_record(
        campaign=campaign, character=joined, event={"kind": "progress", "type": "afeccion"}
    )
    html = client.get(sheet).content.decode()
    assert "Vómitos y visión borrosa." in html and "Hormigueo" not in html
    assert "ponzoña" not in html.lower()


def test_the_player_rolls_their_own_pending_check(client, campaign, joined, player):
    suffer(campaign, joined, "shock", "grave")
    services.event_record(campaign=campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(player)
    check = campaign.characters.get(pk=joined.pk).snapshot.state["pending"][0]["check"]

    response = client.post(
        reverse("sheet_roll", args=["kiso", joined.pk]), {"check": check, "key": "k1"}, headers=HX
    )

    assert response.status_code == 200
    event = StateEvent.objects.filter(campaign=campaign).order_by("-seq").first()
    assert event.event["kind"] == "save" and event.event["check"] == check
    assert 1 <= event.event["ts_roll"] <= 6
    assert event.actor == player
    assert 'class="toast"' in response.content.decode()
    campaign.refresh_from_db()
    assert response["X-Change-Cursor"] == str(campaign.change_cursor)
    # The sheet skips that news (static/js/live/answers.js).
    assert response["X-Change-Pj"] == str(joined.pk)
    # A double tap records once.
    client.post(
        reverse("sheet_roll", args=["kiso", joined.pk]), {"check": check, "key": "k1"}, headers=HX
    )
    assert StateEvent.objects.filter(campaign=campaign, event__kind="save").count() == 1


def test_a_double_tapped_roll_shows_the_die_that_was_recorded(
    client, campaign, joined, player, monkeypatch
):
    suffer(campaign, joined, "shock", "grave")
    services.event_record(campaign=campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(player)
    url = reverse("sheet_roll", args=["kiso", joined.pk])
    check = campaign.characters.get(pk=joined.pk).snapshot.state["pending"][0]["check"]

    monkeypatch.setattr("campaign.taps.secrets.randbelow", lambda n: 1)  # a 2 on the die
    first = client.post(url, {"check": check, "key": "k1"}, headers=HX).content.decode()
    monkeypatch.setattr("campaign.taps.secrets.randbelow", lambda n: 5)  # a 6 on the die
    again = client.post(url, {"check": check, "key": "k1"}, headers=HX).content.decode()

    # The second tap records nothing: its toast is the first roll's, die and all.
    assert "1d6 = 2" in first
    assert "1d6 = 2" in again and "1d6 = 6" not in again


def test_a_roll_with_a_nul_byte_in_its_key_is_not_a_500(client, campaign, joined, player):
    suffer(campaign, joined, "shock", "grave")
    services.event_record(campaign=campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(player)
    check = campaign.characters.get(pk=joined.pk).snapshot.state["pending"][0]["check"]

    response = client.post(
        reverse("sheet_roll", args=["kiso", joined.pk]),
        {"check": check, "key": "k\x001"},
        headers=HX,
    )

    assert response.status_code == 200
    assert StateEvent.objects.filter(campaign=campaign, event__kind="save").count() == 1


def test_rolling_a_check_that_is_not_pending_is_refused_with_a_message(client, joined, player):
    client.force_login(player)

    response = client.post(
        reverse("sheet_roll", args=["kiso", joined.pk]), {"check": "shock_grave"}, headers=HX
    )

    assert response.status_code == 422
    assert 'role="alert"' in response.content.decode()
    assert not StateEvent.objects.filter(event__kind="save").exists()


def test_a_secret_afeccion_of_another_pj_shows_the_party_neither_name_nor_effect(
    client, campaign, joined, kenji, player
):
    services.catalogue_entry_save(
        campaign=campaign, name="Fiebre gris", kind="enfermedad", effect_leve="Sudores fríos."
    )
    suffer(campaign, kenji, "afeccion", "leve", source="fiebre gris")
    services.character_secrets_set(character=kenji, add=["fiebre gris"], remove=())
    services.campaign_update(campaign=campaign, players_see_party=True)
    client.force_login(player)

    html = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()
    refresh = client.get(
        reverse("sheet_refresh", args=["kiso", joined.pk]), {"pj": kenji.pk}, headers=HX
    ).content.decode()

    for part in (html, refresh):
        kenjis = part[part.index(f'id="pj-{kenji.pk}"') :]
        assert "el DJ conoce su origen" in kenjis  # his Afección shows, as before
        assert "Sudores" not in part and "fiebre" not in part.lower()
        assert "Origen secreto" not in part


def test_a_sheet_refresh_sends_only_what_the_player_may_see(
    client, campaign, joined, kenji, player
):
    client.force_login(player)
    url = reverse("sheet_refresh", args=["kiso", joined.pk])

    own = client.get(url, {"pj": joined.pk}, headers=HX).content.decode()
    other = client.get(url, {"pj": kenji.pk}, headers=HX).content.decode()
    everyone = client.get(url, {"all": "1"}, headers=HX).content.decode()

    assert f'id="pj-{joined.pk}"' in own and 'id="sheet-status"' in own
    assert "Kenji" not in other and f'id="pj-{kenji.pk}"' not in everyone
    assert client.get(url, {"pj": "x"}, headers=HX).status_code == 400


def test_with_the_party_option_the_sheet_shows_the_others_public_parts(
    client, campaign, joined, kenji, player, dj
):
    suffer(campaign, kenji, "heridas", "leve")
    services.event_record(
        campaign=campaign, character=kenji, event={"kind": "special", "name": "marcado", "on": True}
    )
    services.character_secrets_set(character=kenji, add=["marcado"], remove=())
    services.campaign_update(campaign=campaign, players_see_party=True)
    client.force_login(player)

    html = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()
    refresh = client.get(
        reverse("sheet_refresh", args=["kiso", joined.pk]), {"pj": kenji.pk}, headers=HX
    ).content.decode()

    for part in (html, refresh):
        assert f'id="pj-{kenji.pk}"' in part and "Heridas Leve" in part
        assert "marcado" not in part.lower()
    assert html.count("Tirar") == 0


def test_the_campaign_settings_turn_the_party_option_on(client, dj, campaign):
    client.force_login(dj)

    client.post(
        reverse("campaign_settings", args=["kiso"]),
        {"name": "Kiso", "round_seconds": "6", "players_see_party": "on"},
    )

    campaign.refresh_from_db()
    assert campaign.players_see_party is True


def test_the_dj_may_open_a_sheet_to_see_what_the_player_sees(client, dj, joined):
    client.force_login(dj)

    html = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()

    assert "Esto es lo que ve el jugador" in html


def test_the_service_worker_is_served_from_the_root(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "zodiac-sheets-v1" in response.content.decode()
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_every_page_links_the_app_manifest(client, player):
    client.force_login(player)

    html = client.get(reverse("home")).content.decode()

    assert re.search(r'<link rel="manifest" href="/static/manifest\.webmanifest">', html)


def test_campaigns_stay_apart(client, player, joined):
    other = CampaignFactory(slug="otra")
    stranger = CharacterFactory(campaign=other, name="Sora")
    client.force_login(player)

    assert client.get(reverse("sheet", args=["otra", stranger.pk])).status_code == 404
    assert client.get(reverse("sheet", args=["kiso", stranger.pk])).status_code == 404


def test_the_board_card_shows_the_player_or_a_way_to_invite_one(client, dj, joined, kenji):
    client.force_login(dj)

    html = client.get(reverse("board", args=["kiso"])).content.decode()

    assert '<span class="player">mei</span>' in html
    assert f'href="/c/kiso/jugadores/#pj-{kenji.pk}">Invitar a un jugador' in html


def test_cancelling_an_invitation_already_used_says_so(client, dj, joined):
    client.force_login(dj)
    invitation = Invitation.objects.get(character=joined)

    response = client.post(reverse("invitation_cancel", args=["kiso", invitation.pk]), follow=True)

    assert "ya se usó" in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


def test_the_dj_looking_at_a_sheet_sees_its_checks_but_no_roll_button(client, dj, joined):
    services.event_record(
        campaign=joined.campaign,
        character=joined,
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
    )
    services.event_record(campaign=joined.campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(dj)

    html = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()

    assert "TS VOL: salir de Shock grave" in html
    assert "button-roll" not in html and "El jugador la tira desde esta hoja." in html


def test_the_djs_live_refresh_of_a_sheet_keeps_the_roll_button_out(client, dj, joined):
    services.event_record(
        campaign=joined.campaign,
        character=joined,
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
    )
    services.event_record(campaign=joined.campaign, character=joined, event={"kind": "turn_end"})
    client.force_login(dj)

    html = client.get(
        reverse("sheet_refresh", args=["kiso", joined.pk]), {"pj": joined.pk}
    ).content.decode()

    assert "TS VOL: salir de Shock grave" in html and "button-roll" not in html


def test_a_sheet_says_how_far_its_pj_is_behind_the_party(client, campaign, joined, player, kenji):
    services.event_record(
        campaign=campaign, character=kenji, event={"kind": "time", "hours": 1}
    )  # Kenji alone: the party's clock is his
    client.force_login(player)

    html = client.get(reverse("sheet", args=["kiso", joined.pk])).content.decode()

    assert re.search(
        r'class="sheet-behind">1 h por detrás del grupo\. Tu DJ lo pondrá al día\.', html
    )
