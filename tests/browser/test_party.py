"""Party time that fits the party: a PJ behind says so and is brought level in one tap,
PJ keeping watch stay awake, archived PJ sit out."""

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser import test_controls as controls
from tests.browser.conftest import screenshot
from tests.browser.test_controls import card, open_board

table = controls.table  # the same party: Aiko and Kenji, especificos on

FATIGA_LEVE = {"kind": "suffer", "type": "fatiga", "grade": "leve"}


def record(table, name, event):
    character = table["party"][name] if name else None
    return services.event_record(campaign=table["campaign"], character=character, event=event)


def test_a_restored_pj_says_how_far_behind_it_is_and_is_brought_level(browser, app_url, table):
    kenji = table["party"]["Kenji"]
    services.character_archive(character=kenji)
    record(table, None, {"kind": "time", "hours": 8})
    services.character_restore(character=kenji)
    page = open_board(browser, app_url, table)

    behind = card(page, "Kenji").locator(".behind")
    expect(behind).to_contain_text("8 h por detrás del grupo.")
    expect(card(page, "Aiko").locator(".behind")).to_have_count(0)
    screenshot(page, "board-behind-1280")
    behind.get_by_role("button", name="durmiendo (un Descanso cada noche)").click()

    expect(card(page, "Kenji").locator(".behind")).to_have_count(0)
    expect(page.locator("#toasts")).to_contain_text("Descanso")
    kenji.snapshot.refresh_from_db()
    assert kenji.snapshot.state["clock"] == 8 * 3600
    assert kenji.snapshot.state["engine"]["last_descanso"] == 8 * 3600


def kenji_rests_alone(page, minutes: str) -> None:
    """From Kenji's "Más acciones": minutes of Reposo for him alone, ahead of the party."""
    card(page, "Kenji").locator("details.more summary").click()
    card(page, "Kenji").get_by_label("Reposo (en calma), minutos").fill(minutes)
    card(page, "Kenji").get_by_role("button", name="Reposar").click()


def test_a_pj_gone_ahead_leaves_the_others_behind_on_every_board(browser, app_url, table):
    page = open_board(browser, app_url, table)
    other = open_board(browser, app_url, table)

    kenji_rests_alone(page, "5")

    for board in (page, other):
        expect(card(board, "Aiko").locator(".behind")).to_contain_text("5 min por detrás")
        expect(card(board, "Kenji").locator(".behind")).to_have_count(0)
    card(other, "Aiko").get_by_role("button", name="despierto").click()
    expect(card(page, "Aiko").locator(".behind")).to_have_count(0)


def test_deshacer_of_a_pj_gone_ahead_clears_behind_on_every_board(browser, app_url, table):
    page = open_board(browser, app_url, table)
    other = open_board(browser, app_url, table)
    kenji_rests_alone(page, "5")
    expect(card(other, "Aiko").locator(".behind")).to_contain_text("5 min por detrás")
    other.evaluate("window.__noReload = true")  # a reload would lose it

    page.get_by_role("button", name="Deshacer").click()

    for board in (page, other):
        expect(card(board, "Aiko").locator(".behind")).to_have_count(0)
    assert other.evaluate("window.__noReload") is True  # live, in place


def test_pj_keeping_watch_stay_awake_through_party_rest_and_descanso(browser, app_url, table):
    record(table, "Aiko", FATIGA_LEVE)
    record(table, "Kenji", FATIGA_LEVE)
    page = open_board(browser, app_url, table)
    menu = page.locator("#clockbar details.menu")

    menu.locator(":scope > summary").click()
    menu.get_by_label("Cantidad").fill("5")
    menu.get_by_text("reposo", exact=True).click()
    menu.get_by_label("Kenji").check()
    screenshot(page, "board-watch-1280")
    menu.get_by_role("button", name="Dejar pasar el tiempo").click()

    expect(card(page, "Aiko").get_by_text("Fatiga Leve")).to_have_count(0)
    expect(card(page, "Kenji").get_by_text("Fatiga Leve")).to_be_visible()  # awake, on watch
    expect(card(page, "Kenji").locator(".behind")).to_have_count(0)  # the same time passed

    page.locator("#clockbar details.menu > summary").click()
    page.locator("#clockbar details.menu").get_by_label("Aiko").check()
    page.locator("#clockbar details.menu").get_by_role(
        "button", name="Descanso del grupo (8 h)"
    ).click()
    expect(page.locator("#clock")).to_contain_text("08:05")
    expect(page.locator("#toasts")).to_contain_text("Aiko")
    expect(card(page, "Aiko").locator(".behind")).to_have_count(0)


@pytest.mark.parametrize("width", [360])
def test_the_behind_notice_on_a_phone(browser, app_url, table, width):
    kenji = table["party"]["Kenji"]
    services.character_archive(character=kenji)
    record(table, None, {"kind": "time", "hours": 26})
    services.character_restore(character=kenji)
    page = open_board(browser, app_url, table, width=width)

    expect(card(page, "Kenji").locator(".behind")).to_contain_text("1 día y 2 h por detrás")
    screenshot(page, "board-behind-360")


def test_one_deshacer_takes_back_a_descanso_with_its_watch(browser, app_url, table):
    page = open_board(browser, app_url, table)
    menu = page.locator("#clockbar details.menu")
    menu.locator(":scope > summary").click()
    menu.get_by_label("Kenji").check()
    menu.get_by_role("button", name="Descanso del grupo (8 h)").click()
    expect(page.locator("#clock")).to_contain_text("08:00")

    page.get_by_role("button", name="Deshacer").click()

    expect(page.locator("#clock")).to_contain_text("00:00")
    expect(card(page, "Kenji").locator(".behind")).to_have_count(0)
    expect(page.locator("#toasts")).to_contain_text("Kenji: +8 h")
