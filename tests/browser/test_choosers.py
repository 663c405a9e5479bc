"""The board's second-tap choosers: an option that changes what a button records sits
before the buttons, which record at once."""

import pytest
from playwright.sync_api import expect

from campaign.models import StateEvent
from tests.browser.conftest import screenshot
from tests.browser.test_controls import ask, card, kiso_table, open_board


@pytest.fixture
def table(app_url):
    return kiso_table(app_url)


def above(option, button) -> bool:
    """Whether `option` comes before `button` in the page and is drawn above it (or, on
    its row, to its left)."""
    first = option.evaluate(
        "(option, button) => !!(option.compareDocumentPosition(button) & 4)",
        button.element_handle(),
    )
    a, b = option.bounding_box(), button.bounding_box()
    return first and (a["y"] + a["height"] <= b["y"] or (a["y"] < b["y"] + 1 and a["x"] < b["x"]))


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize(
    ("box", "secret", "choice", "recorded"),
    [
        (
            "Afección leve",
            "secreto (los jugadores no ven el nombre)",
            "Veneno paralizante",
            {"type": "afeccion", "source": "veneno paralizante"},
        ),
        (
            "Heridas persistente",
            "secreto (los jugadores no lo ven)",
            "Lesión",
            {"type": "heridas", "especifico": "lesion"},
        ),
    ],
    ids=["afeccion", "especifico"],
)
def test_the_secret_box_comes_before_the_buttons_that_record_at_once(
    browser, app_url, table, width, box, secret, choice, recorded
):
    page = open_board(browser, app_url, table, width=width)
    card(page, "Aiko").get_by_role("button", name=box).click()
    chooser = ask(page, "Aiko")
    option = chooser.get_by_label(secret)
    expect(option).to_be_visible()

    buttons = chooser.locator(".ask-choices button")
    assert buttons.count() >= 1
    for i in range(buttons.count()):
        assert above(option, buttons.nth(i)), (box, i)
    screenshot(page, f"board-chooser-secret-{recorded['type']}-{width}")

    option.check()
    chooser.get_by_role("button", name=choice, exact=True).click()

    expect(chooser).to_be_empty()
    event = StateEvent.objects.filter(character=table["party"]["Aiko"]).latest("seq")
    assert event.secret
    assert {key: event.event.get(key) for key in recorded} == recorded
