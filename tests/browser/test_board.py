"""The DJ's board in a real browser: taps update the card in place, live on other pages."""

import re

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import StateEvent
from tests.browser.conftest import frames, heard, log_in, quiet, screenshot, until
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(
            campaign=campaign, name=name, attributes={"FUE": 3, "AGI": 4, "DES": 3, "VOL": 3}
        )
        for name in ("Aiko", "Kenji", "Mei")
    }
    return {"dj": dj, "campaign": campaign, "party": party, "url": f"{app_url}/c/kiso/"}


def open_board(browser, app_url, table, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    log_in(context, app_url, table["dj"])
    page = context.new_page()
    page.goto(table["url"])
    # Mark the page: a reload would lose this, an in-place swap keeps it.
    page.evaluate("window.__noReload = true")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


def test_a_tap_updates_the_card_in_place_with_the_rule_trail(browser, app_url, table):
    page = open_board(browser, app_url, table)

    aiko = card(page, "Aiko")
    toast = page.locator("#toasts")
    aiko.get_by_role("button", name="Fatiga grave").click()
    expect(toast).to_contain_text("Marca Fatiga Grave")
    aiko.get_by_role("button", name="Fatiga grave").click()
    expect(toast).to_contain_text("Marca Fatiga Persistente")
    aiko.get_by_role("button", name="Fatiga grave").click()

    expect(toast).to_contain_text("R8")
    expect(card(page, "Aiko").get_by_text("no puede actuar")).to_be_visible()
    assert page.evaluate("window.__noReload") is True
    screenshot(page, "board-1280")


def test_emocion_takes_two_taps(browser, app_url, table):
    page = open_board(browser, app_url, table)
    mei = card(page, "Mei")

    mei.get_by_role("button", name="Emoción leve").click()
    mei.get_by_role("button", name="miedo").click()

    expect(card(page, "Mei").get_by_text("Emoción Leve: miedo")).to_be_visible()
    assert page.evaluate("window.__noReload") is True


def test_a_second_page_sees_the_change_live_in_place(browser, app_url, table):
    # How fast is bench/bench_live_browser.py's to say: a test waits on the change, and the
    # machine's load never fails it.
    first = open_board(browser, app_url, table)
    second = open_board(browser, app_url, table)
    expect(second.locator("#live-status")).to_be_hidden()
    expect(second.locator("#live")).to_have_attribute("data-state", "open")

    # The DJ on the second page has a finger on Kenji's card.
    card(second, "Kenji").get_by_role("button", name="Shock leve").focus()
    second.evaluate("window.__kenji = document.activeElement.closest('article')")

    card(first, "Kenji").get_by_role("button", name="Heridas grave").click()
    expect(card(second, "Kenji").get_by_text("Heridas Grave")).to_be_visible()
    assert second.evaluate("window.__noReload") is True
    # Changed in place: the same card, and the focus where it was.
    assert second.evaluate(
        "document.activeElement.closest('article') === window.__kenji"
        " && window.__kenji.isConnected && document.activeElement.matches('button')"
    )

    # The refreshed card is the common rendering (no CSRF field, no key of its own): its
    # forms still post through htmx, with the CSRF header and a key from board.js.
    before = StateEvent.objects.count()
    card(second, "Kenji").get_by_role("button", name="Fatiga leve").click()
    expect(card(second, "Kenji").get_by_text("Fatiga Leve")).to_be_visible()
    expect(card(first, "Kenji").get_by_text("Fatiga Leve")).to_be_visible()
    assert StateEvent.objects.count() == before + 1
    assert second.evaluate("window.__noReload") is True


def held_posts(page, pattern):
    """Hold the page's POSTs to `pattern` until the test lets each go (`.continue_()`)."""
    held = []
    page.route(pattern, lambda route: held.append(route))
    return held


def test_news_of_another_card_during_a_tap_is_not_lost(browser, app_url, table):
    """Another page changes Kenji while this page's tap on Aiko is on its way: the answer to
    the tap is newer than that news, yet it only holds Aiko's card, so Kenji's still
    catches up."""
    page = open_board(browser, app_url, table)
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    held = held_posts(page, "**/pj/*/accion/")

    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()
    until(page, lambda: held, "the tap never went out")
    kenji = table["party"]["Kenji"]
    services.event_record(
        campaign=kenji.campaign,
        character=kenji,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    kenji.campaign.refresh_from_db()
    # The news of Kenji reaches the page while the tap waits.
    expect(page.locator("#live")).to_have_attribute(
        "data-cursor", str(kenji.campaign.change_cursor)
    )
    held[0].continue_()

    expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    expect(card(page, "Kenji").get_by_text("Fatiga Leve")).to_be_visible()
    assert page.evaluate("window.__noReload") is True


def test_an_event_chosen_to_void_stays_chosen_when_news_arrives(browser, app_url, table):
    """The recent events change in place, each kept by its number: a new event on another
    page does not shift the DJ's choice in "Anular un evento…" to another event."""
    aiko, kenji = table["party"]["Aiko"], table["party"]["Kenji"]
    for pj in (aiko, kenji):
        services.event_record(
            campaign=pj.campaign,
            character=pj,
            event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
        )
    page = open_board(browser, app_url, table)
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    page.get_by_text("Anular un evento…").click()
    choice = page.get_by_label("Evento", exact=True)
    chosen = choice.locator("option").nth(1).get_attribute("value")
    choice.select_option(chosen)

    services.event_record(
        campaign=aiko.campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "leve"},
    )

    expect(page.locator("#recent li").first).to_contain_text("Shock")  # the news arrived
    expect(choice).to_have_value(chosen)
    expect(choice).to_be_visible()


def test_undo_voids_the_latest_event(browser, app_url, table):
    page = open_board(browser, app_url, table)
    card(page, "Aiko").get_by_role("button", name="Shock leve").click()
    expect(card(page, "Aiko").get_by_text("no puede actuar")).to_be_visible()

    page.get_by_role("button", name="Deshacer").click()

    expect(card(page, "Aiko").get_by_text("no puede actuar")).to_have_count(0)
    expect(page.locator("#toasts")).to_contain_text("Deshecho")
    # Only Aiko's card was answered, in its place: the others stay.
    expect(page.locator("article.pj-card")).to_have_count(3)
    assert StateEvent.objects.filter(campaign=table["campaign"], void_at__isnull=False).count() == 1


def test_a_ts_roll_shows_the_die_and_applies_the_result(browser, app_url, table):
    campaign, aiko = table["campaign"], table["party"]["Aiko"]
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
    )
    services.event_record(campaign=campaign, character=aiko, event={"kind": "turn_end"})
    page = open_board(browser, app_url, table)
    aiko_card = card(page, "Aiko")
    expect(aiko_card.get_by_text("TS VOL: salir de Shock grave")).to_be_visible()

    aiko_card.get_by_role("button", name="Tirar").click()

    expect(page.locator("#toasts")).to_contain_text(re.compile(r"1d6 = [1-6] contra 3"))
    saved = StateEvent.objects.filter(campaign=campaign).order_by("-seq").first().event
    assert saved["kind"] == "save" and 1 <= saved["ts_roll"] <= 6
    expected = "Shock Leve" if saved["success"] else "Shock Grave"
    expect(card(page, "Aiko").get_by_text(expected)).to_be_visible()


def gravely_wounded(table, name):
    """`name` with Heridas grave, so Más acciones offers a Curación."""
    pj = table["party"][name]
    services.event_record(
        campaign=table["campaign"],
        character=pj,
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    return pj


def test_a_rule_error_is_shown_on_the_card_and_nothing_is_recorded(browser, app_url, table):
    aiko_pj = gravely_wounded(table, "Aiko")
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    aiko.get_by_text("Más acciones").click()
    aiko.get_by_role("button", name="Curación").click()
    expect(aiko.get_by_role("button", name="Kenji")).to_be_visible()
    # Meanwhile another tab treats her: one Curación until the next Descanso (R25).
    services.event_record(
        campaign=table["campaign"], character=aiko_pj, event={"kind": "heal", "healer": "Kenji"}
    )
    before = StateEvent.objects.count()
    aiko.get_by_role("button", name="Kenji").click()  # before or after its news: either way

    expect(card(page, "Aiko").get_by_role("alert")).to_contain_text("Este PJ ya fue tratado")
    heard(page, table["campaign"])  # the news of that treatment does not wipe the refusal
    expect(card(page, "Aiko").get_by_role("alert")).to_contain_text("Este PJ ya fue tratado")
    assert StateEvent.objects.count() == before


def test_the_calculator(browser, app_url, table):
    campaign, mei = table["campaign"], table["party"]["Mei"]
    services.event_record(
        campaign=campaign,
        character=mei,
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    page = open_board(browser, app_url, table)
    calc = page.locator("#calculator")

    calc.get_by_label("PJ").select_option(label="Mei")
    expect(page.locator(".calc-total")).to_have_text("−3")
    page.locator("#calculator").get_by_label("Atributo").select_option("VOL")

    expect(page.locator(".calc-total")).to_have_text("0")


def test_keyboard_shortcuts_apply_to_the_chosen_card(browser, app_url, table):
    page = open_board(browser, app_url, table)

    page.keyboard.press("2")  # Kenji, the second card by name
    page.keyboard.press("s")
    page.keyboard.press("1")

    expect(card(page, "Kenji").get_by_text("Shock Leve")).to_be_visible()
    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name="Atajos de teclado")).to_be_visible()


def test_the_board_fits_a_phone(browser, app_url, table):
    page = open_board(browser, app_url, table, width=360)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "board-360")


def test_without_javascript_the_board_still_works_as_plain_forms(browser, app_url, table):
    context = browser.new_context(java_script_enabled=False, locale="es-ES")
    log_in(context, app_url, table["dj"])
    page = context.new_page()
    page.goto(table["url"])

    card(page, "Mei").get_by_role("button", name="Emoción leve").click()
    expect(page.get_by_role("link", name="← Volver a la mesa")).to_be_visible()
    page.set_viewport_size({"width": 360, "height": 740})
    screenshot(page, "board-ask-nojs-360")
    assert page.get_by_role("link", name="Cancelar").get_attribute("href") == "/c/kiso/"
    page.get_by_role("button", name="miedo").click()

    expect(page).to_have_url(table["url"])
    expect(card(page, "Mei").get_by_text("Emoción Leve: miedo")).to_be_visible()
    expect(page.get_by_text("Mei: Emoción Leve: miedo")).to_be_visible()
    card(page, "Mei").get_by_role("button", name="Shock leve").click()
    expect(card(page, "Mei").get_by_text("no puede actuar")).to_be_visible()


def test_no_service_worker_stands_between_the_board_and_the_server(browser, app_url, table):
    """The worker is for players' sheets: one left for the whole site by an earlier version
    is removed, so the board's refreshes go straight to the network."""
    page = open_board(browser, app_url, table)
    count = "navigator.serviceWorker.getRegistrations().then(all => all.length)"
    page.evaluate("navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => true)")
    assert page.evaluate(count) == 1

    page.reload()

    page.wait_for_function(f"() => {count}.then((n) => n === 0)")


@pytest.mark.parametrize("width", [1280, 360])
def test_a_pile_of_checks_is_rolled_in_one_tap(browser, app_url, table, width):
    kenji = table["party"]["Kenji"]
    for event in [{"kind": "suffer", "type": "shock", "grade": "grave"}] + [
        {"kind": "turn_end"}
    ] * 5:
        services.event_record(campaign=table["campaign"], character=kenji, event=event)
    page = open_board(browser, app_url, table, width=width)
    kenji_card = card(page, "Kenji")
    expect(kenji_card.get_by_text("×5")).to_be_visible()
    screenshot(page, f"board-pile-{width}")

    kenji_card.get_by_role("button", name="Tirar todas (5)").click()

    toast = page.locator("#toasts")
    expect(toast).to_contain_text("1d6 =")
    # VOL 3: failures (4-6) roll on; a success ends the Shock grave and the pile with it.
    # Either way none is left, and the card drops the button.
    saves = StateEvent.objects.filter(character=kenji, event__kind="save").order_by("seq")
    assert 1 <= saves.count() <= 5
    assert [e.event["success"] for e in saves][:-1] == [False] * (saves.count() - 1)
    expect(card(page, "Kenji").get_by_role("button", name=re.compile("Tirar todas"))).to_have_count(
        0
    )
    assert page.evaluate("window.__noReload") is True
    screenshot(page, f"board-pile-rolled-{width}")


def test_a_tap_at_phone_width_keeps_the_tapped_card_where_it_was(browser, app_url, table):
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="es-ES", has_touch=True, is_mobile=True
    )
    log_in(context, app_url, table["dj"])
    page = context.new_page()
    page.goto(table["url"])
    mei = card(page, "Mei")
    button = mei.get_by_role("button", name="Fin de turno")
    button.scroll_into_view_if_needed()
    before = mei.bounding_box()["y"]

    mei.get_by_role("button", name="Heridas leve").tap()
    expect(page.locator("#toasts")).to_contain_text("Heridas Leve")
    # The answer swapped and settled (each holds the place), the news of the tap heard,
    # and a scroll begun by any of them shown.
    heard(page, table["campaign"])
    quiet(page)
    frames(page)

    after = card(page, "Mei").bounding_box()["y"]
    screenshot(page, "board-tap-kept-360")
    assert abs(after - before) < 40, (before, after)


def space_opens_without_scrolling(page, control, slot):
    """Space on `control` (focused, in sight, the page able to scroll) asks for its chooser
    and leaves the page where it was (on a link it scrolled the page instead); the chooser
    then opens in `slot`. The page is measured while the chooser is held back: once it
    comes, the board brings it into sight (a scroll of its own)."""
    control.focus()
    control.scroll_into_view_if_needed()
    assert control.evaluate("el => el.tagName") == "BUTTON"
    assert page.evaluate("document.documentElement.scrollHeight > innerHeight")
    held = []  # the chooser's request, held back until the test lets it go
    page.route("**/elegir/**", lambda route: held.append(route))
    before = page.evaluate("scrollY")

    page.keyboard.press("Space")

    until(page, lambda: held, "Space never asked for the chooser")
    frames(page)  # a scroll the key began would have moved the page by then
    assert page.evaluate("scrollY") == before
    held[0].continue_()
    expect(slot).not_to_be_empty()


def test_space_on_a_two_tap_box_opens_its_chooser_like_enter(browser, app_url, table):
    page = open_board(browser, app_url, table)
    page.set_viewport_size({"width": 1280, "height": 700})
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    aiko = card(page, "Aiko")

    space_opens_without_scrolling(
        page, aiko.get_by_role("button", name="Emoción leve"), aiko.locator(".ask-slot")
    )
    expect(aiko.locator(".ask-slot")).to_contain_text("Emoción leve: ¿cuál?")
    screenshot(page, "board-space-chooser-1280")


def test_space_on_curacion_in_more_actions_opens_its_chooser(browser, app_url, table):
    gravely_wounded(table, "Aiko")
    page = open_board(browser, app_url, table)
    page.set_viewport_size({"width": 1280, "height": 700})
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    aiko = card(page, "Aiko")
    aiko.get_by_text("Más acciones").click()
    curacion = aiko.get_by_role("button", name="Curación")
    expect(curacion).to_be_visible()
    aiko.locator(".ask-slot").scroll_into_view_if_needed()

    screenshot(page, "board-more-actions-1280")

    space_opens_without_scrolling(page, curacion, aiko.locator(".ask-slot"))
    expect(aiko.get_by_role("button", name="Kenji")).to_be_visible()


def test_a_double_tap_on_a_box_records_one_blow(browser, app_url, table):
    """A finger's double tap (the browser counts it: the second click's detail is 2) is one
    tap, even when the first is answered, with a fresh key, before the second lands."""
    page = open_board(browser, app_url, table)
    aiko, kenji = table["party"]["Aiko"], table["party"]["Kenji"]

    def blows(character):
        return StateEvent.objects.filter(character=character, event__kind="suffer")

    box = card(page, "Aiko").get_by_role("button", name="Heridas leve").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    until(page, lambda: blows(aiko).exists(), "Aiko's blow")
    expect(page.locator("#toasts")).to_contain_text("Aiko")  # answered, its card anew
    page.mouse.down(click_count=2)  # the same finger's second tap
    page.mouse.up(click_count=2)
    # A tap on another card, answered: a second blow on Aiko's would have come before it.
    card(page, "Kenji").get_by_role("button", name="Fatiga leve").click()
    until(page, lambda: blows(kenji).exists(), "Kenji's blow")
    expect(page.locator("#toasts")).to_contain_text("Kenji")

    assert blows(aiko).count() == 1
