"""The pages a player can meet when something is wrong: 400, 403, 404 and 500 in the
app's look and language, never Django's DEBUG page (DEBUG is off, as under `make run`)."""

import psycopg
import pytest
from django.db import OperationalError
from django.test import Client, override_settings
from django.urls import reverse

from campaign import services
from tests.pool import closed_port, pool_timeout

DEBUG_PAGE_WORDS = ("Using the URLconf", "Traceback", "DEBUG = True", "Request Method")


def looks_like_the_app(html: str) -> None:
    assert 'class="topbar"' in html and "css/app.css" in html
    assert 'lang="es"' in html
    for words in DEBUG_PAGE_WORDS:
        assert words not in html


@pytest.fixture
def seated(campaign, joined, player):
    """The shared fixtures' player (mei, who plays Aiko), logged in."""
    client = Client()
    client.force_login(player)
    return {"client": client, "campaign": campaign, "aiko": joined, "user": player}


@override_settings(DEBUG=False)
def test_a_player_on_the_djs_board_meets_the_apps_404_in_spanish(seated):
    response = seated["client"].get(reverse("board", args=["kiso"]))

    assert response.status_code == 404
    html = response.content.decode()
    looks_like_the_app(html)
    assert "Página no encontrada" in html and "Volver a tus campañas" in html
    assert "¿Buscabas la hoja de tu PJ?" not in html  # a board's address: no sheet hint


@override_settings(DEBUG=False)
def test_a_sheet_not_found_asks_if_it_was_your_pjs(seated):
    response = seated["client"].get(reverse("sheet", args=["kiso", 99999]))

    assert response.status_code == 404
    assert "¿Buscabas la hoja de tu PJ?" in response.content.decode()


@override_settings(DEBUG=False)
def test_a_player_whose_pj_was_archived_meets_the_404_that_says_why(seated):
    services.character_archive(character=seated["aiko"])

    response = seated["client"].get(reverse("sheet", args=["kiso", seated["aiko"].pk]))

    assert response.status_code == 404
    assert "Aiko está archivado" in response.content.decode()


@override_settings(DEBUG=False)
def test_a_form_sent_without_its_token_meets_the_apps_403(seated):
    client = Client(enforce_csrf_checks=True)
    client.force_login(seated["user"])

    response = client.post(reverse("logout"))

    assert response.status_code == 403
    html = response.content.decode()
    looks_like_the_app(html)
    assert "Página caducada" in html and "No se ha anotado nada" in html


@override_settings(DEBUG=False, ALLOWED_HOSTS=["zodiac.example"])
def test_a_bad_host_meets_the_apps_400(seated):
    response = seated["client"].get("/", headers={"host": "elsewhere.example"})

    assert response.status_code == 400
    html = response.content.decode()
    looks_like_the_app(html)
    assert "Petición no entendida" in html


@override_settings(DEBUG=False)
def test_a_crash_meets_the_apps_500_in_spanish(seated, monkeypatch):
    from campaign.views import home

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(home, "render", broken)
    client = Client(raise_request_exception=False)
    client.force_login(seated["user"])

    response = client.get(reverse("home"))

    assert response.status_code == 500
    html = response.content.decode()
    assert "Algo ha fallado" in html and "css/app.css" in html
    for words in (*DEBUG_PAGE_WORDS, "boom", "RuntimeError"):
        assert words not in html


@override_settings(DEBUG=False)
def test_an_actions_address_opened_in_the_address_bar_meets_the_apps_405(seated, dj, client):
    client.force_login(dj)

    response = client.get(reverse("party_time", args=["kiso"]))

    assert response.status_code == 405 and response["Allow"] == "POST"
    html = response.content.decode()
    looks_like_the_app(html)
    assert "No es una página" in html and "Volver a tus campañas" in html


def test_a_405_to_htmx_stays_bare(seated, dj, client):
    client.force_login(dj)

    response = client.get(reverse("party_time", args=["kiso"]), headers={"HX-Request": "true"})

    assert response.status_code == 405 and response.content == b""


@override_settings(DEBUG=False)
def test_only_its_own_player_learns_that_a_pj_is_archived(seated, campaign):
    from tests.factories import UserFactory

    services.character_archive(character=seated["aiko"])
    stranger = Client()
    stranger.force_login(UserFactory(username="ren"))

    response = stranger.get(reverse("sheet", args=["kiso", seated["aiko"].pk]))

    assert response.status_code == 404
    assert "Aiko" not in response.content.decode()
    assert "Página no encontrada" in response.content.decode()


def _raising(error: Exception):
    def broken(*args, **kwargs):
        raise error

    return broken


def _database_error(cause: Exception) -> OperationalError:
    """A database error as Django raises it, from the driver's `cause`."""
    try:
        raise OperationalError(str(cause)) from cause
    except OperationalError as error:
        return error


@override_settings(DEBUG=False)
def test_a_database_out_of_reach_meets_the_503_page_that_says_to_try_again(seated, monkeypatch):
    from campaign.views import home

    refused = psycopg.OperationalError("connection refused")  # no SQLSTATE: the client's
    monkeypatch.setattr(home, "render", _raising(_database_error(refused)))
    client = Client(raise_request_exception=False)
    client.force_login(seated["user"])

    response = client.get(reverse("home"))

    assert response.status_code == 503
    assert response["Retry-After"] == "5"  # the proxy's fail_timeout (deploy/nginx)
    html = response.content.decode()
    looks_like_the_app(html)
    assert "El servidor no alcanza sus datos" in html
    assert "Inténtalo de nuevo en unos segundos" in html
    assert "connection refused" not in html


@override_settings(DEBUG=False)
def test_a_query_that_fails_on_a_database_that_answers_is_still_a_500(seated, monkeypatch):
    from campaign.views import home

    deadlock = psycopg.errors.DeadlockDetected("deadlock detected")  # SQLSTATE 40P01
    monkeypatch.setattr(home, "render", _raising(_database_error(deadlock)))
    client = Client(raise_request_exception=False)
    client.force_login(seated["user"])

    response = client.get(reverse("home"))

    assert response.status_code == 500
    assert "Algo ha fallado" in response.content.decode()


# -- a process whose pool lent no connection in time --------------------------------------


@pytest.fixture
def probe(monkeypatch):
    """The probe of `campaign.database`, fresh, pointed at the given parameters."""
    from campaign import database

    database.forget()

    def point(params: dict) -> None:
        monkeypatch.setattr(database, "direct_params", lambda: params)

    yield point
    database.forget()


def test_django_wraps_a_pool_timeout_so_that_it_is_told_apart():
    from campaign import database

    error = pool_timeout()

    assert database.pool_timeout(error)
    assert not database.pool_timeout(_database_error(psycopg.OperationalError("refused")))
    assert not database.pool_timeout(ValueError("no"))


def test_the_probe_says_no_for_a_server_that_is_not_there(probe):
    from campaign import database

    probe({"host": "127.0.0.1", "port": closed_port(), "dbname": "none"})

    assert database.answers() is False


@pytest.mark.django_db
def test_the_probe_says_yes_for_the_database_that_answers_and_asks_once_a_second(probe):
    from django.db import connection

    from campaign import database

    if connection.vendor != "postgresql":
        pytest.skip("the probe connects to PostgreSQL (make test-postgres)")
    probe(database.direct_params())

    assert database.answers() is True
    probe({"host": "127.0.0.1", "port": closed_port(), "dbname": "none"})
    assert database.answers() is True  # the last probe's answer, within PROBE_SECONDS
    database.forget()
    assert database.answers() is False


@override_settings(DEBUG=False)
def test_a_tap_on_a_busy_process_is_refused_on_its_card_and_writes_nothing(seated, dj, monkeypatch):
    from campaign import database
    from campaign.models import StateEvent
    from campaign.views import board

    monkeypatch.setattr(board, "campaign_for_dj", _raising(pool_timeout()))
    monkeypatch.setattr(database, "answers", lambda: True)  # its database answers: busy
    client = Client(raise_request_exception=False)
    client.force_login(dj)
    before = StateEvent.objects.count()

    response = client.post(
        reverse("act", args=["kiso", seated["aiko"].pk]),
        {"action": "suffer", "type_grade": "heridas:leve", "key": "k1"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 409  # a refusal, not a failure: the proxy keeps it
    assert response["X-Zodiac-Refused"] == "busy" and response["HX-Reswap"] == "none"
    assert response["Retry-After"] == "2"
    assert response.content.decode() == (
        "No se ha registrado: el servidor está muy ocupado. Espera unos segundos y vuelve a tocar."
    )
    assert StateEvent.objects.count() == before


@override_settings(DEBUG=False)
def test_a_page_on_a_busy_process_says_it_is_busy_with_a_429(seated, monkeypatch):
    from campaign import database
    from campaign.views import home

    monkeypatch.setattr(home, "render", _raising(pool_timeout()))
    monkeypatch.setattr(database, "answers", lambda: True)
    client = Client(raise_request_exception=False)
    client.force_login(seated["user"])

    response = client.get(reverse("home"))

    assert response.status_code == 429
    assert response["Retry-After"] == "2"
    html = response.content.decode()
    looks_like_the_app(html)
    assert "El servidor está muy ocupado" in html
    assert "No se ha registrado nada. Inténtalo de nuevo en unos segundos." in html
    assert "no alcanza sus datos" not in html


@override_settings(DEBUG=False)
def test_a_pool_timeout_while_the_database_does_not_answer_is_the_503(seated, probe, monkeypatch):
    from campaign.views import home

    monkeypatch.setattr(home, "render", _raising(pool_timeout()))
    probe({"host": "127.0.0.1", "port": closed_port(), "dbname": "none"})  # a real probe
    client = Client(raise_request_exception=False)
    client.force_login(seated["user"])

    response = client.get(reverse("home"))

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "El servidor no alcanza sus datos" in response.content.decode()
