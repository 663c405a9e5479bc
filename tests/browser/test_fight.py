"""A fight run from the board in a real browser: the order page, one tap per turn over five
rounds, Shock leve and grave ending as rules v2.1 says, the player's phone saying whose turn
it is, a change of order, a lost turn, undo of a pass, and the end of the fight."""

import re

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from tests.browser.conftest import heard, log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}

# Live news held back until window.releaseNews(): a page that has not heard yet.
HOLD_NEWS = """() => {
  const held = [];
  const hold = (event) => {
    if (event.detail.released) return;
    event.stopImmediatePropagation();
    held.push(event.detail);
  };
  document.addEventListener("zodiac:change", hold, true);
  window.releaseNews = () => {
    document.removeEventListener("zodiac:change", hold, true);
    for (const detail of held) {
      const again = { ...detail, released: true };
      document.dispatchEvent(new CustomEvent("zodiac:change", { detail: again }));
    }
  };
}"""


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(
            campaign=campaign, name=name, attributes={"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3}
        )
        for name in ("Aiko", "Kenji", "Ren")
    }
    services.invitation_accept(
        invitation=services.invitation_create(character=party["Aiko"], by=dj), user=mei
    )
    return {"dj": dj, "mei": mei, "campaign": campaign, "party": party, "base": app_url}


def board_page(browser, table, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    log_in(context, table["base"], table["dj"])
    page = context.new_page()
    page.goto(f"{table['base']}/c/kiso/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


def start_fight(page):
    page.get_by_role("link", name="Empezar combate").click()
    expect(page.get_by_role("heading", name="Empezar un combate")).to_be_visible()
    for name, init in (("Oni", "12"), ("Bandido", "5")):
        page.get_by_label("Nombre o plantilla (PNJ nuevo)").fill(name)
        page.locator('input[name="new_init"]').fill(init)
        page.get_by_role("button", name="Añadir", exact=True).click()
        expect(page.locator(f'input[name="name"][value="{name}"]')).to_be_attached()
    inits = page.locator('input[name="init"]')
    for i, value in enumerate(("10", "14", "3")):  # Aiko, Kenji, Ren (by name)
        inits.nth(i).fill(value)
    page.get_by_role("button", name="Ordenar por iniciativa").click()
    expect(page.locator(".fight-row").first).to_contain_text("Kenji")
    screenshot(page, "fight-order-1280")
    page.get_by_role("button", name="Empezar el combate", exact=True).last.click()
    expect(page.locator("#fight")).to_contain_text("Turno de Kenji")


def now_is(page, round_, name):
    """The bar says it is `name`'s turn in round `round_` (or that it loses it)."""
    words = re.compile(rf"ronda {round_} · (Turno de {name}|{name} no puede actuar)")
    expect(page.locator("#fight .fight-now")).to_contain_text(words)


def pass_turn(page, expected_next):
    page.locator('[data-shortcut="p"]').click()
    expect(page.locator("#fight .fight-now")).to_contain_text(expected_next)


def test_a_fight_of_three_pj_and_two_others_over_five_rounds(browser, table):
    page = board_page(browser, table)
    aiko, ren = table["party"]["Aiko"], table["party"]["Ren"]
    start_fight(page)
    order = ["Kenji", "Oni", "Aiko", "Bandido", "Ren"]
    expect(page.locator(".fight-slot")).to_have_text(
        ["Kenji 14", "Oni 12", "Aiko 10", "Bandido 5", "Ren 3"]
    )
    assert "is-turn" in card(page, "Kenji").get_attribute("class")
    # Aiko shocked before her turn loses it; Ren in Shock grave cannot act.
    card(page, "Aiko").get_by_role("button", name="Shock leve").click()
    expect(card(page, "Aiko").locator(".badge-danger")).to_be_visible()
    card(page, "Ren").get_by_role("button", name="Shock grave").click()
    expect(card(page, "Ren").locator(".badge-danger")).to_be_visible()
    screenshot(page, "fight-board-1280")

    phone = browser.new_context(viewport=PHONE, locale="es-ES")
    log_in(phone, table["base"], table["mei"])
    sheet = phone.new_page()
    sheet.goto(f"{table['base']}/c/kiso/pj/{aiko.pk}/hoja/")
    turn = sheet.locator(".sheet-turn")
    expect(turn).to_contain_text("Turno de Kenji · te toca después del turno de un enemigo")

    # Shocked, she cannot act: her phone says the turn coming is the one she loses.
    expect(turn).to_contain_text("no puedes actuar: pierdes ese turno")
    pass_turn(page, "Turno de Oni")
    expect(sheet.locator(".sheet-turn")).to_contain_text(
        "te toca a continuación · no puedes actuar: pierdes ese turno"
    )
    screenshot(sheet, "fight-sheet-turn-lost-360")
    sheet.set_viewport_size({"width": 1280, "height": 900})
    screenshot(sheet, "fight-sheet-turn-lost-1280")
    sheet.set_viewport_size({"width": PHONE["width"], "height": PHONE["height"]})
    # Aiko's turn: the one her Shock leve takes; she loses it.
    pass_turn(page, "Aiko no puede actuar: pierde el turno")
    expect(sheet.locator(".sheet-turn")).to_contain_text("Tu turno: no puedes actuar")
    screenshot(sheet, "fight-sheet-360")
    pass_turn(page, "Turno de Bandido")
    expect(card(page, "Aiko").locator(".badge-danger")).to_have_count(0)
    pass_turn(page, "Ren no puede actuar: pierde el turno")
    expect(card(page, "Ren").locator(".checks")).to_have_count(0)
    pass_turn(page, "Turno de Kenji")  # Ren's lost turn ends, and the round passes
    expect(page.locator("#fight")).to_contain_text("Combate · ronda 2")
    expect(card(page, "Ren").locator(".checks")).to_contain_text("TS VOL")  # its turn's end asks it
    for round_ in range(2, 6):
        for i, name in enumerate(order):
            now_is(page, round_, name)
            if i == 0:
                page.keyboard.press("p")  # the key passes the turn too
            else:
                page.locator('[data-shortcut="p"]').click()
    now_is(page, 6, "Kenji")

    campaign = table["campaign"]
    now = selectors.fight_now(campaign=campaign)
    assert (now.round, now.current) == (6, 0)
    ren.snapshot.refresh_from_db()
    pending = [p["check"] for p in ren.snapshot.state["pending"]]
    assert pending.count("shock_grave_fin_turno") == 5  # one per turn it lost
    screenshot(page, "fight-round-6-1280")


def test_order_change_lost_turn_undo_and_the_end(browser, table):
    page = board_page(browser, table)
    start_fight(page)
    pass_turn(page, "Turno de Oni")

    # Mid-fight, Ren moves up to act right after the Oni; the Oni keeps its turn.
    page.get_by_role("link", name="Cambiar orden").click()
    expect(page.get_by_role("heading", name="Orden de turnos · ronda 1")).to_be_visible()
    page.get_by_role("button", name="Subir la línea 5").click()
    page.get_by_role("button", name="Subir la línea 4").click()
    expect(page.locator(".fight-row").nth(2)).to_contain_text("Ren")
    screenshot(page, "fight-order-change-1280")
    page.get_by_role("button", name="Guardar el orden").last.click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Oni · después, Ren")

    # Ren cannot act when its turn comes: one tap passes it, marked as lost.
    card(page, "Ren").get_by_role("button", name="Shock grave").click()
    pass_turn(page, "Ren no puede actuar: pierde el turno")
    expect(card(page, "Ren").get_by_role("button", name="Pierde el turno → Aiko")).to_be_visible()
    card(page, "Ren").get_by_role("button", name="Pierde el turno → Aiko").click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Aiko")

    # Deshacer takes the pass back: Ren's turn again, its TS VOL gone.
    page.get_by_role("button", name="Deshacer").click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Ren no puede actuar")
    expect(card(page, "Ren").locator(".checks")).to_have_count(0)

    page.locator("details.fight-end summary").click()
    page.locator("details.fight-end").get_by_role("button", name="Terminar combate").click()
    expect(page.get_by_role("link", name="Empezar combate")).to_be_visible()

    page.goto(f"{table['base']}/c/kiso/historia/")
    end = page.locator(".timeline-row", has_text="Termina el combate")
    expect(end).to_contain_text("Orden: Kenji (14) → Oni (12) → Ren (3) → Aiko (10) → Bandido (5)")
    expect(page.locator(".timeline-row", has_text="Shock Grave").first).to_contain_text(
        "Ronda 1 · Turno de Oni"
    )
    screenshot(page, "fight-history-1280")


def test_the_fight_bar_and_order_page_fit_a_phone(browser, table):
    page = board_page(browser, table, width=360)
    start_fight(page)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "fight-board-360")
    page.get_by_role("link", name="Cambiar orden").click()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "fight-order-360")


def test_enter_on_the_order_page_adds_the_line_typed_and_starts_nothing(browser, table):
    page = board_page(browser, table)
    page.get_by_role("link", name="Empezar combate").click()
    page.get_by_label("Nombre o plantilla (PNJ nuevo)").fill("Ronin")
    page.keyboard.press("Enter")
    expect(page.locator('input[name="name"][value="Ronin"]')).to_be_attached()
    page.locator('input[name="init"]').first.fill("7")
    page.locator('input[name="init"]').first.press("Enter")  # nothing typed below: as it is

    expect(page.get_by_role("heading", name="Empezar un combate")).to_be_visible()
    expect(page.locator('input[name="init"]').first).to_have_value("7")
    assert selectors.fight_now(campaign=table["campaign"]) is None


def test_a_pass_from_a_tab_that_saw_another_turn_is_refused_in_words_that_stay(browser, table):
    first = board_page(browser, table)
    start_fight(first)
    second = first.context.new_page()
    second.goto(f"{table['base']}/c/kiso/")
    now_is(second, 1, "Kenji")
    # Hold the second tab's news back, as a slow network would, so it still shows Kenji's
    # turn when the first tab passes it; the news comes in after its refusal.
    second.evaluate(HOLD_NEWS)
    first.locator('[data-shortcut="p"]').click()
    now_is(first, 1, "Oni")

    second.locator('[data-shortcut="p"]').click()
    error = second.locator("#fight-error")
    expect(error).to_contain_text("El turno ya ha pasado mientras tanto")
    now_is(second, 1, "Oni")  # the refusal brings the turn as it is, news or not
    second.evaluate("window.releaseNews()")
    now_is(second, 1, "Oni")
    heard(second, table["campaign"])
    expect(error).to_contain_text("El turno ya ha pasado mientras tanto")
    assert selectors.fight_now(campaign=table["campaign"]).current == 1  # passed once


def test_a_tab_opened_before_the_fight_loses_siguiente_ronda_when_it_starts(browser, table):
    first = board_page(browser, table)
    second = first.context.new_page()
    second.goto(f"{table['base']}/c/kiso/")
    expect(second.locator('[data-shortcut="n"]')).to_be_visible()

    start_fight(first)

    now_is(second, 1, "Kenji")
    expect(second.locator('[data-shortcut="n"]')).to_have_count(0)
    first.locator("details.fight-end summary").click()
    first.locator("details.fight-end").get_by_role("button", name="Terminar combate").click()
    expect(second.locator('[data-shortcut="n"]')).to_be_visible()
    screenshot(second, "fight-ended-second-tab-1280")


def test_a_second_tabs_start_page_never_overwrites_the_fight_started_meanwhile(browser, table):
    first = board_page(browser, table)
    second = first.context.new_page()
    second.goto(f"{table['base']}/c/kiso/combate/")
    expect(second.locator("#live")).to_have_attribute("data-state", "open")
    # A line added there first: the page holds the DJ's changes, which the start keeps.
    second.get_by_label("Nombre o plantilla (PNJ nuevo)").fill("Lobo")
    second.get_by_role("button", name="Añadir", exact=True).last.click()
    lobo = second.locator('input[name="name"][value="Lobo"]')
    expect(lobo).to_be_attached()
    start_fight(first)

    expect(second.locator("#fight-changed")).to_contain_text("ha empezado un combate")
    expect(lobo).to_be_attached()
    second.get_by_role("button", name="Empezar el combate", exact=True).last.click()

    expect(second.get_by_role("alert")).to_contain_text("Mientras tanto se empezó un combate")
    # The fight's own order, its Oni a PNJ now (a name typed became one at the start).
    expect(second.locator(".fight-rows")).to_contain_text("Oni")
    expect(lobo).to_have_count(0)
    known = selectors.character_names(campaign=table["campaign"])
    names = [known[s.pj] for s in selectors.fight_now(campaign=table["campaign"]).order]
    assert "Lobo" not in names and "Oni" in names
    second.get_by_role("button", name="Guardar el orden").last.click()  # now it changes it
    expect(second.locator("#fight")).to_contain_text("Combate · ronda 1")


def test_an_untouched_start_page_becomes_the_order_of_the_fight_started_elsewhere(browser, table):
    first = board_page(browser, table)
    second = first.context.new_page()
    second.goto(f"{table['base']}/c/kiso/combate/")
    expect(second.locator("#live")).to_have_attribute("data-state", "open")

    start_fight(first)

    expect(second.get_by_role("heading", name="Orden de turnos · ronda 1")).to_be_visible()
    expect(second.locator("#fight-changed")).to_contain_text("Actualizado")
    expect(second.locator(".fight-row").first).to_contain_text("Kenji")
    screenshot(second, "fight-start-page-followed-1280")


def test_the_fights_start_banner_goes_once_the_table_moves_on(browser, table):
    first = board_page(browser, table)
    start_fight(first)
    banner = first.locator(".messages .message-success")  # the fight's, and its session's
    expect(banner.first).to_contain_text("turno de Kenji")
    # The start reloaded the board: its stream must be open again to hear the step.
    expect(first.locator("#live")).to_have_attribute("data-state", "open")

    services.event_record(  # another tab's step, heard live
        campaign=table["campaign"],
        character=table["party"]["Ren"],
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )

    expect(banner).to_have_count(0)
    first.get_by_role("link", name="Cambiar orden").click()
    first.get_by_role("button", name="Guardar el orden").click()
    expect(banner.first).to_contain_text("El orden de turnos ha cambiado")
    # A reload again: before its scripts run, a tap is a plain form post (whose answer is a
    # new page with its own banner), so the step waits for the page to be live.
    expect(first.locator("#live")).to_have_attribute("data-state", "open")
    pass_turn(first, "Oni")  # the DJ's own next step
    expect(banner).to_have_count(0)


# -- rules v2.2 ------------------------------------------------------------------------------


def test_a_shock_leve_given_in_its_own_turn_outlives_that_turn_and_ends_at_the_next(browser, table):
    """(a) of the second table: Kenji, shocked during his own turn, lost nothing under
    v2.1 (his Fin de turno ended it). Now it takes his next turn, next round's."""
    page = board_page(browser, table)
    start_fight(page)  # Kenji, Oni, Aiko, Bandido, Ren
    kenji = card(page, "Kenji")
    kenji.get_by_role("button", name="Shock leve").click()
    expect(kenji.locator(".badge-danger")).to_be_visible()
    ends = kenji.locator(".ealt-ends", has_text="Turno")
    expect(ends).to_contain_text("Ronda siguiente")  # the card's Termina says which turn
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Kenji")  # not lost
    screenshot(page, "fight-own-turn-shock-1280")

    pass_turn(page, "Turno de Oni")

    expect(page.locator("#toasts")).to_contain_text("Fin del turno de Kenji")
    expect(page.locator("#toasts")).to_contain_text("se marcó en este mismo Turno")
    expect(kenji.locator(".badge-danger")).to_be_visible()  # his Fin de turno left it
    for name in ("Aiko", "Bandido", "Ren"):
        pass_turn(page, f"Turno de {name}")
    pass_turn(page, "Kenji no puede actuar: pierde el turno")  # round 2: the turn it takes
    expect(page.locator("#fight")).to_contain_text("Combate · ronda 2")
    expect(kenji.locator(".badge-danger")).to_be_visible()
    screenshot(page, "fight-own-turn-shock-next-round-1280")

    pass_turn(page, "Turno de Oni")

    expect(kenji.locator(".badge-danger")).to_have_count(0)
    kenji_pj = table["party"]["Kenji"]
    kenji_pj.snapshot.refresh_from_db()
    assert kenji_pj.snapshot.state["marks"]["shock"] == []


@pytest.mark.parametrize("width", [1280, 360])
def test_the_order_page_marks_one_as_not_exerting_itself(browser, table, width):
    campaign = table["campaign"]
    campaign.esfuerzo_prolongado = True
    campaign.save(update_fields=["esfuerzo_prolongado"])
    page = board_page(browser, table, width=width)
    page.get_by_role("link", name="Empezar combate").click()
    expect(page.get_by_text("Esfuerzo prolongado activado")).to_be_visible()
    ren = page.get_by_role("checkbox", name="Ren: no se esfuerza")
    expect(ren).not_to_be_checked()
    ren.check()
    page.get_by_label("Nombre o plantilla (PNJ nuevo)").fill("Arquero")
    page.get_by_role("button", name="Añadir", exact=True).last.click()
    expect(page.get_by_role("checkbox", name="Arquero: no se esfuerza")).to_be_visible()
    expect(page.locator(".fight-row", has_text="Arquero")).to_contain_text("sin FUE")
    expect(page.get_by_role("checkbox", name="Ren: no se esfuerza")).to_be_checked()  # kept
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"fight-order-effort-{width}")

    page.get_by_role("button", name="Empezar el combate", exact=True).last.click()
    expect(page.locator("#fight")).to_contain_text("Turno de Aiko")
    order = selectors.fight_now(campaign=campaign).order
    assert [s.esfuerzo for s in order] == [True, True, False, True]  # Aiko, Kenji, Ren, Arquero

    page.get_by_role("link", name="Cambiar orden").click()
    expect(page.get_by_role("checkbox", name="Ren: no se esfuerza")).to_be_checked()
    page.get_by_role("checkbox", name="Ren: no se esfuerza").uncheck()
    page.get_by_role("checkbox", name="Kenji: no se esfuerza").check()
    screenshot(page, f"fight-order-effort-change-{width}")
    page.get_by_role("button", name="Guardar el orden").last.click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Aiko")
    order = selectors.fight_now(campaign=campaign).order
    assert [s.esfuerzo for s in order] == [True, False, True, True]


@pytest.mark.parametrize("width", [1280, 360])
def test_a_fight_started_with_no_session_open_says_so_and_opens_one(browser, table, width):
    page = board_page(browser, table, width)
    expect(page.locator(".session-bar")).to_contain_text("Sin sesión abierta")
    page.get_by_role("link", name="Empezar combate").click()

    box = page.get_by_role("checkbox", name="Empezar también la sesión 1")
    expect(page.locator("#fight-no-session")).to_contain_text("No hay ninguna sesión abierta")
    expect(box).to_be_checked()
    box.scroll_into_view_if_needed()
    screenshot(page, f"fight-no-session-{width}")
    page.get_by_role("button", name="Empezar el combate", exact=True).last.click()

    expect(page.locator("#fight")).to_contain_text("Turno de")
    opened = page.get_by_text("La sesión 1 está abierta: el combate es parte de ella.")
    expect(opened).to_be_visible()
    expect(page.locator(".session-bar")).to_contain_text("Sesión 1")
