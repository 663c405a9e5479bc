"""Session history in a real browser: the trail, an event's before and after, the recap,
the end-of-session sheets in print, and a player's view on a phone."""

import re

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from tests.browser.conftest import log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 640}
WIDE = {"width": 1280, "height": 900}


@pytest.fixture
def table(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko")
    kenji = CharacterFactory(campaign=campaign, name="Kenji")
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    session = services.session_start(campaign=campaign, title="El paso")

    def record(character, **event):
        return services.event_record(campaign=campaign, character=character, event=event, actor=dj)

    record(aiko, kind="suffer", type="shock", grade="leve")
    record(aiko, kind="suffer", type="shock", grade="leve")
    record(kenji, kind="suffer", type="fatiga", grade="grave")
    record(aiko, kind="suffer", type="afeccion", grade="leve", source="ponzoña azul")
    services.character_secrets_set(character=aiko, add=["ponzoña azul"], remove=())
    record(None, kind="time", minutes=10)
    record(kenji, kind="suffer", type="emocion", grade="grave", variant="terror", cause="el oni")
    wrong = record(kenji, kind="suffer", type="heridas", grade="leve")
    services.event_void(event=wrong, actor=dj, reason="era Aiko")
    services.session_end(session=session)
    return {"dj": dj, "mei": mei, "aiko": aiko, "kenji": kenji, "base": app_url}


def page_for(browser, table, user, viewport=WIDE):
    context = browser.new_context(viewport=viewport, locale="es-ES")
    log_in(context, table["base"], user)
    return context.new_page()


def test_the_dj_filters_the_trail_and_opens_an_event(browser, table):
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/historia/")
    expect(page.get_by_role("heading", name="Historia")).to_be_visible()
    expect(page.locator(".timeline-row.is-void")).to_contain_text("era Aiko")
    screenshot(page, "history-1280")

    page.get_by_label("PJ").select_option(label="Kenji")
    page.get_by_role("button", name="Filtrar").click()
    expect(page.locator(".timeline-what", has_text="Aiko:")).to_have_count(0)
    expect(page.locator(".timeline-row", has_text="Fatiga Grave")).to_have_count(1)

    page.locator(".timeline-row", has_text="Fatiga Grave").get_by_role("link").first.click()
    expect(page.get_by_role("heading", name="Justo antes")).to_be_visible()
    expect(page.get_by_text("Fatiga Grave marcada")).to_be_visible()
    screenshot(page, "event-1280")


def test_the_dj_voids_an_old_event_from_its_page(browser, table):
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/historia/")
    page.locator(".timeline-row", has_text="Fatiga Grave").get_by_role("link").first.click()

    page.get_by_text("Anular este evento…").click()
    page.get_by_label("¿Por qué?").fill("era Aiko, no Kenji")
    screenshot(page, "event-void-1280")
    page.get_by_role("button", name="Anular").click()

    expect(page.get_by_text("Anulado: era Aiko, no Kenji")).to_be_visible()
    expect(page.get_by_text("Un evento anulado no cambia nada")).to_be_visible()
    expect(page.get_by_text("Anular este evento…")).to_have_count(0)
    phone = page_for(browser, table, table["dj"], PHONE)
    phone.goto(page.url)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(phone, "event-void-360")


def test_the_dj_writes_a_recap_and_reads_the_session(browser, table):
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/sesion/1/")

    page.get_by_label("Resumen (Markdown)").fill("Llegaron **al paso**; Kenji cayó.")
    page.get_by_role("button", name="Guardar resumen").click()

    expect(page.locator(".recap strong")).to_have_text("al paso")
    screenshot(page, "session-1280")
    phone = page_for(browser, table, table["dj"], PHONE)
    phone.goto(f"{table['base']}/c/kiso/sesion/1/")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(phone, "session-360")


def test_the_djs_note_sits_beside_the_recap_and_no_player_reads_it(browser, table):
    note = "El monje del paso es el oni disfrazado."
    for viewport in (WIDE, PHONE):
        page = page_for(browser, table, table["dj"], viewport)
        page.goto(f"{table['base']}/c/kiso/sesion/1/")
        notes = page.get_by_role("region", name="Tu nota")
        expect(notes).to_contain_text("Solo tú ves esta nota")
        if viewport is WIDE:
            notes.get_by_text("Escribir una nota").click()
            notes.get_by_label("Tu nota (Markdown)").fill(f"{note}\n\n*Que no se sepa.*")
            notes.get_by_role("button", name="Guardar nota").click()
        expect(notes.locator(".prose em")).to_have_text("Que no se sepa.")
        expect(page.get_by_role("region", name="Resumen")).to_contain_text(
            "lo leen todos los jugadores"
        )
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"session-note-{viewport['width']}")

    player = page_for(browser, table, table["mei"], PHONE)
    player.goto(f"{table['base']}/c/kiso/sesion/1/")
    expect(player.get_by_role("heading", name="Resumen")).to_be_visible()
    expect(player.get_by_role("region", name="Tu nota")).to_have_count(0)
    assert "monje" not in player.content()
    screenshot(player, "session-player-360")


def test_the_end_of_session_sheets_print_without_the_app_around_them(browser, table):
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/sesion/1/hojas/")
    expect(page.get_by_role("article", name="Aiko")).to_be_visible()
    expect(page.get_by_role("article", name="Kenji")).to_contain_text("Causa: el oni")
    screenshot(page, "session-sheets-1280")

    page.emulate_media(media="print")

    expect(page.locator(".topbar")).to_be_hidden()
    expect(page.get_by_role("link", name="Imprimir")).to_be_hidden()
    expect(page.get_by_role("article", name="Kenji")).to_be_visible()
    screenshot(page, "session-sheets-print")


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "360"])
def test_the_sheets_end_with_the_pnj_that_took_part_marked_as_pnj(browser, table, viewport):
    campaign = table["aiko"].campaign
    session = services.session_start(campaign=campaign, title="La emboscada")
    oni, _idle = services.pnj_create(campaign=campaign, name="Oni", count=2)
    services.event_record(
        campaign=campaign,
        character=oni,
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    services.session_end(session=session)
    page = page_for(browser, table, table["dj"], viewport)
    page.goto(f"{table['base']}/c/kiso/sesion/2/hojas/")

    sheets = page.get_by_role("article")
    expect(sheets).to_have_count(3)  # the party, then Oni 1 (Oni 2 never took part)
    expect(sheets.nth(0)).to_have_accessible_name("Aiko")
    expect(sheets.nth(2).get_by_role("heading", level=2)).to_have_text("Oni 1 PNJ · enemigo")
    expect(sheets.nth(2)).to_contain_text("☒ Grave")
    screenshot(page, f"session-sheets-pnj-{viewport['width']}")


def test_a_player_reads_their_history_on_a_phone_without_secrets(browser, table):
    page = page_for(browser, table, table["mei"], PHONE)
    page.goto(f"{table['base']}/c/kiso/historia/")

    expect(page.locator(".timeline-row").first).to_be_visible()
    text = page.content()
    assert "Kenji" not in text and "ponzoña" not in text.lower()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "history-player-360")

    page.goto(f"{table['base']}/c/kiso/pj/{table['aiko'].pk}/cartas/")
    expect(page.locator(".paper-card").first).to_be_visible()
    assert "ponzoña" not in page.content().lower()
    screenshot(page, "cards-player-360")


def test_one_long_word_typed_by_the_table_never_widens_a_page(browser, table):
    long_word = "a" * 480
    wound = services.event_record(
        campaign=table["aiko"].campaign,
        character=table["kenji"],
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    services.event_void(event=wound, actor=table["dj"], reason=long_word)
    services.event_record(
        campaign=table["aiko"].campaign,
        character=table["aiko"],
        event={
            "kind": "suffer",
            "type": "emocion",
            "grade": "grave",
            "variant": "ira",
            "cause": "b" * 100,
        },
    )
    for viewport in (PHONE, WIDE):
        page = page_for(browser, table, table["dj"], viewport)
        for path in ("/c/kiso/", "/c/kiso/historia/", f"/c/kiso/evento/{wound.seq}/"):
            page.goto(f"{table['base']}{path}")
            expect(page.get_by_text(long_word[:40], exact=False).first).to_be_attached()
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
                path,
                viewport,
            )
            if path == "/c/kiso/":  # the card with the long cause keeps its boxes in reach
                aiko = page.get_by_role("article", name="Aiko")
                expect(aiko).to_contain_text("b" * 40)
                assert aiko.evaluate("card => card.scrollWidth <= card.clientWidth"), viewport
                aiko.screenshot(path=f"/tmp/zodiac-screenshots/long-cause-{viewport['width']}.png")
    screenshot(page, "event-long-word-1280")


# Spanish groups thousands with a (non-breaking) space, as Django's es locale does.
TOO_LONG = re.compile(r"^El resumen es demasiado largo: 20\s000 caracteres como máximo\.$")


def fill_past_its_limit(page, field, text):
    """What the field's maxlength would stop: a paste into an old browser, a script."""
    field.evaluate("(el, text) => { el.removeAttribute('maxlength'); el.value = text; }", text)


def test_a_recap_too_long_is_kept_with_the_reason_by_its_field(browser, table):
    too_long = "Llegaron al paso. " * 1200  # 21,600 characters: past 20,000
    services.session_start(campaign=table["aiko"].campaign, title="La vuelta")
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/")
    page.get_by_text("Terminar sesión…").click()
    recap = page.get_by_label("Resumen para la mesa (opcional)")
    assert recap.get_attribute("maxlength") == "20000"
    fill_past_its_limit(page, recap, too_long)
    page.get_by_label("Tu nota (opcional)").fill("Nada se pierde.")

    page.get_by_role("button", name="Terminar la sesión 2").click()

    recap = page.get_by_label("Resumen para la mesa (opcional)")
    expect(recap).to_be_visible()  # the question is open again
    assert recap.input_value() == too_long.strip()  # nothing typed is lost
    assert page.get_by_label("Tu nota (opcional)").input_value() == "Nada se pierde."
    error = page.locator("#session-recap-error")
    expect(error).to_have_text(TOO_LONG)
    assert recap.get_attribute("aria-describedby").split()[-1] == "session-recap-error"
    expect(recap).to_have_accessible_description(re.compile(r"Lo leen todos.*20\s000"))
    assert selectors.open_session(campaign=table["aiko"].campaign) is not None
    screenshot(page, "session-end-too-long-1280")

    page.goto(f"{table['base']}/c/kiso/sesion/1/")
    field = page.get_by_label("Resumen (Markdown)")
    fill_past_its_limit(page, field, too_long)
    page.get_by_role("button", name="Guardar resumen").click()
    expect(page.locator("#recap-error")).to_have_text(TOO_LONG)
    assert page.get_by_label("Resumen (Markdown)").input_value() == too_long.strip()


def test_a_refused_voids_address_opened_again_is_the_events_page(browser, table):
    page = page_for(browser, table, table["dj"])
    page.goto(f"{table['base']}/c/kiso/historia/")
    page.locator(".timeline-row", has_text="Fatiga Grave").get_by_role("link").first.click()
    address = page.url
    page.get_by_text("Anular este evento…").click()
    fill_past_its_limit(page, page.get_by_label("¿Por qué?"), "x" * 5000)

    page.get_by_role("button", name="Anular").click()

    expect(page.locator("#void-error")).not_to_be_empty()
    page.goto(page.url)  # the address the refusal left, opened again: the event's page
    expect(page.get_by_role("heading", name="Justo antes")).to_be_visible()
    assert page.url == address


def test_a_refused_void_names_every_event_that_depends_on_it_each_a_link(browser, table):
    campaign = table["aiko"].campaign

    def record(character, **event):
        return services.event_record(campaign=campaign, character=character, event=event)

    sleep = record(None, kind="sleep")
    kenji_wakes = record(table["kenji"], kind="wake")
    aiko_wakes = record(table["aiko"], kind="wake")
    for viewport, width in ((WIDE, 1280), (PHONE, 360)):
        page = page_for(browser, table, table["dj"], viewport)
        page.goto(f"{table['base']}/c/kiso/evento/{sleep.seq}/")
        page.get_by_text("Anular este evento…").click()
        page.get_by_label("¿Por qué?").fill("no durmieron")

        page.get_by_role("button", name="Anular").click()

        error = page.locator("#void-error")
        expect(error).to_contain_text("sin él dejarían de valer 2 eventos posteriores")
        expect(error).to_contain_text(f"el #{kenji_wakes.seq} de Kenji (Despierta)")
        expect(error).to_contain_text(f"el #{aiko_wakes.seq} de Aiko (Despierta)")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"event-void-refused-{width}")
    error.get_by_role("link", name=f"#{aiko_wakes.seq}").click()
    heading = page.get_by_role("heading", name=re.compile(f"#{aiko_wakes.seq} · Aiko"))
    expect(heading).to_be_visible()


def test_the_end_of_session_sheets_show_the_partys_game_time_at_its_end(browser, table):
    campaign = table["aiko"].campaign
    # After the session: the party's clock moves on, its sheets keep the end's time.
    services.event_record(campaign=campaign, event={"kind": "time", "hours": 5})
    services.session_start(campaign=campaign, title="La vuelta")
    services.event_record(campaign=campaign, event={"kind": "time", "minutes": 2})
    for viewport, width in ((WIDE, 1280), (PHONE, 360)):
        page = page_for(browser, table, table["dj"], viewport)
        page.goto(f"{table['base']}/c/kiso/sesion/1/hojas/")

        clock = page.locator("#session-clock")
        expect(clock).to_have_text(
            re.compile(r"Tiempo de juego del grupo al terminar la sesión:\s+Día 1\s+00:10")
        )
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"session-sheets-clock-{width}")

        page.goto(f"{table['base']}/c/kiso/sesion/2/hojas/")
        expect(page.locator("#session-clock")).to_have_text(
            re.compile(r"Tiempo de juego del grupo ahora:\s+Día 1\s+05:12")
        )
    page.emulate_media(media="print")
    expect(page.get_by_role("article", name="Kenji")).to_contain_text(
        "Kiso · Sesión 2 · Día 1 05:12"
    )


def test_the_history_follows_the_table_live_for_the_dj_and_for_a_player(browser, table):
    campaign, aiko, kenji = table["aiko"].campaign, table["aiko"], table["kenji"]
    dj = page_for(browser, table, table["dj"])
    dj.goto(f"{table['base']}/c/kiso/historia/?final=1")
    player = page_for(browser, table, table["mei"], PHONE)
    player.goto(f"{table['base']}/c/kiso/historia/?final=1")
    for page in (dj, player):
        expect(page.locator("#live")).to_have_attribute("data-state", "open")
        page.evaluate("window.__noReload = true")

    services.session_start(campaign=campaign, title="La vuelta")
    services.event_record(
        campaign=campaign,
        character=kenji,
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    services.event_record(
        campaign=campaign,
        character=aiko,
        event={"kind": "suffer", "type": "afeccion", "grade": "grave", "source": "ponzoña azul"},
    )

    expect(dj.locator("#history-sessions")).to_contain_text("Sesión 2: La vuelta")
    expect(dj.locator(".timeline-row").last).to_contain_text("Aiko: Afección Grave")
    expect(dj.locator(".timeline-row", has_text="Kenji: Fatiga Leve")).to_have_count(1)
    screenshot(dj, "history-live-1280")
    # The player's history, as ever: their PJ's events, the secret kept.
    expect(player.locator("#history-sessions")).to_contain_text("Sesión 2: La vuelta")
    expect(player.locator(".timeline-row").last).to_contain_text("Aiko: Afección Grave")
    text = player.content()
    assert "Kenji" not in text and "ponzoña" not in text.lower()
    assert player.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(player, "history-live-player-360")
    assert dj.evaluate("window.__noReload") and player.evaluate("window.__noReload")


def test_a_sessions_page_follows_the_table_live(browser, table):
    campaign = table["aiko"].campaign
    session = services.session_start(campaign=campaign, title="La vuelta")
    for viewport, width in ((WIDE, 1280), (PHONE, 360)):
        page = page_for(browser, table, table["dj"], viewport)
        page.goto(f"{table['base']}/c/kiso/sesion/2/")
        expect(page.locator("#live")).to_have_attribute("data-state", "open")
        page.evaluate("window.__noReload = true")
        page.locator(".timeline-svg").scroll_into_view_if_needed()
        expect(page.locator(".timeline-svg svg")).to_be_visible()  # drawn once in sight
        page.get_by_label("Resumen (Markdown)").fill("A medio escribir")

        wound = services.event_record(
            campaign=campaign,
            character=table["kenji"],
            event={"kind": "suffer", "type": "heridas", "grade": "leve"},
        )

        row = page.locator(f"#e{wound.seq}")
        expect(row).to_contain_text("Kenji: Heridas Leve")
        expect(
            page.locator(f'.timeline-svg g.tl-lane[data-pj="{table["kenji"].pk}"]')
        ).to_be_visible()
        # What the DJ was typing stays.
        expect(page.get_by_label("Resumen (Markdown)")).to_have_value("A medio escribir")
        assert page.evaluate("window.__noReload")
        screenshot(page, f"session-live-{width}")
    services.session_end(session=session)
    expect(page.locator("#session-head")).not_to_contain_text("en curso")
    expect(page.get_by_role("link", name="Hojas de fin de sesión")).to_be_visible()
