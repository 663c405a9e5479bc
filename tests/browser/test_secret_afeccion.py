"""A secret Afección on a player's phone, and the DJ's catalogue edit reaching it live.

The player feels the poison's effect at its phase (what the chapter's card gives them) but
does not learn its name; the DJ's edit of that entry's text reaches the card that shows it,
in place, and no other page: no phone loads anew.
"""

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser.conftest import heard, log_in, screenshot
from tests.browser.test_sheet import PHONE, make_table, open_sheet, record
from tests.factories import UserFactory

WIDE = {"width": 1280, "height": 900}


@pytest.fixture
def table(app_url):
    table = make_table()
    campaign, aiko = table["campaign"], table["aiko"]
    kenji = campaign.characters.get(name="Kenji")
    ren = UserFactory(username="ren")
    invitation = services.invitation_create(character=kenji, by=table["dj"])
    services.invitation_accept(invitation=invitation, user=ren)
    entry = services.catalogue_entry_save(
        campaign=campaign,
        name="Ponzoña azul",
        kind="veneno",
        effect_leve="Hormigueo en los labios; −1 a DES hasta curarse.",
        effect_grave="Vómitos y visión borrosa.",
    )
    record(aiko, kind="suffer", type="afeccion", grade="leve", source="ponzoña azul")
    services.character_secrets_set(character=aiko, add=["ponzoña azul"], remove=())
    return {**table, "kenji": kenji, "ren": ren, "entry": entry}


def afeccion(sheet):
    return sheet.get_by_role("article", name="Aiko").locator(".chip-row", has_text="Afección:")


def test_the_player_reads_the_phases_effect_of_a_secret_afeccion_but_not_its_name(
    browser, app_url, table
):
    for viewport in (PHONE, WIDE):
        sheet = open_sheet(browser, app_url, table["mei"], table["aiko"], viewport)

        chip = afeccion(sheet)
        expect(chip).to_contain_text("Origen secreto")
        expect(chip).to_contain_text("Hormigueo en los labios; −1 a DES hasta curarse.")
        assert "ponzoña" not in sheet.content().lower()
        assert sheet.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(sheet, f"sheet-secret-afeccion-{viewport['width']}")


def test_a_catalogue_edit_reaches_the_card_that_shows_it_and_reloads_no_phone(
    browser, app_url, table
):
    mei = open_sheet(browser, app_url, table["mei"], table["aiko"])
    ren = open_sheet(browser, app_url, table["ren"], table["kenji"])
    expect(afeccion(mei)).to_contain_text("Hormigueo en los labios")
    context = browser.new_context(viewport=WIDE, locale="es-ES")
    log_in(context, app_url, table["dj"])
    dj = context.new_page()
    dj.goto(f"{app_url}/c/kiso/catalogo/{table['entry'].pk}/")

    dj.get_by_label("Efecto en fase leve").fill("Labios dormidos y lengua torpe.")
    dj.get_by_role("button", name="Guardar entrada").click()

    expect(afeccion(mei)).to_contain_text("Labios dormidos y lengua torpe.")
    expect(afeccion(mei)).not_to_contain_text("Hormigueo")
    assert mei.evaluate("window.__noReload") is True
    # Kenji's phone shows no such entry: it hears nothing of the edit. The next change of
    # Kenji's reaches it after the edit, on the same page (a page loaded anew has no mark).
    record(table["kenji"], kind="suffer", type="heridas", grade="leve")
    expect(ren.get_by_role("img", name="Heridas leve: marcada")).to_be_visible()
    heard(ren, table["campaign"])
    assert ren.evaluate("window.__noReload") is True
    assert "Labios" not in ren.content() and "ponzoña" not in mei.content().lower()
