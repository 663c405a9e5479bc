"""The pages in English read the English edition's labels: the scores STR, AGI, DEX, INT
and WIL, a save for a TS, "Special states" for the E.Esp (the log keeps the Spanish keys)."""

import re

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser.conftest import log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

SPANISH_LABELS = re.compile(r"\b(FUE|DES|VOL|TS)\b|\bE\.Esp\b")


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(
        campaign=campaign, name="Aiko", attributes={"FUE": 3, "AGI": 4, "DES": 5, "VOL": 2}
    )
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )

    def record(**event):
        services.event_record(campaign=campaign, character=aiko, event=event, actor=dj)

    record(kind="suffer", type="heridas", grade="leve")
    record(kind="suffer", type="shock", grade="grave")
    record(kind="turn_end")  # its save WIL waits
    record(kind="special", name="derribado", on=True)
    return {"dj": dj, "mei": mei, "aiko": aiko, "base": app_url}


def in_english(browser, table, user, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    log_in(context, table["base"], user)
    context.add_cookies([{"name": "django_language", "value": "en", "url": table["base"]}])
    return context.new_page()


def no_spanish_labels(page) -> None:
    text = page.locator("main").inner_text()
    assert SPANISH_LABELS.findall(text) == [], SPANISH_LABELS.findall(text)
    titles = page.locator("main [title]").evaluate_all("els => els.map(e => e.title)")
    assert not [t for t in titles if SPANISH_LABELS.search(t)]


@pytest.mark.parametrize("width", [1280, 360])
def test_the_board_and_the_sheet_in_english_read_english_labels(browser, table, width):
    board = in_english(browser, table, table["dj"], width)
    board.goto(f"{table['base']}/c/kiso/")
    card = board.get_by_role("article", name="Aiko")

    scores = card.locator(".scores")
    expect(scores).to_contain_text("STR 3")
    expect(scores).to_contain_text("DEX 5")
    expect(scores).to_contain_text("WIL 2")
    expect(scores.locator("abbr", has_text="STR")).to_have_attribute("title", "Strength")
    expect(card).to_contain_text("Special states:")
    expect(card).to_contain_text("Save WIL: shake off Serious Shock")
    expect(card).to_contain_text("(WIL 2)")
    expect(card.locator("table.mods")).to_contain_text("DEX")
    no_spanish_labels(board)
    screenshot(board, f"board-english-{width}")

    sheet = in_english(browser, table, table["mei"], width)
    sheet.goto(f"{table['base']}/c/kiso/pj/{table['aiko'].pk}/hoja/")
    expect(sheet.locator(".scores")).to_contain_text("STR 3")
    expect(sheet.locator("main")).to_contain_text("Save WIL: shake off Serious Shock")
    no_spanish_labels(sheet)
    screenshot(sheet, f"sheet-english-{width}")


@pytest.mark.parametrize("width", [1280, 360])
def test_the_cards_to_print_in_english_name_a_special_state(browser, table, width):
    page = in_english(browser, table, table["dj"], width)
    page.goto(f"{table['base']}/c/kiso/pj/{table['aiko'].pk}/cartas/")
    card = page.locator(".paper-card", has_text="Knocked down")
    expect(card.locator(".paper-card-pj")).to_have_text("Aiko · Special state")
    expect(page.locator(".paper-card", has_text="Light Wounds")).to_contain_text("Save STR")
    no_spanish_labels(page)
    screenshot(page, f"cards-english-{width}")
