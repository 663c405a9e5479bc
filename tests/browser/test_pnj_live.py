"""A tap on a PNJ on the DJ's board reaches the players' phones live, as they may see it
(issue #26): its whole card with the box marked, its state in words, its name only, or
"an enemy" and nothing of its state while it is not revealed. The board and the phone are
separate browser contexts, as at the table."""

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import Character
from campaign.turn_order import Slot
from tests.browser.conftest import heard, log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko", attributes={"FUE": 3, "VOL": 3})
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    bandido = services.pnj_create(campaign=campaign, name="Bandido Zzuno", attributes={"VOL": 2})
    services.fight_start(
        campaign=campaign,
        order=[Slot(pj=aiko.pk, init=15), Slot(pj=bandido[0].pk, init=12)],
    )
    return {
        "dj": dj,
        "mei": mei,
        "campaign": campaign,
        "aiko": aiko,
        "bandido": bandido[0],
        "base": app_url,
    }


def open_pages(browser, table):
    board = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    log_in(board, table["base"], table["dj"])
    page = board.new_page()
    page.goto(f"{table['base']}/c/kiso/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    phone_context = browser.new_context(viewport=PHONE, locale="es-ES")
    log_in(phone_context, table["base"], table["mei"])
    phone = phone_context.new_page()
    phone.goto(f"{table['base']}/c/kiso/pj/{table['aiko'].pk}/hoja/")
    expect(phone.locator("#live")).to_have_attribute("data-state", "open")
    return page, phone


def tap_heridas_then_fatiga(page):
    bandido = page.get_by_role("article", name="Bandido Zzuno")
    bandido.get_by_role("button", name="Heridas leve").click()
    expect(bandido.locator(".box.marked")).to_have_count(1)
    bandido.get_by_role("button", name="Fatiga leve").click()
    expect(bandido.locator(".box.marked")).to_have_count(2)


def test_the_whole_card_on_the_phone_follows_the_boards_taps(browser, table):
    services.pnj_settings_set(
        character=table["bandido"], revealed=True, shows=Character.Shows.FICHA
    )
    page, phone = open_pages(browser, table)
    foes = phone.locator("#foes")
    expect(foes).to_contain_text("Bandido Zzuno")
    expect(foes).to_contain_text("ileso")
    expect(foes.locator(".box.marked")).to_have_count(0)

    tap_heridas_then_fatiga(page)
    expect(foes.locator(".box.marked")).to_have_count(2)
    expect(foes.get_by_role("img", name="Heridas leve: marcada")).to_be_visible()
    expect(foes.get_by_role("img", name="Fatiga leve: marcada")).to_be_visible()
    expect(foes).to_contain_text("herido, cansado")
    expect(foes).not_to_contain_text("ileso")
    screenshot(phone, "pnj-live-whole-card-360")


def test_the_state_in_words_on_the_phone_follows_the_boards_taps(browser, table):
    services.pnj_settings_set(
        character=table["bandido"], revealed=True, shows=Character.Shows.PALABRAS
    )
    page, phone = open_pages(browser, table)
    foes = phone.locator("#foes")
    expect(foes).to_contain_text("ileso")

    tap_heridas_then_fatiga(page)
    expect(foes).to_contain_text("herido, cansado")
    expect(foes).not_to_contain_text("ileso")
    expect(foes.locator(".box")).to_have_count(0)  # words, never the boxes
    screenshot(phone, "pnj-live-words-360")


@pytest.mark.parametrize("revealed", [False, True], ids=["hidden", "name-only"])
def test_a_pnj_players_do_not_read_tells_nothing_of_its_state(browser, table, revealed):
    services.pnj_settings_set(
        character=table["bandido"], revealed=revealed, shows=Character.Shows.NOMBRE
    )
    page, phone = open_pages(browser, table)
    foes = phone.locator("#foes")
    expect(foes).to_contain_text("Bandido Zzuno" if revealed else "un enemigo")
    before = foes.inner_html()
    phone.evaluate(
        """() => { window.__news = [];
        document.addEventListener('zodiac:change', (e) => window.__news.push(e.detail)); }"""
    )

    tap_heridas_then_fatiga(page)
    heard(phone, table["campaign"])
    # The news came to the phone (the foes part, rendered anew) and changed nothing on it.
    phone.wait_for_function("() => window.__news.some((d) => d.foes)")
    news = phone.evaluate("() => JSON.stringify(window.__news)")
    assert foes.inner_html() == before
    for told in ("herido", "cansado", "Heridas", "Fatiga", "marcada"):
        assert told not in news and told not in foes.inner_text()
    if not revealed:
        assert "Zzuno" not in phone.content() and "Zzuno" not in news
    screenshot(phone, f"pnj-live-{'name' if revealed else 'hidden'}-360")
