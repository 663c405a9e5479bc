"""Every control of the board closes and recovers: the second-tap choosers, "Otro tiempo…"
and "Más acciones", with JavaScript and without."""

import re

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import StateEvent
from tests.browser.conftest import heard, log_in, quiet, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory


def kiso_table(app_url, names=("Aiko", "Kenji")):
    """Kiso's DJ and a party of `names`, with the board's address."""
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj, especificos=True)
    party = {
        name: CharacterFactory(
            campaign=campaign, name=name, attributes={"FUE": 3, "AGI": 4, "DES": 3, "VOL": 3}
        )
        for name in names
    }
    return {"dj": dj, "campaign": campaign, "party": party, "url": f"{app_url}/c/kiso/"}


@pytest.fixture
def table(app_url):
    return kiso_table(app_url)


def open_board(browser, app_url, table, *, width=1280, height=900, javascript=True):
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="es-ES", java_script_enabled=javascript
    )
    log_in(context, app_url, table["dj"])
    page = context.new_page()
    page.goto(table["url"])
    if javascript:
        expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


def ask(page, name):
    return card(page, name).locator(".ask-slot")


# -- the second-tap choosers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("box", "title"),
    [
        ("Emoción leve", "Emoción leve: ¿cuál?"),
        ("Emoción grave", "Emoción grave: ¿cuál, y qué la causa?"),
        ("Afección leve", "¿qué enfermedad o veneno?"),
        ("Heridas persistente", "Heridas persistente: ¿qué E.Esp específico?"),
    ],
)
def test_cancel_closes_each_chooser(browser, app_url, table, box, title):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")

    aiko.get_by_role("button", name=box).click()
    expect(ask(page, "Aiko")).to_contain_text(title)
    ask(page, "Aiko").get_by_role("button", name="Cancelar").click()

    expect(ask(page, "Aiko")).to_be_empty()
    # The card is usable again: another chooser opens.
    aiko.get_by_role("button", name="Emoción leve").click()
    expect(ask(page, "Aiko")).to_contain_text("Emoción leve: ¿cuál?")


def test_opening_another_box_replaces_the_open_chooser(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")

    aiko.get_by_role("button", name="Emoción grave").click()
    expect(ask(page, "Aiko")).to_contain_text("Emoción grave")
    aiko.get_by_role("button", name="Heridas persistente").click()
    expect(ask(page, "Aiko")).to_contain_text("Heridas persistente")
    aiko.get_by_role("button", name="Afección leve").click()

    expect(ask(page, "Aiko")).to_contain_text("¿qué enfermedad o veneno?")
    expect(ask(page, "Aiko").locator(".ask")).to_have_count(1)
    screenshot(page, "board-chooser-1280")


def test_a_chooser_open_on_a_card_that_changed_elsewhere_recovers(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    aiko.get_by_role("button", name="Emoción grave").click()
    expect(ask(page, "Aiko")).to_contain_text("Emoción grave")

    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Aiko"],
        event={"kind": "suffer", "type": "fatiga", "grade": "leve"},
    )
    # The page hears of the change (its recent events show it); the chooser stays open.
    expect(page.locator("#recent")).to_contain_text("Fatiga Leve")
    expect(ask(page, "Aiko")).to_contain_text("Emoción grave")
    ask(page, "Aiko").get_by_role("button", name="Cancelar").click()

    expect(ask(page, "Aiko")).to_be_empty()
    expect(card(page, "Aiko").get_by_text("Fatiga Leve")).to_be_visible()
    card(page, "Aiko").get_by_role("button", name="Emoción leve").click()
    expect(ask(page, "Aiko")).to_contain_text("Emoción leve: ¿cuál?")


# -- "Otro tiempo…" -----------------------------------------------------------------------


def test_other_time_closes_after_use_and_on_escape(browser, app_url, table):
    page = open_board(browser, app_url, table)
    menu = page.locator("#clockbar details.menu")

    menu.locator(":scope > summary").click()
    expect(menu).to_have_attribute("open", "")
    menu.get_by_label("Cantidad").fill("15")
    menu.get_by_role("button", name="Dejar pasar el tiempo").click()

    expect(page.locator("#clock")).to_contain_text("00:15")
    expect(page.locator("#clockbar details.menu")).not_to_have_attribute("open", "")
    page.locator("#clockbar details.menu > summary").click()
    expect(page.locator("#clockbar details.menu")).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(page.locator("#clockbar details.menu")).not_to_have_attribute("open", "")


def test_the_board_keeps_updating_while_other_time_is_open(browser, app_url, table):
    page = open_board(browser, app_url, table)
    page.locator("#clockbar details.menu > summary").click()
    page.locator("#clockbar details.menu").get_by_label("Cantidad").fill("25")

    services.event_record(
        campaign=table["campaign"], character=None, event={"kind": "time", "minutes": 10}
    )

    expect(page.locator("#clock")).to_contain_text("00:10")
    expect(card(page, "Aiko").get_by_role("button", name="Heridas leve")).to_be_visible()
    # What the DJ was typing is still there.
    menu = page.locator("#clockbar details.menu")
    expect(menu).to_have_attribute("open", "")
    expect(menu.get_by_label("Cantidad")).to_have_value("25")
    # A tap elsewhere closes it, and the board shows what that tap did.
    page.locator("#clockbar").get_by_role("button", name="+1 min").click()
    expect(page.locator("#clock")).to_contain_text("00:11")
    expect(page.locator("#clockbar details.menu")).not_to_have_attribute("open", "")


# -- "Más acciones" -------------------------------------------------------------------------


def test_more_actions_stays_on_the_board_after_any_action(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")

    aiko.get_by_role("button", name="Heridas leve").click()
    expect(page.locator("#toasts")).to_contain_text("Heridas Leve")
    aiko.locator("details.more summary").click()
    expect(aiko.get_by_role("button", name="Curación")).to_be_visible()
    expect(aiko.get_by_role("link", name="Abrir las acciones")).to_have_count(0)

    aiko.get_by_label("Reposo (en calma), minutos").fill("2")
    aiko.get_by_role("button", name="Reposar").click()
    expect(page.locator("#toasts")).to_contain_text("+2 min (reposo en calma)")
    expect(aiko.get_by_role("button", name="Curación")).to_be_visible()
    aiko.get_by_role("button", name="Curación").click()
    expect(ask(page, "Aiko")).to_contain_text("Curación: ¿quién la aplica?")


def test_once_treated_more_actions_says_so_instead_of_offering_cirugia(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Aiko"],
        event={"kind": "suffer", "type": "heridas", "grade": "persistente", "especifico": "lesion"},
    )
    aiko.get_by_role("button", name="Heridas leve").click()
    aiko.locator("details.more summary").click()
    aiko.get_by_role("button", name="Curación").click()
    ask(page, "Aiko").get_by_role("button", name="Kenji").click()
    expect(page.locator("#toasts")).to_contain_text("Curación")

    expect(aiko.get_by_text("Ya tratado: otra Curación o Cirugía necesita antes")).to_be_visible()
    expect(aiko.get_by_role("button", name="Cirugía")).to_have_count(0)
    screenshot(page, "more-treated-1280")


def test_more_actions_without_javascript(browser, app_url, table):
    page = open_board(browser, app_url, table, javascript=False)
    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Aiko"],
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    page.reload()

    card(page, "Aiko").locator("details.more summary").click()
    card(page, "Aiko").get_by_role("link", name="Abrir las acciones").click()
    page.get_by_role("button", name="Curación").click()
    expect(page.get_by_text("Curación: ¿quién la aplica?")).to_be_visible()
    page.get_by_role("button", name="Kenji").click()

    expect(page).to_have_url(table["url"])
    expect(card(page, "Aiko").get_by_text("Heridas")).to_be_visible()
    expect(page.get_by_text("Curación")).not_to_have_count(0)
    kinds = StateEvent.objects.filter(character=table["party"]["Aiko"]).values_list(
        "event__kind", flat=True
    )
    assert "heal" in list(kinds)


def test_the_more_actions_page_works_with_javascript_too(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = table["party"]["Aiko"]
    services.event_record(
        campaign=table["campaign"],
        character=aiko,
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    page.goto(f"{table['url']}pj/{aiko.pk}/elegir/more/")

    page.get_by_role("button", name="Curación").click()
    expect(page.get_by_text("Curación: ¿quién la aplica?")).to_be_visible()
    page.get_by_role("button", name="Kenji").click()

    expect(page).to_have_url(table["url"])
    expect(card(page, "Aiko").get_by_text("Heridas Leve")).to_be_visible()
    screenshot(page, "board-after-page-heal-1280")


def test_taps_leave_the_address_on_the_board(browser, app_url, table):
    """No tap moves the address bar to an action's URL: a reload shows the board again,
    and Back leaves it."""
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")

    aiko.get_by_role("button", name="Heridas leve").click()
    expect(page.locator("#toasts")).to_contain_text("Heridas Leve")
    aiko.get_by_role("button", name="Emoción leve").click()
    ask(page, "Aiko").get_by_role("button", name="miedo").click()
    expect(aiko.get_by_text("Emoción Leve: miedo")).to_be_visible()
    page.locator("#clockbar").get_by_role("button", name="+1 min").click()
    expect(page.locator("#clock")).to_contain_text("00:01")
    page.locator("#calculator").get_by_label("PJ").select_option(label="Aiko")
    expect(page.locator(".calc-total")).to_be_visible()

    assert page.url == table["url"]
    page.reload()
    expect(card(page, "Aiko").get_by_text("Emoción Leve: miedo")).to_be_visible()


# -- refusals where the DJ is looking; nothing covers a control --------------------------------


def test_a_refused_void_says_why_beside_its_form_in_the_cards_words(browser, app_url, table):
    campaign, aiko = table["campaign"], table["party"]["Aiko"]

    def record(event):
        return services.event_record(campaign=campaign, character=aiko, event=event)

    record({"kind": "suffer", "type": "shock", "grade": "grave"})
    turn = record({"kind": "turn_end"})
    saved = record({"kind": "save", "check": "shock_grave_fin_turno", "success": True})
    page = open_board(browser, app_url, table)

    page.locator("details.void summary").click()
    page.get_by_label("Evento", exact=True).select_option(str(turn.seq))
    page.get_by_label("¿Por qué?").fill("no acabó su turno")
    page.get_by_role("button", name="Anular", exact=True).click()

    error = page.locator("#void-error")
    expect(error).to_have_attribute("role", "alert")
    expect(error).to_contain_text(
        f"No se puede anular el #{turn.seq}: el #{saved.seq} de Aiko "
        "(TS VOL: salir de Shock grave: éxito) dejaría de valer."
    )
    expect(error).to_contain_text("No queda pendiente ninguna «TS VOL: salir de Shock grave»")
    expect(error).to_be_in_viewport()
    for code in ("shock_grave_fin_turno", "save", "evento #"):
        expect(error).not_to_contain_text(code)
    # What was typed stays, to try again.
    expect(page.get_by_label("¿Por qué?")).to_have_value("no acabó su turno")
    screenshot(page, "board-void-refused-1280")


def test_a_refused_other_time_says_why_inside_it(browser, app_url, table):
    page = open_board(browser, app_url, table)
    menu = page.locator("#clockbar details.menu")
    menu.locator(":scope > summary").click()
    menu.get_by_label("Cantidad").fill("mucho")
    menu.get_by_role("button", name="Dejar pasar el tiempo").click()

    expect(page.locator("#other-time-error")).to_be_visible()
    expect(page.locator("#clockbar details.menu")).to_have_attribute("open", "")
    expect(page.locator("#other-time-error")).to_have_attribute("role", "alert")
    expect(page.locator("#clockbar details.menu").get_by_label("Cantidad")).to_have_value("mucho")


COVERED = """() => {
  const toast = document.querySelector('#toasts .toast');
  const bar = document.getElementById('clockbar');
  const t = toast.getBoundingClientRect();
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return [...document.querySelectorAll('button, a, input, select, summary, textarea')]
    .filter((el) => !toast.contains(el) && !bar.contains(el) && el.getClientRects().length)
    .filter((el) => hit(el.getBoundingClientRect(), t))
    .map((el) => el.outerHTML.slice(0, 80));
}"""


@pytest.mark.parametrize("width", [1280, 1024])
def test_toasts_and_the_sticky_bar_cover_no_control(browser, app_url, table, width):
    for name in ("Mei", "Ren", "Taro", "Yuki"):
        CharacterFactory(campaign=table["campaign"], name=name)
    page = open_board(browser, app_url, table, width=width)
    page.set_viewport_size({"width": width, "height": 700})
    last = page.get_by_role("article").last

    last.get_by_role("button", name="Fatiga grave").click()
    expect(page.locator("#toasts .toast")).to_contain_text("Fatiga Grave")
    last.get_by_role("button", name="Fatiga grave").click()
    expect(page.locator("#toasts .toast")).to_contain_text("Marca Fatiga Persistente")
    # The toast is a line of the bar: what it covers is what the bar scrolls over.
    toast, bar = page.locator("#toasts").bounding_box(), page.locator("#clockbar").bounding_box()
    assert bar["y"] <= toast["y"] and toast["y"] + toast["height"] <= bar["y"] + bar["height"]
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(COVERED) == []
    # The void form at the bottom of the side column opens clear of the bar and the toast.
    page.locator("details.void summary").click()
    void = page.get_by_role("button", name="Anular", exact=True)
    void.scroll_into_view_if_needed()
    bar = page.locator("#clockbar").bounding_box()
    assert void.bounding_box()["y"] >= bar["y"] + bar["height"]

    # Scrolled down, the first card chosen from the keyboard stops below the bar.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("body").press("1")
    aiko = card(page, "Aiko")
    expect(aiko).to_be_focused()
    bar = page.locator("#clockbar").bounding_box()
    assert aiko.bounding_box()["y"] >= bar["y"] + bar["height"]
    screenshot(page, f"board-toast-{width}")


def test_ending_the_session_asks_once_and_offers_the_recap(browser, app_url, table):
    services.session_start(campaign=table["campaign"], title="La emboscada")
    phone = open_board(browser, app_url, table, width=360, height=640)
    phone.get_by_text("Terminar sesión…").click()
    expect(phone.get_by_label("Tu nota (opcional)")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(phone, "board-end-session-360")
    page = open_board(browser, app_url, table)

    page.get_by_text("Terminar sesión…").click()
    expect(page.get_by_role("link", name="Sesión 1")).to_be_visible()  # still open
    expect(page.get_by_text("¿Terminar la sesión 1?")).to_be_visible()
    # The recap is the players' to read, and says so; the DJ's own note sits beside it.
    recap = page.get_by_label("Resumen para la mesa (opcional)")
    expect(recap).to_have_accessible_description(
        "Lo leen todos los jugadores, en la página de la sesión y en sus exportaciones."
    )
    recap.fill("Cayeron en la emboscada.")
    note = page.get_by_label("Tu nota (opcional)")
    expect(note).to_have_accessible_description("Solo para ti: ningún jugador la ve nunca.")
    note.fill("El jefe de los bandidos es el hermano de Mei (secreto).")
    screenshot(page, "board-end-session-1280")
    page.get_by_role("button", name="Terminar la sesión 1").click()

    expect(page.get_by_role("heading", name="Hojas de fin de sesión")).to_be_visible()
    table["campaign"].refresh_from_db()
    session = table["campaign"].sessions.get()
    assert session.ended_at is not None and session.recap == "Cayeron en la emboscada."
    assert session.dj_note == "El jefe de los bandidos es el hermano de Mei (secreto)."


def test_without_javascript_no_shortcuts_button_that_would_do_nothing(browser, app_url, table):
    page = open_board(browser, app_url, table, javascript=False)

    expect(page.locator("[data-help]")).to_be_hidden()
    card(page, "Aiko").get_by_role("button", name="Fatiga leve").click()
    expect(page.locator(".messages")).to_contain_text("Aiko: Fatiga Leve")
    expect(page.locator("[data-help]")).to_be_hidden()
    with_js = open_board(browser, app_url, table)
    expect(with_js.locator("[data-help]")).to_be_visible()


# -- found by a playtest (a new DJ with two phones) ----------------------------------------


def test_the_menus_descanso_closes_it_and_keeps_each_watch_box_as_ticked(browser, app_url, table):
    page = open_board(browser, app_url, table)
    menu = page.locator("#clockbar details.menu")
    menu.locator(":scope > summary").click()
    menu.get_by_label("Kenji").check()

    menu.get_by_role("button", name="Descanso del grupo (8 h)").click()

    expect(page.locator("#clock")).to_contain_text("08:00")
    expect(page.locator("#clockbar details.menu")).not_to_have_attribute("open", "")
    page.locator("#clockbar details.menu > summary").click()
    again = page.locator("#clockbar details.menu")
    expect(again.get_by_label("Kenji")).not_to_be_checked()  # a fresh bar: nothing kept
    expect(again.get_by_label("Aiko")).not_to_be_checked()


def test_one_chooser_open_on_the_board_and_always_in_sight(browser, app_url, table):
    page = open_board(browser, app_url, table, width=1280)
    page.set_viewport_size({"width": 1280, "height": 600})
    card(page, "Aiko").get_by_role("button", name="Emoción grave").click()
    expect(ask(page, "Aiko")).to_contain_text("Emoción grave")

    card(page, "Kenji").get_by_role("button", name="Afección leve").click()

    expect(ask(page, "Kenji")).to_contain_text("¿qué enfermedad o veneno?")
    expect(ask(page, "Aiko")).to_be_empty()
    page.keyboard.press("Escape")
    expect(ask(page, "Kenji")).to_be_empty()
    # Curación from "Más acciones", far below the card's top: its chooser comes into view.
    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Aiko"],
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )
    aiko = card(page, "Aiko")
    expect(aiko.get_by_text("Heridas Leve")).to_be_visible()
    aiko.locator("details.more summary").click()
    aiko.get_by_role("button", name="Curación").click()
    expect(ask(page, "Aiko")).to_contain_text("Curación: ¿quién la aplica?")
    expect(ask(page, "Aiko").locator(".ask")).to_be_in_viewport()
    expect(ask(page, "Aiko").locator(".ask-for")).to_have_text("Aiko")  # whose, in sight


def test_next_round_says_the_turn_end_it_recorded(browser, app_url, table):
    services.event_record(
        campaign=table["campaign"],
        character=table["party"]["Kenji"],
        event={"kind": "suffer", "type": "shock", "grade": "grave"},
    )
    page = open_board(browser, app_url, table)

    page.locator("#clockbar").get_by_role("button", name="Siguiente ronda").click()

    toast = page.locator("#toasts .toast-head")
    expect(toast).to_contain_text("Kenji: Fin de turno")
    expect(toast.get_by_text("Kenji: Fin de turno")).to_be_visible()
    expect(toast).to_contain_text("Todos: +1 ronda")


def test_refusals_and_undo_break_no_content_security_rule(browser, app_url, table):
    page = open_board(browser, app_url, table)
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    aiko = card(page, "Aiko")

    aiko.get_by_role("button", name="Heridas leve").click()
    expect(page.locator("#toasts")).to_contain_text("Heridas Leve")
    page.locator("details.menu > summary").click()
    page.locator("#other-time").get_by_label("Cantidad").fill("1e3")
    page.locator("#other-time").get_by_role("button", name="Dejar pasar el tiempo").click()
    expect(page.locator("#other-time-error")).to_contain_text("número")
    page.keyboard.press("Escape")
    page.locator("details.void summary").click()
    page.get_by_label("¿Por qué?").fill("x")
    page.get_by_role("button", name="Anular", exact=True).click()
    expect(page.locator("#toasts")).to_contain_text("Anulado")
    aiko.get_by_role("button", name="Fatiga leve").click()
    expect(page.locator("#toasts")).to_contain_text("Fatiga Leve")
    page.get_by_role("button", name="Deshacer").click()
    expect(page.locator("#toasts")).to_contain_text("Deshecho")
    # Every answer swapped and settled, and the news of the undo heard: whatever they
    # broke has been said on the console by then.
    heard(page, table["campaign"])
    quiet(page)

    assert not [p for p in problems if "Content Security Policy" in p], problems


def test_enter_in_a_choosers_text_field_applies_what_was_typed_or_nothing(browser, app_url, table):
    page = open_board(browser, app_url, table)
    aiko = card(page, "Aiko")
    before = StateEvent.objects.count()
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    aiko.get_by_role("button", name="Emoción grave").click()
    ask(page, "Aiko").get_by_label("Causa (lo que teme o combate; opcional)").fill("el oni")
    page.keyboard.press("Enter")
    expect(ask(page, "Aiko")).to_contain_text("Emoción grave: ¿cuál")

    aiko.get_by_role("button", name="Afección leve").click()
    ask(page, "Aiko").get_by_label("O uno nuevo").fill("veneno de fugu")
    page.keyboard.press("Enter")

    # In the toast, or (Enter before htmx took the new chooser over) in the board's flash.
    expect(page.locator("main")).to_contain_text("Veneno de fugu")
    expect(card(page, "Aiko").locator(".chip-name")).to_contain_text("Veneno de fugu")
    assert StateEvent.objects.order_by("-seq").first().event["source"] == "veneno de fugu"
    # The Afección's is the page's one write: terror or ira is the DJ's to choose, so the
    # first Enter sent nothing (what it sent would have gone out before the second's).
    assert len(posts) == 1, posts
    assert StateEvent.objects.count() == before + 1


def test_a_fresh_board_has_nothing_to_undo(browser, app_url, table):
    page = open_board(browser, app_url, table)  # only the PJ's scores are in the log

    expect(page.get_by_role("button", name="Deshacer")).to_be_disabled()
    card(page, "Aiko").get_by_role("button", name="Heridas leve").click()
    expect(page.get_by_role("button", name="Deshacer")).to_be_enabled()
    expect(page.get_by_role("button", name="Deshacer")).to_have_attribute(
        "title", re.compile(r"Aiko: Heridas Leve")
    )


def test_a_refusal_on_a_card_shows_below_the_clock_bar(browser, app_url, table):
    for type_ in ("heridas", "fatiga", "shock"):  # a tall card, as in play
        services.event_record(
            campaign=table["campaign"],
            character=table["party"]["Aiko"],
            event={"kind": "suffer", "type": type_, "grade": "leve"},
        )
    page = open_board(browser, app_url, table)
    page.set_viewport_size({"width": 1280, "height": 700})
    aiko = card(page, "Aiko")
    # Scrolled so that the card's top sits under the clock bar, its boxes in sight.
    page.evaluate(
        """() => {
          const card = document.querySelector("article.pj-card");
          window.scrollTo(0, card.getBoundingClientRect().top + window.scrollY - 40);
        }"""
    )
    aiko.get_by_role("button", name="Afección leve").click()
    ask(page, "Aiko").get_by_role("button", name="Aplicar", exact=True).last.click()

    error = aiko.locator(".card-error")
    expect(error).to_be_visible()
    expect(error).to_be_in_viewport()
    bar = page.locator("#clockbar").bounding_box()
    assert error.bounding_box()["y"] >= bar["y"] + bar["height"], (error.bounding_box(), bar)
    screenshot(page, "board-refusal-below-bar")


def test_a_clipped_result_line_opens_whole_on_a_tap(browser, app_url, table):
    for name in ("Aiko", "Kenji"):  # a day raises checks for each: a long trail
        services.event_record(
            campaign=table["campaign"],
            character=table["party"][name],
            event={"kind": "suffer", "type": "heridas", "grade": "grave"},
        )
    page = open_board(browser, app_url, table)
    page.get_by_role("button", name="+1 día").click()
    toast = page.locator("#toasts .toast")
    expect(toast).to_contain_text("Kenji")
    lines = toast.locator(".toast-lines")
    assert lines.evaluate("el => el.scrollWidth > el.clientWidth")  # clipped to its line
    # The line stays until the next tap (or ×): no fading animation runs on it.
    assert toast.evaluate("el => getComputedStyle(el).animationName") == "none"
    assert toast.evaluate("el => el.getAnimations().length") == 0
    expect(toast).to_be_visible()
    assert toast.evaluate("el => getComputedStyle(el).opacity") == "1"

    toast.click()

    expect(toast).to_have_class(re.compile(r"\bis-open\b"))
    assert lines.evaluate("el => el.scrollWidth <= el.clientWidth")
    expect(lines).to_contain_text("TS FUE: evitar infección")
    screenshot(page, "board-toast-open-1280")
    toast.click()
    expect(toast).not_to_have_class(re.compile(r"\bis-open\b"))
