"""A player's sheet in a real browser, on a phone-sized screen: live, rolling its own
checks, readable offline, and reached from an invitation."""

import re

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import Character, StateEvent
from tests.browser.conftest import (
    log_in,
    screenshot,
    set_real_password,
    start_server,
    stop_server,
    until,
)
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 640}


def make_table():
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(
        campaign=campaign, name="Aiko", attributes={"FUE": 3, "AGI": 4, "DES": 3, "VOL": 4}
    )
    CharacterFactory(campaign=campaign, name="Kenji")
    mei = UserFactory(username="mei")
    invitation = services.invitation_create(character=aiko, by=dj)
    services.invitation_accept(invitation=invitation, user=mei)
    return {"dj": dj, "campaign": campaign, "aiko": Character.objects.get(pk=aiko.pk), "mei": mei}


@pytest.fixture
def table(app_url):
    return make_table()


def record(character, **event):
    return services.event_record(campaign=character.campaign, character=character, event=event)


def a_hard_fight(aiko):
    record(aiko, kind="suffer", type="shock", grade="grave")
    record(aiko, kind="turn_end")  # its TS is now pending
    record(aiko, kind="suffer", type="emocion", grade="grave", variant="terror", cause="el oni")
    record(aiko, kind="suffer", type="heridas", grade="leve")


def open_sheet(browser, base, user, character, viewport=PHONE):
    context = browser.new_context(viewport=viewport, locale="es-ES")
    log_in(context, base, user)
    page = context.new_page()
    page.goto(f"{base}/c/{character.campaign.slug}/pj/{character.pk}/hoja/")
    page.wait_for_selector('#live[data-state="open"]', state="attached")
    page.evaluate("window.__noReload = true")  # a reload would lose this
    return page


def test_the_sheet_fits_a_phone_and_every_button_is_a_comfortable_tap(browser, app_url, table):
    a_hard_fight(table["aiko"])
    page = open_sheet(browser, app_url, table["mei"], table["aiko"])

    sheet = page.get_by_role("article", name="Aiko")
    expect(sheet).to_be_visible()
    expect(sheet.get_by_text("no puede actuar", exact=True)).to_be_visible()
    expect(sheet.get_by_role("button", name=re.compile("^Tirar"))).to_be_visible()
    expect(sheet.get_by_role("table", name="Modificadores")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    heights = page.evaluate(
        """() => [...document.querySelectorAll("button")]
        .filter((b) => b.offsetParent !== null)
        .map((b) => [b.textContent.trim() || b.ariaLabel, b.getBoundingClientRect().height])"""
    )
    assert heights and all(h >= 44 for _name, h in heights), heights
    assert "Kenji" not in page.content()
    screenshot(page, "sheet-360")
    wide = open_sheet(browser, app_url, table["mei"], table["aiko"], {"width": 1280, "height": 900})
    screenshot(wide, "sheet-1280")


def test_a_dj_change_shows_on_the_sheet_within_a_second_without_a_reload(browser, app_url, table):
    sheet = open_sheet(browser, app_url, table["mei"], table["aiko"])
    board = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    log_in(board, app_url, table["dj"])
    dj = board.new_page()
    dj.goto(f"{app_url}/c/kiso/")

    dj.get_by_role("article", name="Aiko").get_by_role("button", name="Fatiga leve").click()

    box = sheet.get_by_role("img", name="Fatiga leve: marcada")
    expect(box).to_be_visible()
    assert sheet.evaluate("window.__noReload") is True


def test_a_check_that_comes_live_is_rolled_in_place(browser, app_url, table):
    """The roll form the live news brings is wired like the page's own: it answers in place."""
    sheet = open_sheet(browser, app_url, table["mei"], table["aiko"])
    record(table["aiko"], kind="suffer", type="shock", grade="grave")
    record(table["aiko"], kind="turn_end")  # its TS is now pending

    sheet.get_by_role("button", name=re.compile("^Tirar")).first.click()

    expect(sheet.locator(".toast")).to_contain_text(re.compile(r"\d"))  # the die is shown
    assert StateEvent.objects.filter(event__kind="save").count() == 1
    assert sheet.evaluate("window.__noReload") is True  # answered in place, not a new page


def test_the_player_rolls_a_check_and_the_dj_card_shows_the_result(browser, app_url, table):
    a_hard_fight(table["aiko"])
    sheet = open_sheet(browser, app_url, table["mei"], table["aiko"])
    board = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    log_in(board, app_url, table["dj"])
    dj = board.new_page()
    dj.goto(f"{app_url}/c/kiso/")
    dj.wait_for_selector('#live[data-state="open"]', state="attached")
    dj_card = dj.get_by_role("article", name="Aiko")
    expect(dj_card.get_by_role("button", name="Tirar")).to_be_visible()

    sheet.get_by_role("button", name=re.compile("^Tirar")).first.click()

    expect(sheet.locator(".toast")).to_contain_text(re.compile(r"\d"))  # the die is shown
    save = StateEvent.objects.filter(event__kind="save").get()
    assert save.actor == table["mei"] and 1 <= save.event["ts_roll"] <= 6
    expect(dj.locator("#recent")).to_contain_text(f"#{save.seq}")
    expect(dj_card.get_by_role("button", name="Tirar")).to_have_count(0)


def test_offline_the_banner_shows_and_the_last_state_stays_readable(browser, transactional_db):
    process, base = start_server()
    port = int(base.rsplit(":", 1)[1])
    try:
        table = make_table()
        aiko = table["aiko"]
        record(aiko, kind="suffer", type="heridas", grade="leve")
        page = open_sheet(browser, base, table["mei"], aiko)
        # The service worker controls the page once installed: load it again under it.
        page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.ready")
        page.reload()
        page.wait_for_function("!!navigator.serviceWorker.controller")
        page.wait_for_selector('#live[data-state="open"]', state="attached")
        banner = page.locator("#offline")
        expect(banner).to_be_hidden()

        page.context.set_offline(True)  # the phone loses its network
        expect(banner).to_be_visible()
        expect(banner).to_have_text(re.compile(r"^Sin conexión · actualizado \d\d:\d\d$"))
        page.context.set_offline(False)
        expect(banner).to_be_hidden()

        process.kill()  # the server goes away altogether
        expect(banner).to_be_visible()
        page.reload()  # served by the service worker from what the page last showed
        expect(page.get_by_role("article", name="Aiko")).to_be_visible()
        expect(page.get_by_role("img", name="Heridas leve: marcada")).to_be_visible()
        expect(banner).to_have_text(re.compile(r"^Sin conexión · actualizado \d\d:\d\d$"))
        screenshot(page, "sheet-offline-360")
        # The worker's scope is the sheet: the other pages never go through it.
        scopes = page.evaluate(
            "navigator.serviceWorker.getRegistrations()"
            ".then(all => all.map(r => new URL(r.scope).pathname))"
        )
        assert scopes == [f"/c/kiso/pj/{aiko.pk}/hoja/"]

        # While it was away the DJ recorded more; back online, the sheet catches up.
        record(aiko, kind="suffer", type="fatiga", grade="leve")
        process, _base = start_server(port=port)
        expect(page.get_by_role("img", name="Fatiga leve: marcada")).to_be_visible()
        expect(banner).to_be_hidden()
    finally:
        stop_server(process)


# The sheet's offline copy (the service worker's cache) holds this text.
KEPT = """(text) => caches.open("zodiac-sheets-v1")
  .then((cache) => cache.match(window.location.pathname))
  .then((kept) => kept ? kept.text() : "")
  .then((html) => html.includes(text))"""


@pytest.mark.parametrize("away", ["after a quiet moment", "at once"])
def test_offline_the_copy_holds_what_the_live_news_showed(browser, transactional_db, away):
    """The copy read offline is the state the player last saw: the live news of a change
    reaches it once the sheet is quiet, or the moment the network goes."""
    process, base = start_server()
    try:
        table = make_table()
        aiko = table["aiko"]
        page = open_sheet(browser, base, table["mei"], aiko)
        page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.ready")
        page.reload()
        page.wait_for_function("!!navigator.serviceWorker.controller")
        page.wait_for_selector('#live[data-state="open"]', state="attached")

        record(aiko, kind="suffer", type="fatiga", grade="leve")  # the DJ's tap
        marked = page.get_by_role("img", name="Fatiga leve: marcada")
        expect(marked).to_be_visible()
        if away == "after a quiet moment":
            page.wait_for_function(KEPT, arg="Fatiga leve: marcada")
        process.kill()  # the network goes
        expect(page.locator("#offline")).to_be_visible()
        page.wait_for_function(KEPT, arg="Fatiga leve: marcada")
        page.reload()  # served by the service worker from its copy
        expect(marked).to_be_visible()
        expect(page.locator("#offline")).to_be_visible()
    finally:
        stop_server(process)


def test_an_invitation_link_leads_a_new_player_to_the_sheet(browser, app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    CharacterFactory(campaign=campaign, name="Aiko")
    board = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    log_in(board, app_url, dj)
    players = board.new_page()
    players.goto(f"{app_url}/c/kiso/jugadores/")
    players.get_by_role("button", name="Invitar a un jugador para Aiko").click()
    link = players.get_by_role("textbox", name="Enlace de invitación para Aiko").input_value()
    code = players.locator(".invitation-code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code)
    expect(players.get_by_role("img", name="Código QR de la invitación para Aiko")).to_be_visible()
    screenshot(players, "players-1280")
    small = board.new_page()
    small.set_viewport_size(PHONE)
    small.goto(f"{app_url}/c/kiso/jugadores/")
    code_box = small.locator(".invitation-code").bounding_box()
    copy_box = small.get_by_role("button", name="Copiar (Código)").bounding_box()
    assert abs(code_box["y"] - copy_box["y"]) < copy_box["height"]  # side by side
    screenshot(small, "players-360")

    phone = browser.new_context(viewport=PHONE, locale="es-ES")
    page = phone.new_page()
    page.goto(link)
    expect(page.get_by_role("heading", name="Jugar a Aiko")).to_be_visible()
    screenshot(page, "join-360")
    page.get_by_label("Nombre de usuario").fill("mei")
    page.get_by_label("Contraseña", exact=True).fill("tres-lunas-9")
    page.get_by_label("Contraseña (confirmación)").fill("tres-lunas-9")
    page.get_by_role("button", name="Registrarme y unirme").click()

    expect(page.get_by_role("article", name="Aiko")).to_be_visible()
    aiko = campaign.characters.get(name="Aiko")
    assert page.url.endswith(f"/c/kiso/pj/{aiko.pk}/hoja/")
    # The welcome says its piece, and goes with the first news of the table.
    welcome = page.get_by_text("¡Te damos la bienvenida a Kiso!")
    expect(welcome).to_be_visible()
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    expect(page.get_by_role("article", name="Aiko").get_by_text("Fatiga Leve")).to_be_visible()
    expect(welcome).to_have_count(0)
    players.reload()
    expect(players.get_by_text("Lo juega mei")).to_be_visible()
    screenshot(players, "players-joined-1280")


def test_a_player_with_an_account_joins_with_the_code(browser, app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    invitation = services.invitation_create(character=aiko, by=dj)
    mei = UserFactory(username="mei")
    set_real_password(mei, "tres-lunas-9")
    phone = browser.new_context(viewport=PHONE, locale="es-ES")
    page = phone.new_page()

    page.goto(f"{app_url}/unirse/")
    screenshot(page, "join-code-360")
    page.get_by_label("Código").fill(invitation.code[:4].lower() + " " + invitation.code[4:])
    page.get_by_role("button", name="Continuar").click()
    page.get_by_role("link", name="Entra para unirte").click()
    page.get_by_label("Nombre de usuario").fill("mei")
    page.get_by_label("Contraseña").fill("tres-lunas-9")
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Unirme como mei").click()

    expect(page.get_by_role("article", name="Aiko")).to_be_visible()
    assert Character.objects.get(pk=aiko.pk).player == mei


def test_a_dj_change_while_a_roll_is_on_its_way_keeps_the_roll_result(browser, app_url, table):
    """The DJ changes Aiko while the player's roll waits for its answer: the sheet does not
    swap the card under the roll, so the answer's toast still finds its place."""
    a_hard_fight(table["aiko"])
    page = open_sheet(browser, app_url, table["mei"], table["aiko"])
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    marked = page.get_by_role("img", name=re.compile(": marcada$"))
    before = marked.count()
    held = []
    page.route("**/hoja/tirar/", lambda route: held.append(route))

    page.get_by_role("button", name=re.compile("^Tirar")).first.click()
    until(page, lambda: held, "the roll never went out")
    record(table["aiko"], kind="suffer", type="heridas", grade="leve")
    campaign = table["aiko"].campaign
    campaign.refresh_from_db()
    # The news reaches the sheet while the roll waits.
    expect(page.locator("#live")).to_have_attribute("data-cursor", str(campaign.change_cursor))
    held[0].continue_()

    expect(page.locator("#toasts")).to_contain_text(re.compile(r"\d"))
    expect(marked).to_have_count(before + 1)  # the DJ's wound, shown with the roll's answer
    assert StateEvent.objects.filter(event__kind="save").count() == 1


def test_a_roll_without_network_says_it_was_not_recorded(browser, app_url, table):
    a_hard_fight(table["aiko"])
    page = open_sheet(browser, app_url, table["mei"], table["aiko"])

    page.context.set_offline(True)
    page.get_by_role("button", name=re.compile("^Tirar")).first.click()

    expect(page.get_by_role("alert")).to_contain_text("la tirada no se ha registrado")
    expect(page.locator("#offline")).to_be_visible()
    assert not StateEvent.objects.filter(event__kind="save").exists()
    page.context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden()  # as the message says: once it goes
    page.get_by_role("button", name=re.compile("^Tirar")).first.click()
    expect(page.locator(".toast").last).to_contain_text(re.compile(r"\d"))
    assert StateEvent.objects.filter(event__kind="save").count() == 1


def test_an_archived_pj_says_so_on_the_phone_and_comes_back_when_restored(browser, app_url, table):
    page = open_sheet(browser, app_url, table["mei"], table["aiko"])
    expect(page.get_by_role("article", name="Aiko")).to_be_visible()

    services.character_archive(character=table["aiko"])

    expect(page.get_by_role("heading", name="Aiko está archivado")).to_be_visible()
    expect(page.get_by_text("la hoja vuelve sola")).to_be_visible()
    page.wait_for_selector('#live[data-state="open"]', state="attached")
    screenshot(page, "sheet-archived-360")

    services.character_restore(character=Character.objects.get(pk=table["aiko"].pk))

    expect(page.get_by_role("article", name="Aiko")).to_be_visible()
    expect(page.get_by_role("heading", name="Aiko está archivado")).to_have_count(0)


def test_three_invitations_fit_their_cards(browser, app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    for name in ("Aiko", "Kenji", "Ren"):
        services.invitation_create(character=CharacterFactory(campaign=campaign, name=name), by=dj)
    for width in (1280, PHONE["width"]):
        context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
        log_in(context, app_url, dj)
        page = context.new_page()
        page.goto(f"{app_url}/c/kiso/jugadores/")
        expect(page.locator(".invitation-code")).to_have_count(3)

        assert page.locator(".player-row").count() == 3
        # Nothing sticks out of its card: every descendant's right edge within the card's.
        sticking = page.evaluate(
            """() => [...document.querySelectorAll('.player-row')]
                .flatMap((card) => {
                  const edge = card.getBoundingClientRect().right;
                  return [...card.querySelectorAll('*')]
                    .filter((el) => el.getBoundingClientRect().right > edge + 0.5)
                    .map((el) => `${el.tagName}.${el.className} ${
                      Math.round(el.getBoundingClientRect().right - edge)}px`);
                })"""
        )
        assert sticking == [], (width, sticking)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"players-three-{width}")
        context.close()
