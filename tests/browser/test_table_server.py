"""The app as `make run` serves it to a table: DEBUG off over plain HTTP. A player logs in
from the login page and meets the app's own pages, never Django's DEBUG page."""

import os
import re
import secrets
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser.conftest import (
    ROOT,
    database_url,
    set_real_password,
    start_server,
    stop_server,
)
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


@pytest.fixture(scope="module")
def table_server(tmp_path_factory, django_db_setup, django_db_blocker):
    env = {
        "DEBUG": "false",
        "HTTPS": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "STATIC_ROOT": str(tmp_path_factory.mktemp("static")),
    }
    collect = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert collect.returncode == 0, collect.stderr
    process, base = start_server(extra_env=env)
    yield base
    stop_server(process)


def test_a_player_logs_in_over_http_and_meets_the_apps_own_pages(
    browser, table_server, transactional_db
):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    mei = UserFactory(username="mei")
    set_real_password(mei, "una clave larga de mesa")
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    context = browser.new_context(locale="es-ES", viewport={"width": 360, "height": 740})
    page = context.new_page()

    page.goto(f"{table_server}/accounts/login/")
    page.get_by_label("Nombre de usuario").fill("mei")
    page.get_by_label("Contraseña").fill("una clave larga de mesa")
    page.get_by_role("button", name="Entrar").click()
    expect(page.get_by_role("heading", name="Aiko")).to_be_visible()

    for path in ("/c/kiso/", "/c/kiso/pj/999/hoja/", "/no-existe/"):
        response = page.goto(f"{table_server}{path}")
        assert response.status == 404
        expect(page.get_by_role("heading", name="Página no encontrada")).to_be_visible()
        expect(page.locator("body")).not_to_contain_text("URLconf")
        # The app's look: its stylesheet, collected and served with DEBUG off.
        assert (
            page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") == "flex"
        )
    page.screenshot(path="/tmp/zodiac-screenshots/error-404-360.png", full_page=True)
    services.character_archive(character=aiko)
    page.goto(f"{table_server}/c/kiso/pj/{aiko.pk}/hoja/")
    expect(page.get_by_role("heading", name="Aiko está archivado")).to_be_visible()
    # An action's address typed in the address bar: the app's page, not a blank one.
    response = page.goto(f"{table_server}/accounts/logout/")
    assert response.status == 405
    expect(page.get_by_role("heading", name="No es una página")).to_be_visible()
    page.screenshot(path="/tmp/zodiac-screenshots/error-405-360.png", full_page=True)


def test_the_sheets_modules_import_each_other_by_their_hashed_names(
    browser, table_server, transactional_db
):
    """The sheet's script is an ES module importing static/js/live/: collected with DEBUG
    off, every import names a hashed file (config/storage.py), and the live channel runs."""
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    mei = UserFactory(username="mei")
    set_real_password(mei, "una clave larga de mesa")
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    context = browser.new_context(locale="es-ES")
    page = context.new_page()
    scripts = []
    page.on(
        "request", lambda request: scripts.append(request.url) if "/js/" in request.url else None
    )
    page.goto(f"{table_server}/accounts/login/")
    page.get_by_label("Nombre de usuario").fill("mei")
    page.get_by_label("Contraseña").fill("una clave larga de mesa")
    page.get_by_role("button", name="Entrar").click()
    page.goto(f"{table_server}/c/kiso/pj/{aiko.pk}/hoja/")

    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    modules = [url.split("/static/", 1)[1] for url in scripts if "/static/js/" in url]
    assert any(re.fullmatch(r"js/live/tabs\.[0-9a-f]{12}\.js", name) for name in modules)
    assert all(re.fullmatch(r"js/[\w/]+\.[0-9a-f]{12}\.js", name) for name in modules), modules
    context.close()
