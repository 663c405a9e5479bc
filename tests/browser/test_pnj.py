"""The DJ's PNJ page in a real browser, on a laptop and on a phone: a Plantilla made, three
copies of it in one step, one copy's reveal settings changed, archived and restored."""

import re

import pytest
from playwright.sync_api import Page, expect

from campaign.models import Character
from tests.browser.conftest import log_in
from tests.browser.test_setup import assert_fits_a_phone
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

WIDTHS = {"1280": {"width": 1280, "height": 900}, "360": {"width": 360, "height": 740}}


def shot(page: Page, name: str, width: str) -> None:
    """A full-page screenshot for a person to look at (never compared), and on a phone the
    page must fit its width and its buttons a finger."""
    if width == "360":
        assert_fits_a_phone(page)
    page.screenshot(path=f"/tmp/pnj-{name}-{width}.png", full_page=True)


def card_of(page: Page, name: str):
    """The card (list item) whose heading is `name`."""
    return page.locator("li.card").filter(has=page.get_by_role("heading", name=name, exact=True))


@pytest.mark.parametrize("width", WIDTHS)
def test_a_dj_makes_a_template_three_copies_and_sets_one_up(browser, app_url, width):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    CharacterFactory(campaign=campaign, name="Aiko")
    context = browser.new_context(viewport=WIDTHS[width], locale="es-ES")
    log_in(context, app_url, dj)
    page = context.new_page()

    # From the campaign's nav, after PJ.
    page.goto(f"{app_url}/c/kiso/pj/")
    page.locator(".campaign-nav").get_by_role("link", name="PNJ", exact=True).click()
    expect(page.get_by_role("heading", name="PNJ", level=1)).to_be_visible()
    expect(page.get_by_text("Aún no hay plantillas.")).to_be_visible()
    shot(page, "empty", width)

    # A Plantilla.
    page.get_by_text("Añadir una plantilla").click()
    form = page.locator("form[action$='/pnj/plantillas/nueva/']")
    form.get_by_label("Nombre").fill("Bandido")
    form.get_by_label("Enemigo").check()
    form.get_by_label("FUE").fill("3")
    form.get_by_label("VOL").fill("2")
    form.get_by_label("Otros poderes").fill("Sigilo")
    form.get_by_label("Notas").fill("Cuchillo largo y poca paciencia.")
    shot(page, "template-form", width)
    form.get_by_role("button", name="Añadir la plantilla").click()
    expect(page.get_by_text("Plantilla Bandido añadida.")).to_be_visible()
    bandido = card_of(page, "Bandido")
    expect(bandido).to_contain_text("0 copias en juego")

    # A count out of range is refused next to its box; then three copies in one step.
    bandido.get_by_label("Cuántos Bandido").fill("21")
    bandido.get_by_role("button", name="Crear Bandido").click()
    expect(card_of(page, "Bandido").locator(".field-errors")).to_have_text(
        re.compile("De 1 a 20 de una vez")
    )
    expect(page.get_by_role("alert")).to_contain_text("Hay un problema")
    shot(page, "count-refused", width)
    assert not campaign.characters.filter(kind=Character.Kind.PNJ).exists()
    bandido = card_of(page, "Bandido")
    bandido.get_by_label("Cuántos Bandido").fill("3")
    bandido.get_by_role("button", name="Crear Bandido").click()
    expect(page.get_by_text("3 PNJ creados: Bandido 1, Bandido 2, Bandido 3.")).to_be_visible()
    expect(card_of(page, "Bandido")).to_contain_text("3 copias en juego")
    for n in (1, 2, 3):
        expect(card_of(page, f"Bandido {n}")).to_contain_text("Sin revelar")
    page.get_by_text("Añadir PNJ por nombre").click()  # the other form, open, in the picture
    shot(page, "list", width)

    # One copy's card: revealed with its whole card, hidden until its first turn.
    card_of(page, "Bandido 2").get_by_role("link", name="Editar Bandido 2").click()
    expect(page.get_by_role("heading", name="Editar Bandido 2")).to_be_visible()
    expect(page.get_by_label("Jugador", exact=True)).to_have_count(0)
    page.get_by_label("Revelado a los jugadores").check()
    page.get_by_label("Oculto hasta su primer turno").check()
    page.get_by_label("Su ficha entera").check()
    shot(page, "edit", width)
    page.get_by_role("button", name="Guardar PNJ").click()
    expect(page.get_by_text("Se han guardado los cambios de Bandido 2.")).to_be_visible()
    expect(card_of(page, "Bandido 2")).to_contain_text(
        "Revelado: los jugadores ven su ficha entera."
    )
    copy = campaign.characters.get(name="Bandido 2")
    assert (copy.revealed, copy.lurking, copy.shows, copy.player) == (True, True, "ficha", None)

    # Archived after a second step, then restored.
    two = card_of(page, "Bandido 2")
    two.locator("summary").filter(has_text="Archivar").click()
    shot(page, "archive-asks", width)
    two.get_by_role("button", name="Archivar a Bandido 2").click()
    expect(page.get_by_text("Se ha archivado a Bandido 2")).to_be_visible()
    archived = page.locator("section.archived")
    expect(archived.get_by_role("heading", name="Bandido 2")).to_be_visible()
    expect(card_of(page, "Bandido")).to_contain_text("2 copias en juego")
    shot(page, "archived", width)
    assert campaign.characters.get(name="Bandido 2").is_archived
    archived.get_by_role("button", name="Restaurar Bandido 2").click()
    expect(page.get_by_text("Bandido 2 vuelve a estar en juego.")).to_be_visible()
    expect(page.locator("section.archived")).to_have_count(0)
    expect(card_of(page, "Bandido")).to_contain_text("3 copias en juego")
    assert not campaign.characters.get(name="Bandido 2").is_archived
    context.close()
