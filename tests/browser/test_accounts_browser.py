"""A player changes their password in a real browser, on a phone, and logs in with the new one."""

import re

from playwright.sync_api import expect

from tests.browser.conftest import log_in, screenshot, set_real_password
from tests.factories import CampaignFactory, UserFactory

OLD = "a-long-test-passphrase"
NEW = "otra-clave-de-Kiso-2025"


def test_a_player_changes_their_password_on_a_phone_and_logs_in_with_it(page, app_url):
    user = UserFactory(username="mei")
    set_real_password(user, OLD)
    CampaignFactory(name="Kiso", slug="kiso", dj=user)
    log_in(page.context, app_url, user)

    page.goto(app_url + "/")
    # The account's links wait in a small menu under the user's name.
    expect(page.get_by_role("link", name="Contraseña")).to_be_hidden()
    page.locator(".account summary", has_text="mei").click()
    page.get_by_role("link", name="Contraseña").click()
    expect(page).to_have_url(re.compile(r"/accounts/contrasena/$"))
    expect(page.get_by_role("heading", name="Cambiar contraseña")).to_be_visible()
    screenshot(page, "password-1280")

    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "password-360")

    # A slip first: the current password is wrong, so the page says so and keeps the old one.
    page.get_by_label("Contraseña antigua").fill("not-the-password")
    page.get_by_label("Contraseña nueva", exact=True).fill(NEW)
    page.get_by_label("Contraseña nueva (confirmación)").fill(NEW)
    page.get_by_role("button", name="Cambiar contraseña").click()
    expect(page.get_by_role("alert")).to_contain_text("Su contraseña antigua es incorrecta")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "password-error-360")

    page.get_by_label("Contraseña antigua").fill(OLD)
    page.get_by_label("Contraseña nueva", exact=True).fill(NEW)
    page.get_by_label("Contraseña nueva (confirmación)").fill(NEW)
    page.get_by_role("button", name="Cambiar contraseña").click()
    expect(page.get_by_role("heading", name="Contraseña cambiada")).to_be_visible()

    page.locator(".account summary", has_text="mei").click()
    screenshot(page, "account-menu-360")
    page.get_by_role("button", name="Salir").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("Nombre de usuario").fill("mei")
    page.get_by_label("Contraseña").fill(NEW)
    page.get_by_role("button", name="Entrar").click()

    expect(page.get_by_role("heading", name="Tus campañas")).to_be_visible()
    expect(page.get_by_text("Kiso")).to_be_visible()


def test_five_wrong_passwords_bring_the_login_page_back_with_the_lockout(page, app_url):
    user = UserFactory(username="mei")
    set_real_password(user, OLD)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(app_url + "/accounts/login/")

    for _ in range(5):
        page.get_by_label("Nombre de usuario").fill("mei")
        page.get_by_label("Contraseña").fill("not-the-password")
        with page.expect_response(re.compile(r"/accounts/login/$")) as answer:
            page.get_by_role("button", name="Entrar").click()
    assert answer.value.status == 429

    expect(page.get_by_role("alert")).to_have_text(
        "Demasiados intentos fallidos. Espera 15 minutos y vuelve a intentarlo."
    )
    expect(page.get_by_label("Nombre de usuario")).to_have_value("mei")
    screenshot(page, "login-locked-360")
    page.get_by_label("Contraseña").fill(OLD)
    page.get_by_role("button", name="Entrar").click()
    expect(page.get_by_role("alert")).to_contain_text("Demasiados intentos fallidos")
    expect(page).to_have_url(re.compile(r"/accounts/login/$"))
