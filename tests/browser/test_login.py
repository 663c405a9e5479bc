"""The login page and the home page in a real browser."""

import re

from playwright.sync_api import expect

from tests.browser.conftest import screenshot, set_real_password
from tests.factories import CampaignFactory, UserFactory


def test_a_user_logs_in_and_sees_their_campaigns(page, app_url):
    dj = UserFactory(username="sensei")
    set_real_password(dj, "a-long-test-passphrase")
    CampaignFactory(name="Kiso", slug="kiso", dj=dj)

    page.goto(app_url + "/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    expect(page.get_by_role("heading", name="Entrar")).to_be_visible()
    screenshot(page, "login-1280")
    page.set_viewport_size({"width": 360, "height": 640})
    screenshot(page, "login-360")
    page.get_by_label("Nombre de usuario").fill("sensei")
    page.get_by_label("Contraseña").fill("a-long-test-passphrase")
    page.get_by_role("button", name="Entrar").click()

    expect(page.get_by_role("heading", name="Tus campañas")).to_be_visible()
    expect(page.get_by_text("Kiso")).to_be_visible()


def test_a_wrong_password_says_so_and_stays_on_the_login_page(page, app_url):
    UserFactory(username="sensei")

    page.goto(app_url + "/accounts/login/")
    page.get_by_label("Nombre de usuario").fill("sensei")
    page.get_by_label("Contraseña").fill("not-the-password")
    page.get_by_role("button", name="Entrar").click()

    expect(page.get_by_role("alert")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
