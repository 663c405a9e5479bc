"""The guide (/guia/) in a real browser, on a desk and on a phone, in Spanish and English."""

from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, screenshot


def test_the_guide_opens_from_the_top_bar_in_spanish_and_english(page, app_url):
    page.goto(app_url + "/reglas/")
    page.get_by_role("navigation", name="Principal").get_by_role("link", name="Guía").click()

    expect(page).to_have_url(app_url + "/guia/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Guía para el DJ y los jugadores")
    page.screenshot(path=str(SCREENSHOTS / "guia-1280-top.png"))  # the page as it opens
    page.locator('.toc a[href="#en-la-mesa-el-tablero-del-dj"]').click()
    expect(page.locator("#en-la-mesa-el-tablero-del-dj")).to_be_in_viewport()
    screenshot(page, "guia-1280")

    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_text("Guide for the DJ and the players")
    expect(page.locator("#setting-up-a-campaign")).to_be_visible()


def test_the_guide_reads_on_a_phone_without_sideways_scrolling(page, app_url):
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(app_url + "/guia/")

    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Guía")).to_be_visible()
    # The top bar keeps to one line on a phone, the guide's link beside the rules'.
    assert page.evaluate("document.querySelector('.topbar').offsetHeight") < 70
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(SCREENSHOTS / "guia-360-top.png"))
    page.locator('.toc a[href="#copias-de-seguridad"]').click()
    expect(page.locator("#copias-de-seguridad")).to_be_in_viewport()
    screenshot(page, "guia-360")
