"""PNJ on the board in a real browser: the ambush of the issue. Four PJ, three Bandidos from
a Plantilla as one group and a Jefe; the Jefe's wounds and Shock on his card, his lost turn
shown and passed in one tap, an area blow on the Bandidos, Fuera de combate, and the
players' phones (their own contexts, 360 px) seeing "un enemigo" until the DJ reveals one,
never a hidden state."""

import pytest
from playwright.sync_api import expect

from campaign import selectors, services
from campaign.turn_order import Slot
from tests.browser.conftest import heard, log_in, screenshot
from tests.browser.test_accessibility import axe, describe
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def ambush(app_url):
    dj = UserFactory(username="sensei")
    mei = UserFactory(username="mei")
    campaign = CampaignFactory(name="Kiso", slug="kiso", dj=dj)
    party = {
        name: CharacterFactory(campaign=campaign, name=name, attributes={"FUE": 3, "VOL": 3})
        for name in ("Aiko", "Kenji", "Ren", "Sora")
    }
    services.invitation_accept(
        invitation=services.invitation_create(character=party["Aiko"], by=dj), user=mei
    )
    template = services.template_save(campaign=campaign, name="Bandido", attributes={"VOL": 2})
    bandidos = services.pnj_create(campaign=campaign, template=template, count=3)
    jefe = services.pnj_create(campaign=campaign, name="Jefe Zzsecreto", attributes={"VOL": 3})[0]
    services.fight_start(
        campaign=campaign,
        order=[
            Slot(pj=party["Aiko"].pk, init=15),
            Slot(pj=bandidos[0].pk, also=(bandidos[1].pk, bandidos[2].pk), init=12),
            Slot(pj=party["Kenji"].pk, init=10),
            Slot(pj=jefe.pk, init=8),
            Slot(pj=party["Ren"].pk, init=5),
            Slot(pj=party["Sora"].pk, init=3),
        ],
    )
    return {
        "dj": dj,
        "mei": mei,
        "campaign": campaign,
        "party": party,
        "bandidos": bandidos,
        "jefe": jefe,
        "base": app_url,
    }


def board(browser, ambush, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    log_in(context, ambush["base"], ambush["dj"])
    page = context.new_page()
    page.goto(f"{ambush['base']}/c/kiso/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def sheet(browser, ambush):
    phone = browser.new_context(viewport=PHONE, locale="es-ES")
    log_in(phone, ambush["base"], ambush["mei"])
    page = phone.new_page()
    page.goto(f"{ambush['base']}/c/kiso/pj/{ambush['party']['Aiko'].pk}/hoja/")
    expect(page.locator("#live")).to_have_attribute("data-state", "open")
    return page


def card(page, name):
    return page.get_by_role("article", name=name)


def test_the_ambush_from_the_board(browser, ambush):
    page = board(browser, ambush)
    phone = sheet(browser, ambush)
    jefe = card(page, "Jefe Zzsecreto")
    expect(page.locator(".pnj-group > summary")).to_contain_text("Bandido")
    group = page.locator(".fight-slot").nth(1)
    expect(group).to_contain_text("Bandido 1–3")  # each copy by name in its title
    expect(group).to_have_attribute("title", "Bandido 1, Bandido 2, Bandido 3")
    # The Jefe takes Heridas grave and Shock leve: on his card, and his turn is lost.
    jefe.get_by_role("button", name="Heridas grave").click()
    expect(jefe.locator(".box.marked")).to_have_count(1)
    jefe.get_by_role("button", name="Shock leve").click()
    expect(jefe.locator(".badge-danger")).to_contain_text("no puede actuar")
    screenshot(page, "pnj-board-1280")
    # The phone: "un enemigo", never his name or his state.
    expect(phone.locator("#foes")).to_contain_text("un enemigo")
    heard(phone, ambush["campaign"])
    assert "Zzsecreto" not in phone.content()
    screenshot(phone, "pnj-sheet-360")

    # An area blow: Fatiga leve on the three Bandidos, one tap.
    for b in ambush["bandidos"]:
        card(page, b.name).get_by_role("checkbox").check()
    page.locator("#area-form select").select_option("fatiga")
    page.locator("#area-form").get_by_role("button", name="Leve").click()
    for b in ambush["bandidos"]:
        expect(card(page, b.name).locator(".box.marked")).to_have_count(1)

    # Aiko, the Bandidos, Kenji: then the Jefe loses his turn, one tap.
    for now in ("Turno de Bandido 1", "Turno de Kenji", "Jefe Zzsecreto no puede actuar"):
        page.locator('[data-shortcut="p"]').click()
        expect(page.locator("#fight .fight-now")).to_contain_text(now)
    expect(page.locator("#fight .fight-now")).to_contain_text("Jefe Zzsecreto no puede actuar")
    expect(jefe.locator(".turn-badge")).to_contain_text("pierde el turno")
    page.locator('[data-shortcut="p"]').click()
    expect(page.locator("#fight .fight-now")).to_contain_text("Turno de Ren")
    state = selectors.character_state(character=ambush["jefe"])
    assert "leve" not in state["marks"]["shock"]

    # Fuera de combate: Bandido 2 flees.
    b2 = card(page, "Bandido 2")
    b2.locator("summary", has_text="Tarjeta entera").click()
    b2.get_by_role("button", name="huye").click()
    expect(page.locator(".fight-out")).to_contain_text("Bandido 2 (huye)")
    expect(b2.locator(".badge-danger")).to_contain_text("fuera de combate")

    # Revealed from his card: the phone shows his name and his state in words.
    jefe.locator("summary", has_text="Tarjeta entera").click()
    jefe.get_by_role("button", name="Revelar a los jugadores").click()
    expect(phone.locator("#foes")).to_contain_text("Jefe Zzsecreto")
    expect(phone.locator("#foes")).to_contain_text("malherido")
    screenshot(phone, "pnj-sheet-revealed-360")

    # Five rounds, one tap a turn. In round 2 a Shock leve given to Bandido 3 during
    # Aiko's turn ends with the group's own turn end.
    def pass_to(round_, name):
        page.locator('[data-shortcut="p"]').click()
        expect(page.locator("#fight .fight-now")).to_contain_text(
            f"ronda {round_} · Turno de {name}"
        )

    pass_to(1, "Sora")
    pass_to(2, "Aiko")
    b3 = card(page, "Bandido 3")
    b3.get_by_role("button", name="Shock leve").click()
    expect(b3.locator(".badge-danger")).to_contain_text("no puede actuar")
    pass_to(2, "Bandido 1, 3")
    pass_to(2, "Kenji")
    expect(b3.locator(".badge-danger")).to_have_count(0)
    assert selectors.character_state(character=ambush["bandidos"][2])["marks"]["shock"] == []
    order = ["Aiko", "Bandido 1, 3", "Kenji", "Jefe Zzsecreto", "Ren", "Sora"]
    for round_ in range(2, 7):
        for name in order[3 if round_ == 2 else 0 :]:
            if (round_, name) == (6, "Bandido 1, 3"):
                break
            pass_to(round_, name)
    expect(page.locator("#fight .fight-now")).to_contain_text("ronda 6 · Turno de Aiko")

    # The end archives the enemies; Deshacer brings them back.
    page.locator(".fight-end summary").click()
    expect(
        page.get_by_label("archivarlos (fuera del tablero, quedan en el historial)")
    ).to_be_checked()
    page.locator(".fight-end").get_by_role("button", name="Terminar combate").click()
    expect(page.locator(".pnj-card")).to_have_count(0)
    expect(page.locator(".pj-card")).to_have_count(4)
    page.get_by_role("button", name="Deshacer").click()
    expect(page.locator(".pnj-card")).to_have_count(4)
    expect(page.locator("#fight .fight-now")).to_contain_text("ronda 6")


def test_the_pnj_section_at_phone_width(browser, ambush):
    page = board(browser, ambush, width=360)
    expect(card(page, "Bandido 1")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    screenshot(page, "pnj-board-360")


def test_pnj_are_added_from_the_board_into_the_fight(browser, ambush):
    page = board(browser, ambush)
    form = page.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Bandido")
    form.locator('input[name="count"]').fill("2")
    form.get_by_label("Iniciativa").fill("9")
    form.get_by_label("un turno para todos").check()
    form.get_by_role("button", name="Añadir al combate").click()
    expect(card(page, "Bandido 5")).to_be_visible()
    expect(page.locator(".fight-slot").nth(3)).to_contain_text("Bandido 4, 5")
    form.get_by_label("Nombre o plantilla").fill("   ")
    form.get_by_role("button", name="Añadir al combate").click()
    expect(page.locator("#pnj-error")).to_have_text("Ponle un nombre al PNJ.")


def test_another_tab_follows_the_pnj_the_first_adds_and_archives(browser, ambush):
    """Found playing it: a second tab kept its PNJ list and its add form as they were."""
    first = board(browser, ambush)
    second = first.context.new_page()
    second.goto(f"{ambush['base']}/c/kiso/")
    expect(second.locator("#live")).to_have_attribute("data-state", "open")
    services.fight_pass(campaign=ambush["campaign"])  # the second tab's turn is old now
    heard(first, ambush["campaign"])

    form = first.locator(".pnj-add")
    form.get_by_label("Nombre o plantilla").fill("Oni")
    form.locator('input[name="count"]').fill("2")
    form.get_by_role("button", name="Añadir al combate").click()
    expect(card(second, "Oni 2")).to_be_visible()
    # From the second tab, whose turn is not the current one, a PNJ still joins.
    second.locator(".pnj-add").get_by_label("Nombre o plantilla").fill("Kappa")
    second.locator(".pnj-add").get_by_role("button", name="Añadir al combate").click()
    expect(card(first, "Kappa")).to_be_visible()

    first.locator(".fight-end summary").click()
    first.locator(".fight-end").get_by_role("button", name="Terminar combate").click()
    expect(second.locator(".pnj-card")).to_have_count(0)
    expect(second.locator(".pnj-add")).to_have_attribute("data-fight", "0")
    expect(
        second.locator(".pnj-add").get_by_role("button", name="Añadir", exact=True)
    ).to_be_visible()


@pytest.mark.parametrize("width", [1280, 360])
def test_the_whole_card_opens_filled_and_stays_so_through_a_live_change(browser, ambush, width):
    """ "Tarjeta entera" is asked for when it opens, from the keyboard too; a change of that
    PNJ made elsewhere leaves it open, with its "Más acciones", both filled anew."""
    page = board(browser, ambush, width=width)
    jefe = card(page, "Jefe Zzsecreto")
    whole = jefe.locator("details.pnj-whole")
    expect(whole.locator(".pnj-whole-body")).to_have_count(0)  # not rendered with the board

    whole.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(whole.get_by_role("button", name="Revelar a los jugadores")).to_be_visible()
    expect(whole.locator(".scores")).to_contain_text("VOL 3")
    expect(whole.locator(".whole-slot")).not_to_have_attribute("aria-busy", "true")
    page.keyboard.press("Tab")  # from the summary into what it opened
    focused = page.evaluate("document.activeElement.closest('.pnj-whole-body') !== null")
    assert focused
    whole.locator("details.more summary").click()
    expect(whole.get_by_role("button", name="Dormir")).to_be_visible()

    services.event_record(
        campaign=ambush["campaign"],
        character=ambush["jefe"],
        event={"kind": "suffer", "type": "heridas", "grade": "grave"},
    )
    expect(jefe.locator(".box.marked")).to_have_count(1)  # the live change came
    expect(whole).to_have_attribute("open", "")
    expect(whole.locator(".ealt-title")).to_contain_text("Heridas")  # filled anew
    expect(whole.locator("details.more")).to_have_attribute("open", "")
    expect(whole.get_by_role("button", name="Curación")).to_be_visible()
    expect(whole.get_by_role("link", name="Abrir las acciones")).to_have_count(0)
    assert not describe("Tarjeta entera, filled", axe(page))
    screenshot(page, f"pnj-whole-open-{width}")


@pytest.mark.parametrize("width", [1280, 360])
def test_the_whole_card_without_javascript(browser, ambush, width):
    context = browser.new_context(
        java_script_enabled=False, locale="es-ES", viewport={"width": width, "height": 900}
    )
    log_in(context, ambush["base"], ambush["dj"])
    page = context.new_page()
    page.goto(f"{ambush['base']}/c/kiso/")
    jefe = card(page, "Jefe Zzsecreto")
    jefe.locator("details.pnj-whole summary").click()
    jefe.get_by_role("link", name="Abrir la tarjeta entera").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Jefe Zzsecreto")
    screenshot(page, f"pnj-whole-page-{width}")
    page.get_by_role("button", name="Revelar a los jugadores").click()
    expect(page).to_have_url(f"{ambush['base']}/c/kiso/")
    ambush["jefe"].refresh_from_db()
    assert ambush["jefe"].revealed
