"""The DJ's turn reminders in a real browser, at a desk (1280 px) and on a phone (360 px):
"refuerzos" pinned to round 2 and "el veneno actúa" to the end of Kenji's turn; each shows
when its turn or round comes, and is gone once that passed (once, not every time). A
second tab of the DJ hears of a note at once; Aiko's player, on her phone, never does."""

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.turn_order import Slot
from tests.browser.conftest import heard, log_in, screenshot
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def skirmish(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    aiko = CharacterFactory(campaign=campaign, name="Aiko", attributes={"FUE": 3, "VOL": 3})
    kenji = CharacterFactory(campaign=campaign, name="Kenji", attributes={"FUE": 4, "VOL": 3})
    services.invitation_accept(
        invitation=services.invitation_create(character=aiko, by=dj), user=mei
    )
    oni = services.pnj_create(campaign=campaign, name="Oni", attributes={"VOL": 2})[0]
    services.fight_start(
        campaign=campaign,
        order=[Slot(pj=aiko.pk, init=15), Slot(pj=kenji.pk, init=10), Slot(pj=oni.pk, init=8)],
    )
    return {"dj": dj, "mei": mei, "campaign": campaign, "aiko": aiko, "base": app_url}


def open_page(browser, skirmish, user, path, viewport):
    context = browser.new_context(viewport=viewport, locale="es-ES")
    log_in(context, skirmish["base"], user)
    page = context.new_page()
    page.goto(f"{skirmish['base']}{path}")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def pin(page, text, when, *, who="", round_=""):
    pin_panel = page.locator("#reminder-pin")
    if not pin_panel.evaluate("(d) => d.open"):
        pin_panel.locator("summary").click()
    form = pin_panel.locator("form.pin-form")
    form.get_by_label("Nota").fill(text)
    form.get_by_label("Cuándo").select_option(label=when)
    if who:
        form.get_by_label("De quién").select_option(label=who)
    if round_:
        form.get_by_role("spinbutton", name="Ronda").fill(round_)
    form.get_by_role("button", name="Fijar la nota").click()
    expect(page.locator("#toasts")).to_contain_text(f"Nota fijada, {when}")


def pass_turn(page, now):
    page.locator('#fight [data-shortcut="p"]').click()
    expect(page.locator("#fight .fight-now")).to_contain_text(now)


@pytest.mark.parametrize("width", [1280, 360])
def test_notes_show_when_their_turn_or_round_comes_and_go_once_spent(browser, skirmish, width):
    viewport = {"width": width, "height": 900}
    page = open_page(browser, skirmish, skirmish["dj"], "/c/kiso/", viewport)
    other_tab = open_page(browser, skirmish, skirmish["dj"], "/c/kiso/", viewport)
    phone = open_page(
        browser, skirmish, skirmish["mei"], f"/c/kiso/pj/{skirmish['aiko'].pk}/hoja/", PHONE
    )
    now = page.locator("#fight .reminders-now")
    end = page.locator("#fight .reminders-end")

    pin(page, "refuerzos", "en la ronda", round_="2")
    pin(page, "el veneno actúa", "al terminar el turno de", who="Kenji")
    # Neither is due in Aiko's turn of round 1: both wait, under "Recordatorios (2)…".
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios (2)…")
    expect(now).to_have_count(0)
    expect(end).to_have_count(0)
    expect(other_tab.locator("#reminder-pin > summary")).to_have_text("Recordatorios (2)…")
    screenshot(page, f"reminders-pinned-{width}")
    page.locator("#reminder-pin > summary").click()  # folded again

    pass_turn(page, "Turno de Kenji")
    expect(end).to_contain_text("al terminar:")
    expect(end).to_contain_text("el veneno actúa")
    expect(other_tab.locator("#fight .reminders-end")).to_contain_text("el veneno actúa")
    # Found playing it: the count dropped here, before the note was due (at the pass).
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios (2)…")
    screenshot(page, f"reminders-end-of-kenji-{width}")

    pass_turn(page, "Turno de Oni")
    expect(end).to_have_count(0)
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios (1)…")
    pass_turn(page, "ronda 2 · Turno de Aiko")
    expect(now).to_contain_text("en la ronda 2:")
    expect(now).to_contain_text("refuerzos")
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios…")
    screenshot(page, f"reminders-round-2-{width}")

    # Round 2: Kenji's turn comes again, his note was for once.
    pass_turn(page, "Turno de Kenji")
    expect(end).to_have_count(0)
    expect(now).to_contain_text("refuerzos")  # round 2 still
    pass_turn(page, "Turno de Oni")
    pass_turn(page, "ronda 3 · Turno de Aiko")
    expect(now).to_have_count(0)
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios…")

    # Aiko's player heard every change and never read a note.
    heard(phone, skirmish["campaign"])
    html = phone.content()
    assert "refuerzos" not in html and "el veneno actúa" not in html
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_deshacer_of_the_pass_brings_a_note_back_and_a_refusal_says_why(browser, skirmish):
    """And the refusal stays through live news (its line is data-own)."""
    page = open_page(browser, skirmish, skirmish["dj"], "/c/kiso/", {"width": 1280, "height": 900})
    pin(page, "Aiko sangra", "al terminar el turno de", who="Aiko")
    end = page.locator("#fight .reminders-end")
    expect(end).to_contain_text("Aiko sangra")

    pass_turn(page, "Turno de Kenji")
    expect(end).to_have_count(0)
    page.locator("#undo button").click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Aiko")
    expect(end).to_contain_text("Aiko sangra")

    # ✕ removes it for good.
    end.get_by_role("button", name="Quitar la nota: Aiko sangra").click()
    expect(end).to_have_count(0)
    expect(page.locator("#toasts")).to_contain_text("Nota quitada: Aiko sangra")

    # A round with no number: said under the form, which keeps what was typed.
    page.locator("#reminder-pin > summary").click()
    form = page.locator("form.pin-form")
    form.get_by_label("Nota").fill("refuerzos")
    form.get_by_label("Cuándo").select_option(label="en la ronda")
    form.get_by_role("spinbutton", name="Ronda").fill("")
    form.get_by_role("button", name="Fijar la nota").click()
    expect(page.locator("#reminder-error")).to_have_text("Una ronda de 1 a 999.")
    expect(form.get_by_label("Nota")).to_have_value("refuerzos")
    # News from another tab changes the panel, not the words the DJ is reading.
    services.reminder_add(campaign=skirmish["campaign"], text="niebla", when="round", round=4)
    expect(page.locator("#reminder-pin > summary")).to_have_text("Recordatorios (1)…")
    expect(page.locator("#reminder-error")).to_have_text("Una ronda de 1 a 999.")
    expect(form.get_by_label("Nota")).to_have_value("refuerzos")
    screenshot(page, "reminders-refused-1280")


def test_outside_a_fight_a_note_waits_for_the_next_one(browser, skirmish):
    services.fight_end(campaign=skirmish["campaign"])
    page = open_page(browser, skirmish, skirmish["dj"], "/c/kiso/", {"width": 1280, "height": 900})

    pin(page, "emboscada", "en la ronda", round_="1")

    pin_panel = page.locator("#reminder-pin")
    expect(pin_panel.locator("> summary")).to_have_text("Recordatorios (1)…")
    pin_panel.locator("> summary").click()
    expect(pin_panel.locator(".reminders-later")).to_contain_text("en la ronda 1: emboscada")
    box = pin_panel.locator(".pin-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280
    screenshot(page, "reminders-outside-a-fight-1280")
    # It folds like "Otro tiempo…": Esc, or a click elsewhere.
    page.keyboard.press("Escape")
    expect(pin_panel.locator(".pin-panel")).to_be_hidden()
    expect(pin_panel.locator("> summary")).to_be_focused()
    pin_panel.locator("> summary").click()
    expect(pin_panel.locator(".pin-panel")).to_be_visible()
    page.locator(".board-head h1").click()
    expect(pin_panel.locator(".pin-panel")).to_be_hidden()
