"""What a fresh-clone playtest of PNJ found on the DJ's board, in a real browser: the add form
made duplicates with a second tap; a phone's board was a long column of ragged PNJ rows, and
a tap's result showed far above the card; the sticky clock bar held a third of a laptop's
screen in a fight; the area blow said nothing of the PNJ marked and kept them marked; a saved
PNJ sent the DJ away from the board; a revealed PNJ said nothing of it in its row."""

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.turn_order import Slot
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_accessibility import AXE_SCRIPT, describe
from tests.browser.test_pnj_playtest import PARTY, ambush_fight, in_viewport, view_shot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = [
        CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in PARTY[:2]
    ]
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    return {"dj": dj, "campaign": campaign, "party": party, "bandido": template, "base": app_url}


@pytest.fixture
def ambush(table):
    """The playtest's fight: 8 PJ and 12 PNJ (ambush_fight)."""
    party, pnj = ambush_fight(table["campaign"], table["party"], table["bandido"])
    return {**table, "pnj": pnj, "all": party + pnj}


def board(browser, table, width=1280, height=900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="es-ES")
    log_in(context, table["base"], table["dj"])
    page = context.new_page()
    page.goto(f"{table['base']}/c/kiso/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


# -- 1. the add form: emptied after an add, kept after a refusal ------------------------------


@pytest.mark.parametrize("width", [1280, 360])
def test_an_add_empties_the_form_so_a_second_tap_makes_no_copies(browser, table, width):
    page = board(browser, table, width=width)
    form = page.locator(".pnj-add")
    name = form.get_by_label("Nombre o plantilla")
    name.fill("Jefe")
    form.get_by_role("button", name="Añadir", exact=True).click()
    expect(card(page, "Jefe")).to_be_visible()
    expect(page.locator("#toasts")).to_contain_text("PNJ añadido: Jefe")
    expect(name).to_have_value("")
    expect(name).to_be_focused()  # ready for the next one
    # A second tap asks for a name; it makes no "Jefe 2".
    form.get_by_role("button", name="Añadir", exact=True).click()
    expect(page.locator(".pnj-card")).to_have_count(1)
    screenshot(page, f"pnj-add-emptied-{width}")
    assert not table["campaign"].characters.filter(name="Jefe 2").exists()


def test_in_a_fight_an_add_empties_name_count_initiative_and_together(browser, table):
    aiko, kenji = table["party"]
    services.fight_start(
        campaign=table["campaign"], order=[Slot(pj=aiko.pk, init=15), Slot(pj=kenji.pk, init=8)]
    )
    page = board(browser, table)
    form = page.locator(".pnj-add")
    name, count = form.get_by_label("Nombre o plantilla"), form.locator('input[name="count"]')
    init, together = form.get_by_label("Iniciativa"), form.get_by_label("un turno para todos")
    side = form.get_by_label("Bando")

    # Refused: what was typed stays, to be put right.
    name.fill("Bandido")
    count.fill("3")
    side.select_option("aliado")
    init.fill("1,5")
    together.check()
    form.get_by_role("button", name="Añadir al combate").click()
    expect(page.locator("#pnj-error")).to_contain_text("iniciativa")
    expect(name).to_have_value("Bandido")
    expect(count).to_have_value("3")
    expect(init).to_have_value("1,5")
    expect(together).to_be_checked()

    init.fill("10")
    form.get_by_role("button", name="Añadir al combate").click()
    expect(card(page, "Bandido 3")).to_be_visible()
    for field, value in ((name, ""), (count, "1"), (init, "")):
        expect(field).to_have_value(value)
    expect(together).not_to_be_checked()
    expect(side).to_have_value("aliado")  # the side the DJ chose stays chosen
    expect(page.locator("#pnj-error")).to_be_empty()
    expect(name).to_be_focused()
    form.get_by_role("button", name="Añadir al combate").click()
    expect(page.locator(".pnj-card")).to_have_count(3)
    assert table["campaign"].characters.filter(name__startswith="Bandido").count() == 3


# -- 4. the area blow: how many are marked, and the marks cleared by a blow recorded ----------


def test_the_area_blow_counts_the_pnj_marked_and_clears_them_once_recorded(browser, table):
    services.pnj_create(campaign=table["campaign"], template=table["bandido"], count=3)
    page = board(browser, table)
    area = page.locator("#area-form")
    shown = area.get_by_role("status")
    expect(shown).to_have_text("ninguno marcado")
    card(page, "Bandido 1").get_by_role("checkbox").check()
    expect(shown).to_have_text("1 marcado")
    for name in ("Bandido 2", "Bandido 3"):
        card(page, name).get_by_role("checkbox").check()
    expect(shown).to_have_text("3 marcados")
    screenshot(page, "area-marked-1280")

    area.locator("select").select_option("fatiga")
    area.get_by_role("button", name="Leve").click()
    for name in ("Bandido 1", "Bandido 2", "Bandido 3"):
        expect(card(page, name).locator(".box.marked")).to_have_count(1)
    expect(page.locator("input.area-pick:checked")).to_have_count(0)
    expect(shown).to_have_text("ninguno marcado")
    # Deshacer takes the blow back; nothing comes marked again.
    page.get_by_role("button", name="Deshacer").click()
    expect(page.locator(".pnj-card .box.marked")).to_have_count(0)
    expect(page.locator("input.area-pick:checked")).to_have_count(0)

    # A blow refused keeps the marks, to be put right (a refusal as the server words one:
    # the reason in the area form's error line).
    card(page, "Bandido 2").get_by_role("checkbox").check()
    refusal = {"HX-Retarget": "#area-error", "HX-Reswap": "innerHTML"}
    page.route(
        "**/pnj/area/",
        lambda route: route.fulfill(status=422, headers=refusal, body="Bandido 2: no puede"),
    )
    area.get_by_role("button", name="Leve").click()
    expect(page.locator("#area-error")).to_have_text("Bandido 2: no puede")
    expect(card(page, "Bandido 2").get_by_role("checkbox")).to_be_checked()
    expect(shown).to_have_text("1 marcado")


# -- 3. the sticky clock bar in a fight: what stays on screen is short -------------------------


def stuck_height(page):
    """How much of the screen's top the clock bar holds once the board is scrolled under it."""
    return page.evaluate(
        """() => {
          const bar = document.getElementById("clockbar").getBoundingClientRect();
          return Math.max(0, bar.bottom) - Math.max(0, bar.top);
        }"""
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1024, 768), (800, 1000)])
def test_in_a_fight_the_sticky_bar_keeps_to_a_short_strip(browser, ambush, width, height):
    page = board(browser, ambush, width=width, height=height)
    fight = page.locator("#fight")
    for name in PARTY:  # to the Bandidos' shared turn
        expect(fight.locator(".fight-now")).to_contain_text(f"Turno de {name}")
        fight.get_by_role("button", name=f"Fin del turno de {name}").click()
    expect(fight.locator(".fight-now")).to_contain_text("Turno de Bandido 1–6")
    passing = fight.get_by_role("button", name="Fin del turno de Bandido 1–6")
    chips = fight.get_by_role("list", name="Orden de turnos")
    # The order is one line: its chips scroll sideways inside it, the turn's chip in sight.
    assert chips.evaluate("ol => ol.scrollHeight <= ol.clientHeight + 1")
    current = chips.locator('[aria-current="true"]')
    expect(current).to_have_text("Bandido 1–6 11")
    names = ", ".join(f"Bandido {n}" for n in range(1, 7))
    expect(current).to_have_attribute("title", names)  # each copy by name
    assert current.evaluate(
        """li => { const ol = li.parentElement.getBoundingClientRect();
                   const r = li.getBoundingClientRect();
                   return r.left >= ol.left - 1 && r.right <= ol.right + 1; }"""
    )
    view_shot(page, f"fight-bar-top-{width}")

    # Down among the PNJ: the bar keeps the turn, its pass, Deshacer and the last tap's line.
    bruja = card(page, "Bruja del pantano")
    bruja.get_by_role("button", name="Fatiga leve").scroll_into_view_if_needed()
    bruja.get_by_role("button", name="Fatiga leve").click()
    expect(page.locator("#toasts")).to_contain_text("Bruja del pantano")
    assert page.evaluate("scrollY") > 400
    assert stuck_height(page) <= 120, stuck_height(page)
    for control in (passing, page.get_by_role("button", name="Deshacer"), page.locator("#toasts")):
        assert in_viewport(page, control)
    bar = page.locator("#clockbar").bounding_box()
    box = bruja.get_by_role("button", name="Fatiga leve").bounding_box()
    assert bar and box and box["y"] >= bar["y"] + bar["height"]  # below it, never under it
    view_shot(page, f"fight-bar-stuck-{width}")
    passing.click()
    expect(fight.locator(".fight-now")).to_contain_text("Turno de Lobo gris 1")
    assert stuck_height(page) <= 120, stuck_height(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# -- 2. a phone's board: compact PNJ rows in aligned columns, a tap's result by its card -------

PHONE = {"width": 360, "height": 740}


def axe_with_target_size(page, selector):
    """axe-core on `selector`, with WCAG 2.2's target size (24 px) checked too."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    options = {"rules": {"target-size": {"enabled": True}}, "resultTypes": ["violations"]}
    return page.evaluate("([s, o]) => axe.run(s, o)", [selector, options])["violations"]


def box_lefts(page, name):
    """The x of each E.Alt's first box (L) on `name`'s compact card, from the card's left
    edge, by E.Alt."""
    return card(page, name).evaluate(
        """article => Object.fromEntries(
             [...article.querySelectorAll(".conditions-compact .condition")]
             .map(row => [row.querySelector(".box").dataset.shortcutType,
                          Math.round(row.querySelector(".box").getBoundingClientRect().left
                                     - article.getBoundingClientRect().left)]))"""
    )


def test_at_a_phones_width_a_pnj_is_a_short_card_of_aligned_boxes(browser, ambush):
    page = board(browser, ambush, width=PHONE["width"], height=PHONE["height"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    names = [c.name for c in ambush["pnj"]]
    for name in names:
        height = card(page, name).bounding_box()["height"]
        assert height <= 260, (name, height)
    # Two columns of E.Alt: each column's boxes start at one x, on every PNJ's card alike.
    first = box_lefts(page, "Jefe Ruiz")
    assert first["heridas"] == first["shock"] == first["afeccion"] < first["fatiga"]
    assert first["fatiga"] == first["emocion"]
    for name in names:
        assert box_lefts(page, name) == first, name
    # Each E.Alt is named in full to a screen reader (its abbreviation is for the eye).
    jefe = card(page, "Jefe Ruiz")
    expect(jefe.get_by_role("button", name="Afección grave")).to_be_visible()
    expect(jefe.locator(".conditions-compact")).to_contain_text("Afección")
    # The boxes are targets of 24 px or more, spaced: axe finds nothing, target size too.
    assert describe("PNJ at 360 px", axe_with_target_size(page, "#pnj")) == []
    box = jefe.get_by_role("button", name="Heridas leve").bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24
    screenshot(page, "pnj-compact-360")
    # A PJ's card: its boxes in one column too.
    lefts = {
        int(x)
        for x in card(page, "Aiko").evaluate(
            """a => [...a.querySelectorAll('.conditions .boxes')]
                     .map(b => b.getBoundingClientRect().left)"""
        )
    }
    assert len(lefts) == 1, lefts


def test_at_a_phones_width_a_taps_result_shows_by_its_card(browser, ambush):
    page = board(browser, ambush, width=PHONE["width"], height=PHONE["height"])
    bruja = card(page, "Bruja del pantano")
    box = bruja.get_by_role("button", name="Heridas grave")
    box.scroll_into_view_if_needed()
    before = box.bounding_box()["y"]
    box.click()
    expect(bruja.locator(".box.marked")).to_have_count(1)
    result = bruja.locator(".card-result")
    expect(result).to_contain_text("Bruja del pantano: Heridas Grave")
    expect(result).to_contain_text("Marca Heridas Grave")  # with its rule trail
    assert in_viewport(page, result)
    assert abs(box.bounding_box()["y"] - before) < 1  # the box stays under the finger
    assert not in_viewport(page, page.locator("#toasts"))  # the clock bar's line is far above
    view_shot(page, "pnj-tap-result-360")
    # One result on the board, the last tap's; its × puts it away.
    jefe = card(page, "Jefe Ruiz")
    jefe.get_by_role("button", name="Fatiga leve").click()
    expect(jefe.locator(".card-result")).to_contain_text("Jefe Ruiz: Fatiga Leve")
    expect(page.locator(".card-result")).to_have_count(1)
    jefe.locator(".card-result").get_by_role("button", name="Cerrar").click()
    expect(page.locator(".card-result")).to_have_count(0)
    assert describe("a result by its card", axe_with_target_size(page, "#pnj")) == []
    # A box just above the turn's bar at the screen's foot (and its 5rem the focus keeps
    # clear): its result shows above the boxes, where there is room, the box where it was.
    lobo = card(page, "Lobo gris 1")
    box = lobo.get_by_role("button", name="Fatiga leve")
    box.scroll_into_view_if_needed()
    box.evaluate("b => window.scrollBy(0, b.getBoundingClientRect().bottom + 84 - innerHeight)")
    before = box.bounding_box()["y"]
    box.click()
    expect(lobo.locator(".card-result")).to_contain_text("Lobo gris 1: Fatiga Leve")
    assert abs(box.bounding_box()["y"] - before) < 1
    assert in_viewport(page, lobo.locator(".card-result"))
    turnbar = page.locator("#turnbar").bounding_box()
    shown = lobo.locator(".card-result").bounding_box()
    assert shown["y"] + shown["height"] <= turnbar["y"]  # not under the turn's bar
    view_shot(page, "pnj-tap-result-above-360")
    # At a desk's width the clock bar's line is in sight: nothing is added to the card.
    page.set_viewport_size({"width": 1280, "height": 800})
    jefe.get_by_role("button", name="Shock leve").click()
    expect(page.locator("#toasts")).to_contain_text("Jefe Ruiz: Shock Leve")
    expect(page.locator(".card-result")).to_have_count(0)


# -- 5. a PNJ's edit form, opened from the board, goes back to it -----------------------------


@pytest.mark.parametrize("width", [1280, 360])
def test_a_pnj_saved_from_the_board_goes_back_to_its_card(browser, ambush, width):
    page = board(browser, ambush, width=width)
    jefe = card(page, "Jefe Ruiz")
    jefe.locator("details.pnj-whole summary").click()
    jefe.get_by_role("link", name="Lo que ven los jugadores, puntuaciones, notas…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Editar Jefe Ruiz")
    page.get_by_label("Notas").fill("Huye si cae la Bruja.")
    page.get_by_role("button", name="Guardar PNJ").click()

    pk = ambush["pnj"][9].pk
    expect(page).to_have_url(f"{ambush['base']}/c/kiso/#pj-{pk}")
    expect(page.locator(".messages")).to_contain_text("Se han guardado los cambios de Jefe Ruiz")
    expect(card(page, "Jefe Ruiz")).to_be_in_viewport()
    screenshot(page, f"pnj-saved-back-on-the-board-{width}")
    # Cancel goes back there too.
    card(page, "Jefe Ruiz").locator("details.pnj-whole summary").click()
    card(page, "Jefe Ruiz").get_by_role("link", name="Lo que ven los jugadores").click()
    page.get_by_role("link", name="Cancelar").click()
    expect(page).to_have_url(f"{ambush['base']}/c/kiso/#pj-{pk}")


# -- 6. a revealed PNJ says so on the DJ's board -----------------------------------------------


def test_a_revealed_pnj_says_so_on_the_board(browser, ambush):
    page = board(browser, ambush)
    bruja = card(page, "Bruja del pantano")
    expect(bruja.locator(".pnj-head")).to_contain_text("sin revelar")
    bruja.locator("details.pnj-whole summary").click()
    bruja.get_by_role("button", name="Revelar a los jugadores").click()
    expect(bruja.locator(".pnj-head")).to_contain_text("revelado")
    expect(bruja.locator(".pnj-head")).not_to_contain_text("sin revelar")
    # Another tab of the board sees it too (a live change).
    other = board(browser, ambush)
    expect(card(other, "Bruja del pantano").locator(".badge-seen")).to_have_text("revelado")
    assert describe("a revealed badge", axe_with_target_size(page, "#pnj")) == []
    screenshot(page, "pnj-revealed-1280")
    bruja.get_by_role("button", name="Ocultar a los jugadores").click()
    expect(bruja.locator(".pnj-head")).to_contain_text("sin revelar")
    expect(card(other, "Bruja del pantano").locator(".badge-seen")).to_have_count(0)
