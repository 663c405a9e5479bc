"""PNJ in play sharing one turn (a second playtest of PNJ): copies put in one turn on the
order page, starting a fight or during one; "one turn for all" on the board's add form
before a fight, which the next fight's order page starts with; and two refusals said where
they belong (a count too large, an E.Esp with no name)."""

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from campaign.models import StateEvent
from tests.browser import test_pnj_playtest as first
from tests.browser.conftest import screenshot
from tests.browser.test_pnj_playtest import card, live
from tests.browser.test_pnj_playtest import open_page as open_any

table = first.table  # the first PNJ playtest's table: a DJ, Aiko, Kenji, the Bandido template


def open_page(browser, table, path="/c/kiso/", width=1280, height=900):
    """The first PNJ playtest's page, the board's once its live channel is open."""
    page = open_any(browser, table, path, width, height)
    return live(page) if path == "/c/kiso/" else page


def below(error, field, room=60):
    """Whether `error` sits right by `field` (under it, or beside it)."""
    box, near = error.bounding_box(), field.bounding_box()
    return bool(box and near) and -near["height"] <= box["y"] - near["y"] < near["height"] + room


# -- B. a count far too large says the range --------------------------------------------------


def test_a_huge_count_on_the_board_says_the_range(browser, table):
    page = open_page(browser, table)
    form = page.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Bandido")
    form.locator('input[name="count"]').evaluate("(el) => { el.value = '999999999999'; }")
    form.locator('input[name="count"]').evaluate("(el) => { el.form.noValidate = true; }")
    form.get_by_role("button", name="Añadir", exact=True).click()
    expect(page.locator("#pnj-error")).to_have_text("De 1 a 20 de una vez.")
    assert not table["campaign"].characters.filter(kind="pnj").exists()


# -- C. an E.Esp with no name is refused next to its field ------------------------------------


@pytest.mark.parametrize("width", [1280, 360])
def test_an_eesp_with_no_name_is_refused_next_to_its_field(browser, table, width):
    page = open_page(browser, table, width=width, height=800)
    aiko = card(page, "Aiko")
    aiko.get_by_text("Más acciones").click()
    name = aiko.get_by_label("Dar un E.Esp")
    name.fill("   ")
    before = StateEvent.objects.count()
    aiko.get_by_role("button", name="Dar", exact=True).click()
    error = aiko.locator(".special-error")
    expect(error).to_have_text("Escribe el nombre del E.Esp.")
    expect(aiko.locator(".card-error")).to_have_count(0)
    assert below(error, name)
    expect(name).to_have_attribute("aria-describedby", error.get_attribute("id") or "-")
    screenshot(page, f"eesp-no-name-{width}")
    assert StateEvent.objects.count() == before


# -- A. PNJ already in play put in one turn on the order page ---------------------------------


def slots(campaign):
    """The fight's order as names, a group's joined by "+"."""
    names = selectors.character_names(campaign=campaign)
    fight = selectors.fight_now(campaign=campaign)
    return ["+".join(names[pk] for pk in s.members) for s in fight.order] if fight else None


@pytest.mark.parametrize("width", [1280, 360])
def test_bandidos_added_before_the_fight_share_one_turn_from_the_order_page(browser, table, width):
    campaign = table["campaign"]
    services.pnj_create(campaign=campaign, template=table["bandido"], count=3)
    page = open_page(browser, table, "/c/kiso/combate/", width=width)
    rows = page.locator(".fight-row")
    expect(rows).to_have_count(5)  # Aiko, Kenji, Bandido 1–3: a turn each
    # Only a PNJ under a PNJ is offered the turn of the line above (not Bandido 1 under a PJ).
    expect(page.get_by_role("button", name="Línea 3: un turno con la línea 2")).to_have_count(0)
    page.get_by_role("button", name="Línea 4: un turno con la línea 3").click()
    expect(rows).to_have_count(4)
    expect(rows.nth(2)).to_contain_text("Bandido 1, Bandido 2")
    page.get_by_role("button", name="Línea 4: un turno con la línea 3").click()
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("Bandido 1, Bandido 2, Bandido 3")
    expect(rows.nth(2)).to_contain_text("grupo")
    rows.nth(2).get_by_label("Iniciativa").fill("12")
    screenshot(page, f"fight-order-group-{width}")
    page.get_by_role("button", name="Empezar el combate").click()
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    assert slots(campaign) == ["Aiko", "Kenji", "Bandido 1+Bandido 2+Bandido 3"]

    # During the fight: the group split again, a turn each, and one put back with another.
    page.goto(table["base"] + "/c/kiso/combate/")
    expect(rows).to_have_count(3)
    page.get_by_role("button", name="Línea 3: un turno cada uno").click()
    expect(rows).to_have_count(5)
    expect(rows.nth(4).get_by_label("Iniciativa")).to_have_value("12")
    page.get_by_role("button", name="Línea 5: un turno con la línea 4").click()
    expect(rows).to_have_count(4)
    screenshot(page, f"fight-order-regroup-{width}")
    page.get_by_role("button", name="Guardar el orden").click()
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    assert slots(campaign) == ["Aiko", "Kenji", "Bandido 1", "Bandido 2+Bandido 3"]


def test_a_pj_never_shares_a_turn_through_a_forged_join(browser, table):
    services.pnj_create(campaign=table["campaign"], template=table["bandido"], count=1)
    page = open_page(browser, table, "/c/kiso/combate/")
    page.locator(".fight-rows button[value='up:2']").evaluate("(b) => { b.value = 'join:1'; }")
    page.locator(".fight-rows button[value='join:1']").click()
    expect(page.locator("#fight-setup-error")).to_have_text(
        "Solo los PNJ en juego comparten un turno, con la línea justo encima."
    )
    expect(page.locator(".fight-row")).to_have_count(3)


@pytest.mark.parametrize("width", [1280, 360])
def test_one_turn_for_all_on_the_board_before_a_fight_starts_the_next_one_grouped(
    browser, table, width
):
    page = open_page(browser, table, width=width)
    form = page.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Bandido")
    form.locator('input[name="count"]').fill("3")
    form.get_by_label("un turno para todos").check()
    form.get_by_role("button", name="Añadir", exact=True).click()
    expect(card(page, "Bandido 3")).to_be_visible()
    expect(form.get_by_label("un turno para todos")).not_to_be_checked()
    screenshot(page, f"pnj-add-together-no-fight-{width}")

    page.goto(table["base"] + "/c/kiso/combate/")
    rows = page.locator(".fight-row")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("Bandido 1, Bandido 2, Bandido 3")
    screenshot(page, f"fight-order-remembered-group-{width}")
    page.get_by_role("button", name="Empezar el combate").click()
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    assert slots(table["campaign"]) == ["Aiko", "Kenji", "Bandido 1+Bandido 2+Bandido 3"]
