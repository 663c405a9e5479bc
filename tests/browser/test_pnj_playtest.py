"""What a new DJ's playtest of PNJ found (a five-round ambush), in a real browser: the order
page's add form keeps what was typed when refused and groups copies in one turn; Deshacer
takes back a whole add; the turn bar at a phone's width; the calculator's list follows the
PNJ; the big board on a tablet."""

import re

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from campaign.turn_order import Slot
from tests.browser.conftest import SCREENSHOTS, log_in, screenshot
from tests.browser.test_accessibility import axe, describe
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}
PARTY = ("Aiko", "Kenji", "Ren", "Sora", "Mei", "Taro", "Yuki", "Hana")


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in ("Aiko", "Kenji")
    }
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    return {"dj": dj, "campaign": campaign, "party": party, "bandido": template, "base": app_url}


def open_page(browser, table, path="/c/kiso/", width=1280, height=900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="es-ES")
    log_in(context, table["base"], table["dj"])
    page = context.new_page()
    page.goto(table["base"] + path)
    return page


def live(page):
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


@pytest.mark.parametrize("width", [1280, 360])
def test_the_order_page_keeps_a_refused_add_and_groups_copies_in_one_turn(browser, table, width):
    page = open_page(browser, table, "/c/kiso/combate/", width=width)
    add = page.get_by_role("group", name="Añadir al orden")
    add.get_by_label("Nombre o plantilla (PNJ nuevo)").fill("Bandido")
    add.get_by_label("cuántos").fill("3")
    add.get_by_label("Bando").select_option(label="aliado")
    add.get_by_label("Iniciativa").fill("1,5")
    add.get_by_label("un turno para todos").check()
    add.get_by_role("button", name="Añadir", exact=True).click()

    # Refused: the initiative's field says why; everything typed is still there.
    init = add.get_by_label("Iniciativa")
    expect(init).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#fight-add-error")).to_have_text(
        "La iniciativa: un número entero de -99 a 999, o en blanco."
    )
    expect(add.get_by_label("Nombre o plantilla (PNJ nuevo)")).to_have_value("Bandido")
    expect(add.get_by_label("cuántos")).to_have_value("3")
    expect(add.get_by_label("Bando")).to_have_value("aliado")
    expect(init).to_have_value("1,5")
    expect(add.get_by_label("un turno para todos")).to_be_checked()
    error = page.locator("#fight-add-error").bounding_box()
    field = init.bounding_box()
    assert error and field and 0 <= error["y"] - (field["y"] + field["height"]) < 40
    screenshot(page, f"fight-add-refused-{width}")

    init.fill("9")
    add.get_by_role("button", name="Añadir", exact=True).click()
    row = page.locator(".fight-row").nth(2)
    expect(row).to_contain_text("Bandido 1, Bandido 2, Bandido 3")
    expect(row).to_contain_text("grupo nuevo, un turno")
    expect(page.locator(".fight-row")).to_have_count(3)
    expect(add.get_by_label("Nombre o plantilla (PNJ nuevo)")).to_have_value("")
    screenshot(page, f"fight-add-group-{width}")
    page.get_by_role("button", name="Ordenar por iniciativa").click()
    page.get_by_role("button", name="Empezar el combate", exact=True).last.click()

    slot = page.locator(".fight-slot", has_text="Bandido 1")
    expect(slot).to_have_text("Bandido 1–3 9")
    group = selectors.fight_now(campaign=table["campaign"]).order
    assert [len(s.members) for s in group] == [3, 1, 1]  # sorted: 9, then the blank ones
    assert assert_width(page, width)


def assert_width(page, width):
    return page.evaluate("document.documentElement.scrollWidth") <= width


def test_deshacer_takes_back_the_whole_add_of_pnj(browser, table):
    """Found playing it: after "Añadir al combate", Deshacer took back the joining of the
    fight only, and the PNJ it made stayed on the board."""
    aiko, kenji = table["party"]["Aiko"], table["party"]["Kenji"]
    services.fight_start(
        campaign=table["campaign"], order=[Slot(pj=aiko.pk, init=15), Slot(pj=kenji.pk, init=8)]
    )
    page = live(open_page(browser, table))
    other_tab = page.context.new_page()
    other_tab.goto(table["base"] + "/c/kiso/")
    live(other_tab)
    form = page.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Bandido")
    form.locator('input[name="count"]').fill("2")
    form.get_by_label("Iniciativa").fill("9")
    form.get_by_label("un turno para todos").check()
    form.get_by_role("button", name="Añadir al combate").click()
    expect(page.locator(".fight-slot")).to_have_count(3)
    expect(card(other_tab, "Bandido 2")).to_be_visible()
    undo = page.locator("#undo button")
    expect(undo).to_have_attribute("title", re.compile(r"PNJ añadidos: Bandido 1, Bandido 2$"))

    undo.click()

    expect(page.locator("#toasts")).to_contain_text(
        "Deshecho: Bandido 1, Bandido 2 salen de la mesa"
    )
    expect(page.locator(".pnj-card")).to_have_count(0)
    expect(page.locator(".fight-slot")).to_have_text(["Aiko 15", "Kenji 8"])
    expect(other_tab.locator(".pnj-card")).to_have_count(0)
    expect(other_tab.locator(".fight-slot")).to_have_count(2)
    screenshot(page, "pnj-add-undone-1280")

    # Outside a fight, Añadir is one step Deshacer takes back as well.
    services.fight_end(campaign=table["campaign"])
    expect(form).to_have_attribute("data-fight", "0")
    form.get_by_label("Nombre o plantilla").fill("Oni")
    form.get_by_role("button", name="Añadir", exact=True).click()
    expect(card(page, "Oni")).to_be_visible()
    expect(undo).to_have_attribute("title", re.compile(r"PNJ añadido: Oni$"))
    undo.click()
    expect(page.locator(".pnj-card")).to_have_count(0)
    expect(other_tab.locator(".pnj-card")).to_have_count(0)
    assert table["campaign"].characters.get(name="Oni").is_archived


def test_the_calculators_list_follows_the_pnj_in_every_tab(browser, table):
    """Found playing it: PNJ added or archived did not come into the calculator's select (nor
    leave it) until a reload, on the tab that added them or on another one."""
    aiko = table["party"]["Aiko"]
    services.fight_start(campaign=table["campaign"], order=[Slot(pj=aiko.pk, init=15)])
    page = live(open_page(browser, table))
    other_tab = page.context.new_page()
    other_tab.goto(table["base"] + "/c/kiso/")
    live(other_tab)

    def choices(tab):
        return tab.locator('#calculator select[name="pj"]')

    form = page.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Bandido")
    form.locator('input[name="count"]').fill("2")
    form.get_by_role("button", name="Añadir al combate").click()
    for tab in (page, other_tab):
        group = choices(tab).locator("optgroup[label='PNJ'] option")
        expect(group).to_have_text(["Bandido 1", "Bandido 2"])
    expect(choices(page).locator("> option")).to_have_text(["—", "Aiko", "Kenji"])

    # The other tab's calculator on Bandido 2; then another tab adds one more, and the fight's
    # end archives them all: gone from the list, and the choice with them.
    choices(other_tab).select_option(label="Bandido 2")
    expect(other_tab.locator("#calc-result .calc-total")).to_be_visible()
    services.pnj_create(campaign=table["campaign"], name="Oni")
    expect(choices(other_tab).locator("optgroup option")).to_have_text(
        ["Bandido 1", "Bandido 2", "Oni"]
    )
    expect(choices(other_tab)).to_have_value(
        str(table["campaign"].characters.get(name="Bandido 2").pk)
    )
    page.locator(".fight-end summary").click()
    page.locator(".fight-end").get_by_role("button", name="Terminar combate").click()
    expect(choices(page).locator("optgroup option")).to_have_text(["Oni"])
    expect(choices(other_tab).locator("optgroup option")).to_have_text(["Oni"])
    expect(choices(other_tab)).to_have_value("")
    expect(other_tab.locator("#calc-result .calc-total")).to_have_count(0)
    screenshot(other_tab, "calculator-follows-1280")


def ambush_fight(campaign, party, bandido):
    """The playtest's ambush on `campaign`: `party` (two PJ) joined by six more, and 12 PNJ
    (6 of the Plantilla `bandido` sharing one turn, 3 Lobos grises, the Jefe, the Bruja and
    an ally), all in a fight. The whole party, and the PNJ."""
    party = party + [
        CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in PARTY[2:]
    ]
    lobo = services.template_save(campaign=campaign, name="Lobo gris", attributes={"VOL": 1})
    pnj = [
        *services.pnj_create(campaign=campaign, template=bandido, count=6),
        *services.pnj_create(campaign=campaign, template=lobo, count=3),
        *services.pnj_create(campaign=campaign, name="Jefe Ruiz", attributes={"VOL": 3}),
        *services.pnj_create(campaign=campaign, name="Bruja del pantano"),
        *services.pnj_create(campaign=campaign, name="Guía Tomé", side="aliado"),
    ]
    order = [Slot(pj=pj.pk, init=20 - n) for n, pj in enumerate(party)]
    order.append(Slot(pj=pnj[0].pk, also=tuple(c.pk for c in pnj[1:6]), init=11))
    order += [Slot(pj=c.pk, init=9 - n) for n, c in enumerate(pnj[6:])]
    services.fight_start(campaign=campaign, order=order)
    return party, pnj


@pytest.fixture
def ambush(table):
    """The playtest's ambush (ambush_fight); the Jefe has a note for his turn's end."""
    campaign = table["campaign"]
    party, pnj = ambush_fight(
        campaign, [table["party"]["Aiko"], table["party"]["Kenji"]], table["bandido"]
    )
    services.reminder_add(campaign=campaign, text="huye", when="end", character=pnj[9])
    return {**table, "pnj": pnj, "all": party + pnj}


def view_shot(page, name):
    """What the screen shows (a full-page picture misplaces a sticky bar)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def in_viewport(page, locator):
    box = locator.bounding_box()
    size = page.viewport_size
    return bool(
        box
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_the_turn_bar_keeps_each_turns_tap_in_reach_at_a_phones_width(browser, ambush):
    """Found playing it: at 360 px the fight panel with its pass button is far above the
    cards; with 8 PJ and some PNJ the DJ scrolled between the card and the panel each turn."""
    page = live(open_page(browser, ambush, width=360, height=740))
    bar = page.locator("#turnbar")
    passing = bar.get_by_role("button", name="Fin de turno")
    expect(bar).to_contain_text("Ronda 1 · Turno de Aiko")

    # Down among the PNJ, far from the fight panel: the turn is one tap away.
    card(page, "Lobo gris 2").scroll_into_view_if_needed()
    expect(page.locator("#fight")).not_to_be_in_viewport()
    assert in_viewport(page, passing)
    view_shot(page, "turnbar-pnj-360")
    for name in PARTY[1:]:
        passing.click()
        expect(bar).to_contain_text(f"Turno de {name}")
    passing.click()
    expect(bar).to_contain_text("Turno de Bandido 1–6")
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Bandido 1")
    assert in_viewport(page, passing)
    # Its name leads to the card whose turn it is; that card keeps its own pass button.
    bar.get_by_role("link").click()
    bandido = card(page, "Bandido 1")
    expect(bandido).to_be_in_viewport()
    expect(bandido.get_by_role("button", name="Fin de turno → Lobo gris 1")).to_be_visible()
    for name in ("Lobo gris 1", "Lobo gris 2", "Lobo gris 3", "Jefe Ruiz"):
        passing.click()
        expect(bar).to_contain_text(f"Turno de {name}")
    expect(bar).to_contain_text("al terminar: huye")  # the note due at the pass
    view_shot(page, "turnbar-note-360")
    assert describe("the turn bar at 360 px", axe(page)) == []

    # It covers nothing: at the page's end, the board's cards and panels end above it.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    content = page.locator(".board-body")
    expect(content.locator("#recent")).to_be_in_viewport()
    above, foot = content.bounding_box(), bar.bounding_box()
    assert above and foot and above["y"] + above["height"] <= foot["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    view_shot(page, "turnbar-end-360")

    # The fight over, the bar goes; at a desk's width there is none (the clock bar stays).
    page.locator(".fight-end summary").click()
    page.locator(".fight-end").get_by_role("button", name="Terminar combate").click()
    expect(bar).to_be_empty()
    expect(bar).to_be_hidden()


def test_the_big_board_is_usable_on_a_tablet(browser, ambush):
    """8 PJ and 12 PNJ (a group of 6 among them) in a fight, on a 1024 × 768 tablet: no
    sideways scroll; the pass button stays on screen above the cards (the clock bar is
    sticky there, and the phone's turn bar hidden); a PNJ's boxes far down come into sight
    below it and take a tap."""
    page = live(open_page(browser, ambush, width=1024, height=768))
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    passing = page.locator("#fight").get_by_role("button", name="Fin del turno de Aiko")
    expect(page.locator("#turnbar")).to_be_hidden()
    view_shot(page, "tablet-board-1024")

    bruja = card(page, "Bruja del pantano")
    box = bruja.get_by_role("button", name="Heridas leve")
    box.scroll_into_view_if_needed()
    bar = page.locator("#clockbar").bounding_box()
    assert bar and in_viewport(page, box) and box.bounding_box()["y"] >= bar["y"] + bar["height"]
    assert in_viewport(page, passing)
    view_shot(page, "tablet-pnj-1024")
    box.click()
    expect(bruja.locator(".box.marked")).to_have_count(1)
    expect(page.locator("#toasts")).to_contain_text("Bruja del pantano")

    passing.click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Kenji")
    assert in_viewport(
        page, page.locator("#fight").get_by_role("button", name="Fin del turno de Kenji")
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    screenshot(page, "tablet-board-full-1024")


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (360, 740)])
def test_the_big_board_at_a_desk_and_on_a_phone(browser, ambush, width, height):
    page = live(open_page(browser, ambush, width=width, height=height))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    bruja = card(page, "Bruja del pantano")
    bruja.get_by_role("button", name="Fatiga leve").click()
    expect(bruja.locator(".box.marked")).to_have_count(1)
    view_shot(page, f"big-board-pnj-{width}")
    screenshot(page, f"big-board-full-{width}")
