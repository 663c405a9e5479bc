"""Login, home page, logout and the language switch."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from tests.factories import UserFactory


@pytest.fixture
def demo(db):
    call_command("demo", stdout=StringIO())


def test_a_visitor_is_sent_to_the_login_page(client, db):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next=/"


def test_the_login_page_is_in_spanish_by_default(client, db):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="es">' in html
    assert "Entrar" in html
    assert "Content-Security-Policy" in response.headers


def test_a_browser_asking_for_english_still_gets_spanish_until_the_switch(client, db):
    html = client.get(reverse("login"), headers={"accept-language": "en-US,en;q=0.9"})
    assert "Entrar" in html.content.decode()


def test_the_dj_logs_in_and_sees_the_demo_campaign(client, demo):
    response = client.post(
        reverse("login"), {"username": "dj", "password": "zodiac-demo"}, follow=True
    )
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == reverse("home")
    assert "Tus campañas" in html
    assert "Demo" in html
    assert "DJ" in html


def test_a_player_sees_their_campaign_as_player(client, demo):
    client.force_login(get_user_model().objects.get(username="mei"))
    html = client.get("/").content.decode()
    assert "Demo" in html
    assert "Jugador" in html


def test_a_user_without_campaigns_does_not_see_the_demo(client, demo):
    client.force_login(UserFactory())
    html = client.get("/").content.decode()
    assert "Demo" not in html
    assert "Aún no estás en ninguna campaña" in html


def test_a_wrong_password_shows_a_clear_message(client, demo):
    response = client.post(reverse("login"), {"username": "dj", "password": "nope"})
    assert response.status_code == 200
    assert "Ese nombre de usuario y esa contraseña no coinciden." in response.content.decode()


def test_the_language_switch_turns_the_ui_to_english_and_back(client, db):
    client.force_login(UserFactory())
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"}, follow=True)
    html = response.content.decode()
    assert '<html lang="en">' in html
    assert "Your campaigns" in html
    assert "Español" in html  # the way back

    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert "Tus campañas" in client.get("/").content.decode()


def test_logging_out_returns_to_the_login_page(client, db):
    user = UserFactory()
    client.force_login(user)
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert client.get("/").status_code == 302


def test_htmx_is_served_by_the_app_itself(client, db):
    client.force_login(UserFactory())
    html = client.get("/").content.decode()
    assert 'src="/static/django_htmx/htmx-2.min.js"' in html
    assert "nonce=" in html
    assert client.get("/static/django_htmx/htmx-2.min.js").status_code == 200
    assert client.get("/static/css/app.css").status_code == 200


def test_an_unknown_address_is_a_friendly_404(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Página no encontrada" in response.content.decode()


def test_posting_to_the_home_page_is_refused_not_an_error(client, db):
    client.force_login(UserFactory())
    assert client.post("/").status_code == 405
