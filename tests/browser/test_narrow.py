"""The board's dialogs and menus at a phone's width (360 px): each fits the screen and
leaves the control that opened it, and the bar around it, usable."""

import pytest
from playwright.sync_api import expect

from campaign import services, turn_order
from tests.browser.conftest import SCREENSHOTS, log_in
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = [
        CharacterFactory(
            campaign=campaign, name=name, attributes={"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3}
        )
        for name in ("Aiko", "Kenji", "Ren")
    ]
    return {"dj": dj, "campaign": campaign, "party": party, "base": app_url}


def board(browser, table, path="/c/kiso/"):
    context = browser.new_context(viewport=PHONE, locale="es-ES", is_mobile=True, has_touch=True)
    log_in(context, table["base"], table["dj"])
    page = context.new_page()
    page.goto(table["base"] + path)
    return page


def screenshot(page, name):
    """What the phone's screen shows (a full-page picture misplaces fixed panels)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def box(page, selector):
    return page.locator(selector).bounding_box()


def test_the_shortcuts_dialog_fits_a_phone(browser, table):
    page = board(browser, table)

    page.get_by_role("button", name="Atajos de teclado").click()

    dialog = page.get_by_role("dialog", name="Atajos de teclado")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading", name="Atajos de teclado")).to_be_in_viewport()
    edge = dialog.bounding_box()
    assert edge["x"] >= 0 and edge["x"] + edge["width"] <= PHONE["width"], edge
    assert dialog.evaluate("d => d.scrollWidth <= d.clientWidth")
    # Each shortcut's words keep a readable width: not a word a line.
    assert min(dialog.locator("dd").evaluate_all("ds => ds.map(d => d.clientWidth)")) > 200
    screenshot(page, "narrow-help")
    dialog.get_by_role("button", name="Cerrar").click()
    expect(dialog).to_be_hidden()


def test_other_time_opens_below_its_button_and_closes_from_it(browser, table):
    page = board(browser, table)
    summary = page.locator("summary", has_text="Otro tiempo…")
    panel = page.locator("#other-time")

    summary.click()

    expect(panel).to_be_visible()
    expect(panel.get_by_role("button", name="Dejar pasar el tiempo")).to_be_in_viewport()
    assert (
        panel.bounding_box()["y"] >= summary.bounding_box()["y"] + summary.bounding_box()["height"]
    )
    screenshot(page, "narrow-other-time")
    summary.click()  # nothing covers it
    expect(panel).to_be_hidden()
    page.locator("summary", has_text="Otro tiempo…").click()
    panel.get_by_label("Cantidad").fill("2")
    panel.get_by_role("button", name="Dejar pasar el tiempo").click()
    expect(panel).to_be_hidden()
    expect(page.locator("#clockbar")).to_contain_text("00:02")


@pytest.mark.parametrize("width", [1280, PHONE["width"]])
def test_end_fight_asks_without_covering_the_time_bar(browser, table, width):
    order = [turn_order.Slot(pj=pj.pk, init=10 - n) for n, pj in enumerate(table["party"])]
    services.fight_start(campaign=table["campaign"], order=order, actor=table["dj"])
    page = board(browser, table)
    page.set_viewport_size({"width": width, "height": 800})
    summary = page.locator("summary", has_text="Terminar combate…")

    summary.click()

    question = page.locator(".fight-end .confirm-body")
    expect(question).to_contain_text("¿Terminar el combate?")
    minute = page.get_by_role("button", name="+1 min")
    low = question.bounding_box()
    high = minute.bounding_box()
    apart = (
        high["y"] >= low["y"] + low["height"]
        or high["y"] + high["height"] <= low["y"]
        or high["x"] >= low["x"] + low["width"]
        or high["x"] + high["width"] <= low["x"]
    )
    assert apart, (low, high)
    # The other tools stay above the open question, side by side where they fit (they
    # were one per line, the question between them).
    change = page.get_by_role("link", name="Cambiar orden").bounding_box()
    pins = page.locator("summary", has_text="Recordatorios…").bounding_box()
    assert pins["y"] + pins["height"] <= low["y"], (pins, low)
    assert change["y"] == pins["y"] or width < 480, (change, pins)
    screenshot(page, f"fight-end-{width}")
    summary.click()
    expect(question).to_be_hidden()
    summary.click()
    page.keyboard.press("Escape")  # as Otro tiempo… closes
    expect(question).to_be_hidden()


def test_a_long_session_title_does_not_widen_the_phones_board(browser, table):
    services.session_start(
        campaign=table["campaign"], title="La llegada al puerto de Kiso en pleno invierno"
    )
    page = board(browser, table)

    expect(page.locator(".session-title")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "narrow-session-title")
