"""What a fresh-clone playtest of PNJ found in the fight, in a real browser (the DJ's board and
order page in a laptop's context, a player's phone in its own): the order page follows the
fight live and a save from one that saw another fight changes nothing; players never read an
unrevealed enemy's state (why it left, a lost turn) and count the enemies standing alike in
the turn line and the list; a hidden enemy's lost turn is no appearance."""

import re

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from campaign.models import StateEvent
from campaign.turn_order import Slot
from tests.browser.conftest import heard, log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def ambush(app_url):
    """Hana and Ryo (Mei's), three Bandidos of a Plantilla sharing one turn, and a Lobo
    hidden until its first turn; none revealed."""
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in ("Hana", "Ryo")
    }
    services.invitation_accept(
        invitation=services.invitation_create(character=party["Ryo"], by=dj), user=mei
    )
    bandido = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    return {
        "dj": dj,
        "mei": mei,
        "campaign": campaign,
        "party": party,
        "bandido": bandido,
        "base": app_url,
    }


def start(ambush):
    """The fight: Hana, the three Bandidos as one group, Ryo, and the Lobo."""
    campaign = ambush["campaign"]
    bandidos = services.pnj_create(campaign=campaign, template=ambush["bandido"], count=3)
    ambush["bandidos"] = bandidos
    ambush["lobo"] = services.pnj_create(campaign=campaign, name="Lobo", lurking=True)[0]
    party = ambush["party"]
    order = [
        Slot(pj=party["Hana"].pk, init=15),
        Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=12),
        Slot(pj=party["Ryo"].pk, init=10),
        Slot(pj=ambush["lobo"].pk, init=8),
    ]
    services.fight_start(campaign=campaign, order=order)


def dj_page(browser, ambush, path="/c/kiso/", width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    log_in(context, ambush["base"], ambush["dj"])
    page = context.new_page()
    page.goto(ambush["base"] + path)
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def phone(browser, ambush):
    context = browser.new_context(viewport=PHONE, locale="es-ES")
    log_in(context, ambush["base"], ambush["mei"])
    page = context.new_page()
    page.goto(f"{ambush['base']}/c/kiso/pj/{ambush['party']['Ryo'].pk}/hoja/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


def pass_turn(page, now):
    page.locator('[data-shortcut="p"]').click()
    expect(page.locator("#fight .fight-now")).to_contain_text(now)


def test_players_read_no_hidden_state_and_count_the_enemies_standing(browser, ambush):
    start(ambush)
    services.event_record(  # the Lobo, stunned: its turn is lost, and it stays hidden
        campaign=ambush["campaign"],
        character=ambush["lobo"],
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )
    board = dj_page(browser, ambush)
    ryo = phone(browser, ambush)
    turn, foes = ryo.locator(".sheet-turn"), ryo.locator("#foes")
    expect(turn).to_contain_text("te toca después del turno de tres enemigos")

    # Bandido 3 knocked out from the board: the phone counts two standing, in both places.
    b3 = card(board, "Bandido 3")
    b3.locator("summary", has_text="Tarjeta entera").click()
    b3.get_by_role("button", name="inconsciente", exact=True).click()
    expect(board.locator(".fight-out")).to_contain_text("Bandido 3 (inconsciente)")
    expect(turn).to_contain_text("te toca después del turno de dos enemigos")
    expect(foes.locator(".foe:not(.is-out)")).to_have_count(2)
    expect(foes.locator(".foe.is-out")).to_have_text(re.compile(r"un enemigo\s+fuera de combate"))
    screenshot(ryo, "fight-pt-sheet-out-360")
    ryo.set_viewport_size({"width": 1280, "height": 900})
    expect(turn).to_contain_text("te toca después del turno de dos enemigos")
    screenshot(ryo, "fight-pt-sheet-out-1280")
    ryo.set_viewport_size(PHONE)

    # Hana, the Bandidos, Ryo: the hidden Lobo's turn, lost. Nobody's turn to the phone.
    for now in ("Turno de Bandido 1, 2", "Turno de Ryo", "Lobo no puede actuar"):
        pass_turn(board, now)
    heard(ryo, ambush["campaign"])
    expect(turn).not_to_contain_text("Turno de")
    expect(foes.locator(".foe")).to_have_count(3)
    pass_turn(board, "ronda 2 · Turno de Hana")
    screenshot(board, "fight-pt-board-1280")

    # The player's history: an enemy left the fight, not why; the Lobo's lost turn is not there.
    ryo.goto(f"{ambush['base']}/c/kiso/historia/")
    timeline = ryo.locator(".timeline")
    expect(timeline).to_contain_text("Un enemigo sale del combate")
    expect(timeline).not_to_contain_text("inconsciente")
    expect(timeline).not_to_contain_text("Pierde el turno")
    expect(timeline).to_contain_text("Turno de dos enemigos")
    screenshot(ryo, "fight-pt-history-360")
    board.goto(f"{ambush['base']}/c/kiso/historia/")
    expect(board.locator(".timeline")).to_contain_text("Bandido 3 sale del combate (inconsciente)")
    expect(board.locator(".timeline")).to_contain_text("Pierde el turno")
    screenshot(board, "fight-pt-history-1280")


@pytest.mark.parametrize("width", [1280, 360])
def test_a_stale_order_tab_follows_the_fight_and_its_save_changes_nothing(browser, ambush, width):
    campaign, party = ambush["campaign"], ambush["party"]
    services.fight_start(
        campaign=campaign, order=[Slot(pj=party["Hana"].pk, init=15), Slot(pj=party["Ryo"].pk)]
    )
    board = dj_page(browser, ambush)
    order = dj_page(browser, ambush, "/c/kiso/combate/", width=width)
    rows, notice = order.locator(".fight-rows"), order.locator("#fight-changed")

    # Three Bandidos join from the board: the untouched order page shows them at once.
    add = board.locator(".pnj-add")
    add.get_by_label("Nombre o plantilla").fill("Bandido")
    add.locator('input[name="count"]').fill("3")
    add.get_by_label("Iniciativa").fill("10")
    add.get_by_label("un turno para todos").check()
    add.get_by_role("button", name="Añadir al combate").click()
    expect(rows).to_contain_text("Bandido 1, Bandido 2, Bandido 3")
    expect(notice).to_contain_text(
        "Actualizado: el combate ha cambiado en otra pestaña: "
        "Bandido 1, Bandido 2, Bandido 3 han entrado en el orden."
    )
    screenshot(order, f"fight-pt-order-followed-{width}")

    # The DJ moves Hana down on the order page; meanwhile the board takes Bandido 3 out and
    # passes Hana's turn. The page keeps the DJ's order and says what saving it would do.
    order.get_by_role("button", name="Bajar la línea 1").click()
    expect(rows.locator(".fight-row").first).to_contain_text("Ryo")
    b3 = card(board, "Bandido 3")
    b3.locator("summary", has_text="Tarjeta entera").click()
    b3.get_by_role("button", name="inconsciente", exact=True).click()
    expect(board.locator(".fight-out")).to_contain_text("Bandido 3 (inconsciente)")
    pass_turn(board, "Turno de Ryo")
    expect(notice).to_contain_text(
        "El combate ha cambiado desde que se abrió esta página: "
        "Bandido 3 ha salido del combate (inconsciente); ronda 1, turno de Ryo."
    )
    expect(notice).to_contain_text("si lo guardas, se rechaza y no se escribe nada")
    expect(rows.locator(".fight-row").first).to_contain_text("Ryo")  # the DJ's order, kept
    expect(rows).to_contain_text("Bandido 3")
    screenshot(order, f"fight-pt-order-stale-{width}")

    # Saved anyway: refused, nothing written, and the page is the fight as it is now.
    count = StateEvent.objects.count()
    order.get_by_role("button", name="Guardar el orden").click()
    expect(order.get_by_role("alert")).to_contain_text("No se ha guardado nada")
    expect(order.locator(".fight-unsaved")).to_contain_text("Ryo → Hana (iniciativa 15) →")
    expect(rows).not_to_contain_text("Bandido 3")
    expect(rows.locator(".fight-row").first).to_contain_text("Hana")
    assert StateEvent.objects.count() == count
    screenshot(order, f"fight-pt-order-refused-{width}")

    # Saved again: accepted, and Bandido 3 stays out of the order.
    order.get_by_role("button", name="Guardar el orden").click()
    expect(order.locator("#fight .fight-now")).to_contain_text("Turno de Ryo")
    fight = selectors.fight_now(campaign=campaign)
    out = campaign.characters.get(name="Bandido 3").pk
    assert out not in fight.fighting and out in fight.out
    expect(board.locator(".fight-slot")).to_have_text(["Hana 15", "Ryo", "Bandido 1, 2 10"])


@pytest.mark.parametrize("width", [1280, 360])
def test_the_next_fight_starts_with_the_last_ones_groups_and_not_those_it_took_out(
    browser, ambush, width
):
    start(ambush)
    campaign, bandidos = ambush["campaign"], ambush["bandidos"]
    services.fight_out(campaign=campaign, character=bandidos[2], why="inconsciente")
    services.fight_end(campaign=campaign)  # the enemies stay on the board

    order = dj_page(browser, ambush, "/c/kiso/combate/", width=width)

    rows = order.locator(".fight-row .fight-name")
    expect(rows).to_have_text(
        [re.compile(r"^Hana"), re.compile(r"^Ryo"), "Bandido 1, Bandido 2 grupo", "Lobo PNJ"]
    )
    expect(order.locator("#fight-add-new")).to_contain_text(
        "Bandido 3 (PNJ, fuera del último combate: inconsciente)"
    )
    expect(order.locator(".fight-left-out")).to_contain_text("Bandido 3 (inconsciente)")
    screenshot(order, f"fight-pt-order-next-fight-{width}")
    order.get_by_role("button", name="Empezar el combate").click()
    expect(order.locator("#fight .fight-now")).to_contain_text("Turno de Hana")
    fight = selectors.fight_now(campaign=campaign)
    assert [s.members for s in fight.order] == [
        (ambush["party"]["Hana"].pk,),
        (ambush["party"]["Ryo"].pk,),
        (bandidos[0].pk, bandidos[1].pk),
        (ambush["lobo"].pk,),
    ]


def test_a_groups_turn_passes_with_one_button_not_one_a_card(browser, ambush):
    """The playtest: each of the three Bandidos' cards had its own "Fin de turno → Ryo"."""
    start(ambush)
    board = dj_page(browser, ambush)
    pass_turn(board, "Turno de Bandido 1–3")

    turn_cards = board.locator(".pnj-card.is-turn")
    expect(turn_cards).to_have_count(3)
    passing = board.locator(".pnj-card").get_by_role("button", name=re.compile("^Fin de turno"))
    expect(passing).to_have_count(1)
    expect(
        card(board, "Bandido 1").get_by_role("button", name="Fin de turno → Ryo")
    ).to_be_visible()
    screenshot(board, "fight-pt-group-turn-1280")
    passing.click()
    expect(board.locator("#fight .fight-now")).to_contain_text("Turno de Ryo")
    expect(turn_cards).to_have_count(0)
