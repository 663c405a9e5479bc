"""A player's phone with several tabs of the sheet: what each tab says of its connection.

Found at a table: one tab of a phone said "Sin conexión" for minutes while it showed every
change the DJ made. A tab hears its news through the tab that holds the browser's stream
(static/js/live/tabs.js); what it said of the connection came from two words only: the last
`state` it was told, and the phone's `navigator.onLine`. A tab that held the stream before
may say "reconnecting" late, after the new holder's "open" (BroadcastChannel orders one
sender's messages, not two's): the new holder, whose own "open" came straight from its
transport, took that word and kept it until its transport's next state, minutes away, while
the other tabs were fine. A phone that says it is offline while its connection to the
table's server still carries news (Chromium keeps an open stream when it goes offline) left
the marker up too. Now the holder takes no other tab's word on its stream, and news heard is
the last word for every tab.
"""

import pytest
from playwright.sync_api import expect

from campaign import services
from tests.browser.conftest import heard, log_in, screenshot
from tests.browser.test_sheet import PHONE, make_table


@pytest.fixture
def table(app_url):
    return make_table()


def phone(browser, base, table, count, viewport=PHONE):
    """One phone (one browser context) with `count` tabs of Aiko's sheet, all following."""
    context = browser.new_context(viewport=viewport, locale="es-ES")
    log_in(context, base, table["mei"])
    url = f"{base}/c/kiso/pj/{table['aiko'].pk}/hoja/"
    tabs = []
    for _ in range(count):
        tab = context.new_page()
        tab.goto(url)
        tabs.append(tab)
    for tab in tabs:
        expect(tab.locator("#live")).to_have_attribute("data-state", "open")
        tab.evaluate("window.__noReload = true")  # a reload would lose this
    return context, tabs


def wound(table, type_="heridas"):
    aiko = table["aiko"]
    services.event_record(
        campaign=aiko.campaign,
        character=aiko,
        event={"kind": "suffer", "type": type_, "grade": "leve"},
    )


def says_it_is_connected(tab) -> None:
    expect(tab.locator("#offline")).to_be_hidden()
    expect(tab.locator("#live")).not_to_have_attribute("data-state", "reconnecting")
    assert tab.evaluate("window.__noReload") is True


def test_a_tab_hearing_the_djs_changes_never_says_it_is_offline(browser, app_url, table):
    context, tabs = phone(browser, app_url, table, 3)

    # The phone says it has no network; its stream to the table's server still carries news.
    context.set_offline(True)
    for tab in tabs:
        expect(tab.locator("#offline")).to_be_visible()  # nothing heard since: it may be so
    wound(table)

    for tab in tabs:
        expect(tab.get_by_role("img", name="Heridas leve: marcada")).to_be_visible()
        says_it_is_connected(tab)
    screenshot(tabs[0], "sheet-tabs-news-while-offline-360")
    context.set_offline(False)
    context.close()


def test_a_late_reconnecting_from_a_former_holder_does_not_outlive_the_news(
    browser, app_url, table
):
    context, tabs = phone(browser, app_url, table, 3, viewport={"width": 1280, "height": 900})
    user = table["mei"].pk

    # What a tab that held the stream before says late (its word crossing the new holder's
    # "open"): the tabs that follow the holder hear "reconnecting" while the stream is up.
    tabs[0].evaluate(
        """(user) => new BroadcastChannel(`zodiac-live-${user}`).postMessage(
            {type: "state", state: "reconnecting", offset: null, cursors: null})""",
        user,
    )
    for tab in tabs:
        if tab.locator("#live").get_attribute("data-role") != "leader":
            expect(tab.locator("#offline")).to_be_visible()
    wound(table, "fatiga")

    for tab in tabs:
        expect(tab.get_by_role("img", name="Fatiga leve: marcada")).to_be_visible()
        says_it_is_connected(tab)
    screenshot(tabs[1], "sheet-tabs-news-after-a-late-word-1280")
    context.close()


def test_the_tab_holding_the_stream_never_takes_another_tabs_word_on_its_state(
    browser, app_url, table
):
    context, tabs = phone(browser, app_url, table, 3)
    (holder,) = [t for t in tabs if t.locator("#live").get_attribute("data-role") == "leader"]

    # A former holder's last word, late: the holder's own "open" came first, straight from
    # its transport. The probe hears the word after the page's channel (made before it) has
    # (a channel's messages reach its listeners in the order the channels were made).
    state = holder.evaluate(
        """(user) => new Promise((done) => {
            const name = `zodiac-live-${user}`;
            const probe = new BroadcastChannel(name);
            probe.onmessage = () => {
                probe.close();
                done(document.getElementById("live").dataset.state);
            };
            new BroadcastChannel(name).postMessage(
                {type: "state", state: "reconnecting", offset: null, cursors: null});
        })""",
        table["mei"].pk,
    )

    assert state == "open"
    says_it_is_connected(holder)
    screenshot(holder, "sheet-tabs-holder-360")
    context.close()


def test_the_holder_closed_while_the_phone_is_offline_then_the_network_comes_back(
    browser, app_url, table
):
    context, tabs = phone(browser, app_url, table, 3)
    (holder,) = [t for t in tabs if t.locator("#live").get_attribute("data-role") == "leader"]
    rest = [t for t in tabs if t is not holder]

    context.set_offline(True)
    holder.close()  # the next tab takes the stream, and cannot open it: no network
    for tab in rest:
        expect(tab.locator("#live")).to_have_attribute("data-state", "reconnecting")
        expect(tab.locator("#offline")).to_be_visible()
    context.set_offline(False)
    wound(table, "shock")

    for tab in rest:
        expect(tab.get_by_role("img", name="Shock leve: marcada")).to_be_visible()
        says_it_is_connected(tab)
        heard(tab, table["campaign"])
    context.close()
