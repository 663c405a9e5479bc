"""A real table's browsers: a DJ with many tabs, phones, and taps that never land late.

Every tab of one browser shares one stream (static/js/live/tabs.js): one tab holds it, the
others hear through a BroadcastChannel, and another takes over when it closes. A tap the
page cannot get answered is abandoned and said so on the card, and never applied.
"""

import time

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import StateEvent
from tests.browser.conftest import (
    SCREENSHOTS,
    log_in,
    screenshot,
    start_server,
    stop_server,
    until,
)
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

OPEN = "#live[data-state='open']"


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in ("Aiko", "Kenji", "Mei")
    }
    return {"dj": dj, "campaign": campaign, "party": party}


def browser_of(browser, base, user, width=1280):
    """One browser (one cookie jar): every page opened in it is a tab of it."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    log_in(context, base, user)
    return context


def tabs(context, url, count):
    pages = []
    for _ in range(count):
        page = context.new_page()
        page.goto(url)
        pages.append(page)
    for page in pages:
        expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return pages


def card(page, name):
    return page.get_by_role("article", name=name)


def leaders(pages) -> list:
    return [p for p in pages if p.locator("#live").get_attribute("data-role") == "leader"]


def wound(character, grade="leve"):
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": grade},
    )


def test_thirty_tabs_of_one_browser_share_one_stream_and_a_tap_goes_through(
    browser, app_url, table
):
    # How fast is bench/bench_live_browser.py's to measure; here the tap only has to land.
    context = browser_of(browser, app_url, table["dj"])
    streams = []
    context.on("request", lambda r: streams.append(r.url) if "/en-vivo/?" in r.url else None)

    pages = tabs(context, f"{app_url}/c/kiso/", 30)

    assert len(streams) == 1, streams  # one connection held for the whole browser
    assert len(leaders(pages)) == 1
    card(pages[-1], "Aiko").get_by_role("button", name="Fatiga leve").click()
    expect(pages[-1].locator("#toasts")).to_contain_text("Fatiga Leve")
    assert StateEvent.objects.filter(event__kind="suffer").count() == 1
    for page in pages[:-1]:  # every other tab heard of it through the one stream
        expect(card(page, "Aiko").get_by_text("Fatiga Leve")).to_be_visible()
    context.close()


def test_when_the_tab_holding_the_stream_closes_another_takes_over(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    pages = tabs(context, f"{app_url}/c/kiso/", 3)
    wound(table["party"]["Aiko"])
    for page in pages:
        expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()

    (holder,) = leaders(pages)
    holder.close()
    rest = [p for p in pages if p is not holder]
    wound(table["party"]["Kenji"], grade="grave")  # while the next holder takes over

    for page in rest:
        expect(card(page, "Kenji").get_by_text("Heridas Grave")).to_be_visible()
    assert len(leaders(rest)) == 1
    context.close()


# Counts what a tab says on its BroadcastChannel, by the message's type.
SAID = """(() => {
  window.__said = {};
  const post = BroadcastChannel.prototype.postMessage;
  BroadcastChannel.prototype.postMessage = function (data) {
    window.__said[data.type] = (window.__said[data.type] || 0) + 1;
    return post.call(this, data);
  };
})();"""


def test_a_lone_tab_keeps_its_news_to_itself_until_another_opens(browser, app_url, table):
    """A phone with one page open relays its news to nobody; a second tab hears the rest."""
    context = browser_of(browser, app_url, table["dj"])
    context.add_init_script(SAID)
    (alone,) = tabs(context, f"{app_url}/c/kiso/", 1)
    wound(table["party"]["Aiko"])
    expect(card(alone, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    assert alone.evaluate("window.__said.change || 0") == 0

    (second,) = tabs(context, f"{app_url}/c/kiso/", 1)
    expect(card(second, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    wound(table["party"]["Kenji"], grade="grave")
    for page in (alone, second):
        expect(card(page, "Kenji").get_by_text("Heridas Grave")).to_be_visible()
    assert leaders([alone, second]) == [alone]  # the second heard it from the first
    assert alone.evaluate("window.__said.change") >= 1
    context.close()


def test_a_tap_says_when_its_tab_is_the_only_one_of_the_campaign_in_the_browser(
    browser, app_url, table
):
    """A lone tab's tap says so (X-Zodiac-Only-Tab): its answer is all the browser needs,
    and the stream brings it the news without the rendering. With a second tab of the
    campaign open, a tap says nothing, and the second tab shows it from the stream."""
    context = browser_of(browser, app_url, table["dj"])
    said = []
    context.on(
        "request",
        lambda r: (
            said.append(r.headers.get("x-zodiac-only-tab"))
            if r.method == "POST" and "/accion/" in r.url
            else None
        ),
    )
    (first,) = tabs(context, f"{app_url}/c/kiso/", 1)
    aiko, kenji = table["party"]["Aiko"], table["party"]["Kenji"]
    first.locator(f'#pj-{aiko.pk} button[value="heridas:leve"]').click()
    expect(card(first, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    assert said == ["1"]

    # The second tab says hello before its stream is open: the first, which holds the
    # stream, has it in its table once the second shows the stream open.
    (second,) = tabs(context, f"{app_url}/c/kiso/", 1)
    fetched = []
    second.on("request", lambda r: fetched.append(r.url) if "refrescar" in r.url else None)
    first.locator(f'#pj-{kenji.pk} button[value="heridas:leve"]').click()
    expect(card(first, "Kenji").get_by_text("Heridas Leve")).to_be_visible()
    expect(card(second, "Kenji").get_by_text("Heridas Leve")).to_be_visible()
    assert said == ["1", None]
    assert fetched == []  # the second tab had it rendered in the stream
    context.close()


def test_a_djs_board_and_a_players_sheet_in_one_browser_each_hear_what_they_show(
    browser, app_url, table
):
    """The DJ of Kiso plays Mía in another campaign: one browser, one stream, the board of
    one campaign and the sheet of the other, each changed from its own rendering."""
    dj = table["dj"]
    other = CampaignFactory(name="Otra", slug="otra", dj=UserFactory(username="otro-dj"))
    MembershipFactory(user=dj, campaign=other, role="player")
    mia = CharacterFactory(campaign=other, name="Mía", player=dj, attributes={"VOL": 3})
    CharacterFactory(campaign=other, name="Suya")
    context = browser_of(browser, app_url, dj)
    streams = []
    context.on("request", lambda r: streams.append(r.url) if "/en-vivo/?" in r.url else None)
    board = tabs(context, f"{app_url}/c/kiso/", 1)[0]
    sheet = tabs(context, f"{app_url}/c/otra/pj/{mia.pk}/hoja/", 1)[0]
    fetched = []
    context.on("request", lambda r: fetched.append(r.url) if "refrescar" in r.url else None)

    wound(mia)
    wound(table["party"]["Mei"])

    expect(sheet.get_by_role("article", name="Mía").get_by_text("Heridas Leve")).to_be_visible()
    expect(card(board, "Mei").get_by_text("Heridas Leve")).to_be_visible()
    assert card(sheet, "Mei").count() == 0 and board.get_by_text("Mía").count() == 0
    assert fetched == []  # both came rendered in the stream
    assert len(streams) <= 2  # the first tab's, and once more to take the second campaign in
    context.close()


def test_a_tap_the_server_does_not_answer_is_abandoned_and_never_applied(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    held = []
    page.route("**/pj/*/accion/", lambda route: held.append(route))  # the network holds it

    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()

    alert = card(page, "Aiko").get_by_role("alert")
    expect(alert).to_have_text(
        "No se ha registrado: el servidor no respondió a tiempo. Mira la tarjeta y vuelve a tocar."
    )
    screenshot(page, "board-tap-not-recorded-1280")
    assert len(held) == 1
    try:
        held[0].continue_()  # the network lets it go, too late: the page has given up on it
    except Exception:  # Playwright refuses to continue an aborted request
        pass
    page.unroute("**/pj/*/accion/")
    assert not StateEvent.objects.filter(event__kind="suffer").exists()
    # Tapped again, it is recorded once (the first, let go late, never is).
    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()
    expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    assert StateEvent.objects.filter(event__kind="suffer").count() == 1
    context.close()


def test_a_tap_dated_too_long_ago_is_refused_on_its_card(browser, app_url, table):
    """The page dates its taps on the server's clock; a tap that reaches the server past its
    deadline is refused there, and the card says so (here on a phone-sized board)."""
    context = browser_of(browser, app_url, table["dj"], width=360)
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    page.route(
        "**/pj/*/accion/",
        lambda route: route.continue_(
            headers={**route.request.headers, "x-zodiac-sent": str(int(time.time() * 1000) - 60000)}
        ),
    )

    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()

    expect(card(page, "Aiko").get_by_role("alert")).to_contain_text("llegó tarde al servidor")
    card(page, "Aiko").scroll_into_view_if_needed()
    screenshot(page, "board-tap-too-late-360")
    assert not StateEvent.objects.filter(event__kind="suffer").exists()
    context.close()


def busy_answer(monkeypatch) -> dict:
    """What the server's error handler answers a tap on a process whose pool lent no
    connection in time while its database answers (campaign/views/errors.py)."""
    from django.db import OperationalError
    from django.test import RequestFactory
    from django.utils import translation

    from campaign import database
    from campaign.views import errors
    from tests.pool import pool_timeout

    monkeypatch.setattr(database, "answers", lambda: True)
    request = RequestFactory().post("/c/kiso/pj/1/accion/", headers={"HX-Request": "true"})
    with translation.override("es"):
        try:
            raise pool_timeout()
        except OperationalError:
            response = errors.server_error_page(request)
    return {
        "status": response.status_code,
        "headers": dict(response.items()),
        "body": response.content,
    }


def test_a_tap_a_busy_server_refuses_is_said_on_its_card_and_can_be_tapped_again(
    browser, app_url, table, monkeypatch
):
    answer = busy_answer(monkeypatch)
    context = browser_of(browser, app_url, table["dj"], width=360)
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    page.route("**/pj/*/accion/", lambda route: route.fulfill(**answer))

    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()

    expect(card(page, "Aiko").get_by_role("alert")).to_have_text(
        "No se ha registrado: el servidor está muy ocupado. Espera unos segundos y vuelve a tocar."
    )
    card(page, "Aiko").scroll_into_view_if_needed()
    screenshot(page, "board-tap-busy-360")
    page.unroute("**/pj/*/accion/")
    # The server takes it again: tapped again, it is recorded once.
    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()
    expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    expect(card(page, "Aiko").get_by_role("alert")).to_have_count(0)
    assert StateEvent.objects.filter(event__kind="suffer").count() == 1
    context.close()


def test_under_runserver_the_board_polls_and_still_shows_changes(browser, table):
    """`manage.py runserver` (WSGI) cannot hold a stream: the page polls instead."""
    process, base = start_server(runserver=True)
    try:
        context = browser_of(browser, base, table["dj"])
        page = context.new_page()
        page.goto(f"{base}/c/kiso/")
        expect(page.locator("#live")).to_have_attribute("data-state", "polling")
        wound(table["party"]["Aiko"])
        expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
        expect(page.locator("#live-status")).to_be_hidden()
        context.close()
    finally:
        stop_server(process)


def test_without_web_locks_each_tab_holds_its_own_stream_and_still_hears(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    context.add_init_script(
        "Object.defineProperty(Navigator.prototype, 'locks', {get: () => undefined});"
    )
    streams = []
    context.on("request", lambda r: streams.append(r.url) if "/en-vivo/?" in r.url else None)
    pages = tabs(context, f"{app_url}/c/kiso/", 2)

    wound(table["party"]["Mei"])

    for page in pages:
        expect(card(page, "Mei").get_by_text("Heridas Leve")).to_be_visible()
    assert len(streams) == 2 and not leaders(pages)
    context.close()


def test_the_not_recorded_warning_stays_when_news_of_that_card_arrives_meanwhile(
    browser, app_url, table
):
    """Found by hand: another tab changed the same PJ while the tap hung, and the card was
    redrawn without the warning."""
    context = browser_of(browser, app_url, table["dj"])
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    held = []
    page.route("**/pj/*/accion/", lambda route: held.append(route))  # the network holds every tap
    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()
    until(page, lambda: held, "the tap never went out")
    aiko = table["party"]["Aiko"]
    services.event_record(
        campaign=aiko.campaign,
        character=aiko,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )

    alert = card(page, "Aiko").get_by_role("alert")
    expect(alert).to_contain_text("No se ha registrado")
    expect(card(page, "Aiko").get_by_text("Fatiga Leve")).to_be_visible()  # the other change
    wound(aiko)  # and one more, after the warning
    expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    expect(alert).to_contain_text("No se ha registrado")
    assert StateEvent.objects.filter(event__type="heridas").count() == 1  # the test's own
    context.close()


def test_a_phone_follows_the_party_option_as_the_dj_turns_it_on_and_off(browser, app_url, table):
    player = UserFactory(username="jugadora")
    MembershipFactory(user=player, campaign=table["campaign"], role="player")
    aiko = table["party"]["Aiko"]
    services.character_update(character=aiko, player=player)
    context = browser_of(browser, app_url, player, width=360)
    (phone,) = tabs(context, f"{app_url}/c/kiso/pj/{aiko.pk}/hoja/", 1)
    party = phone.get_by_role("heading", name="El grupo")
    expect(party).to_have_count(0)

    services.campaign_update(campaign=table["campaign"], players_see_party=True)
    expect(party).to_be_visible()
    expect(card(phone, "Kenji")).to_be_visible()

    services.campaign_update(campaign=table["campaign"], players_see_party=False)
    expect(party).to_have_count(0)
    expect(card(phone, "Kenji")).to_have_count(0)
    context.close()


def test_a_session_started_in_one_tab_shows_in_the_others(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    first, second = tabs(context, f"{app_url}/c/kiso/", 2)
    expect(second.get_by_text("Sin sesión abierta")).to_be_visible()

    first.get_by_label("Título de la sesión (opcional)").fill("La emboscada")
    first.get_by_role("button", name="Empezar sesión").click()

    expect(second.get_by_role("link", name="Sesión 1")).to_be_visible()
    expect(second.get_by_text("Terminar sesión…")).to_be_visible()
    context.close()


def test_a_tap_whose_request_fails_at_once_says_so_on_the_card(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    page.route("**/pj/*/accion/", lambda route: route.abort("connectionrefused"))

    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()

    expect(card(page, "Aiko").get_by_role("alert")).to_contain_text("No se ha registrado")
    page.unroute("**/pj/*/accion/")
    page.route("**/pj/*/accion/", lambda route: route.fulfill(status=502, body="Bad gateway"))
    card(page, "Kenji").get_by_role("button", name="Heridas leve").click()
    expect(card(page, "Kenji").get_by_role("alert")).to_contain_text("mira la tarjeta")
    assert not StateEvent.objects.filter(event__kind="suffer").exists()
    context.close()


def test_while_a_tap_hangs_news_of_other_cards_still_shows(browser, app_url, table):
    context = browser_of(browser, app_url, table["dj"])
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    held = []
    page.route("**/pj/*/accion/", lambda route: held.append(route))
    card(page, "Mei").get_by_role("button", name="Heridas leve").click()
    until(page, lambda: held, "the tap never went out")

    wound(table["party"]["Kenji"], grade="grave")

    expect(card(page, "Kenji").get_by_text("Heridas Grave")).to_be_visible()
    context.close()


def test_the_djs_look_at_a_sheet_follows_the_party_option(browser, app_url, table):
    player = UserFactory(username="jugadora")
    MembershipFactory(user=player, campaign=table["campaign"], role="player")
    aiko = table["party"]["Aiko"]
    services.character_update(character=aiko, player=player)
    context = browser_of(browser, app_url, table["dj"], width=360)
    (preview,) = tabs(context, f"{app_url}/c/kiso/pj/{aiko.pk}/hoja/", 1)
    party = preview.get_by_role("heading", name="El grupo")

    services.campaign_update(campaign=table["campaign"], players_see_party=True)
    expect(party).to_be_visible()
    services.campaign_update(campaign=table["campaign"], players_see_party=False)
    expect(party).to_have_count(0)
    context.close()


def test_a_refusal_shown_on_a_card_stays_when_news_of_that_card_arrives(browser, app_url, table):
    """Found by hand: a player's roll beat the DJ's "Éxito"; the DJ's card said why it was
    refused for a moment, then a live refresh wiped it."""
    context = browser_of(browser, app_url, table["dj"])
    (page,) = tabs(context, f"{app_url}/c/kiso/", 1)
    aiko = card(page, "Aiko")

    def resolved_elsewhere(route):  # the tap resolves a check that is no longer pending
        body = "action=success&check=shock_grave_fin_turno&key=race"
        route.continue_(post_data=body)

    page.route("**/pj/*/accion/", resolved_elsewhere)
    aiko.get_by_role("button", name="Fin de turno").click()
    alert = aiko.get_by_role("alert")
    expect(alert).to_be_visible()
    page.unroute("**/pj/*/accion/")

    wound(table["party"]["Aiko"])  # news of that card

    expect(aiko.get_by_text("Heridas Leve")).to_be_visible()
    expect(alert).to_be_visible()
    context.close()


def test_reconnecting_shows_wherever_the_dj_has_scrolled(browser, transactional_db):
    process, base = start_server()
    try:
        dj = UserFactory(username="sensei")
        campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
        for name in ("Aiko", "Kenji", "Mei", "Taro", "Haru", "Rin"):
            CharacterFactory(campaign=campaign, name=name)
        context = browser_of(browser, base, dj)
        (page,) = tabs(context, f"{base}/c/kiso/", 1)
        page.mouse.wheel(0, 3000)
        process.kill()
        status = page.locator("#live-status")
        expect(status).to_have_text("Reconectando…")
        expect(status).to_be_in_viewport()
        page.screenshot(path=str(SCREENSHOTS / "board-reconnecting-1280.png"))
        context.close()
    finally:
        stop_server(process)
