"""A DJ sets a campaign up in a real browser: campaign, PJ, archive, catalogue, settings."""

import re

import pytest
from playwright.sync_api import Page, expect

from campaign import services
from campaign.models import Campaign, Character, Membership
from tests.browser.conftest import log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}

# Everything a finger taps: at least 44 px high.
TAP_TARGETS = (
    "main .button, main .button-link, main .button-secondary, main .button-warning, "
    "main summary, .campaign-nav a, main .link-cancel"
)


def assert_fits_a_phone(page: Page) -> None:
    """No sideways scrolling, and every visible button or tab is tall enough to tap."""
    # Measured once the stylesheet applies: an element found visible may be laid out
    # before it arrives (seen on a loaded machine: every button 19 px, unstyled).
    page.wait_for_load_state("load")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"
    heights = page.evaluate(
        """selector => [...document.querySelectorAll(selector)]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.textContent.trim(), el.getBoundingClientRect().height])""",
        TAP_TARGETS,
    )
    small = [(text, height) for text, height in heights if height < 44]
    assert not small, f"{page.url}: tap targets under 44px: {small}"


def shoot(page: Page, name: str) -> None:
    """Screenshots at 1280 px and 360 px wide; at 360 px the page must fit and be tappable."""
    page.set_viewport_size(DESKTOP)
    screenshot(page, f"setup-{name}-1280")
    page.set_viewport_size(PHONE)
    assert_fits_a_phone(page)
    screenshot(page, f"setup-{name}-360")
    page.set_viewport_size(DESKTOP)


@pytest.fixture
def sensei(app_url, page):
    user = UserFactory(username="sensei")
    log_in(page.context, app_url, user)
    return user


def test_a_dj_sets_up_a_campaign_from_home(page, app_url, sensei):
    CampaignFactory(name="Demo", slug="demo", dj=sensei)
    page.goto(app_url + "/")
    expect(page.get_by_role("link", name="Demo")).to_have_attribute("href", "/c/demo/")
    shoot(page, "home")

    # A new campaign: an empty name is refused next to the field and in the summary.
    page.get_by_role("link", name="Nueva campaña").click()
    expect(page.get_by_role("heading", name="Nueva campaña")).to_be_visible()
    shoot(page, "campaign-new")
    page.get_by_role("button", name="Crear campaña").click()
    expect(page.get_by_role("alert")).to_contain_text("Hay un problema")
    expect(page.locator("#id_name_error")).to_have_text(
        re.compile("Escribe el nombre de la campaña")
    )
    shoot(page, "campaign-new-error")
    page.get_by_label("Nombre").fill("La sombra de Kiso")
    page.get_by_label("E.Esp específicos").check()
    page.get_by_role("button", name="Crear campaña").click()

    # On to its PJ page, the next step.
    expect(page).to_have_url(re.compile(r"/c/la-sombra-de-kiso/pj/$"))
    expect(page.get_by_text("Campaña La sombra de Kiso creada")).to_be_visible()
    campaign = Campaign.objects.get(slug="la-sombra-de-kiso")
    assert campaign.especificos
    shoot(page, "pj-empty")
    mei = UserFactory(username="mei")
    services.membership_set(campaign=campaign, user=mei, role=Membership.Role.PLAYER)

    # Two PJ.
    page.get_by_role("link", name="Añadir PJ").click()
    page.get_by_label("Nombre").fill("Aiko")
    for abbr, value in {"FUE": "3", "AGI": "5", "DES": "4", "VOL": "3"}.items():
        page.get_by_label(abbr, exact=True).fill(value)
    page.get_by_label("Otras puntuaciones").fill("PER 2")
    page.get_by_label("Notas").fill("Exploradora del clan.")
    shoot(page, "pj-new")
    page.get_by_role("button", name="Añadir PJ").click()
    expect(page.get_by_text("Se ha añadido a Aiko.")).to_be_visible()

    page.get_by_role("link", name="Añadir PJ").click()
    page.get_by_label("Nombre").fill("Kenji")
    page.get_by_label("Jugador").select_option(label="mei")
    page.get_by_label("FUE", exact=True).fill("11")
    page.get_by_label("Otras puntuaciones").fill("PER")
    page.get_by_label("Regeneración").check()
    page.get_by_label("Otros poderes").fill("Vuelo")
    page.get_by_role("button", name="Añadir PJ").click()
    expect(page.get_by_role("alert")).to_contain_text("FUE: pon un número entero del 0 al 10")
    expect(page.locator("#id_other_scores_error")).to_contain_text("«PER» no es")
    shoot(page, "pj-new-error")
    page.get_by_label("FUE", exact=True).fill("5")
    page.get_by_label("Otras puntuaciones").fill("")
    page.get_by_role("button", name="Añadir PJ").click()
    expect(page.get_by_text("Se ha añadido a Kenji.")).to_be_visible()
    kenji = Character.objects.get(name="Kenji")
    assert (kenji.player, kenji.powers, kenji.attributes) == (
        mei,
        ["Vuelo", "regeneracion"],
        {"FUE": 5},
    )
    expect(page.get_by_text("Lo juega mei")).to_be_visible()
    shoot(page, "pj-list")

    # Edit one: new scores go to its log.
    page.get_by_role("link", name="Editar Aiko").click()
    shoot(page, "pj-edit")
    page.get_by_label("FUE", exact=True).fill("4")
    page.get_by_role("button", name="Guardar PJ").click()
    expect(page.get_by_text("Se han guardado los cambios de Aiko.")).to_be_visible()
    aiko = Character.objects.get(name="Aiko")
    assert aiko.attributes["FUE"] == 4
    assert aiko.events.order_by("-seq").first().event == {
        "kind": "attributes",
        "scores": {"FUE": 4, "AGI": 5, "DES": 4, "VOL": 3, "PER": 2},
        "seed": aiko.events.order_by("-seq").first().event["seed"],
    }

    # Archive it (a second step in the page), then restore it.
    page.get_by_text("Archivar Kenji").click()
    expect(page.get_by_text("¿Archivar a Kenji?")).to_be_visible()
    shoot(page, "pj-archive-confirm")
    page.get_by_role("button", name="Archivar a Kenji").click()
    archived = page.get_by_role("region", name="PJ archivados")
    expect(archived.get_by_role("heading", name="Kenji")).to_be_visible()
    shoot(page, "pj-archived")
    archived.get_by_role("button", name="Restaurar Kenji").click()
    expect(page.get_by_text("Kenji vuelve a estar en la Mesa.")).to_be_visible()
    expect(page.get_by_role("region", name="PJ archivados")).to_have_count(0)
    assert not Character.objects.get(name="Kenji").is_archived

    # The catalogue: edit an entry's text.
    page.get_by_role("navigation", name="Campaña").get_by_role("link", name="Catálogo").click()
    expect(page.get_by_role("heading", name="Catálogo", exact=True)).to_be_visible()
    shoot(page, "catalogue")
    page.get_by_role("link", name="Editar Infección").click()
    shoot(page, "catalogue-edit")
    page.get_by_label("Efecto", exact=True).fill("La herida supura y da fiebre.")
    page.get_by_role("button", name="Guardar entrada").click()
    entry = page.locator(".catalogue-entry", has=page.get_by_role("heading", name="Infección"))
    expect(entry).to_contain_text("La herida supura y da fiebre.")

    # A new entry, from the same page.
    page.get_by_text("Añadir una entrada").click()
    page.get_by_label("Nombre").fill("Veneno de Fugu")
    page.get_by_label("Tipo").select_option(label="Veneno")
    page.get_by_label("Efecto", exact=True).fill("Parálisis lenta.")
    shoot(page, "catalogue-add")
    page.get_by_role("button", name="Añadir al catálogo").click()
    expect(page.get_by_role("heading", name="Veneno de fugu")).to_be_visible()

    # ... and deleted again, after a second step on its edit page.
    page.get_by_role("link", name="Editar veneno de fugu").click()
    page.get_by_text("Borrar veneno de fugu").click()
    expect(page.get_by_text("¿Borrar «veneno de fugu» del catálogo?")).to_be_visible()
    shoot(page, "catalogue-delete-confirm")
    page.get_by_role("button", name="Sí, borrarla").click()
    expect(page.get_by_text("Se ha quitado «veneno de fugu» del catálogo.")).to_be_visible()
    expect(page.get_by_role("heading", name="veneno de fugu")).to_have_count(0)

    # Settings.
    page.get_by_role("navigation", name="Campaña").get_by_role("link", name="Ajustes").click()
    expect(page.get_by_label("Segundos por Ronda")).to_have_value("6")
    shoot(page, "settings")


def test_the_settings_show_the_options_read_only_after_a_game_event(page, app_url, sensei):
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=sensei)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )

    page.goto(app_url + "/c/kiso/ajustes/")

    expect(page.get_by_text("cambiaría cómo se lee el registro")).to_be_visible()
    expect(page.get_by_label("Segundos por Ronda")).to_have_count(0)
    shoot(page, "settings-locked")
    page.get_by_label("Nombre").fill("Kiso II")
    page.get_by_role("button", name="Guardar ajustes").click()
    expect(page.get_by_text("Ajustes guardados.")).to_be_visible()
    expect(page.get_by_text("Kiso II").first).to_be_visible()
