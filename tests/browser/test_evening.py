"""Rules v2.1 and the smaller points of an evening, seen on the board and the catalogue."""

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser import test_controls as controls
from tests.browser.conftest import SCREENSHOTS, screenshot
from tests.browser.test_controls import card, open_board

table = controls.table  # Aiko and Kenji, especificos on


def test_shock_leve_takes_the_pjs_next_turn(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")

    # Shocked right after its own turn: it loses next round's.
    aiko.get_by_role("button", name="Fin de turno").click()
    expect(page.locator("#toasts")).to_contain_text("Fin de turno")
    aiko.get_by_role("button", name="Shock leve").click()
    expect(card(page, "Aiko").locator(".ealt-ends")).to_contain_text("el de la Ronda siguiente")
    page.locator("#clockbar").get_by_role("button", name="Siguiente ronda").click()
    expect(page.locator("#clock")).to_contain_text("Ronda 2")
    expect(card(page, "Aiko").get_by_text("no puede actuar")).to_be_visible()
    screenshot(page, "board-shock-leve-1280")
    card(page, "Aiko").get_by_role("button", name="Fin de turno").click()

    expect(card(page, "Aiko").get_by_text("no puede actuar")).to_have_count(0)
    # Shocked before its turn: the end of that turn ends it.
    card(page, "Kenji").get_by_role("button", name="Shock leve").click()
    expect(card(page, "Kenji").locator(".ealt-ends")).to_contain_text(
        "Al final de su próximo Turno"
    )
    card(page, "Kenji").get_by_role("button", name="Fin de turno").click()
    expect(card(page, "Kenji").get_by_text("no puede actuar")).to_have_count(0)


@pytest.mark.parametrize("width", [1280, 360])
def test_scores_phase_texts_and_catalogue_names_read_as_words(browser, app_url, table, width):
    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Aiko"],
        event={"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "veneno somnífero"},
    )
    page = open_board(browser, app_url, table, width=width)

    aiko = card(page, "Aiko")
    expect(aiko.locator(".scores")).to_contain_text("FUE 3")
    expect(aiko.locator(".scores")).to_contain_text("INT –")
    expect(aiko.locator(".chip-effect")).to_have_text("Bosteza y se distrae.")
    screenshot(page, f"board-chips-{width}")
    aiko.locator(".chip-row").first.screenshot(path=str(SCREENSHOTS / f"chip-{width}.png"))
    page.goto(f"{table['url']}catalogo/")
    expect(page.get_by_role("heading", name="Bloqueo empático")).to_be_visible()
    expect(page.get_by_role("heading", name="Veneno paralizante")).to_be_visible()
    expect(page.get_by_text("bloqueo_empatico")).to_have_count(0)
    screenshot(page, f"catalogue-{width}")
