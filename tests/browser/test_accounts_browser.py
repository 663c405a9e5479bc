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
    page.get_by_label("Nueva contraseña", exact=True).fill(NEW)
    page.get_by_label("Contraseña nueva (confirmación)").fill(NEW)
    page.get_by_role("button", name="Cambiar contraseña").click()
    expect(page.get_by_role("alert")).to_contain_text("Su contraseña antigua es incorrecta")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "password-error-360")

    page.get_by_label("Contraseña antigua").fill(OLD)
    page.get_by_label("Nueva contraseña", exact=True).fill(NEW)
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


def test_a_new_dj_signs_up_from_the_login_page(browser, app_url):
    for width in (1280, 360):
        context = browser.new_context(locale="es-ES", viewport={"width": width, "height": 800})
        page = context.new_page()
        page.goto(f"{app_url}/accounts/login/")
        page.get_by_role("link", name="Crear una cuenta").click()
        screenshot(page, f"signup-{width}")
        page.get_by_label("Nombre de usuario").fill(f"haruka{width}")
        page.get_by_label("Contraseña", exact=True).fill("una clave larga de mesa")
        page.get_by_label("Contraseña (confirmación)").fill("una clave larga de mesa")
        page.get_by_role("button", name="Crear la cuenta").click()
        expect(page.get_by_text("Tu cuenta está lista")).to_be_visible()
        expect(page.get_by_role("heading", name="Nueva campaña")).to_be_visible()
        context.close()


def test_a_dj_copies_a_password_link_for_a_player(browser, app_url):
    from campaign import services
    from tests.factories import CharacterFactory

    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    mei = UserFactory(username="mei")
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(context, app_url, dj)
    page = context.new_page()
    page.goto(f"{app_url}/c/kiso/jugadores/")

    page.get_by_role("button", name="Enlace de contraseña").click()
    link = page.get_by_label("Enlace de contraseña")
    expect(link).to_have_value(re.compile(r"/accounts/nueva-clave/"))
    # "Copiado" shows for a moment: a watch set before the tap sees it whatever the load
    # (and gives up after 30 s, so a page that never says it fails the test, not hangs it).
    page.evaluate(
        """() => {
            window.__copied = new Promise((done) => {
                new MutationObserver((seen, watch) => {
                    const buttons = [...document.querySelectorAll("[data-copy]")];
                    if (buttons.some((b) => b.textContent.includes("Copiado"))) {
                        watch.disconnect();
                        done(true);
                    }
                }).observe(document.body, { subtree: true, childList: true, characterData: true });
                setTimeout(() => done(false), 30000);
            });
        }"""
    )
    page.get_by_role("button", name="Copiar").click()
    assert page.evaluate("window.__copied") is True
    assert page.evaluate("navigator.clipboard.readText()") == link.input_value()
    screenshot(page, "players-password-link-1280")

    player = browser.new_context(locale="es-ES", viewport={"width": 360, "height": 740}).new_page()
    player.goto(link.input_value())
    player.get_by_label("Nueva contraseña", exact=True).fill("otra clave larga de mesa")
    player.get_by_label("Contraseña nueva (confirmación)").fill("otra clave larga de mesa")
    screenshot(player, "password-reset-360")
    player.get_by_role("button", name="Guardar la contraseña").click()
    expect(player.get_by_role("heading", name="Contraseña guardada")).to_be_visible()
