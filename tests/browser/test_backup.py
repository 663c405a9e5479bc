"""Backups in a real browser: the DJ downloads a copy from the settings, imports it as a new
campaign, and a bad file is refused on the page."""

from playwright.sync_api import expect

from campaign import services
from campaign.models import Campaign
from tests.browser.conftest import log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


def test_the_dj_downloads_a_copy_and_imports_it_as_a_new_campaign(browser, app_url, tmp_path):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
        actor=dj,
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    log_in(context, app_url, dj)
    page = context.new_page()

    page.goto(f"{app_url}/c/kiso/ajustes/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Descargar una copia").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name.startswith("zodiac-kiso-") and saved.suffix == ".json"

    page.goto(f"{app_url}/")
    page.get_by_role("link", name="Importar campaña").click()
    screenshot(page, "import-1280")
    page.get_by_label("Archivo de la copia").set_input_files(str(saved))
    page.get_by_label("Nombre").fill("Kiso (copia)")
    page.get_by_role("button", name="Importar campaña").click()

    expect(page.get_by_role("article", name="Aiko")).to_be_visible()
    expect(
        page.get_by_role("article", name="Aiko").get_by_text("no puede actuar", exact=True)
    ).to_be_visible()
    copy = Campaign.objects.get(name="Kiso (copia)")
    assert page.url.endswith(f"/c/{copy.slug}/")


def test_a_bad_file_is_refused_on_the_page_on_a_phone(browser, app_url, tmp_path):
    user = UserFactory(username="someone")
    bad = tmp_path / "copia.json"
    bad.write_text('{"format": "zodiac-campaign", "version": 99}')
    context = browser.new_context(viewport={"width": 360, "height": 640}, locale="es-ES")
    log_in(context, app_url, user)
    page = context.new_page()
    page.goto(f"{app_url}/campanas/importar/")

    page.get_by_label("Archivo de la copia").set_input_files(str(bad))
    page.get_by_role("button", name="Importar campaña").click()

    expect(page.locator(".error-summary")).to_be_visible()
    expect(page.locator(".error-summary")).to_contain_text("99")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert Campaign.objects.count() == 0
    screenshot(page, "import-error-360")
