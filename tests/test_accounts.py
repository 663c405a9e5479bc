"""Accounts: login throttling (django-axes), password change, a logout that clears the browser."""

import re
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

LOCKED_ES = "Demasiados intentos fallidos. Espera 15 minutos y vuelve a intentarlo."
LOCKED_EN = "Too many failed attempts. Wait 15 minutes and try again."
NEW_PASSWORD = "otra-clave-de-Kiso-2025"


def log_in(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def is_logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail(client: Client, username: str, times: int) -> list[int]:
    return [log_in(client, username, "not-the-password").status_code for _ in range(times)]


# Login throttling


def test_the_sixth_try_is_refused_with_429_even_with_the_right_password(client, db):
    UserFactory(username="aiko")

    # Four failures are plain wrong passwords; the fifth locks the username from this address.
    assert fail(client, "aiko", 5) == [200, 200, 200, 200, 429]
    response = log_in(client, "aiko", PASSWORD)

    assert response.status_code == 429
    html = response.content.decode()
    assert LOCKED_ES in html
    assert 'role="alert"' in html
    assert f'action="{reverse("login")}"' in html  # the login page, not a bare text
    assert 'value="aiko"' in html
    assert response["Retry-After"] == "900"
    assert not is_logged_in(client)
    assert client.get("/").status_code == 302


def test_a_wrong_password_before_the_limit_says_only_that(client, db):
    UserFactory(username="aiko")
    response = log_in(client, "aiko", "not-the-password")
    assert response.status_code == 200
    assert "Demasiados intentos" not in response.content.decode()


def test_a_login_before_the_limit_resets_the_count(client, db):
    UserFactory(username="aiko")
    assert fail(client, "aiko", 4) == [200] * 4
    assert log_in(client, "aiko", PASSWORD).status_code == 302
    client.post(reverse("logout"))

    # Without the reset the first of these would be the fifth failure, and lock.
    assert fail(client, "aiko", 4) == [200] * 4
    assert log_in(client, "aiko", PASSWORD).status_code == 302
    assert is_logged_in(client)


def test_a_lockout_holds_only_for_that_username_from_that_address(client, db):
    UserFactory(username="aiko")
    UserFactory(username="kenji")
    fail(client, "aiko", 5)
    assert log_in(client, "aiko", PASSWORD).status_code == 429

    same_table = Client()  # the same address: another player at the table
    assert log_in(same_table, "kenji", PASSWORD).status_code == 302
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")  # the same player at home
    assert log_in(elsewhere, "aiko", PASSWORD).status_code == 302


def test_the_lockout_page_is_spanish_by_default_and_english_when_chosen(client, db):
    UserFactory(username="aiko")
    fail(client, "aiko", 5)

    response = log_in(client, "aiko", PASSWORD)
    html = response.content.decode()
    assert '<html lang="es">' in html
    assert LOCKED_ES in html
    assert "Entrar" in html

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = log_in(client, "aiko", PASSWORD).content.decode()
    assert '<html lang="en">' in html
    assert LOCKED_EN in html


def test_an_admin_unlocks_a_player_with_axes_reset_username(client, db):
    UserFactory(username="aiko")
    fail(client, "aiko", 5)
    assert log_in(client, "aiko", PASSWORD).status_code == 429

    call_command("axes_reset_username", "aiko", stdout=StringIO())

    assert log_in(client, "aiko", PASSWORD).status_code == 302


# Password change

NEW = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}


def test_an_anonymous_visitor_is_sent_to_log_in_first(client, db):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={reverse('password_change')}"


def test_the_header_links_to_the_password_page_when_logged_in(client, db):
    assert reverse("password_change") not in client.get(reverse("login")).content.decode()
    client.force_login(UserFactory())
    html = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("password_change")}"' in html
    assert ">Contraseña</a>" in html


def test_a_player_changes_their_password_and_stays_logged_in(client, db):
    user = UserFactory()
    client.force_login(user)
    page = client.get(reverse("password_change"))
    assert page.status_code == 200
    assert "Cambiar contraseña" in page.content.decode()

    response = client.post(reverse("password_change"), {"old_password": PASSWORD, **NEW})

    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert client.get(reverse("home")).status_code == 200
    done = client.get(reverse("password_change_done")).content.decode()
    assert "Contraseña cambiada" in done
    assert log_in(Client(), user.username, NEW_PASSWORD).status_code == 302


def test_a_password_change_logs_out_the_other_devices(client, db):
    user = UserFactory()
    other_phone = Client()
    other_phone.force_login(user)
    client.force_login(user)
    assert other_phone.get(reverse("home")).status_code == 200

    client.post(reverse("password_change"), {"old_password": PASSWORD, **NEW})

    assert client.get(reverse("home")).status_code == 200
    assert other_phone.get(reverse("home")).status_code == 302


@pytest.mark.parametrize(
    ("data", "field", "error"),
    [
        (
            {"old_password": "not-the-password", **NEW},
            "old_password",
            "Su contraseña antigua es incorrecta.",
        ),
        (
            {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": "otra"},
            "new_password2",
            "Las dos contraseñas no coinciden.",
        ),
        (
            {"old_password": PASSWORD, "new_password1": "12345678", "new_password2": "12345678"},
            "new_password2",
            "Esta contraseña es solo números.",
        ),
        (
            {"old_password": PASSWORD, "new_password1": "zx9", "new_password2": "zx9"},
            "new_password2",
            "Esta contraseña es demasiado corta",
        ),
    ],
    ids=["wrong-current", "mismatch", "numeric", "short"],
)
def test_a_refused_change_shows_the_error_at_its_field_and_changes_nothing(
    client, db, data, field, error
):
    user = UserFactory()
    client.force_login(user)

    response = client.post(reverse("password_change"), data)

    assert response.status_code == 200
    html = response.content.decode()
    assert error in html
    assert 'class="error-summary"' in html
    assert f'id="id_{field}_error"' in html
    assert re.search(rf'aria-describedby="[^"]*id_{field}_error"', html)
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_the_errors_are_in_english_for_an_english_player(client, db):
    user = UserFactory()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.post(
        reverse("password_change"), {"old_password": "not-the-password", **NEW}
    ).content.decode()
    assert "Your old password was entered incorrectly." in html
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


# Logout


def test_logging_out_clears_the_browser_and_ends_the_session(client, db):
    client.force_login(UserFactory())

    response = client.post(reverse("logout"))

    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert response["Clear-Site-Data"] == '"cache", "storage"'
    assert not is_logged_in(client)
    assert client.get(reverse("home")).status_code == 302


def test_logging_out_still_takes_a_post(client, db):
    client.force_login(UserFactory())
    assert client.get(reverse("logout")).status_code == 405
    assert is_logged_in(client)


# Signing up, usernames in any case, landing, a DJ's password link


def sign_up(client: Client, username: str, password: str = NEW_PASSWORD):
    return client.post(
        reverse("signup"), {"username": username, "password1": password, "password2": password}
    )


def test_a_new_dj_signs_up_from_the_login_page_and_goes_on_to_a_campaign(client, db):
    from django.contrib.auth import get_user_model

    page = client.get(reverse("login")).content.decode()
    assert reverse("signup") in page and "Crear una cuenta" in page

    response = sign_up(client, "Haruka")

    assert response.status_code == 302 and response["Location"] == reverse("campaign_new")
    assert is_logged_in(client)
    assert get_user_model().objects.filter(username="Haruka").exists()


def test_sign_up_is_off_on_a_private_server(client, db, settings):
    settings.SIGNUP = False
    from django.contrib.auth import get_user_model

    assert reverse("signup") not in client.get(reverse("login")).content.decode()
    assert client.get(reverse("signup")).status_code == 404
    assert sign_up(client, "Haruka").status_code == 404
    assert not get_user_model().objects.filter(username="Haruka").exists()


def test_a_username_is_one_name_whatever_its_case(client, db):
    from django.contrib.auth import get_user_model
    from django.db import IntegrityError, transaction

    UserFactory(username="Mei")
    users = get_user_model().objects.count()

    response = sign_up(client, "mei")

    assert response.status_code == 422
    assert "Ese nombre de usuario ya existe" in response.content.decode()
    assert get_user_model().objects.count() == users and not is_logged_in(client)
    # The database holds it too, whoever writes (the admin, createsuperuser).
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user(username="MEI", password=NEW_PASSWORD)
    # And logging in finds the account in any case.
    assert log_in(client, "mEI", PASSWORD).status_code == 302 and is_logged_in(client)


@pytest.fixture
def table(dj, campaign, joined, player):
    return {"dj": dj, "campaign": campaign, "aiko": joined, "mei": player}


def test_a_player_with_one_pj_lands_on_its_sheet_after_logging_in(client, table):
    sheet = reverse("sheet", args=["kiso", table["aiko"].pk])

    assert log_in(client, "mei", PASSWORD)["Location"] == sheet
    client.logout()
    assert log_in(client, "test-dj", PASSWORD)["Location"] == reverse("home")
    client.logout()
    elsewhere = client.post(
        reverse("login") + "?next=/reglas/", {"username": "mei", "password": PASSWORD}
    )
    assert elsewhere["Location"] == "/reglas/"


def test_the_dj_gives_a_player_a_one_time_password_link(client, table):
    client.force_login(table["dj"])
    url = reverse("password_link", args=["kiso", table["aiko"].pk])

    page = client.post(url).content.decode()

    link = re.search(r'value="(http://testserver/accounts/nueva-clave/[^"]+)"', page).group(1)
    player = Client()
    form = player.get(link, follow=True)
    assert "Para la cuenta mei" in form.content.decode()
    done = player.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert log_in(Client(), "mei", NEW_PASSWORD).status_code == 302
    again = Client().get(link, follow=True).content.decode()
    assert "Este enlace ya no sirve" in again


def test_no_password_link_for_a_player_who_also_plays_for_another_dj(client, table):
    from campaign import services
    from tests.factories import CampaignFactory, CharacterFactory

    other = CampaignFactory(name="Otra", slug="otra", dj=UserFactory(username="otro-dj"))
    ren = CharacterFactory(campaign=other, name="Ren")
    services.invitation_accept(
        invitation=services.invitation_create(character=ren, by=other.memberships.get().user),
        user=table["mei"],
    )
    client.force_login(table["dj"])

    page = client.post(reverse("password_link", args=["kiso", table["aiko"].pk])).content.decode()

    assert "nueva-clave" not in page
    assert "también juega en campañas de otros DJ" in page
    assert "manage.py changepassword mei" in page


def test_a_player_who_opened_the_apps_address_still_lands_on_the_sheet(client, table):
    sheet = reverse("sheet", args=["kiso", table["aiko"].pk])

    response = client.post(
        reverse("login") + "?next=/", {"username": "mei", "password": PASSWORD, "next": "/"}
    )

    assert response["Location"] == sheet


def test_an_empty_sign_up_says_which_field_each_error_is_about(client, db):
    response = client.post(reverse("signup"), {})

    html = response.content.decode()
    assert response.status_code == 422
    assert re.search(
        r'<li><a href="#id_username">Nombre de usuario: Este campo es obligatorio', html
    )
    assert not get_user_model().objects.exists()


def test_a_password_too_weak_is_said_by_the_password_not_its_confirmation(client, db):
    response = client.post(
        reverse("signup"), {"username": "hana", "password1": "12345678", "password2": "12345678"}
    )

    html = response.content.decode()
    assert response.status_code == 422
    assert re.search(r'<li><a href="#id_password1">Contraseña: [^<]*común', html), html
    assert 'href="#id_password2"' not in html
    assert not get_user_model().objects.exists()


def test_a_wrong_login_says_the_username_ignores_case(client, db):
    UserFactory(username="hana")

    html = client.post(reverse("login"), {"username": "hana", "password": "nope"}).content.decode()

    assert "La contraseña distingue mayúsculas; el nombre, no." in html
    assert "sensibles a mayúsculas" not in html
